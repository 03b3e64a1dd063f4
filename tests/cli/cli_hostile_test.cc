// Hostile and broken input through the command line (issue #6, part 1): the cases of
// hostile_test.cc, built the same way (tests/data/hostile/hostile_cases.h), run through the
// mlperf-score binary. Each asserts the exit status, the exact stderr ("FILE:LINE: message"
// for a bad MLLOG line, "mlperf-score: FILE: message" for a file or path that cannot be read),
// and what is still scored (the counted runs, the olympic mean by hand, the score).
//
// Exit statuses: a bad MLLOG line is reported but does not change the status of `score`
// (the run is dropped and the directory judged as usual: 0 or 1); `parse` exits 1 on it;
// an unreadable file or path exits 2 and the rest is still scored and printed.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../data/hostile/hostile_cases.h"
#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using namespace testing::hostile;
using testing::binary;
using testing::q;
using testing::example_system;
using testing::read_file;
using testing::run_command;
using testing::TempDir;
using testing::write_file;


// What one command did: exit status (-1 when killed by a signal), stdout, stderr.
struct Outcome {
  int status = -1;
  std::string out;
  std::string err;
};

// The number of lines of `text`.
std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The file names of the runs of a JSON result with "counted": true.
std::vector<std::string> counted_files(const nlohmann::json& result) {
  std::vector<std::string> out;
  for (const auto& run : result["runs"]) {
    if (run["counted"] == true) out.push_back(fs::path(run["file"].get<std::string>()).filename().string());
  }
  return out;
}

// result_<from>.txt … result_<to>.txt.
std::vector<std::string> result_names(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i <= to; ++i) out.push_back(fmt::format("result_{}.txt", i));
  return out;
}

// A JSON result scored from its counted runs with `dropped` runs dropped: the olympic mean
// by hand from the minutes it prints, the score as olympic mean × normalization factor.
void expect_scored(const nlohmann::json& result, int dropped) {
  std::vector<double> minutes;
  for (const auto& run : result["runs"]) {
    if (run["counted"] == true) minutes.push_back(run["minutes"].get<double>());
  }
  ASSERT_TRUE(result["olympic_minutes"].is_number()) << result.dump(1);
  EXPECT_DOUBLE_EQ(result["olympic_minutes"].get<double>(), olympic_by_hand(minutes, dropped));
  ASSERT_TRUE(result["score_minutes"].is_number()) << result.dump(1);
  EXPECT_DOUBLE_EQ(result["score_minutes"].get<double>(),
                   result["olympic_minutes"].get<double>() * result["rcp"]["normalization_factor"].get<double>());
  EXPECT_EQ(result["rcp"]["passed"], true) << result["rcp"].dump();
  EXPECT_EQ(result["passed"], true);
}

class CliHostile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The untouched example, scored by the same binary: the cases are compared with it.
    auto r = run_command(binary() + " score --format json " + q(example_system() / kBench) + " 2>/dev/null");
    ASSERT_EQ(r.status, 0);
    clean_ = nlohmann::json::parse(r.out)["results"][0];
  }

  // Runs `mlperf-score ARGS` (after `prefix`, e.g. a wrapper command), capturing stderr.
  Outcome run(const std::string& args, const std::string& prefix = "") const {
    const fs::path err = tmp_.path() / "stderr.txt";
    auto r = run_command(prefix + exe_ + " " + args + " 2>" + q(err));
    return {r.status, r.out, read_file(err)};
  }
  // `score --format json DIR`: the outcome and its one result.
  nlohmann::json score_json(const fs::path& dir, Outcome& outcome) const {
    outcome = run("score --format json " + q(dir));
    auto doc = nlohmann::json::parse(outcome.out);
    if (doc["results"].size() != 1) throw std::logic_error("expected one result: " + outcome.out);
    return doc["results"][0];
  }

  static nlohmann::json clean_;
  TempDir tmp_;
  const fs::path root_ = tmp_.path() / "in";
  std::string exe_ = q(binary());  ///< the binary run(): a copy when the checkout is out of reach
};

nlohmann::json CliHostile::clean_;

