#pragma once
// What the official training package checker judges beyond each log (issue #22;
// mlperf_logging/package_checker/package_checker.py check_training_package, seed_checker.py,
// power_checker.py, system_desc_checker/system_desc_checker.py): the system descriptions, the
// result files of each benchmark directory, each run's seeds, the power results, and the
// package_checker_params bypasses. Its settings are data (configs/package_checker.json);
// docs/training-rulesets.md names where each rule lives in the official code.
//
// A benchmark directory in the submission layout is <org>/results/<system>/<benchmark>
// (training) or <org>/results/<system>/{strong,weak}/<benchmark> (HPC); its system
// description is <org>/systems/<system>.json. A folder outside that layout (a reproducer's
// own runs) is judged on what it has, with a warning that it is not a package.

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mlperf/mllog/ruleset.h"
#include "mlperf/training/check.h"
#include "mlperf/training/facts.h"
#include "mlperf/training/score.h"

namespace mlperf {

/// configs/package_checker.json: the official package checker's settings.
struct PackageRules {
  /// Rulesets whose packages get the system description, seed and RCP checks (1.0.0 – 6.1.0).
  std::set<Ruleset> checked_rulesets;
  std::string params_file = "package_checker_params";  ///< the bypass file's name
  std::string rcp_bypass_line = "rcp-bypass";           ///< the line that bypasses the RCP check
  std::string seed_bypass_line = "seed-checker-bypass"; ///< the line that bypasses the seed checker
  std::vector<std::string> required_fields;             ///< of every system description
  /// Fields the checker joins into a results-table row: when present they must be strings,
  /// else it stops with a TypeError (system_desc_checker.py table_csv_prefix).
  std::vector<std::string> table_fields;
  /// Per usage ("training"), the allowed values of a system description's "status".
  std::map<std::string, std::vector<std::string>> status_options;
  Ruleset status_checked_from;  ///< the first ruleset whose status is checked (4.0.0)
  /// usage → "X.Y" → the benchmark folder names the package checker judges.
  std::map<std::string, std::map<std::string, std::set<std::string>>> allowed_benchmarks;

