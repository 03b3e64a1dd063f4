#include "mlperf/training/check.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "mlperf/mllog/path_text.h"
#include "mlperf/training/package.h"

namespace mlperf {

namespace {

// What each built-in check verifies (kCheckIds order).
constexpr std::array<std::string_view, kCheckIds.size()> kCheckDescriptions = {
    "every result file and RCP table can be read",
    "each log passes the official compliance rules (configs/compliance/training_<ruleset>/)",
    "run_stop reports success (a warning otherwise)",
    "some eval_accuracy meets the quality target (scoring.md 2, 6)",
    "benchmark, global batch size and division agree across the runs (scoring.md 4.1)",
    "at least the benchmark's required number of runs (scoring.md 6)",
    "the olympic mean exists: no more failing runs than it drops (scoring.md 3)",
    "the RCP check passes in the closed division (scoring.md 4)",
};

// The checks that judge one result file; their failures may be accepted under olympic scoring.
// Power errors join them, as the official package checker counts them with compliance failures.
constexpr std::array<std::string_view, 4> kPerRunChecks = {"compliance", "run_stop_status", "quality_target", "power"};

bool is_per_run(std::string_view id) {
  return std::find(kPerRunChecks.begin(), kPerRunChecks.end(), id) != kPerRunChecks.end();
}

std::string number_text(double v) { return fmt::format("{}", v); }


std::string bounds_text(const std::string& name, const Bounds& b) {
  std::string out;
  if (b.min) out += fmt::format("{} {} ", number_text(*b.min), b.min_inclusive ? "<=" : "<");
  out += name.empty() ? "v" : name;
  if (b.max) out += fmt::format(" {} {}", b.max_inclusive ? "<=" : "<", number_text(*b.max));
  return out;
}

std::string target_text(const QualityTarget& target) {
  std::vector<std::string> parts;
  for (const auto& [name, bounds] : target.metrics) parts.push_back(bounds_text(name, bounds));
  return fmt::format("{}", fmt::join(parts, " and "));
}

const Run::KeyCensus* census_of(const Run& run, const std::string& key) {
  auto it = run.key_census.find(key);
  return it == run.key_census.end() ? nullptr : &it->second;
}

// ---- the checks -----------------------------------------------------------------------

class Collector {
 public:
  explicit Collector(CheckReport& report) : report_(report) {}

  void add(std::string_view check, Finding::Severity severity, std::string file, std::uint64_t line,
           std::string message) {
    if (file.empty()) file = report_.directory;  // every finding names where it is
    for (auto& c : report_.checks) {
      if (c.check == check) {
        c.findings.push_back({std::string(check), severity, std::move(file), line, std::move(message)});
        return;
      }
    }
  }

