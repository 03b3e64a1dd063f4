// Reading MLPerf endpoints runs (endpoints_log.h). Every expected key and value is what the
// package's EndpointsParser (mlcommons/inference bfc0da57, parsers/endpoints_parser.py) puts in
// its messages for the same files under Python 3.11 and PyYAML 6.0: NVIDIA's published v6.1 runs
// (tests/data/inference/package_v6.1_nvidia.tar.gz) and small folders written here. The
// package's verdicts on whole submissions are in package_round_test.cc.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "../test_support.h"
#include "mlperf/inference/accuracy.h"
#include "mlperf/inference/compliance_tests.h"
#include "mlperf/inference/endpoints_log.h"
#include "mlperf/inference/result.h"

namespace mlperf::inference {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const EndpointsRules& v61_rules() {
  static const InferenceRules rules = InferenceRules::load(testing::source_dir() / "configs/inference_rules.json");
  return *rules.rounds.at("v6.1").endpoints;
}

// The values read, as one JSON object (key → value).
nlohmann::json values_of(const LoadgenLog& log) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : log.values) out[key] = nlohmann::json::parse(value.json);
  return out;
}

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

TEST(EndpointsLog, NvidiasPublishedRunsReadAsTheParserReadsThem) {
  TempDir tmp;
  auto r = testing::run_command("tar -xzf " + testing::q(testing::source_dir() / "tests/data/inference/package_v6.1_nvidia.tar.gz") +
                                " -C " + testing::q(tmp.path()));
  ASSERT_EQ(r.status, 0) << r.out;
  const fs::path nv = tmp.path() / "inference_results_v6.1/closed/NVIDIA/results/VR-NVL72_VR-288GB_aarch64x72_TRT";
  const struct {
    const char* folder;
    EndpointsLogType type;
    const char* expected;
  } runs[] = {
      {"deepseek-r1/Server", EndpointsLogType::Performance, R"json({"effective_max_duration_ms": 3600000, "effective_min_duration_ms": 1800000, "effective_min_query_count": 600000, "effective_sample_index_rng_seed": 2747215439041700203, "effective_scenario": "online", "effective_schedule_rng_seed": 16159082839903944936, "effective_target_qps": 325.0, "generated_query_count": 600000, "generated_query_duration": 2318929756903, "load_pattern": "poisson", "loadgen_version": "1.0", "max_output_tokens": 20044, "mean_output_tokens": 3792.1574983333335, "min_output_tokens": 118, "num_errors": 0, "qsl_reported_performance_count": 600000, "qsl_reported_total_count": 600000, "result_50.00_percentile_latency_ns": 80452391472.0, "result_90.00_percentile_latency_ns": 374499963679.0, "result_95.00_percentile_latency_ns": 524535307469.0, "result_99.00_percentile_latency_ns": 788341844995.0, "result_99.90_percentile_latency_ns": 897200287878.0, "result_completed_samples_per_sec": 310.0842360889801, "result_completed_tokens_per_second": 1175890.2208168241, "result_first_token_50.00_percentile_latency_ns": 205659039.0, "result_first_token_90.00_percentile_latency_ns": 253530764.0, "result_first_token_95.00_percentile_latency_ns": 267652586.0, "result_first_token_99.00_percentile_latency_ns": 304652135.0, "result_first_token_99.90_percentile_latency_ns": 1963716220.0, "result_first_token_max_latency_ns": 3580104964, "result_first_token_mean_latency_ns": 212027041.10530335, "result_first_token_min_latency_ns": 101079232, "result_max_latency_ns": 916647870064, "result_mean_latency_ns": 146920827636.88177, "result_min_latency_ns": 2297489847, "result_query_count": 600000, "result_time_per_output_token_50.00_percentile_ns": 41129902.78736886, "result_time_per_output_token_90.00_percentile_ns": 46291022.58957196, "result_time_per_output_token_95.00_percentile_ns": 47413898.55315146, "result_time_per_output_token_99.00_percentile_ns": 48224073.2417795, "result_time_per_output_token_99.90_percentile_ns": 48799846.40378549, "result_time_per_output_token_max": 51854868.234604105, "result_time_per_output_token_mean": 38692874.130177036, "result_time_per_output_token_min": 11184951.376404494, "result_tokens_per_second": 1175890.2208168241, "streaming": "on", "test_datetime": 0})json"},
      {"qwen3-vl-235b-a22b/Offline", EndpointsLogType::Performance, R"json({"effective_max_duration_ms": 0, "effective_min_duration_ms": 600000, "effective_min_query_count": 1738404, "effective_sample_index_rng_seed": 2747215439041700203, "effective_scenario": "offline", "effective_schedule_rng_seed": 16159082839903944936, "generated_query_count": 1738404, "generated_query_duration": 726545539185, "load_pattern": "max_throughput", "loadgen_version": "1.0", "max_output_tokens": 150, "mean_output_tokens": 42.931579195630015, "min_output_tokens": 22, "num_errors": 0, "qsl_reported_performance_count": 1738404, "qsl_reported_total_count": 1738404, "result_50.00_percentile_latency_ns": 132112298601.0, "result_90.00_percentile_latency_ns": 234027967795.0, "result_95.00_percentile_latency_ns": 247142658683.0, "result_99.00_percentile_latency_ns": 256017759878.0, "result_99.90_percentile_latency_ns": 258088670403.0, "result_completed_samples_per_sec": 2392.6979194587702, "result_completed_tokens_per_second": 102722.30022046335, "result_max_latency_ns": 265629270675, "result_mean_latency_ns": 132066942551.66287, "result_min_latency_ns": 991536986, "result_query_count": 1738404, "result_samples_per_second": 2392.6979194587702, "result_tokens_per_second": 102722.30022046335, "streaming": "off", "test_datetime": 0})json"},
      {"deepseek-r1/Offline", EndpointsLogType::Accuracy, R"json({"accuracy_score": 81.35824977210574, "effective_accuracy_sample_count": 4388, "effective_max_duration_ms": 9540000, "effective_min_duration_ms": 5400000, "effective_min_query_count": 1600000, "effective_sample_index_rng_seed": 2747215439041700203, "effective_scenario": "offline", "effective_schedule_rng_seed": 16159082839903944936, "generated_query_count": 4388, "load_pattern": "max_throughput", "loadgen_version": "1.0", "qsl_reported_total_count": 4388, "streaming": "off"})json"},
  };
  for (const auto& run : runs) {
    const EndpointsLog read = read_endpoints_log(nv / run.folder, run.type, v61_rules());
    EXPECT_TRUE(read.problems.empty()) << run.folder;
    EXPECT_EQ(read.crash, "") << run.folder;
    EXPECT_TRUE(read.log.endpoints);
    EXPECT_EQ(values_of(read.log), nlohmann::json::parse(run.expected)) << run.folder;
  }
  // The figures the package takes from them: qwen3-vl Offline's samples per second is inferred
  // from the count and duration (1738404 / 726.545539185 s).
  const EndpointsLog offline = read_endpoints_log(nv / "qwen3-vl-235b-a22b/Offline", EndpointsLogType::Performance, v61_rules());
  EXPECT_EQ(offline.log.number("result_samples_per_second"), 1738404 / (726545539185 / 1e9));
  EXPECT_EQ(offline.log.file, nv / "qwen3-vl-235b-a22b/Offline/performance/result_summary.json");
}

