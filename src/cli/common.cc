#include "common.h"
#include "mlperf/mllog/line_reader.h"

#include <new>
#include <cstdio>

#include "mlperf/report/table_text.h"

#include <algorithm>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "mlperf/device/device_probe.h"
#include "mlperf/report/output.h"

namespace mlperf::cli {

void print_stderr_line(std::string_view line) {
  std::string text = terminal_text(line);
  text += '\n';
  std::fwrite(text.data(), 1, text.size(), stderr);
}

namespace {
std::vector<std::pair<std::string, CommandFactory>>& registry() {
  static std::vector<std::pair<std::string, CommandFactory>> commands;  // built before main()
  return commands;
}
}  // namespace

bool register_command(const char* name, CommandFactory factory) {
  registry().emplace_back(name, factory);
  return true;
}

std::vector<std::pair<std::string, CommandFactory>> registered_commands() {
  auto commands = registry();
  std::sort(commands.begin(), commands.end());
  return commands;
}

void add_scoring_options(CLI::App* cmd, ScoringArgs& args, const std::vector<std::string>& formats,
                         const std::string& format_help) {
  cmd->add_option("--ruleset", args.ruleset,
                  "Ruleset X.Y.Z (default: a training_results_vX.Y path component, else guessed from the benchmark's "
                  "rounds and the logs' dates, else the newest shipped)");
  cmd->add_option("--usage", args.usage,
                  "training or hpc (MLPerf HPC): the suite --ruleset belongs to (default: an hpc_results_vX.Y or "
                  "training_results_vX.Y path component, else hpc for <system>/strong|weak/<benchmark> folders)")
      ->check(CLI::IsMember({"training", "hpc"}));
  cmd->add_option("--format", args.format, format_help)->check(CLI::IsMember(formats))->capture_default_str();
  cmd->add_option("--rcp-pass", args.rcp_pass, "RCP set: pruned (default, as the reference) or full")
      ->check(CLI::IsMember({"pruned", "full"}))
      ->capture_default_str();
  cmd->add_flag("--bert-train-samples", args.bert_train_samples, "bert: take samples to converge from train_samples");
  cmd->add_option("--data-dir", args.data_dir, "Folder holding configs/ and data/rcps/");
  cmd->add_option("--glob", args.glob, "Take the files whose names match PATTERN as a folder's runs (e.g. '*.log')");
  cmd->add_option("--output", args.output,
                  "Write the report to FILE (a regular or new file atomically, a device or FIFO in place; - for "
                  "standard output)")
      ->capture_default_str();
}

bool finish_unless_memory_ran_out(OutputWriter& output, const std::string& path) {
  if (memory_ran_out()) {
    // Some allocation failed on the way: never put a report in place that may lack part.
    say_out_of_memory(
        fmt::format("mlperf-score: {}: out of memory while building the report; nothing was written", path));
    return false;
  }
  output.finish();
  return true;
}

bool emit_report(const ScoringArgs& args, const std::function<void(std::ostream&)>& write) {
  try {
    if (args.output == "-") {
      write(std::cout);
      std::cout.flush();
      return true;
    }
    // Streamed as it is written: a report of any size is never held whole in memory.
    OutputWriter output(args.output, std::cout);
    write(output.stream());
    if (!finish_unless_memory_ran_out(output, args.output)) return false;
  } catch (const std::exception& e) {
    if (is_out_of_memory(e)) throw;  // std::bad_alloc, ENOMEM: never a finding; main.cc says so, exit 2
    print_stderr_line(fmt::format("mlperf-score: {}", e.what()));
    return false;
  }
  return true;
}

void add_probe_options(CLI::App* cmd, ScoringArgs& args, const std::string& help) {
  CLI::Option* probe = cmd->add_flag("--probe", args.probe, help);
  cmd->add_option("--sysfs-root", args.sysfs_root, "sysfs root for --probe (KFD topology, DRM and PCI device ids)")
      ->needs(probe)
      ->capture_default_str();
}

std::optional<ScoreOptions> score_options(const ScoringArgs& args) {
  bool ruleset_ok = true;
  ScoreOptions options;
  options.ruleset = parse_ruleset_option(args.ruleset, ruleset_ok);
  if (!ruleset_ok) return std::nullopt;
  if (!args.usage.empty()) options.usage = parse_usage(args.usage);
  options.rcp_pass = args.rcp_pass == "full" ? RcpPass::kFull : RcpPass::kPruned;
  options.bert_train_samples = args.bert_train_samples;
  return options;
}

int exit_status(const std::vector<DirectoryResult>& results, int status) {
  for (const auto& r : results) {
    if (!r.errors.empty()) status = kExitInputError;
    // An incomplete set (a first run, a partial set) is neither passed nor failed (issue #14).
    if (!r.passed && r.verdict != "incomplete" && status == kExitPassed) status = kExitRuleFailed;
  }
  return status;
}

DataContext* load_data(const std::string& data_dir) {
  try {
    static DataContext* loaded = nullptr;  // one command runs per process
    loaded = new DataContext(find_data_root(data_dir.empty() ? std::nullopt : std::optional<std::filesystem::path>(data_dir)));
    return loaded;
  } catch (const std::exception& e) {
    if (is_out_of_memory(e)) throw;  // std::bad_alloc, ENOMEM: never a finding; main.cc says so, exit 2
    print_stderr_line(fmt::format("mlperf-score: {}", e.what()));
    return nullptr;
  }
}

std::optional<Ruleset> parse_ruleset_option(const std::string& text, bool& ok) {
  ok = true;
  if (text.empty()) return std::nullopt;
  auto r = Ruleset::parse(text);
  if (!r) {
    print_stderr_line(fmt::format("mlperf-score: --ruleset {}: expected X.Y.Z, e.g. 5.1.0", text));
    ok = false;
  }
  return r;
}

namespace {

void print_discovery_errors(const std::vector<DiscoveryError>& errors, bool& real_errors) {
  for (const auto& e : errors) {
    print_stderr_line(fmt::format("mlperf-score: {}{}: {}", e.warning ? "warning: " : "", e.path, e.message));
    real_errors = real_errors || !e.warning;
  }
}

void print_nothing_found(const std::string& path, const std::string& glob) {
  print_stderr_line(fmt::format("mlperf-score: {}: no result files found ({})", path,
                                glob.empty() ? "result_*.txt, <DATESTAMP>_<N>.log, *.log/*.txt holding MLLOG lines, or "
                                               "loadgen logs (mlperf_log_detail.txt)"
                                             : "--glob " + glob));
}

}  // namespace

std::vector<BenchmarkDir> collect_benchmark_dirs(const std::vector<std::string>& paths, int& status,
                                                const std::string& glob) {
  std::vector<BenchmarkDir> dirs;
  BenchmarkDirSource source(paths, status, glob);
  while (source(dirs)) {
  }
  return dirs;
}

std::size_t logs_given_in_a_row(const std::vector<std::string>& paths, std::size_t at) {
  auto is_file = [](const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec);
  };
  if (at >= paths.size() || !is_file(paths[at])) return 0;
  const std::filesystem::path first(paths[at]);
  // A bare name is in "." ("run.log" and "./run.log" are one folder's).
  const std::filesystem::path folder = folder_of_file(first);
  const bool loadgen = is_loadgen_log_name(first.filename().native());
  std::size_t n = 1;
  for (; at + n < paths.size(); ++n) {
    const std::filesystem::path next(paths[at + n]);
    if (folder_of_file(next) != folder || is_loadgen_log_name(next.filename().native()) != loadgen ||
        !is_file(next)) {
      break;
    }
  }
  return n;
}

