// Never a wrong answer with exit 0 (issue #24), through the binary: names that would forge
// output lines, logs with NaN, impossible figures, logs that are no regular files, the last
// screen of a report of several directories, and links in HTML reports.

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../test_support.h"

extern "C" char** environ;

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::AffinityGuard;
using testing::binary;
using testing::built_with_address_sanitizer;
using testing::names_in;
using testing::q;
using testing::read_file;
using testing::replace_first;
using testing::run_command;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;

const fs::path kLlama = "data/examples/training_results_v5.1/AMD/results/MI355X_EPYC_9575F_pytorch/llama31_8b";

// AMD's llama31_8b folder copied to `dest` (its system description beside, as in the round).
fs::path llama_copy(const fs::path& root, const std::string& system = "MI355X_EPYC_9575F_pytorch") {
  const fs::path dest = root / "AMD/results" / system / "llama31_8b";
  fs::create_directories(dest.parent_path());
  fs::copy(source_dir() / kLlama, dest, fs::copy_options::recursive);
  fs::create_directories(root / "AMD/systems");
  fs::copy_file(source_dir() / "data/examples/training_results_v5.1/AMD/systems/MI355X_EPYC_9575F_pytorch.json",
                root / "AMD/systems" / (system + ".json"));
  return dest;
}

TEST(CliRobustness, ANewlineOrEscapeInAFolderNameCannotForgeALineOrDriveTheTerminal) {
  TempDir tmp;
  const std::string system = "evil\n  score          999.00 minutes   PASSED\x1b[2J";
  const fs::path dir = llama_copy(tmp.path() / "training_results_v5.1", system);
  write_file(dir / "result_3.txt", read_file(dir / "result_3.txt") + ":::MLLOG {broken\n");
  auto r = run_command(binary() + " score " + q(tmp.path()) + " 2>" + q(tmp.path() / "err.txt"));
  EXPECT_EQ(r.out.find("\n  score          999.00"), std::string::npos) << r.out;  // no forged line
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_NE(r.out.find("evil\\n  score          999.00 minutes   PASSED\\033[2J"), std::string::npos) << r.out;
  const std::string err = read_file(tmp.path() / "err.txt");
  EXPECT_EQ(err.find('\x1b'), std::string::npos) << err;
  // The parse error's FILE:LINE: line is one line, its name escaped.
  EXPECT_NE(err.find("evil\\n  score"), std::string::npos) << err;
  for (std::size_t start = 0, nl; (nl = err.find('\n', start)) != std::string::npos; start = nl + 1) {
    const std::string line = err.substr(start, nl - start);
    EXPECT_TRUE(line.starts_with("mlperf-score: ") || line.starts_with(tmp.path().string())) << line;
  }
}

// Splits one CSV record of the tool's output (RFC 4180 quoting) into its fields.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::string from_hex(const std::string& hex) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

TEST(CliRobustness, ANameThatIsNotUtf8IsRecoverableFromJsonAndCsvAgrees) {
  TempDir tmp;
  const std::string system = "sys\xff\xfe";
  const fs::path dir = llama_copy(tmp.path() / "training_results_v5.1", system);
  auto r = run_command(binary() + " score --format json " + q(tmp.path()));
  ASSERT_EQ(r.status, 0) << r.out;
  const auto result = nlohmann::json::parse(r.out).at("results").at(0);
  // The display string has U+FFFD for each bad byte; the sibling holds the exact bytes.
  EXPECT_EQ(result.at("system"), "sys\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(result.at("system_bytes"), "737973fffe");
  EXPECT_EQ(from_hex(result.at("directory_bytes")), dir.string());
  EXPECT_TRUE(fs::is_directory(from_hex(result.at("directory_bytes"))));  // a script can open it
  const auto& run = result.at("runs").at(0);
  EXPECT_TRUE(fs::is_regular_file(from_hex(run.at("file_bytes")))) << run.dump();
  EXPECT_FALSE(result.contains("benchmark_bytes"));  // UTF-8 strings get none
  // CSV writes the exact bytes: its directory and system fields equal JSON's decoded siblings.
  auto csv = run_command(binary() + " score --format csv " + q(tmp.path()));
  ASSERT_EQ(csv.status, 0) << csv.out;
  const auto header = csv_fields(csv.out.substr(0, csv.out.find('\n')));
  const std::string second = csv.out.substr(csv.out.find('\n') + 1);
  const auto row = csv_fields(second.substr(0, second.find('\n')));
  ASSERT_EQ(header.size(), row.size()) << csv.out;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "directory") EXPECT_EQ(row[i], from_hex(result.at("directory_bytes")));
    if (header[i] == "system") EXPECT_EQ(row[i], from_hex(result.at("system_bytes")));
  }
  // check's JSON carries the same sibling.
  auto check = run_command(binary() + " check --format json " + q(dir));
  const auto checked = nlohmann::json::parse(check.out).at("results").at(0);
  EXPECT_EQ(from_hex(checked.at("directory_bytes")), dir.string()) << check.out;
}

