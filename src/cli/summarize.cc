// `mlperf-score summarize`: score a round, a submitter or a system folder and print one row
// per system with one score column per benchmark of the round (the MLCommons results table).

#include <iostream>

#include <fmt/format.h>

#include "common.h"
#include "mlperf/report/directories.h"
#include "mlperf/report/html/report.h"
#include "mlperf/report/summary.h"

namespace mlperf::cli {

namespace {

struct SummarizeArgs : ScoringArgs {
  std::vector<std::string> paths;
};

int run_summarize(const SummarizeArgs& args) {
  std::optional<ScoreOptions> parsed = score_options(args);
  if (!parsed) return kExitInputError;
  const ScoreOptions& options = *parsed;

  auto data = load_data(args.data_dir);
  if (!data) return kExitInputError;

  int status = kExitPassed;
  std::vector<BenchmarkDir> dirs = collect_benchmark_dirs(args.paths, status, args.glob);
  std::vector<DirectoryResult> results = score_directories(std::move(dirs), *data, options);
  print_input_errors(results);
  status = exit_status(results, status);
  Summary summary = summarize(results, data->facts());
  for (const auto& w : summary.warnings) print_stderr_line(fmt::format("mlperf-score: warning: {}", w));
  bool written = emit_report(args, [&](std::ostream& out) {
    if (args.format == "html") {
      out << html::summary_report(summary, results, options.rcp_pass);
    } else {
      write_summary(out, summary, results, *parse_report_format(args.format), options.rcp_pass);
    }
  });
  keep_until_exit(std::move(results));
  keep_until_exit(std::move(summary));
  return written ? status : kExitInputError;
}

Command add_summarize_command(CLI::App& app) {
  auto args = std::make_shared<SummarizeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "summarize", "One row per system, one score column per benchmark of the round (a round, submitter or system folder)");
  add_scoring_options(cmd, *args, {"table", "json", "csv", "markdown", "html"});
  cmd->add_option("PATH", args->paths, "A round, submitter or system folder (or benchmark directories)")->required();
  return {cmd, [args] { return run_summarize(*args); }};
}

const bool summarize_registered = register_command("summarize", &add_summarize_command);

}  // namespace

}  // namespace mlperf::cli
