#pragma once
// Per-benchmark facts of scoring.md §6, loaded from configs/benchmarks.json (facts as data).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mlperf/mllog/ruleset.h"

namespace mlperf {

/// One bound of a quality target or convergence threshold; absent bounds are open.
struct Bounds {
  std::optional<double> min;
  bool min_inclusive = true;
  std::optional<double> max;
  bool max_inclusive = true;

  /// True when `v` lies within the bounds.
  bool contains(double v) const;
};

/// The quality target of a benchmark over a span of rulesets (scoring.md §6).
/// `metrics` maps a metric name to its bounds; the empty name "" means the plain
/// `eval_accuracy` value (every benchmark but stable_diffusion, which has "FID" and "CLIP").
struct QualityTarget {
  Ruleset first;  ///< first ruleset the target applies to (inclusive)
  Ruleset last;   ///< last ruleset the target applies to (inclusive)
  std::map<std::string, Bounds> metrics;
};

/// Where a run's samples to converge come from (scoring.md §4.1).
enum class ConvergenceUnit {
  kSamplesCount,  ///< metadata.samples_count of the eval event (samples)
  kEpochNum,      ///< metadata.epoch_num rounded to 3 decimals (epochs)
  kMetricStep,    ///< stable_diffusion: per-step FID/CLIP, step from step_num or samples_count
};

/// Everything the scorer knows about one benchmark.
struct BenchmarkFacts {
  std::string name;
  std::string usage = "training";  ///< "training" or "hpc": picks the RCP folder
  int required_runs = 0;           ///< runs a complete result needs
  int olympic_drop = 1;            ///< fastest/slowest runs dropped by the olympic mean (§3)
  ConvergenceUnit convergence_unit = ConvergenceUnit::kEpochNum;
  /// kMetricStep only: the step field per ruleset; `step_field_default` otherwise.
  std::map<std::string, std::string> step_field_by_ruleset;
  std::string step_field_default = "samples_count";
  /// kMetricStep only: thresholds a step must meet to count as converged (§4.1).
  std::map<std::string, Bounds> convergence_metrics;
  std::string rcp_samples_key = "Epochs to converge";  ///< key of the list in the RCP records
  /// False for benchmarks the official RCP checker cannot check: its table of submission runs
  /// (mlperf_logging rcp_checker.py `submission_runs`) has no entry for them, so it raises and
  /// the official summarizer reports the score unscaled with no RCP verdict (dlrm, minigo).
  bool official_rcp_check = true;
  std::vector<QualityTarget> quality_targets;

  /// The quality target in force for `ruleset` (of the same usage: training or hpc), or nullptr
  /// when the spec names none.
  const QualityTarget* quality_target(const Ruleset& ruleset) const;
  /// The metadata field that names an eval step for `ruleset` (kMetricStep only).
  const std::string& step_field(const Ruleset& ruleset) const;
};

/// All benchmark facts plus the benchmarks of each round.
struct Facts {
  std::map<std::string, BenchmarkFacts> benchmarks;
  /// ruleset → benchmark names: the training rounds ("rounds") and the MLPerf HPC rounds
  /// ("hpc_rounds", rulesets of usage hpc).
  std::map<Ruleset, std::vector<std::string>> rounds;

  /// Facts of `name`, or nullptr for an unknown benchmark.
  const BenchmarkFacts* find(const std::string& name) const;
  /// The newest training ruleset listed in `rounds`. Throws std::runtime_error when there is none.
  Ruleset newest_ruleset() const;
  /// The newest ruleset of `usage` listed in `rounds`. Throws std::runtime_error when there is none.
  Ruleset newest_ruleset(Usage usage) const;

  /// Loads configs/benchmarks.json. Throws std::runtime_error naming the file on a
  /// missing file or malformed content.
  static Facts load(const std::filesystem::path& file);
};

}  // namespace mlperf
