#include "mlperf/mllog/python_json.h"

#include <cmath>
#include <limits>
#include <string>

namespace mlperf {

namespace {

// Strings that stand for the constants while nlohmann parses the rewritten text: the parsed
// value starts with a control character (written escaped, "\u0001NaN", as JSON requires).
// A logged string could hold one only escaped the same way: none of the MLPerf logs does.
constexpr std::string_view kNaN = "\x01NaN", kInf = "\x01Infinity", kNegInf = "\x01-Infinity";

void restore(nlohmann::json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == kNaN) j = std::numeric_limits<double>::quiet_NaN();
    else if (s == kInf) j = std::numeric_limits<double>::infinity();
    else if (s == kNegInf) j = -std::numeric_limits<double>::infinity();
  } else if (j.is_structured()) {
    for (auto& e : j) restore(e);
  }
}

}  // namespace

std::optional<nlohmann::json> parse_json_with_python_constants(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false, replaced = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < text.size()) {
        out.push_back(text[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out.push_back(c);
      continue;
    }
    auto take = [&](std::string_view word, std::string_view stand_in) {
      if (text.compare(i, word.size(), word) != 0) return false;
      out.append("\"\\u0001");
      out.append(stand_in.substr(1));
      out.push_back('"');
      i += word.size() - 1;
      replaced = true;
      return true;
    };
    if (take("NaN", kNaN) || take("Infinity", kInf) || take("-Infinity", kNegInf)) continue;
    out.push_back(c);
  }
  if (!replaced) return std::nullopt;
  nlohmann::json doc = nlohmann::json::parse(out, nullptr, false);
  if (doc.is_discarded()) return std::nullopt;
  restore(doc);
  return doc;
}

}  // namespace mlperf
