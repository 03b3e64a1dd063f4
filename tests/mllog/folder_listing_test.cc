// list_folder (mllog/folder_listing.h): the entries and the answers about them are
// std::filesystem::directory_iterator's, with one getdents64 pass.
#include "mlperf/mllog/folder_listing.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <map>

#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::write_file;

// A folder holding one of each kind of entry: a folder, a file of 5 bytes, links to both, a
// broken link and a FIFO.
fs::path sample_folder(const TempDir& tmp) {
  const fs::path dir = tmp.path() / "d";
  fs::create_directories(dir / "folder");
  write_file(dir / "file.txt", "12345");
  fs::create_symlink("file.txt", dir / "link_to_file");
  fs::create_symlink("folder", dir / "link_to_folder");
  fs::create_symlink("nowhere", dir / "broken_link");
  EXPECT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  return dir;
}

TEST(FolderListing, EntriesAndTheirTypesAreTheDirectoryIterators) {
  TempDir tmp;
  const fs::path dir = sample_folder(tmp);
  write_file(dir / ".hidden", "");

  std::vector<FolderEntry> entries;
  std::error_code ec;
  ASSERT_TRUE(list_folder(dir, entries, ec));
  EXPECT_FALSE(ec);
  std::vector<std::string> iterated;
  for (const auto& e : fs::directory_iterator(dir)) iterated.push_back(e.path().filename().string());
  ASSERT_EQ(entries.size(), 7u);
  ASSERT_EQ(entries.size(), iterated.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const FolderEntry& e = entries[i];
    EXPECT_EQ(e.name, iterated[i]);  // the same order
    const fs::directory_entry expected(dir / e.name);
    std::error_code ignored;
    EXPECT_EQ(e.is_directory(dir), expected.is_directory(ignored)) << e.name;
    EXPECT_EQ(e.is_regular_file(dir), expected.is_regular_file(ignored)) << e.name;
    EXPECT_EQ(e.is_symlink(dir), expected.is_symlink(ignored)) << e.name;
  }
  auto find = [&](const std::string& name) {
    for (const auto& e : entries) {
      if (e.name == name) return e;
    }
    return FolderEntry{};
  };
  EXPECT_TRUE(find("link_to_folder").is_directory(dir));
  EXPECT_TRUE(find("link_to_folder").is_symlink(dir));
  EXPECT_TRUE(find("link_to_file").is_regular_file(dir));
  EXPECT_FALSE(find("broken_link").is_regular_file(dir));
  EXPECT_TRUE(find("broken_link").is_symlink(dir));
  EXPECT_FALSE(find("fifo").is_regular_file(dir));
  EXPECT_FALSE(find("fifo").is_directory(dir));
  // A type the listing does not know is asked of the file system.
  EXPECT_TRUE((FolderEntry{"folder", 0}.is_directory(dir)));
  EXPECT_TRUE((FolderEntry{"link_to_file", 0}.is_symlink(dir)));
  EXPECT_TRUE((FolderEntry{"link_to_file", 0}.is_regular_file(dir)));
}

TEST(FolderListing, SizesAreThoseOfRegularFilesLinksFollowed) {
  TempDir tmp;
  const fs::path dir = sample_folder(tmp);
  std::vector<FolderEntry> entries;
  std::error_code ec;
  ASSERT_TRUE(list_folder_with_sizes(dir, entries, ec));
  std::map<std::string, std::int64_t> sizes;
  for (const auto& e : entries) sizes[e.name] = e.size;
  EXPECT_EQ(sizes, (std::map<std::string, std::int64_t>{{"file.txt", 5}, {"link_to_file", 5}, {"folder", -1},
                                                         {"link_to_folder", -1}, {"broken_link", -1}, {"fifo", -1}}));
  // Without sizes asked for, none is known.
  entries.clear();
  ASSERT_TRUE(list_folder(dir, entries, ec));
  for (const auto& e : entries) EXPECT_EQ(e.size, -1) << e.name;
}

TEST(FolderListing, FoldersAndRegularFilesAreNamedSortedLinksFollowed) {
  TempDir tmp;
  const fs::path dir = sample_folder(tmp);
  fs::create_directories(dir / "a_folder");
  write_file(dir / "c.txt", "x");
  EXPECT_EQ(folders_in(dir), (std::set<std::string>{"a_folder", "folder", "link_to_folder"}));
  EXPECT_EQ(regular_files_in(dir), (std::vector<std::string>{"c.txt", "file.txt", "link_to_file"}));
  EXPECT_TRUE(folders_in(tmp.path() / "absent").empty());
  EXPECT_TRUE(regular_files_in(tmp.path() / "absent").empty());
}