 private:
  CheckReport& report_;
};

void check_input(const DirectoryResult& r, Collector& out) {
  std::set<std::string> read;
  for (const auto& run : r.runs) read.insert(run.file);
  std::vector<bool> used(r.errors.size(), false);
  for (const auto& file : r.dir.result_files) {
    std::string path = file.string();
    if (read.count(path)) continue;
    std::string message = "cannot be read";
    for (std::size_t i = 0; i < r.errors.size(); ++i) {
      if (!used[i] && r.errors[i].rfind(path + ": ", 0) == 0) {
        message = r.errors[i].substr(path.size() + 2);
        used[i] = true;
        break;
      }
    }
    out.add("input_readable", Finding::kError, path, 0, message);
  }
  for (std::size_t i = 0; i < r.errors.size(); ++i) {
    if (!used[i]) out.add("input_readable", Finding::kError, r.dir.path.string(), 0, r.errors[i]);
  }
}

// The official compliance verdict of each log (compliance/rules.h), its findings as they are.
void check_compliance(const Run& run, CheckReport& report, Collector& out) {
  if (!run.compliance) return;
  for (const auto& f : run.compliance->findings) {
    out.add("compliance", f.error ? Finding::kError : Finding::kWarning, run.file, f.line, f.message);
  }
  std::size_t errors = 0, warnings = 0;
  for (const auto& f : run.compliance->findings) (f.error ? errors : warnings)++;
  report.logs.push_back({run.file, run.compliance->compliant, errors, warnings});
}

void check_run_stop_status(const Run& run, Collector& out) {
  if (!run.run_stop) return;
  // A missing status is the compliance rules' business (common.yaml run_stop CHECK).
  if (run.status && *run.status != "success") {
    out.add("run_stop_status", Finding::kWarning, run.file, run.run_stop->line,
            fmt::format("run_stop status is \"{}\": the run did not converge", *run.status));
  }
}

void check_quality_target(const Run& run, const DirectoryResult& r, const Facts& facts, Collector& out) {
  std::string bench = run.benchmark.empty() ? r.benchmark : run.benchmark;
  const BenchmarkFacts* f = facts.find(bench);
  const QualityTarget* target = f ? f->quality_target(r.ruleset) : nullptr;
  if (!run.quality_target_known || !target) {
    out.add("quality_target", Finding::kWarning, run.file, 0,
            fmt::format("no quality target known for {} under ruleset {}: not checked", bench, r.ruleset.str()));
    return;
  }
  if (run.quality_target_reached) return;
  const Run::KeyCensus* evals = census_of(run, "eval_accuracy");
  if (!evals || evals->count == 0) {
    out.add("quality_target", Finding::kError, run.file, 0,
            fmt::format("no eval_accuracy is logged, so the quality target {} is never reached", target_text(*target)));
  } else {
    out.add("quality_target", Finding::kError, run.file, evals->last_line,
            fmt::format("no eval_accuracy meets the quality target {} ({} logged, the last at line {})",
                        target_text(*target), evals->count, evals->last_line));
  }
}

// Each run whose value differs from the most common one is a finding at the key's line.
template <typename Value>
void check_agreement(const DirectoryResult& r, const char* key, bool last_line,
                     const std::function<std::optional<Value>(const Run&)>& value_of,
                     const std::function<std::string(const Value&)>& text, Collector& out) {
  std::map<Value, int> counts;
  int with_value = 0;
  for (const auto& run : r.runs) {
    if (auto v = value_of(run)) {
      ++counts[*v];
      ++with_value;
    }
  }
  if (counts.size() <= 1) return;
  auto majority = counts.begin();
  for (auto it = counts.begin(); it != counts.end(); ++it) {
    if (it->second > majority->second) majority = it;
  }
  for (const auto& run : r.runs) {
    auto v = value_of(run);
    if (!v || *v == majority->first) continue;
    const Run::KeyCensus* c = census_of(run, key);
    std::uint64_t line = c ? (last_line ? c->last_line : c->first.line) : 0;
    out.add("consistency", Finding::kError, run.file, line,
            fmt::format("{} is {} here but {} in {} of {} runs", key, text(*v), text(majority->first),
                        majority->second, with_value));
  }
}

void check_consistency(const DirectoryResult& r, Collector& out) {
  auto quoted = [](const std::string& s) { return "\"" + s + "\""; };
  check_agreement<std::string>(
      r, "submission_benchmark", false,
      [](const Run& run) { return run.benchmark.empty() ? std::nullopt : std::optional<std::string>(run.benchmark); },
      quoted, out);
  // Run::global_batch_size keeps the last value logged.
  check_agreement<long long>(
      r, "global_batch_size", true, [](const Run& run) { return run.global_batch_size; },
      [](const long long& v) { return std::to_string(v); }, out);
  check_agreement<std::string>(
      r, "submission_division", false,
      [](const Run& run) { return run.division.empty() ? std::nullopt : std::optional<std::string>(run.division); },
      quoted, out);
}

void check_run_count(const DirectoryResult& r, Collector& out) {
  std::string dir = r.dir.path.string();
  std::size_t files = r.dir.result_files.size();
  if (r.required_runs <= 0) {
    out.add("run_count", Finding::kWarning, dir, 0,
            fmt::format("unknown benchmark \"{}\": the required number of runs is not checked", r.benchmark));
  } else if (files < static_cast<std::size_t>(r.required_runs)) {
    out.add("run_count", Finding::kError, dir, 0,
            fmt::format("{} result files; {} requires {} runs", files, r.benchmark, r.required_runs));
  }
}

std::string file_list(const std::vector<std::string>& files) {
  std::vector<std::string> names;
  for (const auto& f : files) names.emplace_back(path_name(f));
  return fmt::format("{}", fmt::join(names, ", "));
}

// Judges the failing runs against the olympic drop count and downgrades accepted failures.
void check_olympic_score(const DirectoryResult& r, CheckReport& report, Collector& out) {
  std::string dir = r.dir.path.string();
  const int drop = r.olympic_drop;
  // Runs with an error in a per-run check, in file order. A per-run check's finding about
  // something else than a run (the power folder) is never accepted under olympic scoring.
  std::set<std::string> run_files;
  for (const auto& run : r.runs) run_files.insert(run.file);
  std::set<std::string> failing_set;
  for (const auto& c : report.checks) {
    if (!is_per_run(c.check)) continue;
    for (const auto& f : c.findings) {
      if (f.severity == Finding::kError && run_files.count(f.file)) failing_set.insert(f.file);
    }
  }
  std::vector<std::string> failing, dropped;
  for (const auto& run : r.runs) {
    if (failing_set.count(run.file)) failing.push_back(run.file);
    if (!run.counted()) dropped.push_back(run.file);
  }
  const int n = static_cast<int>(r.runs.size());
  // incomplete: run_count says it. MLPerf HPC weak scaling has no olympic mean: the official
  // package checker holds its runs to the same count of failing files only (below).
  if (!r.olympic_minutes && r.verdict != "incomplete" && !r.weak) {
    if (static_cast<int>(dropped.size()) > drop) {
      out.add("olympic_score", Finding::kError, dir, 0,
              fmt::format("{} of {} runs do not count ({}); the olympic mean drops at most {}: no valid score",
                          dropped.size(), n, file_list(dropped), drop));
    } else {
      out.add("olympic_score", Finding::kError, dir, 0,
              fmt::format("too few counted runs ({}) for an olympic mean: no valid score", n - dropped.size()));
    }
  } else if (static_cast<int>(failing.size()) > drop) {
    out.add("olympic_score", Finding::kError, dir, 0,
            fmt::format("{} of {} runs fail per-run checks ({}); at most {} may", failing.size(), n,
                        file_list(failing), drop));
  } else if (!failing.empty()) {
    // As the official package checker: up to `drop` non-compliant runs are accepted.
    for (auto& c : report.checks) {
      if (!is_per_run(c.check)) continue;
      for (auto& f : c.findings) {
        if (run_files.count(f.file)) f.severity = Finding::kWarning;
      }
    }
    out.add("olympic_score", Finding::kWarning, dir, 0,
            fmt::format("{} of {} runs fail per-run checks ({}): accepted, the olympic mean drops up to {}",
                        failing.size(), n, file_list(failing), drop));
  }
}

// The failing cases the package checker's rcp-bypass accepts (rcp_checker.py check_directory).
bool bypassable(RcpCase c) { return c == RcpCase::kExact || c == RcpCase::kInterpolated || c == RcpCase::kMissing; }

void add_rcp_findings(const DirectoryResult& r, const PackageVerdict* package, Collector& out) {
  const std::string dir = r.dir.path.string();
  if (package) {
    for (const auto& f : package->rcp_notes) out.add("rcp", f.severity, f.file, f.line, f.message);
  }
  // A weak-scaling folder: the package checker's own RCP check of it (score.h package_rcp).
  const RcpVerdict& rcp = r.package_rcp ? *r.package_rcp : r.rcp;
  if (rcp.rcp_case == RcpCase::kNotChecked) {
    // As the official summarizer: no RCP verdict, the score stands unscaled.
    out.add("rcp", Finding::kWarning, dir, 0, "RCP " + rcp.message);
    return;
  }
  if (rcp.passed) return;
  std::string message = rcp.message.empty() ? std::string("the RCP check failed") : rcp.message;
  message = fmt::format("RCP check failed ({}): {}", to_string(rcp.rcp_case), message);
  const bool described = package && package->division_from_description;
  if (described && package->division != "closed") {
    out.add("rcp", Finding::kWarning, dir, 0,
            message + fmt::format(" (the system description's division is \"{}\": the package checker runs no RCP check)",
                                  package->division));
  } else if (!described && r.division == "open") {
    out.add("rcp", Finding::kWarning, dir, 0, message + " (not required in the open division)");
  } else if (package && package->rcp_bypass && bypassable(rcp.rcp_case)) {
    out.add("rcp", Finding::kWarning, dir, 0,
            message + fmt::format(" — accepted by rcp-bypass ({}); the submission committee reviews it",
                                  package->rcp_bypass_source));
  } else {
    out.add("rcp", Finding::kError, dir, 0, message);
  }
}

// ---- output helpers -------------------------------------------------------------------

}  // namespace

// ---- public API -----------------------------------------------------------------------

const char* to_string(Finding::Severity severity) { return severity == Finding::kError ? "error" : "warning"; }

bool CheckResult::passed() const { return count(Finding::kError) == 0; }

std::size_t CheckResult::count(Finding::Severity severity) const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                [&](const Finding& f) { return f.severity == severity; }));
}

