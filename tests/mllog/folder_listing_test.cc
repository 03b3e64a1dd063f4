// list_folder (mllog/folder_listing.h): the entries and the answers about them are
// std::filesystem::directory_iterator's, with one getdents64 pass.
#include "mlperf/mllog/folder_listing.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>

#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::write_file;

TEST(FolderListing, EntriesAndTheirTypesAreTheDirectoryIterators) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "d";
  fs::create_directories(dir / "folder");
  write_file(dir / "file.txt", "x");
  write_file(dir / ".hidden", "");
  fs::create_symlink("file.txt", dir / "link_to_file");
  fs::create_symlink("folder", dir / "link_to_folder");
  fs::create_symlink("nowhere", dir / "broken_link");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);

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

}  // namespace
}  // namespace mlperf
