#pragma once
// MLPerf HPC weak scaling: many instances of one benchmark train at once on one system; the
// figure is how many models the system trains and how fast (result_summarizer.py
// _compute_weak_score_standalone, usage "hpc").

#include <optional>
#include <string>
#include <vector>

#include "mlperf/training/run.h"

namespace mlperf {

/// The official summarizer's weak-scaling figures of one <system>/weak/<benchmark> folder.
struct WeakScalingScore {
  /// Models the benchmark needs at least (mlperf_logging benchmark_meta result file counts:
  /// cosmoflow 10, deepcam 5, oc20 5, openfold 10).
  int models_required = 0;
  /// Runs that count: the compliance checker accepts the log and it has run_start and
  /// run_stop (Run::counted()), as the summarizer counts them.
  int models_converged = 0;
  /// models_converged >= models_required: only then does the summarizer give figures.
  bool enough_models = false;
  /// The summarizer's number_of_models column: models_converged when enough_models.
  std::optional<int> number_of_models;
  /// Accelerators per model instance: number_of_nodes × max(accelerators_per_node, 1) of
  /// the first counted run that logs both (enough_models only).
  std::optional<long long> instance_scale;
  /// (latest run_stop − earliest run_start) over the counted runs, minutes (enough_models only).
  std::optional<double> time_to_train_all_minutes;
  /// number_of_models / time_to_train_all_minutes: models trained per minute, the
  /// throughput the published HPC weak-scaling tables derive from the summarizer's columns.
  std::optional<double> throughput;
  /// Where the official summarizer would stop: a counted run whose instance scale differs
  /// from the first (its assert), named; empty otherwise.
  std::vector<std::string> problems;
};

/// Weak-scaling figures of `runs` (the folder's result files, read with the official
/// compliance verdict applied) for a benchmark needing `models_required` models. Never throws.
WeakScalingScore score_weak_scaling(const std::vector<Run>& runs, int models_required);

}  // namespace mlperf