TEST_F(CliHostile, TruncatedLastLine) {
  fs::path dir = copy_example(root_);
  const fs::path file = dir / "result_0.txt";
  std::string cut;
  edit(file, [&](LogLines& log) {
    std::string& last = log.lines.back();  // train_samples, line 129, cut inside its key
    last = last.substr(0, last.find("train_samples") + 9);
    cut = last;
  });
  const std::string message = fmt::format(
      "{}:129: invalid MLLOG JSON at column {}: syntax error while parsing value - "
      "invalid string: missing closing quote; last read: '\"train_sam'",
      file.string(), cut.size() + 1);
  Outcome o;
  nlohmann::json r = score_json(dir, o);
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.err, message + "\n");
  EXPECT_EQ(r["runs"][0]["role"], "dropped: 1 MLLOG line(s) failed to parse (first at line 129)");
  EXPECT_EQ(r["runs"][0]["minutes"], clean_["runs"][0]["minutes"]);  // read up to the cut
  EXPECT_EQ(counted_files(r), result_names(1, 9));
  expect_scored(r, 1);

  Outcome parse = run("parse " + q(file));
  EXPECT_EQ(parse.status, 1);
  EXPECT_EQ(parse.err, message + "\n");
  EXPECT_EQ(line_count(parse.out), 128u);  // every event before the cut

  // One non-compliant run is what the olympic mean drops, but the package checker's seed
  // checker cannot read a log the MLLOG parser rejects: the directory fails.
  Outcome github = run("check --format github " + q(dir));
  EXPECT_EQ(github.status, 1);
  EXPECT_NE(github.out.find(fmt::format("::warning file={},line=129,title=compliance::MLLOG line does not parse: {}\n",
                                        file.string(),
                                        message.substr(file.string().size() + 6))),
            std::string::npos)
      << github.out;
  EXPECT_NE(github.out.find(fmt::format("::error file={},title=seeds::the seeds cannot be read: line 129 does not parse "
                                        "as MLLOG\n",
                                        file.string())),
            std::string::npos)
      << github.out;
}

TEST_F(CliHostile, LogCutInTheMiddleOfAJsonObject) {
  fs::path dir = copy_example(root_);
  const fs::path file = dir / "result_0.txt";
  std::string cut;
  edit(file, [&](LogLines& log) {
    std::string& line = log.lines[log.find("run_stop")];  // line 128; line 129 follows
    line = line.substr(0, line.find("\"samples_count\"") + 8);
    cut = line;
  });
  Outcome o;
  nlohmann::json r = score_json(dir, o);
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.err,
            fmt::format("{}:128: invalid MLLOG JSON at column {}: syntax error while parsing object key - "
                        "invalid string: missing closing quote; last read: '\"samples'; expected string literal\n",
                        file.string(), cut.size() + 1));
  EXPECT_TRUE(r["runs"][0]["minutes"].is_null());
  EXPECT_EQ(r["runs"][0]["role"], "dropped: 1 MLLOG line(s) failed to parse (first at line 128); run_stop not recorded");
  EXPECT_EQ(counted_files(r), result_names(1, 9));
  expect_scored(r, 1);
  Outcome parse = run("parse --keys train_samples " + q(file));  // the line after the cut
  EXPECT_EQ(parse.status, 1);
  EXPECT_NE(parse.out.find("\"line\":129,"), std::string::npos) << parse.out;
}

TEST_F(CliHostile, NulBytesAndBinaryGarbage) {
  fs::path dir = copy_example(root_);
  ASSERT_EQ(add_garbage(dir / "result_0.txt"), 13u);
  // And a NUL inside an MLLOG string of result_1 (line 37, submission_org).
  std::size_t column = 0;
  edit(dir / "result_1.txt", [&](LogLines& log) {
    std::string& line = log.lines[log.find("submission_org")];
    line = with_value(line, "value", std::string("\"AM\0D\"", 6));
    column = line.find('\0') + 1;
  });
  Outcome o;
  nlohmann::json r = score_json(dir, o);
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.err, fmt::format("{}:37: invalid MLLOG JSON at column {}: syntax error while parsing value - invalid "
                               "string: control character U+0000 (NUL) must be escaped to \\u0000; last read: "
                               "'\"AM<U+0000>'\n",
                               (dir / "result_1.txt").string(), column));
  EXPECT_EQ(r["runs"][0]["counted"], true);  // the garbage is not MLLOG: ignored
  EXPECT_EQ(r["runs"][0]["minutes"], clean_["runs"][0]["minutes"]);
  EXPECT_EQ(counted_files(r),
            (std::vector<std::string>{"result_0.txt", "result_2.txt", "result_3.txt", "result_4.txt", "result_5.txt",
                                      "result_6.txt", "result_7.txt", "result_8.txt", "result_9.txt"}));
  expect_scored(r, 1);
  Outcome parse = run("parse " + q(dir / "result_0.txt"));
  EXPECT_EQ(parse.status, 0);
  EXPECT_EQ(parse.err, "");
  EXPECT_EQ(line_count(parse.out), 129u);
}

