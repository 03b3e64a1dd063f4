// Nothing lost (issue #6, part 4): no command writes into its input, and every output file
// is written to a temporary file in its folder and renamed into place, so a failed write
// leaves no partial file.
//
// Root may write into read-only folders, so a read-only input tree alone proves nothing
// here: each command's input is compared before and after, entry by entry (type, mode, size,
// content, inode, modification time of files and folders; a temporary file created and
// removed in an input folder changes the folder's time), and, when the tests run as root,
// every command runs a second time as user nobody (setpriv), for whom read-only holds.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <set>
#include <thread>

#include "../data/hostile/hostile_cases.h"
#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using namespace testing::hostile;
using testing::binary;
using testing::q;
using testing::names_in;
using testing::read_file;
using testing::run_command;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;


// The commands this file covers; EveryCommandIsCovered fails when the binary has another.
const std::set<std::string> kCovered = {"check", "compare", "follow", "parse", "probe", "score", "summarize"};

// Every entry at or below `root` (not following symbolic links): type, permission bits,
// size, inode, modification time in nanoseconds, and the contents' hash (the target of a
// symbolic link).
std::map<std::string, std::string> strict_snapshot(const fs::path& root) {
  std::map<std::string, std::string> out;
  auto add = [&](const fs::path& p) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      out[p.string()] = "lstat failed";
      return;
    }
    std::string contents;
    if (S_ISREG(st.st_mode)) contents = read_file(p);
    if (S_ISLNK(st.st_mode)) contents = fs::read_symlink(p).string();
    out[p.string()] = fmt::format("mode {:o} size {} inode {} mtime {}.{:09} hash {}", st.st_mode, st.st_size,
                                  st.st_ino, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, std::hash<std::string>{}(contents));
  };
  add(root);
  for (const auto& e : fs::recursive_directory_iterator(root)) add(e.path());
  return out;
}

// Makes the tree at `root` read-only (files 0444, folders 0555) while alive; restores
// writable modes (files 0644, folders 0755) when it goes, so the tree can be removed.
class ReadOnlyTree {
 public:
  explicit ReadOnlyTree(fs::path root) : root_(std::move(root)) { set(0444, 0555); }
  ~ReadOnlyTree() { set(0644, 0755); }
  ReadOnlyTree(const ReadOnlyTree&) = delete;
  ReadOnlyTree& operator=(const ReadOnlyTree&) = delete;

