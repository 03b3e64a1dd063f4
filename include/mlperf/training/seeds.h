#pragma once
// The seeds a training run logs through MLLOG and the official seed checker's rules for them
// (mlperf_logging/package_checker/seed_checker.py, SeedChecker; issue #22):
// 1. every run logs at least one `seed` event;
// 2. each seed is what Python's int() makes of its value (an integer, a float truncated
//    toward zero, a numeric string, a bool) — anything int() raises on is an error;
// 3. no two runs log the same seed on the same source line (metadata.file, metadata.lineno):
//    a repeat within one run clashes too;
// a run logging more than one seed is only a warning. A run whose log the official MLLOG
// parser rejects (a line that does not parse, an event without value or metadata) yields no
// seeds: the checker reports the error and goes on with the next run.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlperf {

/// One `seed` event of a result log.
struct SeedRecord {
  std::uint64_t line = 0;  ///< 1-based line in the result file
  std::string source;      ///< metadata.file as Python's str() prints it ("" when absent)
  std::string lineno;      ///< metadata.lineno as Python's str() prints it
  /// (file, lineno, seed) as Python compares the tuple: 601 and 601.0 and "601" are told
  /// apart as Python tells them (equal, equal, different). Empty when `problem` is set.
  std::string identity;
  std::string seed;     ///< int(value) in decimal, e.g. "4242"; "" when `problem` is set
  std::string problem;  ///< why the official checker raises on this event; "" when none
};

/// Reads one `seed` event (its value and metadata as parsed JSON) the way the official seed
/// checker does: (metadata['file'], metadata['lineno'], int(value)). `value_text` is the
/// value's JSON text when known ("" otherwise): an integer literal too long for a 64-bit
/// integer keeps all its digits from it. Never throws; a problem is in SeedRecord::problem.
SeedRecord read_seed_record(const nlohmann::json& value, const nlohmann::json& metadata, std::uint64_t line,
                            std::string_view value_text = {});

/// read_seed_record without parsing, for the form nearly every log has: `value_text` an
/// integer literal, `metadata_text` an object whose (last) "file" member is a string of
/// printable ASCII without escapes and whose "lineno" is a non-negative integer literal of at
/// most 18 digits. Gives what read_seed_record gives for the parsed texts; std::nullopt for
/// any other form (then parse them and call read_seed_record). Both texts must come from an
/// EventView the MLLOG scanner accepted (ObjectMembers' precondition). Never throws except
/// std::bad_alloc.
std::optional<SeedRecord> read_plain_seed_record(std::string_view value_text, std::string_view metadata_text,
                                                 std::uint64_t line);

/// What Python's int(x) gives for the JSON value `value`, in decimal ("-3", "4242"); nullopt
/// when int() raises (None, a list, a dict, a non-numeric string, inf, nan). Strings follow
/// int(str): surrounding whitespace, a sign, leading zeros and single underscores between
/// digits are allowed. `value_text`: as in read_seed_record.
std::optional<std::string> python_int_text(const nlohmann::json& value, std::string_view value_text = {});

/// The seeds of one run as the seed checker needs them.
struct RunSeeds {
  std::string file;                  ///< the result file
  std::vector<SeedRecord> records;   ///< its `seed` events, in log order
  /// The official MLLOG parser rejects the log (the checker cannot read its seeds); the
  /// reason, e.g. "line 12 does not parse". Empty when it reads.
  std::string unreadable;
};

/// One problem the seed checker found.
struct SeedFinding {
  bool error = true;      ///< false: a warning (more than one seed in a run)
  std::string file;       ///< the result file
  std::uint64_t line = 0; ///< the seed event's line; 0 when none applies
  std::string message;
};

/// The official seed checker on one benchmark directory's runs: `runs` in the order the
/// official checker takes them (sorted result file paths). Errors: a run that logs no seed,
/// a seed int() cannot read (the run is then skipped, as the checker's except clause does),
/// a seed logged on the same source file and line as an earlier run (or earlier in the same
/// run). Warning: a run with more than one seed.
std::vector<SeedFinding> check_seeds(const std::vector<RunSeeds>& runs);

}  // namespace mlperf
