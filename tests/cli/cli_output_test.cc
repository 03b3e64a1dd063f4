// Output safety from the command line (issue #11): `check --junit` onto a device, a symlink
// to standard output, a symlink, a FIFO; reports written to a full device or past a file
// size limit; a reader that goes away (`| head`). Each runs as the current user and, when
// that is root, again as nobody (setpriv). The binary, the shipped data and the input are
// copied into a world-readable folder first, so nobody reaches them wherever the checkout
// lives. Device twins are made with mknod in that folder: the real /dev files are never
// named.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::q;
using testing::example_system;
using testing::names_in;
using testing::read_file;
using testing::run_command;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;



bool is_char_device(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

class CliOutput : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "nobody") {
      if (::geteuid() != 0) GTEST_SKIP() << "not root: the run as nobody is the same as the run as this user";
      if (run_command("command -v setpriv >/dev/null 2>&1").status != 0) GTEST_SKIP() << "setpriv is not installed";
      prefix_ = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    }
    fs::permissions(tmp_.path(), fs::perms::all);  // nobody writes its outputs here too
    fs::create_directories(tmp_.path() / "bin");
    fs::create_directories(share_ / "data");
    fs::create_directories(input_.parent_path());
    fs::copy_file(MLPERF_SCORE_BINARY, binary_);
    fs::copy(source_dir() / "configs", share_ / "configs", fs::copy_options::recursive);
    fs::copy(source_dir() / "data/rcps", share_ / "data/rcps", fs::copy_options::recursive);
    fs::copy(example_system() / "llama31_8b", input_, fs::copy_options::recursive);
    fs::create_directories(out_);
    fs::permissions(out_, fs::perms::all);
    fs::create_directories(logs_);
  }

  // Runs `mlperf-score ARGS` as the parameter's user; `redirect` is appended to the command
  // (the shell, not the user, opens it). Standard error goes to logs/stderr.txt.
  testing::CommandResult run(const std::string& args, const std::string& redirect = "") {
    return run_command(prefix_ + q(binary_) + " " + args + " 2>" + q(logs_ / "stderr.txt") + redirect);
  }
  std::string err() const { return read_file(logs_ / "stderr.txt"); }
  std::string check_args() const { return "check --ruleset 5.1.0 --data-dir " + q(share_); }
  // A twin of /dev/full in out/; false (the test then skips) where mknod is not allowed.
  bool full_twin() const {
    return ::mknod((out_ / "full").c_str(), S_IFCHR | 0666, ::makedev(1, 7)) == 0 &&
           ::chmod((out_ / "full").c_str(), 0666) == 0;  // past the umask: nobody writes it too
  }

  TempDir tmp_;
  std::string prefix_;
  fs::path binary_ = tmp_.path() / "bin/mlperf-score";
  fs::path share_ = tmp_.path() / "share";
  fs::path input_ = tmp_.path() / "in/llama31_8b";
  fs::path out_ = tmp_.path() / "out";
  fs::path logs_ = tmp_.path() / "logs";
};

TEST_P(CliOutput, JunitOntoAFullDeviceIsAnErrorAndTheDeviceStays) {
  if (!full_twin()) GTEST_SKIP() << "mknod not permitted here: the /dev/full twin cannot be made";
  auto r = run(check_args() + " --junit " + q(out_ / "full") + " " + q(input_));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(err(), "mlperf-score: " + (out_ / "full").string() + ": cannot write: write failed: No space left on device\n");
  EXPECT_NE(r.out.find(": PASSED"), std::string::npos) << r.out;  // the report itself was printed
  EXPECT_TRUE(is_char_device(out_ / "full"));
  EXPECT_EQ(names_in(out_), std::set<std::string>{"full"});
}

TEST_P(CliOutput, JunitOntoAStdoutLinkPrintsTheXmlAndLeavesTheLink) {
  fs::create_symlink("/proc/self/fd/1", out_ / "stdout");  // a twin of /dev/stdout
  auto r = run("check --format json --ruleset 5.1.0 --data-dir " + q(share_) + " --junit " + q(out_ / "stdout") + " " +
               q(input_));
  EXPECT_EQ(r.status, 0) << err();
  EXPECT_EQ(err(), "");
  std::size_t xml = r.out.find("<?xml");
  ASSERT_NE(xml, std::string::npos) << r.out;
  auto doc = nlohmann::json::parse(r.out.substr(0, xml));  // the JSON report, then the XML
  EXPECT_EQ(doc["results"][0]["passed"], true);
  EXPECT_NE(r.out.find("</testsuites>", xml), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(out_ / "stdout"));
  EXPECT_EQ(fs::read_symlink(out_ / "stdout"), "/proc/self/fd/1");
}

TEST_P(CliOutput, JunitDashPrintsTheXml) {
  auto r = run(check_args() + " --format github --junit - " + q(input_));
  EXPECT_EQ(r.status, 0) << err();
  // A folder outside the submission layout: no system description, one warning says so.
  EXPECT_NE(r.out.find("check: 1 directory, 1 passed, 0 failed; 0 errors, 1 warning\n<?xml"), std::string::npos)
      << r.out;
  EXPECT_EQ(names_in(out_), std::set<std::string>{});
}