// Dotted paths: the longest key first ("99.9"), a trailing ".0" past a scalar ("99" for "99.0"),
// null, {} and [] as absent, the alternative JSON path (n_samples_failed), config.yaml's mapped
// path (settings.runtime.min_duration_ms) and YAML 1.1's ; the QPS inferred for an Offline
// run (10 samples in 2 s).
TEST(EndpointsLog, DottedPathsAndTheInferredQpsAsTheParserHasThem) {
  TempDir tmp;
  const fs::path run = tmp.path() / "Offline";
  write(run / "config.yaml", "type: offline\nversion: 2.0\nsettings:\n  runtime:\n    min_duration_ms: 700000\n"
                             "    n_samples_to_issue: 5\n  load_pattern: {type: poisson, target_qps: 7}\n"
                             "model_params: {streaming: on}\n");
  write(run / "performance/result_summary.json",
        R"({"n_samples_issued": 10, "duration_ns": 2000000000, "latency": {"early_stopping_percentiles": )"
        R"({"99": 5.0, "50.0": 3.0, "90.0": {}}, "min": null}, "ttft": {"early_stopping_percentiles": {"99.9": 7}}, )"
        R"("version": "x", "result": {"total": 9}, "n_samples_failed": 1, "output_sequence_lengths": {"avg": []}})");
  write(run / "accuracy/accuracy_results.json",
        R"({"accuracy_scores": [{"dataset_type": "performance", "total_samples": 100, "score": {"b": 1, "a": 2}}, )"
        R"({"total_samples": 3.7, "score": 0.5}, {"response_counts": {"issued": "4"}}, )"
        R"({"dataset_type": "accuracy", "total_samples": null, "response_counts": {"issued": 5}}], "n_samples_failed": 2})");
  const EndpointsLog performance = read_endpoints_log(run, EndpointsLogType::Performance, v61_rules());
  EXPECT_EQ(values_of(performance.log), nlohmann::json::parse(R"json({"effective_min_duration_ms": 700000,
      "effective_min_query_count": 5, "effective_scenario": "offline", "effective_target_qps": 7,
      "generated_query_count": 10, "generated_query_duration": 2000000000, "load_pattern": "poisson",
      "loadgen_version": 2.0, "num_errors": 1, "qsl_reported_performance_count": 10, "qsl_reported_total_count": 10,
      "result_50.00_percentile_latency_ns": 3.0, "result_99.00_percentile_latency_ns": 5.0,
      "result_first_token_99.90_percentile_latency_ns": 7, "result_query_count": 9, "result_samples_per_second": 5.0,
      "streaming": true})json"));
  // The accuracy datasets' samples summed (int(3.7), "4" and 5; not the performance dataset's
  // 100), and every score, the first read: a dict, kept in the file's order for the table.
  const EndpointsLog accuracy = read_endpoints_log(run, EndpointsLogType::Accuracy, v61_rules());
  EXPECT_EQ(values_of(accuracy.log), nlohmann::json::parse(R"json({"accuracy_score": {"b": 1, "a": 2},
      "effective_accuracy_sample_count": 12, "effective_min_duration_ms": 700000, "effective_min_query_count": 5,
      "effective_scenario": "offline", "effective_target_qps": 7, "generated_query_count": 12,
      "load_pattern": "poisson", "loadgen_version": 2.0, "num_errors": 2, "qsl_reported_total_count": 12,
      "streaming": true})json"));
  EXPECT_EQ(accuracy.log.values.at("accuracy_score").json, R"({"b":1,"a":2})");
  // The table's Accuracy cell: json.dumps without quotes, braces and commas.
  static const AccuracyRules accuracy_rules = AccuracyRules::load(testing::source_dir() / "configs/inference_accuracy.json");
  const AccuracyResult judged = judge_endpoints_accuracy(run / "accuracy", accuracy.log, accuracy_rules.rounds.at("v6.1"),
                                                         v61_rules(), "deepseek-r1", "Offline", "closed");
  EXPECT_EQ(judged.column, "b: 1  a: 2");
  EXPECT_TRUE(judged.valid);  // deepseek-r1's score is not held to a target
  ASSERT_EQ(judged.file_checks.size(), 2u);
  EXPECT_EQ(judged.file_checks[0].name, "accuracy_log_errors");  // 2 failed samples
  EXPECT_FALSE(judged.file_checks[0].passed);
  EXPECT_EQ(judged.file_checks[1].name, "accuracy_sample_count");  // 12 of 4388
  EXPECT_FALSE(judged.file_checks[1].passed);
}

