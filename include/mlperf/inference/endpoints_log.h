#pragma once
// Reading one MLPerf endpoints run (MLPerf Inference from v6.1): a scenario folder the MLCommons
// endpoints harness wrote in place of loadgen logs,
//   <scenario>/config.yaml (or config.yml)        the run's settings
//   <scenario>/performance/result_summary.json    the performance run's figures
//   <scenario>/accuracy/accuracy_results.json     the accuracy run's scores
// read as the submission checker package reads it (mlcommons/inference
// tools/submission/submission_checker/parsers/endpoints_parser.py, EndpointsParser, bfc0da57):
// each loadgen key the package's ENDPOINTS_MAPPINGS names is looked up in the JSON file, then in
// config.yaml, and the run is then judged by the loadgen rules with the package's is_endpoints
// branches (result.h score_loadgen_run).

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlperf/inference/loadgen_log.h"

namespace mlperf::inference {

/// How a round's package reads and judges an endpoints run: configs/inference_rules.json
/// rounds.<round>.endpoints, written by scripts/extract-inference-rules from the package's
/// constants (the names in brackets).
struct EndpointsRules {
  /// lower-case scenario → loadgen key of the headline figure [RESULT_FIELD_ENDPOINTS]
  std::map<std::string, std::string> result_keys;
  /// endpoints key → loadgen key, in the package's order [ENDPOINTS_MAPPINGS]
  std::vector<std::pair<std::string, std::string>> mappings;
  /// endpoints key → dotted path in config.yaml, tried before the key itself [ENDPOINTS_YAML_FIELD_MAP]
  std::map<std::string, std::string> yaml_paths;
  /// endpoints key → dotted path in the JSON file, tried after the key [ENDPOINTS_JSON_ALT_PATHS]
  std::map<std::string, std::string> json_alt_paths;
  /// loadgen key → the loadgen key it copies when absent [ENDPOINTS_INFERRED_FIELDS], in order
  std::vector<std::pair<std::string, std::string>> inferred_fields;
  std::set<std::string> allowed_models;  ///< [ENDPOINTS_ALLOWED_MODELS]
  /// TEST0x → the audit name of its file audit/audit_<name>.json [ENDPOINTS_COMPLIANCE_MAPPING]
  std::map<std::string, std::string> compliance_audits;
  /// TEST0x → the models whose audit file must exist (endpoint_audit_file_required)
  std::map<std::string, std::set<std::string>> audit_required;
  /// model → scenario → 99th-percentile latency limit in ns (MODEL_CONFIG latency-constraint)
  std::map<std::string, std::map<std::string, double>> latency_constraints_ns;
  /// models whose accuracy score is held to the scenario's first accuracy target
  std::set<std::string> accuracy_target_models;
  /// [TEST09_LOW, TEST09_HIGH]: the mean output tokens of a TEST09 model's performance run
  double test09_low = 0, test09_high = 0;
  /// The scenario whose model key (RESULT_FIELD_BENCHMARK_OVERWRITE) an Interactive run takes
  /// when the model has none of its own: "Server", as the published v6.1 results table gives
  /// deepseek-r1 Interactive in tokens/s (the package at bfc0da57 gives its QPS); "" for none.
  std::string interactive_model_keys_of;

  /// Reads the rules from their JSON object. Throws nlohmann::json::exception on a malformed one.
  static EndpointsRules from_json(const nlohmann::json& j);
};

/// Which file of the run a reader reads (EndpointsParser's log_type).
enum class EndpointsLogType { Performance, Accuracy };

/// The endpoints files a scenario folder holds, relative to it: "config.yaml", "config.yml",
/// "performance/result_summary.json" (in this order); empty when it holds none.
std::vector<std::string> endpoints_files_in(const std::filesystem::path& scenario_dir);

/// One endpoints run read as EndpointsParser reads it.
struct EndpointsLog {
  /// The loadgen keys found, each with its value as JSON text (line 0), `file` the JSON file
  /// read, `endpoints` true. Includes, for the accuracy file, effective_accuracy_sample_count
  /// (the accuracy datasets' total_samples, else response_counts.issued, summed) and every
  /// accuracy_scores[].score as accuracy_score (the first is the one the checks read); for the
  /// performance file the QPS the package infers (generated_query_count / duration in s) where
  /// the file lacks it.
  LoadgenLog log;
  /// What the parser logs as an error and goes on: a JSON file missing or not JSON (read as {}),
  /// no config.yaml that loads (read as {}). Each names the file.
  std::vector<std::string> problems;
  /// Where the package's parser raises (a TypeError or AttributeError on values of the wrong
  /// type: an accuracy_scores entry that is not a mapping, a scenario that is not text), which
  /// stops the checker: the reason, naming the file; "" when none.
  std::string crash;
};

/// Reads `scenario_dir`'s endpoints run as EndpointsParser(scenario_dir, type) does, under the
/// round's `rules`: for each [endpoints key, loadgen key] of rules.mappings the first value
/// found of the JSON file's dotted path (its json_alt_paths path next), then config.yaml's
/// yaml_paths path, then the key in config.yaml (a dotted path matches the longest key at each
/// level, so "latency.early_stopping_percentiles.99.0" finds the key "99.0"; null, {} and []
/// count as absent); then rules.inferred_fields; then the inferred QPS; then the accuracy scores.
/// config.yaml is read as yaml.safe_load reads it (nameplate.h yaml_safe_load_json). Never
/// throws for bad input (std::bad_alloc only).
EndpointsLog read_endpoints_log(const std::filesystem::path& scenario_dir, EndpointsLogType type,
                                const EndpointsRules& rules);

}  // namespace mlperf::inference
