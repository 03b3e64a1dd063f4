// Reading an MLPerf endpoints run as the submission checker package's EndpointsParser does
// (endpoints_log.h).
#include "mlperf/inference/endpoints_log.h"

#include <fmt/format.h>

#include <cmath>
#include <string_view>
#include <system_error>

#include "mlperf/inference/nameplate.h"
#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"

namespace mlperf::inference {

namespace fs = std::filesystem;
// Python's json and yaml keep a mapping's order, which an accuracy score's dict shows.
using Json = nlohmann::ordered_json;

namespace {

constexpr const char* kConfigNames[] = {"config.yaml", "config.yml"};
constexpr const char* kSummaryFile = "performance/result_summary.json";
constexpr const char* kAccuracyFile = "accuracy/accuracy_results.json";

std::vector<std::string> split_dots(std::string_view key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = key.find('.', start);
    parts.emplace_back(key.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

// _get_nested: the value at a dotted path, the longest key matching at each level; a trailing
// ".0" past a scalar is consumed ("50.0" finds a scalar at "50"). Null where absent, where the
// value is null, or an empty mapping or list.
const Json* get_nested(const Json& data, std::string_view dotted) {
  if (!data.is_object()) return nullptr;
  const std::vector<std::string> parts = split_dots(dotted);
  const Json* current = &data;
  std::size_t i = 0;
  while (i < parts.size()) {
    if (!current->is_object()) {
      if (i + 1 == parts.size() && parts[i] == "0" && !current->is_array()) return current->is_null() ? nullptr : current;
      return nullptr;
    }
    bool found = false;
    for (std::size_t j = parts.size(); j > i; --j) {
      std::string candidate = parts[i];
      for (std::size_t k = i + 1; k < j; ++k) candidate += "." + parts[k];
      auto it = current->find(candidate);
      if (it != current->end()) {
        current = &*it;
        i = j;
        found = true;
        break;
      }
    }
    if (!found) return nullptr;
  }
  if ((current->is_object() || current->is_array()) && current->empty()) return nullptr;
  return current->is_null() ? nullptr : current;
}

// _resolve_value: the JSON sources (the key, then its alternative path), then config.yaml (the
// mapped path, then the key).
const Json* resolve_value(const std::string& key, const Json& summary,
                                    const Json& results, const Json& yaml,
                                    const EndpointsRules& rules) {
  for (const Json* data : {&summary, &results}) {
    const Json* value = get_nested(*data, key);
    if (!value) {
      if (auto alt = rules.json_alt_paths.find(key); alt != rules.json_alt_paths.end()) {
        value = get_nested(*data, alt->second);
      }
    }
    if (value) return value;
  }
  if (auto mapped = rules.yaml_paths.find(key); mapped != rules.yaml_paths.end()) {
    if (const Json* value = get_nested(yaml, mapped->second)) return value;
  }
  return get_nested(yaml, key);
}

// _load_json: the file's JSON as Python's json reads it (NaN and Infinity too), or {} with the
// parser's error logged (missing, unreadable, not JSON, nested too deep for Python).
Json load_json(const fs::path& file, std::vector<std::string>& problems) {
  std::optional<std::string> text = read_whole_file(file);
  if (text && json_nested_deeper_than(*text, kMaxMllogNesting)) {
    problems.push_back(fmt::format("{}: JSON nested deeper than {} levels (Python's json raises RecursionError; the "
                                   "checker reads it as {{}})",
                                   file.string(), kMaxMllogNesting));
    return Json::object();
  }
  if (text) {
    Json j = parse_ordered_json_like_python_or_discarded(*text);
    if (!j.is_discarded()) return j;
  }
  problems.push_back(fmt::format("{}: could not load it as JSON (the checker reads it as {{}})", file.string()));
  return Json::object();
}

// _load_yaml: the first of config.yaml and config.yml that exists and loads (`or {}`); {} with
// the parser's error logged when none does.
Json load_yaml(const fs::path& scenario_dir, std::vector<std::string>& problems) {
  std::vector<std::string> why;
  for (const char* name : kConfigNames) {
    const fs::path path = scenario_dir / name;
    std::error_code ec;
    if (!fs::exists(path, ec)) continue;
    std::string error = "not readable";
    if (std::optional<std::string> text = read_whole_file(path)) {
      if (std::optional<nlohmann::json> loaded = yaml_safe_load_json(*text, &error)) {
        Json doc = Json::parse(loaded->dump());
        return python_truthy(doc) ? doc : Json::object();
      }
    }
    why.push_back(fmt::format("{}: {}", path.string(), error));
  }
  problems.push_back(why.empty() ? fmt::format("{}: no config.yaml or config.yml (the checker reads the settings as {{}})",
                                               scenario_dir.string())
                                 : fmt::format("{} (the checker reads the settings as {{}})", fmt::join(why, "; ")));
  return Json::object();
}

// int() of a JSON number or numeric text, as the sample count is summed; nullopt where Python
// would raise.
std::optional<long long> python_int(const Json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer() || v.is_number_unsigned()) return v.get<long long>();
  if (v.is_number_float() && std::isfinite(v.get<double>())) return static_cast<long long>(std::trunc(v.get<double>()));
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    std::size_t used = 0;
    try {
      const long long n = std::stoll(s, &used, 10);
      if (used == s.size()) return n;
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

}  // namespace

EndpointsRules EndpointsRules::from_json(const nlohmann::json& j) {
  EndpointsRules r;
  r.result_keys = j.at("result_keys").get<std::map<std::string, std::string>>();
  for (const auto& pair : j.at("mappings")) r.mappings.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
  r.yaml_paths = j.at("yaml_paths").get<std::map<std::string, std::string>>();
  r.json_alt_paths = j.at("json_alt_paths").get<std::map<std::string, std::string>>();
  for (const auto& pair : j.at("inferred_fields")) {
    r.inferred_fields.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
  }
  r.allowed_models = j.at("allowed_models").get<std::set<std::string>>();
  r.compliance_audits = j.at("compliance_audits").get<std::map<std::string, std::string>>();
  r.audit_required = j.at("audit_required").get<std::map<std::string, std::set<std::string>>>();
  r.latency_constraints_ns = j.at("latency_constraints_ns").get<std::map<std::string, std::map<std::string, double>>>();
  r.accuracy_target_models = j.at("accuracy_target_models").get<std::set<std::string>>();
  r.test09_low = j.at("test09_output_tokens").at(0).get<double>();
  r.test09_high = j.at("test09_output_tokens").at(1).get<double>();
  r.interactive_model_keys_of = j.value("interactive_model_keys_of", std::string());
  return r;
}

std::vector<std::string> endpoints_files_in(const fs::path& scenario_dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const char* f : {kConfigNames[0], kConfigNames[1], kSummaryFile}) {
    if (fs::exists(scenario_dir / f, ec)) found.emplace_back(f);
  }
  return found;
}

EndpointsLog read_endpoints_log(const fs::path& scenario_dir, EndpointsLogType type, const EndpointsRules& rules) {
  EndpointsLog out;
  LoadgenLog& log = out.log;
  log.endpoints = true;
  const bool accuracy = type == EndpointsLogType::Accuracy;
  log.file = scenario_dir / (accuracy ? kAccuracyFile : kSummaryFile);
  const Json empty = Json::object();
  const Json data = load_json(log.file, out.problems);
  const Json& summary = accuracy ? empty : data;
  const Json& results = accuracy ? data : empty;
  const Json yaml = load_yaml(scenario_dir, out.problems);

  // messages.setdefault(key, []).append(...): the first value of a key is the one read.
  auto add = [&](const std::string& key, const Json& value) { log.values.emplace(key, LoggedValue{value.dump(), 0}); };
  for (const auto& [endpoints_key, loadgen_key] : rules.mappings) {
    if (const Json* value = resolve_value(endpoints_key, summary, results, yaml, rules)) add(loadgen_key, *value);
  }
  auto crash = [&](std::string why) {
    if (out.crash.empty()) out.crash = fmt::format("{}: {}", log.file.string(), why);
  };
  // `results_data.get(...)`: a file whose JSON is not a mapping raises there.
  if (accuracy && !results.is_object()) {
    crash(fmt::format("AttributeError: '{}' object has no attribute 'get' (the file is not a JSON mapping)",
                      results.is_array() ? "list" : results.type_name()));
    return out;
  }
  if (accuracy) {
    // _endpoint_accuracy_sample_count: the accuracy datasets' total_samples (else
    // response_counts.issued), summed; it replaces the mapped value.
    std::optional<long long> total;
    const Json* scores = results.contains("accuracy_scores") ? &results.at("accuracy_scores") : nullptr;
    if (scores && scores->is_array()) {
      for (const auto& result : *scores) {
        if (!result.is_object()) continue;
        if (auto t = result.find("dataset_type"); t != result.end() && !t->is_null() && *t != "accuracy") continue;
        const Json* count = nullptr;
        if (auto t = result.find("total_samples"); t != result.end() && !t->is_null()) {
          count = &*t;
        } else if (auto rc = result.find("response_counts"); rc != result.end()) {
          if (!rc->is_object()) {
            crash("AttributeError: response_counts is not a mapping");
            return out;
          }
          if (auto issued = rc->find("issued"); issued != rc->end() && !issued->is_null()) count = &*issued;
        }
        if (!count) continue;
        std::optional<long long> n = python_int(*count);
        if (!n) {
          crash(fmt::format("ValueError: int() of the sample count {}", count->dump()));
          return out;
        }
        total = total.value_or(0) + *n;
      }
    }
    if (total) {
      log.values["effective_accuracy_sample_count"] = LoggedValue{std::to_string(*total), 0};
      log.values.emplace("qsl_reported_total_count", LoggedValue{std::to_string(*total), 0});
    }
  }
  // The keys as they are now answer the look-ups below (self.keys is not updated until the end).
  const auto known = log.values;
  auto known_value = [&](const std::string& key) -> std::optional<Json> {
    auto it = known.find(key);
    if (it == known.end()) return std::nullopt;
    return Json::parse(it->second.json);
  };
  for (const auto& [inferred_key, source_key] : rules.inferred_fields) {
    if (auto value = known_value(source_key); value && !value->is_null()) add(inferred_key, *value);
  }
  // The QPS the package infers from the count and duration where the file lacks it.
  std::optional<Json> duration = known_value("generated_query_duration");
  std::optional<Json> count = known_value("generated_query_count");
  std::optional<Json> scenario = known_value("effective_scenario");
  if (duration && count && scenario && python_truthy(*duration) && python_truthy(*count) && python_truthy(*scenario)) {
    if (!scenario->is_string()) {
      crash(fmt::format("AttributeError: the scenario {} is not text", scenario->dump()));
      return out;
    }
    std::string lower = scenario->get<std::string>();
    for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    const std::string qps_key = lower == "offline" ? "result_samples_per_second" : "result_completed_samples_per_sec";
    if (!log.values.count(qps_key)) {
      if (!duration->is_number() || !count->is_number()) {
        crash("TypeError: the query count or duration is not a number");
        return out;
      }
      const double qps = count->get<double>() / (duration->get<double>() / 1e9);
      add(qps_key, Json(qps));
    }
  }
  // The accuracy scores results.json holds, each as accuracy_score (the first is read).
  if (auto scores = results.find("accuracy_scores"); scores != results.end() && scores->is_array()) {
    for (const auto& result : *scores) {
      if (!result.is_object()) {
        crash("AttributeError: an accuracy_scores entry is not a mapping");
        return out;
      }
      if (auto score = result.find("score"); score != result.end() && !score->is_null()) {
        log.values.emplace("accuracy_score", LoggedValue{score->dump(), 0});
      }
    }
  }
  return out;
}

}  // namespace mlperf::inference
