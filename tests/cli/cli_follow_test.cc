// `mlperf-score follow` (issue #14) on a real log written line by line while it watches:
// updates as the log grows, the run's figures at run_stop, a partial last line, truncation and
// rotation, a timeout. Waits are bounded; nothing asserts on speed.

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::binary;
using testing::q;
using testing::example_system;
using testing::read_file;
using testing::run_command;
using testing::TempDir;


// The lines of AMD's MI355X llama31_8b result_1.txt (run_stop: success, 102.682... minutes).
std::vector<std::string> real_log_lines() {
  std::istringstream in(read_file(example_system() / "llama31_8b/result_1.txt"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Its time to train from run_start and run_stop, as the log says (§2).
double real_minutes(const std::vector<std::string>& lines) {
  double start = 0, stop = 0;
  for (const auto& l : lines) {
    if (l.find("\"run_start\"") != std::string::npos) start = nlohmann::json::parse(l.substr(9))["time_ms"];
    if (l.find("\"run_stop\"") != std::string::npos) stop = nlohmann::json::parse(l.substr(9))["time_ms"];
  }
  return (stop - start) / 60000.0;
}

void append(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::app);
  out << text;
}

// `follow --format jsonl` on `log`, running while the test writes; stdout and stderr in files.
class Follower {
 public:
  Follower(const fs::path& dir, const fs::path& log, const std::string& extra = "")
      : out_(dir / "follow.out"), err_(dir / "follow.err") {
    std::string cmd = binary() + " follow --format jsonl --interval 0.02 --timeout 300 " + extra + " " + q(log) +
                      " >" + q(out_) + " 2>" + q(err_) + "; echo $?";
    result_ = std::async(std::launch::async, [cmd] { return run_command(cmd); });
  }
  // Waits (at most 60 s) until stdout holds at least `n` records with an eval_accuracy
  // (n = 0: any record); false if it never does.
  bool wait_for_evals(std::size_t n) const {
    for (int i = 0; i < 3000; ++i) {
      auto r = records();
      if (!r.empty() && evals(r) >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  static std::size_t evals(const std::vector<nlohmann::json>& records) {
    std::size_t n = 0;
    for (const auto& r : records) n += r["eval_accuracy"].is_number() ? 1 : 0;
    return n;
  }
  std::vector<nlohmann::json> records() const {
    std::vector<nlohmann::json> out;
    std::istringstream in(read_file(out_));
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    }
    return out;
  }
  // The exit status, once the command ends.
  int finish() { return std::stoi(result_.get().out); }
  std::string err() const { return read_file(err_); }

 private:
  fs::path out_, err_;
  std::future<testing::CommandResult> result_;
};

TEST(CliFollow, UpdatesArriveAsTheLogGrowsAndTheLastCarriesTheMinutes) {
  TempDir tmp;
  const fs::path log = tmp.path() / "251009120000_1.log";  // not there yet: follow waits
  Follower follow(tmp.path(), log);
  auto lines = real_log_lines();
  std::size_t first_eval = 0;
  while (lines[first_eval].find("\"eval_accuracy\"") == std::string::npos) ++first_eval;
  std::size_t i = 0;
  for (; i <= first_eval; ++i) {
    append(log, lines[i] + "\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Before the rest is written, the first eval_accuracy is shown.
  ASSERT_TRUE(follow.wait_for_evals(1));
  auto early = follow.records();
  EXPECT_EQ(early.back()["eval_accuracy"], 5.629298686981201);
  EXPECT_EQ(early.back()["samples"], 12256);
  EXPECT_EQ(early.back()["quality_target_reached"], false);
  EXPECT_FALSE(early.back().contains("final"));
  EXPECT_TRUE(early.back()["projected_minutes"].is_number());
  for (; i < lines.size(); ++i) {
    append(log, lines[i] + "\n");
    if (i % 10 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(follow.finish(), 0);
  auto records = follow.records();
  std::vector<double> shown;  // each eval_accuracy, once
  for (const auto& r : records) {
    if (r["eval_accuracy"].is_number() && (shown.empty() || shown.back() != r["eval_accuracy"].get<double>())) {
      shown.push_back(r["eval_accuracy"].get<double>());
    }
  }
  EXPECT_EQ(shown.size(), 15u);
  EXPECT_EQ(records.front()["elapsed_minutes"], 0.0);  // run_start
  const auto& last = records.back();
  EXPECT_EQ(last["final"], true);
  EXPECT_EQ(last["status"], "success");
  EXPECT_DOUBLE_EQ(last["minutes"].get<double>(), real_minutes(lines));
  EXPECT_NEAR(last["minutes"].get<double>(), 102.68, 0.005);
  EXPECT_EQ(last["quality_target_reached"], true);
  EXPECT_EQ(last["samples"], 184320);
}

TEST(CliFollow, APartialLastLineWaitsForItsEnd) {
  TempDir tmp;
  const fs::path log = tmp.path() / "run.log";
  auto lines = real_log_lines();
  std::string head;
  std::size_t i = 0;
  for (; lines[i].find("\"eval_accuracy\"") == std::string::npos; ++i) head += lines[i] + "\n";
  const std::string& eval = lines[i];
  testing::write_file(log, head + eval.substr(0, eval.size() / 2));  // cut inside the JSON
  Follower follow(tmp.path(), log);
  ASSERT_TRUE(follow.wait_for_evals(0));  // run_start shown
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(Follower::evals(follow.records()), 0u);
  append(log, eval.substr(eval.size() / 2) + "\n");
  for (++i; i < lines.size(); ++i) append(log, lines[i] + "\n");
  EXPECT_EQ(follow.finish(), 0);
  EXPECT_EQ(follow.err(), "");  // the cut line was never read as a bad one
  auto records = follow.records();
  for (const auto& r : records) {
    if (r["eval_accuracy"].is_number()) {
      EXPECT_EQ(r["eval_accuracy"], 5.629298686981201);
      break;
    }
  }
  EXPECT_NEAR(records.back()["minutes"].get<double>(), real_minutes(lines), 1e-9);
}

TEST(CliFollow, RotationAndTruncationReadTheNewLogFromItsStart) {
  TempDir tmp;
  const fs::path log = tmp.path() / "run.log";
  auto lines = real_log_lines();
  std::string first;
  for (std::size_t i = 0; i < lines.size() / 2; ++i) first += lines[i] + "\n";
  testing::write_file(log, first);
  Follower follow(tmp.path(), log);
  ASSERT_TRUE(follow.wait_for_evals(3));
  // Rotation: the old log moves away, a new one takes its name.
  fs::rename(log, tmp.path() / "run.log.1");
  testing::write_file(tmp.path() / "new.tmp", lines[0] + "\n");
  fs::rename(tmp.path() / "new.tmp", log);
  std::size_t seen = follow.records().size();
  // Truncation: the new log is emptied and written again, whole this time (a failed run).
  std::string whole;
  for (const auto& l : lines) whole += l + "\n";
  const std::string success = "\"status\": \"success\"";
  whole.replace(whole.find(success), success.size(), "\"status\": \"aborted\"");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  { std::ofstream trunc(log, std::ios::binary | std::ios::trunc); }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  append(log, whole);
  EXPECT_EQ(follow.finish(), 1);  // aborted
  auto records = follow.records();
  ASSERT_GT(records.size(), seen);
  EXPECT_EQ(records.back()["status"], "aborted");
  EXPECT_DOUBLE_EQ(records.back()["minutes"].get<double>(), real_minutes(lines));
  EXPECT_NE(follow.err().find("truncated or replaced; reading it from the start"), std::string::npos)
      << follow.err();
}

TEST(CliFollow, NoRunStopBeforeTheTimeoutExitsTwo) {
  TempDir tmp;
  const fs::path log = tmp.path() / "run.log";
  auto lines = real_log_lines();
  std::string text;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i].find("\"run_stop\"") == std::string::npos) text += lines[i] + "\n";
  }
  testing::write_file(log, text);
  auto r = run_command(binary() + " follow --format jsonl --interval 0.05 --timeout 1 " + q(tmp.path()) +
                       " 2>/dev/null");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out.find("\"final\""), std::string::npos);
  EXPECT_NE(r.out.find("\"eval_accuracy\":"), std::string::npos);
}

// A loadgen run (MLPerf Inference) has no run_stop to wait for: `follow` says so at once and
// names the command that reads its result, instead of waiting for ever.
TEST(CliFollow, ALoadgenRunIsNoTrainingLogToFollow) {
  const fs::path scenario = testing::source_dir() /
                            "data/examples/inference_results_v5.1/closed/AMD/results/8xMI325x_2xEPYC-9655/"
                            "stable-diffusion-xl/Server";
  const fs::path run = scenario / "performance/run_1";
  for (const fs::path& given : {scenario, run, run / "mlperf_log_summary.txt"}) {
    // --timeout: a follow that waited for a run_stop would end (exit 2, another message), not hang.
    auto r = run_command(binary() + " follow --interval 0.05 --timeout 2 " + q(given) + " 2>&1");
    EXPECT_EQ(r.status, 2) << given;
    const fs::path log = given == run / "mlperf_log_summary.txt" ? given : run / "mlperf_log_detail.txt";
    EXPECT_EQ(r.out, "mlperf-score: " + log.string() +
                         ": a loadgen log (MLPerf Inference): follow watches training logs (run_start to run_stop); "
                         "loadgen writes its result when the run ends, then run: mlperf-score score " +
                         given.string() + "\n")
        << given;
  }
}

}  // namespace
}  // namespace mlperf
