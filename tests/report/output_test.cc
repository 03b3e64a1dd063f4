// Output safety (issue #11): how each kind of output path is written, and the checked
// standard-output buffer. Device twins are made with mknod in the test's own folder; the
// real /dev files are never written.

#include "mlperf/report/output.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <iostream>
#include <iterator>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>

#include "mlperf/report/atomic_file.h"
#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::names_in;
using testing::read_file;
using testing::TempDir;
using testing::write_file;


// The message resolve_output_target / write_output_file threw, or "" when nothing was thrown.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// A twin of /dev/full (character device 1,7) at `path`; false where mknod is not allowed.
bool make_full_twin(const fs::path& path) { return ::mknod(path.c_str(), S_IFCHR | 0666, ::makedev(1, 7)) == 0; }

TEST(OutputTarget, DashIsStandardOutput) {
  EXPECT_EQ(resolve_output_target("-").route, OutputRoute::kStandardOutput);
}

TEST(OutputTarget, ANewPathAndARegularFileAreReplacedAtomicallyWhereTheyAre) {
  TempDir tmp;
  OutputTarget fresh = resolve_output_target(tmp.path() / "new.xml");
  EXPECT_EQ(fresh.route, OutputRoute::kAtomicReplace);
  EXPECT_EQ(fresh.path, tmp.path() / "new.xml");
  write_file(tmp.path() / "old.xml", "old");
  OutputTarget old = resolve_output_target(tmp.path() / "old.xml");
  EXPECT_EQ(old.route, OutputRoute::kAtomicReplace);
  EXPECT_EQ(old.path, tmp.path() / "old.xml");
}

TEST(OutputTarget, ASymlinkChainIsFollowedToTheFileItNames) {
  TempDir tmp;
  fs::create_directory(tmp.path() / "reports");
  write_file(tmp.path() / "reports/check.xml", "old");
  fs::create_symlink("reports/check.xml", tmp.path() / "first");  // relative to the link's folder
  fs::create_symlink(tmp.path() / "first", tmp.path() / "second");
  OutputTarget t = resolve_output_target(tmp.path() / "second");
  EXPECT_EQ(t.route, OutputRoute::kAtomicReplace);
  EXPECT_EQ(t.path, tmp.path() / "reports/check.xml");
  // A dangling link: its target is the new file.
  fs::create_symlink("later.xml", tmp.path() / "dangling");
  EXPECT_EQ(resolve_output_target(tmp.path() / "dangling").path, tmp.path() / "later.xml");
}

TEST(OutputTarget, DirectoriesSocketsAndLinkLoopsAreRefused) {
  TempDir tmp;
  EXPECT_EQ(error_of([&] { resolve_output_target(tmp.path()); }), tmp.path().string() + ": cannot write: is a directory");
  fs::create_symlink(tmp.path() / "b", tmp.path() / "a");
  fs::create_symlink(tmp.path() / "a", tmp.path() / "b");
  EXPECT_EQ(error_of([&] { resolve_output_target(tmp.path() / "a"); }),
            (tmp.path() / "a").string() + ": cannot write: Too many levels of symbolic links");

  int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string name = (tmp.path() / "s").string();
  ASSERT_LT(name.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, name.c_str(), name.size() + 1);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(error_of([&] { resolve_output_target(name); }), name + ": cannot write: is a socket");
  ::close(sock);
}

TEST(OutputTarget, AFifoAndACharacterDeviceAreWrittenInPlace) {
  TempDir tmp;
  ASSERT_EQ(::mkfifo((tmp.path() / "pipe").c_str(), 0600), 0);
  OutputTarget t = resolve_output_target(tmp.path() / "pipe");
  EXPECT_EQ(t.route, OutputRoute::kDirect);
  EXPECT_EQ(t.path, tmp.path() / "pipe");
  if (!make_full_twin(tmp.path() / "full")) GTEST_SKIP() << "mknod not permitted here: the device case is untested";
  EXPECT_EQ(resolve_output_target(tmp.path() / "full").route, OutputRoute::kDirect);
}

