#pragma once
// How the hostile-input cases of issue #6 are built from the shipped example logs, shared by
// tests/hostile_test.cc (library), tests/cli_hostile_test.cc (command line) and
// tests/nothing_lost_test.cc, so that all of them test the very same bytes. See README.md.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../test_support.h"

namespace mlperf::testing::hostile {

namespace fs = std::filesystem;

/// The benchmark every case is built from: AMD's MI355X llama31_8b (10 runs, data/examples).
inline constexpr const char* kBench = "llama31_8b";

/// The stored hand-made inputs (this folder).
inline fs::path stored(const std::string& name) { return source_dir() / "tests/data/hostile" / name; }

/// The untouched example result_<i>.txt.
inline fs::path example_file(int i) { return example_system() / kBench / fmt::format("result_{}.txt", i); }

/// The llama31_8b example copied to <root>/training_results_v5.1/AMD/results/SYS/llama31_8b:
/// the path gives ruleset 5.1.0; the example's system description is copied to
/// <root>/training_results_v5.1/AMD/systems/SYS.json. Returns the benchmark directory.
inline fs::path copy_example(const fs::path& root) {
  fs::path dir = root / "training_results_v5.1/AMD/results/SYS" / kBench;
  fs::create_directories(dir.parent_path());
  fs::copy(example_system() / kBench, dir, fs::copy_options::recursive);
  // The system description the package checker needs (<org>/systems/<system>.json).
  fs::path systems = root / "training_results_v5.1/AMD/systems";
  fs::create_directories(systems);
  fs::copy_file(example_system().parent_path().parent_path() / "systems" / (example_system().filename().string() + ".json"),
                systems / "SYS.json", fs::copy_options::overwrite_existing);
  return dir;
}

/// A log as lines without their '\n', and whether the last line ends with one.
struct LogLines {
  std::vector<std::string> lines;
  bool final_newline = true;

  static LogLines read(const fs::path& file) {
    LogLines log;
    std::string text = read_file(file);
    log.final_newline = !text.empty() && text.back() == '\n';
    if (log.final_newline) text.pop_back();
    std::size_t start = 0;
    for (;;) {
      std::size_t nl = text.find('\n', start);
      log.lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    return log;
  }
  std::string text() const {
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      out += lines[i];
      if (i + 1 < lines.size() || final_newline) out += '\n';
    }
    return out;
  }
  void write(const fs::path& file) const { write_file(file, text()); }
  /// Indexes (0-based) of the lines logging `key`.
  std::vector<std::size_t> all(const std::string& key) const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].find("\"key\": \"" + key + "\"") != std::string::npos) out.push_back(i);
    }
    return out;
  }
  /// Index (0-based) of the first line logging `key`.
  std::size_t find(const std::string& key) const {
    auto found = all(key);
    if (found.empty()) throw std::logic_error("the log has no " + key);
    return found.front();
  }
};

/// The text of `file` with only the lines scoring reads (scoring.md §2, §4.1): the same
/// time to train and samples to converge in a fraction of the bytes (for 10,000 files).
inline std::string scored_lines_only(const fs::path& file) {
  static const char* const kKeys[] = {"init_start",          "init_stop",
                                      "run_start",           "run_stop",
                                      "global_batch_size",   "submission_benchmark",
                                      "submission_division", "submission_org",
                                      "submission_platform", "eval_accuracy"};
  LogLines log = LogLines::read(file);
  std::string out;
  for (const auto& line : log.lines) {
    for (const char* key : kKeys) {
      if (line.find(std::string("\"key\": \"") + key + "\"") != std::string::npos) {
        out += line + "\n";
        break;
      }
    }
  }
  return out;
}

/// Rewrites `file` through `change`.
inline void edit(const fs::path& file, const std::function<void(LogLines&)>& change) {
  LogLines log = LogLines::read(file);
  change(log);
  log.write(file);
}

/// The end of the JSON value that starts at text[at] (a valid value).
inline std::size_t json_value_end(const std::string& text, std::size_t at) {
  if (text[at] == '"') {
    for (std::size_t i = at + 1; i < text.size(); ++i) {
      if (text[i] == '\\') {
        ++i;
      } else if (text[i] == '"') {
        return i + 1;
      }
    }
  } else if (text[at] == '{' || text[at] == '[') {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = at; i < text.size(); ++i) {
      char c = text[i];
      if (in_string) {
        if (c == '\\') ++i;
        if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
    }
  } else {
    std::size_t i = at;
    while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']') ++i;
    return i;
  }
  throw std::logic_error("not a JSON value at " + std::to_string(at) + " of " + text);
}

