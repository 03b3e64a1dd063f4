#include "mlperf/mllog/system_description.h"
#include "mlperf/mllog/line_reader.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace mlperf {

namespace fs = std::filesystem;

namespace {

std::string string_field(const nlohmann::json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A count given as a JSON integer or as a string of digits ("8"); nullopt otherwise.
std::optional<long long> count_field(const nlohmann::json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<long long>();
  if (it->is_number_float()) {
    double v = it->get<double>();
    if (std::isfinite(v) && v == std::floor(v)) return static_cast<long long>(v);
    return std::nullopt;
  }
  if (!it->is_string()) return std::nullopt;
  std::string text = it->get<std::string>();
  auto first = text.find_first_not_of(" \t");
  auto last = text.find_last_not_of(" \t");
  if (first == std::string::npos) return std::nullopt;
  long long value = 0;
  const char* begin = text.data() + first;
  const char* end = text.data() + last + 1;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

SystemDescription read_system_description(const fs::path& file) {
  std::ifstream in = open_input_file(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open system description", file.string()));
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: invalid JSON: {}", file.string(), e.what()));
  }
  if (!doc.is_object()) throw std::runtime_error(fmt::format("{}: not a JSON object", file.string()));
  SystemDescription d;
  d.system_name = string_field(doc, "system_name");
  d.division = string_field(doc, "division");
  d.availability = string_field(doc, "status");
  d.accelerator_model_name = string_field(doc, "accelerator_model_name");
  d.accelerators_per_node = count_field(doc, "accelerators_per_node");
  d.number_of_nodes = count_field(doc, "number_of_nodes");
  d.host_processor_model_name = string_field(doc, "host_processor_model_name");
  d.framework = string_field(doc, "framework");
  if (doc.contains("is_network")) d.is_network_json = doc["is_network"].dump();
  if (doc.contains("system_power_capacity")) d.system_power_capacity_json = doc["system_power_capacity"].dump();
  return d;
}

}  // namespace mlperf
