// `mlperf-score follow LOG|FOLDER`: a live view of a training log while it grows (issue #14):
// elapsed time, samples done, throughput, each eval_accuracy against the quality target and
// the time to train projected from the RCP mean; ends with the run's figures at run_stop.

#include <chrono>
#include <cstdio>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.h"
#include "mlperf/mllog/discovery.h"
#include "mlperf/training/follow.h"

namespace mlperf::cli {

namespace {

struct FollowArgs {
  std::string path;
  std::string format = "text";
  std::string ruleset;
  std::string data_dir;
  double timeout_seconds = 0;  // 0: wait for run_stop however long it takes
  double interval_seconds = 1;
};

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

std::string opt_text(const std::optional<double>& v, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

void print_update(const FollowUpdate& u, bool jsonl) {
  if (jsonl) {
    nlohmann::json j = {{"time_ms", u.time_ms},
                        {"elapsed_minutes", opt(u.elapsed_minutes)},
                        {"samples", opt(u.samples)},
                        {"throughput", opt(u.throughput)},
                        {"eval_accuracy", opt(u.eval_accuracy)},
                        {"quality_target_reached", u.quality_target_reached},
                        {"rcp_mean_samples", opt(u.rcp_mean_samples)},
                        {"projected_minutes", opt(u.projected_minutes)}};
    if (u.final) {
      j["final"] = true;
      j["minutes"] = opt(u.minutes);
      j["status"] = u.status;
    }
    fmt::print("{}\n", j.dump());
  } else if (u.final) {
    fmt::print("run_stop {}: time to train {} minutes; last eval_accuracy {} ({})\n", u.status,
               opt_text(u.minutes, "{:.2f}"), opt_text(u.eval_accuracy, "{:g}"),
               u.quality_target_reached ? "quality target reached" : "quality target not reached");
  } else {
    fmt::print("{:>8} min  samples {:>10}  throughput {:>10}  eval_accuracy {:>10}{}  expected {} samples, "
               "projected {} min\n",
               opt_text(u.elapsed_minutes, "{:.2f}"), opt_text(u.samples, "{:g}"), opt_text(u.throughput, "{:.4g}"),
               opt_text(u.eval_accuracy, "{:.5g}"), u.quality_target_reached ? " (target reached)" : "",
               opt_text(u.rcp_mean_samples, "{:g}"), opt_text(u.projected_minutes, "{:.2f}"));
  }
  std::fflush(stdout);
}

// The loadgen log `follow PATH` would watch, where PATH is one or a folder holding its run
// (the logs themselves, or performance/run_1 of a scenario folder): loadgen logs have no
// run_start … run_stop to follow. nullopt for anything else.
std::optional<std::filesystem::path> loadgen_log_at(const std::string& path) {
  const std::filesystem::path p(path);
  if (is_loadgen_log_name(p.filename().native())) return p;
  return loadgen_log_of(p);
}

int run_follow(const FollowArgs& args) {
  if (auto loadgen = loadgen_log_at(args.path)) {
    // An MLPerf Inference run: loadgen writes its result when the run ends, and `score`
    // reads it then. Waiting here for a training run_stop would never end.
    print_stderr_line(fmt::format(
        "mlperf-score: {}: a loadgen log (MLPerf Inference): follow watches training logs (run_start to "
        "run_stop); loadgen writes its result when the run ends, then run: mlperf-score score {}",
        loadgen->string(), args.path));
    return kExitInputError;
  }
  bool ruleset_ok = true;
  std::optional<Ruleset> ruleset = parse_ruleset_option(args.ruleset, ruleset_ok);
  if (!ruleset_ok) return kExitInputError;
  auto data = load_data(args.data_dir);
  if (!data) return kExitInputError;
  const bool jsonl = args.format == "jsonl";
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                           std::chrono::duration<double>(args.timeout_seconds));
  const auto interval = std::chrono::duration<double>(args.interval_seconds);
  auto timed_out = [&] { return args.timeout_seconds > 0 && clock::now() >= deadline; };

  std::optional<std::filesystem::path> file;  // a folder's newest log, once there is one
  while (!(file = newest_log(args.path))) {
    if (timed_out()) {
      print_stderr_line(fmt::format("mlperf-score: {}: no log (*.log, *.txt) before the timeout", args.path));
      return kExitInputError;
    }
    std::this_thread::sleep_for(interval);
  }
  if (file->string() != args.path) print_stderr_line(fmt::format("mlperf-score: following {}", file->string()));

  FollowState state(*data, ruleset);
  LogTail tail(*file);
  bool seen = false;  // the log has existed: a later absence is a deletion
  bool missing_said = false;
  while (true) {
    LogTail::Change change = tail.poll([&](std::uint64_t line, std::string_view text) {
      if (state.view().final) return;
      Event event;
      std::string error;
      LineKind kind = parse_mllog_line(text, event, error);
      if (kind == LineKind::kError) {
        print_stderr_line(fmt::format("{}:{}: {}", file->string(), line, error));
      } else if (kind == LineKind::kEvent && state.on_event(event)) {
        print_update(state.view(), jsonl);
      }
    });
    // A run_stop read from a rotated file's last lines ends the run before anything else.
    if (state.view().final) return state.view().status == "success" ? kExitPassed : kExitRuleFailed;
    if (change == LogTail::Change::kNotRegular) {
      print_stderr_line(fmt::format("mlperf-score: {}: cannot open: not a regular file", file->string()));
      return kExitInputError;
    }
    if (change == LogTail::Change::kRestarted) {
      print_stderr_line(fmt::format("mlperf-score: {}: truncated or replaced; reading it from the start", file->string()));
      state.reset();
      missing_said = false;
      continue;
    }
    if (change == LogTail::Change::kMissing) {
      // Said each time the log disappears (and once while it has not appeared yet).
      if (!missing_said) {
        print_stderr_line(fmt::format("mlperf-score: {}: {}", file->string(),
                                      seen ? "gone (deleted or moved away); waiting for it to reappear"
                                           : "waiting for the log to appear"));
      }
      missing_said = true;
    } else {
      if (missing_said && seen) state.reset();  // a new file under the name: a new run
      missing_said = false;
      seen = true;
    }
    if (timed_out()) {
      print_stderr_line(fmt::format("mlperf-score: {}: no run_stop before the timeout", file->string()));
      return kExitInputError;
    }
    // After a read, more may be waiting; else wait for the log to grow.
    if (change != LogTail::Change::kRead) std::this_thread::sleep_for(interval);
  }
}

Command add_follow_command(CLI::App& app) {
  auto args = std::make_shared<FollowArgs>();
  CLI::App* cmd = app.add_subcommand(
      "follow", "Watch a training log while it grows: progress, eval_accuracy, projected time to train");
  cmd->add_option("--format", args->format, "text, or jsonl: one JSON object per update")
      ->check(CLI::IsMember({"text", "jsonl"}))
      ->capture_default_str();
  cmd->add_option("--ruleset", args->ruleset, "Ruleset X.Y.Z (default: guessed from the benchmark and the log's date)");
  cmd->add_option("--data-dir", args->data_dir, "Folder holding configs/ and data/rcps/");
  cmd->add_option("--timeout", args->timeout_seconds, "Give up after this many seconds (exit 2); 0: never")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--interval", args->interval_seconds, "Seconds between reads of the log")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("LOG", args->path,
                  "The log, or a folder: its newest *.log / *.txt (a training log; a loadgen run is scored "
                  "with `score` when it ends)")
      ->required();
  return {cmd, [args] { return run_follow(*args); }};
}

const bool follow_registered = register_command("follow", &add_follow_command);

}  // namespace

}  // namespace mlperf::cli
