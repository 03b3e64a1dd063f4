// Atomic output files: whole replacement, kept modes, and failures that leave nothing behind.

#include "mlperf/report/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::names_in;
using testing::read_file;
using testing::TempDir;
using testing::write_file;


TEST(AtomicFile, WritesANewFile) {
  TempDir tmp;
  fs::path out = tmp.path() / "report.xml";
  write_file_atomically(out, std::string("a\0b\n", 4));
  EXPECT_EQ(read_file(out), std::string("a\0b\n", 4));
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"report.xml"});
}

TEST(AtomicFile, ReplacesTheWholeContentAndKeepsTheMode) {
  TempDir tmp;
  fs::path out = tmp.path() / "report.xml";
  write_file(out, std::string(10000, 'x'));
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_file_atomically(out, "short");
  EXPECT_EQ(read_file(out), "short");  // no tail of the longer old content
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_file_atomically(out, "");
  EXPECT_EQ(read_file(out), "");
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"report.xml"});
}

TEST(AtomicFile, NewFilesGetTheUsualModeNotTheTemporaryFilesMode) {
  TempDir tmp;
  fs::path out = tmp.path() / "new.txt";
  mode_t mask = ::umask(022);
  write_file_atomically(out, "x");
  ::umask(mask);
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
}

TEST(AtomicFile, AMissingFolderThrowsNamingThePath) {
  TempDir tmp;
  fs::path out = tmp.path() / "missing" / "report.xml";
  try {
    write_file_atomically(out, "x");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(out.string() + ": cannot write: ", 0), 0u) << e.what();
  }
  EXPECT_TRUE(names_in(tmp.path()).empty());
}

TEST(AtomicFile, AFailedRenameRemovesTheTemporaryAndKeepsTheTarget) {
  // The target is a non-empty directory: the temporary is written, then rename() fails.
  TempDir tmp;
  fs::path out = tmp.path() / "report.xml";
  write_file(out / "inside.txt", "keep");
  EXPECT_THROW(write_file_atomically(out, "new"), std::runtime_error);
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"report.xml"});
  EXPECT_EQ(read_file(out / "inside.txt"), "keep");
}

TEST(AtomicFile, AReadOnlyFolderThrowsAndLeavesNoTemporary) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: a read-only folder is still writable";
  TempDir tmp;
  fs::path folder = tmp.path() / "ro";
  fs::create_directories(folder);
  write_file(folder / "report.xml", "old");
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(write_file_atomically(folder / "report.xml", "new"), std::runtime_error);
  fs::permissions(folder, fs::perms::owner_all);
  EXPECT_EQ(read_file(folder / "report.xml"), "old");
  EXPECT_EQ(names_in(folder), std::set<std::string>{"report.xml"});
}

TEST(AtomicFile, ARelativePathIsWrittenInTheCurrentFolder) {
  TempDir tmp;
  fs::path before = fs::current_path();
  fs::current_path(tmp.path());
  write_file_atomically("plain.txt", "here");
  fs::current_path(before);
  EXPECT_EQ(read_file(tmp.path() / "plain.txt"), "here");
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"plain.txt"});
}

}  // namespace
}  // namespace mlperf
