#include "mlperf/report/exact_bytes.h"

#include <utility>
#include <vector>

#include "mlperf/mllog/mllog.h"

namespace mlperf {

std::string hex_bytes(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xf]);
  }
  return out;
}

std::optional<nlohmann::json> exact_bytes_sibling(const nlohmann::json& value) {
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (is_valid_utf8(s)) return std::nullopt;
    return nlohmann::json(hex_bytes(s));
  }
  if (!value.is_array()) return std::nullopt;
  bool any = false;
  for (const auto& element : value) {
    if (element.is_string() && !is_valid_utf8(element.get_ref<const std::string&>())) {
      any = true;
      break;
    }
  }
  if (!any) return std::nullopt;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& element : value) {
    if (element.is_string() && !is_valid_utf8(element.get_ref<const std::string&>())) {
      list.push_back(hex_bytes(element.get_ref<const std::string&>()));
    } else {
      list.push_back(nullptr);
    }
  }
  return list;
}

void add_exact_bytes(nlohmann::json& document) {
  // Iterative, so a deep document cannot exhaust the stack.
  std::vector<nlohmann::json*> pending{&document};
  while (!pending.empty()) {
    nlohmann::json* node = pending.back();
    pending.pop_back();
    if (node->is_array()) {
      for (auto& element : *node) {
        if (element.is_structured()) pending.push_back(&element);
      }
      continue;
    }
    if (!node->is_object()) continue;
    std::vector<std::pair<std::string, nlohmann::json>> siblings;
    for (auto it = node->begin(); it != node->end(); ++it) {
      if (auto sibling = exact_bytes_sibling(it.value())) siblings.emplace_back(it.key() + "_bytes", std::move(*sibling));
    }
    for (auto& [key, sibling] : siblings) {
      if (!node->contains(key)) (*node)[key] = std::move(sibling);
    }
    for (auto& member : node->items()) {
      if (member.value().is_structured()) pending.push_back(&member.value());
    }
  }
}

}  // namespace mlperf
