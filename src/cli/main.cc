// mlperf-score: score MLPerf Training result directories exactly as the official tooling does.
// Each subcommand lives in its own file under src/cli/; this file only dispatches.

#include <CLI/CLI.hpp>

#include <vector>

#include "common.h"

int main(int argc, char** argv) {
  using namespace mlperf::cli;
  CLI::App app{"mlperf-score: MLPerf Training result logs → time to train, RCP check, score"};
  app.set_version_flag("--version", "mlperf-score 0.1.0");
  app.require_subcommand(1);

  std::vector<Command> commands;
  for (const auto& [name, factory] : registered_commands()) commands.push_back(factory(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitInputError;
  }
  for (const auto& c : commands) {
    if (*c.app) return c.run();
  }
  return kExitInputError;
}
