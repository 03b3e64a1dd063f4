// `mlperf-score parse`: print every MLLOG event of result files as JSON Lines (scoring.md §1),
// streaming in constant memory with the project's one line reader and MLLOG parser.

#include <new>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "common.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"

namespace mlperf::cli {

namespace {

struct ParseArgs {
  std::vector<std::string> keys;
  std::vector<std::string> files;
};

/// What `parse` prints for standard input (`-`) in `file` and in error messages.
constexpr const char* kStdinName = "<stdin>";

std::string dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// time_ms as logged: an integer when it is one (every real log), else the JSON number.
std::string time_text(double time_ms) {
  if (std::isfinite(time_ms) && time_ms == std::floor(time_ms) && std::fabs(time_ms) < 9007199254740992.0) {
    return fmt::format("{}", static_cast<long long>(time_ms));
  }
  return dump(nlohmann::json(time_ms));
}

// Buffered standard output: events are appended and written in large blocks.
class Output {
 public:
  ~Output() { flush(); }
  void append(const std::string& text) {
    buffer_ += text;
    if (buffer_.size() >= kBlockBytes) flush();
  }
  void flush() {
    // std::cout's buffer is main's CheckedFdBuffer: a failed write is reported at the end.
    if (!buffer_.empty()) std::cout.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    std::cout.flush();
    buffer_.clear();
  }

 private:
  static constexpr std::size_t kBlockBytes = 1 << 16;
  std::string buffer_;
};

enum class FileOutcome { kClean, kParseErrors, kUnreadable };

// Streams one file: one JSON object per event (file, line, time_ms, event_type, key, value,
// metadata); parse errors to stderr as FILE:LINE: message, and a note when the file holds no
// MLLOG line at all (a loadgen summary, a harness's own output), so silence is never the
// whole answer. Never throws.
FileOutcome parse_file(const std::string& arg, const std::unordered_set<std::string>& keys, Output& out) {
  const bool is_stdin = arg == "-";
  const std::string name = is_stdin ? kStdinName : arg;
  const std::string file_json = dump(nlohmann::json(name));
  bool errors = false;
  bool any_mllog = false;  // an MLLOG line, parsed or not, whatever --keys keeps
  std::uint64_t lines = 0;
  auto report = [&](std::uint64_t line, const std::string& message) {
    out.flush();  // keep stdout and stderr in order on a terminal
    print_stderr_line(fmt::format("{}:{}: {}", name, line, message));
    errors = true;
  };
  try {
    if (!is_stdin) {
      // A FIFO, socket or device is no log (and a FIFO without a writer blocks), as for score.
      struct stat info {};
      if (::stat(arg.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
        throw std::runtime_error(fmt::format("{}: cannot open: {}", arg,
                                             S_ISDIR(info.st_mode) ? std::strerror(EISDIR) : "not a regular file"));
      }
    }
    LineReader reader(file_source(is_stdin ? "/dev/stdin" : arg));
    Line line;
    Event event;
    std::string error;
    while (reader.next(line)) {
      lines = line.number;
      if (line.truncated) {
        if (line.text.find(kMllogToken) != std::string_view::npos) {
          any_mllog = true;
          report(line.number, fmt::format("MLLOG line longer than {} bytes", reader.max_line_bytes()));
        }
        continue;
      }
      switch (parse_mllog_line(line.text, event, error)) {
        case LineKind::kNotMllog:
          break;
        case LineKind::kError:
          any_mllog = true;
          report(line.number, error);
          break;
        case LineKind::kEvent:
          any_mllog = true;
          if (!keys.empty() && keys.count(event.key) == 0) break;
          out.append(fmt::format(
              "{{\"file\":{},\"line\":{},\"time_ms\":{},\"event_type\":{},\"key\":{},\"value\":{},\"metadata\":{}}}\n",
              file_json, line.number, time_text(event.time_ms),
              event.event_type.empty() ? std::string("null") : dump(nlohmann::json(event.event_type)),
              dump(nlohmann::json(event.key)), dump(event.value), dump(event.metadata)));
          break;
      }
    }
  } catch (const std::exception& e) {
    if (is_out_of_memory(e)) throw;  // std::bad_alloc, ENOMEM: never a finding; main.cc says so, exit 2
    // Cannot open, or a read error part-way: what was read is printed, the rest is lost.
    out.flush();
    print_stderr_line(fmt::format("mlperf-score: {}", e.what()));
    return FileOutcome::kUnreadable;
  }
  if (!any_mllog) {
    out.flush();
    print_stderr_line(lines == 0 ? fmt::format("mlperf-score: note: {} is empty", name)
                                 : fmt::format("mlperf-score: note: {}: no MLLOG line (\"{}{{...}}\") in its {} line{}",
                                               name, kMllogToken, lines, lines == 1 ? "" : "s"));
  }
  return errors ? FileOutcome::kParseErrors : FileOutcome::kClean;
}

int run_parse(const ParseArgs& args) {
  std::unordered_set<std::string> keys;
  for (const auto& k : args.keys) {
    if (!k.empty()) keys.insert(k);
  }
  Output out;
  bool parse_errors = false, unreadable = false;
  for (const auto& file : args.files) {
    switch (parse_file(file, keys, out)) {
      case FileOutcome::kClean:
        break;
      case FileOutcome::kParseErrors:
        parse_errors = true;
        break;
      case FileOutcome::kUnreadable:
        unreadable = true;
        break;
    }
  }
  out.flush();
  if (unreadable) return kExitInputError;
  return parse_errors ? kExitRuleFailed : kExitPassed;  // 1: some MLLOG line failed to parse
}

Command add_parse_command(CLI::App& app) {
  auto args = std::make_shared<ParseArgs>();
  CLI::App* cmd = app.add_subcommand("parse", "Print every MLLOG event of result files as one JSON object per line");
  cmd->footer(
      "Each line: {\"file\", \"line\", \"time_ms\", \"event_type\", \"key\", \"value\", \"metadata\"}. Parse errors go "
      "to stderr as FILE:LINE: message.\nExit status: 0 every MLLOG line parsed, 1 some MLLOG line failed to parse, "
      "2 a file could not be read (the others are still read).");
  cmd->add_option("--keys", args->keys, "Only events with these keys (comma-separated), e.g. run_start,run_stop")
      ->delimiter(',');
  cmd->add_option("FILE", args->files, "Result files; - reads standard input")->required();
  return {cmd, [args] { return run_parse(*args); }};
}

const bool parse_registered = register_command("parse", &add_parse_command);

}  // namespace

}  // namespace mlperf::cli