TEST_F(CliHostile, Utf8ByteOrderMark) {
  fs::path dir = copy_example(root_);
  write_file(dir / "result_0.txt", "\xEF\xBB\xBF" + read_file(dir / "result_0.txt"));
  Outcome parse = run("parse " + q(dir / "result_0.txt"));
  EXPECT_EQ(parse.status, 0);
  EXPECT_EQ(parse.err, "");
  EXPECT_EQ(parse.out.rfind("{\"file\":\"" + (dir / "result_0.txt").string() +
                                "\",\"line\":1,\"time_ms\":1759966201037,\"event_type\":\"POINT_IN_TIME\",\"key\":"
                                "\"cache_clear\",\"value\":true,",
                            0),
            0u)
      << parse.out.substr(0, 300);
  EXPECT_EQ(line_count(parse.out), 129u);
  Outcome o;
  nlohmann::json r = score_json(dir, o);
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.err, "");
  EXPECT_EQ(r["score_minutes"], clean_["score_minutes"]);
}

TEST_F(CliHostile, Latin1AndInvalidUtf8InValues) {
  fs::path dir = copy_example(root_);
  edit(dir / "result_0.txt", [&](LogLines& log) {
    std::string& org = log.lines[log.find("submission_org")];
    org = with_value(org, "value", "\"AMD Caf\xE9\"");
    std::string& platform = log.lines[log.find("submission_platform")];
    platform = with_value(platform, "value", "\"MI355X \xC3(\"");
  });
  Outcome parse = run("parse --keys submission_org,submission_platform " + q(dir / "result_0.txt"));
  EXPECT_EQ(parse.status, 0);
  EXPECT_EQ(parse.err, "");
  EXPECT_NE(parse.out.find("\"key\":\"submission_org\",\"value\":\"AMD Caf\xC3\xA9\""), std::string::npos) << parse.out;
  EXPECT_NE(parse.out.find("\"key\":\"submission_platform\",\"value\":\"MI355X \xC3\x83(\""), std::string::npos);
  for (const char* command : {"score", "compare", "summarize"}) {
    Outcome o = run(std::string(command) + " --format json " + q(dir));
    EXPECT_EQ(o.status, 0) << command << o.err;
    EXPECT_EQ(o.err, "") << command;
    EXPECT_TRUE(nlohmann::json::accept(o.out)) << command;  // valid JSON (and UTF-8)
  }
  Outcome check = run("check --format json " + q(dir));
  EXPECT_EQ(check.status, 0);
  EXPECT_TRUE(nlohmann::json::accept(check.out));
}

TEST_F(CliHostile, CrlfLineEndings) {
  fs::path dir = copy_example(root_);
  to_crlf(dir / "result_0.txt", true);
  to_crlf(dir / "result_1.txt", false);
  Outcome o;
  nlohmann::json r = score_json(dir, o);
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.err, "");
  EXPECT_EQ(r["runs"], [&] {
    nlohmann::json runs = clean_["runs"];
    for (auto& run : runs) run["file"] = (dir / fs::path(run["file"].get<std::string>()).filename()).string();
    return runs;
  }());
  EXPECT_EQ(r["score_minutes"], clean_["score_minutes"]);
}

