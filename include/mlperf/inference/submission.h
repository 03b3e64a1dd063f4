#pragma once
// The submission-level rules of the official MLPerf Inference submission checker, per round: the
// system description <division>/<org>/systems/<system>.json, the measurements of each scenario
// and the scenarios each model must have on each system type. The rules are data,
// configs/inference_submission.json, written by scripts/extract-inference-submission from
// mlcommons/inference tools/submission/submission_checker.py at tags v4.1, v5.0 and v5.1.1
// (rounds v4.1, v5.0, v5.1: "the script") and from its submission_checker/ package at HEAD
// (rounds v6.0, v6.1: "the package"). Where the two generations differ in code rather than in
// constants, the file's "behaviour" and "measurements" entries say which way a round goes.
//
// What the checker does when a rule fails matters as much as the rule: it either drops the
// scenario's row from the results table (the run is not published) or only counts an error (the
// row stays, the submission as a whole fails: "SUMMARY: submission has errors", exit status 1).
// Each function below states it per rule. Where the script raises an exception that it does not
// catch (a missing "status", a non-string "is_network", a missing "weight_data_types"), the whole
// checker stops; such a failure's message says so ("the checker stops: ...").

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mlperf/inference/result.h"
#include "mlperf/mllog/folder_listing.h"
#include "mlperf/mllog/path_text.h"

namespace mlperf::inference {

/// The scenarios each model must have (required) and may have (optional) on one system type
/// (MODEL_CONFIG[round]["required-scenarios-<type>"], ["optional-scenarios-<type>"]).
struct ScenarioRequirements {
  std::map<std::string, std::vector<std::string>> required;  ///< mlperf model → scenarios
  std::map<std::string, std::vector<std::string>> optional;  ///< mlperf model → scenarios
};

/// Where a round keeps the measurements of one scenario and what they must hold. Paths are
/// relative to <division>/<submitter> with {system}, {benchmark} (the model folder) and
/// {scenario} (the scenario folder) replaced.
struct MeasurementRules {
  std::string dir;  ///< "measurements/{system}/{benchmark}/{scenario}" (script), "results/…" (package)
  /// "{system}*.json": searched as check_measurement_dir searches; otherwise a fixed file name
  /// ("measurements.json", the package's MEASUREMENTS_PATH).
  std::string json;
  /// "code/{benchmark}/{impl}": the script's code folder, with its per-model fallback and its
  /// file redirect; otherwise one folder that must exist ("src", the package's SRC_PATH).
  std::string code;
  std::vector<std::string> required_files;   ///< REQUIRED_MEASURE_FILES
  std::vector<std::string> required_fields;  ///< SYSTEM_IMP_REQUIRED_FILES (fields of the json)
  /// The script reads j["weight_data_types"] (v5.0, v5.1): a json without it stops the checker.
  bool weight_data_types_read = false;
  /// v4.1: check_measurement_dir returns a variable only its found-json branch sets, so a
  /// folder without <system>*.json stops the checker (UnboundLocalError).
  bool missing_json_stops_checker = false;
  /// v4.1: the (closed, network) model folders whose .conf files may declare equal-issue mode,
  /// as Python compiled Config.requires_equal_issue's list (two entries glued by a missing comma).
  std::set<std::string> equal_issue_conf_models;
  std::vector<std::string> equal_issue_conf_files;  ///< the .conf files read for it, in order
  bool user_conf_optional_for_endpoints = false;    ///< package: an endpoints run needs no user.conf
};

/// The folder checks the script (v4.1, v5.0, v5.1) applies in check_results_dir before it
/// reads any result ("tree" in the file; the v6.x package has none).
struct TreeRules {
  std::vector<std::string> root_file_suffixes_allowed;  ///< files at the submission root: ".md", ".pdf"
  std::vector<std::string> root_folders_ignored;        ///< ".git", ".github", "assets": no error
  /// Per <division>/<submitter>, in the checker's order: broken_symlinks, file_size,
  /// git_unfriendly_names, space_names, pycache, empty_dirs.
  std::vector<std::string> submitter_checks;
  std::uintmax_t file_size_limit_bytes = 0;  ///< FILE_SIZE_LIMIT_MB × 2^20
  bool results_coverage = false;  ///< v5.1: every measurements/<system> and systems/<system>.json has results
  bool calibration = false;       ///< v5.1: calibration.md or documentation/calibration.md (not open)
};
/// The submission-level rules of one round.
struct RoundSubmissionRules {
  std::string source;                                ///< the checker file and functions they come from
  std::string checker;                               ///< "submission_checker.py" or "submission_checker package"
  std::set<std::string> models;                      ///< MODEL_CONFIG[round]["models"]
  std::map<std::string, std::string> model_mapping;  ///< folder name → mlperf model
  /// Config.get_mlperf_model's guesses, in its order: a folder name holding `first` is `second`.
  std::vector<std::pair<std::string, std::string>> model_guesses;
  std::map<std::string, std::string> system_types;         ///< valid system_type → scenarios key
  std::map<std::string, ScenarioRequirements> scenarios;   ///< "datacenter", "edge", "datacenter,edge"
  std::map<std::string, std::string> scenario_mapping;     ///< SCENARIO_MAPPING: "offline" → "Offline"
  std::vector<std::string> valid_divisions;                ///< VALID_DIVISIONS
  std::vector<std::string> valid_availabilities;           ///< VALID_AVAILABILITIES (lower case)
  std::vector<std::string> system_desc_required_fields;    ///< SYSTEM_DESC_REQUIRED_FIELDS
  std::vector<std::string> system_desc_meaningful_fields;  ///< …_MEANINGFUL_RESPONSE_REQUIRED_FIELDS
  std::vector<std::string> system_desc_numeric_fields;     ///< …_NUMERIC_RESPONSE_REQUIRED_FIELDS (package)
  std::vector<std::string> system_desc_power_fields;       ///< SYSTEM_DESC_REQUIRED_FIELDS_POWER
  std::string network_mode_field = "is_network";           ///< SYSTEM_DESC_IS_NETWORK_MODE
  std::vector<std::string> network_mode_required_fields;   ///< SYSTEM_DESC_REQUIRED_FIELDS_NETWORK_MODE

