#pragma once
// Reports of scored directories: table (people), json (scripts), csv and markdown (one row
// per directory). Reports only format: they never re-compute a score.

#include <iosfwd>
#include <memory>
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

class InOrderTexts;

/// write_report a batch of directories at a time, in input order, keeping nothing of a
/// directory once it is written (issue #25: memory bounded by what is being scored, not by
/// the number of directories); a training directory of many runs is written run by run.
/// The constructor writes the head (CSV and markdown header), add() each batch, finish() the
/// end (JSON's closing brackets, the table's summary, for which one line per directory is
/// kept). The bytes equal write_report over all results.
class ReportWriter {
 public:
  ReportWriter(std::ostream& out, ReportFormat format, RcpPass pass);
  ~ReportWriter();
  ReportWriter(const ReportWriter&) = delete;
  ReportWriter& operator=(const ReportWriter&) = delete;

  /// Writes `result`, at `index` in the batch add() will be given next, as soon as every
  /// result before it in that batch is written: from the threads that score, as each result
  /// is scored (a ScoredHook), so that the report is written while the other directories are
  /// scored rather than after them. Only where this format writes directory by directory
  /// and the result is an inference scenario folder's (JSON, table); otherwise, and for a result
  /// whose predecessors are not all given here, add() writes it. Thread-safe (one thread
  /// writes at a time, in order); throws only std::bad_alloc, and what it wrote is then the
  /// start of the report.
  void prepare(std::size_t index, const DirectoryResult& result);
  /// Writes `results` after those written before, less those prepare() already wrote.
  void add(const std::vector<DirectoryResult>& results);
  /// Writes the end of the report. Called once, after the last add().
  void finish();

 private:
  struct Summary;
  std::ostream& out_;
  ReportFormat format_;
  RcpPass pass_;
  std::size_t written_ = 0;
  std::unique_ptr<Summary> summary_;
  // Before a result in these formats when `written` are before it (JSON, table).
  void write_separator(std::size_t written);
  std::unique_ptr<InOrderTexts> stream_;  // the texts prepare() made (JSON, table)
};

/// The human report of one directory (the `table` format).
void write_table(std::ostream& out, const DirectoryResult& result, RcpPass pass);

}  // namespace mlperf