  /// Reads the file. Throws std::runtime_error naming it when missing or malformed.
  static PackageRules load(const std::filesystem::path& file);
  /// True when `benchmark` is judged under `usage` and `ruleset` (benchmark_meta.py
  /// get_allowed_benchmarks: X.Y.Z, else X.Y); nullopt when the ruleset is not listed.
  std::optional<bool> allows(const std::string& usage, const Ruleset& ruleset, const std::string& benchmark) const;
};

/// Where a benchmark directory sits in a submission package.
struct PackagePlace {
  bool in_layout = false;           ///< <org>/results/<system>/[strong|weak/]<benchmark>
  std::filesystem::path org_dir;    ///< <org>
  std::filesystem::path system_dir; ///< <org>/results/<system>
  std::string system;
  std::string benchmark;            ///< the folder name, as the package checker names it
  std::string scaling;              ///< "strong" or "weak" in the HPC layout, else ""
  /// <org>/systems/<system>.json (whether or not it exists).
  std::filesystem::path system_description;
};

/// The place of the folder `absolute_dir` (absolute and normal). Touches no file.
PackagePlace package_place(const std::filesystem::path& absolute_dir);

/// The bypasses a package_checker_params file grants. The official code compares each line
/// as readlines() returns it — with its line break — to "rcp-bypass" / "seed-checker-bypass",
/// so only a last line without a line break can match.
struct CheckerParams {
  bool rcp_bypass = false;
  bool seed_checker_bypass = false;
  /// A line that would bypass but for its line break.
  struct NearMiss {
    std::uint64_t line = 0;  ///< 1-based
    std::string text;        ///< "rcp-bypass" or "seed-checker-bypass"
  };
  std::vector<NearMiss> near_misses;
};

/// Reads `file` (absent: no bypass) as the official code does: Python text mode, so "\r\n"
/// and "\r" end lines as "\n" does. Throws std::runtime_error naming the file when it exists
/// but cannot be read.
CheckerParams read_checker_params(const std::filesystem::path& file, const PackageRules& rules);

/// The system description checker's verdict on one <org>/systems/<system>.json.
struct SystemDescriptionVerdict {
  std::string file;
  bool readable = false;  ///< exists and holds a JSON object
  std::string division;   ///< its "division" ("" when absent or not a string)
  std::string system_name;
  /// The errors it reports: file (and line where the field is written) and message.
  std::vector<Finding> errors;
};

/// Judges one system description (system_desc_checker.py check_system_desc): every required
/// field present; under `usage` "training" from PackageRules::status_checked_from, "status"
/// one of the allowed values; the table fields, where present, strings. A file that is missing or not a JSON object is an error (the
/// official checker stops there). Never throws.
SystemDescriptionVerdict check_system_description(const std::filesystem::path& file, const std::string& usage,
                                                  const Ruleset& ruleset, const PackageRules& rules);

/// The power checker (power_checker.py check_power) on <benchmark>/power: per result file
/// (sorted paths) a folder power/<result_N> of node_<i> and sw_<i> files numbered 0…n−1, and
/// as many of each in every run. Errors per run carry the result file (they count with the
/// compliance failures against the olympic drop allowance); an error whose file is the power
/// folder stops the official checker (a file numbered by something else than an integer, no
/// power result at all) and fails the directory.
std::vector<Finding> check_power(const std::filesystem::path& power_dir,
                                 const std::vector<std::filesystem::path>& result_files);

/// Options of `check` that the package checker takes on its command line.
struct PackageOptions {
  bool rcp_bypass = false;           ///< --rcp-bypass
  bool seed_checker_bypass = false;  ///< --seed-checker-bypass
};

/// The ids of the package checks, in report order.
inline constexpr std::array<std::string_view, 4> kPackageCheckIds = {"result_files", "seeds", "system_description",
                                                                    "power"};

/// The package checks of one benchmark directory.
struct PackageVerdict {
  std::vector<CheckResult> checks;  ///< kPackageCheckIds, in that order
  /// The division the package checker judges by: the system description's in the submission
  /// layout, else the logs'. Only "closed" gets the seed and RCP checks.
  std::string division;
  bool division_from_description = false;
  /// In a package, a folder whose name the ruleset does not list as a benchmark: the package
  /// checker skips it, so no other check of it fails the package (check_training_directory
  /// reports their errors as warnings).
  bool skipped = false;
  bool rcp_bypass = false;        ///< a bypass applies to the RCP check
  std::string rcp_bypass_source;  ///< "--rcp-bypass" or the params file granting it
  /// Notes on the RCP check (a params line that would bypass it but for its line break).
  std::vector<Finding> rcp_notes;
};

/// Judges the package checks of scored benchmark directories. System descriptions are read
/// once each. When a path `check` was given holds a whole submitter folder, every
/// <org>/systems/*.json is judged (the official checker fails the package on any of them) and
/// the errors of descriptions of other systems are attached to each directory of that
/// submitter. Thread-safe.
class PackageJudge {
 public:
  /// `rules` and `facts` (each benchmark's usage) must outlive the judge; `given_paths` are
  /// the paths `check` was given.
  PackageJudge(const PackageRules& rules, const Facts& facts, const std::vector<std::filesystem::path>& given_paths,
               PackageOptions options = {});

  /// The checks result_files, seeds, system_description and power of one training directory
  /// (never an inference folder or a single log). Never throws: unreadable files are findings.
  PackageVerdict judge(const DirectoryResult& result) const;

 private:
  const SystemDescriptionVerdict& description(const std::filesystem::path& file, const std::string& usage,
                                              const Ruleset& ruleset) const;
  std::vector<Finding> other_descriptions(const PackagePlace& place, const std::string& usage,
                                          const Ruleset& ruleset) const;

  const PackageRules& rules_;
  const Facts& facts_;
  std::vector<std::filesystem::path> given_;  // absolute, normal
  PackageOptions options_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, SystemDescriptionVerdict> descriptions_;  // by file|usage|ruleset
  // Each org's systems/*.json and their errors (as other_descriptions words them), by
  // org_dir|usage|ruleset: every benchmark directory of the org asks for the same list.
  mutable std::map<std::string, std::vector<std::pair<std::filesystem::path, std::vector<Finding>>>> org_descriptions_;
};

}  // namespace mlperf
