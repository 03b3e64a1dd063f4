#include "mlperf/inference/check.h"

#include <set>

#include <fmt/format.h>

#include "mlperf/inference/accuracy.h"
#include "mlperf/inference/compliance_tests.h"
#include "mlperf/inference/power.h"
#include "mlperf/inference/result.h"
#include "mlperf/mllog/path_text.h"

namespace mlperf::inference {

namespace {

// A warning of `score` as a finding: one that begins with a file of the folder
// ("FILE: message", "FILE:LINE: message") names that file and line; any other names the folder.
Finding warning_finding(const std::string& check, const std::string& warning, const std::string& dir) {
  const std::size_t colon = warning.find(": ");
  if (colon != std::string::npos) {
    std::string file = warning.substr(0, colon);
    std::uint64_t line = 0;
    if (const std::size_t last = file.rfind(':'); last != std::string::npos && last + 1 < file.size() &&
                                                  file.find_first_not_of("0123456789", last + 1) == std::string::npos) {
      line = std::stoull(file.substr(last + 1));
      file.resize(last);
    }
    if (path_at_or_below(file, dir)) {
      return {check, Finding::kWarning, file, line, warning.substr(colon + 2)};
    }
  }
  return {check, Finding::kWarning, dir, 0, warning};
}

}  // namespace

CheckReport check_inference_directory(const DirectoryResult& r) {
  CheckReport report;
  report.directory = r.dir.path.string();
  report.submitter = r.dir.submitter;
  report.system = r.dir.system;
  report.division = r.division;
  report.input_error = !r.errors.empty();
  const InferenceResult* i = r.inference.get();
  report.benchmark = i ? i->model + "/" + i->scenario : r.benchmark;
  report.ruleset = r.ruleset;  // the round, v4.1 → 4.1.0
  report.ruleset_source = r.ruleset_source;

  CheckResult input{"input_readable", "the loadgen log can be read and its MLLOG lines parse", {}};
  for (const auto& e : r.errors) {
    input.findings.push_back({"input_readable", Finding::kError, r.dir.path.string(), 0, e});
  }
  report.checks.push_back(std::move(input));
  if (!i) return report;
  for (const auto& c : i->checks) {
    CheckResult check{c.name.starts_with("loadgen_") ? c.name : "loadgen_" + c.name, fmt::format("{} meets its limit ({})", c.name, c.limit.dump()), {}};
    if (!c.passed) {
      // The log read; a folder without one (LoadgenRun::no_loadgen_log): the check's own file.
      const std::string& file = !i->log_file.empty() ? i->log_file : !c.file.empty() ? c.file : report.directory;
      check.findings.push_back({check.check, Finding::kError, file, c.line,
                                fmt::format("{}: value {}, limit {}", c.message,
                                            c.value.is_null() ? "absent" : c.value.dump(), c.limit.dump())});
    }
    report.checks.push_back(std::move(check));
  }
  // The accuracy run: one named check, a finding per failed target, limit or hash (naming
  // accuracy.txt and its line); open-division misses the checker accepts are warnings.
  if (i->accuracy) {
    const AccuracyResult& a = *i->accuracy;
    CheckResult accuracy{"accuracy", "accuracy/accuracy.txt meets the model's targets and limits and has its hash", {}};
    const std::string file = a.file.empty() ? (r.dir.path / "accuracy" / "accuracy.txt").string() : a.file;
    for (const auto& c : a.checks) {
      if (c.passed) continue;
      accuracy.findings.push_back({"accuracy", a.valid ? Finding::kWarning : Finding::kError, file, c.line,
                                   a.valid ? fmt::format("{} (open division: accepted)", c.message) : c.message});
    }
    report.checks.push_back(std::move(accuracy));
    // The accuracy folder's files (REQUIRED_ACC_FILES, the truncated accuracy log, the
    // accuracy-mode log's errors, the sample count).
    CheckResult files{"accuracy_files", "the accuracy folder holds the files the checker requires, without loadgen errors", {}};
    for (const auto& c : a.file_checks) {
      if (c.passed) continue;
      files.findings.push_back({"accuracy_files", Finding::kError, c.file.empty() ? file : c.file, c.line, c.message});
    }
    report.checks.push_back(std::move(files));
  }
  // Each compliance test the round's checker asks of the model: a check per test, a finding
  // per failed condition naming its file and line.
  if (i->compliance_tests) {
    for (const auto& t : *i->compliance_tests) {
      CheckResult test{"compliance_" + t.test, fmt::format("compliance test {} passes as the submission checker judges it", t.test), {}};
      for (const auto& c : t.checks) {
        if (c.passed) continue;
        test.findings.push_back({test.check, Finding::kError, c.file.empty() ? t.dir : c.file, c.line, c.message});
      }
      report.checks.push_back(std::move(test));
    }
  }
  // A power submission's measurement (power.h): a check per condition (the ranging run and its
  // files, the power folder's files, the samples in the power window), a finding naming its file.
  if (i->power) {
    for (const auto& c : i->power->checks) {
      const std::string name = c.name.starts_with("power_") ? c.name : "power_" + c.name;
      CheckResult check{name, fmt::format("{} as the submission checker judges a power submission", c.name), {}};
      if (!c.passed) {
        check.findings.push_back({name, Finding::kError, c.file.empty() ? i->power->power_dir : c.file, c.line, c.message});
      }
      report.checks.push_back(std::move(check));
    }
  }
  // What `score` warns of beside the checks: parts not judged (a run of one's own without
  // its accuracy run or compliance tests beside it, a model no folder names), what the
  // checker accepts with a warning (open division), notes of the checker. A failed accuracy
  // check the open division accepts is already a warning of the accuracy check above.
  std::set<std::string> already;
  if (i->accuracy) {
    for (const auto& c : i->accuracy->checks) {
      if (!c.passed) already.insert(accepted_in_open(c.message));
    }
  }
  CheckResult warnings{"score_warnings", "what score warns of: parts not judged, what the checker accepts with a warning", {}};
  for (const auto& w : r.warnings) {
    if (!already.count(w)) warnings.findings.push_back(warning_finding(warnings.check, w, r.dir.path.string()));
  }
  if (!warnings.findings.empty()) report.checks.push_back(std::move(warnings));
  // The submission-level rules (system description, measurements, required scenarios): a
  // check per rule, a finding naming the file it read (and the line of a system description's
  // field).
  for (const auto& c : i->submission_checks) {
    CheckResult check{"submission_" + c.name, fmt::format("{} as the submission checker judges it", c.name), {}};
    if (!c.passed) {
      check.findings.push_back({check.check, Finding::kError, c.file.empty() ? r.dir.path.string() : c.file, c.line,
                                c.message});
    }
    report.checks.push_back(std::move(check));
  }
  return report;
}

}  // namespace mlperf::inference
