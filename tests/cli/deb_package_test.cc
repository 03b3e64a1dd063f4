// The Debian package (issue #28): cpack builds it from this build tree; its control fields,
// its file list (the runtime files and nothing else: no tests, benchmarks or headers), its man
// page, and the unpacked binary scoring its own unpacked examples with its own unpacked data.
//
// One test, so that ctest (one process per test) builds the package once. It needs cpack,
// dpkg-deb, dpkg-shlibdeps (Debian's dpkg-dev, for Depends) and file (CPack's DEB generator
// runs it on every file); without one of them it is skipped, naming the missing tool.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::binary;
using testing::q;
using testing::read_file;
using testing::run_command;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;

// The paths below `root` of every regular file under `root/dir`, as "dir/…".
std::set<std::string> files_under(const fs::path& root, const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
    if (e.is_regular_file()) out.insert(e.path().lexically_relative(root).generic_string());
  }
  return out;
}

// The first tool of `tools` that the shell cannot find; "" when all are there.
std::string missing_tool(const std::vector<std::string>& tools) {
  for (const auto& tool : tools) {
    if (run_command("command -v " + q(tool) + " >/dev/null 2>&1").status != 0) return tool;
  }
  return "";
}

// One control field of the package (dpkg-deb -f), without the trailing line break.
std::string field(const fs::path& deb, const std::string& name) {
  std::string value = run_command("dpkg-deb -f " + q(deb) + " " + name).out;
  while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.pop_back();
  return value;
}

