#pragma once
// Scoring one MLPerf Inference scenario folder: the headline figure of the official results
// table (Performance_Result, Performance_Units) and the validity of the run, by the rules of
// mlcommons/inference tools/submission/submission_checker.py, kept per round in
// configs/inference_rules.json.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlperf/inference/endpoints_log.h"
#include "mlperf/inference/loadgen_log.h"

namespace mlperf::inference {

struct AccuracyResult;        // accuracy.h
struct ComplianceTestResult;  // compliance_tests.h

/// TTFT and TPOT 99th-percentile limits of an LLM in one scenario, in nanoseconds.
struct TokenLatencyLimits {
  double ttft_ns = 0;
  double tpot_ns = 0;
};

/// The rules of one round (e.g. "v5.1"), as the submission checker of that round has them.
struct RoundRules {
  std::map<std::string, std::string> result_keys;  ///< scenario → loadgen key (RESULT_FIELD_NEW)
  /// model → scenario → loadgen key (RESULT_FIELD_BENCHMARK_OVERWRITE)
  std::map<std::string, std::map<std::string, std::string>> model_result_keys;
  std::map<std::string, std::string> units;  ///< scenario → Performance_Units
  std::map<std::string, std::map<std::string, std::string>> model_units;  ///< model → scenario → units
  std::set<std::string> early_stopping_scenarios;
  /// Whether an early-stopping condition not met fails the run (v6.0's PerformanceCheck) or
  /// is only logged (check_performance_dir up to v5.1.1: a warning here).
  bool early_stopping_fails = true;
  /// Whether loadgen's result_validity must be VALID (check_performance_dir up to v5.1.1) or is
  /// never required (v6.0's PerformanceCheck, whose test of it is dead code: a warning here).
  bool result_validity_fails = true;
  /// Whether loadgen errors in a detail log fail the run (find_error_in_detail_log up to
  /// v5.1.1) or not (v6.0's loadgen_errors_check fails only with --submission-exceptions, which
  /// the tool does not model: a warning here).
  bool loadgen_errors_fail = true;
  /// Whether an LLM's TTFT/TPOT limits are those of the scenario folder (extra_check_llm up to
  /// v5.1.1) or of loadgen's effective_scenario (v6.0's llm_check: an Interactive folder, which
  /// loadgen runs as Server, is held to the Server limits).
  bool llm_limits_by_loadgen_scenario = false;
  /// What the results table's inferred column says: the figure was inferred from another
  /// scenario's run (check_performance_dir up to v5.1.1), or the scenario folder's name differs
  /// as text from the log's effective_scenario, a "server" run of an "interactive" folder
  /// excepted (v6.x's results.py, which so marks every Interactive folder, every folder named
  /// in lower case and every endpoints run, whose effective_scenario is config.yaml's type).
  bool inferred_column_compares_scenario_text = false;
  double min_duration_ms = 0;                               ///< TEST_DURATION_MS
  std::map<std::string, double> min_query_count;            ///< scenario → minimum (non-early-stopping)
  std::map<std::string, double> offline_min_samples_per_query;  ///< model → minimum (closed)
  std::map<std::string, double> server_target_latency_ns;   ///< model → Server latency target
  std::map<std::string, std::map<std::string, TokenLatencyLimits>> llm_latency_limits;  ///< model → scenario
  /// model → scenario → factor applied to the figure after the ns → ms scaling (v6.0's
  /// wan-2.2-t2v-a14b SingleStream is reported in seconds: get_performance_metric_check's S_TO_MS).
  std::map<std::string, std::map<std::string, double>> model_result_scale;
  /// The round's official RNG seeds: "qsl_rng_seed", "sample_index_rng_seed",
  /// "schedule_rng_seed" → value (MODEL_CONFIG[round]["seeds"]); loadgen logs effective_<name>.
  std::map<std::string, std::uint64_t> seeds;
  /// The seeds of a TEST05 run (MODEL_CONFIG[round]["test05_seeds"], v4.1 and v5.0; empty when
  /// the round has none): check_performance_dir holds a log to them, not to `seeds`, when its
  /// path names "TEST05".
  std::map<std::string, std::uint64_t> test05_seeds;
  std::map<std::string, double> performance_sample_count;  ///< model → minimum ("performance-sample-count")
  /// Models whose runs must use equal-issue mode (effective_sample_concatenate_permutation
  /// true; requires_equal_issue), in `equal_issue_divisions` only (empty: every division).
  std::set<std::string> equal_issue_models;
  std::set<std::string> equal_issue_divisions;
  /// LLMs whose runs must log token latencies (requested_use_token_latencies true;
  /// extra_check_llm / get_llm_models).
  std::set<std::string> token_latency_models;
  /// How the round's package reads and judges an MLPerf endpoints run (v6.1 on); nullopt where
  /// the round's checker reads loadgen logs only.
  std::optional<EndpointsRules> endpoints;
};

/// configs/inference_rules.json: the rounds and what does not change between them.
struct InferenceRules {
  std::map<std::string, RoundRules> rounds;      ///< "v4.1" → rules
  std::string newest_round;                      ///< used when neither path nor log names one
  std::map<std::string, std::string> scenario_names;  ///< lower-case folder name → scenario
  std::string interactive_runs_as = "Server";    ///< loadgen scenario of an Interactive folder
  std::set<std::string> latency_scenarios_ns_to_ms;  ///< scenarios whose key is in ns, shown in ms
  std::vector<std::pair<std::string, std::string>> model_aliases;  ///< folder prefix → model
  std::map<std::string, std::string> summary_labels;  ///< summary label → loadgen key

