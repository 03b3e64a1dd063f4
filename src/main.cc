// mlperf-score: score MLPerf Training result directories exactly as the official tooling does.
// The CLI only wires library stages together and picks the output format.

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "mlperf/report.h"
#include "mlperf/score.h"

namespace {

// Exit statuses CI can rely on.
enum ExitStatus : int {
  kExitPassed = 0,      ///< every directory scored and passed
  kExitRuleFailed = 1,  ///< some directory failed a rule (RCP, too many dropped runs)
  kExitInputError = 2,  ///< usage error, unreadable input, or no result files found
};

struct ScoreArgs {
  std::string ruleset;
  std::string format = "table";
  std::string rcp_pass = "pruned";
  bool bert_train_samples = false;
  double tolerance = 5.0;
  std::string data_dir;
  std::vector<std::string> paths;
};

int run_score(const ScoreArgs& args) {
  using namespace mlperf;
  ScoreOptions options;
  if (!args.ruleset.empty()) {
    options.ruleset = Ruleset::parse(args.ruleset);
    if (!options.ruleset) {
      fmt::print(stderr, "mlperf-score: --ruleset {}: expected X.Y.Z, e.g. 5.1.0\n", args.ruleset);
      return kExitInputError;
    }
  }
  options.rcp_pass = args.rcp_pass == "full" ? RcpPass::kFull : RcpPass::kPruned;
  options.bert_train_samples = args.bert_train_samples;
  options.tolerance_percent = args.tolerance;
  ReportFormat format = *parse_report_format(args.format);

  std::optional<DataContext> data;
  try {
    data.emplace(find_data_root(args.data_dir.empty() ? std::nullopt
                                                      : std::optional<std::filesystem::path>(args.data_dir)));
  } catch (const std::exception& e) {
    fmt::print(stderr, "mlperf-score: {}\n", e.what());
    return kExitInputError;
  }
  if (options.ruleset) {
    auto rcp_rulesets = data->rcp_rulesets("training");
    bool known = data->facts().rounds.count(*options.ruleset) > 0 ||
                 std::find(rcp_rulesets.begin(), rcp_rulesets.end(), *options.ruleset) != rcp_rulesets.end();
    if (!known) fmt::print(stderr, "mlperf-score: warning: ruleset {} has no shipped facts or RCPs\n", options.ruleset->str());
  }

  int status = kExitPassed;
  std::vector<BenchmarkDir> dirs;
  for (const auto& p : args.paths) {
    std::vector<DiscoveryError> errors;
    auto found = find_benchmark_dirs(p, errors);
    for (const auto& e : errors) fmt::print(stderr, "mlperf-score: {}: {}\n", e.path, e.message);
    if (!errors.empty()) status = kExitInputError;
    if (found.empty() && errors.empty()) {
      fmt::print(stderr, "mlperf-score: {}: no result files (result_*.txt) found\n", p);
      status = kExitInputError;
    }
    for (auto& d : found) dirs.push_back(std::move(d));
  }

  std::vector<DirectoryResult> results = score_directories(dirs, *data, options);
  for (const auto& r : results) {
    for (const auto& e : r.errors) fmt::print(stderr, "mlperf-score: {}\n", e);
    for (const auto& run : r.runs) {
      for (const auto& e : run.parse_errors) fmt::print(stderr, "{}:{}: {}\n", e.file, e.line, e.message);
      if (run.parse_error_count > run.parse_errors.size()) {
        fmt::print(stderr, "{}: {} more parse errors not shown\n", run.file,
                   run.parse_error_count - run.parse_errors.size());
      }
    }
    if (!r.errors.empty()) status = kExitInputError;
    if (!r.passed && status == kExitPassed) status = kExitRuleFailed;
  }
  write_report(std::cout, results, format, options.rcp_pass);
  std::cout.flush();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mlperf-score: MLPerf Training result logs → time to train, RCP check, score"};
  app.set_version_flag("--version", "mlperf-score 0.1.0");
  app.require_subcommand(1);

  ScoreArgs score;
  CLI::App* score_cmd = app.add_subcommand(
      "score", "Score benchmark directories (holding result_*.txt) or any folder above them");
  score_cmd->add_option("--ruleset", score.ruleset,
                        "Ruleset X.Y.Z (default: a training_results_vX.Y path component, else the newest shipped)");
  score_cmd->add_option("--format", score.format, "Output format")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}))
      ->capture_default_str();
  score_cmd->add_option("--rcp-pass", score.rcp_pass, "RCP set: pruned (default, as the reference) or full")
      ->check(CLI::IsMember({"pruned", "full"}))
      ->capture_default_str();
  score_cmd->add_flag("--bert-train-samples", score.bert_train_samples,
                      "bert: take samples to converge from train_samples");
  score_cmd->add_option("--tolerance", score.tolerance, "Tolerance for the expected-result comparison, percent")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  score_cmd->add_option("--data-dir", score.data_dir, "Folder holding configs/ and data/rcps/");
  score_cmd->add_option("PATH", score.paths, "Benchmark directories or folders above them")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitInputError;
  }
  if (*score_cmd) return run_score(score);
  return kExitInputError;
}