TEST_F(CliHostile, HundredMegabyteLineWithoutNewline) {
  fs::path dir = copy_example(root_);
  // result_0: a 100 MB MLLOG line at the end (line 130, no newline); result_1: 100 MB of
  // noise that is not MLLOG.
  append_fill(dir / "result_0.txt",
              "\n:::MLLOG {\"namespace\": \"\", \"time_ms\": 1759971964687, \"event_type\": \"POINT_IN_TIME\", "
              "\"key\": \"blob\", \"value\": \"",
              100u << 20, 'x', "\"}");
  append_fill(dir / "result_1.txt", "\n", 100u << 20, 'y', "");
  const std::string message = (dir / "result_0.txt").string() + ":130: MLLOG line longer than 16777216 bytes\n";
  Outcome o;
  nlohmann::json r = score_json(dir, o);
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.err, message);
  EXPECT_EQ(r["runs"][0]["role"], "dropped: 1 MLLOG line(s) failed to parse (first at line 130)");
  EXPECT_EQ(r["runs"][1]["role"], clean_["runs"][1]["role"]);
  expect_scored(r, 1);
  Outcome parse = run("parse " + q(dir / "result_0.txt") + " " + q(dir / "result_1.txt"));
  EXPECT_EQ(parse.status, 1);
  EXPECT_EQ(parse.err, message);
  EXPECT_EQ(line_count(parse.out), 129u + 135u);
}

TEST_F(CliHostile, JsonNested100000LevelsDoesNotCrashAnyCommand) {
  fs::path dir = copy_example(root_);
  const fs::path file = dir / "result_0.txt";
  const std::string line = nested_line("submission_org", 100000);
  write_file(file, line + "\n" + read_file(file));
  const std::string message = fmt::format("{}:1: {}\n", file.string(), too_deep_message(line));
  // A stack overflow kills the command (status -1), or ASan reports it and exits 1: the
  // exact stderr tells (its first 2000 bytes are shown when it differs).
  Outcome parse = run("parse " + q(file));
  EXPECT_EQ(parse.status, 1);
  EXPECT_TRUE(parse.err == message) << parse.err.substr(0, 2000);
  EXPECT_EQ(line_count(parse.out), 129u);
  Outcome o = run("score --format json " + q(dir));
  ASSERT_EQ(o.status, 0);
  ASSERT_TRUE(o.err == message) << o.err.substr(0, 2000);
  nlohmann::json r = nlohmann::json::parse(o.out)["results"][0];
  EXPECT_EQ(r["runs"][0]["role"], "dropped: 1 MLLOG line(s) failed to parse (first at line 1)");
  expect_scored(r, 1);
  for (const char* command : {"check", "compare", "summarize"}) {
    Outcome other = run(std::string(command) + " " + q(dir));
    // check: the seed checker cannot read the log the MLLOG parser rejects.
    EXPECT_EQ(other.status, std::string(command) == "check" ? 1 : 0) << command;
    EXPECT_TRUE(other.err == message) << command << "\n" << other.err.substr(0, 2000);
  }
}

