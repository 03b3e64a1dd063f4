#pragma once
// The reports of `mlperf-score check`: JSON, the human table, GitHub Actions annotations and
// the one-line summary, written from the CheckReports the checks made (training/check.h,
// inference/check.h); JUnit is report/junit.h.

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlperf/training/check.h"

namespace mlperf {

/// One report as JSON: directory, submitter, system, benchmark, division, ruleset,
/// ruleset_source, passed, errors, warnings (counts), checks[] (check, description, passed,
/// findings[] (check, severity, file, line — null when 0, message)).
nlohmann::json check_to_json(const CheckReport& report);

/// Writes {"results": [...]} with check_to_json per report, indented.
void write_check_json(std::ostream& out, const std::vector<CheckReport>& reports);

/// The human report: per directory its verdict, one line per check, the findings under the
/// check that made them (file names relative to the directory), then a one-line summary.
void write_check_table(std::ostream& out, const std::vector<CheckReport>& reports);

/// GitHub Actions workflow commands, one per finding:
/// `::error file=PATH,line=N,title=CHECK::message` (or `::warning …`; `line=` left out when
/// the finding has no line), then a plain summary line.
void write_github_annotations(std::ostream& out, const std::vector<CheckReport>& reports);

/// The json, table and github reports written a batch of directories at a time, in input
/// order (issue #25: a report of 100,000 directories holds one batch): add() each batch,
/// finish() writes the end (closing brackets, the summary line, from counts kept on the way).
/// The bytes equal write_check_json / write_check_table / write_github_annotations over all
/// reports.
class CheckReportWriter {
 public:
  enum class Format { kJson, kTable, kGithub };
  CheckReportWriter(std::ostream& out, Format format);
  /// Writes `reports` after those written before.
  void add(const std::vector<CheckReport>& reports);
  /// Writes the end. Called once, after the last add().
  void finish();

 private:
  // One directory's entry in this format.
  std::string entry(const CheckReport& report) const;
  std::ostream& out_;
  Format format_;
  std::size_t directories_ = 0, passed_ = 0, errors_ = 0, warnings_ = 0;
};

/// Escapes a workflow-command message: % → %25, CR → %0D, LF → %0A (GitHub toolkit
/// escapeData).
std::string github_escape_data(std::string_view text);
/// Escapes a workflow-command property value: as github_escape_data plus : → %3A and
/// , → %2C (GitHub toolkit escapeProperty).
std::string github_escape_property(std::string_view text);

/// The one-line summary the table and github formats end with, e.g.
/// "check: 2 directories, 2 passed, 0 failed; 0 errors, 1 warning".
std::string check_summary(const std::vector<CheckReport>& reports);

}  // namespace mlperf