bool CheckReport::passed() const { return count(Finding::kError) == 0; }

std::size_t CheckReport::count(Finding::Severity severity) const {
  std::size_t n = 0;
  for (const auto& c : checks) n += c.count(severity);
  return n;
}

const CheckResult* CheckReport::find(std::string_view check) const {
  for (const auto& c : checks) {
    if (c.check == check) return &c;
  }
  return nullptr;
}

CheckReport check_training_directory(const DirectoryResult& r, const Facts& facts, const CheckOptions& options) {
  CheckReport report;
  report.directory = r.dir.path.string();
  report.submitter = r.dir.submitter;
  report.system = r.dir.system;
  report.benchmark = r.benchmark;
  report.division = r.division;
  report.ruleset = r.ruleset;
  report.ruleset_source = r.ruleset_source;
  report.input_error = !r.errors.empty();
  for (std::size_t i = 0; i < kCheckIds.size(); ++i) {
    report.checks.push_back({std::string(kCheckIds[i]), std::string(kCheckDescriptions[i]), {}});
  }
  Collector out(report);

  check_input(r, out);
  if (!r.runs.empty() && !r.runs.front().compliance) {
    out.add("compliance", Finding::kWarning, r.dir.path.string(), 0,
            fmt::format("no official compliance rules shipped for ruleset {}: logs not judged", r.ruleset.str()));
  }
  for (const auto& run : r.runs) {
    check_compliance(run, report, out);
    check_run_stop_status(run, out);
    if (!r.dir.single_log) check_quality_target(run, r, facts, out);
  }
  if (r.dir.single_log) {
    // One log on its own: only what judges a log (the official checker's scope).
    std::erase_if(report.checks, [](const CheckResult& c) {
      return c.check != "input_readable" && c.check != "compliance" && c.check != "run_stop_status";
    });
  } else {
    check_consistency(r, out);
    check_run_count(r, out);
    std::optional<PackageVerdict> package;
    if (options.package) {
      package = options.package->judge(r);
      auto after = std::find_if(report.checks.begin(), report.checks.end(),
                                [](const CheckResult& c) { return c.check == "run_count"; });
      report.checks.insert(after + 1, package->checks.begin(), package->checks.end());
    }
    check_olympic_score(r, report, out);
    add_rcp_findings(r, package ? &*package : nullptr, out);
    if (package && package->skipped) {
      // The package checker never looks at this folder: nothing here fails the package.
      for (auto& c : report.checks) {
        if (c.check == "system_description") continue;
        for (auto& f : c.findings) f.severity = Finding::kWarning;
      }
    }
  }

  for (const auto& extra : options.extra_checks) {
    CheckResult c = extra(r);
    for (auto& f : c.findings) {
      if (f.check.empty()) f.check = c.check;
    }
    report.checks.push_back(std::move(c));
  }
  return report;
}

}  // namespace mlperf