TEST_P(CliOutput, JunitOntoASymlinkReplacesItsTargetAndLeavesTheLink) {
  write_file(out_ / "target.xml", "old\n");
  fs::permissions(out_ / "target.xml", fs::perms::all);
  fs::create_symlink("target.xml", out_ / "link.xml");
  auto r = run(check_args() + " --junit " + q(out_ / "link.xml") + " " + q(input_));
  EXPECT_EQ(r.status, 0) << err();
  EXPECT_TRUE(fs::is_symlink(out_ / "link.xml"));
  EXPECT_EQ(fs::read_symlink(out_ / "link.xml"), "target.xml");
  EXPECT_EQ(read_file(out_ / "target.xml").rfind("<?xml", 0), 0u);
  EXPECT_EQ(names_in(out_), (std::set<std::string>{"link.xml", "target.xml"}));
}

TEST_P(CliOutput, JunitOntoAFifoNobodyReadsIsAnErrorAndTheFifoStays) {
  ASSERT_EQ(::mkfifo((out_ / "pipe").c_str(), 0666), 0);
  ASSERT_EQ(::chmod((out_ / "pipe").c_str(), 0666), 0);
  auto r = run(check_args() + " --junit " + q(out_ / "pipe") + " " + q(input_));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(err(), "mlperf-score: " + (out_ / "pipe").string() + ": cannot write: no process reads this FIFO\n");
  EXPECT_TRUE(fs::is_fifo(out_ / "pipe"));
}

TEST_P(CliOutput, JunitOntoAFolderIsAnError) {
  auto r = run(check_args() + " --junit " + q(out_) + " " + q(input_));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(err(), "mlperf-score: " + out_.string() + ": cannot write: is a directory\n");
  EXPECT_EQ(names_in(out_), std::set<std::string>{});
}

TEST_P(CliOutput, AReportOntoAFullDeviceIsAnError) {
  if (!full_twin()) GTEST_SKIP() << "mknod not permitted here: the /dev/full twin cannot be made";
  const std::string message = "mlperf-score: cannot write the report: No space left on device\n";
  for (const std::string& args : {"score --format json --ruleset 5.1.0 --data-dir " + q(share_) + " " + q(input_),
                                  check_args() + " " + q(input_), "parse " + q(input_ / "result_0.txt")}) {
    SCOPED_TRACE(args);
    EXPECT_EQ(run(args, " >" + q(out_ / "full")).status, 2);
    EXPECT_EQ(err(), message);
  }
  EXPECT_TRUE(is_char_device(out_ / "full"));
}

TEST_P(CliOutput, AReportPastTheFileSizeLimitIsAnError) {
  // A one-block file size limit (SIGXFSZ ignored: write fails with EFBIG), as a full disk
  // would, without a device: the report is larger than 512 bytes.
  auto r = run_command("sh -c \"trap '' XFSZ; ulimit -f 1; exec " + prefix_ + q(binary_) +
                       " score --format json --ruleset 5.1.0 --data-dir " + q(share_) + " " + q(input_) + "\" >" +
                       q(out_ / "report.json") + " 2>" + q(logs_ / "stderr.txt"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(err(), "mlperf-score: cannot write the report: File too large\n");
}

TEST_P(CliOutput, AReaderThatGoesAwayEndsTheCommandQuietly) {
  auto r = run("score --ruleset 5.1.0 --data-dir " + q(share_) + " " + q(input_), " | head -1");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "- / in / llama31_8b\n");
  EXPECT_EQ(err(), "");
  // With SIGPIPE ignored (as some parents leave it), the write fails with EPIPE instead of
  // a signal: the command still ends quietly, with the status a SIGPIPE would give.
  // Twenty copies of a log: far more output than a pipe holds, so the writer must meet the
  // closed pipe whatever the timing.
  std::string logs;
  for (int i = 0; i < 20; ++i) logs += " " + q(input_ / "result_0.txt");
  r = run_command("sh -c \"trap '' PIPE; (" + prefix_ + q(binary_) + " parse" + logs + " 2>" +
                  q(logs_ / "stderr.txt") + "; echo \\$? >" +
                  q(logs_ / "status.txt") + ") | head -1\"");
  EXPECT_EQ(r.out.rfind("{\"file\":", 0), 0u) << r.out;
  EXPECT_EQ(read_file(logs_ / "status.txt"), "141\n");
  EXPECT_EQ(err(), "");
}

TEST_P(CliOutput, AStandardErrorThatCannotBeWrittenIsStillExitStatusTwo) {
  if (!full_twin()) GTEST_SKIP() << "mknod not permitted here: the /dev/full twin cannot be made";
  auto r = run_command(prefix_ + q(binary_) + " score " + q(tmp_.path() / "missing") + " 2>" + q(out_ / "full"));
  EXPECT_EQ(r.status, 2);
}

INSTANTIATE_TEST_SUITE_P(Users, CliOutput, ::testing::Values("this user", "nobody"),
                         [](const auto& info) { return info.param == "nobody" ? "AsNobody" : "AsThisUser"; });

}  // namespace
}  // namespace mlperf
