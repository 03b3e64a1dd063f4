#pragma once
// Scoring one benchmark directory: runs → olympic mean → RCP check → score (scoring.md §2–§5),
// then the platform tag and the expected-result comparison.

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mlperf/facts.h"
#include "mlperf/platform.h"
#include "mlperf/rcp.h"
#include "mlperf/ruleset.h"
#include "mlperf/run.h"

namespace mlperf {

namespace inference {
struct InferenceData;
struct InferenceResult;
}  // namespace inference

/// The shipped data, loaded once: facts, RCP tables, platforms, expected results.
class DataContext {
 public:
  /// Loads `<root>/configs/{benchmarks,platforms,expected_results}.json` and reads RCP
  /// tables from `<root>/data/rcps/<usage>_<ruleset>/rcps_<benchmark>.json` on demand.
  /// Throws std::runtime_error naming the file that is missing or malformed.
  explicit DataContext(const std::filesystem::path& root);

  const Facts& facts() const { return facts_; }
  const PlatformTable& platforms() const { return platforms_; }
  const ExpectedResults& expected() const { return expected_; }
  const std::filesystem::path& root() const { return root_; }
  /// Publication date (YYYY-MM-DD) of each round, from configs/round_dates.json (empty map
  /// when the file is absent). Used to guess a directory's ruleset from its logs' dates.
  const std::map<Ruleset, std::string>& round_dates() const { return round_dates_; }

  /// The RCP records of `benchmark` under `ruleset`, sorted by batch size; empty when no
  /// table is shipped. Thread-safe; each table is read once. Throws std::runtime_error
  /// when a table exists but is malformed.
  std::shared_ptr<const std::vector<RcpRecord>> rcps(const BenchmarkFacts& benchmark,
                                                     const Ruleset& ruleset) const;
  /// The rulesets with an RCP folder shipped for `usage` ("training"/"hpc").
  std::vector<Ruleset> rcp_rulesets(const std::string& usage) const;
  /// configs/inference_rules.json and the "inference" figures of expected_results.json, read
  /// on first use (src/inference/score.cc). Thread-safe. Throws std::runtime_error naming
  /// the file when either is malformed (again on each call).
  const inference::InferenceData& inference() const;

