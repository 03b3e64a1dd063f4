#pragma once
// Reports of scored directories: table (people), json (scripts), csv and markdown (one row
// per directory). Reports only format: they never re-compute a score.

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlperf/training/score.h"
#include "mlperf/report/table_text.h"  // csv_field, used by the tests and other writers

namespace mlperf {

/// Output formats of `score`.
enum class ReportFormat { kTable, kJson, kCsv, kMarkdown };

/// Parses "table", "json", "csv", "markdown"; nullopt otherwise.
std::optional<ReportFormat> parse_report_format(const std::string& name);

/// One directory as JSON: directory, submitter, system, benchmark, division, ruleset,
/// platform (+ source), runs[] (file, minutes, counted, role, status, converged,
/// samples_to_converge — null when not converged), olympic_minutes, rcp{passed, case,
/// normalization_factor, rcp_mean, min_mean, max_speedup, submission_mean, ...},
/// score_minutes (full precision), scaling_json_factor, expected (or null), passed,
/// warnings. Minutes are minutes; samples in the benchmark's convergence unit.
nlohmann::json to_json(const DirectoryResult& result, RcpPass pass);

/// Writes all results in `format` to `out`: json is one document {"results": [...]}.
void write_report(std::ostream& out, const std::vector<DirectoryResult>& results, ReportFormat format,
                  RcpPass pass);

/// The human report of one directory (the `table` format).
void write_table(std::ostream& out, const DirectoryResult& result, RcpPass pass);

}  // namespace mlperf
