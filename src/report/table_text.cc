#include "mlperf/report/table_text.h"

#include <cmath>
#include <ostream>

namespace mlperf {

nlohmann::json json_number_or_null(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? nlohmann::json(*value) : nlohmann::json();
}

nlohmann::json json_string_or_null(const std::string& value) {
  return value.empty() ? nlohmann::json() : nlohmann::json(value);
}

std::string markdown_cell(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (c == '<') {
      out += "&lt;";  // a name is text, never HTML the renderer would run
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string csv_field(const std::string& value) {
  if (value.find_first_of(",\"\n\r") == std::string::npos) return value;
  std::string out = "\"";
  for (char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::size_t display_width(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string pad(const std::string& text, std::size_t width, bool right) {
  const std::size_t have = display_width(text);
  std::string fill(width > have ? width - have : 0, ' ');
  return right ? fill + text : text + fill;
}

std::string terminal_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_terminal_text(out, text);
  return out;
}

void append_terminal_text(std::string& out, std::string_view text) {
  auto octal = [&](unsigned char c) {
    out += '\\';
    out += static_cast<char>('0' + ((c >> 6) & 7));
    out += static_cast<char>('0' + ((c >> 3) & 7));
    out += static_cast<char>('0' + (c & 7));
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {  // a run of printable ASCII, copied in one piece
      std::size_t j = i + 1;
      while (j < text.size() && static_cast<unsigned char>(text[j]) >= 0x20 && static_cast<unsigned char>(text[j]) < 0x7f) {
        ++j;
      }
      out.append(text.data() + i, j - i);
      i = j;
      continue;
    }
    if (c < 0x80) {
      switch (c) {
        case '\a': out += "\\a"; break;
        case '\b': out += "\\b"; break;
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\v': out += "\\v"; break;
        case '\f': out += "\\f"; break;
        case '\r': out += "\\r"; break;
        default:
          if (c < 0x20 || c == 0x7f) {
            octal(c);
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence of a printable character is kept; anything else, byte by byte.
    std::size_t n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    bool ok = n > 0 && i + n <= text.size();
    for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    if (ok && n == 3) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xe0 && c1 < 0xa0) && !(c == 0xed && c1 >= 0xa0);  // overlong, surrogates
    }
    if (ok && n == 4) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xf0 && c1 < 0x90) && !(c == 0xf4 && c1 >= 0x90);
    }
    // C1 controls (U+0080–U+009F) move the cursor on some terminals: escaped too.
    if (ok && n == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) ok = false;
    if (!ok) {
      octal(c);
      ++i;
      // A C1 control (0xC2 0x80–0x9F): its second byte too, so no part of it reaches the terminal.
      if (c == 0xc2 && i < text.size() && static_cast<unsigned char>(text[i]) >= 0x80 &&
          static_cast<unsigned char>(text[i]) < 0xa0) {
        octal(static_cast<unsigned char>(text[i]));
        ++i;
      }
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
}

void write_indented(std::ostream& out, std::string_view text, std::size_t pad) {
  const std::string spaces(pad, ' ');
  for (std::size_t nl; (nl = text.find('\n')) != std::string_view::npos; text.remove_prefix(nl + 1)) {
    out.write(text.data(), static_cast<std::streamsize>(nl + 1));
    out << spaces;
  }
  out << text;
}

std::string_view json_results_separator(std::size_t index) {
  return index == 0 ? "{\n  \"results\": [\n    " : ",\n    ";
}

std::string_view json_results_end(std::size_t count) {
  return count == 0 ? "{\n  \"results\": []\n}\n" : "\n  ]\n}\n";
}

}  // namespace mlperf
