#pragma once
// Summarizing a round, a submitter or a system folder (`mlperf-score summarize`): one row
// per system, one column per benchmark of the round, shaped like the MLCommons results
// table (submitter, system, availability, accelerator and count, host processor, software,
// then one score per benchmark). Rows restate DirectoryResult scores; nothing is re-scored.

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlperf/training/facts.h"
#include "mlperf/report/report.h"
#include "mlperf/training/score.h"
#include "mlperf/mllog/system_description.h"

namespace mlperf {

/// One system: its description and its score per benchmark column.
struct SystemRow {
  std::string submitter;  ///< <org> of <org>/results/<system> ("" outside that layout)
  std::string system;     ///< the system folder name (the submission's system id)
  std::string system_name;
  std::string division;   ///< from the description, else the directories' division
  std::string availability;
  std::string accelerator_model_name;
  /// accelerators_per_node × number_of_nodes; nullopt when the description lacks either.
  std::optional<long long> accelerator_count;
  std::string host_processor_model_name;
  std::string framework;
  std::string system_description;  ///< path of the description; "" when there is none
  /// MLPerf HPC: "strong" or "weak" (a row each, as the official summarizer's two tables);
  /// "" for training and inference.
  std::string scaling;
  /// Per column of Summary::benchmarks: the index into the summarized results of this
  /// system's directory for that benchmark; nullopt when the system has none.
  std::vector<std::optional<std::size_t>> result_index;
  /// Per column: the score in minutes (scoring.md §5); nullopt when there is no directory
  /// or it has no valid score.
  std::vector<std::optional<double>> scores;
};

/// The summary of many scored directories.
struct Summary {
  std::vector<std::string> rulesets;    ///< rulesets of the results, in order of appearance
  /// Columns: the benchmarks of each ruleset's round (configs/benchmarks.json `rounds`), then,
  /// when MLPerf HPC weak-scaling folders are summarized, the official weak-scaling columns
  /// of each benchmark (<benchmark>:number_of_models, :instance_scale, :time_to_train_all in
  /// minutes, :throughput in models per minute), then any scored benchmark not in those
  /// rounds, in order of appearance.
  std::vector<std::string> benchmarks;
  std::vector<SystemRow> systems;       ///< in order of first appearance in the results
  std::vector<std::string> warnings;    ///< unreadable descriptions, duplicate benchmarks
  /// Per column of `benchmarks`: whether a folder in it is an inference power submission (its
  /// table then has a "<model>/<scenario> Power" column beside Accuracy).
  std::vector<bool> power;
};

/// Groups `results` by system (submitter, system folder, description) and fills the round's
/// benchmark columns from `facts`. A description that cannot be read becomes a warning
/// naming the file; the row then keeps what the directories tell. When one system has two
/// directories of one benchmark, the first is kept and a warning names both. Never throws.
Summary summarize(const std::vector<DirectoryResult>& results, const Facts& facts);

/// The summary as JSON: {"rulesets", "benchmarks", "systems": [{submitter, system,
/// system_name, division, availability, accelerator_model_name, accelerator_count,
/// host_processor_model_name, framework, system_description, scores: {benchmark: minutes or
/// null}, accuracy: {model/scenario: the results table's Accuracy text or null}, power:
/// {model/scenario: {power_result, power_units}} for power submissions, directories:
/// {benchmark: path}}], "results": [to_json of each directory],
/// "warnings"}. Scores keep full precision.
nlohmann::json to_json(const Summary& summary, const std::vector<DirectoryResult>& results, RcpPass pass);

/// Writes the summary in `format`: table (aligned columns), csv, markdown (one row per
/// system, scores rounded to 2 decimals; "-" (table) or an empty cell when the system has no
/// directory for a benchmark, "no score" when its directory has no valid score), or json.
/// Each inference column (<model>/<scenario>, its figure to 6 significant digits) is
/// followed by "<model>/<scenario> Accuracy": the Accuracy text of the official results table
/// ("ROUGE1: 44.5088  ROUGE2: 22.1004 …"), "-" (table) or empty where it was not read.
void write_summary(std::ostream& out, const Summary& summary, const std::vector<DirectoryResult>& results,
                   ReportFormat format, RcpPass pass);

}  // namespace mlperf
