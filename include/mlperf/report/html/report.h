#pragma once
// HTML reports (`--format html`): each one self-contained page (see html/page.h). They only
// show results already computed by the scoring stages; nothing is re-scored here.

#include <string>
#include <vector>

#include "mlperf/training/check.h"
#include "mlperf/report/compare.h"
#include "mlperf/training/score.h"
#include "mlperf/report/summary.h"

namespace mlperf::html {

/// `score`: per training directory four charts with their tables — run times (counted,
/// trimmed, dropped; the olympic mean as a line, minutes), eval_accuracy against samples for
/// every run (the quality target as a line), samples to converge against the RCP mean and the
/// smallest mean it allows, the score against the published figure (minutes); per inference
/// result the figure against the published one, with its validity checks.
std::string score_report(const std::vector<DirectoryResult>& results, RcpPass pass);

/// `summarize`: the results table (one row per system, one score column per benchmark) and
/// one chart per benchmark of the scores per system, then score_report's sections.
std::string summary_report(const Summary& summary, const std::vector<DirectoryResult>& results, RcpPass pass);

/// `compare`: per benchmark a chart of the scores (or inference figures) with the table of
/// the comparison rows (speedup against the baseline, run-time spread, samples to converge).
std::string comparison_report(const Comparison& comparison);

/// `check`: per directory its checks and their findings as a table; each finding links to
/// its file:line (a file:// link); one naming no file is shown without a link.
std::string check_report(const std::vector<CheckReport>& reports);

}  // namespace mlperf::html
