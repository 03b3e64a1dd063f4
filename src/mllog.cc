#include "mlperf/mllog.h"

#include <fmt/format.h>

namespace mlperf {

bool is_valid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    std::uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    // Reject overlong forms, surrogates and code points beyond U+10FFFF.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
      return false;
    }
    i += len;
  }
  return true;
}

std::string latin1_to_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x80) {
      out.push_back(ch);
    } else {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

namespace {

bool has_high_bytes(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return true;
  }
  return false;
}

// Fills `event` from a parsed JSON object; false (with `error`) when required fields lack.
bool to_event(nlohmann::json& doc, Event& event, std::string& error) {
  if (!doc.is_object()) {
    error = "MLLOG payload is not a JSON object";
    return false;
  }
  auto time = doc.find("time_ms");
  if (time == doc.end()) {
    error = "MLLOG event has no time_ms";
    return false;
  }
  if (!time->is_number()) {
    error = fmt::format("MLLOG time_ms is not a number ({})", time->type_name());
    return false;
  }
  auto key = doc.find("key");
  if (key == doc.end()) {
    error = "MLLOG event has no key";
    return false;
  }
  if (!key->is_string()) {
    error = fmt::format("MLLOG key is not a string ({})", key->type_name());
    return false;
  }
  event.time_ms = time->get<double>();
  event.key = key->get<std::string>();
  auto type = doc.find("event_type");
  event.event_type = (type != doc.end() && type->is_string()) ? type->get<std::string>() : "";
  auto ns = doc.find("namespace");
  event.name_space = (ns != doc.end() && ns->is_string()) ? ns->get<std::string>() : "";
  auto value = doc.find("value");
  event.value = value != doc.end() ? std::move(*value) : nlohmann::json();
  auto metadata = doc.find("metadata");
  if (metadata != doc.end() && metadata->is_object()) {
    event.metadata = std::move(*metadata);
  } else {
    event.metadata = nlohmann::json::object();
  }
  return true;
}

}  // namespace

LineKind parse_mllog_line(std::string_view line, Event& event, std::string& error) {
  std::size_t at = line.rfind(kMllogToken);
  if (at == std::string_view::npos) return LineKind::kNotMllog;
  std::string_view payload = line.substr(at + kMllogToken.size());
  std::string recoded;
  if (has_high_bytes(payload) && !is_valid_utf8(payload)) {
    recoded = latin1_to_utf8(payload);  // the reference reads files as Latin-1
    payload = recoded;
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(payload.begin(), payload.end());
  } catch (const nlohmann::json::exception& e) {
    // nlohmann's message: "[json.exception.parse_error.101] parse error at line 1, column 7: ..."
    std::string_view what = e.what();
    std::size_t col = what.find("column ");
    std::size_t colon = col == std::string_view::npos ? col : what.find(": ", col);
    std::string reason(colon == std::string_view::npos ? what : what.substr(colon + 2));
    std::string column = col == std::string_view::npos
                             ? std::string()
                             : std::string(what.substr(col + 7, colon - col - 7));
    error = column.empty() ? fmt::format("invalid MLLOG JSON: {}", reason)
                           : fmt::format("invalid MLLOG JSON at column {}: {}",
                                         std::stoul(column) + at + kMllogToken.size(), reason);
    return LineKind::kError;
  }
  return to_event(doc, event, error) ? LineKind::kEvent : LineKind::kError;
}

}  // namespace mlperf
