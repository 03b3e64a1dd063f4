// `mlperf-score score`: score benchmark directories (scoring.md §2–§5) and report them.

#include <algorithm>
#include <functional>
#include <iostream>

#include <fmt/format.h>

#include "common.h"
#include "mlperf/report/directories.h"
#include "mlperf/report/html/report.h"
#include "mlperf/report/report.h"

namespace mlperf::cli {

namespace {

struct ScoreArgs : ScoringArgs {
  double tolerance = 5.0;
  std::vector<std::string> paths;
};

int run_score(const ScoreArgs& args) {
  std::optional<ScoreOptions> parsed = score_options(args);
  if (!parsed) return kExitInputError;
  ScoreOptions options = *parsed;
  options.tolerance_percent = args.tolerance;

  auto data = load_data(args.data_dir);
  if (!data) return kExitInputError;
  if (options.ruleset) {
    // Under --usage hpc the ruleset is an HPC round (hpc 3.0.0); else a training one.
    const Usage usage = options.usage.value_or(Usage::kTraining);
    const Ruleset ruleset = options.ruleset->with_usage(usage);
    auto rcp_rulesets = data->rcp_rulesets(to_string(usage));
    bool known = data->facts().rounds.count(ruleset) > 0 ||
                 std::find(rcp_rulesets.begin(), rcp_rulesets.end(), options.ruleset->with_usage(Usage::kTraining)) !=
                     rcp_rulesets.end();
    if (!known && !options.usage) known = data->facts().rounds.count(ruleset.with_usage(Usage::kHpc)) > 0;
    if (!known) {
      print_stderr_line(fmt::format("mlperf-score: warning: ruleset {} has no shipped facts or RCPs", options.ruleset->str()));
    }
  }

  if (args.probe) apply_probe(args.sysfs_root, *data, options);  // warnings only, never fatal

  int status = kExitPassed;
  // The directories a few at a time as the walk finds them: neither the tree nor the
  // results are ever held whole (issue #25), except for the HTML page.
  BenchmarkDirSource source(args.paths, status, args.glob);
  bool written = emit_report(args, [&](std::ostream& out) {
    if (args.format == "html") {
      // One page with every directory's charts: the results are held until it is written.
      std::vector<BenchmarkDir> dirs;
      while (source(dirs)) {
      }
      std::vector<DirectoryResult> results = score_directories(dirs, *data, options);
      print_input_errors(results);
      status = exit_status(results, status);
      out << html::score_report(results, options.rcp_pass);
      keep_until_exit(std::move(results));
      keep_until_exit(std::move(dirs));
      return;
    }
    // Directory by directory in input order, a batch at a time.
    ReportWriter writer(out, *parse_report_format(args.format), options.rcp_pass);
    keep_until_exit(score_directories_in_batches(
        std::ref(source), *data, options,
        [&](std::vector<DirectoryResult>& batch) {
          print_input_errors(batch);
          status = exit_status(batch, status);
          writer.add(batch);
        },
        kBatchFiles, MissingRules::kScoreWithout,
        // Each directory written from the thread that scored it, in order, while the others
        // are scored.
        [&](std::size_t index, const DirectoryResult& scored) { writer.prepare(index, scored); }));
    writer.finish();
  });
  return written ? status : kExitInputError;
}

Command add_score_command(CLI::App& app) {
  auto args = std::make_shared<ScoreArgs>();
  CLI::App* cmd = app.add_subcommand("score", "Score training benchmark directories (result logs) and inference scenario folders "
                                 "(loadgen logs: the table's figure, accuracy.txt against its targets, the compliance "
                                 "tests), or any folder above them");
  add_scoring_options(cmd, *args, {"table", "json", "csv", "markdown", "html"});
  cmd->add_option("--tolerance", args->tolerance, "Tolerance for the expected-result comparison, percent")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  add_probe_options(cmd, *args,
                    "Tag directories whose logs name no known platform with this node's GPUs "
                    "(see `probe`); warn when they name another");
  cmd->add_option(
      "PATH", args->paths,
      "Benchmark directories, scenario folders (or their accuracy runs or compliance tests), or folders above "
      "them; or result logs (those of one folder given in a row are its runs)")
      ->required();
  return {cmd, [args] { return run_score(*args); }};
}

const bool score_registered = register_command("score", &add_score_command);

}  // namespace

}  // namespace mlperf::cli
