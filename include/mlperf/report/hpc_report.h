#pragma once
// What the reports add for MLPerf HPC directories (issue #26): the usage and scaling of every
// training-kind result, and a weak-scaling folder's figures in place of the olympic mean,
// RCP check and score.

#include <array>
#include <iosfwd>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mlperf/training/score.h"

namespace mlperf {

/// The ruleset as reports show it: "5.1.0" for training, "hpc 3.0.0" for MLPerf HPC.
std::string ruleset_label(const Ruleset& ruleset);

/// Adds to a training-kind result's JSON object: "usage" ("training" | "hpc"), "scaling"
/// ("strong" | "weak") and, for weak scaling, the official summarizer's columns
/// "number_of_models" (null when too few models trained), "instance_scale" (accelerators per
/// model), "time_to_train_all_minutes" (minutes), "throughput" (models per minute), and
/// "models_converged", "models_required", "enough_models".
void add_hpc_json_fields(nlohmann::json& object, const DirectoryResult& result);

/// The text report's lines for a weak-scaling folder (after its runs): the models trained,
/// the instance scale, the time to train all, the throughput and the verdict.
void write_weak_scaling_block(std::ostream& out, const DirectoryResult& result);

/// The summary's weak-scaling columns of `benchmark`, as the official summarizer names them
/// ("<benchmark>:number_of_models", ":instance_scale", ":time_to_train_all"), and
/// "<benchmark>:throughput" (models per minute) after them.
std::array<std::string, 4> weak_scaling_columns(const std::string& benchmark);

/// A weak-scaling folder's cells for those columns (nullopt where the summarizer leaves the
/// cell empty: too few models).
std::array<std::optional<double>, 4> weak_scaling_cells(const WeakScalingScore& weak);

/// The fmt format of a weak-scaling column's cells ("{:.0f}" for counts, "{:.4f}" for
/// throughput, "{:.2f}" for minutes); nullptr for any other column.
const char* weak_scaling_cell_format(const std::string& column);

/// The line the summary table prints under its title when it holds weak-scaling columns.
inline constexpr const char* kWeakScalingLegend =
    "Weak scaling (MLPerf HPC): <benchmark>:number_of_models, :instance_scale (accelerators per model), "
    ":time_to_train_all (minutes), :throughput (models per minute)";

}  // namespace mlperf