TEST(CliRobustness, MarkdownEscapesHtmlFromNames) {
  TempDir tmp;
  llama_copy(tmp.path() / "training_results_v5.1", "x<img src=x onerror=alert(1)>");
  auto r = run_command(binary() + " score --format markdown " + q(tmp.path()));
  EXPECT_EQ(r.out.find("<img"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x&lt;img src=x onerror=alert(1)&gt;"), std::string::npos) << r.out;
}

// Python's json.dumps writes NaN for a diverged metric; the official checker reads it as a
// number and passes the log, so the run counts and the score stays AMD's 99.71.
TEST(CliRobustness, ANanEvalAccuracyIsANumberAsTheOfficialCheckerReadsIt) {
  TempDir tmp;
  const fs::path dir = llama_copy(tmp.path() / "training_results_v5.1");
  replace_first(dir / "result_0.txt", "\"value\": 5.595030307769775", "\"value\": NaN");
  auto r = run_command(binary() + " score --format json " + q(tmp.path()) + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& d = doc["results"][0];
  EXPECT_NEAR(d["score_minutes"].get<double>(), 99.71, 0.005);
  EXPECT_EQ(d["runs"][0]["counted"], true) << d["runs"][0].dump();
}

TEST(CliRobustness, ImpossibleFiguresKeepTheVerdictButCarryAWarningNamingFileAndLine) {
  TempDir tmp;
  const fs::path dir = llama_copy(tmp.path() / "training_results_v5.1");
  // run_stop before run_start in two runs: negative times to train.
  for (const char* f : {"result_0.txt", "result_1.txt"}) {
    std::string text = read_file(dir / f);
    const auto stop = text.find("\"key\": \"run_stop\"");
    ASSERT_NE(stop, std::string::npos);
    const auto time = text.rfind("\"time_ms\": ", stop) + 11;
    text.replace(time, text.find(',', time) - time, "1");
    write_file(dir / f, text);
  }
  auto r = run_command(binary() + " score --format json " + q(tmp.path()) + " 2>&1");
  const auto doc = nlohmann::json::parse(r.out);
  std::size_t impossible = 0;
  for (const auto& w : doc["results"][0]["warnings"]) {
    const std::string text = w;
    if (text.find("impossible time to train") == std::string::npos) continue;
    ++impossible;
    EXPECT_TRUE(text.find("result_0.txt:") != std::string::npos || text.find("result_1.txt:") != std::string::npos)
        << text;
  }
  EXPECT_EQ(impossible, 2u) << doc["results"][0]["warnings"].dump();
  auto table = run_command(binary() + " score " + q(tmp.path()) + " 2>&1");
  EXPECT_NE(table.out.find("warning: " + (dir / "result_0.txt").string() + ":"), std::string::npos) << table.out;
}

// A NUL-filled tail after a crash is no MLLOG line: the run still counts (AMD's 99.71). Where
// the log's last line lacks its newline the tail joins that MLLOG line, and the official parser
// rejects it ("Extra data"), as the tool does; here the tail follows a newline.
// A global_batch_size of 2^64: Python's int reads it, and the official RCP checker finds no RCP
// that large (scripts/official-training-oracle on this tree: case "missing", factor 1.0, not
// passed, olympic mean 99.3101375 minutes). The same here, with a warning naming each line.
TEST(CliRobustness, AGlobalBatchSizeOf2To64IsAboveEveryRcpAsTheOfficialCheckerFindsAndNamesItsLine) {
  TempDir tmp;
  const fs::path dir = llama_copy(tmp.path() / "training_results_v5.1");
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("result_", 0) != 0) continue;
    replace_first(e.path(), "\"key\": \"global_batch_size\", \"value\": 32", "\"key\": \"global_batch_size\", \"value\": 18446744073709551616");
  }
  auto r = run_command(binary() + " score --format json " + q(tmp.path()) + " 2>/dev/null");
  EXPECT_EQ(r.status, 1);  // the RCP check fails
  const auto result = nlohmann::json::parse(r.out).at("results").at(0);
  EXPECT_EQ(result.at("rcp").at("case"), "missing");
  EXPECT_EQ(result.at("rcp").at("passed"), false);
  EXPECT_EQ(result.at("rcp").at("normalization_factor"), 1.0);
  EXPECT_NEAR(result.at("score_minutes").get<double>(), 99.3101375, 1e-9);
  std::size_t named = 0;
  for (const auto& w : result.at("warnings")) {
    const std::string text = w;
    if (text.find("impossible global_batch_size") != std::string::npos && text.find("result_0.txt:17:") != std::string::npos) ++named;
  }
  EXPECT_EQ(named, 1u) << result.at("warnings").dump(1);
}

TEST(CliRobustness, ALongLineWithoutTheMllogTokenAtTheEndIsIgnored) {
  TempDir tmp;
  const fs::path dir = llama_copy(tmp.path() / "training_results_v5.1");
  std::string text = read_file(dir / "result_0.txt");
  if (!text.ends_with("\n")) text += "\n";
  text += std::string(17u << 20, '\0');
  write_file(dir / "result_0.txt", text);
  auto r = run_command(binary() + " score --format json " + q(dir) + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out.substr(0, 2000);
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_NEAR(doc["results"][0]["score_minutes"].get<double>(), 99.71, 0.005);
  EXPECT_EQ(doc["results"][0]["runs"][0]["counted"], true);
}

// A symbolic link to a benchmark folder inside a scored tree is not walked (a loop would never
// end) but said, without changing the exit status; given as PATH it is scored.
TEST(CliRobustness, ASymlinkedBenchmarkFolderInsideATreeIsReportedNotSkippedSilently) {
  TempDir tmp;
  const fs::path dir = llama_copy(tmp.path() / "real/training_results_v5.1");
  const fs::path tree = tmp.path() / "tree";
  fs::create_directories(tree);
  fs::create_directory_symlink(dir, tree / "llama31_8b");
  fs::create_directory_symlink(tree, tree / "loop");
  auto r = run_command(binary() + " score " + q(tree) + " 2>&1");
  EXPECT_EQ(r.status, 2) << r.out;  // nothing else to score: "no result files found"
  EXPECT_NE(r.out.find("mlperf-score: warning: " + (tree / "llama31_8b").string() +
                       ": a symbolic link to a folder; not followed inside a tree"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find((tree / "loop").string() + ": a symbolic link to a folder"), std::string::npos) << r.out;
  auto direct = run_command(binary() + " score " + q(tree / "llama31_8b") + " 2>&1");
  EXPECT_EQ(direct.status, 0) << direct.out;
  EXPECT_NE(direct.out.find("99.71 minutes"), std::string::npos) << direct.out;
}

// A file size limit makes the write fail (EFBIG) instead of killing the process with SIGXFSZ:
// exit 2 with a message, no temporary file left, no partial report.
TEST(CliRobustness, AFileSizeLimitIsAWriteErrorWithNothingLeftBehind) {
  TempDir tmp;
  const fs::path out = tmp.path() / "out" / "report.json";
  fs::create_directories(out.parent_path());
  auto r = run_command("ulimit -f 8 && " + binary() + " score --format json --output " + q(out) + " " +
                       q(source_dir() / "data/examples") + " 2>&1");
  EXPECT_EQ(r.status, 2) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("mlperf-score: "), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_TRUE(fs::is_empty(out.parent_path())) << "left: " << fs::directory_iterator(out.parent_path())->path();
}

TEST(CliRobustness, ParseAndFollowRefuseAFifoAsScoreDoes) {
  TempDir tmp;
  const fs::path fifo = tmp.path() / "result_0.txt";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto parse = run_command(binary() + " parse " + q(fifo) + " 2>&1");
  EXPECT_EQ(parse.status, 2);
  EXPECT_NE(parse.out.find(fifo.string() + ": cannot open: not a regular file"), std::string::npos) << parse.out;
  auto follow = run_command("timeout 20 " + binary() + " follow --timeout 10 --interval 0.05 " + q(fifo) + " 2>&1");
  EXPECT_EQ(follow.status, 2) << follow.out;
  EXPECT_NE(follow.out.find("not a regular file"), std::string::npos) << follow.out;
}

TEST(CliRobustness, AReportOfSeveralDirectoriesEndsWithTheirSummary) {
  auto r = run_command(binary() + " score " + q(source_dir() / "data/examples") + " 2>/dev/null");
  ASSERT_EQ(r.status, 0);
  const auto at = r.out.rfind("\nsummary\n");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string tail = r.out.substr(at);
  EXPECT_NE(tail.find("llama31_8b"), std::string::npos) << tail;
  EXPECT_NE(tail.find("99.71 minutes"), std::string::npos) << tail;
  EXPECT_NE(tail.find("10.18 minutes"), std::string::npos) << tail;
  EXPECT_NE(tail.find("23514.8 Tokens/s"), std::string::npos) << tail;
  EXPECT_NE(tail.find("llama2-70b-99.9/Server"), std::string::npos) << tail;
  EXPECT_NE(tail.find("86.84 minutes"), std::string::npos) << tail;  // v6.0 llama31_8b
  EXPECT_TRUE(tail.ends_with("16 directories: 16 passed, 0 failed\n")) << tail;
}

TEST(CliRobustness, HtmlLinksArePercentEncodedFileUrls) {
  TempDir tmp;
  const fs::path root = tmp.path() / "a#b?c d";
  const fs::path dir = llama_copy(root / "training_results_v5.1");
  write_file(dir / "result_3.txt", read_file(dir / "result_3.txt") + ":::MLLOG {broken\n");
  auto r = run_command(binary() + " check --format html --output " + q(tmp.path() / "report.html") + " " + q(root) +
                       " 2>&1");
  const std::string html = read_file(tmp.path() / "report.html");
  EXPECT_NE(html.find("file://" + tmp.path().string() + "/a%23b%3Fc%20d/"), std::string::npos)
      << html.substr(0, 2000);
  EXPECT_EQ(html.find("href=\"file://" + root.string()), std::string::npos);
}

}  // namespace
}  // namespace mlperf

namespace mlperf {
namespace {

// ---------------------------------------------------------------------------------------------
// Red-team cases with a real child process: a log rewritten while the child is stopped in the
// middle of reading it, and address-space limits (setrlimit RLIMIT_AS through `ulimit -v`).

// Starts `sh -c "exec COMMAND"`; the pid is the tool's once sh has exec'd.
pid_t spawn_shell(const std::string& command) {
  const std::string line = "exec " + command;
  const char* argv[] = {"/bin/sh", "-c", line.c_str(), nullptr};
  pid_t pid = -1;
  if (::posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) return -1;
  return pid;
}

// The read offset of `pid`'s open descriptor on `file`, when it has one open (from /proc).
std::optional<long long> read_offset(pid_t pid, const fs::path& file) {
  std::error_code ec;
  const fs::path fds = "/proc/" + std::to_string(pid) + "/fd";
  for (const auto& e : fs::directory_iterator(fds, ec)) {
    std::error_code link_ec;
    if (fs::read_symlink(e.path(), link_ec) != file) continue;
    std::ifstream info("/proc/" + std::to_string(pid) + "/fdinfo/" + e.path().filename().string());
    std::string key;
    long long pos = -1;
    while (info >> key) {
      if (key == "pos:" && info >> pos) return pos;
    }
  }
  return std::nullopt;
}

// True when process `pid` is stopped (state T in /proc/<pid>/stat).
bool is_stopped(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');  // the command name may hold spaces
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'T';
}

TEST(CliRobustness, ALogRewrittenWhileTheToolIsStoppedMidReadIsAnErrorNotAMixedScore) {
  TempDir tmp;
  const fs::path dir = llama_copy(tmp.path() / "training_results_v5.1");
  const fs::path log = fs::canonical(dir / "result_0.txt");
  const std::string original = read_file(log);
  // The same run rewritten by a rerun: another run_stop time.
  std::string rerun = original;
  const auto stop = rerun.find("\"key\": \"run_stop\"");
  ASSERT_NE(stop, std::string::npos);
  const auto time = rerun.rfind("\"time_ms\": ", stop) + 11;
  rerun.replace(time, 4, "9999");
  bool caught = false;
  // Lines without :::MLLOG are noise to every reader; enough of them make the read last long
  // enough to stop the child in the middle of it. Doubled until the child is caught mid-read.
  for (std::size_t noise_mib = 16; noise_mib <= 256 && !caught; noise_mib *= 2) {
    std::string padded = original;
    const std::string noise_line(1023, 'x');
    const auto middle = padded.find('\n', padded.size() / 2) + 1;
    std::string noise;
    noise.reserve(noise_mib << 20);
    for (std::size_t i = 0; i < (noise_mib << 10); ++i) noise.append(noise_line).push_back('\n');
    padded.insert(middle, noise);
    write_file(log, padded);
    const pid_t pid = spawn_shell(binary() + " score --format json " + q(tmp.path()) + " > " + q(tmp.path() / "out.json") +
                                  " 2> " + q(tmp.path() / "err.txt"));
    ASSERT_GT(pid, 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      const auto pos = read_offset(pid, log);
      if (pos && *pos > 0 && *pos < static_cast<long long>(padded.size()) / 2) {
        ::kill(pid, SIGSTOP);
        // kill() returns before the child has stopped: wait until it has (state T), or it
        // could read on to its end-of-file check meanwhile and pass it before the rewrite.
        for (int i = 0; i < 1000 && !is_stopped(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        // Still short of the end once stopped: its end-of-file check is still to come.
        const auto stopped_at = read_offset(pid, log);
        if (stopped_at && *stopped_at < static_cast<long long>(padded.size())) {
          std::string rewritten = rerun;
          rewritten.insert(rerun.find('\n', rerun.size() / 2) + 1, noise);
          write_file(log, rewritten);  // truncated and written again, in place
          caught = true;
        }
        ::kill(pid, SIGCONT);
        break;
      }
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) break;  // finished before it was caught
    }
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) continue;  // reaped above
    if (!caught) continue;
    ASSERT_TRUE(WIFEXITED(status)) << "signalled: " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 2);
    const std::string err = read_file(tmp.path() / "err.txt");
    EXPECT_NE(err.find("result_0.txt: changed while it was read"), std::string::npos) << err;
  }
  if (!caught) GTEST_SKIP() << "the tool read a 256 MiB log before it could be stopped: nothing to judge";
}

// Ended by a signal while it writes a report (Ctrl-C, kill): the signal ends the tool as it
// would have without its handler (killed by that signal, for the shell to see), and no
// temporary file is left beside --output. The run is made long by noise lines in one log, and
// the signal sent once the tool is in the middle of reading it (the temporary exists from the
// start). Spawned with SIGINT and SIGTERM at their default actions, whatever this process has.
TEST(CliRobustness, ASignalWhileAReportIsWrittenEndsTheToolAndLeavesNoTemporary) {
  TempDir tmp;
  const fs::path dir = llama_copy(tmp.path() / "training_results_v5.1");
  const fs::path log = fs::canonical(dir / "result_0.txt");
  const std::string original = read_file(log);
  for (const int signal_number : {SIGTERM, SIGINT}) {
    bool caught = false;
    for (std::size_t noise_mib = 16; noise_mib <= 256 && !caught; noise_mib *= 2) {
      std::string padded = original;
      const std::string noise_line(1023, 'x');
      std::string noise;
      noise.reserve(noise_mib << 20);
      for (std::size_t i = 0; i < (noise_mib << 10); ++i) noise.append(noise_line).push_back('\n');
      padded.insert(padded.find('\n', padded.size() / 2) + 1, noise);
      write_file(log, padded);
      const fs::path out_dir = tmp.path() / ("out" + std::to_string(signal_number) + "_" + std::to_string(noise_mib));
      fs::create_directories(out_dir);
      const std::string line = "exec " + binary() + " score --format json --output " + q(out_dir / "report.json") + " " +
                               q(tmp.path()) + " 2>/dev/null";
      const char* argv[] = {"/bin/sh", "-c", line.c_str(), nullptr};
      posix_spawnattr_t attributes;
      ASSERT_EQ(::posix_spawnattr_init(&attributes), 0);
      sigset_t defaults;
      sigemptyset(&defaults);
      sigaddset(&defaults, SIGINT);
      sigaddset(&defaults, SIGTERM);
      ::posix_spawnattr_setsigdefault(&attributes, &defaults);
      ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
      pid_t pid = -1;
      ASSERT_EQ(::posix_spawn(&pid, "/bin/sh", nullptr, &attributes, const_cast<char**>(argv), environ), 0);
      ::posix_spawnattr_destroy(&attributes);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      int status = 0;
      bool reaped = false;
      while (std::chrono::steady_clock::now() < deadline) {
        const auto pos = read_offset(pid, log);
        if (pos && *pos > 0 && *pos < static_cast<long long>(padded.size()) / 2) {
          ASSERT_EQ(names_in(out_dir).size(), 1u) << "the temporary, while the report is written";
          ::kill(pid, signal_number);
          caught = true;
          break;
        }
        if (::waitpid(pid, &status, WNOHANG) == pid) {  // finished before it was caught
          reaped = true;
          break;
        }
      }
      if (!reaped) ASSERT_EQ(::waitpid(pid, &status, 0), pid);
      if (!caught) continue;
      ASSERT_TRUE(WIFSIGNALED(status)) << "signal " << signal_number << ": exited with " << WEXITSTATUS(status);
      EXPECT_EQ(WTERMSIG(status), signal_number);
      EXPECT_EQ(names_in(out_dir), std::set<std::string>{}) << "signal " << signal_number << ": a temporary left behind";
    }
    if (!caught) GTEST_SKIP() << "the tool read a 256 MiB log before it could be signalled: nothing to judge";
  }
}

// Out of memory: with the address space limited anywhere from too little to start to plenty,
// the tool either gives exactly the answer it gives without a limit, or says it ran out of
// memory and exits 2 with no --output file and no temporary left. Never a crash (abort,
// segfault), never another answer.
TEST(CliRobustness, UnderAnyAddressSpaceLimitTheAnswerIsExactOrOutOfMemoryWithExit2) {
  if (built_with_address_sanitizer()) GTEST_SKIP() << "AddressSanitizer needs terabytes of address space";
  TempDir tmp;
  const fs::path examples = source_dir() / "data/examples";
  const auto full = run_command(binary() + " score --format json " + q(examples) + " 2>/dev/null");
  ASSERT_EQ(full.status, 0);
  int exact = 0, out_of_memory = 0;
  for (int mib = 8; mib <= 200; mib += 6) {
    const fs::path out_dir = tmp.path() / ("limit" + std::to_string(mib));
    fs::create_directories(out_dir);
    const fs::path out = out_dir / "report.json";
    auto r = run_command("ulimit -v " + std::to_string(mib * 1024) + " && " + binary() + " score --format json --output " +
                         q(out) + " " + q(examples) + " 2>" + q(out_dir / "err.txt") + "; echo \"status $?\"");
    const std::string err = read_file(out_dir / "err.txt");
    if (r.out == "status 0\n") {
      ++exact;
      EXPECT_EQ(read_file(out), full.out) << mib << " MiB";
    } else {
      // Under the smallest limits the shell cannot start the tool (exec or the dynamic loader
      // fails: 126, 127): then nothing of the tool ran to be judged.
      if (r.out.empty() || r.out == "status 126\n" || r.out == "status 127\n") continue;
      ++out_of_memory;
      EXPECT_EQ(r.out, "status 2\n") << mib << " MiB: " << err;
      // "mlperf-score: out of memory ...", or, where the report was being built,
      // "mlperf-score: FILE: out of memory while building the report; nothing was written".
      EXPECT_EQ(err.rfind("mlperf-score: ", 0), 0u) << mib << " MiB: " << err;
      EXPECT_NE(err.find("out of memory"), std::string::npos) << mib << " MiB: " << err;
      EXPECT_FALSE(fs::exists(out)) << mib << " MiB";
      EXPECT_EQ(names_in(out_dir), std::set<std::string>{"err.txt"}) << mib << " MiB: a temporary left behind";
    }
  }
  EXPECT_GT(exact, 0);          // the sweep reaches limits it runs under
  EXPECT_GT(out_of_memory, 0);  // and limits it runs out under
}

// Runs `command` (the tool's arguments, with {out} where the output folder goes) with its Nth
// allocation failing (the preload library tests/cli/fail_malloc), for about `runs` values of N
// spread over the whole run, and checks each answer: exactly the files `outputs` (names in the
// output folder) that the run gives without a failure, with status 0; or status 2, a message
// saying it ran out of memory, and no output file or temporary left. Never a crash, an abort,
// another answer, or a finding made of the failure (a file "cannot be read" because fopen's
// or opendir's malloc failed). Returns how many runs ran out of memory.
int sweep_failing_allocations(const fs::path& tmp, const std::string& command, const std::vector<std::string>& outputs,
                              long runs) {
  const std::string preload = std::string("LD_PRELOAD=") + q(MLPERF_SCORE_FAIL_MALLOC) + " ";
  auto with_out = [&](const fs::path& out_dir) {
    std::string line = command;
    for (auto at = line.find("{out}"); at != std::string::npos; at = line.find("{out}", at)) line.replace(at, 5, out_dir.string());
    return line;
  };
  const fs::path full_dir = tmp / "full";
  fs::create_directories(full_dir);
  const auto full = run_command("MLPERF_COUNT_ALLOCATIONS=" + q(tmp / "count") + " " + preload + binary() + " " +
                                with_out(full_dir) + " >/dev/null 2>&1");
  EXPECT_EQ(full.status, 0) << "the library alone changes nothing";
  std::map<std::string, std::string> expected;
  for (const auto& name : outputs) expected[name] = read_file(full_dir / name);
  const long calls = std::stol(read_file(tmp / "count"));
  EXPECT_GT(calls, 1000);
  // An odd stride, so that no phase of the run is stepped over in step with its allocations.
  const long stride = std::max(1L, calls / runs) | 1;
  int out_of_memory = 0;
  for (long n = 0; n < calls; n += stride) {
    const fs::path out_dir = tmp / ("fail" + std::to_string(n));
    fs::create_directories(out_dir);
    auto r = run_command("MLPERF_FAIL_ALLOCATION=" + std::to_string(n) + " " + preload + binary() + " " +
                         with_out(out_dir) + " >/dev/null 2>" + q(tmp / "err.txt") + "; echo \"status $?\"");
    const std::string err = read_file(tmp / "err.txt");
    if (r.out == "status 0\n") {
      for (const auto& name : outputs) EXPECT_EQ(read_file(out_dir / name), expected[name]) << "allocation " << n << ": " << name;
      continue;
    }
    ++out_of_memory;
    EXPECT_EQ(r.out, "status 2\n") << "allocation " << n << ": " << err;
    EXPECT_EQ(err.rfind("mlperf-score: ", 0), 0u) << "allocation " << n << ": " << err;
    EXPECT_NE(err.find("out of memory"), std::string::npos) << "allocation " << n << ": " << err;
    // The failure reached main as an exception: nothing caught it and went on (main's
    // fallback "out of memory while this ran ... may be incomplete").
    EXPECT_EQ(err.find("while this ran"), std::string::npos) << "allocation " << n << ": " << err;
    EXPECT_EQ(names_in(out_dir), std::set<std::string>{}) << "allocation " << n << ": an output or temporary left";
  }
  return out_of_memory;
}

// Whichever allocation fails, `score --output` gives its exact answer or exits 2 saying it ran
// out of memory, with no file left (sweep_failing_allocations). Where the failure meets a
// noexcept library call (std::filesystem's iterators) the process ends in std::terminate: its
// handler removes the temporary too.
TEST(CliRobustness, WhicheverAllocationFailsTheAnswerIsExactOrOutOfMemoryWithExit2) {
  if (built_with_address_sanitizer()) GTEST_SKIP() << "AddressSanitizer's malloc must be the first library loaded";
  TempDir tmp;
  const int out_of_memory = sweep_failing_allocations(
      tmp.path(), "score --format json --output {out}/report.json " + q(source_dir() / "data/examples"), {"report.json"}, 500);
  EXPECT_GT(out_of_memory, 400);  // nearly every allocation matters
}

// No C++ thread_local object with a destructor is made: glibc registers such a destructor with
// an allocation on the object's first use in each thread and aborts the process when that
// allocation fails ("failed to register TLS destructor: out of memory"), where the tool must
// exit 2 (a yaml_safe_load pattern cache did, met by the sweep below on an endpoints run's
// config.yaml). Counted by the preload library over score, check and the HTML report of every
// example, inference folders and endpoints runs included; per-thread objects are ThreadCaches.
TEST(CliRobustness, NoThreadLocalDestructorIsRegisteredSoNoAllocationAbortsTheProcess) {
  if (built_with_address_sanitizer()) GTEST_SKIP() << "AddressSanitizer's malloc must be the first library loaded";
  TempDir tmp;
  const std::string preload = std::string("LD_PRELOAD=") + q(MLPERF_SCORE_FAIL_MALLOC) + " ";
  const std::string examples = q(source_dir() / "data/examples");
  const std::vector<std::string> commands = {
      "score --format json " + examples,
      "check --format json --junit " + q(tmp.path() / "junit.xml") + " " + examples,
      "score --format html --output " + q(tmp.path() / "report.html") + " " + examples,
  };
  for (const auto& command : commands) {
    const fs::path count = tmp.path() / "tls_destructors";
    fs::remove(count);
    const auto r = run_command("MLPERF_COUNT_TLS_DESTRUCTORS=" + q(count) + " " + preload + binary() + " " + command +
                               " >/dev/null 2>&1");
    EXPECT_EQ(r.status, 0) << command;
    ASSERT_TRUE(fs::exists(count)) << command;
    EXPECT_EQ(read_file(count), "0") << command;
  }
}

// The same for `check` writing its report and a JUnit file: neither is put in place when an
// allocation failed anywhere, even one that something caught.
TEST(CliRobustness, WhicheverAllocationFailsCheckWritesBothFilesExactlyOrNeither) {
  if (built_with_address_sanitizer()) GTEST_SKIP() << "AddressSanitizer's malloc must be the first library loaded";
  TempDir tmp;
  const int out_of_memory = sweep_failing_allocations(
      tmp.path(), "check --format json --output {out}/report.json --junit {out}/junit.xml " + q(source_dir() / "data/examples"),
      {"report.json", "junit.xml"}, 250);
  EXPECT_GT(out_of_memory, 200);
}

// Whichever of the last allocations fails (the report being made and written: each
// directory's object, the blocks to standard output), standard output holds the start of
// the exact answer, and the failure reaches main as an exception: status 2 and "out of
// memory (std::bad_alloc); nothing more was written". Never an object cut short in the
// middle of the report (a std::ostringstream took the std::bad_alloc for a bad state and
// dropped the rest of the object; standard output's buffer grew and lost every later byte),
// nor a failure that something caught. On one CPU, every one of the last 300 allocations.
TEST(CliRobustness, WhicheverOfTheLastAllocationsFailsStandardOutputHoldsTheStartOfTheAnswer) {
  if (built_with_address_sanitizer()) GTEST_SKIP() << "AddressSanitizer's malloc must be the first library loaded";
  AffinityGuard guard;
  ASSERT_TRUE(guard.pin_to_first_cpu());
  TempDir tmp;
  const std::string preload = std::string("LD_PRELOAD=") + q(MLPERF_SCORE_FAIL_MALLOC) + " ";
  const std::string command = binary() + " score --format json " + q(source_dir() / "data/examples");
  const auto full = run_command("MLPERF_COUNT_ALLOCATIONS=" + q(tmp.path() / "count") + " " + preload + command + " 2>/dev/null");
  ASSERT_EQ(full.status, 0);
  const long calls = std::stol(read_file(tmp.path() / "count"));
  ASSERT_GT(calls, 1000);
  int out_of_memory = 0;
  for (long n = calls - 300; n < calls; ++n) {
    const auto r = run_command("MLPERF_FAIL_ALLOCATION=" + std::to_string(n) + " " + preload + command + " 2>" +
                               q(tmp.path() / "err.txt"));
    const std::string err = read_file(tmp.path() / "err.txt");
    const int status = r.status;
    if (status == 0) {
      EXPECT_EQ(r.out, full.out) << "allocation " << n;
      continue;
    }
    ++out_of_memory;
    EXPECT_EQ(status, 2) << "allocation " << n << ": " << err;
    EXPECT_EQ(err, "mlperf-score: out of memory (std::bad_alloc); nothing more was written\n") << "allocation " << n;
    EXPECT_LE(r.out.size(), full.out.size()) << "allocation " << n;
    EXPECT_EQ(r.out, full.out.substr(0, r.out.size())) << "allocation " << n << ": not the start of the answer";
  }
  EXPECT_GT(out_of_memory, 100);
}

// `score`'s table entries of inference scenario folders are made as texts on the scoring
// threads, through a stream (`check`'s are written as they are made): each allocation of
// 1 KiB or more (a text's growth among them) fails in turn, on one CPU. Each run gives the
// exact answer, or exit 2 with the out-of-memory message and the start of the answer; never
// a failure taken for the end of a text and the run going on ("while this ran").
TEST(CliRobustness, WhicheverLargerAllocationFailsATableReportHoldsTheStartOfTheAnswer) {
  if (built_with_address_sanitizer()) GTEST_SKIP() << "AddressSanitizer's malloc must be the first library loaded";
  AffinityGuard guard;
  ASSERT_TRUE(guard.pin_to_first_cpu());
  TempDir tmp;
  const std::string preload = std::string("MLPERF_FAIL_MIN_BYTES=1024 LD_PRELOAD=") + q(MLPERF_SCORE_FAIL_MALLOC) + " ";
  for (const char* report : {"check", "score"}) {
    const std::string command = binary() + " " + report + " " + q(source_dir() / "data/examples");
    const auto full =
        run_command("MLPERF_COUNT_ALLOCATIONS=" + q(tmp.path() / "count") + " " + preload + command + " 2>/dev/null");
    ASSERT_EQ(full.status, 0) << report;
    const long calls = std::stol(read_file(tmp.path() / "count"));
    ASSERT_GT(calls, 200) << report;
    int out_of_memory = 0;
    for (long n = 0; n < calls; ++n) {
      const auto r = run_command("MLPERF_FAIL_ALLOCATION=" + std::to_string(n) + " " + preload + command + " 2>" +
                                 q(tmp.path() / "err.txt"));
      const std::string err = read_file(tmp.path() / "err.txt");
      if (r.status == 0) {
        EXPECT_EQ(r.out, full.out) << report << ", allocation " << n;
        continue;
      }
      ++out_of_memory;
      EXPECT_EQ(r.status, 2) << report << ", allocation " << n << ": " << err;
      // "(std::bad_alloc)", or the kernel's ENOMEM a file system call met.
      EXPECT_TRUE(err.starts_with("mlperf-score: out of memory (") && err.ends_with("); nothing more was written\n"))
          << report << ", allocation " << n << ": " << err;
      EXPECT_EQ(r.out, full.out.substr(0, r.out.size())) << report << ", allocation " << n << ": not the start of the answer";
    }
    EXPECT_GT(out_of_memory, 200) << report;
  }
}

}  // namespace
}  // namespace mlperf
