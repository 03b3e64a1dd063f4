#pragma once
// The MLLOG line format (scoring.md §1): one line → one Event, or a parse error.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mlperf {

/// The token that marks an MLLOG line (note the trailing space).
inline constexpr std::string_view kMllogToken = ":::MLLOG ";

/// One MLLOG event.
struct Event {
  double time_ms = 0;       ///< milliseconds since the epoch (may be fractional)
  std::string key;          ///< e.g. "run_start", "eval_accuracy"
  std::string event_type;   ///< POINT_IN_TIME, INTERVAL_START or INTERVAL_END (as logged)
  std::string name_space;   ///< "namespace", usually empty
  nlohmann::json value;     ///< any JSON (null when absent)
  nlohmann::json metadata;  ///< an object (empty object when absent)
  std::uint64_t line = 0;   ///< 1-based line number in its file
};

/// A problem with one line of one file; never fatal.
struct ParseError {
  std::string file;
  std::uint64_t line = 0;
  std::string message;
};

/// What one line turned out to be.
enum class LineKind {
  kNotMllog,  ///< no ":::MLLOG " token: ignored
  kEvent,     ///< parsed into an Event
  kError,     ///< held the token but its JSON is bad or lacks time_ms/key
};

/// Parses one line (without its terminator) per scoring.md §1: the JSON starts after the
/// last ":::MLLOG " token; anything before is noise. Bytes that are not valid UTF-8 are
/// read as Latin-1, like the reference. On kEvent fills `event` (except `event.line`); on
/// kError sets `error` to a one-line reason. Never throws.
LineKind parse_mllog_line(std::string_view line, Event& event, std::string& error);

/// True when `text` is well-formed UTF-8.
bool is_valid_utf8(std::string_view text);

/// Re-encodes Latin-1 bytes as UTF-8 (each byte is one code point).
std::string latin1_to_utf8(std::string_view text);

}  // namespace mlperf
