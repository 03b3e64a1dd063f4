#pragma once
// Reading one loadgen performance run (mlperf_log_detail.txt, else mlperf_log_summary.txt):
// a reader of the MLLOG events that keeps the first value of each key it is asked for, the
// way the official MLPerfLog (mlcommons/inference tools/submission/log_parser.py) answers
// `log[key]`.

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "mlperf/mllog/discovery.h"
#include "mlperf/mllog/mllog.h"

namespace mlperf::inference {

/// A set of loadgen keys, looked up by string_view without building a string (the reader asks
/// it about every line of a detail log). The hash reads the key's length, its first sixteen and
/// its last eight bytes, not every byte: loadgen's keys differ there (result_90.00_percentile_…
/// and result_99.00_percentile_… in their ninth byte), and most lines' keys are not in the set.
struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view key) const {
    std::uint64_t head = 0, next = 0, tail = 0;
    const std::size_t n = key.size();
    if (n >= 16) {
      std::memcpy(&head, key.data(), 8);
      std::memcpy(&next, key.data() + 8, 8);
      std::memcpy(&tail, key.data() + n - 8, 8);
    } else if (n >= 8) {
      std::memcpy(&head, key.data(), 8);
      std::memcpy(&tail, key.data() + n - 8, 8);
    } else if (n > 0) {
      std::memcpy(&head, key.data(), n);
    }
    const std::uint64_t h = head * 0x9E3779B97F4A7C15ull ^ next * 0xFF51AFD7ED558CCDull ^
                            (tail + n) * 0xC2B2AE3D27D4EB4Full;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};
using KeySet = std::unordered_set<std::string, KeyHash, std::equal_to<>>;

// The file names loadgen writes into a run folder (discovery looks for them).
using ::mlperf::kDetailLogName;
using ::mlperf::kSummaryLogName;

/// One logged value: its JSON text (as logged for the detail log; a JSON string or number
/// built from the text for the summary log) and the 1-based line it came from.
struct LoggedValue {
  std::string json;
  std::uint64_t line = 0;
};

/// An event loadgen flagged with metadata.is_error (a loadgen error).
struct LoadgenError {
  std::uint64_t line = 0;
  std::string message;  ///< the event's value, as text
};

/// What one run's log told. Memory is bounded by the keys asked for, not the log's size.
struct LoadgenLog {
  std::filesystem::path file;  ///< the log read
  bool from_summary = false;   ///< true when read from mlperf_log_summary.txt (no detail log)
  /// true when read from an MLPerf endpoints run (endpoints_log.h): values by loadgen key from
  /// its JSON and config.yaml, without lines
  bool endpoints = false;
  std::map<std::string, LoggedValue, std::less<>> values;  ///< first value of each wanted key
  std::uint64_t error_events = 0;        ///< events with metadata.is_error true
  std::vector<LoadgenError> errors;      ///< the first few of them
  std::vector<ParseError> parse_errors;  ///< MLLOG lines that did not parse (file, line)

  /// The value of `key` as a number (JSON number, or a string holding one, as Python's
  /// float() reads it); nullopt when absent or not numeric.
  std::optional<double> number(std::string_view key) const;
  /// The value of `key` as text (a JSON string decoded; other JSON as written).
  std::optional<std::string> text(std::string_view key) const;
  /// The value of `key` as a boolean (JSON true/false; summary "Yes"/"No").
  std::optional<bool> boolean(std::string_view key) const;
  /// The line `key` was read from (0 when absent).
  std::uint64_t line(std::string_view key) const;
};

/// Reads the MLLOG events of a detail log in one streaming pass (LineReader + scan_mllog_line,
/// the full parser for lines the scanner is unsure of), keeping the first value of each key
/// in `wanted` and counting loadgen errors. Lines that hold ":::MLLOG " but do not parse are
/// listed in parse_errors with their line; the rest is still read. Lines in loadgen's usual
/// form whose key is not wanted and whose metadata.is_error is false are skipped without
/// being validated (the reader's speed target: twice `grep -c` over the same logs). Throws std::runtime_error
/// naming the file when it cannot be opened or read.
LoadgenLog read_detail_log(const std::filesystem::path& file, const KeySet& wanted);

/// read_detail_log for a scenario folder's log that may be absent: nullopt when `file` does
/// not exist or is no regular file (the summary log is read then), without a look-up of its
/// own before opening it. Throws as read_detail_log does otherwise.
std::optional<LoadgenLog> read_detail_log_if_present(const std::filesystem::path& file, const KeySet& wanted);

/// Reads the "label : value" lines of a summary log, mapping each label of `labels`
/// (configs/inference_rules.json "summary_labels") to the loadgen key the detail log would
/// hold; the first occurrence wins. Numbers are kept as numbers, "Yes"/"No" as booleans,
/// other values as strings. Throws std::runtime_error naming the file when it cannot be read.
LoadgenLog read_summary_log(const std::filesystem::path& file, const std::map<std::string, std::string>& labels);

}  // namespace mlperf::inference
