// `mlperf-score score`: score benchmark directories (scoring.md §2–§5) and report them.

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "common.h"
#include "mlperf/report.h"

namespace mlperf::cli {

namespace {

struct ScoreArgs {
  std::string ruleset;
  std::string format = "table";
  std::string rcp_pass = "pruned";
  bool bert_train_samples = false;
  double tolerance = 5.0;
  std::string data_dir;
  bool probe = false;
  std::string sysfs_root = "/sys";
  std::vector<std::string> paths;
};

int run_score(const ScoreArgs& args) {
  bool ruleset_ok = true;
  ScoreOptions options;
  options.ruleset = parse_ruleset_option(args.ruleset, ruleset_ok);
  if (!ruleset_ok) return kExitInputError;
  options.rcp_pass = args.rcp_pass == "full" ? RcpPass::kFull : RcpPass::kPruned;
  options.bert_train_samples = args.bert_train_samples;
  options.tolerance_percent = args.tolerance;
  ReportFormat format = *parse_report_format(args.format);

  auto data = load_data(args.data_dir);
  if (!data) return kExitInputError;
  if (options.ruleset) {
    auto rcp_rulesets = data->rcp_rulesets("training");
    bool known = data->facts().rounds.count(*options.ruleset) > 0 ||
                 std::find(rcp_rulesets.begin(), rcp_rulesets.end(), *options.ruleset) != rcp_rulesets.end();
    if (!known) {
      fmt::print(stderr, "mlperf-score: warning: ruleset {} has no shipped facts or RCPs\n", options.ruleset->str());
    }
  }

  if (args.probe) apply_probe(args.sysfs_root, *data, options);  // warnings only, never fatal

  int status = kExitPassed;
  std::vector<BenchmarkDir> dirs = collect_benchmark_dirs(args.paths, status);
  std::vector<DirectoryResult> results = score_directories(dirs, *data, options);
  print_input_errors(results);
  for (const auto& r : results) {
    if (!r.errors.empty()) status = kExitInputError;
    if (!r.passed && status == kExitPassed) status = kExitRuleFailed;
  }
  write_report(std::cout, results, format, options.rcp_pass);
  std::cout.flush();
  return status;
}

Command add_score_command(CLI::App& app) {
  auto args = std::make_shared<ScoreArgs>();
  CLI::App* cmd = app.add_subcommand("score", "Score benchmark directories (holding result_*.txt) or any folder above them");
  cmd->add_option("--ruleset", args->ruleset,
                  "Ruleset X.Y.Z (default: a training_results_vX.Y path component, else the newest shipped)");
  cmd->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}))
      ->capture_default_str();
  cmd->add_option("--rcp-pass", args->rcp_pass, "RCP set: pruned (default, as the reference) or full")
      ->check(CLI::IsMember({"pruned", "full"}))
      ->capture_default_str();
  cmd->add_flag("--bert-train-samples", args->bert_train_samples, "bert: take samples to converge from train_samples");
  cmd->add_option("--tolerance", args->tolerance, "Tolerance for the expected-result comparison, percent")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--data-dir", args->data_dir, "Folder holding configs/ and data/rcps/");
  CLI::Option* probe = cmd->add_flag("--probe", args->probe,
                                     "Tag directories whose logs name no known platform with this node's GPUs "
                                     "(see `probe`); warn when they name another");
  cmd->add_option("--sysfs-root", args->sysfs_root, "sysfs root for --probe (KFD topology and DRM PCI ids)")
      ->needs(probe)
      ->capture_default_str();
  cmd->add_option("PATH", args->paths, "Benchmark directories or folders above them")->required();
  return {cmd, [args] { return run_score(*args); }};
}

const bool registered = register_command("score", &add_score_command);

}  // namespace

}  // namespace mlperf::cli
