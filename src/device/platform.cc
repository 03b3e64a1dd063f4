#include "mlperf/device/platform.h"
#include "mlperf/mllog/line_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <new>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace mlperf {

namespace {

// std::toupper in the "C" locale the tool runs in (it never calls setlocale): ASCII letters
// only, without a library call per byte (a round's names are matched against every platform).
constexpr char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_upper(c);
  return out;
}

nlohmann::json read_json(const std::filesystem::path& file, const char* what) {
  std::ifstream in = open_input_file(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open {}", file.string(), what));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", file.string(), e.what()));
  }
}

// Where `needle`, in any case, occurs in `haystack` (upper case) at or after `from`; npos
// when it does not (an empty needle occurs at `from`, as std::string::find has it).
std::size_t find_upper(std::string_view haystack, std::string_view needle, std::size_t from = 0) {
  char folded[64];
  if (needle.size() <= sizeof folded) {
    // The needle upper-cased once, then a plain search (memchr and memcmp).
    for (std::size_t j = 0; j < needle.size(); ++j) {
      folded[j] = ascii_upper(needle[j]);
    }
    return from > haystack.size() ? std::string_view::npos
                                  : haystack.find(std::string_view(folded, needle.size()), from);
  }
  for (std::size_t at = from; at + needle.size() <= haystack.size(); ++at) {
    std::size_t j = 0;
    while (j < needle.size() && haystack[at + j] == ascii_upper(needle[j])) {
      ++j;
    }
    if (j == needle.size()) return at;
  }
  return std::string_view::npos;
}

// Whether `needle`, in any case, occurs in `haystack` (upper case) ending a word: followed by
// the end of the text or by a character that is neither a letter nor a digit.
bool contains_word_end(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return false;
  for (std::size_t at = find_upper(haystack, needle); at != std::string_view::npos;
       at = find_upper(haystack, needle, at + 1)) {
    std::size_t end = at + needle.size();
    if (end == haystack.size() || !std::isalnum(static_cast<unsigned char>(haystack[end]))) return true;
  }
  return false;
}

}  // namespace

const PlatformInfo* PlatformTable::match(std::string_view text) const {
  std::string haystack = upper(text);
  const PlatformInfo* best = nullptr;
  std::size_t best_length = 0;
  for (const auto& p : platforms) {
    if (find_upper(haystack, p.name) != std::string_view::npos && (best == nullptr || p.name.size() > best_length)) {
      best = &p;
      best_length = p.name.size();
    }
  }
  for (const auto& g : nvidia_gpus) {
    auto consider = [&](const std::string& spelling) {
      if (contains_word_end(haystack, spelling) && (best == nullptr || spelling.size() > best_length)) {
        best = &g.platform;
        best_length = spelling.size();
      }
    };
    for (const auto& alias : g.aliases) consider(alias);  // the aliases first, then the name, as before
    consider(g.platform.name);
  }
  return best;
}

std::vector<NvidiaGpu> PlatformTable::load_nvidia_gpus(const std::filesystem::path& file) {
  nlohmann::json doc = read_json(file, "NVIDIA GPU table");
  std::vector<NvidiaGpu> gpus;
  std::map<unsigned, std::string> owner;
  try {
    auto strings = [](const nlohmann::json& j, const char* key) {
      std::vector<std::string> out;
      for (const auto& s : j.value(key, nlohmann::json::array())) out.push_back(s.get<std::string>());
      return out;
    };
    for (const auto& j : doc.at("gpus")) {
      NvidiaGpu g;
      g.platform.name = j.at("name").get<std::string>();
      if (g.platform.name.rfind("NVIDIA ", 0) != 0) {
        throw std::runtime_error(fmt::format("GPU name \"{}\" does not start \"NVIDIA \"", g.platform.name));
      }
      g.platform.vendor = "NVIDIA";
      g.platform.memory_gb = j.at("memory_gb").get<double>();
      for (const auto& id : j.at("pci_device_ids")) {
        std::string text = id.get<std::string>();
        std::size_t used = 0;
        unsigned long v = std::stoul(text, &used, 16);
        if (used != text.size() || v > 0xFFFFu) throw std::runtime_error(fmt::format("bad PCI device id \"{}\"", text));
        auto [it, inserted] = owner.emplace(static_cast<unsigned>(v), g.platform.name);
        if (!inserted) {
          throw std::runtime_error(
              fmt::format("PCI device id {} is listed for both {} and {}", text, it->second, g.platform.name));
        }
        g.platform.pci_device_ids.push_back(static_cast<unsigned>(v));
      }
      g.nvml_names = strings(j, "nvml_names");
      g.aliases = strings(j, "aliases");
      g.pci_ids_name = j.value("pci_ids_name", "");
      gpus.push_back(std::move(g));
    }
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", file.string(), e.what()));
  }
  return gpus;
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
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", file.string(), e.what()));
  }
  std::filesystem::path nvidia = file.parent_path() / "nvidia_gpus.json";
  std::error_code ec;
  if (std::filesystem::exists(nvidia, ec)) {
    table.nvidia_gpus = load_nvidia_gpus(nvidia);
    table.nvidia_gpus_file = nvidia;
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
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
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