TEST_F(CliHostile, TimeMsNegativeNanStringAnd1e300) {
  struct Case {
    std::string key, raw;
    int line;
    std::string message;  // on stderr after "FILE:LINE: ", or "" for none
    std::string role;
  };
  const std::vector<Case> cases = {
      // The official rules order events by line, not time, and the official summarizer counts
      // a compliant log whatever its times: a run of 29 million minutes, trimmed as the slowest.
      {"run_start", "-5", 41, "", "trimmed (slowest)"},
      // Python's json reads NaN and the official checker passes the log; the summarizer's sort
      // leaves the NaN run first, where the olympic mean trims it (official: 99.28205 minutes).
      {"run_start", "NaN", 41, "", "trimmed (fastest)"},
      {"run_start", "\"1759966206549\"", 41, "MLLOG time_ms is not a number (string)",
       "dropped: 1 MLLOG line(s) failed to parse (first at line 41); run_start not recorded"},
      {"run_stop", "1e300", 128, "", "trimmed (slowest)"},
      // Python's float() reads 1e400 as inf: an infinitely slow run, trimmed as the slowest
      // (official: olympic mean 100.994075, score 101.40).
      {"run_stop", "1e400", 128, "", "trimmed (slowest)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.key + " time_ms " + c.raw);
    fs::remove_all(root_);
    fs::path dir = copy_example(root_);
    const fs::path file = dir / "result_0.txt";
    ASSERT_EQ(set_time(file, c.key, c.raw), static_cast<std::uint64_t>(c.line));
    Outcome o;
    nlohmann::json r = score_json(dir, o);
    EXPECT_EQ(o.status, 0);
    EXPECT_EQ(o.err, c.message.empty() ? "" : fmt::format("{}:{}: {}\n", file.string(), c.line, c.message));
    EXPECT_EQ(r["runs"][0]["role"], c.role);
    if (c.raw == "NaN" || c.raw == "1e400") {
      // A non-finite time: JSON writes null (not a number to average by hand); the official
      // summarizer's olympic mean, and a warning naming the file and line.
      EXPECT_TRUE(r["runs"][0]["minutes"].is_null());
      EXPECT_NEAR(r["olympic_minutes"].get<double>(), c.raw == "NaN" ? 99.28205 : 100.994075, 1e-9);
      EXPECT_NE(r["warnings"].dump().find(fmt::format("result_0.txt:{}: impossible time to train", 128)),
                std::string::npos)
          << r["warnings"].dump();
      continue;
    }
    expect_scored(r, c.role.rfind("dropped", 0) == 0 ? 1 : 0);
  }
}

TEST_F(CliHostile, DuplicateRunStartAndRunStopBeforeRunStart) {
  fs::path dir = copy_example(root_);
  edit(dir / "result_0.txt", [](LogLines& log) {
    std::size_t start = log.find("run_start");
    log.lines.insert(log.lines.begin() + static_cast<long>(start), log.lines[start]);  // lines 41 and 42
  });
  edit(dir / "result_1.txt", [](LogLines& log) {
    std::size_t stop = log.find("run_stop"), start = log.find("run_start");
    std::string start_time = log.lines[start].substr(log.lines[start].find("\"time_ms\": ") + 11, 13);
    log.lines[stop] = with_value(log.lines[stop], "time_ms", std::to_string(std::stoll(start_time) - 60000));
  });
  // The official rules accept both logs (a repeated run_start with the same value only warns;
  // events are ordered by line) and the official summarizer counts both: the first with the
  // run_start it meets last before run_stop, the second with a time to train of -1 minute,
  // trimmed as the fastest.
  Outcome o;
  nlohmann::json r = score_json(dir, o);
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.err, "");
  EXPECT_EQ(r["runs"][0]["role"], "counted");
  EXPECT_EQ(r["runs"][0]["minutes"], clean_["runs"][0]["minutes"]);  // both run_start lines have one time
  EXPECT_EQ(r["runs"][1]["role"], "trimmed (fastest)");
  EXPECT_EQ(r["runs"][1]["minutes"], -1.0);
  expect_scored(r, 0);

  Outcome check = run("check --format github " + q(dir));
  EXPECT_EQ(check.status, 0);
  EXPECT_NE(
      check.out.find("::warning file=" + (dir / "result_0.txt").string() +
                     ",line=42,title=compliance::run_start must be logged exactly once (training_5.1.0/common.yaml); "
                     "found 2 times with the same value None (a warning)\n"),
      std::string::npos)
      << check.out;
}

TEST_F(CliHostile, ValueOfAnUnexpectedTypeForTheBatchSize) {
  for (const char* raw : {"\"32\"", "null", "[32]", "32.5", "1e300"}) {
    SCOPED_TRACE(raw);
    fs::remove_all(root_);
    fs::path dir = copy_example(root_);
    edit(dir / "result_0.txt", [&](LogLines& log) {
      std::size_t at = log.find("global_batch_size");
      log.lines[at] = with_value(log.lines[at], "value", raw);
    });
    Outcome o;
    nlohmann::json r = score_json(dir, o);
    EXPECT_EQ(o.status, 1);
    EXPECT_EQ(o.err, "");
    EXPECT_TRUE(r["runs"][0]["global_batch_size"].is_null()) << r["runs"][0]["global_batch_size"];
    EXPECT_EQ(r["rcp"]["case"], "no_batch_size");
    EXPECT_EQ(r["rcp"]["message"], "batch size could not be determined");
    EXPECT_EQ(r["olympic_minutes"], clean_["olympic_minutes"]);  // the times still count
    // The RCP check fails: the score is olympic mean x 1.0 and the directory fails (scoring.md 5).
    EXPECT_EQ(r["score_minutes"], r["olympic_minutes"]);
    EXPECT_EQ(o.out.find("-9223372036854775808"), std::string::npos);
  }
}