// What the parser logs and reads as {} (a missing or broken file, a config.yaml that does not
// load, then config.yml), and where it raises (an accuracy file that is a JSON list).
TEST(EndpointsLog, BrokenFilesAreReadAsEmptyAndAListOfScoresStopsTheParser) {
  TempDir tmp;
  const fs::path run = tmp.path() / "Server";
  write(run / "config.yaml", "type: [online\n");
  write(run / "config.yml", "type: online\n");
  write(run / "performance/result_summary.json", "{\"qps\": ");
  write(run / "accuracy/accuracy_results.json", "[1, 2]");
  const EndpointsLog performance = read_endpoints_log(run, EndpointsLogType::Performance, v61_rules());
  EXPECT_EQ(values_of(performance.log), nlohmann::json::parse(R"({"effective_scenario": "online"})"));
  ASSERT_EQ(performance.problems.size(), 1u);
  EXPECT_NE(performance.problems[0].find("result_summary.json: could not load it as JSON"), std::string::npos);
  EXPECT_EQ(performance.crash, "");
  const EndpointsLog accuracy = read_endpoints_log(run, EndpointsLogType::Accuracy, v61_rules());
  EXPECT_NE(accuracy.crash.find("AttributeError"), std::string::npos) << accuracy.crash;
  fs::remove(run / "config.yml");
  const EndpointsLog no_config = read_endpoints_log(run, EndpointsLogType::Performance, v61_rules());
  EXPECT_TRUE(no_config.log.values.empty());
  ASSERT_EQ(no_config.problems.size(), 2u);
  EXPECT_NE(no_config.problems[1].find("config.yaml: line 2"), std::string::npos) << no_config.problems[1];
  EXPECT_EQ(endpoints_files_in(run), (std::vector<std::string>{"config.yaml", "performance/result_summary.json"}));
}

// Hostile input: JSON nested a million levels deep (Python's json raises RecursionError and the
// parser reads the file as {}) is refused before it is parsed, not a crash.
TEST(EndpointsLog, JsonNestedTooDeepIsReadAsEmpty) {
  TempDir tmp;
  const fs::path run = tmp.path() / "Server";
  write(run / "config.yaml", "type: online\n");
  const std::size_t n = 1000000;
  write(run / "performance/result_summary.json", "{\"qps\": " + std::string(n, '[') + std::string(n, ']') + ", \"tps\": 5}");
  write(run / "audit/audit_consistency_output_test.json", std::string(n, '[') + std::string(n, ']'));
  const EndpointsLog read = read_endpoints_log(run, EndpointsLogType::Performance, v61_rules());
  EXPECT_EQ(values_of(read.log), nlohmann::json::parse(R"({"effective_scenario": "online"})"));
  ASSERT_EQ(read.problems.size(), 1u);
  EXPECT_NE(read.problems[0].find("nested deeper than 1000 levels"), std::string::npos) << read.problems[0];
  const std::vector<ValidityCheck> audits = judge_endpoints_audits(run, {"TEST06"}, v61_rules(), "deepseek-r1", read.log);
  ASSERT_EQ(audits.size(), 1u);
  EXPECT_FALSE(audits[0].passed);
  EXPECT_NE(audits[0].message.find("can not be loaded"), std::string::npos) << audits[0].message;
}

}  // namespace
}  // namespace mlperf::inference
