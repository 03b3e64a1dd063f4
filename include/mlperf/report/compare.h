#pragma once
// Comparing scored benchmark directories (`mlperf-score compare`): one row per directory,
// grouped by benchmark, with the speedup against a baseline directory of the same benchmark
// and the spread of the runs. Rows only restate DirectoryResult figures; nothing is re-scored.

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlperf/report/report.h"
#include "mlperf/training/score.h"

namespace mlperf {

/// The spread of the time to train of a directory's counted runs (scoring.md §2: the runs
/// that pass the compliance conditions, including the two the olympic mean trims).
struct RunMinutesStats {
  int counted_runs = 0;                   ///< runs whose minutes enter the statistics
  std::optional<double> min_minutes;      ///< fastest counted run (minutes)
  std::optional<double> median_minutes;   ///< median; mean of the middle two for an even count
  std::optional<double> max_minutes;      ///< slowest counted run (minutes)
  std::optional<double> mean_minutes;     ///< arithmetic mean (minutes)
  /// Coefficient of variation: the *population* standard deviation (divide by N, as the RCP
  /// statistics of scoring.md §4.2) over the mean; a dimensionless fraction (0.01 = 1 %).
  /// 0 for a single run; nullopt without counted runs.
  std::optional<double> cv;
};

/// Statistics of `runs` whose Run::counted() is true. Never throws.
RunMinutesStats run_minutes_stats(const std::vector<Run>& runs);

/// One directory in a comparison.
struct ComparisonRow {
  std::size_t result_index = 0;  ///< index of the directory in the results given to compare_results
  std::string directory;
  std::string submitter;
  std::string system;
  std::string benchmark;  ///< DirectoryResult::benchmark ("<model>/<scenario>" for inference)
  /// The rows compared with each other, and their baseline: the benchmark, with
  /// " (weak scaling)" added for an MLPerf HPC weak-scaling folder, whose figure is a
  /// throughput in models per minute and is never set beside a time to train.
  std::string group;
  std::string scaling;            ///< training: "strong" or "weak" (MLPerf HPC weak/); inference: ""
  std::string platform;   ///< submission platform tag ("" when unknown)
  std::string division;
  std::string ruleset;    ///< "X.Y.Z"
  std::optional<double> score_minutes;  ///< scoring.md §5; nullopt when there is no valid score
  /// Inference rows: the headline figure in `units` (score_minutes stays empty). A latency
  /// is better lower, a throughput higher: `speedup` is this over the baseline for
  /// throughputs, the baseline over this for latencies (2.0: twice as good either way).
  std::optional<double> performance_result;
  std::string units;
  /// Inference rows: the results table's Accuracy cell ("ROUGE1: 44.4465  ROUGE2: …"; "" when
  /// no accuracy run was read).
  std::string accuracy;
  /// Inference power submissions: the results table's Power_Result and Power_Units
  /// (inference/power.h); nullopt and "" elsewhere.
  std::optional<double> power_result;
  std::string power_units;
  bool inference = false;  ///< a loadgen result: the run, RCP and minutes fields do not apply
  /// Weak scaling only: the official summarizer's figures (number of models, instance
  /// scale, time to train all in minutes, throughput in models per minute).
  std::optional<WeakScalingScore> weak;
  bool passed = false;
  bool is_baseline = false;               ///< this row is its group's baseline
  std::string baseline_directory;         ///< "" when no baseline directory is of this group
  std::optional<double> baseline_score_minutes;
  /// How much better than the baseline, 2.0 meaning twice as good: baseline score / this
  /// score (training), this throughput / the baseline's (weak scaling), as
  /// `performance_result` says (inference). nullopt when either figure is missing.
  std::optional<double> speedup;
  RunMinutesStats minutes;
  int converged_runs = 0;  ///< runs that converged (scoring.md §4.1)
  /// Arithmetic mean of samples to converge over the converged runs, in the benchmark's
  /// convergence unit (samples, or epochs for epoch-based benchmarks); nullopt when none.
  std::optional<double> mean_samples_to_converge;
  /// The global batch size (samples) every run that logged one agrees on; nullopt when no
  /// run logged it or the runs disagree (the RCP check then fails, §4.1).
  std::optional<long long> global_batch_size;
  /// RCP normalization factor (§4.6); nullopt where no RCP check applies (inference, weak
  /// scaling) or it has no value (no olympic mean).
  std::optional<double> normalization_factor;
  /// The RCP check's verdict (§4.6); nullopt where none applies or it was not run.
  std::optional<bool> rcp_passed;
};

/// A comparison: rows grouped by ComparisonRow::group.
struct Comparison {
  std::vector<std::string> benchmarks;  ///< the groups, in order of first appearance
  std::vector<ComparisonRow> rows;      ///< grouped; input order within a group
};

/// Builds the comparison of `results`. The first `baseline_count` results are the baseline
/// directories: for each group (a benchmark; its weak-scaling folders apart), the first of
/// them in that group is the baseline of every row of the group (including itself,
/// speedup 1). Groups without a baseline directory get no speedup. Never throws.
Comparison compare_results(const std::vector<DirectoryResult>& results, std::size_t baseline_count);

/// One row as JSON (full precision; missing figures, and those that do not apply to its kind,
/// are null): directory, submitter, system, benchmark, group, kind, scaling, platform,
/// division, ruleset, score_minutes, performance_result, units, accuracy, power_result,
/// power_units, passed, is_baseline,
/// baseline_directory, baseline_score_minutes, speedup, counted_runs, min_minutes,
/// median_minutes, max_minutes, mean_minutes, cv_minutes, converged_runs,
/// mean_samples_to_converge, global_batch_size, normalization_factor, rcp_passed,
/// number_of_models, instance_scale, time_to_train_all_minutes, throughput.
nlohmann::json to_json(const ComparisonRow& row);

/// Writes the comparison in `format`: table (one block per group, for people, with the
/// columns of its kind: time to train, weak scaling or the inference figure), json
/// ({"benchmarks": [...], "rows": [...]}, full precision), csv and markdown (one row per
/// directory, figures rounded in markdown, full precision in csv).
void write_comparison(std::ostream& out, const Comparison& comparison, ReportFormat format);

}  // namespace mlperf