TEST_F(CliHostile, EmptyFile) {
  fs::path dir = copy_example(root_);
  write_file(dir / "result_0.txt", "");
  Outcome o;
  nlohmann::json r = score_json(dir, o);
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.err, "");
  EXPECT_EQ(r["runs"][0]["role"],
            "dropped: not compliant (official rules): no MLLOG lines that parse (the official checker rejects the "
            "log) (+15 more); run_start not recorded; run_stop not recorded");
  EXPECT_EQ(counted_files(r), result_names(1, 9));
  expect_scored(r, 1);
  Outcome parse = run("parse " + q(dir / "result_0.txt"));
  EXPECT_EQ(parse.status, 0);
  EXPECT_EQ(parse.out, "");
  EXPECT_EQ(parse.err, "mlperf-score: note: " + (dir / "result_0.txt").string() + " is empty\n");
}

TEST_F(CliHostile, DirectoryWithNoResultFiles) {
  fs::path dir = root_ / kBench;
  fs::create_directories(dir);
  write_file(dir / "result_0.log.gz", read_file(example_file(0)));  // neither *.log nor *.txt
  write_file(dir / "README.md", "");
  const std::string message = "mlperf-score: " + dir.string() +
                              ": no result files found (result_*.txt, <DATESTAMP>_<N>.log, *.log/*.txt holding "
                              "MLLOG lines, or loadgen logs (mlperf_log_detail.txt))\n";
  for (const char* command : {"score", "check", "compare", "summarize"}) {
    Outcome o = run(std::string(command) + " " + q(dir));
    EXPECT_EQ(o.status, 2) << command;
    EXPECT_EQ(o.err, message) << command;
  }
  Outcome json = run("score --format json " + q(dir));
  EXPECT_EQ(json.out, "{\n  \"results\": []\n}\n");
}

TEST_F(CliHostile, PathThatIsNeitherAFolderNorAFile) {
  fs::path dir = copy_example(root_);
  // A FIFO given as a path: neither a folder to walk nor a log (never opened: it would block).
  const fs::path fifo = root_ / "result_0.txt";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::string message =
      "mlperf-score: " + fifo.string() + ": not a directory (give a benchmark directory or a folder above one)\n";
  Outcome alone = run("score " + q(fifo));
  EXPECT_EQ(alone.status, 2);
  EXPECT_EQ(alone.err, message);
  EXPECT_EQ(alone.out, "");
  // With a good directory after it: that one is still scored.
  Outcome o = run("score --format json " + q(fifo) + " " + q(dir));
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, message);
  auto doc = nlohmann::json::parse(o.out);
  ASSERT_EQ(doc["results"].size(), 1u);
  EXPECT_EQ(doc["results"][0]["score_minutes"], clean_["score_minutes"]);
  // A log given by its path is a run of its folder (CliReproducer), here before the directory.
  Outcome file = run("score --format json " + q(example_file(0)) + " " + q(dir));
  EXPECT_EQ(file.status, 0) << file.err;
  doc = nlohmann::json::parse(file.out);
  ASSERT_EQ(doc["results"].size(), 2u);
  ASSERT_EQ(doc["results"][0]["runs"].size(), 1u);
  EXPECT_EQ(doc["results"][0]["runs"][0]["minutes"], clean_["runs"][0]["minutes"]);
  EXPECT_EQ(doc["results"][0]["verdict"], "incomplete");
  EXPECT_EQ(doc["results"][1]["score_minutes"], clean_["score_minutes"]);
  Outcome parse = run("parse " + q(dir));
  EXPECT_EQ(parse.status, 2);
  EXPECT_EQ(parse.err, "mlperf-score: " + dir.string() + ": cannot open: Is a directory\n");
}

// `mlperf-score score --format json DIR` where result_0.txt cannot be read: exit 2, the
// error on stderr, the nine other runs scored.
void expect_unreadable(const Outcome& o, const fs::path& file, const std::string& reason) {
  const std::string error = file.string() + ": cannot open: " + reason;
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, "mlperf-score: " + error + "\n");
  auto doc = nlohmann::json::parse(o.out);
  ASSERT_EQ(doc["results"].size(), 1u);
  const auto& r = doc["results"][0];
  EXPECT_EQ(counted_files(r), result_names(1, 9));
  expect_scored(r, 0);
  EXPECT_TRUE(std::find(r["warnings"].begin(), r["warnings"].end(), error) != r["warnings"].end()) << r["warnings"];
}

