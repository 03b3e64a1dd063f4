#pragma once
// MLPerf Inference scenario folders inside the scoring pipeline: the round's rules and
// published figures, and a scenario folder scored into a DirectoryResult (the report stage
// writes it: report/inference_report.h).

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlperf/inference/accuracy.h"
#include "mlperf/inference/compliance_tests.h"
#include "mlperf/inference/nameplate.h"
#include "mlperf/inference/result.h"
#include "mlperf/inference/submission.h"
#include "mlperf/mllog/discovery.h"
#include "mlperf/mllog/path_text.h"
#include "mlperf/mllog/system_description.h"
#include "mlperf/training/data_context.h"
#include "mlperf/training/score.h"

namespace mlperf::inference {

/// A published inference figure (configs/expected_results.json "inference").
struct PublishedFigure {
  std::string round;     ///< "v5.1"
  std::string model;     ///< model folder name, e.g. "llama2-70b-99.9"
  std::string scenario;  ///< Offline, Server, Interactive, SingleStream, MultiStream
  std::string system;    ///< system folder name; matched first
  std::string platform;  ///< canonical platform (configs/platforms.json); matched when no system matches
  /// "closed" or "open" where the table has rows of both for one system, model and scenario
  /// (v6.1's dlrm-v3 on 8xMI355X_2xEPYC_9575F); "" for a row that stands for either.
  std::string division;
  double published = 0;  ///< in `units`
  std::string units;
  std::string source;
};

/// The inference data shipped under configs/.
struct InferenceData {
  InferenceRules rules;
  AccuracyRules accuracy;  ///< configs/inference_accuracy.json
  ComplianceRules compliance;  ///< configs/inference_compliance.json
  SubmissionRules submission;  ///< configs/inference_submission.json
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

  /// judge_submission_tree of a submitter folder under `round`, judged once per folder and
  /// round and kept as long as this InferenceData (`drops_rows` parallel to `checks`); the
  /// first call's `listed` (BenchmarkDir::submitter_listings, or null) spares the walk the
  /// folders discovery listed. Thread-safe; throws std::invalid_argument for a round without
  /// submission rules.
  struct SubmissionTree {
    /// The checks, shared by the submitter's scenario folders (SubmissionChecks).
    SubmissionChecks::Part checks = std::make_shared<const std::vector<ValidityCheck>>();
    std::vector<bool> drops_rows;
    bool any_failed = false;     ///< a check fails: the submission fails
    bool drops_a_row = false;    ///< a check that drops its folder's row fails
    /// The listing of each folder of the submitter that the walk listed itself; the scenario
    /// folders' own checks read these and their BenchmarkDir::submitter_listings (what
    /// discovery listed; FolderListings::Use) instead of listing the folders anew.
    FolderListings listings;
  };
  const SubmissionTree& tree_of(PathRef submitter_dir, const std::string& round,
                                const FolderListings* listed = nullptr) const;

  /// judge_system_description of a system description under (`round`, `division`), judged
  /// once per file, round and division and kept as long as this InferenceData (every scenario
  /// folder of a system is judged against the same file). Thread-safe; throws as
  /// judge_system_description (std::invalid_argument for a round without submission rules).
  const std::vector<ValidityCheck>& system_checks_of(PathRef system_json, const std::string& round,
                                                     const std::string& division) const;

  /// system_checks_of's checks as a scenario folder's submission checks take them: all but
  /// network_mode (judged with the run), shared by the system's folders, and what they say.
  struct SystemJudgment {
    std::vector<ValidityCheck> checks;    ///< all of them (system_checks_of)
    SubmissionChecks::Part shared;         ///< without network_mode
    bool any_failed = false;               ///< one of `shared` fails
    bool description_read = false;         ///< system_description passed
    std::string system_type;               ///< system_type's value when a string, else ""
  };
  /// The same judgment as system_checks_of, with the shared part. Thread-safe; throws as it.
  const SystemJudgment& system_judgment_of(PathRef system_json, const std::string& round,
                                           const std::string& division) const;

  /// mapped_model (accuracy.h) with `<division>/<org>/model_mapping.json` read once per
  /// submitter folder. Thread-safe; never throws except std::bad_alloc.
  std::string mapped_model_of(PathRef scenario_dir, const std::string& model) const;

  /// The names of the folders in `model_dir` (a scenario folder's parent), listed once per
  /// folder (required scenarios are judged from them for each of its scenario folders).
  /// Thread-safe; a folder that cannot be listed gives the names read before the error.
  const std::set<std::string>& scenario_folders_of(PathRef model_dir) const;

  /// read_nameplate_power (nameplate.h) of a v6.1 system's nameplate power file, read once per
  /// file and kept as long as this InferenceData. Thread-safe; never throws except std::bad_alloc.
  const NameplatePower& nameplate_of(const std::string& file) const;

  /// The figure for (round, model, scenario) on `system`, else the first on `platform`, among
  /// the rows of `division` and those of no division (any row where `division` is ""); nullptr.
  const PublishedFigure* find(const std::string& round, const std::string& model, const std::string& scenario,
                              const std::string& system, const std::string& platform,
                              const std::string& division) const;

 private:
  struct TreeSlot {
    std::mutex walking;  // held by the one thread walking the tree
    bool walked = false;
    SubmissionTree tree;
  };
  struct Cache {
    std::mutex mutex;
    std::map<std::string, SystemDescription> systems;
    std::map<std::string, std::shared_ptr<TreeSlot>> trees;  // "<round>\n<submitter folder>"
    std::map<std::string, SystemJudgment> system_checks;  // "<round>\n<division>\n<file>"
    std::map<std::string, std::map<std::string, std::string>> model_mappings;  // org folder → mapping
    std::map<std::string, std::set<std::string>> scenario_folders;  // model folder → folder names
    std::map<std::string, NameplatePower> nameplates;               // file → as read
  };
  std::shared_ptr<Cache> cache_ = std::make_shared<Cache>();
};

/// Loads configs/inference_rules.json, inference_accuracy.json, inference_compliance.json,
/// inference_submission.json and the "inference" array of
/// configs/expected_results.json under `root`. Throws std::runtime_error naming the file.
InferenceData load_inference_data(const std::filesystem::path& root);

/// Scores one inference scenario folder (`dir.loadgen` set): reads the detail log (the
/// summary when the detail log is absent), applies the round's rules (round from the path,
/// else loadgen_version, else the newest), tags the platform from the system description,
/// and compares with the published figure (tolerance in percent, `options`). An unreadable
/// log is an error naming the file; `passed` is the run's validity. In the submission layout
/// (<division>/<org>/results/<system>/<model>/<scenario>) the round's submission-level rules
/// are judged too (submission.h): system description, measurements, required scenarios.
DirectoryResult score_inference_directory(const BenchmarkDir& dir, const DataContext& data,
                                          const ScoreOptions& options);

/// How much better `result`'s figure is than `baseline`'s: result / baseline for
/// throughputs, baseline / result for latencies (lower is better); nullopt when either is
/// missing, not inference, in other units, or not positive.
std::optional<double> speedup(const DirectoryResult& baseline, const DirectoryResult& result);

/// The headline figure as the official table prints it: 6 significant digits.
std::string figure_text(double value);

}  // namespace mlperf::inference
