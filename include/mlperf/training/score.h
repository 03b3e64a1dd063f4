#pragma once
// Scoring one training benchmark directory: runs → olympic mean → RCP check → score
// (scoring.md §2–§5), then the platform tag and the expected-result comparison. The
// DirectoryResult it fills is the one every report reads (an inference scenario folder fills
// it too: inference/score.h).

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mlperf/compliance/rules.h"
#include "mlperf/device/platform.h"
#include "mlperf/mllog/discovery.h"
#include "mlperf/mllog/ruleset.h"
#include "mlperf/training/data_context.h"
#include "mlperf/training/facts.h"
#include "mlperf/training/rcp.h"
#include "mlperf/training/run.h"
#include "mlperf/training/weak_scaling.h"

namespace mlperf {

namespace inference {
struct InferenceResult;
}  // namespace inference

/// Which RCP set to use (§4.4).
enum class RcpPass { kPruned, kFull };

/// Options of `score`.
struct ScoreOptions {
  std::optional<Ruleset> ruleset;  ///< --ruleset; else from the path; else newest shipped
  /// --usage (training or hpc): the usage of --ruleset, and of a directory whose path names
  /// no round. Else the path's round (hpc_results_vX.Y), else the HPC layout
  /// (<system>/strong|weak/<benchmark>) or an HPC benchmark's facts say hpc; else training.
  std::optional<Usage> usage;
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
  Ruleset ruleset;             ///< its usage says training or MLPerf HPC
  std::string ruleset_source;  ///< "--ruleset", "path", "guessed" or "newest shipped"
  /// "strong" (training, and MLPerf HPC strong/ folders: time to train) or "weak" (MLPerf HPC
  /// weak/ folders: `weak` holds the figures; no olympic mean, no RCP check, no score_minutes).
  std::string scaling = "strong";
  std::optional<WeakScalingScore> weak;  ///< scaling "weak" only
  /// Weak scaling only: the RCP check the official package checker runs on the folder (its
  /// runs as a strong set would be checked; package_checker.py checks every closed folder),
  /// which `check` reports. The summarizer's figures do not use it: `rcp` stays not_checked.
  std::optional<RcpVerdict> package_rcp;
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
/// benchmark. `reason`, where given, gets one sentence saying why (a guess only forecast
/// leaves it out: the sentence costs more than the guess).
std::optional<Ruleset> guess_ruleset(const std::string& benchmark, const std::vector<Run>& runs,
                                     const DataContext& data, std::string* reason = nullptr);

/// `score --probe` (spec/devices.md): tags `out` with the platform this node's GPUs map to
/// (ScoreOptions::probed_platform; nothing without one). A directory whose tag is not a known
/// platform (a placeholder in the logs, a system folder's name, nothing) takes the probed
/// one, with a warning naming what it had; a known platform, or an accelerator a system
/// description names, that differs from the probed one is kept, with a warning. `named_by`
/// begins those warnings, saying where the tag came from ("the logs say"). Never throws but
/// std::bad_alloc.
void apply_probed_platform(DirectoryResult& out, const ScoreOptions& options, const std::string& named_by);

/// The official compliance rules (configs/compliance/training_X.Y.Z/) for the rulesets the
/// training directories among `dirs` are judged under; every shipped folder when one of them
/// has its ruleset guessed from its logs (no --ruleset, no round in its path). Empty when
/// `dirs` holds no training directory. What score_directories loads unless
/// ScoreOptions::compliance_rules is set. Throws std::runtime_error naming the config that is
/// missing or malformed.
compliance::RuleLibrary load_compliance_rules(const std::vector<BenchmarkDir>& dirs, const DataContext& data,
                                              const ScoreOptions& options);

/// What load_compliance_rules loads for some directories: the rulesets their training
/// directories are judged under, and whether one is guessed from its logs (then every rule
/// folder is loaded: the guess may name any round).
struct ComplianceNeeds {
  std::set<Ruleset> rulesets;
  bool guessed = false;

  /// True when rules loaded for this cover `other`'s.
  bool covers(const ComplianceNeeds& other) const;
  /// Adds `other`'s needs to these.
  void merge(const ComplianceNeeds& other);
};

/// The ComplianceNeeds of `dirs` under `options`.
ComplianceNeeds compliance_needs(const std::vector<BenchmarkDir>& dirs, const DataContext& data,
                                 const ScoreOptions& options);

/// Loads the rules `needs` names from the shipped configs; an empty library when it names no
/// ruleset. Throws std::runtime_error as load_compliance_rules.
compliance::RuleLibrary load_compliance_rules(const ComplianceNeeds& needs, const DataContext& data);

/// Scores one training directory (§2–§5; `dir.loadgen` unset). Reads only; never writes into
/// the directory. Unreadable files are reported in `errors` and left out. Loads the official
/// compliance rules it needs unless ScoreOptions::compliance_rules brings them.
DirectoryResult score_training_directory(const BenchmarkDir& dir, const DataContext& data,
                                         const ScoreOptions& options);

/// Scores many training directories (none with `loadgen` set): every result file of every
/// directory read on one small thread pool (the biggest first), then each directory scored;
/// results in the order given. Each directory is moved into its result (DirectoryResult::dir):
/// pass the vector as an rvalue where it is not needed afterwards, and the file lists are
/// never held twice.
std::vector<DirectoryResult> score_training_directories(std::vector<BenchmarkDir> dirs, const DataContext& data,
                                                        const ScoreOptions& options);

}  // namespace mlperf