  // How the round's checker applies them ("behaviour").
  /// Required scenarios are counted among the scenario folders present (package) rather than
  /// among the scenarios whose performance run passed (script).
  bool scenarios_counted_by_folder = false;
  bool one_of_server_interactive = false;              ///< v5.1 on: one of Server/Interactive where both are optional
  bool invalid_model_stops_checker = false;            ///< package: a model with no scenarios for the type crashes it
  std::set<std::string> required_scenarios_divisions;  ///< where missing scenarios are errors
  bool division_case_insensitive = false;              ///< package: "Closed" matches closed/
  /// package: the network fields are required when "is_network" holds any non-empty value
  /// (even "false"); script: only when it is the string "true" in any case.
  bool network_fields_when_truthy = false;
  bool unknown_fields_warning = false;  ///< script: fields outside the lists are logged as warnings
  bool exceptions_stop_checker = true;  ///< script: uncaught; package: each check catches its own
  /// package: performance/run_1's file list is checked in power folders only
  /// (PowerCheck.required_files_check); script: in every scenario folder (check_results_dir).
  bool run_files_only_with_power = false;
  /// package from v6.1 (NAMEPLATE_POWER_PATH): the submitter's nameplate power file,
  /// "systems/{system}_power.yaml", whose PSU capacities give a power submission's design power
  /// (SystemCheck.nameplate_power_check), read with nameplate.h.
  std::optional<std::string> nameplate_power_file;
  /// nameplate_power_file of `system` joined to `submitter_dir` (<division>/<org>), as text;
  /// nullopt for a round without one.
  std::optional<std::string> nameplate_power_path(const std::string& submitter_dir, const std::string& system) const;
  MeasurementRules measurements;
  std::optional<TreeRules> tree;  ///< the script's folder checks; nullopt for the package

