#pragma once
// Cell helpers shared by the report writers (score, compare, summarize): JSON values that are
// null when absent, Markdown and CSV cells, and padding by characters for text tables.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mlperf {

/// A figure for a JSON report: the number, or null when absent or not finite (NaN and
/// infinities are not JSON).
nlohmann::json json_number_or_null(const std::optional<double>& value);

/// A text for a JSON report: the string, or null when empty.
nlohmann::json json_string_or_null(const std::string& value);

/// A Markdown table cell: `|` escaped, newlines turned into spaces (either would break the
/// row), and `<`, `>`, `&` written as HTML entities, so that a name never becomes markup.
std::string markdown_cell(const std::string& value);

/// A CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, quote or newline.
std::string csv_field(const std::string& value);

/// `text` made safe for a terminal and for line-based readers, as `ls -b` shows names:
/// \a \b \t \n \v \f \r as those escapes, other control bytes (and DEL, C1 controls, bytes
/// that are not well-formed UTF-8) as \ooo octal. Printable UTF-8 is kept, a backslash too (so
/// messages quoting JSON escapes read as before; a name can still not forge a line).
/// Used for every name and message in table output and on stderr, so a file name holding a
/// newline or an escape sequence cannot forge a line or recolour the terminal.
std::string terminal_text(std::string_view text);

/// Width of UTF-8 text in characters (continuation bytes do not count): text-table columns.
std::size_t display_width(const std::string& text);

/// `text` padded with spaces to `width` characters, on the left when `right` (figures).
std::string pad(const std::string& text, std::size_t width, bool right);

}  // namespace mlperf
