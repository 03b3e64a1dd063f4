#pragma once
// The compliance tests of an MLPerf Inference scenario folder (TEST01, TEST04, TEST05, TEST06,
// TEST07, TEST08, TEST09), judged as the official submission checker judges them:
// mlcommons/inference tools/submission/submission_checker.py check_compliance_dir,
// check_compliance_perf_dir and check_compliance_acc_dir at tags v4.1, v5.0 and v5.1.1, and
// submission_checker/checks/compliance_check.py (ComplianceCheck) at HEAD for v6.0 and v6.1.
// Which tests a model needs, where they live and the deltas TEST01 allows are data:
// configs/inference_compliance.json, written by scripts/extract-inference-compliance.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "mlperf/inference/loadgen_log.h"
#include "mlperf/inference/result.h"

namespace mlperf::inference {

struct RoundAccuracyRules;  // accuracy.h

/// The compliance rules of one round.
struct RoundComplianceRules {
  /// "check_compliance_dir" (v4.1–v5.1) or "ComplianceCheck" (v6.0 on); the two differ in
  /// what they ask of each test (see judge_compliance_tests).
  std::string checker = "check_compliance_dir";
  /// "compliance": <division>/<org>/compliance/<system>/<model>/<scenario>/TEST0x;
  /// "results": the scenario folder itself holds TEST0x.
  std::string location = "compliance";
  /// mlperf model → its tests in the checker's order (a test may appear twice: judged twice).
  std::map<std::string, std::vector<std::string>> tests;
  /// model → metric → the largest TEST01 accuracy change allowed, in percent.
  std::map<std::string, std::map<std::string, double>> delta_percent;

  /// The TEST01 delta allowed for `metric` of `model`: delta_percent's, else 0.1 for a model
  /// whose name holds "99.9", else 1 (the checker's get_delta_perc).
  double delta_percent_of(const std::string& model, const std::string& metric) const;
};

/// configs/inference_compliance.json.
struct ComplianceRules {
  std::map<std::string, RoundComplianceRules> rounds;  ///< "v5.1" → rules
  /// Loads the file. Throws std::runtime_error naming the file when missing or malformed.
  static ComplianceRules load(const std::filesystem::path& file);
};

/// One compliance test of a scenario folder as the checker judges it.
struct ComplianceTestResult {
  std::string test;  ///< "TEST01"
  std::string dir;   ///< the test's folder
  bool valid = false;
  /// test_folder, verify_performance, performance_files, performance_run, verify_accuracy,
  /// accuracy_folder, accuracy_files, accuracy_delta, first_token, eos, sample_length,
  /// verify_output_len: each with the file and line it was read from in its message.
  std::vector<ValidityCheck> checks;
};

/// The folder holding a scenario folder's compliance tests: for location "compliance"
/// <division>/<org>/compliance/<system>/<model>/<scenario> beside results/ (from the scenario
/// folder <division>/<org>/results/<system>/<model>/<scenario>), else the scenario folder.
std::filesystem::path compliance_folder(const std::filesystem::path& scenario_dir, const RoundComplianceRules& rules);

/// What a compliance test needs to judge its own performance run as a performance run.
struct CompliancePerformanceContext {
  const InferenceRules* rules = nullptr;  ///< the round's performance rules (nullptr: runs not judged)
  const KeySet* keys = nullptr;           ///< rules->keys_read(), computed once by the caller
  std::string round;                      ///< "v5.1"
  std::string model_folder;               ///< as score_loadgen_run takes it
  std::string scenario;                   ///< canonical scenario
  std::string division;                   ///< "closed", "network"
};

/// Judges the compliance tests `rules.tests[mlperf_model]` of the scenario folder
/// `scenario_dir` (see compliance_folder), as the round's checker does. Open division: none
/// (the checkers skip them); an empty list when the model needs none.
///
/// check_compliance_dir (v4.1–v5.1): a missing compliance folder or test folder fails the test;
/// TEST01/04/05 run folder performance/run_1 is judged as a performance run (score_loadgen_run)
/// and holds exactly mlperf_log_summary.txt and mlperf_log_detail.txt (mlperf_log_accuracy.json,
/// mlperf_log_trace.json, results.json, .gitkeep allowed); verify_performance.txt must hold
/// "TEST PASS" in a line. Quirk kept: when a model needs TEST06, no test's performance run is
/// judged. TEST01: verify_accuracy.txt must exist; without a "TEST PASS" line its accuracy/
/// folder must hold baseline_accuracy.txt and compliance_accuracy.txt besides accuracy.txt and
/// mlperf_log_accuracy.json, and each target metric may differ by at most the delta allowed
/// (|1 − baseline/compliance| × 100). TEST06: verify_accuracy.txt must hold the lines
/// "First token check pass: True" (or "Skipped"), "EOS check pass: True" and "Sample length
/// check pass: True".
///
/// ComplianceCheck (v6.0, v6.1): test folders under the scenario folder; TEST01/06/07/08 need
/// verify_accuracy.txt, TEST01/04 verify_performance.txt and performance/run_1/
/// mlperf_log_detail.txt, TEST09 verify_output_len.txt; TEST01/TEST08 pass on a line that is
/// exactly "TEST PASS", TEST07/TEST09 on "TEST PASS" anywhere in the file.
///
/// `accuracy` supplies the TEST01 patterns and targets (nullptr: the delta check fails).
/// Never throws: an unreadable file is a failed check naming it.
std::vector<ComplianceTestResult> judge_compliance_tests(const std::filesystem::path& scenario_dir,
                                                         const RoundComplianceRules& rules,
                                                         const std::string& mlperf_model,
                                                         const RoundAccuracyRules* accuracy,
                                                         const CompliancePerformanceContext& performance);

/// The compliance tests of an MLPerf endpoints run (endpoints_log.h) as ComplianceCheck's
/// compliance_endpoints_check judges them: for each of the model's `tests` that
/// rules.compliance_audits names, `scenario_dir`/audit/audit_<name>.json — where it exists it
/// must be JSON whose "test" is the name and whose "passed" is true (check audit_TEST0x);
/// where it is missing it fails only a test that rules.audit_required asks of the model
/// (TEST04 of Wan 2.2); and for TEST09 the performance run's mean_output_tokens within
/// [test09_low, test09_high] (check test09_output_tokens). The open division too: unlike the
/// loadgen tests, compliance_endpoints_check does not skip it. Never throws except std::bad_alloc.
std::vector<ValidityCheck> judge_endpoints_audits(const std::filesystem::path& scenario_dir,
                                                  const std::vector<std::string>& tests, const EndpointsRules& rules,
                                                  const std::string& mlperf_model, const LoadgenLog& performance_log);

}  // namespace mlperf::inference