  /// Every loadgen key any rule reads (what read_detail_log keeps).
  KeySet keys_read() const;
  /// The model whose rules apply to a model folder name: the name itself when a round knows
  /// it, else the first alias whose prefix it starts with, else the name.
  std::string model_of(const std::string& folder) const;
  /// Whether a folder name names a model: a round knows it, or it starts with an alias prefix.
  bool knows_model(const std::string& folder) const;
  /// Loads the file. Throws std::runtime_error naming the file when missing or malformed.
  static InferenceRules load(const std::filesystem::path& file);
};

/// One validity condition with its value and its limit.
struct ValidityCheck {
  std::string name;      ///< result_validity, loadgen_errors, min_duration, min_query_count, ...
  bool passed = false;
  nlohmann::json value;  ///< what the log holds (null when absent)
  nlohmann::json limit;  ///< what the rule asks
  std::uint64_t line = 0;  ///< line of the log the value was read from (0: not from one line)
  std::string message;   ///< why it failed ("" when passed)
  std::string file = {};  ///< the file it was read from, where not the run's own log ("" otherwise)
};

/// InferenceResult::submission_checks: a list of checks whose leading parts are shared with
/// other scenario folders (the submitter's folder tree, a system description: judged once and
/// the same for all its folders) instead of copied into each; the folder's own checks follow.
/// Reads as one list: size, [k] and iteration in order.
class SubmissionChecks {
 public:
  using Part = std::shared_ptr<const std::vector<ValidityCheck>>;

  /// Appends a shared part; throws std::logic_error once an own check was added (shared
  /// parts come first).
  void append_shared(Part part);
  /// Appends a check of this folder.
  void push_back(ValidityCheck check) { own_.push_back(std::move(check)); }
  /// Makes `own` the whole list (no shared part).
  SubmissionChecks& operator=(std::vector<ValidityCheck> own) {
    parts_.clear();
    shared_size_ = 0;
    own_ = std::move(own);
    return *this;
  }

  std::size_t size() const { return shared_size_ + own_.size(); }
  bool empty() const { return size() == 0; }
  /// The k-th check (k < size()).
  const ValidityCheck& operator[](std::size_t k) const;

  /// Visits the checks in order.
  class const_iterator {
   public:
    using value_type = ValidityCheck;
    using difference_type = std::ptrdiff_t;
    using reference = const ValidityCheck&;
    using pointer = const ValidityCheck*;
    using iterator_category = std::forward_iterator_tag;
    const_iterator() = default;
    const_iterator(const SubmissionChecks* list, std::size_t part, std::size_t at) : list_(list), part_(part), at_(at) {
      settle();
    }
    reference operator*() const { return part_ < list_->parts_.size() ? (*list_->parts_[part_])[at_] : list_->own_[at_]; }
    pointer operator->() const { return &**this; }
    const_iterator& operator++() {
      ++at_;
      settle();
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator was = *this;
      ++*this;
      return was;
    }
    bool operator==(const const_iterator& o) const { return part_ == o.part_ && at_ == o.at_; }
    bool operator!=(const const_iterator& o) const { return !(*this == o); }

   private:
    // Past an exhausted shared part to the next non-empty one (or the own checks).
    void settle() {
      while (list_ && part_ < list_->parts_.size() && at_ >= list_->parts_[part_]->size()) ++part_, at_ = 0;
    }
    const SubmissionChecks* list_ = nullptr;
    std::size_t part_ = 0;  // parts_.size(): the own checks
    std::size_t at_ = 0;
  };
  const_iterator begin() const { return const_iterator(this, 0, 0); }
  const_iterator end() const { return const_iterator(this, parts_.size(), own_.size()); }

  /// The shared parts, in order (none empty), and the folder's own checks after them.
  const std::vector<Part>& shared_parts() const { return parts_; }
  const std::vector<ValidityCheck>& own() const { return own_; }