 private:
  std::filesystem::path root_;
  Facts facts_;
  PlatformTable platforms_;
  ExpectedResults expected_;
  std::map<Ruleset, std::string> round_dates_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::shared_ptr<const std::vector<RcpRecord>>> rcp_cache_;
  mutable std::shared_ptr<const inference::InferenceData> inference_;
};

/// Finds the data root: `explicit_dir` when given; else $MLPERF_SCORE_DATA_DIR; else the
/// first of <exe dir>, <exe dir>/.., <exe dir>/../share/mlperf-score, the install prefix's
/// share/mlperf-score and the source tree that holds configs/benchmarks.json.
/// Throws std::runtime_error listing the places tried.
std::filesystem::path find_data_root(const std::optional<std::filesystem::path>& explicit_dir);

/// An MLPerf Inference scenario folder's loadgen run (see inference/score.h).
struct LoadgenRun {
  std::filesystem::path run_dir;  ///< folder holding mlperf_log_detail.txt and/or mlperf_log_summary.txt
  std::filesystem::path scenario_dir;  ///< the <model>/<scenario> folder; the run folder when bare
  std::string scenario;           ///< the scenario folder name; "" for a bare folder (from the log)
  bool bare = false;              ///< the logs lie in the folder itself, outside the submission layout
};

/// A folder holding result_*.txt files (training) or a loadgen run (inference, `loadgen`
/// set: benchmark_name is then the model folder), and what its place in a submission tree tells.
struct BenchmarkDir {
  std::filesystem::path path;     ///< as given or found below a given path
  std::string benchmark_name;     ///< the folder name (the benchmark, in MLPerf layout)
  std::string submitter;          ///< <org> of <org>/results/<system>/<benchmark>, or ""
  std::string system;             ///< <system> of that layout, else the parent folder name
  std::optional<std::filesystem::path> system_description;  ///< <org>/systems/<system>.json
  std::vector<std::filesystem::path> result_files;          ///< result_*.txt, natural order
  /// How result_files were chosen: "result_*.txt", "run-script names" (<DATESTAMP>_<N>.log),
  /// "MLLOG content" (*.log/*.txt holding :::MLLOG lines) or "--glob <PATTERN>".
  std::string file_rule = "result_*.txt";
  /// Files of the folder left out by that rule (*.log, *.txt), natural order.
  std::vector<std::filesystem::path> ignored_files;
  /// From a training_results_vX.Y (MLCommons repository) or training_vX.Y (reference
  /// archive) path component: X.Y.0.
  std::optional<Ruleset> path_ruleset;
  std::optional<LoadgenRun> loadgen;  ///< set for an inference scenario folder
  /// `path` made absolute and normal, as discovery found it ("" when not known): what the
  /// path says (division, round) is read from it without asking for the current directory.
  std::string absolute_path;
  /// Made by single_log_dir: one log given on its own, judged alone (no directory checks).
  bool single_log = false;
};

/// Problems met while walking the input paths (unreadable folders, missing paths).
struct DiscoveryError {
  std::string path;
  std::string message;
};

/// Every benchmark directory at or below `root`, in sorted path order. Never follows
/// symbolic links to directories (no loops); never writes. Errors are appended to `errors`.
/// A folder is a benchmark directory when it holds result_*.txt files; else, when it holds
/// files named as run scripts name them (<DATESTAMP>_<N>.log, NVIDIA style); else *.log or
/// *.txt files whose first 64 KiB hold an MLLOG line (issue #14). With `glob` (fnmatch
/// pattern on file names, --glob) only the files it matches are taken, in any folder.
std::vector<BenchmarkDir> find_benchmark_dirs(const std::filesystem::path& root,
                                              std::vector<DiscoveryError>& errors,
                                              const std::string& glob = "");

/// Natural order of file names: runs of digits compare by value ("x_2.log" < "x_10.log").
bool natural_less(const std::string& a, const std::string& b);

/// A result log given on its own (`check LOG`): its folder as the benchmark directory, the
/// log its only result file (any file name), single_log set. Never reads the file.
BenchmarkDir single_log_dir(const std::filesystem::path& file);

/// Which RCP set to use (§4.4).
enum class RcpPass { kPruned, kFull };

/// Options of `score`.
struct ScoreOptions {
  std::optional<Ruleset> ruleset;  ///< --ruleset; else from the path; else newest shipped
  RcpPass rcp_pass = RcpPass::kPruned;
  bool bert_train_samples = false;
  double tolerance_percent = 5.0;
  /// This node's platform from the device probe (`--probe`; source "probe", see
  /// device_probe.h probe_platform_tag). Used for directories whose system description names
  /// no accelerator and whose logs name no known platform (placeholders, system names); a
  /// directory naming a different platform keeps its own tag and gets a warning.
  std::optional<PlatformTag> probed_platform;
  /// The official compliance rules every log is judged by while it is read (Run::compliance),
  /// as the official summarizer does before it counts a run. Null: score_directory and
  /// score_directories load configs/compliance/ for the rulesets they judge under.
  const compliance::RuleLibrary* compliance_rules = nullptr;
};

/// Everything known about one scored directory.
struct DirectoryResult {
  BenchmarkDir dir;
  std::string benchmark;  ///< from submission_benchmark, else the folder name
  std::string division;   ///< from submission_division ("closed" when not logged)
  Ruleset ruleset;
  std::string ruleset_source;  ///< "--ruleset", "path", "guessed" or "newest shipped"
  std::string ruleset_reason;  ///< why a guessed ruleset was chosen (rounds, logs' date)
  PlatformTag platform;
  std::string accelerator_model_name;  ///< from the system description, when present
  std::vector<Run> runs;               ///< one per readable result file, natural order
  /// Per run, its part in the olympic mean: "counted", "trimmed (fastest)",
  /// "trimmed (slowest)" or "dropped: <reasons>" (§2, §3).
  std::vector<std::string> run_roles;
  std::vector<std::string> errors;     ///< unreadable files (each names the file)
  int required_runs = 0;
  int olympic_drop = 1;
  std::optional<double> olympic_minutes;  ///< §3; nullopt when too many runs dropped
  RcpVerdict rcp;
  std::optional<double> score_minutes;    ///< §5: olympic × factor (× 1.0 when the RCP check fails); nullopt without an olympic mean
  std::optional<double> scaling_json_factor;  ///< scaling.json "scaling_factor", when present
  std::optional<ExpectedComparison> expected;
  std::vector<std::string> warnings;
  bool passed = false;  ///< olympic score exists and the RCP check passed (closed division)
  /// Inference scenario folders only (dir.loadgen set): the figure and its validity; then
  /// `passed` is the run's validity and the training fields stay empty.
  std::shared_ptr<const inference::InferenceResult> inference;
  /// "passed", "failed", or "incomplete" when fewer result files than the benchmark requires
  /// were given (issue #14). An incomplete set keeps the official figures of the runs given
  /// (`olympic_minutes`, `rcp`, `score_minutes`: what the official summarizer reports for them,
  /// none when they are too few for an olympic mean), and `projected_rcp` and
  /// `projected_score_minutes` are those of a full set whose runs converge like these (each
  /// run's samples to converge and minutes repeated in turn up to `required_runs`).
  std::string verdict = "failed";
  std::optional<RcpVerdict> projected_rcp;        ///< incomplete sets: RCP check of the projected full set
  std::optional<double> projected_score_minutes;  ///< incomplete sets: projected score, minutes
};

/// YYYY-MM-DD (UTC) of `time_ms`, milliseconds since the epoch.
std::string utc_date(double time_ms);

/// The round logs were made for, when neither --ruleset nor the path names one (issue #14):
/// of the rounds (configs/benchmarks.json) holding `benchmark`, the first published
/// (configs/round_dates.json) on or after the earliest run_start of `runs`; after every
/// round's publication, the newest. nullopt when no run has a run_start or no round holds the
/// benchmark. `reason` gets one sentence saying why.
std::optional<Ruleset> guess_ruleset(const std::string& benchmark, const std::vector<Run>& runs,
                                     const DataContext& data, std::string& reason);

/// The official compliance rules (configs/compliance/training_X.Y.Z/) for the rulesets the
/// training directories among `dirs` are judged under; every shipped folder when one of them
/// has its ruleset guessed from its logs (no --ruleset, no round in its path). Empty when
/// `dirs` holds no training directory. What score_directories loads unless
/// ScoreOptions::compliance_rules is set. Throws std::runtime_error naming the config that is
/// missing or malformed.
compliance::RuleLibrary load_compliance_rules(const std::vector<BenchmarkDir>& dirs, const DataContext& data,
                                              const ScoreOptions& options);

/// Scores one directory (§2–§5). Reads only; never writes into the directory. Unreadable
/// files are reported in `errors` and left out.
DirectoryResult score_directory(const BenchmarkDir& dir, const DataContext& data,
                                const ScoreOptions& options);

/// Scores many directories on a small thread pool; results in the order given.
std::vector<DirectoryResult> score_directories(const std::vector<BenchmarkDir>& dirs,
                                               const DataContext& data, const ScoreOptions& options);

}  // namespace mlperf
