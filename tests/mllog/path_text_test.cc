// Tests of the path helpers that work on a path's text (mllog/path_text.h): each gives what
// std::filesystem::path gives for the same path, spelled every way a user may spell it.

#include "mlperf/mllog/path_text.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace mlperf {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string>& spellings() {
  static const std::vector<std::string> paths = {
      "", "/", "a", "/a", "a/b", "/a/b/c", "/a/b/c/", "a//b", "//a/b", "/a/./b", "./a", "../a/b", "/a/b/..",
      ".", "..", "/closed/AMD/results/8xMI300X/llama2-70b-99/Offline", "closed/AMD/results/s/m/Server/",
      "/x/y z/w"};
  return paths;
}

TEST(PathText, AncestorIsParentPathAppliedThatOften) {
  for (const auto& text : spellings()) {
    fs::path want = text;
    for (unsigned levels = 0; levels <= 7; ++levels) {
      EXPECT_EQ(path_ancestor(fs::path(text), levels).native(), want.native()) << "'" << text << "' up " << levels;
      want = want.parent_path();
    }
  }
}

TEST(PathText, AncestorTextAndFilenameAreThePathsOwn) {
  for (const auto& text : spellings()) {
    fs::path want = text;
    EXPECT_EQ(path_filename(text), fs::path(text).filename().native()) << "'" << text << "'";
    for (unsigned levels = 0; levels <= 7; ++levels) {
      const std::string got = path_ancestor_text(text, levels);
      EXPECT_EQ(got, want.native()) << "'" << text << "' up " << levels;
      EXPECT_EQ(path_filename(got), want.filename().native()) << "'" << text << "' up " << levels;
      want = want.parent_path();
    }
  }
}

// A PathRef reads the text it was given, from a path or a string, without a copy.
TEST(PathText, PathRefIsTheTextOfAPathOrString) {
  const fs::path path = "/closed/AMD/results";
  const std::string text = "/closed/AMD/systems/x.json";
  EXPECT_EQ(&PathRef(path).text(), &path.native());
  EXPECT_EQ(&PathRef(text).text(), &text);
  EXPECT_EQ(PathRef(text).path(), fs::path(text));
  EXPECT_EQ(folder_name_above(text), "systems");
  EXPECT_EQ(folder_name_above(path), "AMD");
}

TEST(PathText, JoinIsTheSlashOperatorForOneName) {
  for (const auto& folder : spellings()) {
    for (const std::string name : {"x", "file.txt", "a b", ".hidden"}) {
      EXPECT_EQ(path_join(folder, name), (fs::path(folder) / name).native()) << "'" << folder << "' / " << name;
    }
  }
}

// The folder name above a path is what lexical normalization then parent_path().filename()
// give, for paths cut as text and for those normalized first.
TEST(PathText, FolderNameAboveIsTheNormalizedPathsParentName) {
  std::vector<std::string> paths = spellings();
  for (const std::string more : {"a/", "/a/", "closed/AMD", "closed/AMD/", "a/b/.", "a/./b/c", "/a/b//", "x/...",
                                 "x/.y/z", "a/b/../c/d", "/a/b/c/..", "...", "a/..b/c"}) {
    paths.push_back(more);
  }
  for (const auto& text : paths) {
    fs::path want = fs::path(text).lexically_normal();
    if (want.filename().empty()) want = want.parent_path();
    EXPECT_EQ(folder_name_above(fs::path(text)), want.parent_path().filename().string()) << "'" << text << "'";
  }
}

TEST(PathText, ParentAndNameOfNormalAbsolutePaths) {
  for (const std::string text : {"/", "/a", "/a/b", "/closed/AMD/results/s"}) {
    EXPECT_EQ(std::string(path_parent(text)), fs::path(text).parent_path().native()) << text;
    EXPECT_EQ(std::string(path_name(text)), fs::path(text).filename().native()) << text;
  }
}

}  // namespace
}  // namespace mlperf
