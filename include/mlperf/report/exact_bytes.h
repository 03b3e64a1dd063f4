#pragma once
// Names that are not UTF-8 in JSON reports (README "Robustness", "Names"). A file or folder
// name is bytes; JSON text is Unicode. Every JSON report writes a string as UTF-8 with each
// byte that is not part of well-formed UTF-8 replaced by U+FFFD (the display string), and,
// where that replacement happened, a sibling member "<key>_bytes" holding the exact bytes as
// lowercase hexadecimal, two digits a byte (Python: bytes.fromhex(v); shell: xxd -r -p). A
// list of strings gets a "<key>_bytes" list of the same length: the hex of each string that
// was replaced, null for the others. CSV writes the exact bytes themselves, so the CSV field
// equals the bytes JSON's "_bytes" member decodes to.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace mlperf {

/// Lowercase hexadecimal of `bytes`, two digits a byte ("ff0a" for "\xff\n"). Never throws
/// except std::bad_alloc.
std::string hex_bytes(std::string_view bytes);

/// The "<key>_bytes" sibling a JSON member holding `value` gets, by the rule at the top of this
/// header: the hex of a string that is not well-formed UTF-8; for an array with such a string
/// among its elements, an array of the same length (hex, or null where the element needs
/// none); std::nullopt when no sibling is due (also for objects: their own members get theirs).
std::optional<nlohmann::json> exact_bytes_sibling(const nlohmann::json& value);

/// Adds the "<key>_bytes" siblings to every object in `document`, at any depth, in place. A
/// member whose "<key>_bytes" name is already taken keeps the taken member (none of the
/// tool's own keys end in "_bytes"). Documents without such strings are left unchanged.
void add_exact_bytes(nlohmann::json& document);

}  // namespace mlperf
