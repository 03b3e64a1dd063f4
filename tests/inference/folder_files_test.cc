// Tests of read_text_lines (inference/folder_files.h): a file's lines as the submission
// checker reads the compliance tests' verification files, split at "\n", "\r" and "\r\n".

#include "mlperf/inference/folder_files.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace mlperf::inference
