// The loadgen reader and the headline figure per scenario, on AMD's real v4.1 and v5.1 logs
// (data/examples) and on small logs written here for the cases AMD did not submit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "../test_support.h"
#include "mlperf/inference/score.h"
#include "mlperf/report/inference_report.h"

namespace mlperf::inference {
namespace {

namespace fs = std::filesystem;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;

const DataContext& data() { return testing::source_data(); }

fs::path v41(const std::string& scenario) {
  return source_dir() / "data/examples/inference_results_v4.1/closed/AMD/results/8xMI300X_2xEPYC-9374F/llama2-70b-99.9" /
         scenario;
}

fs::path v51(const std::string& system_model_scenario) {
  return source_dir() / "data/examples/inference_results_v5.1/closed/AMD/results" / system_model_scenario;
}

// Finds and scores the one scenario folder at or below `path`.
DirectoryResult score_one(const fs::path& path) {
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(path, errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(dirs.size(), 1u);
  if (dirs.size() != 1) return {};
  EXPECT_TRUE(dirs[0].loadgen.has_value());
  return score_inference_directory(dirs[0], data(), ScoreOptions{});
}

const ValidityCheck* check(const InferenceResult& r, const std::string& name) {
  for (const auto& c : r.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// One loadgen MLLOG line as loadgen writes it.
std::string event(const std::string& key, const std::string& value_json, bool is_error = false) {
  return ":::MLLOG {\"key\": \"" + key + "\", \"value\": " + value_json +
         ", \"time_ms\": 1.000000, \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", "
         "\"metadata\": {\"is_error\": " +
         (is_error ? "true" : "false") +
         ", \"is_warning\": false, \"file\": \"results.cc\", \"line_no\": 1, \"pid\": 7, \"tid\": 7}}\n";
}

// A valid run of `scenario` with `extra` events appended (later duplicates do not override).
std::string run_log(const std::string& scenario, const std::string& extra) {
  return event("loadgen_version", "\"5.1.0 @ 091d51f041\"") + event("effective_scenario", "\"" + scenario + "\"") +
         extra + event("effective_min_duration_ms", "600000") + event("effective_min_query_count", "1") +
         event("effective_samples_per_query", "8") + event("early_stopping_met", "true") +
         event("result_validity", "\"VALID\"") + event("num_errors", "0");
}

TEST(InferenceScenario, OfflineLlmReportsTokensPerSecondFromV41Logs) {
  DirectoryResult d = score_one(v41("Offline"));
  ASSERT_TRUE(d.inference);
  const InferenceResult& r = *d.inference;
  EXPECT_EQ(r.round, "v4.1");
  EXPECT_EQ(r.round_source, "path");
  EXPECT_EQ(r.scenario, "Offline");
  EXPECT_EQ(r.metric, "result_tokens_per_second");
  EXPECT_EQ(r.units, "Tokens/s");
  ASSERT_TRUE(r.performance_result);
  EXPECT_EQ(figure_text(*r.performance_result), "23514.8");
  EXPECT_TRUE(r.valid);
  EXPECT_TRUE(d.passed);
  EXPECT_EQ(d.division, "closed");
  EXPECT_EQ(d.dir.submitter, "AMD");
  EXPECT_EQ(d.dir.system, "8xMI300X_2xEPYC-9374F");
  EXPECT_EQ(d.platform.name, "MI300X");
  ASSERT_TRUE(r.expected);
  EXPECT_DOUBLE_EQ(r.expected->published, 23514.8);
  EXPECT_TRUE(r.expected->within_tolerance);
  EXPECT_LT(std::fabs(r.expected->delta_percent), 0.001);
}

TEST(InferenceScenario, ServerLlmReportsCompletedTokensAndTokenLatencies) {
  DirectoryResult d = score_one(v41("Server"));
  ASSERT_TRUE(d.inference);
  const InferenceResult& r = *d.inference;
  EXPECT_EQ(r.metric, "result_completed_tokens_per_second");
  EXPECT_EQ(figure_text(*r.performance_result), "21028.2");
  EXPECT_EQ(r.units, "Tokens/s");
  const ValidityCheck* ttft = check(r, "ttft_99_percentile_ns");
  ASSERT_NE(ttft, nullptr);
  EXPECT_TRUE(ttft->passed);
  EXPECT_EQ(ttft->value, 1604171041);
  EXPECT_EQ(ttft->limit, 2000000000);
  EXPECT_GT(ttft->line, 0u);
  const ValidityCheck* tpot = check(r, "tpot_99_percentile_ns");
  ASSERT_NE(tpot, nullptr);
  EXPECT_EQ(tpot->value, 197873909);
  EXPECT_EQ(tpot->limit, 200000000);
  EXPECT_NE(check(r, "early_stopping"), nullptr);
  EXPECT_NE(check(r, "server_target_latency_ns"), nullptr);
}

TEST(InferenceScenario, InteractiveIsAServerRunUnderTighterLimits) {
  DirectoryResult d = score_one(v51("8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive"));
  ASSERT_TRUE(d.inference);
  const InferenceResult& r = *d.inference;
  EXPECT_EQ(r.round, "v5.1");
  EXPECT_EQ(r.scenario, "Interactive");
  EXPECT_EQ(r.loadgen_scenario, "Server");
  EXPECT_FALSE(r.inferred);
  EXPECT_EQ(figure_text(*r.performance_result), "8840.42");
  EXPECT_EQ(r.units, "Tokens/s");
  EXPECT_EQ(check(r, "ttft_99_percentile_ns")->limit, 450000000);
  EXPECT_EQ(check(r, "tpot_99_percentile_ns")->limit, 40000000);
  EXPECT_TRUE(r.valid);
}

TEST(InferenceScenario, NonLlmOfflineIsSamplesAndServerIsQueriesPerSecond) {
  DirectoryResult offline = score_one(v51("8xMI325x_2xEPYC-9655/stable-diffusion-xl/Offline"));
  ASSERT_TRUE(offline.inference);
  EXPECT_EQ(offline.inference->metric, "result_samples_per_second");
  EXPECT_EQ(offline.inference->units, "Samples/s");
  EXPECT_EQ(figure_text(*offline.inference->performance_result), "18.5856");
  EXPECT_EQ(offline.platform.name, "MI325X");
  DirectoryResult server = score_one(v51("8xMI325x_2xEPYC-9655/stable-diffusion-xl/Server"));
  ASSERT_TRUE(server.inference);
  EXPECT_EQ(server.inference->metric, "result_completed_samples_per_sec");
  EXPECT_EQ(server.inference->units, "Queries/s");
  EXPECT_EQ(figure_text(*server.inference->performance_result), "16.2044");
}

TEST(InferenceScenario, SingleStreamAndMultiStreamAreEarlyStoppingLatenciesInMilliseconds) {
  TempDir tmp;
  fs::path base = tmp.path() / "inference_v5.1/closed/Org/results/sys/resnet50";
  write_file(base / "SingleStream/performance/run_1/mlperf_log_detail.txt",
             run_log("SingleStream", event("early_stopping_latency_ss", "513395")));
  write_file(base / "MultiStream/performance/run_1/mlperf_log_detail.txt",
             run_log("MultiStream", event("early_stopping_latency_ms", "1482812")));
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  ASSERT_EQ(dirs.size(), 2u);
  DirectoryResult ms = score_inference_directory(dirs[0], data(), ScoreOptions{});
  DirectoryResult ss = score_inference_directory(dirs[1], data(), ScoreOptions{});
  ASSERT_TRUE(ss.inference && ms.inference);
  EXPECT_EQ(ss.inference->scenario, "SingleStream");
  EXPECT_EQ(ss.inference->metric, "early_stopping_latency_ss");
  EXPECT_DOUBLE_EQ(*ss.inference->performance_result, 0.513395);
  EXPECT_EQ(ss.inference->units, "Latency (ms)");
  EXPECT_TRUE(ss.inference->lower_is_better);
  EXPECT_EQ(ms.inference->metric, "early_stopping_latency_ms");
  EXPECT_DOUBLE_EQ(*ms.inference->performance_result, 1.482812);
  EXPECT_EQ(ms.inference->units, "Latency (ms)");
  EXPECT_EQ(ms.inference->rules_model, "resnet");
}

// GPT-J's figures are read from tokens-per-second keys: they are in Tokens/s, not in the
// scenario's Samples/s or Queries/s.
TEST(InferenceScenario, GptjTokenFiguresAreInTokensPerSecond) {
  TempDir tmp;
  fs::path base = tmp.path() / "inference_v4.1/closed/Org/results/sys/gptj-99";
  write_file(base / "Offline/performance/run_1/mlperf_log_detail.txt",
             run_log("Offline", event("result_inferred_tokens_per_second", "2911.5") +
                                    event("result_samples_per_second", "21.3")));
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  ASSERT_EQ(dirs.size(), 1u);
  DirectoryResult d = score_inference_directory(dirs[0], data(), ScoreOptions{});
  ASSERT_TRUE(d.inference);
  EXPECT_EQ(d.inference->round, "v4.1");
  EXPECT_EQ(d.inference->metric, "result_inferred_tokens_per_second");
  EXPECT_DOUBLE_EQ(*d.inference->performance_result, 2911.5);
  EXPECT_EQ(d.inference->units, "Tokens/s");
}

TEST(InferenceScenario, ResultsInferredFromASingleStreamRun) {
  TempDir tmp;
  fs::path base = tmp.path() / "inference_v5.1/open/Org/results/edge/retinanet";
  std::string single = event("early_stopping_latency_ss", "2000000") + event("early_stopping_latency_ms", "3000000") +
                       event("result_qps_without_loadgen_overhead", "123.5");
  write_file(base / "MultiStream/performance/run_1/mlperf_log_detail.txt", run_log("SingleStream", single));
  write_file(base / "Offline/performance/run_1/mlperf_log_detail.txt", run_log("SingleStream", single));
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  ASSERT_EQ(dirs.size(), 2u);
  DirectoryResult ms = score_inference_directory(dirs[0], data(), ScoreOptions{});
  DirectoryResult off = score_inference_directory(dirs[1], data(), ScoreOptions{});
  // MultiStream from SingleStream: 8 samples per query × the early stopping latency.
  EXPECT_TRUE(ms.inference->inferred);
  EXPECT_DOUBLE_EQ(*ms.inference->performance_result, 3000000.0 * 8 / 1e6);
  EXPECT_EQ(ms.inference->units, "Latency (ms)");
  // Offline from SingleStream: queries per second without loadgen overhead.
  EXPECT_TRUE(off.inference->inferred);
  EXPECT_EQ(off.inference->metric, "result_qps_without_loadgen_overhead");
  EXPECT_DOUBLE_EQ(*off.inference->performance_result, 123.5);
  EXPECT_EQ(off.inference->units, "Samples/s");
}

// The results table's inferred column: up to v5.1 whether the figure was inferred from another
// scenario's run; from v6.0 (results.py) whether the folder's name differs as text from the
// log's effective_scenario, a "server" run of an "interactive" folder excepted. The v6.0
// package's CSV of the round so marks its 52 Interactive rows and its 45 lower-case folders.
TEST(InferenceScenario, TheTablesInferredColumnIsTheRoundCheckersOwn) {
  TempDir tmp;
  const std::string single = event("early_stopping_latency_ss", "2000000") +
                             event("early_stopping_latency_ms", "3000000") +
                             event("result_qps_without_loadgen_overhead", "123.5");
  const std::string offline = event("result_samples_per_second", "99.5");
  const std::string server = event("result_completed_samples_per_sec", "7.5");
  std::map<std::string, std::map<std::string, bool>> column;  // round → folder → inferred column
  std::map<std::string, std::map<std::string, bool>> figure;  // round → folder → inferred figure
  for (const std::string round : {"v5.1", "v6.0"}) {
    const fs::path base = tmp.path() / ("inference_" + round) / "open/Org/results/edge/retinanet";
    write_file(base / "Offline/performance/run_1/mlperf_log_detail.txt", run_log("Offline", offline));
    write_file(base / "Server/performance/run_1/mlperf_log_detail.txt", run_log("Server", server));
    write_file(base / "Interactive/performance/run_1/mlperf_log_detail.txt", run_log("Server", server));
    write_file(base / "multistream/performance/run_1/mlperf_log_detail.txt", run_log("SingleStream", single));
    write_file(base / "singlestream/performance/run_1/mlperf_log_detail.txt", run_log("SingleStream", single));
  }
  std::vector<DiscoveryError> errors;
  for (const auto& dir : find_benchmark_dirs(tmp.path(), errors)) {
    DirectoryResult d = score_inference_directory(dir, data(), ScoreOptions{});
    ASSERT_TRUE(d.inference);
    column[d.inference->round][dir.path.filename().string()] = d.inference->inferred_in_table;
    figure[d.inference->round][dir.path.filename().string()] = d.inference->inferred;
    EXPECT_EQ(inference_to_json(d)["inferred"], d.inference->inferred_in_table);
  }
  EXPECT_TRUE(errors.empty());
  const std::map<std::string, bool> by_figure = {{"Interactive", false}, {"Offline", false}, {"Server", false},
                                                 {"multistream", true},  {"singlestream", false}};
  EXPECT_EQ(figure["v5.1"], by_figure);
  EXPECT_EQ(figure["v6.0"], by_figure);
  EXPECT_EQ(column["v5.1"], by_figure);
  const std::map<std::string, bool> by_text = {{"Interactive", true}, {"Offline", false}, {"Server", false},
                                               {"multistream", true}, {"singlestream", true}};
  EXPECT_EQ(column["v6.0"], by_text);
}

// A published figure is the run's division's where the table has both: AMD's v6.1 dlrm-v3 on
// 8xMI355X_2xEPYC_9575F is 13027.7 samples/s in the closed division (summary.json row 4) and
// 16363.0 in the open one (row 476). A run outside the submission layout, of no division, meets
// the first row, the closed one.
TEST(InferenceScenario, APublishedFigureIsTheRunsDivisions) {
  TempDir tmp;
  const std::string offline = event("result_samples_per_second", "15000.5");
  for (const char* division : {"closed", "open"}) {
    write_file(tmp.path() / "inference_v6.1" / division /
                   "AMD/results/8xMI355X_2xEPYC_9575F/dlrm-v3/Offline/performance/run_1/mlperf_log_detail.txt",
               run_log("Offline", offline));
  }
  write_file(tmp.path() / "inference_v6.1/mine/8xMI355X_2xEPYC_9575F/dlrm-v3/Offline/mlperf_log_detail.txt",
             run_log("Offline", offline));
  std::map<std::string, double> published;  // division → published figure
  std::vector<DiscoveryError> errors;
  for (const auto& dir : find_benchmark_dirs(tmp.path(), errors)) {
    DirectoryResult d = score_inference_directory(dir, data(), ScoreOptions{});
    ASSERT_TRUE(d.inference) << dir.path;
    ASSERT_TRUE(d.inference->expected) << dir.path;
    EXPECT_EQ(d.inference->expected->units, "Samples/s");
    EXPECT_EQ(d.inference->expected->measured, 15000.5);
    published[d.division] = d.inference->expected->published;
  }
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(published, (std::map<std::string, double>{{"", 13027.7}, {"closed", 13027.7}, {"open", 16363.0}}));
}

TEST(InferenceValidity, EachFailedConditionCarriesValueLimitAndLine) {
  TempDir tmp;
  fs::path dir = tmp.path() / "inference_v5.1/closed/Org/results/sys/llama2-70b-99/Server";
  std::string log = event("loadgen_version", "\"5.1.0 @ 0\"") + event("effective_scenario", "\"Server\"") +
                    event("effective_min_duration_ms", "60000") + event("early_stopping_met", "false") +
                    event("early_stopping_result", "\"Processed too few queries\"") +
                    event("effective_target_latency_ns", "30000000000") +
                    event("result_first_token_99.00_percentile_latency_ns", "2500000000") +
                    event("result_time_per_output_token_99.00_percentile_ns", "150000000") +
                    event("error_invalid_config", "\"Multiple conf files are used\"", true) +
                    event("result_validity", "\"INVALID\"") +
                    event("result_completed_tokens_per_second", "1234.5");
  write_file(dir / "performance/run_1/mlperf_log_detail.txt", log);
  DirectoryResult d = score_one(tmp.path());
  ASSERT_TRUE(d.inference);
  const InferenceResult& r = *d.inference;
  EXPECT_FALSE(r.valid);
  EXPECT_FALSE(d.passed);
  EXPECT_DOUBLE_EQ(*r.performance_result, 1234.5);  // the figure is still reported
  EXPECT_FALSE(check(r, "result_validity")->passed);
  EXPECT_EQ(check(r, "result_validity")->line, 10u);
  const ValidityCheck* duration = check(r, "min_duration");
  EXPECT_FALSE(duration->passed);
  EXPECT_EQ(duration->value, 60000);
  EXPECT_EQ(duration->limit, 600000);
  EXPECT_EQ(duration->line, 3u);
  // v5.1's checker logs an early-stopping condition not met without failing the run: a warning.
  EXPECT_EQ(check(r, "early_stopping"), nullptr);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("Processed too few queries"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("mlperf_log_detail.txt:4:"), std::string::npos) << r.warnings[0];
  EXPECT_FALSE(check(r, "server_target_latency_ns")->passed);
  EXPECT_EQ(check(r, "server_target_latency_ns")->limit, 20000000000LL);
  EXPECT_FALSE(check(r, "ttft_99_percentile_ns")->passed);
  EXPECT_TRUE(check(r, "tpot_99_percentile_ns")->passed);
  const ValidityCheck* errors = check(r, "loadgen_errors");
  EXPECT_FALSE(errors->passed);
  EXPECT_EQ(errors->value, 1);
  EXPECT_NE(errors->message.find("line 9: Multiple conf files are used"), std::string::npos);
}

// The run's settings the submission checker holds to the round's: the three RNG seeds, the
// performance sample count, equal-issue mode and token latencies (check_performance_dir).
std::string settings(const std::string& schedule_seed, const std::string& sample_count, const std::string& permutation,
                     const std::string& token_latencies) {
  return event("effective_qsl_rng_seed", "1780908523862526354") +
         event("effective_sample_index_rng_seed", "14771362308971278857") +
         event("effective_schedule_rng_seed", schedule_seed) +
         event("effective_performance_sample_count", sample_count) +
         event("effective_sample_concatenate_permutation", permutation) +
         event("requested_use_token_latencies", token_latencies) + event("result_tokens_per_second", "100.5") +
         event("effective_samples_per_query", "24576");
}

TEST(InferenceValidity, SeedsSampleCountEqualIssueAndTokenLatenciesAreTheRoundsOwn) {
  TempDir tmp;
  fs::path base = tmp.path() / "inference_results_v5.1/closed/Org/results/sys/llama2-70b-99";
  write_file(base / "Offline/performance/run_1/mlperf_log_detail.txt",
             run_log("Offline", settings("18209322760996052031", "24576", "true", "true")));
  write_file(base / "Offline/performance/run_1/mlperf_log_summary.txt", "Result is : VALID\n");
  // The accuracy run and the TEST06 the checker requires beside it: AMD's real ones of this model.
  fs::copy(v51("8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline") / "accuracy", base / "Offline/accuracy",
           fs::copy_options::recursive);
  write_file(tmp.path() / "inference_results_v5.1/closed/Org/compliance/sys/llama2-70b-99/Offline/TEST06/verify_accuracy.txt",
             testing::read_file(source_dir() / "data/examples/inference_results_v5.1/closed/AMD/compliance/"
                                               "8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline/TEST06/verify_accuracy.txt"));
  testing::complete_inference_submission(tmp.path() / "inference_results_v5.1/closed/Org", "sys", "llama2-70b-99",
                                         {"Offline", "Server"});
  DirectoryResult good = score_one(base / "Offline");
  ASSERT_TRUE(good.inference);
  for (const char* name : {"qsl_rng_seed", "sample_index_rng_seed", "schedule_rng_seed", "performance_sample_count",
                           "equal_issue_mode", "token_latencies"}) {
    ASSERT_NE(check(*good.inference, name), nullptr) << name;
    EXPECT_TRUE(check(*good.inference, name)->passed) << name;
  }
  EXPECT_EQ(check(*good.inference, "sample_index_rng_seed")->value, 14771362308971278857ULL);  // beyond int64
  EXPECT_TRUE(good.inference->valid);

  write_file(base / "Server/performance/run_1/mlperf_log_detail.txt",
             run_log("Offline", settings("18209322760996052030", "1000", "false", "false")));
  DirectoryResult bad = score_one(base / "Server");
  ASSERT_TRUE(bad.inference);
  const InferenceResult& r = *bad.inference;
  EXPECT_FALSE(r.valid);
  const ValidityCheck* seed = check(r, "schedule_rng_seed");
  EXPECT_FALSE(seed->passed);
  EXPECT_EQ(seed->value, 18209322760996052030ULL);
  EXPECT_EQ(seed->limit, 18209322760996052031ULL);
  EXPECT_EQ(seed->line, 5u);
  EXPECT_TRUE(check(r, "qsl_rng_seed")->passed);
  const ValidityCheck* count = check(r, "performance_sample_count");
  EXPECT_FALSE(count->passed);
  EXPECT_EQ(count->value, 1000);
  EXPECT_EQ(count->limit, 24576);
  EXPECT_EQ(count->line, 6u);
  EXPECT_FALSE(check(r, "equal_issue_mode")->passed);
  EXPECT_EQ(check(r, "equal_issue_mode")->line, 7u);
  EXPECT_FALSE(check(r, "token_latencies")->passed);
  EXPECT_EQ(check(r, "token_latencies")->message, "an LLM run must log token latencies (use_token_latencies)");
}

// The rules are the round's: v5.0 asks equal-issue mode of llama2-70b-99.9 in the closed and
// network divisions only; v4.1's checker decides it from files outside the log (no check
// here); v6.0 has its own seeds and no equal-issue rule.
TEST(InferenceValidity, EachRoundHasItsOwnSettingsRules) {
  TempDir tmp;
  const std::string off = event("effective_sample_concatenate_permutation", "false");
  for (const char* where : {"inference_results_v5.0/closed", "inference_results_v5.0/open", "inference_results_v4.1/closed"}) {
    write_file(tmp.path() / where / "Org/results/sys/llama2-70b-99.9/Offline/performance/run_1/mlperf_log_detail.txt",
               run_log("Offline", off + event("effective_schedule_rng_seed", "9933818062894767841")));
  }
  write_file(tmp.path() / "inference_results_v6.0/closed/Org/results/sys/llama2-70b-99/Offline/performance/run_1/"
                          "mlperf_log_detail.txt",
             run_log("Offline", off));
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  ASSERT_EQ(dirs.size(), 4u);
  std::vector<DirectoryResult> r;
  for (const auto& d : dirs) r.push_back(score_inference_directory(d, data(), ScoreOptions{}));
  // v4.1 closed, v5.0 closed, v5.0 open, v6.0 closed
  EXPECT_EQ(r[0].inference->round, "v4.1");
  EXPECT_EQ(check(*r[0].inference, "equal_issue_mode"), nullptr);
  EXPECT_FALSE(check(*r[0].inference, "schedule_rng_seed")->passed);  // v5.0's seed in a v4.1 run
  ASSERT_NE(check(*r[1].inference, "equal_issue_mode"), nullptr);
  EXPECT_FALSE(check(*r[1].inference, "equal_issue_mode")->passed);
  EXPECT_TRUE(check(*r[1].inference, "schedule_rng_seed")->passed);
  EXPECT_EQ(check(*r[2].inference, "equal_issue_mode"), nullptr);
  EXPECT_EQ(r[3].inference->round, "v6.0");
  EXPECT_EQ(check(*r[3].inference, "equal_issue_mode"), nullptr);
  EXPECT_EQ(check(*r[3].inference, "qsl_rng_seed")->limit, 2465351861681999779ULL);
  EXPECT_EQ(check(*r[3].inference, "performance_sample_count")->limit, 24576);
}

// A TEST05 compliance run uses other seeds than the performance run: check_performance_dir
// holds a log whose path names TEST05 to the round's test05_seeds (v4.1, v5.0), every other
// log to the round's seeds. v5.1 has no TEST05 seeds, so there the round's seeds stay.
TEST(InferenceValidity, ATest05RunIsHeldToTheRoundsTest05Seeds) {
  TempDir tmp;
  const std::string test05_seeds = event("effective_qsl_rng_seed", "16799458546791641818") +
                                   event("effective_sample_index_rng_seed", "5453809927556429288") +
                                   event("effective_schedule_rng_seed", "5435552105434836064");
  const std::string round_seeds = event("effective_qsl_rng_seed", "3066443479025735752") +
                                  event("effective_sample_index_rng_seed", "10688027786191513374") +
                                  event("effective_schedule_rng_seed", "14962580496156340209");
  const fs::path test05 = tmp.path() / "compliance/sys/resnet/Offline/TEST05/performance/run_1";
  const fs::path test01 = tmp.path() / "compliance/sys/resnet/Offline/TEST01/performance/run_1";
  const InferenceRules& rules = data().inference().rules;
  const KeySet keys = rules.keys_read();
  auto seeds_passed = [&](const fs::path& dir, const std::string& seeds, const std::string& round) {
    write_file(dir / kDetailLogName, run_log("Offline", seeds));
    InferenceResult r = score_loadgen_run(read_detail_log(dir / kDetailLogName, keys), rules, round, "resnet",
                                          "Offline", "closed");
    std::vector<bool> passed;
    for (const char* name : {"qsl_rng_seed", "sample_index_rng_seed", "schedule_rng_seed"}) {
      const ValidityCheck* c = check(r, name);
      EXPECT_NE(c, nullptr) << name;
      passed.push_back(c && c->passed);
      if (c && !c->passed) {
        EXPECT_NE(c->message.find(round == "v4.1" && dir == test05 ? "round's TEST05 seed" : "round's seed"),
                  std::string::npos)
            << c->message;
      }
    }
    return passed;
  };
  const std::vector<bool> all{true, true, true}, none{false, false, false};
  EXPECT_EQ(seeds_passed(test05, test05_seeds, "v4.1"), all);
  EXPECT_EQ(seeds_passed(test05, round_seeds, "v4.1"), none);
  EXPECT_EQ(seeds_passed(test01, round_seeds, "v4.1"), all);
  EXPECT_EQ(seeds_passed(test01, test05_seeds, "v4.1"), none);
  EXPECT_EQ(seeds_passed(test05, test05_seeds, "v5.0"), all);
  EXPECT_EQ(seeds_passed(test05, test05_seeds, "v5.1"), none);  // v5.1 has no TEST05 seeds
  EXPECT_EQ(rules.rounds.at("v4.1").test05_seeds.at("schedule_rng_seed"), 5435552105434836064ULL);
  EXPECT_TRUE(rules.rounds.at("v5.1").test05_seeds.empty());
}

// An open-division folder named for a variant of a model is judged against that model's
// accuracy target: get_mlperf_model guesses "bert-99" from "bert-base-pruned90-none-bert-99"
// (NeuralMagic's v4.1 folder, its real accuracy line). The open division accepts the miss.
TEST(InferenceAccuracy, AnOpenFolderNamedForAModelVariantTakesThatModelsTarget) {
  TempDir tmp;
  const fs::path dir =
      tmp.path() / "inference_results_v4.1/open/Org/results/sys/bert-base-pruned90-none-bert-99/Offline";
  write_file(dir / "performance/run_1/mlperf_log_detail.txt",
             run_log("Offline", event("result_samples_per_second", "120.5")));
  write_file(dir / "accuracy/accuracy.txt",
             "{\"exact_match\": 81.27719962157049, \"f1\": 88.42042174998099}\nhash=0\n");
  DirectoryResult d = score_one(dir);
  ASSERT_TRUE(d.inference && d.inference->accuracy);
  const AccuracyResult& a = *d.inference->accuracy;
  const ValidityCheck* f1 = nullptr;
  for (const auto& c : a.checks) {
    if (c.name == "F1") f1 = &c;
    EXPECT_EQ(c.message.find("no accuracy target"), std::string::npos) << c.message;
  }
  ASSERT_NE(f1, nullptr);
  EXPECT_FALSE(f1->passed);
  EXPECT_EQ(f1->value, 88.42042174998099) << f1->limit;
  EXPECT_NE(f1->limit.dump().find("89.96526"), std::string::npos) << f1->limit;
  EXPECT_TRUE(a.valid);  // accepted for open
}

// The system description says whether the system is over the network (is_network, a string):
// never in the closed division, always in the network one, whose SUT name says "Network SUT".
TEST(InferenceValidity, NetworkModeFollowsTheDivision) {
  TempDir tmp;
  fs::path root = tmp.path() / "inference_results_v5.1";
  for (const char* division : {"closed", "network", "open"}) {
    write_file(root / division / "Org/systems/sys.json", R"({"accelerator_model_name": "X", "is_network": "True"})");
    write_file(root / division / "Org/results/sys/resnet50/Offline/performance/run_1/mlperf_log_detail.txt",
               run_log("Offline", event("sut_name", "\"PySUT\"")));
  }
  write_file(root / "closed/Org2/systems/sys.json", R"({"accelerator_model_name": "X", "is_network": true})");
  write_file(root / "closed/Org2/results/sys/resnet50/Offline/performance/run_1/mlperf_log_detail.txt",
             run_log("Offline", ""));
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  ASSERT_EQ(dirs.size(), 4u);
  std::vector<DirectoryResult> r;
  for (const auto& d : dirs) r.push_back(score_inference_directory(d, data(), ScoreOptions{}));
  // closed/Org, closed/Org2, network/Org, open/Org
  const ValidityCheck* closed = check(*r[0].inference, "network_mode");
  ASSERT_NE(closed, nullptr);
  EXPECT_FALSE(closed->passed);
  EXPECT_EQ(closed->value, true);
  EXPECT_EQ(closed->limit, false);
  EXPECT_FALSE(r[0].inference->valid);
  EXPECT_FALSE(check(*r[1].inference, "network_mode")->passed);  // not a string: the official check stops
  EXPECT_NE(check(*r[1].inference, "network_mode")->message.find("is_network is not a string"), std::string::npos);
  EXPECT_TRUE(check(*r[2].inference, "network_mode")->passed);
  const ValidityCheck* sut = check(*r[2].inference, "network_sut_name");
  ASSERT_NE(sut, nullptr);
  EXPECT_FALSE(sut->passed);
  EXPECT_EQ(sut->value, "PySUT");
  EXPECT_EQ(sut->line, 3u);
  EXPECT_EQ(check(*r[3].inference, "network_mode"), nullptr);  // open: either
  EXPECT_FALSE(check(*r[3].inference, "network_sut_name")->passed);
}

TEST(InferenceRules, V60WanSingleStreamIsInSeconds) {
  TempDir tmp;
  fs::path dir = tmp.path() / "inference_v6.0/closed/Org/results/sys/wan-2.2-t2v-a14b/SingleStream";
  write_file(dir / "performance/run_1/mlperf_log_detail.txt",
             run_log("SingleStream", event("early_stopping_latency_ss", "12345678901")));
  DirectoryResult d = score_one(tmp.path());
  ASSERT_TRUE(d.inference);
  EXPECT_EQ(d.inference->round, "v6.0");
  EXPECT_EQ(d.inference->units, "Latency (s)");
  EXPECT_DOUBLE_EQ(*d.inference->performance_result, 12.345678901);
  EXPECT_EQ(check(*d.inference, "performance_sample_count")->limit, 50);
}

TEST(InferenceValidity, AMissingKeyFailsItsCheckAndAMalformedLineIsAnInputError) {
  TempDir tmp;
  fs::path dir = tmp.path() / "sys/resnet50/Offline";
  // A v5.1 loadgen: that round's checker fails a run whose result_validity is not VALID (from
  // v6.0 it only warns).
  write_file(dir / "performance/run_1/mlperf_log_detail.txt",
             event("loadgen_version", "\"5.1.0\"") + event("effective_scenario", "\"Offline\"") +
                 ":::MLLOG {\"key\": \"result_validity\", \"value\": \n" + event("effective_min_duration_ms", "600000"));
  DirectoryResult d = score_one(tmp.path());
  ASSERT_TRUE(d.inference);
  EXPECT_EQ(d.inference->round, "v5.1");
  EXPECT_FALSE(d.inference->performance_result);
  ASSERT_NE(check(*d.inference, "performance_result"), nullptr);
  EXPECT_FALSE(check(*d.inference, "performance_result")->passed);
  EXPECT_EQ(check(*d.inference, "performance_result")->message, "result_samples_per_second is not in the log");
  ASSERT_NE(check(*d.inference, "result_validity"), nullptr);
  EXPECT_FALSE(check(*d.inference, "result_validity")->passed);
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_NE(d.errors[0].find("mlperf_log_detail.txt:3: "), std::string::npos) << d.errors[0];
}

// The keys the rules read are found by a view of their text; a key that differs anywhere (its
// middle included, which the hash does not read) is not; and no two of them hash alike.
TEST(InferenceDetailLog, WantedKeysAreFoundByTheirTextAlone) {
  const KeySet keys = data().inference().rules.keys_read();
  ASSERT_GT(keys.size(), 25u);
  std::set<std::size_t> hashes;
  for (const std::string& key : keys) {
    EXPECT_EQ(keys.count(std::string_view(key)), 1u) << key;
    hashes.insert(KeyHash{}(key));
    std::string other = key;
    other[other.size() / 2] ^= 0x20;
    EXPECT_EQ(keys.count(std::string_view(other)), 0u) << other;
    EXPECT_EQ(keys.count(std::string_view(key).substr(0, key.size() - 1)), 0u) << key;
    EXPECT_EQ(keys.count(key + "x"), 0u) << key;
  }
  EXPECT_EQ(hashes.size(), keys.size());
  EXPECT_EQ(keys.count(std::string_view()), 0u);
  EXPECT_EQ(keys.count(std::string_view("num")), 0u);
}

TEST(InferenceDetailLog, UnwantedLinesAreSkippedByTheirMetadataFlagOnly) {
  // Lines of keys nobody reads are skipped when metadata says is_error false, whatever their
  // value holds; an error line of any key is counted; a wanted key keeps its first value.
  TempDir tmp;
  const std::string nested = event("noise", R"({"is_error": true, "x": "a:b"})");
  const std::string unwanted_error = event("error_runtime", "\"Ran out of samples\"", true);
  const std::string text = event("result_validity", "\"VALID\"") + nested + unwanted_error +
                           event("result_validity", "\"INVALID\"") +
                           ":::MLLOG {\"key\": \"noise\", \"value\": [1, 2, \"metadata\": {\"is_error\": false}}\n" +
                           ":::MLLOG {\"key\": \"num_errors\", \"value\": 0, broken\n";
  write_file(tmp.path() / kDetailLogName, text);
  KeySet wanted = {"result_validity", "num_errors"};
  LoadgenLog log = read_detail_log(tmp.path() / kDetailLogName, wanted);
  EXPECT_EQ(log.error_events, 1u);
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].line, 3u);
  EXPECT_EQ(log.errors[0].message, "Ran out of samples");
  EXPECT_EQ(log.text("result_validity"), "VALID");
  EXPECT_EQ(log.line("result_validity"), 1u);
  // The malformed unwanted line ends like a usual one: skipped, not validated. The malformed
  // wanted one is a parse error naming its line.
  ASSERT_EQ(log.parse_errors.size(), 1u);
  EXPECT_EQ(log.parse_errors[0].line, 6u);
  EXPECT_FALSE(log.values.count("num_errors"));
  // Not knowing the key (none wanted), every usual line is skipped but the error line.
  LoadgenLog none = read_detail_log(tmp.path() / kDetailLogName, KeySet{});
  EXPECT_EQ(none.error_events, 1u);
  EXPECT_TRUE(none.values.empty());
}

TEST(InferenceDetailLog, LogsReadOneAfterAnotherGiveWhatEachGivesAlone) {
  // A thread remembers the shapes of the wanted lines from log to log (and whether a shape
  // flags an error): lines that differ in their numbers, their flag or their strings are read
  // as they are, whichever log came first.
  TempDir tmp;
  const std::string errors_first = event("num_errors", "3", true) + event("result_validity", "\"VALID\"");
  const std::string errors_later = event("num_errors", "0") + event("result_validity", "\"INVALID\"") +
                                   event("num_errors", "12", true);
  const std::string flag_as_number =
      ":::MLLOG {\"key\": \"num_errors\", \"value\": 5, \"time_ms\": 2.5, \"namespace\": \"mlperf::logging\", "
      "\"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": 1, \"is_warning\": false}}\n";
  write_file(tmp.path() / "a.txt", errors_first);
  write_file(tmp.path() / "b.txt", errors_later);
  write_file(tmp.path() / "c.txt", flag_as_number + flag_as_number);
  KeySet wanted = {"result_validity", "num_errors"};
  for (int round = 0; round < 3; ++round) {
    LoadgenLog a = read_detail_log(tmp.path() / "a.txt", wanted);
    EXPECT_EQ(a.error_events, 1u);
    EXPECT_EQ(a.number("num_errors"), 3.0);
    EXPECT_EQ(a.text("result_validity"), "VALID");
    LoadgenLog b = read_detail_log(tmp.path() / "b.txt", wanted);
    EXPECT_EQ(b.error_events, 1u);
    ASSERT_EQ(b.errors.size(), 1u);
    EXPECT_EQ(b.errors[0].line, 3u);
    EXPECT_EQ(b.number("num_errors"), 0.0);
    EXPECT_EQ(b.text("result_validity"), "INVALID");
    LoadgenLog c = read_detail_log(tmp.path() / "c.txt", wanted);
    EXPECT_EQ(c.error_events, 0u);
    EXPECT_EQ(c.number("num_errors"), 5.0);
    EXPECT_EQ(c.line("num_errors"), 1u);
  }
}

TEST(InferenceSummaryLog, WithoutADetailLogTheSummaryIsRead) {
  TempDir tmp;
  fs::path dir = tmp.path() / "inference_results_v4.1/closed/AMD/results/8xMI300X_2xEPYC-9374F/llama2-70b-99.9/Server";
  write_file(dir / "performance/run_1/mlperf_log_summary.txt",
             testing::read_file(v41("Server") / "performance/run_1/mlperf_log_summary.txt"));
  fs::copy(v41("Server") / "accuracy", dir / "accuracy", fs::copy_options::recursive);
  const std::string test06 = "compliance/8xMI300X_2xEPYC-9374F/llama2-70b-99.9/Server/TEST06/verify_accuracy.txt";
  write_file(tmp.path() / "inference_results_v4.1/closed/AMD" / test06,
             testing::read_file(source_dir() / "data/examples/inference_results_v4.1/closed/AMD" / test06));
  DirectoryResult d = score_one(tmp.path());
  ASSERT_TRUE(d.inference);
  const InferenceResult& r = *d.inference;
  EXPECT_TRUE(r.from_summary);
  EXPECT_EQ(r.loadgen_scenario, "Server");
  EXPECT_DOUBLE_EQ(*r.performance_result, 21028.23);  // the summary's two decimals
  EXPECT_EQ(r.units, "Tokens/s");
  EXPECT_TRUE(check(r, "result_validity")->passed);
  EXPECT_TRUE(check(r, "early_stopping")->passed);
  EXPECT_EQ(check(r, "min_duration")->value, 600000);
  EXPECT_EQ(check(r, "loadgen_errors"), nullptr);  // the summary does not list them
  EXPECT_EQ(check(r, "ttft_99_percentile_ns")->value, 1604171041);
  // The summary's "Test Parameters Used" hold the seeds and the sample count, not the
  // equal-issue or token-latency settings (those are judged from a detail log only).
  EXPECT_TRUE(check(r, "qsl_rng_seed")->passed);
  EXPECT_EQ(check(r, "performance_sample_count")->value, 24576);
  EXPECT_EQ(check(r, "equal_issue_mode"), nullptr);
  EXPECT_EQ(check(r, "token_latencies"), nullptr);
  // Every condition read from the summary holds; the folder still lacks the detail log the
  // checker requires (REQUIRED_PERF_FILES).
  for (const auto& c : r.checks) EXPECT_TRUE(c.passed || c.name == "performance_files") << c.name;
  EXPECT_EQ(check(r, "performance_files")->value["missing"], nlohmann::json({"mlperf_log_detail.txt"}));
  EXPECT_FALSE(r.valid);
}

TEST(InferenceDiscovery, ATreeMayHoldTrainingAndInferenceAndBareLoadgenFolders) {
  TempDir tmp;
  fs::copy(source_dir() / "data/examples", tmp.path() / "examples", fs::copy_options::recursive);
  write_file(tmp.path() / "harness/llama2-70b-99/Offline/mlperf_log_detail.txt",
             run_log("Offline", event("result_tokens_per_second", "1000.5")));
  // A compliance run below a scenario folder is not a result of its own.
  write_file(tmp.path() / "examples/inference_results_v4.1/closed/AMD/results/8xMI300X_2xEPYC-9374F/llama2-70b-99.9/"
                          "Offline/TEST06/performance/run_1/mlperf_log_detail.txt",
             "");
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  EXPECT_TRUE(errors.empty());
  int training = 0, inference = 0;
  for (const auto& d : dirs) (d.loadgen ? inference : training)++;
  EXPECT_EQ(training, 7);
  EXPECT_EQ(inference, 10);
  auto it = std::find_if(dirs.begin(), dirs.end(), [](const BenchmarkDir& d) { return d.loadgen && d.loadgen->bare; });
  ASSERT_NE(it, dirs.end());
  const BenchmarkDir& bare = *it;
  EXPECT_TRUE(bare.loadgen->bare);
  DirectoryResult r = score_inference_directory(bare, data(), ScoreOptions{});
  ASSERT_TRUE(r.inference);
  EXPECT_EQ(r.inference->model, "llama2-70b-99");  // from the folder names above the logs
  EXPECT_EQ(r.inference->scenario, "Offline");
  EXPECT_EQ(r.inference->round_source, "loadgen_version");
  EXPECT_DOUBLE_EQ(*r.inference->performance_result, 1000.5);
  EXPECT_EQ(r.inference->units, "Tokens/s");
}

TEST(InferenceDiscovery, DivisionAndRoundComeFromTheFolderMadeAbsolute) {
  // Given as a path relative to the current folder: the division and the round still come
  // from the whole path (inference_results_v5.1/closed/…), as discovery made it absolute.
  const fs::path round = source_dir() / "data/examples/inference_results_v5.1";
  auto r = testing::run_command("cd " + testing::q(round) + " && " + testing::binary() +
                                " score --format json closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 3u);
  for (const auto& result : doc["results"]) {
    EXPECT_EQ(result["division"], "closed");
    EXPECT_EQ(result["round"], "v5.1");
    EXPECT_EQ(result["round_source"], "path");
    EXPECT_EQ(result["directory"].get<std::string>().rfind("closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/", 0), 0u);
  }
}

TEST(InferenceRulesData, LoadgenVersionsAndPathsNameRounds) {
  EXPECT_EQ(round_from_loadgen_version("5.1.0 @ 091d51f041"), "v5.1");
  EXPECT_EQ(round_from_loadgen_version("4.1 @ 379ee5345a"), "v4.1");
  EXPECT_EQ(round_from_loadgen_version("unknown"), std::nullopt);
  EXPECT_EQ(round_from_path("/x/inference_results_v4.1/closed"), "v4.1");
  EXPECT_EQ(round_from_path("/tmp/inference_v5.1/closed"), "v5.1");
  EXPECT_EQ(round_from_path("/tmp/results"), std::nullopt);
  // The text form discovery uses gives the same, the last naming component winning.
  for (const char* path : {"/x/inference_results_v4.1/closed", "/tmp/inference_v5.1/closed", "/tmp/results", "/",
                           "/inference_v4.1/inference_results_v5.1/x", "/inference_v5.1", "/a/inference_vX/b"}) {
    EXPECT_EQ(round_from_absolute_path(path), round_from_path(path)) << path;
  }
  EXPECT_EQ(round_from_absolute_path("/inference_v4.1/inference_results_v5.1/x"), "v5.1");
  const InferenceRules& rules = data().inference().rules;
  EXPECT_EQ(rules.model_of("llama3_1-405b_pruned"), "llama3.1-405b");
  EXPECT_EQ(rules.model_of("llama2-70b-99"), "llama2-70b-99");
  EXPECT_EQ(rules.rounds.at("v5.1").model_result_keys.at("whisper").at("Offline"), "result_tokens_per_second");
}

TEST(InferenceCompare, ALatencyIsBetterLower) {
  DirectoryResult a, b;
  auto ra = std::make_shared<InferenceResult>(), rb = std::make_shared<InferenceResult>();
  ra->performance_result = 2.0;
  rb->performance_result = 1.0;
  ra->units = rb->units = "Latency (ms)";
  ra->lower_is_better = rb->lower_is_better = true;
  a.inference = ra;
  b.inference = rb;
  EXPECT_DOUBLE_EQ(*speedup(a, b), 2.0);  // half the latency: twice as good
  auto ta = std::make_shared<InferenceResult>(*ra), tb = std::make_shared<InferenceResult>(*rb);
  ta->units = tb->units = "Samples/s";
  ta->lower_is_better = tb->lower_is_better = false;
  a.inference = ta;
  b.inference = tb;
  EXPECT_DOUBLE_EQ(*speedup(a, b), 0.5);  // half the throughput
}

}  // namespace
}  // namespace mlperf::inference