TEST(DebPackageTest, DebHoldsTheRuntimeFilesAndItsUnpackedBinaryScoresTheExamples) {
  if (std::string tool = missing_tool({MLPERF_SCORE_CPACK, "dpkg-deb", "dpkg-shlibdeps", "file"}); !tool.empty()) {
    GTEST_SKIP() << tool << " not found: apt-get install cmake dpkg-dev file to test the Debian package";
  }
  TempDir tmp;
  // Into a folder of its own; the build tree only gains cpack's install manifest.
  auto built = run_command(q(MLPERF_SCORE_CPACK) + " -G DEB --config " + q(fs::path(MLPERF_SCORE_BUILD_DIR) / "CPackConfig.cmake") +
                           " -B " + q(tmp.path() / "out") + " 2>&1");
  ASSERT_EQ(built.status, 0) << built.out;
  std::vector<fs::path> debs;
  for (const auto& e : fs::directory_iterator(tmp.path() / "out")) {
    if (e.path().extension() == ".deb") debs.push_back(e.path());
  }
  ASSERT_EQ(debs.size(), 1u) << built.out;
  const fs::path deb = debs[0];
  const std::string arch = run_command("dpkg --print-architecture").out;
  EXPECT_EQ(deb.filename().string(),
            std::string("mlperf-score_") + MLPERF_SCORE_VERSION + "_" + arch.substr(0, arch.find('\n')) + ".deb");

  // Control fields: the version is project(VERSION), the one --version prints.
  EXPECT_EQ(field(deb, "Package"), "mlperf-score");
  EXPECT_EQ(field(deb, "Version"), MLPERF_SCORE_VERSION);
  EXPECT_EQ(run_command(q(binary()) + " --version").out, std::string("mlperf-score ") + MLPERF_SCORE_VERSION + "\n");
  EXPECT_EQ(field(deb, "Architecture") + "\n", arch);
  EXPECT_EQ(field(deb, "Section"), "utils");
  EXPECT_FALSE(field(deb, "Maintainer").empty());
  EXPECT_NE(field(deb, "Description").find("MLPerf"), std::string::npos);
  // Depends: the shared libraries the binary links (dpkg-shlibdeps), runtime packages only.
  const std::string depends = field(deb, "Depends");
  for (const char* lib : {"libc6 (>=", "libstdc++6 (>=", "libfmt", "libyaml-0-2"}) {
    EXPECT_NE(depends.find(lib), std::string::npos) << lib << " not in Depends: " << depends;
  }
  for (const char* build_only : {"-dev", "g++", "cmake", "chromium", "gtest", "benchmark"}) {
    EXPECT_EQ(depends.find(build_only), std::string::npos) << build_only << " in Depends: " << depends;
  }
  EXPECT_EQ(field(deb, "Suggests"), "libamdhip64-5, libnvidia-ml1");

  // The file list: every file the binary reads at run time (configs/, data/rcps/), the
  // examples, README, man page; nothing else (data/oracles/ only serves the tests).
  std::set<std::string> listed;
  {
    std::istringstream list(run_command("dpkg-deb -c " + q(deb)).out);
    for (std::string line; std::getline(list, line);) {
      if (line.empty() || line[0] != '-') continue;  // regular files only (folders end in /)
      auto at = line.find(" ./");
      ASSERT_NE(at, std::string::npos) << line;
      listed.insert(line.substr(at + 3));
    }
  }
  std::set<std::string> expected = {"usr/bin/mlperf-score", "usr/share/doc/mlperf-score/README.md"};
  if (MLPERF_SCORE_HAS_MAN_PAGE) expected.insert("usr/share/man/man1/mlperf-score.1.gz");
  for (const std::string dir : {"configs", "data/rcps"}) {
    for (const auto& f : files_under(source_dir(), dir)) expected.insert("usr/share/mlperf-score/" + f);
  }
  for (const auto& f : files_under(source_dir() / "data", "examples")) expected.insert("usr/share/mlperf-score/" + f);
  EXPECT_GT(expected.size(), 400u);
  std::vector<std::string> missing, extra;
  std::set_difference(expected.begin(), expected.end(), listed.begin(), listed.end(), std::back_inserter(missing));
  std::set_difference(listed.begin(), listed.end(), expected.begin(), expected.end(), std::back_inserter(extra));
  EXPECT_TRUE(missing.empty()) << missing.size() << " files missing, first " << missing.front();
  EXPECT_TRUE(extra.empty()) << extra.size() << " files not expected, first " << extra.front();
  for (const auto& f : listed) {
    EXPECT_FALSE(f.ends_with(".h") || f.ends_with(".a") || f.ends_with(".so") || f.find("mlperf_score_tests") != std::string::npos ||
                 f.find("oracles") != std::string::npos)
        << f;
  }

  // Unpacked, not installed: the binary finds its data as ../share/mlperf-score beside itself.
  const fs::path root = tmp.path() / "root";
  ASSERT_EQ(run_command("dpkg-deb -x " + q(deb) + " " + q(root)).status, 0);
  const fs::path bin = root / "usr/bin/mlperf-score";
  const fs::path examples = root / "usr/share/mlperf-score/examples";
  auto scored = run_command("cd / && env -u MLPERF_SCORE_DATA_DIR " + q(bin) + " score " + q(examples) + " 2>&1");
  EXPECT_EQ(scored.status, 0) << scored.out;
  EXPECT_TRUE(std::regex_search(scored.out, std::regex(R"(\n  score +10\.18 minutes +PASSED\n)"))) << scored.out;
  EXPECT_TRUE(std::regex_search(scored.out, std::regex(R"(\n  score +99\.71 minutes +PASSED\n)"))) << scored.out;
  EXPECT_NE(scored.out.find("result     23514.8 Tokens/s"), std::string::npos) << scored.out;
  EXPECT_NE(scored.out.find("result     18.5856 Samples/s"), std::string::npos) << scored.out;
  // ... and not from the source tree it was built from (its last resort): a published figure
  // changed in the unpacked configs/ shows.
  const fs::path published = root / "usr/share/mlperf-score/configs/expected_results.json";
  std::string text = read_file(published);
  const std::string was = "\"published_minutes\": 10.18,";
  ASSERT_NE(text.find(was), std::string::npos);
  text.replace(text.find(was), was.size(), "\"published_minutes\": 12.34,");
  write_file(published, text);
  auto changed = run_command("cd / && env -u MLPERF_SCORE_DATA_DIR " + q(bin) + " score " + q(examples) + " 2>&1");
  EXPECT_NE(changed.out.find("published 12.34 minutes"), std::string::npos) << changed.out;

  // The man page, made by help2man from the commands' help.
  if (!MLPERF_SCORE_HAS_MAN_PAGE) {
    GTEST_SKIP() << "help2man was not found when the build was configured: the package has no man page";
  }
  auto page = run_command("gzip -dc " + q(root / "usr/share/man/man1/mlperf-score.1.gz"));
  ASSERT_EQ(page.status, 0);
  EXPECT_NE(page.out.find(".TH MLPERF-SCORE \"1\""), std::string::npos) << page.out.substr(0, 400);
  EXPECT_NE(page.out.find(std::string("mlperf-score ") + MLPERF_SCORE_VERSION), std::string::npos);
  for (const char* command : {"check", "compare", "follow", "parse", "probe", "score", "summarize"}) {
    EXPECT_NE(page.out.find(std::string(".SS \"mlperf-score ") + command + "\""), std::string::npos) << command;
  }
  EXPECT_NE(page.out.find("Usage: mlperf-score score [OPTIONS] PATH..."), std::string::npos);
  EXPECT_EQ(page.out.find(MLPERF_SCORE_BUILD_DIR), std::string::npos) << "the build path leaked into the page";
}

}  // namespace
}  // namespace mlperf
