#include "mlperf/mllog/ruleset.h"

#include <charconv>

namespace mlperf {

const char* to_string(Usage usage) { return usage == Usage::kHpc ? "hpc" : "training"; }

std::optional<Usage> parse_usage(std::string_view text) {
  if (text == "training") return Usage::kTraining;
  if (text == "hpc") return Usage::kHpc;
  return std::nullopt;
}

std::optional<Ruleset> Ruleset::parse(std::string_view text) {
  Ruleset r;
  std::size_t i = 0;
  for (int part = 0; part < 3; ++part) {
    if (i >= text.size()) {
      if (part == 0) return std::nullopt;
      break;  // missing trailing parts default to 0
    }
    int value = 0;
    auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
    if (ec != std::errc() || end == text.data() + i || value < 0) return std::nullopt;
    r.parts[part] = value;
    i = static_cast<std::size_t>(end - text.data());
    if (i < text.size()) {
      if (text[i] != '.' || part == 2) return std::nullopt;
      ++i;
      if (i == text.size()) return std::nullopt;  // "5." is not a ruleset
    }
  }
  return r;
}

std::string Ruleset::str() const {
  // Written in place (to_chars): every report row and cache key names its ruleset.
  char text[3 * 12 + 2];
  char* at = text;
  for (int i = 0; i < 3; ++i) {
    if (i > 0) *at++ = '.';
    at = std::to_chars(at, text + sizeof text, parts[static_cast<std::size_t>(i)]).ptr;
  }
  return std::string(text, at);
}

}  // namespace mlperf

namespace mlperf {

std::string Ruleset::folder() const { return std::string(to_string(usage)) + "_" + str(); }

}  // namespace mlperf
