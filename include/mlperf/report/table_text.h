#pragma once
// Cell helpers shared by the report writers (score, check, compare, summarize): JSON values
// that are null when absent, the {"results": [...]} document written one object at a time,
// Markdown and CSV cells, and padding by characters for text tables.

#include <cstddef>
#include <iosfwd>
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

/// Writes `text` with `pad` spaces after each of its newlines: a value's dump(2) text placed
/// `pad` columns deep in a larger document (a dumped JSON text holds raw newlines only between
/// its members; strings escape them).
void write_indented(std::ostream& out, std::string_view text, std::size_t pad);

/// The {"results": [...]} document as nlohmann::json::dump(2) writes it, written one object
/// at a time: json_results_separator(i) goes before object i (counted from 0), whose dump(2)
/// text follows indented by 4 (write_indented); json_results_end(n) after the last of n.
std::string_view json_results_separator(std::size_t index);
std::string_view json_results_end(std::size_t count);

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

/// terminal_text(text) appended to `out`, for writers that build a block of lines in one
/// string.
void append_terminal_text(std::string& out, std::string_view text);

/// Width of UTF-8 text in characters (continuation bytes do not count): text-table columns.
std::size_t display_width(const std::string& text);

/// `text` padded with spaces to `width` characters, on the left when `right` (figures).
std::string pad(const std::string& text, std::size_t width, bool right);

}  // namespace mlperf
