#include "mlperf/device/platform.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace mlperf {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

nlohmann::json read_json(const std::filesystem::path& file, const char* what) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open {}", file.string(), what));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", file.string(), e.what()));
  }
}

}  // namespace

const PlatformInfo* PlatformTable::match(std::string_view text) const {
  std::string haystack = upper(text);
  const PlatformInfo* best = nullptr;
  for (const auto& p : platforms) {
    if (haystack.find(upper(p.name)) != std::string::npos &&
        (best == nullptr || p.name.size() > best->name.size())) {
      best = &p;
    }
  }
  return best;
}

PlatformTable PlatformTable::load(const std::filesystem::path& file) {
  nlohmann::json doc = read_json(file, "platform table");
  PlatformTable table;
  try {
    for (const auto& j : doc.at("platforms")) {
      PlatformInfo p;
      p.name = j.at("name").get<std::string>();
      p.vendor = j.value("vendor", "");
      p.gfx_target = j.value("gfx_target", "");
      for (const auto& id : j.value("pci_device_ids", nlohmann::json::array())) {
        p.pci_device_ids.push_back(static_cast<unsigned>(std::stoul(id.get<std::string>(), nullptr, 16)));
      }
      p.memory_gb = j.value("memory_gb", 0.0);
      p.compute_units = j.value("compute_units", 0);
      table.platforms.push_back(std::move(p));
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", file.string(), e.what()));
  }
  return table;
}

PlatformTag tag_platform(const PlatformTable& table, const std::string& accelerator_model_name,
                         const std::vector<std::string>& logged_platforms) {
  if (const PlatformInfo* p = table.match(accelerator_model_name)) return {p->name, "system description", true};
  for (const auto& logged : logged_platforms) {
    if (const PlatformInfo* p = table.match(logged)) return {p->name, "log", true};
  }
  if (!accelerator_model_name.empty()) return {accelerator_model_name, "system description", false};
  for (const auto& logged : logged_platforms) {
    if (!logged.empty()) return {logged, "log", false};
  }
  return {};
}

const ExpectedResult* ExpectedResults::find(const Ruleset& ruleset, const std::string& benchmark,
                                            const std::string& platform) const {
  for (const auto& r : results) {
    if (r.ruleset == ruleset && r.benchmark == benchmark && r.platform == platform) return &r;
  }
  return nullptr;
}

ExpectedResults ExpectedResults::load(const std::filesystem::path& file) {
  nlohmann::json doc = read_json(file, "expected results");
  ExpectedResults out;
  try {
    for (const auto& j : doc.at("results")) {
      ExpectedResult r;
      auto ruleset = Ruleset::parse(j.at("ruleset").get<std::string>());
      if (!ruleset) throw std::runtime_error("bad ruleset " + j.at("ruleset").dump());
      r.ruleset = *ruleset;
      r.benchmark = j.at("benchmark").get<std::string>();
      r.platform = j.at("platform").get<std::string>();
      r.published_minutes = j.at("published_minutes").get<double>();
      if (j.contains("about_minutes") && j.at("about_minutes").is_number()) {
        r.about_minutes = j.at("about_minutes").get<double>();
      }
      r.source = j.value("source", "");
      out.results.push_back(std::move(r));
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", file.string(), e.what()));
  }
  return out;
}

ExpectedComparison compare_expected(const ExpectedResult& expected, double measured_minutes,
                                    double tolerance_percent) {
  ExpectedComparison c;
  c.expected = expected;
  c.measured_minutes = measured_minutes;
  c.tolerance_percent = tolerance_percent;
  c.delta_percent = (measured_minutes - expected.published_minutes) / expected.published_minutes * 100.0;
  c.within_tolerance = std::fabs(c.delta_percent) <= tolerance_percent;
  return c;
}

}  // namespace mlperf
