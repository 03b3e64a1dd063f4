// Tests of the scoring fast path of the run builder: RunBuilder::add(EventView), as read_run
// feeds it, builds the same Run as RunBuilder::add(Event) with parse_mllog_line's events
// (scoring.md §2, §4.1), and read_run gives the same Run as reading every line with the full
// parser, bad lines included.

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "mlperf/training/facts.h"
#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"
#include "mlperf/mllog/thread_cache.h"
#include "mlperf/training/run.h"
#include "run_describe.h"
#include "../test_support.h"

namespace mlperf {
namespace {

using testing::describe;

const Facts& facts() {
  static const Facts f = Facts::load(testing::source_dir() / "configs/benchmarks.json");
  return f;
}

// The reference: every line through LineReader::next and parse_mllog_line.
Run read_with_full_parser(const std::filesystem::path& path, const std::string& hint, const RunOptions& options) {
  LineReader reader(file_source(path));
  return read_run_full_parser(reader, path.string(), hint, facts(), options);
}

// Every key in the census: the two parsers are compared by it.
RunOptions options(const char* ruleset, bool bert_train_samples = false) {
  RunOptions o{testing::rs(ruleset), bert_train_samples};
  o.full_key_census = true;
  return o;
}

void expect_same_runs(const std::string& log, const std::string& hint, const RunOptions& opts) {
  testing::TempFile file(log);
  mlperf::Run fast = read_run(file.path(), hint, facts(), opts);
  mlperf::Run full = read_with_full_parser(file.path(), hint, opts);
  EXPECT_EQ(describe(fast), describe(full));
}

std::string line(long long time_ms, const std::string& key, const std::string& value = "null",
                 const std::string& metadata = "{}") {
  return fmt::format(R"(:::MLLOG {{"namespace": "", "time_ms": {}, "event_type": "POINT_IN_TIME", "key": "{}", "value": {}, "metadata": {}}})",
                     time_ms, key, value, metadata) +
         "\n";
}

std::string head(const std::string& benchmark, long long t0 = 1760000000000) {
  return line(t0, "init_start") + line(t0 + 1, "submission_benchmark", "\"" + benchmark + "\"") +
         line(t0 + 2, "submission_division", "\"closed\"") + line(t0 + 3, "submission_org", "\"ACME\"") +
         line(t0 + 4, "global_batch_size", "8") + line(t0 + 60000, "init_stop") + line(t0 + 60001, "run_start");
}

TEST(RunEventView, ExampleLogsGiveTheSameRuns) {
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::source_dir() / "data/examples")) {
    if (!entry.is_regular_file() || entry.path().filename().string().rfind("result_", 0) != 0 ||
        entry.path().extension() != ".txt") {
      continue;  // result_N.txt, not an endpoints run's result_summary.json
    }
    std::string hint = entry.path().parent_path().filename().string();
    for (const char* ruleset : {"6.0.0", "5.1.0", "4.1.0"}) {
      mlperf::Run fast = read_run(entry.path(), hint, facts(), options(ruleset));
      mlperf::Run full = read_with_full_parser(entry.path(), hint, options(ruleset));
      EXPECT_EQ(describe(fast), describe(full)) << entry.path();
      EXPECT_TRUE(fast.counted()) << entry.path();
    }
    ++files;
  }
  EXPECT_EQ(files, 70);  // v5.1: 2 directories of 10 logs; v6.0: 5 (four of them CRLF)
}

TEST(RunEventView, ValuesOfEveryTypeAreReadAsTheFullParserReadsThem) {
  const long long t = 1760000060001;
  std::string log = line(1760000000000, "init_start") +
                    // Non-string submission values are kept as JSON text; the first one wins.
                    line(1760000000001, "submission_benchmark", "\"llama2_70b_lora\"") +
                    line(1760000000002, "submission_division", "{\"b\": [1, 2.50], \"a\": null}") +
                    line(1760000000003, "submission_org", "12.50") +
                    line(1760000000004, "submission_platform", "[true,  false]") +
                    line(1760000000005, "submission_org", "\"second\"") +
                    // Batch size as a float (truncated as get<long long> does), then the last wins.
                    line(1760000000006, "global_batch_size", "7.9") + line(1760000000007, "global_batch_size", "16") +
                    line(1760000060000, "init_stop") + line(t, "run_start") +
                    line(t + 1, "tracked_stats", "{\"throughput\": 12.5}") +
                    line(t + 2, "tracked_stats", "{\"throughput\": -1e-3, \"throughput\": 99}") +
                    // No numeric throughput: the last one stays.
                    line(t + 3, "tracked_stats", "{\"other\": 1}") + line(t + 4, "tracked_stats", "\"n/a\"") +
                    line(t + 5, "eval_accuracy", "\"high\"", "{\"samples_count\": 100}") +
                    line(t + 6, "eval_accuracy", "0.90", "{\"samples_count\": 18446744073709551615}") +
                    line(t + 7, "eval_accuracy", "0.92", "{\"samples_count\": 3072, \"samples_count\": 4096}") +
                    // A status that is not a string, then a second run_stop.
                    line(t + 60000, "run_stop", "null", "{\"status\": {\"code\": 0}}") +
                    line(t + 70000, "run_stop", "null", "{\"status\": \"success\"}") +
                    "noise after the run\n" + line(t + 80000, "weird key with spaces", "null");
  expect_same_runs(log, "llama2_70b_lora", options("5.1.0"));
}

