// `mlperf-score check`: judge benchmark directories against the submission checks
// (issue #3) and report them as a table, JSON, GitHub annotations and/or JUnit XML.

#include <new>
#include <algorithm>
#include <functional>
#include <iostream>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "common.h"
#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/parallel.h"
#include "mlperf/report/check_report.h"
#include "mlperf/report/directories.h"
#include "mlperf/report/html/report.h"
#include "mlperf/report/output.h"
#include "mlperf/training/check.h"
#include "mlperf/training/package.h"
#include "mlperf/compliance/rules.h"
#include "mlperf/report/junit.h"

namespace mlperf::cli {

namespace {

struct CheckArgs : ScoringArgs {
  std::string junit;
  PackageOptions package;
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
  int status = kExitPassed;
  // A result log given on its own is judged alone; folders are searched for benchmark
  // directories, a few at a time as the walk finds them (issue #25).
  BenchmarkDirSource source(args.paths, status, args.glob, true);
  // The official compliance rules are loaded as the directories need them; a broken rules
  // folder is an input error (MissingRules::kThrow, caught below).

  CheckOptions check_options;
  if (args.probe) check_options.extra_checks.push_back(&platform_check);
  std::optional<PackageJudge> package;
  try {
    std::vector<std::filesystem::path> given(args.paths.begin(), args.paths.end());
    package.emplace(data->package_rules(), data->facts(), given, args.package);
  } catch (const std::exception& e) {
    if (is_out_of_memory(e)) throw;  // std::bad_alloc, ENOMEM: never a finding; main.cc says so, exit 2
    print_stderr_line(fmt::format("mlperf-score: {}", e.what()));
    return kExitInputError;
  }
  check_options.package = &*package;

  // Directory by directory in input order, a batch at a time: the report and the JUnit
  // suites are written as each batch is judged, so memory stays that of a batch (issue #25).
  std::optional<JUnitWriter> junit;
  if (!args.junit.empty()) junit.emplace();
  std::optional<OutputWriter> junit_output;
  bool written = emit_report(args, [&](std::ostream& out) {
    // HTML is one page of every directory: its reports are kept until the end.
    std::vector<CheckReport> all;
    std::optional<CheckReportWriter> writer;
    if (args.format != "html") {
      writer.emplace(out, args.format == "json"     ? CheckReportWriter::Format::kJson
                          : args.format == "github" ? CheckReportWriter::Format::kGithub
                                                    : CheckReportWriter::Format::kTable);
    }
    keep_until_exit(score_directories_in_batches(
        std::ref(source), *data, options,
        [&](std::vector<DirectoryResult>& batch) {
          print_input_errors(batch);
          // The inference scenario folders judged on every thread (each on its own); the
          // training directories after, in order, as before (their package checks share
          // what they read of each system description).
          std::vector<CheckReport> reports(batch.size());
          parallel_for(batch.size(), default_threads(), [&](std::size_t k) {
            if (batch[k].dir.loadgen) reports[k] = check_directory(batch[k], data->facts(), check_options);
          });
          for (std::size_t k = 0; k < batch.size(); ++k) {
            if (!batch[k].dir.loadgen) reports[k] = check_directory(batch[k], data->facts(), check_options);
          }
          for (const auto& report : reports) {
            if (report.input_error) status = kExitInputError;
            if (!report.passed() && status == kExitPassed) status = kExitRuleFailed;
          }
          if (junit) junit->add(reports);
          if (writer) {
            writer->add(reports);
          } else {
            for (auto& r : reports) all.push_back(std::move(r));
          }
        },
        kBatchFiles, MissingRules::kThrow));
    if (writer) {
      writer->finish();
    } else {
      out << html::check_report(all);
      keep_until_exit(std::move(all));
    }
    // The JUnit file is written (to its temporary: standard output and FIFOs in place, a file
    // atomically, output.h) before the report is put in place, so every allocation of both
    // comes before either is: running out of memory on the way leaves neither file.
    if (junit) {
      junit_output.emplace(args.junit, std::cout);
      junit->finish(junit_output->stream());
    }
  });
  if (!written) return kExitInputError;

  if (junit_output) {
    try {
      if (!finish_unless_memory_ran_out(*junit_output, args.junit)) return kExitInputError;
    } catch (const std::exception& e) {
      if (is_out_of_memory(e)) throw;  // std::bad_alloc, ENOMEM: never a finding; main.cc says so, exit 2
      print_stderr_line(fmt::format("mlperf-score: {}", e.what()));
      return kExitInputError;
    }
  }
  return status;
}

Command add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Check result logs against the official compliance rules, and benchmark directories and "
               "submission packages as the official package checker does (quality target, consistency, run count, "
               "result files, seeds, system description, power, olympic score, RCP), and inference scenario "
               "folders as the submission checker does (performance run, accuracy run and its files, "
               "compliance tests); exit 1 on an error, each finding naming its file and line");
  add_scoring_options(cmd, *args, {"table", "json", "github", "html"},
                      "Output format: table, json, github (workflow annotations) or html (one self-contained page)");
  cmd->add_option("--junit", args->junit,
                  "Also write JUnit XML to FILE (one testsuite per directory, one testcase per check): a regular or new file "
                  "atomically, a device or FIFO in place, - for standard output");
  add_probe_options(cmd, *args,
                    "Tag directories whose logs name no known platform with this node's GPUs "
                    "and warn when they name another (see `probe`)");
  cmd->add_flag("--rcp-bypass", args->package.rcp_bypass,
               "As the package checker's --rcp-bypass: a failed RCP check (RCP found or interpolated, or missing) "
               "is a warning, for the submission committee to review");
  cmd->add_flag("--seed-checker-bypass", args->package.seed_checker_bypass,
                "As the package checker's --seed-checker-bypass: seed checker errors are warnings");
  cmd->add_option("PATH", args->paths,
                  "Result logs, benchmark directories, scenario folders (or their accuracy runs or compliance "
                  "tests) or folders above them")
      ->required();
  return {cmd, [args] { return run_check(*args); }};
}

const bool check_registered = register_command("check", &add_check_command);

}  // namespace

}  // namespace mlperf::cli
