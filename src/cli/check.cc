// `mlperf-score check`: judge benchmark directories against the submission checks
// (issue #3) and report them as a table, JSON, GitHub annotations and/or JUnit XML.

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "common.h"
#include "mlperf/atomic_file.h"
#include "mlperf/check.h"
#include "mlperf/junit.h"

namespace mlperf::cli {

namespace {

struct CheckArgs : ScoringArgs {
  std::string junit;
  std::vector<std::string> paths;
};

// `--probe`: the platform the logs and system description name against this node's GPUs
// (issue #4). A mismatch is a warning, never a failure: the logs may come from another node.
CheckResult platform_check(const DirectoryResult& r) {
  CheckResult result{"platform", "the submission platform agrees with this node's GPUs (probe)", {}};
  for (const auto& w : r.warnings) {
    if (w.ends_with("(probe)")) result.findings.push_back({"platform", Finding::kWarning, r.dir.path.string(), 0, w});
  }
  return result;
}

int run_check(const CheckArgs& args) {
  std::optional<ScoreOptions> parsed = score_options(args);
  if (!parsed) return kExitInputError;
  ScoreOptions options = *parsed;

  auto data = load_data(args.data_dir);
  if (!data) return kExitInputError;
  if (args.probe) apply_probe(args.sysfs_root, *data, options);  // warnings only, never fatal
  CheckRules rules;
  try {
    rules = CheckRules::load(data->root() / "configs" / "checks.json");
  } catch (const std::exception& e) {
    fmt::print(stderr, "mlperf-score: {}\n", e.what());
    return kExitInputError;
  }

  int status = kExitPassed;
  std::vector<BenchmarkDir> dirs = collect_benchmark_dirs(args.paths, status, args.glob);
  std::vector<DirectoryResult> results = score_directories(dirs, *data, options);
  print_input_errors(results);

  CheckOptions check_options;
  if (args.probe) check_options.extra_checks.push_back(&platform_check);
  std::vector<CheckReport> reports;
  reports.reserve(results.size());
  for (const auto& r : results) {
    reports.push_back(check_directory(r, rules.for_ruleset(r.ruleset), data->facts(), check_options));
  }
  for (const auto& report : reports) {
    if (report.input_error) status = kExitInputError;
    if (!report.passed() && status == kExitPassed) status = kExitRuleFailed;
  }

  if (args.format == "json") {
    write_check_json(std::cout, reports);
  } else if (args.format == "github") {
    write_github_annotations(std::cout, reports);
  } else {
    write_check_table(std::cout, reports);
  }
  std::cout.flush();

  if (!args.junit.empty()) {
    try {
      write_file_atomically(args.junit, junit_xml(reports));
    } catch (const std::exception& e) {
      fmt::print(stderr, "mlperf-score: {}\n", e.what());
      return kExitInputError;
    }
  }
  return status;
}

Command add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Check benchmark directories against the submission rules (required keys, event order, "
               "quality target, consistency, run count, olympic score, RCP)");
  add_scoring_options(cmd, *args, {"table", "json", "github"},
                      "Output format: table, json, or github (workflow annotations)");
  cmd->add_option("--junit", args->junit,
                  "Also write JUnit XML to FILE (one testsuite per directory, one testcase per check), atomically");
  add_probe_options(cmd, *args,
                    "Tag directories whose logs name no known platform with this node's GPUs "
                    "and warn when they name another (see `probe`)");
  cmd->add_option("PATH", args->paths, "Benchmark directories or folders above them")->required();
  return {cmd, [args] { return run_check(*args); }};
}

const bool registered = register_command("check", &add_check_command);

}  // namespace

}  // namespace mlperf::cli
