#pragma once
// JSON text written member by member, byte for byte as nlohmann::json::dump(2) with invalid
// UTF-8 replaced writes the same document (keys in the order given: the caller gives them
// sorted, as nlohmann's std::map keeps them). The JSON reports of a round are written this
// way: building, dumping and freeing a tree per directory was most of their cost (issues #13
// and #25). Names that are not UTF-8 get their "<key>_bytes" sibling (exact_bytes.h).

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlperf {

/// Appends `utf8`, which must be well-formed UTF-8 (is_valid_utf8), as a JSON string the way
/// nlohmann::json::dump writes it (ensure_ascii off): '"' and '\\' escaped, \b \f \n \r \t
/// for those controls, \u00xx (lower-case hex) for the other bytes below 0x20, every other
/// byte as it is. Throws only std::bad_alloc.
void append_escaped_utf8(std::string& out, std::string_view utf8);

/// Appends JSON text to a std::string in dump(2)'s layout: members one per line, indented two
/// spaces a level, `"key": value`, commas at line ends; `indent` more spaces after every
/// newline (for text placed inside another document). Strings, numbers and structured values
/// come out as nlohmann writes them (invalid UTF-8 replaced by U+FFFD). A string member (or a
/// list of strings) that is not UTF-8 is followed by its "<key>_bytes" sibling, which is where
/// add_exact_bytes sorts it for every key the reports use. Throws only std::bad_alloc.
class JsonText {
 public:
  JsonText(std::string& out, std::size_t indent) : out_(out), base_(indent) {}

  /// An object or array opens (a new line and indent when inside another) and closes.
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  /// The key of the next member of the object open: one of our own names (nothing to escape).
  /// `name` must stay alive until the member's value is written (the reports pass literals).
  void key(std::string_view name) {
    item();  // the comma, line break and indent: one append
    // The quoted name and ": " in one append more where they fit on the stack.
    char text[128];
    if (name.size() + 4 <= sizeof text) {
      text[0] = '"';
      std::memcpy(text + 1, name.data(), name.size());
      std::memcpy(text + 1 + name.size(), "\": ", 3);
      out_.append(text, name.size() + 4);
    } else {
      out_.push_back('"');
      out_.append(name.data(), name.size());
      out_.append("\": ", 3);
    }
    pending_value_ = true;
    key_ = name;
  }
  /// Any JSON value (structured ones re-laid out), with its "_bytes" sibling where due.
  void value(const nlohmann::json& v);
  /// A string, with its "_bytes" sibling when it is not UTF-8.
  void string(const std::string& s);
  /// null for an empty string, else string(s).
  void string_or_null(const std::string& s) { s.empty() ? literal("null") : string(s); }
  /// A double as nlohmann writes it: shortest round-trip digits, ".0" on integral values,
  /// null when not finite.
  void number(double d);
  /// number(*d), or null when there is none.
  void number_or_null(const std::optional<double>& d) { d ? number(*d) : literal("null"); }
  /// An integer of any width in decimal, as nlohmann writes integers.
  template <class Integer>
  void integer(Integer n) {
    item();
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    out_.append(digits, end);
  }
  /// true or false.
  void boolean(bool b) { literal(b ? "true" : "false"); }
  /// Text written as it is (null, true, a number already formatted).
  void literal(std::string_view text) {
    item();
    out_.append(text);
  }
  /// A list of strings, with a "_bytes" list beside it when one is not UTF-8.
  void strings(const std::vector<std::string>& list);

  /// The indent of the elements of the array open here (what elements_text needs to know).
  std::size_t element_indent() const { return base_ + 2 * depth_; }
  /// Array elements written by `write` into a JsonText of their own whose elements are
  /// indented `element_indent` spaces: their text, without the line break before the first.
  /// Text written once and then copied into many reports with elements_text (elements that
  /// many reports repeat). Throws only std::bad_alloc.
  template <class Write>
  static std::string render_elements(std::size_t element_indent, const Write& write) {
    std::string text;
    JsonText r(text, element_indent >= 2 ? element_indent - 2 : 0);
    r.begin_array();
    write(r);
    const std::size_t head = text.size() > 1 ? 2 + element_indent : 1;  // "[", then "\n" and the indent
    text.erase(0, std::min(head, text.size()));
    return text;
  }
  /// Elements of the array open here, as render_elements gave them for element_indent():
  /// written after the line break (and comma) this place needs. Empty text writes nothing.
  void elements_text(std::string_view text) {
    if (text.empty()) return;
    item();
    out_.append(text);
  }

 private:
  void write_value(const nlohmann::json& v);
  void write_structured(const nlohmann::json& root);
  static bool needs_exact_bytes(const nlohmann::json& root);
  void raw_key(const std::string& name);
  void write_string(const std::string& s) {
    item();
    append_string(s);
  }
  // Writes `s` as a JSON string; true when it is well-formed UTF-8 (written exactly, no
  // "_bytes" sibling due), false when nlohmann's replacement of bad bytes was written.
  bool append_string(const std::string& s);
  void bytes_sibling_key();
  // Before an element: after a key, nothing; else a comma after the previous one and a new line.
  void item() {
    if (pending_value_) {
      pending_value_ = false;
      return;
    }
    if (depth_ == 0) return;
    const bool first = first_.back() != 0;
    first_.back() = 0;
    line_break(first ? 0 : 1, base_ + 2 * depth_);
  }
  // A comma when `comma` is 1, then a new line indented `indent` spaces: one append from a
  // line of spaces (a loop of push_backs and fills cost more than the text it wrote).
  void line_break(std::size_t comma, std::size_t indent) {
    static constexpr std::size_t kSpaces = 126;
    static constexpr char kBreak[] = ",\n"
        "                                                                "
        "                                                              ";
    static_assert(sizeof kBreak == kSpaces + 3);
    if (indent <= kSpaces) {
      out_.append(kBreak + 1 - comma, comma + 1 + indent);
    } else {
      out_.append(kBreak + 1 - comma, comma + 1);
      out_.append(indent, ' ');
    }
  }
  void open(char c);
  void close(char c);

  std::string& out_;
  std::size_t base_ = 0;
  std::size_t depth_ = 0;
  std::vector<char> first_;  // per open level: no element yet (bytes: no bit masking per item)
  bool pending_value_ = false;
  std::string_view key_;   // the key of the member last begun (the caller's text, or bytes_key_)
  std::string bytes_key_;  // "<key>_bytes" while its sibling is written
};

}  // namespace mlperf
