#pragma once
// MLPerf Inference scenario folders inside the scoring pipeline: finding them, scoring them
// into a DirectoryResult, and reporting them beside training directories.

#include <filesystem>
#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlperf/inference/result.h"
#include "mlperf/score.h"
#include "mlperf/system_description.h"

namespace mlperf::inference {

/// A published inference figure (configs/expected_results.json "inference").
struct PublishedFigure {
  std::string round;     ///< "v5.1"
  std::string model;     ///< model folder name, e.g. "llama2-70b-99.9"
  std::string scenario;  ///< Offline, Server, Interactive, SingleStream, MultiStream
  std::string system;    ///< system folder name; matched first
  std::string platform;  ///< canonical platform (configs/platforms.json); matched when no system matches
  double published = 0;  ///< in `units`
  std::string units;
  std::string source;
};

/// The inference data shipped under configs/.
struct InferenceData {
  InferenceRules rules;
  std::vector<PublishedFigure> expected;
  KeySet keys_read;  ///< rules.keys_read(), computed once

  /// accelerator_model_name of a system description, read once per file (every scenario
  /// folder of a system names the same one). Thread-safe. Throws std::runtime_error naming
  /// the file when it cannot be read (again on each call).
  std::string accelerator_of(const std::filesystem::path& system_description) const;
  /// The whole system description, read once per file as accelerator_of (kept as long as
  /// this InferenceData). Thread-safe. Throws std::runtime_error naming the file when it
  /// cannot be read.
  const SystemDescription& system_of(const std::filesystem::path& system_description) const;

  /// The figure for (round, model, scenario) on `system`, else the first on `platform`; nullptr.
  const PublishedFigure* find(const std::string& round, const std::string& model, const std::string& scenario,
                              const std::string& system, const std::string& platform) const;

 private:
  struct Cache {
    std::mutex mutex;
    std::map<std::string, SystemDescription> systems;
  };
  std::shared_ptr<Cache> cache_ = std::make_shared<Cache>();
};

/// Loads configs/inference_rules.json and the "inference" array of
/// configs/expected_results.json under `root`. Throws std::runtime_error naming the file.
InferenceData load_inference_data(const std::filesystem::path& root);

/// The loadgen run of the folder `path` if it is one: a scenario folder holding
/// performance/run_1 with a detail or summary log (submission layout: `performance_logs`,
/// which the caller found), or a folder holding the logs itself (`has_logs`: bare, as a
/// harness writes them). nullopt otherwise. Touches the file system only to make a path
/// absolute (the current directory).
std::optional<LoadgenRun> find_loadgen_run(const std::filesystem::path& path, bool has_logs, bool performance_logs);

/// True for the file names a loadgen run folder holds (mlperf_log_detail.txt, mlperf_log_summary.txt).
bool is_loadgen_log_name(const std::string& name);

/// True for folders discovery does not descend into below a given path: compliance test
/// runs (TEST01…, "compliance") whose logs are not results of their own.
bool is_compliance_folder(const std::string& name);

/// Scores one inference scenario folder (`dir.loadgen` set): reads the detail log (the
/// summary when the detail log is absent), applies the round's rules (round from the path,
/// else loadgen_version, else the newest), tags the platform from the system description,
/// and compares with the published figure (tolerance in percent, `options`). An unreadable
/// log is an error naming the file; `passed` is the run's validity.
DirectoryResult score_inference_directory(const BenchmarkDir& dir, const DataContext& data,
                                          const ScoreOptions& options);

/// The JSON object of an inference directory: directory, kind ("inference"), division,
/// submitter, system, model, scenario, loadgen_scenario, round, metric,
/// performance_result (full precision), units, inferred, valid, checks[{name, passed,
/// value, limit, line, message}], log_file, from_summary, platform, expected, errors.
nlohmann::json to_json(const DirectoryResult& result);

/// The same object as JSON text, exactly as to_json(result).dump(2) with invalid UTF-8
/// replaced gives it (keys sorted, 2-space indent, nlohmann's number and string forms), written
/// without building the JSON tree: the report of a whole round spent most of its time building
/// and freeing those trees (issue #13's speed target). `indent` spaces follow every newline
/// (the object's place inside a larger document).
std::string to_json_text(const DirectoryResult& result, std::size_t indent = 0);

/// The human report of an inference directory (the `table` format of `score`).
void write_table(std::ostream& out, const DirectoryResult& result);

/// How much better `result`'s figure is than `baseline`'s: result / baseline for
/// throughputs, baseline / result for latencies (lower is better); nullopt when either is
/// missing, not inference, in other units, or not positive.
std::optional<double> speedup(const DirectoryResult& baseline, const DirectoryResult& result);

/// The headline figure as the official table prints it: 6 significant digits.
std::string figure_text(double value);

}  // namespace mlperf::inference