TEST(FolderListing, AFolderThatCannotBeListedIsAnError) {
  TempDir tmp;
  std::vector<FolderEntry> entries;
  std::error_code ec;
  EXPECT_FALSE(list_folder(tmp.path() / "absent", entries, ec));
  EXPECT_EQ(ec.value(), ENOENT);
  write_file(tmp.path() / "file", "x");
  EXPECT_FALSE(list_folder(tmp.path() / "file", entries, ec));
  EXPECT_EQ(ec.value(), ENOTDIR);
  EXPECT_TRUE(entries.empty());
  fs::create_directories(tmp.path() / "empty");
  EXPECT_TRUE(list_folder(tmp.path() / "empty", entries, ec));
  EXPECT_FALSE(ec);
  EXPECT_TRUE(entries.empty());
}

// The names list_folder gives for `folder` (from the listings in use, else the disk).
std::vector<std::string> names(const fs::path& folder) {
  std::vector<FolderEntry> entries;
  std::error_code ec;
  EXPECT_TRUE(list_folder(folder, entries, ec)) << folder;
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.name);
  return out;
}

// Listings kept by a walk answer list_folder while a Use names their top folder, in either
// spelling, and only then; a folder they do not hold is listed anew.
TEST(FolderListing, KeptListingsAnswerForTheirTopFolderWhileInUse) {
  TempDir tmp;
  const fs::path top = tmp.path() / "org";
  fs::create_directories(top / "results" / "sys");
  write_file(top / "results" / "sys" / "real.txt", "x");
  FolderListings kept;
  kept.add("/results/sys", {{"kept.txt", DT_REG}});
  kept.add("", {{"results", DT_DIR}});
  EXPECT_EQ(kept.size(), 2u);
  EXPECT_EQ(names(top / "results" / "sys"), std::vector<std::string>{"real.txt"});
  {
    FolderListings::Use use(&kept, {top, fs::path("relative/spelling/org")});
    EXPECT_EQ(names(top / "results" / "sys"), std::vector<std::string>{"kept.txt"});
    EXPECT_EQ(names(top), std::vector<std::string>{"results"});
    EXPECT_EQ(names(top / "results"), std::vector<std::string>{"sys"});  // not kept: listed
    EXPECT_NE(use.find("relative/spelling/org/results/sys"), nullptr);
    EXPECT_EQ(use.find("relative/spelling/orgx/results/sys"), nullptr);  // another folder
    EXPECT_EQ(use.find(top.string() + "x"), nullptr);
    {
      FolderListings::Use hidden(nullptr, {});
      EXPECT_EQ(names(top / "results" / "sys"), std::vector<std::string>{"real.txt"});
    }
    EXPECT_EQ(names(top / "results" / "sys"), std::vector<std::string>{"kept.txt"});
  }
  EXPECT_EQ(names(top / "results" / "sys"), std::vector<std::string>{"real.txt"});
}

// A Use with a second set of listings (discovery's, beside the walk's own) reads a folder
// from the first that holds it, the first set before the second; a folder neither holds is
// listed anew.
TEST(FolderListing, AUseReadsItsSecondListingsWhereTheFirstLackAFolder) {
  TempDir tmp;
  const fs::path top = tmp.path() / "org";
  fs::create_directories(top / "results" / "sys");
  fs::create_directories(top / "code");
  write_file(top / "code" / "real.txt", "x");
  FolderListings own, discovered;
  own.add("", {{"own.txt", DT_REG}});
  discovered.add("", {{"discovered.txt", DT_REG}});
  discovered.add("/results/sys", {{"discovered.txt", DT_REG}});
  {
    FolderListings::Use use(&own, {top}, &discovered);
    EXPECT_EQ(names(top), std::vector<std::string>{"own.txt"});
    EXPECT_EQ(names(top / "results" / "sys"), std::vector<std::string>{"discovered.txt"});
    EXPECT_EQ(names(top / "code"), std::vector<std::string>{"real.txt"});
  }
  {
    FolderListings::Use hidden(nullptr, {top}, &discovered);  // a Use of nullptr hides both
    EXPECT_EQ(names(top / "results" / "sys"), std::vector<std::string>{});
  }
}