// Lines of one scanner shape share their key: the builder keeps a shape's census entry, and
// a tracked_stats shape without a throughput member. Many shapes (more than the scanner keeps
// and than the builder's table has slots) in changing order, with and without throughput:
// the census of every key and the last throughput are the full parser's.
TEST(RunEventView, ManyShapesInTurnGiveTheFullParsersCensusAndThroughput) {
  const long long t = 1760000060001;
  std::string log = head("llama2_70b_lora");
  long long now = t;
  double last_throughput = 0;
  int tracked = 0, key_1 = 0;
  // Phases of 8 keys each, 12 rounds a phase: a phase's shapes fit the scanner and are
  // matched, and every phase brings new shape ids (more than the builder's table holds).
  for (int round = 0; round < 48; ++round) {
    for (int k = (round / 12) * 8; k < (round / 12) * 8 + 8; ++k) {
      if (k % 3 == 0) {
        log += line(++now, "tracked_stats", fmt::format(R"({{"loss_{}": {}.5}})", k, round));
        ++tracked;
      } else if (k % 3 == 2) {
        last_throughput = round * 100 + k + 0.25;
        log += line(++now, "tracked_stats", fmt::format(R"({{"throughput": {}, "step_{}": {}}})", last_throughput, k % 5, k));
        ++tracked;
      } else {
        log += line(++now, fmt::format("key_{}", k), std::to_string(round), fmt::format(R"({{"epoch_num": {}}})", k));
        if (k == 1) ++key_1;
      }
    }
  }
  log += line(now + 60000, "run_stop", "null", R"({"status": "success"})");
  expect_same_runs(log, "llama2_70b_lora", options("5.1.0"));
  testing::TempFile file(log);
  const std::uint64_t matched_before = ThreadCache<MllogScanner>::get().shape_matches();
  mlperf::Run run = read_run(file.path(), "llama2_70b_lora", facts(), options("5.1.0"));
  EXPECT_GT(ThreadCache<MllogScanner>::get().shape_matches() - matched_before, 300u);  // shapes were used
  ASSERT_TRUE(run.last_throughput.has_value());
  EXPECT_EQ(*run.last_throughput, last_throughput);
  EXPECT_EQ(run.key_census.at("key_1").count, key_1);
  EXPECT_EQ(run.key_census.at("tracked_stats").count, tracked);
}

TEST(RunEventView, ThroughputHoweverTrackedStatsWritesIt) {
  // The last numeric value.throughput of tracked_stats, read by the fast path as the full
  // parser reads it: the sole member mlperf_logging writes, a member among others, a
  // repeated one (the last counts), and values that hold none (the earlier one stays).
  struct Case {
    const char* value;
    double throughput;
  };
  const Case cases[] = {
      {R"({"throughput": 12.5})", 12.5},
      {R"({"throughput": -1.5e-7})", -1.5e-7},
      {R"({"throughput":12.5E+2})", 1250.0},
      {R"({"throughput": 1, "throughput": 2})", 2.0},
      {R"({"step": 3, "throughput": 7})", 7.0},
      {R"({ "throughput" : 8 })", 8.0},
      {R"({"throughput": {"x": 9}})", 1.0},
      {R"({"throughput": "fast"})", 1.0},
      {R"({"note": "throughput"})", 1.0},
      {R"({"train_step_time": 0.5, "reduced_train_loss": 3.2})", 1.0},
      {R"({"throughputs": 4})", 1.0},
      {R"([12.5])", 1.0},
  };
  const long long t = 1760000060001;
  for (const auto& c : cases) {
    std::string log = head("llama2_70b_lora") + line(t + 1, "tracked_stats", R"({"throughput": 1.0})") +
                      line(t + 2, "tracked_stats", c.value) + line(t + 60000, "run_stop", "null", R"({"status": "success"})");
    expect_same_runs(log, "llama2_70b_lora", options("5.1.0"));
    testing::TempFile file(log);
    mlperf::Run run = read_run(file.path(), "llama2_70b_lora", facts(), options("5.1.0"));
    ASSERT_TRUE(run.last_throughput.has_value()) << c.value;
    EXPECT_EQ(*run.last_throughput, c.throughput) << c.value;
  }
}