  /// The mlperf model a model folder stands for, as Config.get_mlperf_model maps it: the name
  /// itself when it is a model of the round, else model_mapping, else `extra_mapping` (the open
  /// division's model_mapping.json), else the first of model_guesses whose text it holds
  /// (mobilenet/efficientnet/resnet50 → resnet, bert-99.9, bert-99; v6.x: llama3_1-405b), else
  /// the name.
  std::string mlperf_model(const std::string& folder, const std::map<std::string, std::string>* extra_mapping = nullptr) const;
  /// The scenarios key ("datacenter", "edge", "datacenter,edge") of a system_type value
  /// ("edge,datacenter" too), as Config.set_type selects it; nullptr when the value is invalid.
  const ScenarioRequirements* scenarios_of(const std::string& system_type) const;
};

/// configs/inference_submission.json.
struct SubmissionRules {
  std::map<std::string, RoundSubmissionRules> rounds;  ///< "v5.1" → rules

  /// The rules of `round`. Throws std::invalid_argument naming the round when the file has none.
  const RoundSubmissionRules& at(const std::string& round) const;
  /// Loads the file. Throws std::runtime_error naming the file when it is missing or malformed.
  static SubmissionRules load(const std::filesystem::path& file);
};

/// Judges the system description `system_json` (<division>/<submitter>/systems/<system>.json;
/// the submitter is the name of the folder above systems/) for a submission in the division
/// folder `division`, as round `round`'s checker does. Returns one ValidityCheck per rule, in
/// this order, passing ones included (`line`: the line of the JSON file holding the field, 0
/// when it is absent; `file`, where ValidityCheck has the member: `system_json`):
///  - system_description: the file exists and is a JSON object; when it fails, no other check
///    follows. Script: a missing file is "no system_desc" (the system's results are NoResults,
///    the system skipped); unparseable JSON stops the checker. Package: the loader reads the
///    file before any check, so either stops the checker.
///  - division_folder: `division` is one of VALID_DIVISIONS. Script: another folder is only
///    logged ("invalid division in input dir") and skipped, no NoResults entry; package: skipped
///    silently. Either way none of its results are published.
///  - availability: "status", lower-cased, is one of VALID_AVAILABILITIES.
///  - system_type: "system_type" is one of the values Config.set_type accepts.
///  - network_mode: is_system_over_network (script) / SystemCheck.network_check (package):
///    "is_network" read as a string, true when it is "true" in any case; a closed system must
///    not be a network one, a network-division system must be; open takes either.
///  - system_description_fields: SYSTEM_DESC_REQUIRED_FIELDS, plus the network-mode fields when
///    the system is a network one (script: is_network "true"; package: any non-empty is_network,
///    so "false" asks for them too); value: the missing fields.
///  - system_description_meaningful_fields: the present fields of
///    SYSTEM_DESC_MEANINGFUL_RESPONSE_REQUIRED_FIELDS must not be empty (Python's falsiness:
///    "", 0, false, null, [], {}); value: the empty fields.
///  - system_description_numeric_fields (package, only when the list is not empty): logged as
///    an error but never fails the check (SystemCheck.required_fields_check); passed=true.
///  - system_description_unknown_fields (script only): fields in no list are logged as warnings
///    (check_system_desc_id); passed=true, value the fields.
///  - submitter: "submitter" equals the submitter folder, ignoring case.
///  - division: "division" equals `division` (script: exactly; package: ignoring case).
/// Consequence of a failure. Script (check_results_dir, v4.1/v5.0/v5.1): the checker tests
/// availability, then system_type, then check_system_desc_id (network mode, fields, submitter,
/// division) and stops at the first kind that fails: results[results/<system>] = None and the
/// system is skipped, so no row of it reaches the table and the submission fails. A missing or
/// non-string "status" or "submitter", or a non-string "is_network", raises and stops the
/// checker. Package (SystemCheck, v6.0/v6.1): every check runs for every scenario of the system;
/// any failure (an exception included, caught per check) makes each scenario's row invalid, so
/// none is published and the submission fails. All checks are reported here whatever the
/// order. Never throws for a file's content; throws std::invalid_argument for an unknown round.
std::vector<ValidityCheck> judge_system_description(const std::filesystem::path& system_json, const SubmissionRules& rules,
                                                    const std::string& round, const std::string& division);

/// Judges the measurements of scenario folder `scenario` of model folder `model_folder` on
/// `system`, under `submitter_dir` (<division>/<submitter>; the division is the name of the
/// folder above it), as round `round`'s checker does. The checks come in the order
/// measurements_dir, measurements_files, measurements_json, measurements_json_fields, code_dir,
/// equal_issue_conf, those that do not apply left out; each one's `file` (where ValidityCheck
/// has the member) is the folder or file it read.
/// Script (check_measurement_dir, v4.1/v5.0/v5.1), folder measurements/<system>/<model>/<scenario>:
///  - measurements_dir: the folder exists; when it fails, no other check follows.
///  - measurements_files: REQUIRED_MEASURE_FILES (v4.1: mlperf.conf, user.conf, README.md; then
///    user.conf, README.md) are files there and not empty; value: "<file> missing"/"<file> empty".
///  - measurements_json: the first file, in name order, that starts with <system> and ends with
///    "_<scenario>.json" or ".json" (the checker takes the first in os.listdir order, which the
///    file system decides; the message lists the candidates when there are several). The
///    scenario-specific name is not preferred: it only changes where <impl> ends. Unparseable
///    JSON stops the checker; so does a missing json in v4.1 (UnboundLocalError).
///  - measurements_json_fields: SYSTEM_IMP_REQUIRED_FILES present and not empty (Python's
///    falsiness); v5.0 and v5.1 read "weight_data_types" first, so its absence stops the checker.
///  - code_dir: <impl> is the json's name between "<system>_" and the suffix; the code folder is
///    code/<model>/<impl>, or code/<text>/<impl> when code/<model> is a file holding <text>
///    (the redirect); it fails only when neither that folder nor its parent exists.
///  - equal_issue_conf (v4.1, closed/network, model folders of equal_issue_conf_models): whether
///    mlperf.conf then user.conf set <model>.<scenario>.sample_concatenate_permutation = 1
///    (model without -99/-99.9, "*" matching any); passed unless a line breaks the checker's
///    parser (a line without exactly one "=", a key without exactly three dotted parts), which
///    stops it. When set, check_results_dir accepts the run without equal-issue mode in its log.
/// Consequence (check_results_dir): a missing folder is "no measurement_dir"; any other failure
/// is "measurement_dir has issues"; either way results[<measurements dir>] = None, the scenario
/// is skipped before its accuracy and performance are read: its row is dropped and the
/// submission fails. It is not counted as a valid result for the required scenarios.
/// Package (MeasurementsCheck, v6.0/v6.1), folder results/<system>/<model>/<scenario>:
///  - measurements_dir: the scenario folder exists (no other check follows when it does not).
///  - measurements_json: measurements.json exists there (missing_check); unparseable JSON stops
///    the checker (the loader reads it).
///  - measurements_files: REQUIRED_MEASURE_FILES there, not empty; user.conf is not required of
///    an endpoints run (neither performance/run_1/ nor accuracy/ holds mlperf_log_detail.txt).
///  - measurements_json_fields: as above (no field stops this checker).
///  - code_dir: <division>/<submitter>/src exists (directory_exist_check).
/// `power`: the scenario is a power submission; script rounds then also ask for the analyzer
/// table and power settings (measurements_power_files, judge_power_measurement_files in
/// power.h), after the checks above; the package checker asks for neither.
/// Consequence: any failure makes the scenario's row invalid (results[perf_path] = None): not
/// published, the submission fails. Never throws for the folder's content; throws
/// std::invalid_argument for an unknown round.
std::vector<ValidityCheck> judge_measurements(PathRef submitter_dir, const std::string& system,
                                              const std::string& model_folder, const std::string& scenario,
                                              const SubmissionRules& rules, const std::string& round,
                                              bool power = false);

/// Judges which scenarios model `mlperf_model` (already mapped: mlperf_model()) has on a
/// system of type `system_type` in `division`, as round `round`'s checker does. Scenario names
/// may be folder spellings ("offline"): SCENARIO_MAPPING is applied.
/// Script (check_results_dir, v4.1/v5.0/v5.1) counts `scenarios_with_valid_results`: the
/// scenarios whose performance run passed (the checker discards a scenario from the required
/// set once check_performance_dir accepts it, whatever its accuracy and compliance; a scenario
/// skipped earlier — measurements, missing accuracy.txt — does not count).
/// Package (loader.py check_scenarios, v6.0/v6.1) counts the scenario folders present:
/// `scenario_folders` when given, else `scenarios_with_valid_results` stands for them.
/// Package, open division: check_scenarios does not run; the only check is a passing
/// required_scenarios saying so. Otherwise, in order:
///  - system_type: a value Config.set_type accepts (else only this check; script: the system
///    was already skipped by judge_system_description's rule; package: set_type raises and
///    stops the checker).
///  - model: closed/network: a model of the round (script: "invalid model for closed/network",
///    results[<model>] = None, the model skipped); all divisions: a model with required
///    scenarios for the system type (script: "invalid model ... system_type", results[<model>]
///    = None, the model skipped, so none of its rows is published; package: closed/network only,
///    get_required's None stops the checker; open: not checked).
///  - scenarios_known (closed/network): no scenario outside required ∪ optional. Script: that
///    scenario is "ignoring scenario ... (neither required nor optional)", its row dropped and
///    the submission fails; package: every scenario row of the model is invalid.
///  - required_scenarios: none of the required ones missing; value: the missing ones. Closed and
///    network, script: "does not have all required scenarios", results[<model>] = None: the rows
///    of the other scenarios stay in the table but the submission fails; package: every scenario
///    row of the model is invalid (none published). Open: script logs it only under --debug,
///    package does not look: passed=true with a message.
///  - server_or_interactive (rounds with the rule, where the model has both Server and
///    Interactive optional on the type): at least one of them. Script (v5.1): closed/network,
///    counted like required ones, results[name] = None where name is the model folder when
///    required scenarios are missing, else the last scenario folder read (whose row is already
///    in the table): the submission fails. Package: as a missing required scenario. Open:
///    passed=true with a message when neither is there.
/// Never throws for the inputs; throws std::invalid_argument for an unknown round.
std::vector<ValidityCheck> judge_required_scenarios(const std::string& system_type, const std::string& mlperf_model,
                                                    const std::set<std::string>& scenarios_with_valid_results,
                                                    const SubmissionRules& rules, const std::string& round,
                                                    const std::string& division,
                                                    const std::optional<std::set<std::string>>& scenario_folders = std::nullopt);

/// Judges the folder tree of the submitter folder `submitter_dir` (<root>/<division>/<submitter>)
/// as round `round`'s script checker does before it reads any result (check_results_dir; the
/// v6.x package has no such checks: returns nothing). Checks, in the checker's order, each
/// failing one with the offending paths as `value` (relative to <root>, as the checker lists
/// them) and `file` the first of them:
///  - root_files: no file at <root> other than *.md and *.pdf. Failure: results["root"] = None
///    and the checker leaves the division loop — no row of the whole submission is published.
///  - division_files: no file directly in <division>. Failure: the division is skipped.
///  - broken_symlinks, file_size (no file over the limit, 50 MiB), git_unfriendly_names (no
///    file or folder whose name starts with "."), space_names (none with a space), pycache (no
///    folder ending in __pycache__), empty_dirs (no folder without entries). Failure: the
///    submitter is skipped — none of its rows is published. The script stops at the first of
///    these that fails; all are reported here.
///  - results_coverage (v5.1): every folder of measurements/ and every systems/*.json has a
///    results/<system> folder; calibration (v5.1, not open): calibration.md or
///    documentation/calibration.md. Failure: the submission fails, the rows stay.
/// `drops_rows` (same length as the result) says per check whether its failure withholds the
/// submitter's rows. A broken symlink is one whose target, read as the checker reads it
/// (relative targets against the submission root, the checker's working folder), does not
/// exist. With `listings`, the listing of each folder the walk lists is kept there, by its
/// path below the submitter folder as given, made normal (FolderListings). With `listed` (the
/// same keys: what discovery listed of the tree, BenchmarkDir::submitter_listings), a folder
/// it holds is read from it instead of being listed again (and not kept again in `listings`:
/// a reader of the tree's folders reads both). Never throws for the tree's
/// content; throws std::invalid_argument for an unknown round.
std::vector<ValidityCheck> judge_submission_tree(const std::filesystem::path& submitter_dir, const SubmissionRules& rules,
                                                 const std::string& round, std::vector<bool>* drops_rows = nullptr,
                                                 FolderListings* listings = nullptr,
                                                 const FolderListings* listed = nullptr);

}  // namespace mlperf::inference
