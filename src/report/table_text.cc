#include "mlperf/report/table_text.h"

#include <cmath>

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
    } else if (c == '\n') {
      out += ' ';
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

}  // namespace mlperf
