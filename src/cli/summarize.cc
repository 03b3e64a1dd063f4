// `mlperf-score summarize`: score a round, a submitter or a system folder and print one row
// per system with one score column per benchmark of the round (the MLCommons results table).

#include <iostream>

#include <fmt/format.h>

#include "common.h"
#include "mlperf/summary.h"

namespace mlperf::cli {

namespace {

struct SummarizeArgs {
  std::string ruleset;
  std::string format = "table";
  std::string rcp_pass = "pruned";
  bool bert_train_samples = false;
  std::string data_dir;
  std::vector<std::string> paths;
};

int run_summarize(const SummarizeArgs& args) {
  bool ruleset_ok = true;
  ScoreOptions options;
  options.ruleset = parse_ruleset_option(args.ruleset, ruleset_ok);
  if (!ruleset_ok) return kExitInputError;
  options.rcp_pass = args.rcp_pass == "full" ? RcpPass::kFull : RcpPass::kPruned;
  options.bert_train_samples = args.bert_train_samples;
  ReportFormat format = *parse_report_format(args.format);

  auto data = load_data(args.data_dir);
  if (!data) return kExitInputError;

  int status = kExitPassed;
  std::vector<BenchmarkDir> dirs = collect_benchmark_dirs(args.paths, status);
  std::vector<DirectoryResult> results = score_directories(dirs, *data, options);
  print_input_errors(results);
  for (const auto& r : results) {
    if (!r.errors.empty()) status = kExitInputError;
    if (!r.passed && status == kExitPassed) status = kExitRuleFailed;
  }
  Summary summary = summarize(results, data->facts());
  for (const auto& w : summary.warnings) fmt::print(stderr, "mlperf-score: warning: {}\n", w);
  write_summary(std::cout, summary, results, format, options.rcp_pass);
  std::cout.flush();
  return status;
}

Command add_summarize_command(CLI::App& app) {
  auto args = std::make_shared<SummarizeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "summarize", "One row per system, one score column per benchmark of the round (a round, submitter or system folder)");
  cmd->add_option("--ruleset", args->ruleset,
                  "Ruleset X.Y.Z (default: a training_results_vX.Y path component, else the newest shipped)");
  cmd->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}))
      ->capture_default_str();
  cmd->add_option("--rcp-pass", args->rcp_pass, "RCP set: pruned (default, as the reference) or full")
      ->check(CLI::IsMember({"pruned", "full"}))
      ->capture_default_str();
  cmd->add_flag("--bert-train-samples", args->bert_train_samples, "bert: take samples to converge from train_samples");
  cmd->add_option("--data-dir", args->data_dir, "Folder holding configs/ and data/rcps/");
  cmd->add_option("PATH", args->paths, "A round, submitter or system folder (or benchmark directories)")->required();
  return {cmd, [args] { return run_summarize(*args); }};
}

const bool registered = register_command("summarize", &add_summarize_command);

}  // namespace

}  // namespace mlperf::cli
