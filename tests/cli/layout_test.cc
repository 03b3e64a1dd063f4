// The source tree's layout (the project's stage folders, ../shared/docs/architecture.md): every
// source file lives in the folder of its stage, the same in src/, include/mlperf/ and tests/,
// and a stage includes only the stages below it:
//   cli → report → inference → training → compliance, device → mllog.
// (An inference scenario folder is scored into the training stage's DirectoryResult, so the
// inference stage sits above training; compliance and device are side by side and never
// include each other.)
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::source_dir;

// The stages, lowest first: a file may include its own stage and any of lower rank.
const std::map<std::string, int> kStageRank = {
    {"mllog", 0}, {"compliance", 1}, {"device", 1}, {"training", 2},
    {"inference", 3}, {"report", 4}, {"cli", 5},
};

// The stage of `file` below `root` (its first folder); "" for a file directly in `root`.
std::string stage_of(const fs::path& root, const fs::path& file) {
  const fs::path relative = file.lexically_relative(root);
  return std::distance(relative.begin(), relative.end()) > 1 ? relative.begin()->string() : "";
}

std::vector<fs::path> files_below(const fs::path& root, const std::vector<std::string>& extensions) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    for (const auto& ext : extensions) {
      if (entry.path().extension() == ext) out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The mlperf stages `file` includes ("mlperf/<stage>/...").
std::vector<std::pair<int, std::string>> included_stages(const fs::path& file) {
  static const std::regex include(R"re(^\s*#\s*include\s*"mlperf/([^/"]+)/)re");
  std::ifstream in(file);
  std::vector<std::pair<int, std::string>> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (std::regex_search(line, m, include)) out.emplace_back(n, m[1].str());
  }
  return out;
}

TEST(Layout, EverySourceFileLivesInAStageFolder) {
  for (const fs::path root : {source_dir() / "src", source_dir() / "include/mlperf", source_dir() / "tests"}) {
    for (const auto& file : files_below(root, {".cc", ".h"})) {
      const std::string stage = stage_of(root, file);
      if (root.filename() == "tests" && (stage.empty() || stage == "data")) continue;  // shared helpers, fixtures
      EXPECT_TRUE(kStageRank.count(stage)) << file << ": not in a stage folder (" << stage << ")";
    }
  }
}

TEST(Layout, EveryStageHasItsFolderInSrcIncludeAndTests) {
  for (const auto& [stage, rank] : kStageRank) {
    EXPECT_TRUE(fs::is_directory(source_dir() / "src" / stage)) << "src/" << stage;
    EXPECT_TRUE(fs::is_directory(source_dir() / "tests" / stage)) << "tests/" << stage;
    if (stage != "cli") EXPECT_TRUE(fs::is_directory(source_dir() / "include/mlperf" / stage)) << "include/mlperf/" << stage;
  }
}

TEST(Layout, NoStageIncludesAStageAboveIt) {
  int checked = 0;
  for (const fs::path root : {source_dir() / "src", source_dir() / "include/mlperf"}) {
    for (const auto& file : files_below(root, {".cc", ".h"})) {
      const std::string stage = stage_of(root, file);
      auto own = kStageRank.find(stage);
      if (own == kStageRank.end()) continue;  // reported by EverySourceFileLivesInAStageFolder
      for (const auto& [line, included] : included_stages(file)) {
        ++checked;
        auto other = kStageRank.find(included);
        ASSERT_NE(other, kStageRank.end()) << file << ":" << line << ": includes unknown stage " << included;
        EXPECT_TRUE(included == stage || other->second < own->second)
            << file << ":" << line << ": the " << stage << " stage includes the " << included << " stage";
      }
    }
  }
  EXPECT_GT(checked, 100);  // the includes were found at all
}

}  // namespace
}  // namespace mlperf