/// `line` with the value of its first member named `name` (at any depth: "value", "time_ms",
/// "status" inside metadata, …) replaced by the bytes `raw`, which need not be valid JSON.
/// The rest of the line keeps its bytes, so parse error columns are those of the real log.
inline std::string with_value(const std::string& line, const std::string& name, const std::string& raw) {
  const std::string needle = "\"" + name + "\": ";
  std::size_t at = line.find(needle);
  if (at == std::string::npos) throw std::logic_error("no member " + name + " in " + line);
  std::size_t begin = at + needle.size();
  return line.substr(0, begin) + raw + line.substr(json_value_end(line, begin));
}

/// `file` with the time_ms of its first `key` line replaced by `raw`; returns that line's
/// number (1-based).
inline std::uint64_t set_time(const fs::path& file, const std::string& key, const std::string& raw) {
  std::size_t at = 0;
  edit(file, [&](LogLines& log) {
    at = log.find(key);
    log.lines[at] = with_value(log.lines[at], "time_ms", raw);
  });
  return at + 1;
}

/// Inserts a line of 4 KiB of random bytes (NULs among them, no newline, a fixed seed)
/// before every line whose 0-based index is 5 mod 10, and ends the file with a newline and
/// 64 KiB of NUL bytes (a crashed file system pads a file with NUL blocks). Returns the
/// number of garbage lines inserted.
inline std::size_t add_garbage(const fs::path& file) {
  std::mt19937 random(6);
  std::size_t inserted = 0;
  edit(file, [&](LogLines& log) {
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < log.lines.size(); ++i) {
      if (i % 10 == 5) {
        std::string garbage(4096, '\0');
        for (char& c : garbage) {
          do c = static_cast<char>(random() & 0xFF);
          while (c == '\n');
        }
        if (garbage.find(":::MLLOG ") != std::string::npos) throw std::logic_error("garbage holds the MLLOG token");
        lines.push_back(garbage);
        ++inserted;
      }
      lines.push_back(log.lines[i]);
    }
    lines.push_back(std::string(64 * 1024, '\0'));
    log.lines = lines;
  });
  return inserted;
}

/// Rewrites `file` with CRLF line ends: on every line, or on every other line (mixed).
inline void to_crlf(const fs::path& file, bool every_line) {
  edit(file, [&](LogLines& log) {
    for (std::size_t i = 0; i < log.lines.size(); ++i) {
      if (every_line || i % 2 == 0) log.lines[i] += '\r';
    }
  });
}

/// Appends `head`, `bytes` bytes of `fill` (written in 1 MiB pieces: no 100 MB string in
/// memory) and `tail` to `file`.
inline void append_fill(const fs::path& file, const std::string& head, std::size_t bytes, char fill,
                        const std::string& tail) {
  std::ofstream out(file, std::ios::binary | std::ios::app);
  out << head;
  const std::string block(1 << 20, fill);
  for (std::size_t left = bytes; left > 0;) {
    std::size_t n = std::min(left, block.size());
    out.write(block.data(), static_cast<std::streamsize>(n));
    left -= n;
  }
  out << tail;
}

/// An MLLOG line whose value is `depth` arrays nested in each other (closed when `closed`).
inline std::string nested_line(const std::string& key, std::size_t depth, bool closed = true) {
  return ":::MLLOG {\"time_ms\": 1759966201000, \"key\": \"" + key + "\", \"value\": " + std::string(depth, '[') +
         (closed ? std::string(depth, ']') + "}" : std::string());
}

/// The parse error for a nested_line deeper than 1000 levels: the column of the bracket that
/// opens level 1001 (the MLLOG object itself is level 1).
inline std::string too_deep_message(const std::string& line) {
  return fmt::format("MLLOG JSON nested deeper than 1000 levels at column {}", line.find('[') + 1000);
}

/// scoring.md §3 by hand: sort the counted minutes, drop the fastest `drop`, let the
/// `dropped` runs stand in for the slowest, average the rest.
inline double olympic_by_hand(std::vector<double> counted, int dropped, int drop = 1) {
  std::sort(counted.begin(), counted.end());
  const int n = static_cast<int>(counted.size());
  double sum = 0;
  int k = 0;
  for (int i = drop; i < n - (drop - dropped); ++i, ++k) sum += counted[i];
  return sum / k;
}

}  // namespace mlperf::testing::hostile