TEST(WriteOutputFile, ASymlinkStaysALinkAndItsTargetIsReplaced) {
  TempDir tmp;
  write_file(tmp.path() / "target.xml", "old");
  fs::create_symlink("target.xml", tmp.path() / "link.xml");
  std::ostringstream out;
  write_output_file(tmp.path() / "link.xml", "<new/>", out);
  EXPECT_TRUE(fs::is_symlink(tmp.path() / "link.xml"));
  EXPECT_EQ(fs::read_symlink(tmp.path() / "link.xml"), "target.xml");
  EXPECT_EQ(read_file(tmp.path() / "target.xml"), "<new/>");
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(names_in(tmp.path()), (std::set<std::string>{"link.xml", "target.xml"}));
}

TEST(WriteOutputFile, DashGoesToTheStandardOutputStream) {
  std::ostringstream out;
  write_output_file("-", "<xml/>\n", out);
  EXPECT_EQ(out.str(), "<xml/>\n");
}

TEST(WriteOutputFile, AFifoWithAReaderGetsTheBytesAndStaysAFifo) {
  TempDir tmp;
  fs::path fifo = tmp.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  std::ostringstream out;
  write_output_file(fifo, "report bytes", out);
  char buf[64] = {};
  ssize_t n = ::read(reader, buf, sizeof buf);
  ::close(reader);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "report bytes");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"pipe"});
}

TEST(WriteOutputFile, AFifoNobodyReadsIsAnErrorNotAHang) {
  TempDir tmp;
  fs::path fifo = tmp.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::ostringstream out;
  EXPECT_EQ(error_of([&] { write_output_file(fifo, "x", out); }),
            fifo.string() + ": cannot write: no process reads this FIFO");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(WriteOutputFile, AFullDeviceIsAnErrorAndStaysADevice) {
  TempDir tmp;
  fs::path full = tmp.path() / "full";
  if (!make_full_twin(full)) GTEST_SKIP() << "mknod not permitted here (not root): the /dev/full twin is untested";
  std::ostringstream out;
  EXPECT_EQ(error_of([&] { write_output_file(full, "<xml/>", out); }),
            full.string() + ": cannot write: write failed: No space left on device");
  struct stat st {};
  ASSERT_EQ(::lstat(full.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"full"});
}

TEST(AtomicFile, NeverRenamesOverAFifo) {
  TempDir tmp;
  fs::path fifo = tmp.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { write_file_atomically(fifo, "x"); }),
            fifo.string() + ": cannot write: not a regular file; it is never replaced: File exists");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"pipe"});
}

// Streamed outputs (issue #25): the same routes as write_output_file, the file in place only
// once finish() is called, nothing left behind when it is not.
TEST(OutputWriter, AFileAppearsWholeOnlyAtFinish) {
  TempDir tmp;
  write_file(tmp.path() / "report.json", "old");
  {
    OutputWriter out(tmp.path() / "report.json", std::cout);
    for (int i = 0; i < 20000; ++i) out.stream() << "line " << i << '\n';  // past the 64 KiB block
    EXPECT_EQ(read_file(tmp.path() / "report.json"), "old");
    EXPECT_EQ(names_in(tmp.path()).size(), 2u);  // the file and its temporary
    out.finish();
  }
  std::string text = read_file(tmp.path() / "report.json");
  EXPECT_EQ(text.substr(0, 14), "line 0\nline 1\n");
  EXPECT_EQ(text.substr(text.size() - 11), "line 19999\n");
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"report.json"});
}

TEST(OutputWriter, WithoutFinishTheFileIsUntouchedAndNoTemporaryRemains) {
  TempDir tmp;
  write_file(tmp.path() / "report.json", "old");
  {
    OutputWriter out(tmp.path() / "report.json", std::cout);
    out.stream() << std::string(200000, 'x');
  }
  EXPECT_EQ(read_file(tmp.path() / "report.json"), "old");
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"report.json"});
  { OutputWriter fresh(tmp.path() / "new.json", std::cout); }
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"report.json"});
}