TEST_F(CliHostile, UnreadableFilePermissionDenied) {
  // Root reads a mode-000 file: the command then runs as nobody (setpriv, util-linux).
  std::string prefix;
  fs::path dir = copy_example(root_);
  if (::geteuid() == 0) {
    if (run_command("command -v setpriv >/dev/null 2>&1").status != 0) {
      GTEST_SKIP() << "running as root without setpriv: permission denied cannot be produced";
    }
    // The unprivileged child may not reach the checkout (a clone under a 0700 home): it runs a
    // copy of the binary with a copy of the data root, both in the world-readable temp folder.
    const fs::path shared = tmp_.path() / "shared";
    fs::create_directories(shared / "data");
    fs::copy(binary(), shared / "mlperf-score");
    fs::copy(testing::source_dir() / "configs", shared / "configs", fs::copy_options::recursive);
    fs::copy(testing::source_dir() / "data/rcps", shared / "data/rcps", fs::copy_options::recursive);
    for (const auto& e : fs::recursive_directory_iterator(tmp_.path())) {
      fs::permissions(e.path(), e.is_directory() ? fs::perms(0755) : fs::perms(0644), fs::perm_options::add);
    }
    fs::permissions(tmp_.path(), fs::perms(0755), fs::perm_options::add);
    prefix = "MLPERF_SCORE_DATA_DIR=" + q(shared) + " setpriv --reuid=65534 --regid=65534 --clear-groups ";
    exe_ = q(shared / "mlperf-score");  // the shell still opens stderr.txt as root
  }
  const fs::path file = dir / "result_0.txt";
  ASSERT_EQ(::chmod(file.c_str(), 0), 0);
  expect_unreadable(run("score --format json " + q(dir), prefix), file, "Permission denied");
  Outcome check = run("check --format json " + q(dir), prefix);
  EXPECT_EQ(check.status, 2);
  auto doc = nlohmann::json::parse(check.out);
  const auto& input = doc["results"][0]["checks"][0];
  EXPECT_EQ(input["check"], "input_readable");
  ASSERT_EQ(input["findings"].size(), 1u);
  EXPECT_EQ(input["findings"][0]["file"], file.string());
  EXPECT_EQ(input["findings"][0]["message"], "cannot open: Permission denied");
  Outcome parse = run("parse " + q(file) + " " + q(dir / "result_1.txt"), prefix);
  EXPECT_EQ(parse.status, 2);
  EXPECT_EQ(parse.err, "mlperf-score: " + file.string() + ": cannot open: Permission denied\n");
  EXPECT_EQ(line_count(parse.out), 135u);  // the other file is still read
}

TEST_F(CliHostile, UnreadableFileADirectoryNamedResultTxt) {
  fs::path dir = copy_example(root_);
  fs::remove(dir / "result_0.txt");
  fs::create_directory(dir / "result_0.txt");
  expect_unreadable(run("score --format json " + q(dir)), dir / "result_0.txt", "Is a directory");
}

TEST_F(CliHostile, UnreadableFileAFifoNamedResultTxtNeverBlocks) {
  fs::path dir = copy_example(root_);
  fs::remove(dir / "result_0.txt");
  ASSERT_EQ(::mkfifo((dir / "result_0.txt").c_str(), 0644), 0);
  // `timeout` ends a command that blocks opening the FIFO (exit status 124).
  Outcome o = run("score --format json " + q(dir), "timeout 30 ");
  ASSERT_NE(o.status, 124) << "score blocked on the FIFO";
  expect_unreadable(o, dir / "result_0.txt", "not a regular file");
}