TEST(RunEventView, StableDiffusionStepsAndBertTrainSamples) {
  std::string sd = head("stable_diffusion");
  const long long t = 1760000060001;
  for (int step = 1; step <= 4; ++step) {
    std::string meta = fmt::format(R"({{"samples_count": {}, "step_num": {}, "metric": "FID"}})", step * 1000, step);
    sd += line(t + step * 1000, "eval_accuracy", step == 3 ? "70.0" : "95", meta);
    meta = fmt::format(R"({{"samples_count": {}, "step_num": {}, "metric": "CLIP"}})", step * 1000, step);
    sd += line(t + step * 1000 + 1, "eval_accuracy", "0.2", meta);
    meta = fmt::format(R"({{"samples_count": {}, "step_num": {}, "metric": "C\u004cIP"}})", step * 1000, step);
    sd += line(t + step * 1000 + 2, "eval_accuracy", "0.1", meta);  // escaped name: the full parser's
  }
  sd += line(t + 600000, "run_stop", "null", R"({"status": "success"})");
  for (const char* ruleset : {"5.0.0", "3.1.0"}) expect_same_runs(sd, "stable_diffusion", options(ruleset));

  std::string bert = head("bert");
  bert += line(t + 1000, "eval_accuracy", "0.70", R"({"epoch_num": 1.23456})");
  bert += line(t + 2000, "train_samples", "2654208");
  bert += line(t + 3000, "eval_accuracy", "0.7205", R"({"epoch_num": 2.3465})");
  bert += line(t + 4000, "run_stop", "null", R"({"status": "success"})");
  for (bool option : {false, true}) expect_same_runs(bert, "bert", options("5.0.0", option));
}

TEST(RunEventView, BadAndUnusualLinesInAFile) {
  std::string log = head("llama2_70b_lora");
  const long long t = 1760000060001;
  log += line(t + 1, "eval_accuracy", "0.92", R"({"samples_count": 3072})");
  log += ":::MLLOG {\"time_ms\": 1, \"key\": \n";                                          // bad JSON
  log += ":::MLLOG {\"time_ms\": 1760000070000, \"key\": \"caf\xE9\"}\r\n";                   // Latin-1
  log += ":::MLLOG {\"time_ms\": 1760000070001, \"key\": \"\\u0072un_start\"}\n";             // escaped key
  log += "0: :::MLLOG {\"time_ms\": 9} :::MLLOG {\"time_ms\": 1760000070002, \"key\": \"x\"}\n";  // two tokens
  log += ":::MLLOG {\"time_ms\": 1e400, \"key\": \"x\"}\n";                                  // inf (Python)
  log += ":::MLLOG {\"time_ms\": 1e99999999999999999999, \"key\": \"x\"}x\n";               // bad JSON
  log += line(t + 20000, "run_stop", "null", R"({"status": "success"})");
  log += ":::MLLOG {\"time_ms\": 1760000090000, \"key\": \"after\"}";  // last line, no newline
  expect_same_runs(log, "llama2_70b_lora", options("5.1.0"));
  testing::TempFile file(log);
  mlperf::Run run = read_run(file.path(), "llama2_70b_lora", facts(), options("5.1.0"));
  EXPECT_EQ(run.parse_error_count, 2u);
  EXPECT_EQ(run.run_start_count, 2);  // "\u0072un_start" is run_start
  EXPECT_EQ(run.key_census.count("café"), 1u);
}

TEST(RunEventView, ManyRepeatedLinesKeepTheFirstAndLastMarks) {
  // The shape path on thousands of lines: census counts, first/last marks, the last
  // throughput and the convergence point come out as the full parser has them.
  std::string log = head("llama31_8b");
  long long t = 1760000060001;
  for (int i = 0; i < 3000; ++i) {
    log += line(t + i * 10, "tracked_stats", fmt::format("{{\"throughput\": {}}}", 30.0 + i * 0.001),
                fmt::format("{{\"step\": {}}}", i * 512));
    if (i % 100 == 99) {
      log += line(t + i * 10 + 1, "eval_accuracy", i == 2999 ? "3.29" : "3.5",
                  fmt::format("{{\"samples_count\": {}, \"epoch_num\": {}}}", i * 512, i / 1000.0));
    }
    if (i % 7 == 0) log += "[rank 3] progress " + std::to_string(i) + "\n";
  }
  log += line(t + 40000, "run_stop", "null", R"({"status": "success"})");
  expect_same_runs(log, "llama31_8b", options("5.1.0"));
}

}  // namespace
}  // namespace mlperf
