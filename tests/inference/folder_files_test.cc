// Tests of read_text_lines and python_float (inference/folder_files.h): a file's lines as the submission
// checker reads the compliance tests' verification files, split at "\n", "\r" and "\r\n".

#include "mlperf/inference/folder_files.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../test_support.h"

namespace mlperf::inference {
namespace {

using Lines = std::vector<std::string>;

TEST(FolderFiles, TextLinesAreSplitAtEveryKindOfLineEnd) {
  testing::TempDir dir;
  const std::filesystem::path file = dir.path() / "verify_accuracy.txt";
  struct Case {
    std::string text;
    Lines lines;
  };
  for (const Case& c : {Case{"", {}}, Case{"TEST PASS", {"TEST PASS"}}, Case{"TEST PASS\n", {"TEST PASS"}},
                        Case{"a\r\nb\rc\nd", {"a", "b", "c", "d"}}, Case{"a\n\nb\r\r\n", {"a", "", "b", ""}},
                        Case{"\n", {""}}, Case{"\r\n\r\n", {"", ""}}, Case{std::string("x\0y\n", 4), {std::string("x\0y", 3)}}}) {
    testing::write_file(file, c.text);
    EXPECT_EQ(read_text_lines(file), std::optional<Lines>(c.lines)) << "'" << c.text << "'";
  }
  EXPECT_EQ(read_text_lines(dir.path() / "absent.txt"), std::nullopt);
  EXPECT_EQ(read_text_lines(dir.path()), std::optional<Lines>(Lines{}));  // a folder opens, then reads nothing
}

// Python's float(): what it reads and what makes it raise.
TEST(PythonFloat, ReadsWhatFloatReadsAndNothingElse) {
  EXPECT_EQ(python_float("172.900000"), 172.9);
  EXPECT_EQ(python_float(" 75.92\n"), 75.92);
  EXPECT_EQ(python_float("+1e3"), 1000.0);
  EXPECT_EQ(python_float("-0.5"), -0.5);
  EXPECT_EQ(python_float("1e500"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(python_float("-inf"), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(*python_float("nan")));
  for (const char* bad : {"", "  ", "0x10", "1.5x", "n/a", "+-1", "--1", "1 2"}) EXPECT_FALSE(python_float(bad)) << bad;
}

}  // namespace
}  // namespace mlperf::inference