 private:
  std::vector<Part> parts_;
  std::size_t shared_size_ = 0;
  std::vector<ValidityCheck> own_;
};

/// The published figure of a scenario on a platform (configs/expected_results.json
/// "inference") and the measured figure against it.
struct InferenceExpected {
  std::string round, model, scenario, system, platform, units, source;
  double published = 0;
  double measured = 0;
  double delta_percent = 0;  ///< (measured − published) / published × 100
  double tolerance_percent = 0;
  bool within_tolerance = false;  ///< |delta| ≤ tolerance
  bool lower_is_better = false;   ///< latencies
};

struct PowerResult;  // power.h

/// Everything known about one scenario folder.
struct InferenceResult {
  std::string round;         ///< "v5.1"
  std::string round_source;  ///< "path", "loadgen_version" or "newest shipped"
  std::string model;         ///< the folder name
  std::string rules_model;   ///< the model whose rules apply (model_of)
  std::string scenario;      ///< the table's scenario (folder name, canonical spelling)
  std::string loadgen_scenario;  ///< effective_scenario from the log
  std::string metric;        ///< the loadgen key of the headline figure
  std::optional<double> performance_result;  ///< full precision, in `units`
  std::string units;         ///< Samples/s, Tokens/s, Queries/s or Latency (ms)
  bool inferred = false;     ///< figure inferred from another scenario's run
  /// The results table's inferred column (RoundRules::inferred_column_compares_scenario_text):
  /// `inferred` up to v5.1; from v6.0 whether the folder's name and effective_scenario differ.
  bool inferred_in_table = false;
  bool lower_is_better = false;  ///< latency figures
  bool valid = false;        ///< every check passed and a figure exists
  std::vector<ValidityCheck> checks;
  /// What the round's checker logs without failing the run (e.g. early stopping not met up to v5.1).
  std::vector<std::string> warnings;
  std::string log_file;      ///< the log read
  bool from_summary = false; ///< no detail log: read from the summary
  std::string loadgen_version;
  std::optional<InferenceExpected> expected;  ///< the published figure, when one is shipped
  /// The accuracy run (accuracy/accuracy.txt) judged as the checker judges it; null for a run
  /// outside the submission layout that has no accuracy folder. `valid` includes its verdict.
  std::shared_ptr<const AccuracyResult> accuracy;
  /// The compliance tests the round's checker asks of this model (compliance_tests.h), in its
  /// order; null when not judged (open division, a run outside the submission layout, a model
  /// that needs none). `valid` includes their verdicts.
  std::shared_ptr<const std::vector<ComplianceTestResult>> compliance_tests;
  /// The power measurement (power.h) where performance/power exists; null otherwise. `valid`
  /// includes its verdict.
  std::shared_ptr<const PowerResult> power;
  /// From v6.1, a power submission's design power in watts (nameplate.h: the system
  /// description's system_power_capacity, else the nameplate file's PSU capacities), as the
  /// checker's CSV column design_power_watts; null otherwise.
  nlohmann::json design_power_watts;
  /// The submission-level rules the round's checker applies to this folder (submission.h), in
  /// this order: the system description (network_mode left to `checks`), the scenario's
  /// measurements, the model's required scenarios; empty outside the submission layout.
  SubmissionChecks submission_checks;
  /// False when one of `submission_checks` fails: the checker reports an error and the
  /// submission fails. Whether the row is dropped too is in `valid` (a missing required
  /// scenario keeps the other rows in the script rounds v4.1–v5.1, not in v6.x).
  bool submission_valid = true;
};

/// The round a loadgen_version names: "v5.1" from "5.1.0 @ 091d51f041"; nullopt when it
/// does not start with digits, a dot and digits.
std::optional<std::string> round_from_loadgen_version(const std::string& version);

/// The round a path names (a component inference_results_vX.Y or inference_vX.Y[.Z]).
std::optional<std::string> round_from_path(const std::filesystem::path& path);

/// round_from_path for a path already absolute and normal ("/a/b/c"), read as text.
std::optional<std::string> round_from_absolute_path(std::string_view absolute);

/// Scores the run read into `log` for the scenario folder `scenario_folder` of model folder
/// `model_folder` in `division` ("closed", "open", ...), under round `round` of `rules`
/// (a round the file lacks: the newest). Implements submission_checker.py
/// check_performance_dir / get_performance_metric / get_inferred_result: the key by round,
/// scenario and model; ns → ms for SingleStream/MultiStream; results inferred across
/// scenarios (edge); and the validity checks listed in ValidityCheck::name. A log read from an
/// MLPerf endpoints run (`log.endpoints`, endpoints_log.h) in a round with endpoints rules is
/// judged as PerformanceCheck judges one (is_endpoints): the scenario map_endpoints_scenario
/// makes of the folder's and the run's type, RESULT_FIELD_ENDPOINTS (the model's own key, an
/// Interactive run the model's Server key), no early stopping, sample counts or qsl seed, the
/// 99th-percentile latency constraint for a model that is not an LLM, the allowed models
/// (checks effective_scenario, latency_99_percentile_ns, endpoints_model).
InferenceResult score_loadgen_run(const LoadgenLog& log, const InferenceRules& rules, const std::string& round,
                                  const std::string& model_folder, const std::string& scenario_folder,
                                  const std::string& division);

}  // namespace mlperf::inference