 private:
  void set(mode_t file, mode_t folder) {
    std::vector<fs::path> entries = {root_};
    for (const auto& e : fs::recursive_directory_iterator(root_)) entries.push_back(e.path());
    // Folders last when locking (their entries are still reachable), first when unlocking.
    if (folder == 0555) std::reverse(entries.begin(), entries.end());
    for (const auto& p : entries) {
      struct stat st {};
      if (::lstat(p.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
      ::chmod(p.c_str(), S_ISDIR(st.st_mode) ? folder : file);
    }
  }
  fs::path root_;
};

// The prefixes to run each command with: as it is, and as nobody when running as root.
std::vector<std::string> users() {
  std::vector<std::string> out = {""};
  if (::geteuid() == 0 && run_command("command -v setpriv >/dev/null 2>&1").status == 0) {
    out.push_back("setpriv --reuid=65534 --regid=65534 --clear-groups ");
  }
  return out;
}


class NothingLost : public ::testing::Test {
 protected:
  void SetUp() override {
    // A round holding AMD's two example directories and a hostile copy of llama31_8b, and
    // the shipped data (configs/, data/rcps) as --data-dir: all of it is input.
    fs::create_directories(input_ / "share/data");
    fs::copy(source_dir() / "data/examples/training_results_v5.1", input_ / "training_results_v5.1",
             fs::copy_options::recursive);
    hostile_ = copy_example(input_);  // training_results_v5.1/AMD/results/SYS/llama31_8b
    edit(hostile_ / "result_0.txt", [](LogLines& log) { log.lines.back().resize(log.lines.back().size() / 2); });
    write_file(hostile_ / "result_1.txt", "\xEF\xBB\xBF" + read_file(hostile_ / "result_1.txt"));
    to_crlf(hostile_ / "result_2.txt", true);
    add_garbage(hostile_ / "result_3.txt");
    edit(hostile_ / "result_4.txt", [](LogLines& log) {
      std::size_t at = log.find("submission_org");
      log.lines[at] = with_value(log.lines[at], "value", "\"AMD Caf\xE9\"");
    });
    fs::create_symlink("result_5.txt", hostile_ / "link_to_result_5.txt");
    fs::copy(source_dir() / "configs", input_ / "share/configs", fs::copy_options::recursive);
    fs::copy(source_dir() / "data/rcps", input_ / "share/data/rcps", fs::copy_options::recursive);
    fs::copy(source_dir() / "tests/data/sysfs/mi355x", input_ / "sysfs", fs::copy_options::recursive);
    fs::create_directories(output_);
    ::chmod(output_.c_str(), 0777);  // nobody writes the JUnit file here
  }

  // Runs `mlperf-score ARGS` after `prefix`; stdout and stderr go to `output_`.
  int run(const std::string& prefix, const std::string& args) const {
    return run_command(prefix + binary() + " " + args + " >" + q(output_ / "stdout.txt") + " 2>" +
                       q(output_ / "stderr.txt"))
        .status;
  }
  std::string data_dir() const { return " --data-dir " + q(input_ / "share"); }
  // The copy of AMD's two example directories (no hostile input: no message on stderr).
  fs::path examples() const { return input_ / "training_results_v5.1/AMD/results/MI355X_EPYC_9575F_pytorch"; }

  TempDir tmp_;
  const fs::path input_ = tmp_.path() / "input";
  const fs::path output_ = tmp_.path() / "output";
  fs::path hostile_;
};

TEST_F(NothingLost, EveryCommandIsCovered) {
  // The subcommands the binary lists in --help: a new one must be added to this file.
  auto help = run_command(binary() + " --help");
  ASSERT_EQ(help.status, 0);
  std::set<std::string> listed;
  std::smatch m;
  std::string rest = help.out.substr(help.out.find("Subcommands:"));
  for (std::regex line(R"(\n  ([a-z][a-z-]*) )"); std::regex_search(rest, m, line); rest = m.suffix()) {
    listed.insert(m[1]);
  }
  EXPECT_EQ(listed, kCovered) << help.out;
}

TEST_F(NothingLost, TheSnapshotSeesATemporaryFileCreatedAndRemovedInAFolder) {
  // What the next test relies on: a write that leaves no file behind still shows.
  const fs::path folder = hostile_;
  const auto before = strict_snapshot(input_);
  const auto plain_before = testing::snapshot(input_);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the clock tick of the snapshot
  write_file(folder / ".result_0.txt.tmp-x", "partial");
  fs::remove(folder / ".result_0.txt.tmp-x");
  const auto after = strict_snapshot(input_);
  EXPECT_NE(after, before);
  EXPECT_NE(after.at(folder.string()), before.at(folder.string()));
  EXPECT_EQ(testing::snapshot(input_), plain_before);  // the contents alone look the same
}

TEST_F(NothingLost, NoCommandWritesIntoItsInputEvenWhenTheInputIsHostile) {
  const fs::path round = input_ / "training_results_v5.1";
  const fs::path lora = round / "AMD/results/MI355X_EPYC_9575F_pytorch/llama2_70b_lora";
  const std::string dd = data_dir();
  // Every command that reads an input folder or file, with each output format; the exit
  // status each must give (the hostile copy still scores: one bad run per directory; check
  // fails it, as the package checker does: the seed checker cannot read a cut log).
  std::vector<std::pair<std::string, int>> commands;
  for (const char* format : {"table", "json", "csv", "markdown"}) {
    commands.push_back({std::string("score --format ") + format + dd + " " + q(round), 0});
    commands.push_back({std::string("compare --format ") + format + dd + " --baseline " + q(lora) + " " + q(round), 0});
    commands.push_back({std::string("summarize --format ") + format + dd + " " + q(round), 0});
  }
  for (const char* format : {"table", "json", "github"}) {
    commands.push_back(
        {std::string("check --format ") + format + dd + " --junit " + q(output_ / "check.xml") + " " + q(round), 1});
  }
  commands.push_back({"score --probe --sysfs-root " + q(input_ / "sysfs") + dd + " " + q(hostile_), 0});
  commands.push_back({"probe --sysfs-root " + q(input_ / "sysfs") + dd, 0});
  std::string files;
  for (const auto& e : fs::directory_iterator(hostile_)) files += " " + q(e.path());
  commands.push_back({"parse" + files, 1});  // result_0 ends in a cut line
  commands.push_back({"parse - <" + q(hostile_ / "result_3.txt"), 0});
  commands.push_back({"follow --format jsonl --interval 0.05 --timeout 60" + dd + " " + q(lora / "result_0.txt"), 0});

  const auto before = strict_snapshot(input_);
  const auto plain_before = testing::snapshot(input_);
  {
    ReadOnlyTree read_only(input_);
    const auto locked = strict_snapshot(input_);
    for (const std::string& user : users()) {
      for (const auto& [args, status] : commands) {
        EXPECT_EQ(run(user, args), status) << user << args << "\n" << read_file(output_ / "stderr.txt");
        EXPECT_EQ(strict_snapshot(input_), locked) << user << args;
      }
    }
  }
  EXPECT_EQ(strict_snapshot(input_).size(), before.size());
  EXPECT_EQ(testing::snapshot(input_), plain_before);
  // The JUnit file went where it was asked, and nothing else was left next to it.
  EXPECT_EQ(names_in(output_), (std::set<std::string>{"check.xml", "stderr.txt", "stdout.txt"}));
}

TEST_F(NothingLost, ScalingJsonIsReadNeverRewritten) {
  // scaling.json disagrees with the computed factor: reported, never corrected on disk.
  const fs::path dir = input_ / "training_results_v5.1/AMD/results/MI355X_EPYC_9575F_pytorch/llama31_8b";
  write_file(dir / "scaling.json", "{\"scaling_factor\": 1.5}\n");
  const auto before = strict_snapshot(input_);
  EXPECT_EQ(run("", "score --format json" + data_dir() + " " + q(dir)), 0);
  EXPECT_NE(read_file(output_ / "stdout.txt").find("scaling.json says 1.5 but the RCP rules give 1.004011735824202"),
            std::string::npos);
  EXPECT_EQ(read_file(dir / "scaling.json"), "{\"scaling_factor\": 1.5}\n");
  EXPECT_EQ(strict_snapshot(input_), before);
}

TEST_F(NothingLost, JunitReplacesTheOldFileByRenameNotByRewritingIt) {
  // A hard link to the old file keeps the old bytes only if the new file was written
  // elsewhere and renamed over the name; a rewrite in place would change both.
  const fs::path junit = output_ / "check.xml";
  write_file(junit, "old\n");
  ::chmod(junit.c_str(), 0640);
  fs::create_hard_link(junit, output_ / "twin.xml");
  struct stat old_file {
  }, new_file{};
  ASSERT_EQ(::stat(junit.c_str(), &old_file), 0);
  EXPECT_EQ(run("", "check" + data_dir() + " --junit " + q(junit) + " " + q(examples())), 0)
      << read_file(output_ / "stderr.txt");
  EXPECT_EQ(read_file(junit).rfind("<?xml", 0), 0u);
  EXPECT_EQ(read_file(output_ / "twin.xml"), "old\n");
  ASSERT_EQ(::stat(junit.c_str(), &new_file), 0);
  EXPECT_NE(new_file.st_ino, old_file.st_ino);  // a new file under the old name
  EXPECT_EQ(new_file.st_nlink, 1u);
  EXPECT_EQ(new_file.st_mode & 07777, 0640u);  // it keeps the replaced file's mode
  EXPECT_EQ(names_in(output_), (std::set<std::string>{"check.xml", "stderr.txt", "stdout.txt", "twin.xml"}));
}

TEST_F(NothingLost, AFailedJunitWriteLeavesNoPartialFileAndTheOldOneIntact) {
  // A file size limit of one block (RLIMIT_FSIZE; SIGXFSZ ignored, so write() fails with
  // EFBIG) makes the JUnit write fail part-way, like a full disk, for root too. The limit
  // holds for regular files only: the report still goes to standard output (a pipe).
  const fs::path junit = output_ / "check.xml";
  const std::string command = "sh -c \"trap '' XFSZ; ulimit -f 1; exec " + binary() + " check" + data_dir() +
                              " --junit " + q(junit) + " " + q(examples()) + "\" 2>" + q(tmp_.path() / "stderr.txt");
  for (bool old_file : {false, true}) {
    SCOPED_TRACE(old_file ? "over an old file" : "a new file");
    if (old_file) write_file(junit, "old\n");
    auto r = run_command(command);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.out.find("check: 2 directories, 2 passed, 0 failed; 0 errors, 0 warnings\n"), std::string::npos)
        << r.out;  // the report itself is complete
    EXPECT_EQ(read_file(tmp_.path() / "stderr.txt"),
              "mlperf-score: " + junit.string() + ": cannot write: write failed: File too large\n");
    EXPECT_EQ(names_in(output_), old_file ? std::set<std::string>{"check.xml"} : std::set<std::string>{});
    if (old_file) EXPECT_EQ(read_file(junit), "old\n");
  }
}

TEST_F(NothingLost, AJunitPathThatIsAFolderOrInAMissingFolderIsAnErrorAndLeavesNothing) {
  fs::create_directory(output_ / "check.xml");
  EXPECT_EQ(run("", "check" + data_dir() + " --junit " + q(output_ / "check.xml") + " " + q(examples())), 2);
  EXPECT_EQ(read_file(output_ / "stderr.txt"),
            "mlperf-score: " + (output_ / "check.xml").string() +
                ": cannot write: is a directory\n");
  EXPECT_TRUE(fs::is_empty(output_ / "check.xml"));
  EXPECT_EQ(names_in(output_), (std::set<std::string>{"check.xml", "stderr.txt", "stdout.txt"}));

  EXPECT_EQ(run("", "check" + data_dir() + " --junit " + q(output_ / "missing/check.xml") + " " + q(examples())), 2);
  EXPECT_EQ(read_file(output_ / "stderr.txt"),
            "mlperf-score: " + (output_ / "missing/check.xml").string() +
                ": cannot write: cannot create a temporary file in its folder: No such file or directory\n");
  EXPECT_FALSE(fs::exists(output_ / "missing"));
}

}  // namespace
}  // namespace mlperf