TEST_F(CliHostile, SymlinkLoopInATree) {
  fs::path dir = copy_example(root_);
  fs::create_directory_symlink("..", dir.parent_path() / "up");
  fs::create_symlink("self", root_ / "self");
  fs::create_symlink("result_10.txt", dir / "result_10.txt");
  Outcome o = run("score --format json " + q(root_));
  EXPECT_EQ(o.status, 2);
  // The link to a folder is said, not walked (a loop would never end); the looping file is an error.
  EXPECT_EQ(o.err, "mlperf-score: warning: " + (dir.parent_path() / "up").string() +
                       ": a symbolic link to a folder; not followed inside a tree (give it as PATH to score it)\n"
                       "mlperf-score: " + (dir / "result_10.txt").string() +
                       ": cannot open: Too many levels of symbolic links\n");
  auto doc = nlohmann::json::parse(o.out);
  ASSERT_EQ(doc["results"].size(), 1u);
  EXPECT_EQ(doc["results"][0]["score_minutes"], clean_["score_minutes"]);

  Outcome loop = run("score " + q(root_ / "self"));
  EXPECT_EQ(loop.status, 2);
  EXPECT_EQ(loop.err,
            "mlperf-score: " + (root_ / "self").string() + ": cannot access: Too many levels of symbolic links\n");
}

TEST_F(CliHostile, TenThousandResultFilesInOneDirectory) {
  // result_N is a hard link to a whole copy of the example's result_(N mod 10): the command
  // judges every log by the official compliance rules, which want the whole log (10 inodes,
  // so the 10,000 reads come from the page cache).
  fs::path copies = tmp_.path() / "copies";
  fs::create_directories(copies);
  for (int i = 0; i < 10; ++i) write_file(copies / std::to_string(i), read_file(example_file(i)));
  fs::path dir = root_ / kBench;
  fs::create_directories(dir);
  for (int n = 0; n < 10000; ++n)
    fs::create_hard_link(copies / std::to_string(n % 10), dir / fmt::format("result_{}.txt", n));
  Outcome o;
  nlohmann::json r = score_json(dir, o);
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.err, "");
  ASSERT_EQ(r["runs"].size(), 10000u);
  EXPECT_EQ(fs::path(r["runs"][10]["file"].get<std::string>()).filename(), "result_10.txt");  // natural order
  EXPECT_EQ(r["runs"][9999]["minutes"], clean_["runs"][9]["minutes"]);
  EXPECT_EQ(counted_files(r).size(), 10000u);
  std::vector<double> minutes;
  for (const auto& run : r["runs"]) minutes.push_back(run["minutes"].get<double>());
  EXPECT_NEAR(r["olympic_minutes"].get<double>(), olympic_by_hand(minutes, 0), 1e-9);
  EXPECT_EQ(r["passed"], true);
}

TEST_F(CliHostile, StoredInterleavedRanksEncodingsAndLineEndings) {
  Outcome o = run("parse " + q(stored("interleaved_ranks.txt")) + " " + q(stored("encodings.txt")) + " " +
                  q(stored("line_endings_and_bytes.txt")));
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err,
            stored("interleaved_ranks.txt").string() +
                ":7: invalid MLLOG JSON at column 95: syntax error while parsing value - invalid string: missing "
                "closing quote; last read: '\"eval_acc'\n" +
                stored("line_endings_and_bytes.txt").string() +
                ":4: invalid MLLOG JSON at column 34: syntax error while parsing value - invalid string: control "
                "character U+0000 (NUL) must be escaped to \\u0000; last read: '\"d<U+0000>'\n" +
                stored("line_endings_and_bytes.txt").string() +
                ":5: invalid MLLOG JSON at column 48: syntax error while parsing value - invalid string: control "
                "character U+000D (CR) must be escaped to \\u000D or \\r; last read: '\"a<U+000D>'\n");
  EXPECT_EQ(line_count(o.out), 6u + 7u + 4u);
  std::vector<nlohmann::json> events;
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);) events.push_back(nlohmann::json::parse(line));
  EXPECT_EQ(events[2]["line"], 3);
  EXPECT_EQ(events[2]["time_ms"], 2001);  // the event after the last token of a cut line
  EXPECT_EQ(events[6]["value"], "Caf\xC3\xA9 M\xC3\xBCller");
  EXPECT_EQ(events[12]["key"], "caf\xC3\xA9");
  EXPECT_EQ(events[16]["line"], 8);  // the last line, without a newline
}

}  // namespace
}  // namespace mlperf
