#pragma once
// `mlperf-score check`: the checks a submission directory must pass (issues #3, #12), judged
// on what the scorer already computed (DirectoryResult, Run): logs are never parsed a second
// time. Per log, the official compliance rules (configs/compliance/, read by the compliance
// stage beside the run builder) give the verdict; the directory verdict is the package
// checker's (olympic drop allowance, run count, RCP).
//
// Each check has a stable id. Per-run checks (compliance, run_stop_status, quality_target)
// find problems in one result file; as in the
// official package checker, a directory may hold as many failing runs as the olympic mean
// drops (1, or 4 for unet3d): their findings are then warnings, not errors.

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlperf/training/facts.h"
#include "mlperf/mllog/ruleset.h"
#include "mlperf/training/score.h"

namespace mlperf {

/// One problem a check found, where it was found.
struct Finding {
  enum Severity { kError, kWarning };
  std::string check;           ///< the check's id, e.g. "event_order"
  Severity severity = kError;  ///< an error fails the check; a warning does not
  std::string file;            ///< the result file, or the directory for directory-wide findings
  std::uint64_t line = 0;      ///< 1-based line in `file`; 0 when no single line applies
  std::string message;         ///< one sentence for people
};

/// "error" or "warning".
const char* to_string(Finding::Severity severity);

/// The ids of the built-in checks, in report order.
inline constexpr std::array<std::string_view, 8> kCheckIds = {
    "input_readable", "compliance", "run_stop_status", "quality_target",
    "consistency",    "run_count",  "olympic_score",   "rcp"};

/// The official compliance verdict of one result log (compliance/rules.h).
struct LogCompliance {
  std::string file;
  bool compliant = false;  ///< the official checker's verdict (the drop allowance does not change it)
  std::size_t errors = 0;
  std::size_t warnings = 0;
};

/// One check of one directory: its findings; it passes when none is an error.
struct CheckResult {
  std::string check;        ///< id, one of kCheckIds (or an extra check's own id)
  std::string description;  ///< what it verifies, one line
  std::vector<Finding> findings;

  /// True when no finding is an error.
  bool passed() const;
  /// How many findings have `severity`.
  std::size_t count(Finding::Severity severity) const;
};

/// Every check of one benchmark directory.
struct CheckReport {
  std::string directory;  ///< the directory, as found
  std::string submitter;
  std::string system;
  std::string benchmark;
  std::string division;
  Ruleset ruleset;
  std::string ruleset_source;  ///< "--ruleset", "path" or "newest shipped"
  std::vector<CheckResult> checks;  ///< kCheckIds in order, then any extra checks
  /// Per result log judged by the official compliance rules, in file order.
  std::vector<LogCompliance> logs;
  /// A result file or a data table could not be read: the CLI exits 2 (input error).
  bool input_error = false;

  /// True when no check has an error.
  bool passed() const;
  /// How many findings of all checks have `severity`.
  std::size_t count(Finding::Severity severity) const;
  /// The check with that id, or nullptr.
  const CheckResult* find(std::string_view check) const;
};

/// A check supplied by another stage and appended after the built-in ones (the hook for a
/// later `check --probe`, which compares the logged platform with the local device).
using ExtraCheck = std::function<CheckResult(const DirectoryResult&)>;

class PackageJudge;  // training/package.h

/// Options of check_directory.
struct CheckOptions {
  std::vector<ExtraCheck> extra_checks;
  /// The official package checker's checks (result_files, seeds, system_description, power),
  /// inserted after run_count; null: not judged. Must outlive the call.
  const PackageJudge* package = nullptr;
};

/// Runs every check on one scored training directory (never re-reads its logs):
/// - input_readable: DirectoryResult::errors (unreadable result files, malformed RCP table);
/// - compliance: the official compliance rules' findings per log (Run::compliance, read by
///   score_directories with ScoreOptions::compliance_rules; a warning when none were read);
///   each judged log also gets a CheckReport::logs entry with the official verdict;
/// - run_stop_status: a run_stop status other than "success" (a warning: compliance does not
///   judge it);
/// - quality_target: some eval_accuracy meets the benchmark's target (§2, §6);
/// - consistency: submission_benchmark, global_batch_size and submission_division agree
///   across the runs (each run unlike the majority is a finding at its line, §4.1);
/// - run_count: at least the benchmark's required runs (§6);
/// - with CheckOptions::package, the package checks (training/package.h): result_files,
///   seeds, system_description and power; power errors count as failing runs;
/// - olympic_score: the olympic mean exists and no more runs fail a per-run check than the
///   olympic mean drops (§3); when at most that many fail, their findings become warnings;
/// - rcp: the RCP check passes (§4; closed division, a warning in the open division — the
///   system description's division where the package checker reads it; a failure the
///   package checker's rcp-bypass accepts is a warning).
/// `facts` describes the quality target in messages. Never throws for bad input.
CheckReport check_training_directory(const DirectoryResult& result, const Facts& facts,
                                     const CheckOptions& options = {});

}  // namespace mlperf
