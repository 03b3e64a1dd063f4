// Tests of FolderCache: files located relative to their folder held open, and read through
// it exactly as through their paths.

#include "mlperf/mllog/folder_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mlperf/mllog/line_reader.h"
#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;

// The bytes of a source, read to its end.
std::string drain(ByteSource source) {
  std::string out;
  std::vector<char> buffer(7);
  for (std::size_t n; (n = source(buffer.data(), buffer.size())) > 0;) out.append(buffer.data(), n);
  return out;
}

TEST(FolderCache, LocatesAFileByItsNameInItsFolderHeldOnce) {
  testing::TempDir tmp;
  testing::write_file(tmp.path() / "a" / "result_0.txt", "zero\n");
  testing::write_file(tmp.path() / "a" / "result_1.txt", "one\n");
  FolderCache folders;
  FileLocation first = folders.locate(tmp.path() / "a" / "result_0.txt");
  FileLocation second = folders.locate(tmp.path() / "a" / "result_1.txt");
  ASSERT_NE(first.folder, nullptr);
  EXPECT_EQ(first.folder, second.folder);  // the same open folder
  EXPECT_EQ(first.folder->path, (tmp.path() / "a").string());
  EXPECT_EQ(first.name, "result_0.txt");
  EXPECT_EQ(second.name, "result_1.txt");
  EXPECT_NE(first.dirfd(), AT_FDCWD);
  EXPECT_EQ(folders.size(), 1u);
  struct stat by_name {}, by_path {};
  ASSERT_EQ(::fstatat(second.dirfd(), second.name.c_str(), &by_name, 0), 0);
  ASSERT_EQ(::stat((tmp.path() / "a" / "result_1.txt").c_str(), &by_path), 0);
  EXPECT_EQ(by_name.st_ino, by_path.st_ino);
}

TEST(FolderCache, APathWithoutAFolderPartOrAPlainNameIsUsedWhole) {
  FolderCache folders;
  for (const char* path : {"result_0.txt", "a/..", "a/.", "a/"}) {
    FileLocation at = folders.locate(path);
    EXPECT_EQ(at.folder, nullptr) << path;
    EXPECT_EQ(at.name, path);
    EXPECT_EQ(at.dirfd(), AT_FDCWD);
  }
  FileLocation root = folders.locate("/etc");
  ASSERT_NE(root.folder, nullptr);
  EXPECT_EQ(root.folder->path, "/");
  EXPECT_EQ(root.name, "etc");
  EXPECT_EQ(folders.size(), 1u);
}

TEST(FolderCache, AFolderThatCannotBeOpenedIsNotHeldAndItsFileFailsAsItsPathWould) {
  testing::TempDir tmp;
  FolderCache folders;
  const fs::path missing = tmp.path() / "no-such-folder" / "result_0.txt";
  FileLocation at = folders.locate(missing);
  EXPECT_EQ(at.folder, nullptr);
  EXPECT_EQ(at.name, missing.string());
  EXPECT_EQ(folders.size(), 0u);
  testing::write_file(tmp.path() / "file", "x");
  FileLocation below_a_file = folders.locate(tmp.path() / "file" / "result_0.txt");
  EXPECT_EQ(below_a_file.folder, nullptr);
  struct stat info {};
  EXPECT_NE(::fstatat(below_a_file.dirfd(), below_a_file.name.c_str(), &info, 0), 0);
  EXPECT_EQ(errno, ENOTDIR);
}

TEST(FolderCache, HoldsTheLastFoldersUsedAndLetsTheOldestGo) {
  testing::TempDir tmp;
  FolderCache folders;
  std::vector<FileLocation> kept;
  for (std::size_t i = 0; i < FolderCache::kFolders; ++i) {
    fs::create_directories(tmp.path() / std::to_string(i));
    kept.push_back(folders.locate(tmp.path() / std::to_string(i) / "result_0.txt"));
  }
  EXPECT_EQ(folders.size(), FolderCache::kFolders);
  // Folder 0 used again: now the most recent, so folder 1 is the one let go next.
  EXPECT_EQ(folders.locate(tmp.path() / "0" / "result_1.txt").folder, kept[0].folder);
  fs::create_directories(tmp.path() / "new");
  folders.locate(tmp.path() / "new" / "result_0.txt");
  EXPECT_EQ(folders.size(), FolderCache::kFolders);
  EXPECT_EQ(folders.locate(tmp.path() / "0" / "result_2.txt").folder, kept[0].folder);
  EXPECT_NE(folders.locate(tmp.path() / "1" / "result_2.txt").folder, kept[1].folder);  // opened anew
  // A location keeps its folder open after the cache let it go.
  folders.clear();
  EXPECT_EQ(folders.size(), 0u);
  struct stat info {};
  EXPECT_EQ(::fstat(kept[1].dirfd(), &info), 0);
  EXPECT_TRUE(S_ISDIR(info.st_mode));
}

TEST(FolderCache, AFileReadThroughItsFolderGivesItsBytesAndErrorsAsThroughItsPath) {
  testing::TempDir tmp;
  testing::write_file(tmp.path() / "result_0.txt", "first line\nsecond line\n");
  FolderCache folders;
  EXPECT_EQ(drain(file_source(tmp.path() / "result_0.txt", &folders)), "first line\nsecond line\n");
  EXPECT_EQ(folders.size(), 1u);
  try {
    file_source(tmp.path() / "result_9.txt", &folders);
    FAIL() << "no error for a missing file";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), (tmp.path() / "result_9.txt").string() + ": cannot open: No such file or directory");
  }
}

// The end-of-file check asks the folder held open for the name: a file renamed over the log
// while it was read is found there.
TEST(FolderCache, AFileReplacedUnderItsNameWhileReadThroughItsFolderIsAnError) {
  testing::TempDir tmp;
  const fs::path log = tmp.path() / "result_0.txt";
  testing::write_file(log, "first version\n");
  FolderCache folders;
  ByteSource source = file_source(log, &folders);
  testing::write_file(tmp.path() / "new.txt", "second version\n");
  fs::rename(tmp.path() / "new.txt", log);
  std::vector<char> buffer(4096);
  EXPECT_EQ(source(buffer.data(), buffer.size()), 14u);
  try {
    source(buffer.data(), buffer.size());
    FAIL() << "no error for a log replaced while read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(log.string() + ": changed while it was read (another file took its name)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace mlperf
