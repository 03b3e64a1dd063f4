#pragma once
// MLPerf Inference Power from v6.1: the submitter's nameplate power file
// (<division>/<org>/systems/<system>_power.yaml, the package's NAMEPLATE_POWER_PATH), whose PSU
// capacities give a power submission's design power, read as the submission checker package
// (mlcommons/inference tools/submission/submission_checker, b66003e1) reads it:
// loader.py's yaml.safe_load (PyYAML's SafeLoader) and system_check.py's
// nameplate_power_check and _sum_power_capacity_watts.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mlperf/inference/result.h"

namespace mlperf::inference {

/// One nameplate power file as the checker loads it and sums it.
struct NameplatePower {
  std::string file;     ///< the path read
  bool exists = false;  ///< os.path.exists: the file (or anything) is there
  /// Why yaml.safe_load raises on it ("line 3: found character '\t' that cannot start any
  /// token", not UTF-8, an unknown tag, an undefined alias, a second document): the loader
  /// calls it for every system of a v6.1 submission, outside any check, so the checker stops
  /// there and judges nothing. nullopt when it loads (or does not exist).
  std::optional<std::string> load_error;
  /// The document loads as None (an empty file, only comments, `null`, `~`): the checker's
  /// "nameplate power YAML exists but could not be loaded" error in a power submission.
  bool null_document = false;
  /// _sum_power_capacity_watts of the document, in watts: a JSON integer (Python int: every
  /// capacity summed was an int or bool) or float (one was a float); for a non-finite float
  /// the text Python prints ("inf", "-inf", "nan"); an integer beyond 64 bits as a float.
  /// Null when not computed (missing, null document, load or sum error).
  nlohmann::json design_power_watts;
  /// The exception _sum_power_capacity_watts raises ("TypeError: …", "AttributeError: …",
  /// "RecursionError: …"), which fails the check; "" when none.
  std::string sum_error;
};

/// Reads `yaml_text` (the file's bytes) as yaml.safe_load would and sums it as
/// _sum_power_capacity_watts: every mapping whose keys (lower-cased) hold "psus" and "min psus
/// needed" is a power supply group, whose design power is the sum of its largest "Min PSUs
/// Needed" PowerCapacityWatts (missing: 0; a stable descending sort; None: all of them);
/// every other mapping and every sequence sums its members. Scalars resolve as PyYAML 1.1's
/// implicit resolvers do (`2.7e+3` is a float, `2.7e3` text; `45:00`, `0x10`, `010`, `1_000`
/// and `yes` are ints; dates are timestamps), `<<` merges. `file` names the file in messages.
/// Never throws for bad input (std::bad_alloc only). Differences: a NaN capacity sorts as
/// std::stable_sort puts it, lists compare as equal, an empty !!binary/!!set PSU list and a
/// recursive alias anywhere the sum reads it other than as a mapping's member are errors.
NameplatePower nameplate_power_of_text(std::string_view yaml_text, std::string file);

/// nameplate_power_of_text of `file`'s bytes; exists false (nothing else set) where there is
/// nothing at the path; a file that cannot be read is a load error (the checker's open raises).
NameplatePower read_nameplate_power(const std::filesystem::path& file);

/// What judge_nameplate_power finds for one power submission's scenario folder.
struct NameplateJudgment {
  /// "nameplate_power": value the design power, limit what it is taken from, file the
  /// nameplate file; failed (naming the file) for a None document or a sum error.
  ValidityCheck check;
  nlohmann::json design_power_watts;  ///< watts as NameplatePower gives them; null where none
  std::string warning;                ///< "" or the missing file's warning
};

/// SystemCheck.nameplate_power_check of a power submission's scenario folder: the design power
/// is the system description's "system_power_capacity" where it has the key
/// (`system_power_capacity_json`, its JSON text, any value), else the nameplate file's sum. A
/// missing file only warns (the design power is then null); an empty file or a sum error fails
/// the check. A load error is not judged here: the checker stopped before any check.
NameplateJudgment judge_nameplate_power(const NameplatePower& nameplate,
                                        const std::optional<std::string>& system_power_capacity_json);

/// The one YAML document of `yaml_text` as yaml.safe_load (PyYAML 6.0's SafeLoader) makes it,
/// written as JSON: None as null, bool, int (beyond 64 bits: a double), float, str, list, dict
/// (insertion order not kept; a key that is not text becomes "\x01" and its Python type, which no
/// reader's key names); a date or other non-JSON value becomes "<its Python type>", a recursive
/// alias null. An empty stream is null. Returns nullopt, with the reason in `error` where given,
/// where safe_load raises (not UTF-8, a syntax error, an unknown tag, a second document). The
/// endpoints reader (endpoints_log.h) reads config.yaml with it. Never throws for bad input.
std::optional<nlohmann::json> yaml_safe_load_json(std::string_view yaml_text, std::string* error = nullptr);

}  // namespace mlperf::inference