BenchmarkDirSource::BenchmarkDirSource(std::vector<std::string> paths, int& status, std::string glob, bool single_logs)
    : paths_(std::move(paths)), status_(status), glob_(std::move(glob)), single_logs_(single_logs) {}

bool BenchmarkDirSource::operator()(std::vector<BenchmarkDir>& out) {
  while (at_ < paths_.size()) {
    const std::string& path = paths_[at_];
    if (!walk_) {
      std::filesystem::path walked(path);
      const bool loadgen = is_loadgen_log_name(walked.filename().native());
      if (single_logs_ && !loadgen) {
        // A log is judged alone: the paths given after it are not looked at here.
        std::error_code ec;
        if (std::filesystem::is_regular_file(walked, ec)) {
          ++at_;
          out.push_back(single_log_dir(walked));
          return true;
        }
      } else if (const std::size_t given = logs_given_in_a_row(paths_, at_); given > 0) {
        if (loadgen) {
          // A loadgen log stands for its run's folder, walked as if it were given; the
          // folder's other log given next is the same run.
          walked = folder_of_file(walked);
          at_ += given - 1;
        } else {
          out.push_back(given_logs_dir({paths_.begin() + static_cast<std::ptrdiff_t>(at_),
                                        paths_.begin() + static_cast<std::ptrdiff_t>(at_ + given)}));
          at_ += given;
          return true;
        }
      }
      if (auto part = scenario_folder_part(walked)) {
        // A scenario folder's accuracy run, performance run or compliance test is judged
        // with that folder: its report holds the part's verdict.
        print_stderr_line(fmt::format("mlperf-score: note: {} {} {}; reading that folder", walked.string(),
                                      part->what, part->folder.string()));
        walked = std::move(part->folder);
      }
      walk_.emplace(walked, glob_);
      found_ = false;
      real_errors_ = false;
    }
    std::vector<DiscoveryError> errors;
    const bool more = walk_->next(out, errors);
    print_discovery_errors(errors, real_errors_);
    if (more) {
      found_ = true;
      return true;
    }
    if (real_errors_) status_ = kExitInputError;
    if (!found_ && !real_errors_) {
      print_nothing_found(path, glob_);
      status_ = kExitInputError;
    }
    walk_.reset();
    ++at_;
  }
  return false;
}

void apply_probe(const std::string& sysfs_root, const DataContext& data, ScoreOptions& options) {
  ProbeOptions probe_options;
  probe_options.sysfs_root = sysfs_root;
  std::vector<std::string> warnings;
  ProbeResult probed = probe_devices(probe_options, data.platforms());
  options.probed_platform = probe_platform_tag(probed, warnings);
  for (const auto& w : warnings) print_stderr_line(fmt::format("mlperf-score: warning: {}", w));
  if (options.probed_platform) print_stderr_line(fmt::format("mlperf-score: probe: {}", probed.summary()));
}

void print_input_errors(const std::vector<DirectoryResult>& results) {
  for (const auto& r : results) {
    for (const auto& e : r.errors) print_stderr_line(fmt::format("mlperf-score: {}", e));
    for (const auto& run : r.runs) {
      for (const auto& e : run.parse_errors) print_stderr_line(fmt::format("{}:{}: {}", e.file, e.line, e.message));
      if (run.parse_error_count > run.parse_errors.size()) {
        print_stderr_line(fmt::format("{}: {} more parse errors not shown", run.file,
                   run.parse_error_count - run.parse_errors.size()));
      }
    }
  }
}

}  // namespace mlperf::cli
