#pragma once
// Cell helpers shared by the report writers (score, compare, summarize): JSON values that are
// null when absent, Markdown and CSV cells, and padding by characters for text tables.

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace mlperf {

/// A figure for a JSON report: the number, or null when absent or not finite (NaN and
/// infinities are not JSON).
nlohmann::json json_number_or_null(const std::optional<double>& value);

/// A text for a JSON report: the string, or null when empty.
nlohmann::json json_string_or_null(const std::string& value);

/// A Markdown table cell: `|` escaped, newlines turned into spaces (either would break the row).
std::string markdown_cell(const std::string& value);

/// A CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, quote or newline.
std::string csv_field(const std::string& value);

/// Width of UTF-8 text in characters (continuation bytes do not count): text-table columns.
std::size_t display_width(const std::string& text);

/// `text` padded with spaces to `width` characters, on the left when `right` (figures).
std::string pad(const std::string& text, std::size_t width, bool right);

}  // namespace mlperf
