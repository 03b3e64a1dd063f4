// `mlperf-score compare`: score benchmark directories and compare them, one row per
// directory grouped by benchmark, with the speedup against a baseline (scoring.md §2–§5).

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "common.h"
#include "mlperf/report/directories.h"
#include "mlperf/report/compare.h"
#include "mlperf/report/html/report.h"

namespace mlperf::cli {

namespace {

struct CompareArgs : ScoringArgs {
  std::string baseline;
  std::vector<std::string> paths;
};

// The same directory given twice (as baseline and in PATH, or below two PATHs) is one row.
std::string identity(const std::filesystem::path& p) {
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(p, ec);
  return ec ? std::filesystem::absolute(p).lexically_normal().string() : canonical.string();
}

// The same for a directory found: logs given by their paths are one row per set of logs, so
// two sets of one folder given apart (`a/result_1.txt b a/result_2.txt`) are two rows.
std::string identity(const BenchmarkDir& d) {
  std::string id = identity(d.path);
  if (d.file_rule == kGivenLogsRule) {
    for (const auto& f : d.result_files) id += "\n" + identity(f);
  }
  return id;
}

int run_compare(const CompareArgs& args) {
  std::optional<ScoreOptions> parsed = score_options(args);
  if (!parsed) return kExitInputError;
  const ScoreOptions& options = *parsed;

  auto data = load_data(args.data_dir);
  if (!data) return kExitInputError;

  // The baseline directories come first: --baseline, else the first PATH.
  int status = kExitPassed;
  // The first PATH as a baseline is the logs of one folder given one after another when it
  // is a log (as score takes them), else that one path.
  const std::size_t first = args.baseline.empty() ? std::max<std::size_t>(1, logs_given_in_a_row(args.paths, 0)) : 0;
  std::vector<std::string> baseline_paths = {args.baseline};
  if (first > 0) baseline_paths.assign(args.paths.begin(), args.paths.begin() + static_cast<std::ptrdiff_t>(first));
  std::vector<BenchmarkDir> dirs = collect_benchmark_dirs(baseline_paths, status, args.glob);
  const std::size_t baseline_count = dirs.size();
  std::set<std::string> seen;
  for (const auto& d : dirs) seen.insert(identity(d));
  std::vector<std::string> rest(args.paths.begin() + static_cast<std::ptrdiff_t>(first), args.paths.end());
  for (auto& d : collect_benchmark_dirs(rest, status, args.glob)) {
    if (seen.insert(identity(d)).second) dirs.push_back(std::move(d));
  }

  std::vector<DirectoryResult> results = score_directories(std::move(dirs), *data, options);
  print_input_errors(results);
  status = exit_status(results, status);
  Comparison comparison = compare_results(results, baseline_count);
  bool written = emit_report(args, [&](std::ostream& out) {
    if (args.format == "html") {
      out << html::comparison_report(comparison);
    } else {
      write_comparison(out, comparison, *parse_report_format(args.format));
    }
  });
  keep_until_exit(std::move(results));
  keep_until_exit(std::move(comparison));
  return written ? status : kExitInputError;
}

Command add_compare_command(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare benchmark directories: score, speedup vs a baseline, run-time spread, grouped by benchmark "
      "(inference: the result per model and scenario; MLPerf HPC weak scaling: the throughput, apart)");
  cmd->add_option("--baseline", args->baseline,
                  "Baseline directory (or a folder above several); default: the first PATH");
  add_scoring_options(cmd, *args, {"table", "json", "csv", "markdown", "html"});
  cmd->add_option(
      "PATH", args->paths,
      "Benchmark directories, scenario folders (or their accuracy runs or compliance tests), or folders above "
      "them; or result logs (those of one folder given in a row are its runs)")
      ->required();
  return {cmd, [args] { return run_compare(*args); }};
}

const bool compare_registered = register_command("compare", &add_compare_command);

}  // namespace

}  // namespace mlperf::cli