// listed_exists, listed_is_directory, listed_is_regular_file and listed_file_size answer as
// std::filesystem does, links followed; from a kept listing of the folder while one is in use
// (what the listing holds is what they see), else from the disk.
TEST(FolderListing, ListedQueriesReadTheKeptListingElseTheDisk) {
  TempDir tmp;
  const fs::path dir = sample_folder(tmp);
  auto same_as_disk = [&](const std::string& where) {
    for (const char* name : {"folder", "file.txt", "link_to_file", "link_to_folder", "broken_link", "fifo", "absent"}) {
      const fs::path p = dir / name;
      std::error_code ec;
      EXPECT_EQ(listed_exists(p), fs::exists(p, ec)) << where << " " << name;
      EXPECT_EQ(listed_is_directory(p), fs::is_directory(p, ec)) << where << " " << name;
      EXPECT_EQ(listed_is_regular_file(p), fs::is_regular_file(p, ec)) << where << " " << name;
      const std::uintmax_t size = fs::file_size(p, ec);
      EXPECT_EQ(listed_file_size(p), ec ? std::nullopt : std::optional<std::uintmax_t>(size)) << where << " " << name;
      // With a separator at the end (a folder or a link to one only).
      const fs::path slash = p / "";
      EXPECT_EQ(listed_exists(slash), fs::exists(slash, ec)) << where << " " << name << "/";
      EXPECT_EQ(listed_is_directory(slash), fs::is_directory(slash, ec)) << where << " " << name << "/";
      // The path's text (PathRef of a std::string) is answered as the path is.
      const std::string text = p.native();
      EXPECT_EQ(listed_exists(text), listed_exists(p)) << where << " " << name << " as text";
      EXPECT_EQ(listed_is_directory(text), listed_is_directory(p)) << where << " " << name << " as text";
      EXPECT_EQ(listed_is_regular_file(text), listed_is_regular_file(p)) << where << " " << name << " as text";
      EXPECT_EQ(listed_file_size(text), listed_file_size(p)) << where << " " << name << " as text";
      EXPECT_EQ(listed_absent(text), listed_absent(p)) << where << " " << name << " as text";
      EXPECT_EQ(listed_exists(slash.native()), fs::exists(slash, ec)) << where << " " << name << "/ as text";
    }
    EXPECT_EQ(folders_in(dir.native()), (std::set<std::string>{"folder", "link_to_folder"})) << where;
    EXPECT_EQ(regular_files_in(dir.native()), (std::vector<std::string>{"file.txt", "link_to_file"})) << where;
  };
  same_as_disk("no listing in use");
  std::vector<FolderEntry> entries;
  std::error_code ec;
  ASSERT_TRUE(list_folder_with_sizes(dir, entries, ec));
  FolderListings kept;
  kept.add("/d", entries);
  {
    FolderListings::Use use(&kept, {tmp.path()});
    same_as_disk("the listing of the folder in use");
  }
  {
    FolderListings::Use use(&kept, {tmp.path()});
    EXPECT_TRUE(listed_absent(dir / "absent"));  // the kept listing has no such entry
    EXPECT_FALSE(listed_absent(dir / "file.txt"));
    EXPECT_FALSE(listed_absent(dir / "folder" / "absent"));  // its folder's listing is not kept
    EXPECT_FALSE(listed_absent(dir / "absent" / ""));
  }
  // A listing that differs from the disk is what they read.
  FolderListings other;
  other.add("/d", {{"ghost.bin", DT_REG, 42}, {"ghost", DT_DIR}, {"file.txt", DT_REG, -1}});
  FolderListings::Use use(&other, {tmp.path()});
  EXPECT_TRUE(listed_exists(dir / "ghost.bin"));
  EXPECT_TRUE(listed_is_regular_file(dir / "ghost.bin"));
  EXPECT_EQ(listed_file_size(dir / "ghost.bin"), 42u);
  EXPECT_TRUE(listed_is_directory(dir / "ghost"));
  EXPECT_EQ(listed_file_size(dir / "ghost"), std::nullopt);
  EXPECT_FALSE(listed_exists(dir / "folder"));  // on disk, not in the listing
  EXPECT_EQ(listed_file_size(dir / "file.txt"), 5u);  // listed without its size: a stat
  EXPECT_TRUE(listed_absent(dir / "folder"));
  EXPECT_FALSE(listed_absent(dir / "ghost.bin"));
  // A separator at the end: the listed type of the name before it.
  EXPECT_TRUE(listed_is_directory(dir / "ghost" / ""));
  EXPECT_TRUE(listed_exists(dir / "ghost" / ""));
  EXPECT_FALSE(listed_exists(dir / "ghost.bin" / ""));
  EXPECT_FALSE(listed_is_directory(dir / "folder" / ""));
  // Not a name in a kept folder: the disk answers.
  EXPECT_TRUE(listed_exists(dir / "."));
  EXPECT_TRUE(listed_is_directory(dir));
  EXPECT_FALSE(listed_exists(dir / "folder" / "ghost.bin"));
}

}  // namespace
}  // namespace mlperf