TEST(OutputWriter, DashIsTheStandardOutputStream) {
  std::ostringstream standard_output;
  OutputWriter out("-", standard_output);
  out.stream() << "report";
  out.finish();
  EXPECT_EQ(standard_output.str(), "report");
}

TEST(OutputWriter, AFifoNobodyReadsAndADirectoryAreErrorsAtOnce) {
  TempDir tmp;
  ASSERT_EQ(::mkfifo((tmp.path() / "pipe").c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { OutputWriter out(tmp.path() / "pipe", std::cout); }),
            (tmp.path() / "pipe").string() + ": cannot write: no process reads this FIFO");
  EXPECT_NE(error_of([&] { OutputWriter out(tmp.path(), std::cout); }).find("cannot write"), std::string::npos);
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"pipe"});
}

TEST(OutputWriter, AFullDeviceIsAnErrorAtFinishAndStaysADevice) {
  TempDir tmp;
  const fs::path full = tmp.path() / "full";
  if (!make_full_twin(full)) GTEST_SKIP() << "mknod not permitted here (not root): the /dev/full twin is untested";
  OutputWriter out(full, std::cout);
  out.stream() << std::string(100000, 'x');
  EXPECT_EQ(error_of([&] { out.finish(); }), full.string() + ": cannot write: write failed: No space left on device");
  struct stat st {};
  ASSERT_EQ(::lstat(full.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(CheckedFdBuffer, WritesEverythingInOrder) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    CheckedFdBuffer buffer(fds[1]);
    std::ostream out(&buffer);
    out << "first " << 42 << '\n' << std::string(1000, 'x');
    out.flush();
    EXPECT_TRUE(out.good());
    EXPECT_EQ(buffer.error(), 0);
    EXPECT_FALSE(buffer.broken_pipe());
  }
  ::close(fds[1]);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  EXPECT_EQ(got, "first 42\n" + std::string(1000, 'x'));
}

TEST(CheckedFdBuffer, BigBlocksBetweenSmallWritesKeepTheirOrder) {
  // Blocks of 64 KiB and more bypass the buffer: what was buffered before goes out first.
  testing::TempFile file("");
  const int fd = ::open(file.path().c_str(), O_WRONLY | O_TRUNC);
  ASSERT_GE(fd, 0);
  const std::string big(200000, 'b'), bigger(70000, 'c');
  {
    CheckedFdBuffer buffer(fd);
    std::ostream out(&buffer);
    out << "head " << 1 << big << '|' << bigger << "tail";
    out.flush();
    EXPECT_TRUE(out.good());
    EXPECT_EQ(buffer.error(), 0);
  }
  ::close(fd);
  std::ifstream in(file.path(), std::ios::binary);
  const std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, "head 1" + big + "|" + bigger + "tail");
}

TEST(CheckedFdBuffer, AClosedPipeIsABrokenPipeNotAnError) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  auto old = std::signal(SIGPIPE, SIG_IGN);  // as when a parent ignores SIGPIPE: write gets EPIPE
  CheckedFdBuffer buffer(fds[1]);
  std::ostream out(&buffer);
  out << "nobody reads this" << std::flush;
  std::signal(SIGPIPE, old);
  EXPECT_TRUE(buffer.broken_pipe());
  EXPECT_EQ(buffer.error(), 0);
  EXPECT_FALSE(out.good());
  ::close(fds[1]);
}

TEST(CheckedFdBuffer, TheFirstWriteErrorIsKept) {
  TempDir tmp;
  write_file(tmp.path() / "in.txt", "");
  int fd = ::open((tmp.path() / "in.txt").c_str(), O_RDONLY);  // writing a read-only fd: EBADF
  ASSERT_GE(fd, 0);
  CheckedFdBuffer buffer(fd);
  std::ostream out(&buffer);
  out << "lost" << std::flush;
  EXPECT_EQ(buffer.error(), EBADF);
  EXPECT_FALSE(buffer.broken_pipe());
  EXPECT_FALSE(out.good());
  ::close(fd);
}

}  // namespace
}  // namespace mlperf
