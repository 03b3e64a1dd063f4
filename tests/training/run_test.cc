// Tests of the run builder (scoring.md §2 one run, §4.1 samples to converge) on small
// synthetic logs written to temp files, and of round3 (Python's round(x, 3)).

#include "mlperf/training/run.h"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../test_support.h"

#include "mlperf/training/facts.h"
#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"

namespace mlperf {
namespace {

const Facts& facts() {
  static const Facts f = Facts::load(std::filesystem::path(MLPERF_SCORE_SOURCE_DIR) / "configs/benchmarks.json");
  return f;
}

RunOptions options(const char* ruleset, bool bert_train_samples = false) {
  RunOptions o;
  o.ruleset = *Ruleset::parse(ruleset);
  o.bert_train_samples = bert_train_samples;
  return o;
}

constexpr long long kT0 = 1760000000000;   // init_start
constexpr long long kMin = 60000;          // one minute in ms

// A log built line by line; line numbers are 1-based like the reader's.
struct Log {
  std::string text;
  std::uint64_t lines = 0;

  // Adds one MLLOG line; returns its line number.
  std::uint64_t add(long long time_ms, const std::string& key, const std::string& value = "null",
                    const std::string& metadata = "{}", const char* type = "POINT_IN_TIME") {
    return raw(fmt::format(
        R"(:::MLLOG {{"namespace": "", "time_ms": {}, "event_type": "{}", "key": "{}", "value": {}, "metadata": {}}})",
        time_ms, type, key, value, metadata));
  }
  std::uint64_t raw(const std::string& line) {
    text += line;
    text += '\n';
    return ++lines;
  }
  // The head every compliant run starts with: init_start … init_stop at kT0 + init_ms.
  void head(const std::string& benchmark, const std::string& division = "closed", long long init_ms = 5 * kMin,
            long long batch = 8) {
    raw("launching job on 8 nodes");
    add(kT0, "init_start", "null", "{}", "INTERVAL_START");
    add(kT0 + 1, "submission_benchmark", "\"" + benchmark + "\"");
    add(kT0 + 2, "submission_division", "\"" + division + "\"");
    add(kT0 + 3, "submission_org", "\"ACME\"");
    add(kT0 + 4, "global_batch_size", std::to_string(batch));
    add(kT0 + init_ms, "init_stop", "null", "{}", "INTERVAL_END");
  }
  std::uint64_t eval(long long t, double accuracy, const std::string& metadata) {
    return add(t, "eval_accuracy", fmt::format("{}", accuracy), metadata);
  }
  std::uint64_t run_stop(long long t, const std::string& status = "success") {
    return add(t, "run_stop", "null", R"({"status": ")" + status + "\"}", "INTERVAL_END");
  }
};

using testing::TempFile;

Run read_log(const Log& log, const std::string& hint, const RunOptions& opts) {
  TempFile file(log.text);
  return read_run(file.path(), hint, facts(), opts);
}

bool has_reason(const Run& run, const std::string& part) {
  for (const auto& r : run.drop_reasons) {
    if (r.find(part) != std::string::npos) return true;
  }
  return false;
}

std::string reasons(const Run& run) {
  std::string s;
  for (const auto& r : run.drop_reasons) s += "[" + r + "] ";
  return s;
}

// --- llama2_70b_lora: samples_count convergence, target 0 < v ≤ 0.925 ---------------------

constexpr long long kRunStart = kT0 + 5 * kMin + 1000;
constexpr long long kTrainMs = 1234567;  // minutes = 1234567 / 60000 = 20.5761166…

Log llama_log(double last_accuracy = 0.92) {
  Log log;
  log.head("llama2_70b_lora");
  log.add(kRunStart, "run_start", "null", "{}", "INTERVAL_START");  // line 8
  log.eval(kRunStart + 100000, 0.95, R"({"samples_count": 3072})");
  log.raw("step 200 loss 1.234");
  log.eval(kRunStart + 200000, 0.93, R"({"samples_count": 6144})");
  log.eval(kRunStart + 300000, last_accuracy, R"({"samples_count": 9216})");
  log.run_stop(kRunStart + kTrainMs);  // line 13
  return log;
}

TEST(ReadRun, MinutesAreRunStopMinusRunStartOver60000) {
  mlperf::Run run = read_log(llama_log(), "llama2_70b_lora", options("5.1.0"));
  ASSERT_TRUE(run.minutes.has_value());
  EXPECT_DOUBLE_EQ(*run.minutes, 20.576116666666666);
  EXPECT_EQ(*run.minutes, 1234567.0 / 60000.0);
  ASSERT_TRUE(run.run_start && run.run_stop);
  EXPECT_EQ(run.run_start->time_ms, 1760000301000.0);
  EXPECT_EQ(run.run_stop->time_ms, 1760001535567.0);

  // A whole number of minutes comes out exact.
  Log log;
  log.head("llama2_70b_lora");
  log.add(kRunStart, "run_start");
  log.eval(kRunStart + 1000, 0.92, R"({"samples_count": 3072})");
  log.run_stop(kRunStart + 15 * kMin);
  mlperf::Run whole = read_log(log, "llama2_70b_lora", options("5.1.0"));
  ASSERT_TRUE(whole.minutes.has_value());
  EXPECT_EQ(*whole.minutes, 15.0);
}

TEST(ReadRun, HeadIsTheFirstBenchmarkAndRunStart) {
  Log log = llama_log();
  log.add(kRunStart + kTrainMs + 5, "run_start", "null", "{}", "INTERVAL_START");  // a second one, later
  TempFile file(log.text);
  RunHead head = read_run_head(file.path());
  EXPECT_EQ(head.benchmark, "llama2_70b_lora");
  ASSERT_TRUE(head.run_start.has_value());
  EXPECT_EQ(head.run_start->time_ms, 1760000301000.0);
  EXPECT_EQ(head.run_start->line, 8u);
  // The same as read_run's.
  mlperf::Run run = read_log(log, "hint", options("5.1.0"));
  EXPECT_EQ(run.run_start->time_ms, head.run_start->time_ms);
  EXPECT_EQ(run.benchmark, head.benchmark);

  // A benchmark named twice: the first. A line that mentions run_start but is no MLLOG event,
  // or another key's, is passed over; no run_start: none, the whole log read.
  Log odd;
  odd.add(kT0, "submission_benchmark", R"("\u0062ert")");  // an escape: the full parser reads it
  odd.add(kT0 + 1, "submission_benchmark", "\"dlrm_dcnv2\"");
  odd.raw(":::MLLOG {\"key\": \"run_start\", broken");
  odd.add(kT0 + 2, "cache_clear", "\"before run_start\"");
  odd.run_stop(kRunStart + kTrainMs);
  TempFile other(odd.text);
  RunHead none = read_run_head(other.path());
  EXPECT_EQ(none.benchmark, "bert");
  EXPECT_FALSE(none.run_start.has_value());

  // A folder is refused as read_run refuses it.
  testing::TempDir dir;
  EXPECT_THROW(read_run_head(dir.path()), std::runtime_error);
}

TEST(ReadRun, CompliantLlamaRunCountsAndConverges) {
  mlperf::Run run = read_log(llama_log(), "llama2_70b_lora", options("5.1.0"));
  EXPECT_TRUE(run.drop_reasons.empty()) << reasons(run);
  EXPECT_TRUE(run.counted());
  EXPECT_EQ(run.benchmark, "llama2_70b_lora");
  EXPECT_EQ(run.division, "closed");
  EXPECT_EQ(run.org, "ACME");
  ASSERT_TRUE(run.global_batch_size.has_value());
  EXPECT_EQ(*run.global_batch_size, 8);
  EXPECT_EQ(run.status, std::optional<std::string>("success"));
  EXPECT_TRUE(run.quality_target_known);
  EXPECT_TRUE(run.quality_target_reached);
  EXPECT_TRUE(run.converged);
  EXPECT_EQ(run.samples_to_converge, 9216.0);
  EXPECT_EQ(run.run_start->line, 8u);
  EXPECT_EQ(run.run_stop->line, 13u);
  EXPECT_EQ(run.init_start->line, 2u);
  EXPECT_EQ(run.init_stop->line, 7u);
  EXPECT_EQ(run.mllog_lines, 11u);  // 13 lines, 2 of them noise
  EXPECT_EQ(run.parse_error_count, 0u);
}

TEST(ReadRun, EvalAfterRunStopDoesNotMoveTheConvergencePoint) {
  Log log = llama_log();
  log.eval(kRunStart + kTrainMs + 1000, 0.91, R"({"samples_count": 12288})");
  mlperf::Run run = read_log(log, "llama2_70b_lora", options("5.1.0"));
  EXPECT_TRUE(run.converged);
  EXPECT_EQ(run.samples_to_converge, 9216.0);
}

TEST(ReadRun, BenchmarkHintIsUsedWithoutSubmissionBenchmark) {
  // Through RunBuilder directly, the events parsed with parse_mllog_line.
  Log log;
  log.add(kT0, "init_start");
  log.add(kT0 + kMin, "init_stop");
  log.add(kT0 + 2 * kMin, "run_start");
  log.eval(kT0 + 3 * kMin, 0.924, R"({"samples_count": 4096, "epoch_num": 0.5})");
  log.run_stop(kT0 + 12 * kMin);
  RunBuilder builder("mem.txt", "llama2_70b_lora", facts(), options("5.0.0"));
  LineReader reader(string_source(log.text));
  Line line;
  Event event;
  std::string error;
  while (reader.next(line)) {
    ASSERT_EQ(parse_mllog_line(line.text, event, error), LineKind::kEvent) << error;
    event.line = line.number;
    builder.add(event);
  }
  mlperf::Run run = builder.finish();
  EXPECT_EQ(run.file, "mem.txt");
  EXPECT_EQ(run.benchmark, "");
  EXPECT_TRUE(run.counted()) << reasons(run);
  EXPECT_EQ(*run.minutes, 10.0);
  EXPECT_TRUE(run.converged);
  EXPECT_EQ(run.samples_to_converge, 4096.0);  // samples_count, not epoch_num
}

TEST(ReadRun, TargetNeverReachedIsDropped) {
  // 0.95, 0.93, 0.93: none ≤ 0.925.
  mlperf::Run run = read_log(llama_log(0.93), "llama2_70b_lora", options("5.1.0"));
  ASSERT_EQ(run.drop_reasons.size(), 1u) << reasons(run);
  EXPECT_EQ(run.drop_reasons[0], "quality target never reached");
  EXPECT_FALSE(run.counted());
  EXPECT_TRUE(run.quality_target_known);
  EXPECT_FALSE(run.quality_target_reached);
  ASSERT_TRUE(run.minutes.has_value());
  EXPECT_EQ(*run.minutes, 1234567.0 / 60000.0);
}

TEST(ReadRun, TargetBoundIsInclusive) {
  // 0.925 itself meets 0 < v ≤ 0.925.
  mlperf::Run run = read_log(llama_log(0.925), "llama2_70b_lora", options("5.1.0"));
  EXPECT_TRUE(run.counted()) << reasons(run);
  EXPECT_TRUE(run.quality_target_reached);
}

TEST(ReadRun, MalformedLineIsRecordedAndDropsTheRun) {
  Log log;
  log.head("llama2_70b_lora");
  log.add(kRunStart, "run_start");                                              // 8
  log.eval(kRunStart + 100000, 0.95, R"({"samples_count": 3072})");              // 9
  std::uint64_t bad = log.raw(R"(0: :::MLLOG {"namespace": "", "time_ms": 17600)");  // 10
  log.eval(kRunStart + 300000, 0.92, R"({"samples_count": 9216})");              // 11
  std::uint64_t no_key = log.raw(R"(:::MLLOG {"time_ms": 1760000900000, "value": 1})");  // 12
  log.run_stop(kRunStart + kTrainMs);                                            // 13
  TempFile file(log.text);
  mlperf::Run run = read_run(file.path(), "llama2_70b_lora", facts(), options("5.1.0"));
  ASSERT_EQ(bad, 10u);
  ASSERT_EQ(no_key, 12u);
  EXPECT_EQ(run.parse_error_count, 2u);
  ASSERT_EQ(run.parse_errors.size(), 2u);
  EXPECT_EQ(run.parse_errors[0].line, 10u);
  EXPECT_EQ(run.parse_errors[0].file, file.path().string());
  EXPECT_FALSE(run.parse_errors[0].message.empty());
  EXPECT_EQ(run.parse_errors[1].line, 12u);
  EXPECT_NE(run.parse_errors[1].message.find("key"), std::string::npos);
  EXPECT_EQ(run.mllog_lines, 13u - 1u);  // every line but the noise line 1
  // The rest of the file is still read: run_stop, minutes and convergence are all there.
  ASSERT_TRUE(run.run_stop.has_value());
  EXPECT_EQ(run.run_stop->line, 13u);
  ASSERT_TRUE(run.minutes.has_value());
  EXPECT_EQ(*run.minutes, 1234567.0 / 60000.0);
  EXPECT_TRUE(run.quality_target_reached);
  EXPECT_TRUE(run.converged);
  EXPECT_EQ(run.samples_to_converge, 9216.0);
  // … but the run is dropped (§2, first bullet).
  EXPECT_FALSE(run.counted());
  ASSERT_EQ(run.drop_reasons.size(), 1u) << reasons(run);
  EXPECT_NE(run.drop_reasons[0].find("line 10"), std::string::npos) << reasons(run);
}

TEST(ReadRun, TwoRunStartsAreDropped) {
  Log log;
  log.head("llama2_70b_lora");
  log.add(kRunStart, "run_start");
  log.eval(kRunStart + 100000, 0.92, R"({"samples_count": 3072})");
  log.add(kRunStart + 200000, "run_start");
  log.run_stop(kRunStart + 6 * kMin);
  mlperf::Run run = read_log(log, "llama2_70b_lora", options("5.1.0"));
  EXPECT_EQ(run.run_start_count, 2);
  EXPECT_FALSE(run.counted());
  ASSERT_EQ(run.drop_reasons.size(), 1u) << reasons(run);
  EXPECT_TRUE(has_reason(run, "run_start")) << reasons(run);
  // Minutes come from the pair the official summarizer takes (_query_run_start_stop): the
  // last run_start before the first run_stop.
  EXPECT_DOUBLE_EQ(*run.minutes, 6.0 - 200000.0 / kMin);
}

TEST(ReadRun, TwoRunStopsAreDropped) {
  Log log = llama_log();
  log.run_stop(kRunStart + kTrainMs + 5000);
  mlperf::Run run = read_log(log, "llama2_70b_lora", options("5.1.0"));
  EXPECT_EQ(run.run_stop_count, 2);
  EXPECT_FALSE(run.counted());
  EXPECT_TRUE(has_reason(run, "run_stop")) << reasons(run);
  EXPECT_EQ(*run.minutes, 1234567.0 / 60000.0);  // first run_stop
}

TEST(ReadRun, MissingRunStopIsDroppedWithoutMinutes) {
  Log log;
  log.head("llama2_70b_lora");
  log.add(kRunStart, "run_start");
  log.eval(kRunStart + 100000, 0.92, R"({"samples_count": 3072})");
  mlperf::Run run = read_log(log, "llama2_70b_lora", options("5.1.0"));
  EXPECT_FALSE(run.minutes.has_value());
  EXPECT_FALSE(run.counted());
  EXPECT_TRUE(has_reason(run, "run_stop")) << reasons(run);
  EXPECT_FALSE(run.converged);
  EXPECT_EQ(run.samples_to_converge, kNotConverged);
}

TEST(ReadRun, RunStopWithoutStatusIsDropped) {
  Log log;
  log.head("llama2_70b_lora");
  log.add(kRunStart, "run_start");
  log.eval(kRunStart + 100000, 0.92, R"({"samples_count": 3072})");
  std::uint64_t stop = log.add(kRunStart + 10 * kMin, "run_stop", "null", R"({"file": "x.py"})");
  mlperf::Run run = read_log(log, "llama2_70b_lora", options("5.1.0"));
  EXPECT_FALSE(run.status.has_value());
  EXPECT_FALSE(run.counted());
  ASSERT_EQ(run.drop_reasons.size(), 1u) << reasons(run);
  EXPECT_NE(run.drop_reasons[0].find("status"), std::string::npos) << reasons(run);
  EXPECT_NE(run.drop_reasons[0].find(fmt::format("line {}", stop)), std::string::npos) << reasons(run);
  EXPECT_FALSE(run.converged);
  EXPECT_EQ(run.samples_to_converge, kNotConverged);
  EXPECT_EQ(*run.minutes, 10.0);
}

TEST(ReadRun, RunStartBeforeInitStopIsDropped) {
  Log log;
  log.raw("noise");
  log.add(kT0, "init_start");
  log.add(kT0 + 1, "submission_benchmark", "\"llama2_70b_lora\"");
  log.add(kT0 + 2, "submission_division", "\"closed\"");
  log.add(kT0 + 2 * kMin, "run_start");  // line 5: before init_stop, in log and in time
  log.add(kT0 + 3 * kMin, "init_stop");  // line 6
  log.eval(kT0 + 4 * kMin, 0.92, R"({"samples_count": 3072})");
  log.run_stop(kT0 + 12 * kMin);
  mlperf::Run run = read_log(log, "llama2_70b_lora", options("5.1.0"));
  EXPECT_FALSE(run.counted());
  ASSERT_EQ(run.drop_reasons.size(), 1u) << reasons(run);
  EXPECT_NE(run.drop_reasons[0].find("line 5"), std::string::npos) << reasons(run);
  EXPECT_NE(run.drop_reasons[0].find("init_stop"), std::string::npos) << reasons(run);
  EXPECT_EQ(*run.minutes, 10.0);
}

TEST(ReadRun, MissingInitStartIsDropped) {
  Log log;
  log.add(kT0, "submission_benchmark", "\"llama2_70b_lora\"");
  log.add(kT0 + kMin, "init_stop");
  log.add(kT0 + 2 * kMin, "run_start");
  log.eval(kT0 + 3 * kMin, 0.92, R"({"samples_count": 3072})");
  log.run_stop(kT0 + 4 * kMin);
  mlperf::Run run = read_log(log, "llama2_70b_lora", options("5.1.0"));
  EXPECT_FALSE(run.counted());
  EXPECT_TRUE(has_reason(run, "init_start")) << reasons(run);
}

TEST(ReadRun, InitStartAfterRunStartIsDropped) {
  Log log = llama_log();  // run_start at line 8
  // Append an init_start after everything (but clock-wise it does not matter).
  log.add(kRunStart + kTrainMs + 10, "init_start");
  mlperf::Run run = read_log(log, "llama2_70b_lora", options("5.1.0"));
  EXPECT_FALSE(run.counted());
  ASSERT_EQ(run.drop_reasons.size(), 1u) << reasons(run);
  EXPECT_TRUE(has_reason(run, "line 14")) << reasons(run);
}

Log llama_with_init(const std::string& division, long long init_ms) {
  Log log;
  log.head("llama2_70b_lora", division, init_ms);
  long long start = kT0 + init_ms + 1000;
  log.add(start, "run_start");
  log.eval(start + kMin, 0.92, R"({"samples_count": 3072})");
  log.run_stop(start + 20 * kMin);
  return log;
}

TEST(ReadRun, ClosedInitializationMustBeUnder30Minutes) {
  mlperf::Run ok = read_log(llama_with_init("closed", 30 * kMin - 1), "llama2_70b_lora", options("5.1.0"));
  EXPECT_TRUE(ok.counted()) << reasons(ok);
  EXPECT_EQ(*ok.minutes, 20.0);

  mlperf::Run at_limit = read_log(llama_with_init("closed", 30 * kMin), "llama2_70b_lora", options("5.1.0"));
  EXPECT_FALSE(at_limit.counted());
  ASSERT_EQ(at_limit.drop_reasons.size(), 1u) << reasons(at_limit);
  EXPECT_TRUE(has_reason(at_limit, "initialization")) << reasons(at_limit);

  mlperf::Run long_init = read_log(llama_with_init("closed", 100 * kMin), "llama2_70b_lora", options("5.1.0"));
  EXPECT_FALSE(long_init.counted());
}

TEST(ReadRun, OpenInitializationMustBeUnder240Minutes) {
  mlperf::Run ok = read_log(llama_with_init("open", 100 * kMin), "llama2_70b_lora", options("5.1.0"));
  EXPECT_TRUE(ok.counted()) << reasons(ok);
  EXPECT_EQ(ok.division, "open");
  mlperf::Run ok2 = read_log(llama_with_init("open", 240 * kMin - 1), "llama2_70b_lora", options("5.1.0"));
  EXPECT_TRUE(ok2.counted()) << reasons(ok2);
  mlperf::Run at_limit = read_log(llama_with_init("open", 240 * kMin), "llama2_70b_lora", options("5.1.0"));
  EXPECT_FALSE(at_limit.counted());
  EXPECT_TRUE(has_reason(at_limit, "initialization")) << reasons(at_limit);
}

TEST(ReadRun, InitializationCountsFromTheEarliestInitStart) {
  // init_start at kT0 and kT0 + 10 min, init_stop at kT0 + 30 min: 30 min from the earliest.
  Log log;
  log.add(kT0, "init_start");
  log.add(kT0 + 10 * kMin, "init_start");
  log.add(kT0 + 11 * kMin, "submission_benchmark", "\"llama2_70b_lora\"");
  log.add(kT0 + 11 * kMin, "submission_division", "\"closed\"");
  log.add(kT0 + 30 * kMin, "init_stop");
  log.add(kT0 + 31 * kMin, "run_start");
  log.eval(kT0 + 32 * kMin, 0.92, R"({"samples_count": 3072})");
  log.run_stop(kT0 + 41 * kMin);
  mlperf::Run run = read_log(log, "llama2_70b_lora", options("5.1.0"));
  EXPECT_EQ(run.init_start_count, 2);
  EXPECT_EQ(run.init_start->time_ms, static_cast<double>(kT0));
  EXPECT_FALSE(run.counted());
  ASSERT_EQ(run.drop_reasons.size(), 1u) << reasons(run);
  EXPECT_TRUE(has_reason(run, "initialization")) << reasons(run);
}

TEST(ReadRun, AbortedRunDoesNotConverge) {
  Log log;
  log.head("llama2_70b_lora");
  log.add(kRunStart, "run_start");
  log.eval(kRunStart + 100000, 0.92, R"({"samples_count": 3072})");
  log.run_stop(kRunStart + 8 * kMin, "aborted");
  mlperf::Run run = read_log(log, "llama2_70b_lora", options("5.1.0"));
  EXPECT_EQ(run.status, std::optional<std::string>("aborted"));
  EXPECT_FALSE(run.converged);
  EXPECT_EQ(run.samples_to_converge, kNotConverged);
  EXPECT_TRUE(std::isinf(run.samples_to_converge));
  EXPECT_EQ(*run.minutes, 8.0);
}

// --- epoch_num benchmarks: retinanet, target 0.340 ≤ v < 1.0 -----------------------------

TEST(ReadRun, EpochNumIsRoundedToThreeDecimals) {
  Log log;
  log.head("retinanet", "closed", 5 * kMin, 256);
  log.add(kRunStart, "run_start");
  log.eval(kRunStart + kMin, 0.30, R"({"epoch_num": 1.5})");
  log.eval(kRunStart + 2 * kMin, 0.345, R"({"epoch_num": 3.14159, "samples_count": 999})");
  log.run_stop(kRunStart + 3 * kMin);
  mlperf::Run run = read_log(log, "retinanet", options("5.1.0"));
  EXPECT_TRUE(run.counted()) << reasons(run);
  EXPECT_TRUE(run.quality_target_reached);
  EXPECT_TRUE(run.converged);
  EXPECT_DOUBLE_EQ(run.samples_to_converge, 3.142);
  EXPECT_EQ(*run.global_batch_size, 256);
}

TEST(ReadRun, RetinanetBelowTargetIsDropped) {
  Log log;
  log.head("retinanet");
  log.add(kRunStart, "run_start");
  log.eval(kRunStart + kMin, 0.339, R"({"epoch_num": 1.0})");
  log.run_stop(kRunStart + 3 * kMin);
  mlperf::Run run = read_log(log, "retinanet", options("5.1.0"));
  ASSERT_EQ(run.drop_reasons.size(), 1u) << reasons(run);
  EXPECT_EQ(run.drop_reasons[0], "quality target never reached");
}

TEST(Round3, MatchesPythonRound) {
  // Values checked with CPython 3: round(x, 3).
  EXPECT_DOUBLE_EQ(round3(3.14159), 3.142);
  EXPECT_DOUBLE_EQ(round3(2.675), 2.675);    // nothing to round
  EXPECT_DOUBLE_EQ(round3(2.6755), 2.675);   // binary value just below the tie
  EXPECT_DOUBLE_EQ(round3(0.0005), 0.001);   // binary value just above the tie
  EXPECT_DOUBLE_EQ(round3(1.0005), 1.0);     // binary value just below the tie
  // Exact binary ties go to the even neighbour.
  EXPECT_DOUBLE_EQ(round3(0.0625), 0.062);   // 62.5 thousandths
  EXPECT_DOUBLE_EQ(round3(0.1875), 0.188);   // 187.5 thousandths
  EXPECT_DOUBLE_EQ(round3(0.3125), 0.312);
  EXPECT_DOUBLE_EQ(round3(0.4375), 0.438);
  EXPECT_DOUBLE_EQ(round3(-0.0625), -0.062);
  EXPECT_DOUBLE_EQ(round3(7.0), 7.0);
  EXPECT_DOUBLE_EQ(round3(12345.67891), 12345.679);
  EXPECT_TRUE(std::isinf(round3(kNotConverged)));
}

// --- stable_diffusion: FID/CLIP per step --------------------------------------------------

Log sd_log(bool passing = true) {
  Log log;
  log.head("stable_diffusion", "closed", 5 * kMin, 512);
  log.add(kRunStart, "run_start");
  // step 1000: FID fails. samples_count and step_num differ so the step field is visible.
  log.eval(kRunStart + 1 * kMin, 95.0, R"({"metric": "FID", "samples_count": 1000, "step_num": 10})");
  log.eval(kRunStart + 1 * kMin, 0.16, R"({"metric": "CLIP", "samples_count": 1000, "step_num": 10})");
  // step 2000: passes (FID 80 ≤ 90, CLIP 0.16 ≥ 0.15) unless told otherwise.
  log.eval(kRunStart + 2 * kMin, passing ? 80.0 : 91.0,
           R"({"metric": "FID", "samples_count": 2000, "step_num": 20})");
  log.eval(kRunStart + 2 * kMin, 0.16, R"({"metric": "CLIP", "samples_count": 2000, "step_num": 20})");
  // step 3000 passes too (unless told otherwise): the smallest passing step is the
  // convergence point.
  log.eval(kRunStart + 3 * kMin, 70.0, R"({"metric": "FID", "samples_count": 3000, "step_num": 30})");
  log.eval(kRunStart + 3 * kMin, passing ? 0.2 : 0.149,
           R"({"metric": "CLIP", "samples_count": 3000, "step_num": 30})");
  log.run_stop(kRunStart + 4 * kMin);
  return log;
}

TEST(ReadRun, StableDiffusionConvergesAtFirstPassingSamplesCount) {
  mlperf::Run run = read_log(sd_log(), "stable_diffusion", options("5.0.0"));
  EXPECT_TRUE(run.counted()) << reasons(run);
  EXPECT_TRUE(run.quality_target_known);
  EXPECT_TRUE(run.quality_target_reached);
  EXPECT_TRUE(run.converged);
  EXPECT_EQ(run.samples_to_converge, 2000.0);
  EXPECT_EQ(*run.minutes, 4.0);
}

TEST(ReadRun, StableDiffusionNeverBothMetricsAtOneStep) {
  // step 1000: FID 95 ✗; step 2000: FID 91 ✗; step 3000: FID 70 ✓ but CLIP 0.149 ✗.
  mlperf::Run run = read_log(sd_log(false), "stable_diffusion", options("5.0.0"));
  EXPECT_FALSE(run.quality_target_reached);
  EXPECT_FALSE(run.converged);
  EXPECT_EQ(run.samples_to_converge, kNotConverged);
  ASSERT_EQ(run.drop_reasons.size(), 1u) << reasons(run);
  EXPECT_EQ(run.drop_reasons[0], "quality target never reached");
}

TEST(ReadRun, StableDiffusionRuleset310UsesStepNum) {
  Log log;
  log.head("stable_diffusion", "closed", 5 * kMin, 512);
  log.add(kRunStart, "run_start");
  log.eval(kRunStart + 1 * kMin, 95.0, R"({"metric": "FID", "step_num": 1000, "samples_count": 10})");
  log.eval(kRunStart + 1 * kMin, 0.16, R"({"metric": "CLIP", "step_num": 1000, "samples_count": 10})");
  log.eval(kRunStart + 2 * kMin, 80.0, R"({"metric": "FID", "step_num": 2000, "samples_count": 20})");
  log.eval(kRunStart + 2 * kMin, 0.16, R"({"metric": "CLIP", "step_num": 2000, "samples_count": 20})");
  log.run_stop(kRunStart + 4 * kMin);
  mlperf::Run run = read_log(log, "stable_diffusion", options("3.1.0"));
  EXPECT_TRUE(run.converged);
  EXPECT_EQ(run.samples_to_converge, 2000.0);
  // §6 names no stable_diffusion target for 3.1.0: not checked, not a reason to drop.
  EXPECT_FALSE(run.quality_target_known);
  EXPECT_TRUE(run.counted()) << reasons(run);
  EXPECT_FALSE(run.notes.empty());
}

// --- bert: epoch_num, or train_samples with the option -------------------------------------

Log bert_log() {
  Log log;
  log.head("bert", "closed", 5 * kMin, 4096);
  log.add(kRunStart, "run_start");
  log.eval(kRunStart + 1 * kMin, 0.70, R"({"epoch_num": 1.23456})");
  log.add(kRunStart + 2 * kMin, "train_samples", "2654208");
  log.eval(kRunStart + 2 * kMin, 0.7205, R"({"epoch_num": 2.34567})");
  log.run_stop(kRunStart + 3 * kMin);
  return log;
}

TEST(ReadRun, BertTrainSamplesOption) {
  mlperf::Run run = read_log(bert_log(), "bert", options("5.0.0", true));
  EXPECT_TRUE(run.counted()) << reasons(run);
  EXPECT_TRUE(run.quality_target_reached);
  EXPECT_TRUE(run.converged);
  EXPECT_EQ(run.samples_to_converge, 2654208.0);
}

TEST(ReadRun, BertWithoutOptionUsesRoundedEpochNum) {
  mlperf::Run run = read_log(bert_log(), "bert", options("5.0.0", false));
  EXPECT_TRUE(run.counted()) << reasons(run);
  EXPECT_TRUE(run.converged);
  EXPECT_DOUBLE_EQ(run.samples_to_converge, 2.346);
}

TEST(ReadRun, ReadRunOnMissingFileThrowsNamingIt) {
  std::filesystem::path missing = std::filesystem::temp_directory_path() /
                                  ("mlperf_run_test_missing_" + std::to_string(::getpid()) + ".txt");
  std::filesystem::remove(missing);
  try {
    read_run(missing, "bert", facts(), options("5.0.0"));
    FAIL() << "read_run did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mlperf
