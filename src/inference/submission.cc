// The submission-level rules of the official inference submission checker: the system
// description, the measurements of a scenario and the required scenarios of a model.

#include "mlperf/inference/submission.h"
#include "mlperf/inference/power.h"
#include "mlperf/mllog/folder_listing.h"
#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"
#include "mlperf/mllog/path_text.h"

#include <new>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <boost/algorithm/string/case_conv.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace mlperf::inference {

namespace fs = std::filesystem;
using boost::algorithm::to_lower_copy;  // ASCII lower case (the C locale), as Python's str.lower() of ASCII
using nlohmann::json;

namespace {

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Python's float(str(v)) succeeds (SystemCheck.required_fields_check's is_number).
bool python_number(const json& v) {
  if (v.is_number()) return true;
  if (!v.is_string()) return false;
  std::string s = v.get<std::string>();
  auto b = s.find_first_not_of(" \t\n\r\f\v"), e = s.find_last_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return false;
  s = s.substr(b, e - b + 1);
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

std::vector<std::string> strings(const json& array) {
  std::vector<std::string> out;
  for (const auto& s : array) out.push_back(s.get<std::string>());
  return out;
}

std::string read_text(const fs::path& file, bool& ok) {
  std::optional<std::string> text = read_whole_file(file);
  ok = text.has_value();
  return text ? std::move(*text) : std::string();
}

// The 1-based line of `text` where key `"key":` first appears; 0 when it does not.
std::uint64_t line_of_key(const std::string& text, const std::string& key) {
  const std::string quoted = "\"" + key + "\"";
  for (std::size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + 1)) {
    std::size_t after = text.find_first_not_of(" \t\r\n", at + quoted.size());
    if (after != std::string::npos && text[after] == ':') {
      return 1 + static_cast<std::uint64_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    }
  }
  return 0;
}

// A JSON file read as Python's json.load reads it. `error` is set (and the result null) when
// Python would raise.
json parse_like_python(const std::string& text, std::string& error) {
  if (starts_with(text, "\xEF\xBB\xBF")) {
    error = "json.load rejects the UTF-8 byte order mark";
    return nullptr;
  }
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    error = e.what();
    return nullptr;
  }
}

// os.path.join of two parts: an absolute second part replaces the first.
std::string py_join(const std::string& a, const std::string& b) {
  if (starts_with(b, "/")) return b;
  if (a.empty() || ends_with(a, "/")) return a + b;
  return a + "/" + b;
}

// os.path.dirname.
std::string py_dirname(const std::string& p) {
  std::size_t i = p.rfind('/');
  std::string head = i == std::string::npos ? std::string() : p.substr(0, i + 1);
  if (!head.empty() && head.find_first_not_of('/') != std::string::npos) {
    while (!head.empty() && head.back() == '/') head.pop_back();
  }
  return head;
}

// Python's str.strip() on ASCII whitespace.
std::string strip(const std::string& s) {
  auto b = s.find_first_not_of(" \t\n\r\f\v"), e = s.find_last_not_of(" \t\n\r\f\v");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t at = s.find(sep); at != std::string::npos; at = s.find(sep, start)) {
    out.push_back(s.substr(start, at - start));
    start = at + 1;
  }
  out.push_back(s.substr(start));
  return out;
}

// What the checker does with an exception a rule raises, said at the end of a message.
std::string stops(const RoundSubmissionRules& r, const std::string& exception) {
  return r.exceptions_stop_checker ? fmt::format("the checker stops ({})", exception)
                                   : fmt::format("the check raises {} and fails", exception);
}

// ValidityCheck::file: the file the check read.
void set_file(ValidityCheck& c, const std::string& file) { c.file = file; }

ValidityCheck make(std::string name, bool ok, json value, json limit, std::uint64_t line, std::string message) {
  ValidityCheck c;
  c.name = std::move(name);
  c.passed = ok;
  c.value = std::move(value);
  c.limit = std::move(limit);
  c.line = line;
  c.message = std::move(message);
  return c;
}

// A passing check; `message` only for what the checker logs without failing.
ValidityCheck pass(std::string name, json value, json limit, std::uint64_t line = 0, std::string message = "") {
  return make(std::move(name), true, std::move(value), std::move(limit), line, std::move(message));
}

ValidityCheck fail(std::string name, json value, json limit, std::uint64_t line, std::string message) {
  return make(std::move(name), false, std::move(value), std::move(limit), line, std::move(message));
}

// Passed (message dropped) or failed as `ok` says.
ValidityCheck verdict(bool ok, std::string name, json value, json limit, std::uint64_t line, std::string message) {
  return make(std::move(name), ok, std::move(value), std::move(limit), line, ok ? std::string() : std::move(message));
}

}  // namespace

std::string RoundSubmissionRules::mlperf_model(const std::string& folder,
                                               const std::map<std::string, std::string>* extra_mapping) const {
  if (models.count(folder)) return folder;
  if (auto m = model_mapping.find(folder); m != model_mapping.end() && !m->second.empty()) return m->second;
  if (extra_mapping) {
    if (auto m = extra_mapping->find(folder); m != extra_mapping->end() && !m->second.empty()) return m->second;
  }
  for (const auto& [text, model] : model_guesses) {
    if (folder.find(text) != std::string::npos) return model;
  }
  return folder;
}

std::optional<std::string> RoundSubmissionRules::nameplate_power_path(const std::string& submitter_dir,
                                                                     const std::string& system) const {
  if (!nameplate_power_file) return std::nullopt;
  return path_join(submitter_dir, replace_all(*nameplate_power_file, "{system}", system));
}

const ScenarioRequirements* RoundSubmissionRules::scenarios_of(const std::string& system_type) const {
  auto t = system_types.find(system_type);
  if (t == system_types.end()) return nullptr;
  auto s = scenarios.find(t->second);
  return s == scenarios.end() ? nullptr : &s->second;
}

const RoundSubmissionRules& SubmissionRules::at(const std::string& round) const {
  auto r = rounds.find(round);
  if (r == rounds.end()) throw std::invalid_argument(fmt::format("no submission rules for round {}", round));
  return r->second;
}

SubmissionRules SubmissionRules::load(const fs::path& file) {
  std::ifstream in = open_input_file(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the submission rules", file.string()));
  SubmissionRules rules;
  try {
    const json doc = json::parse(in);
    for (const auto& [round, j] : doc.at("rounds").items()) {
      RoundSubmissionRules r;
      r.source = j.value("_source", "");
      for (const auto& m : j.at("models")) r.models.insert(m.get<std::string>());
      r.model_mapping = j.value("model_mapping", std::map<std::string, std::string>{});
      for (const auto& g : j.value("model_guesses", json::array())) {
        r.model_guesses.emplace_back(g.at(0).get<std::string>(), g.at(1).get<std::string>());
      }
      r.system_types = j.at("system_types").get<std::map<std::string, std::string>>();
      for (const auto& [type, s] : j.at("scenarios").items()) {
        ScenarioRequirements req;
        req.required = s.at("required").get<std::map<std::string, std::vector<std::string>>>();
        req.optional = s.at("optional").get<std::map<std::string, std::vector<std::string>>>();
        r.scenarios.emplace(type, std::move(req));
      }
      for (const auto& [type, key] : r.system_types) {
        if (!r.scenarios.count(key))
          throw std::runtime_error(fmt::format("round {}: system type {} has no scenarios {}", round, type, key));
      }
      r.scenario_mapping = j.value("scenario_mapping", std::map<std::string, std::string>{});
      r.valid_divisions = strings(j.at("valid_divisions"));
      r.valid_availabilities = strings(j.at("valid_availabilities"));
      r.system_desc_required_fields = strings(j.at("system_desc_required_fields"));
      r.system_desc_meaningful_fields = strings(j.at("system_desc_meaningful_fields"));
      r.system_desc_numeric_fields = strings(j.value("system_desc_numeric_fields", json::array()));
      r.system_desc_power_fields = strings(j.value("system_desc_power_fields", json::array()));
      r.network_mode_field = j.at("network_mode_field").get<std::string>();
      r.network_mode_required_fields = strings(j.at("network_mode_required_fields"));

      const json& b = j.at("behaviour");
      r.checker = b.at("checker").get<std::string>();
      const std::string counted = b.at("required_scenarios_count").get<std::string>();
      if (counted != "folders" && counted != "valid_performance") {
        throw std::runtime_error(fmt::format("round {}: unknown required_scenarios_count {}", round, counted));
      }
      r.scenarios_counted_by_folder = counted == "folders";
      r.one_of_server_interactive = b.at("one_of_server_interactive").get<bool>();
      r.invalid_model_stops_checker = b.at("invalid_model_for_system_type").get<std::string>() == "crash";
      for (const auto& d : b.at("required_scenarios_divisions")) r.required_scenarios_divisions.insert(d.get<std::string>());
      r.division_case_insensitive = b.at("division_match").get<std::string>() == "case_insensitive";
      r.network_fields_when_truthy = b.at("network_fields_when").get<std::string>() == "is_network_truthy";
      r.unknown_fields_warning = b.at("unknown_fields_warning").get<bool>();
      r.exceptions_stop_checker = b.at("crash_stops_checker").get<bool>();
      const std::string run_files = b.at("run_files_checked").get<std::string>();
      if (run_files != "always" && run_files != "power_only") {
        throw std::runtime_error(fmt::format("round {}: unknown run_files_checked {}", round, run_files));
      }
      r.run_files_only_with_power = run_files == "power_only";
      if (auto it = b.find("nameplate_power_file"); it != b.end() && it->is_string()) {
        r.nameplate_power_file = it->get<std::string>();
      }

      const json& m = j.at("measurements");
      r.measurements.dir = m.at("dir").get<std::string>();
      r.measurements.json = m.at("json").get<std::string>();
      r.measurements.code = m.at("code").get<std::string>();
      r.measurements.required_files = strings(j.at("required_measure_files"));
      r.measurements.required_fields = strings(j.at("system_imp_required_fields"));
      r.measurements.weight_data_types_read = m.at("weight_data_types_read").get<bool>();
      r.measurements.missing_json_stops_checker = m.value("missing_json_stops_checker", false);
      for (const auto& e : m.at("equal_issue_conf_models")) r.measurements.equal_issue_conf_models.insert(e.get<std::string>());
      r.measurements.equal_issue_conf_files = strings(m.at("equal_issue_conf_files"));
      r.measurements.user_conf_optional_for_endpoints = m.at("user_conf_optional_for_endpoints").get<bool>();
      if (j.contains("tree") && !j.at("tree").is_null()) {
        const json& t = j.at("tree");
        TreeRules tree;
        tree.root_file_suffixes_allowed = strings(t.at("root_file_suffixes_allowed"));
        tree.root_folders_ignored = strings(t.at("root_folders_ignored"));
        tree.submitter_checks = strings(t.at("submitter_checks"));
        tree.file_size_limit_bytes = t.at("file_size_limit_bytes").get<std::uintmax_t>();
        tree.results_coverage = t.at("results_coverage").get<bool>();
        tree.calibration = t.at("calibration").get<bool>();
        r.tree = std::move(tree);
      }
      rules.rounds.emplace(round, std::move(r));
    }
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("{}: {}", file.string(), e.what()));
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: malformed submission rules: {}", file.string(), e.what()));
  }
  return rules;
}

// ---------------------------------------------------------------------------------------------
// System description: check_results_dir (status, system_type), check_system_desc_id and
// is_system_over_network (script); SystemCheck (package).

namespace {

std::vector<ValidityCheck> system_description_checks(const fs::path& system_json, const RoundSubmissionRules& r,
                                                     const std::string& division) {
  std::vector<ValidityCheck> out;
  const std::string file = system_json.string();
  const std::string submitter = folder_name_above(system_json.lexically_normal().parent_path());

  bool readable = false;
  const std::string text = listed_is_regular_file(system_json) ? read_text(system_json, readable) : std::string();
  if (!readable) {
    out.push_back(
        fail("system_description", nullptr, system_json.filename().string(), 0,
             r.exceptions_stop_checker
                 ? fmt::format("{}: no system description (check_results_dir: \"no system_desc\"; the system is skipped)", file)
                 : fmt::format("{}: no system description; the checker stops (the loader reads system_type from it)", file)));
    return out;
  }
  std::string error;
  const json j = parse_like_python(text, error);
  if (!error.empty() || !j.is_object()) {
    out.push_back(
        fail("system_description", nullptr, "a JSON object", 0,
             fmt::format("{}: {}; the checker stops", file, error.empty() ? "not a JSON object" : "not JSON: " + error)));
    return out;
  }
  out.push_back(pass("system_description", system_json.filename().string(), "a JSON object"));

  out.push_back(verdict(contains(r.valid_divisions, division), "division_folder", division, r.valid_divisions, 0,
                        fmt::format("{}: the division folder \"{}\" is not one of {}; the checker skips it", file, division,
                                    join(r.valid_divisions))));

  // availability: system_json.get("status").lower() in VALID_AVAILABILITIES.
  {
    auto it = j.find("status");
    const json value = it == j.end() ? json(nullptr) : *it;
    const std::uint64_t line = line_of_key(text, "status");
    if (!value.is_string()) {
      out.push_back(fail("availability", value, r.valid_availabilities, line,
                         fmt::format("{}: field \"status\" is {}; {}", file,
                                     it == j.end() ? "missing" : "not a string " + value.dump(), stops(r, "AttributeError"))));
    } else {
      out.push_back(verdict(
          contains(r.valid_availabilities, to_lower_copy(value.get<std::string>())), "availability", value, r.valid_availabilities, line,
          fmt::format("{}: field \"status\" {} is not one of {}", file, value.dump(), join(r.valid_availabilities))));
    }
  }

  // system_type: one of the values Config.set_type accepts.
  {
    auto it = j.find("system_type");
    const json value = it == j.end() ? json(nullptr) : *it;
    std::vector<std::string> valid;
    for (const auto& [type, key] : r.system_types) valid.push_back(type);
    out.push_back(verdict(value.is_string() && r.system_types.count(value.get<std::string>()), "system_type", value, valid,
                          line_of_key(text, "system_type"),
                          fmt::format("{}: field \"system_type\" {} is not one of {}", file,
                                      it == j.end() ? std::string("is missing and") : value.dump(), join(valid))));
  }

  // network_mode: is_system_over_network / SystemCheck.network_check.
  bool network = false;
  {
    auto it = j.find(r.network_mode_field);
    const json value = it == j.end() ? json(nullptr) : *it;
    const std::uint64_t line = line_of_key(text, r.network_mode_field);
    const json limit = division == "network" ? json("\"true\"") : division == "closed" ? json("not \"true\"") : json("any");
    if (!value.is_null() && !value.is_string()) {
      out.push_back(fail("network_mode", value, limit, line,
                         fmt::format("{}: field \"{}\" is {}, not a string; {}", file, r.network_mode_field, value.dump(),
                                     stops(r, "AttributeError"))));
    } else {
      network = value.is_string() && to_lower_copy(value.get<std::string>()) == "true";
      bool ok = division == "network" ? network : division == "closed" ? !network : true;
      out.push_back(verdict(
          ok, "network_mode", value, limit, line,
          fmt::format("{}: field \"{}\" {} makes it {} system, which the {} division does not take", file, r.network_mode_field,
                      value.is_null() ? std::string("(absent)") : value.dump(), network ? "a network" : "a local", division)));
    }
  }

  // system_description_fields and _meaningful_fields: the required-field loop.
  std::vector<std::string> required = r.system_desc_required_fields;
  const bool network_fields =
      r.network_fields_when_truthy ? (j.contains(r.network_mode_field) && python_truthy(j.at(r.network_mode_field))) : network;
  if (network_fields)
    required.insert(required.end(), r.network_mode_required_fields.begin(), r.network_mode_required_fields.end());
  std::vector<std::string> missing, empty, not_numeric;
  for (const auto& k : required) {
    if (!j.contains(k)) {
      if (!contains(missing, k)) missing.push_back(k);
    } else if (contains(r.system_desc_meaningful_fields, k) && !python_truthy(j.at(k))) {
      if (!contains(empty, k)) empty.push_back(k);
    } else if (contains(r.system_desc_numeric_fields, k) && !python_number(j.at(k))) {
      if (!contains(not_numeric, k)) not_numeric.push_back(k);
    }
  }
  out.push_back(verdict(missing.empty(), "system_description_fields", missing, required, 0,
                        fmt::format("{}: field(s) {} missing{}", file, join(missing),
                                    network_fields ? " (a network system also needs the network-mode fields)" : "")));
  out.push_back(verdict(empty.empty(), "system_description_meaningful_fields", empty, "not empty",
                        empty.empty() ? 0 : line_of_key(text, empty.front()),
                        fmt::format("{}: field(s) {} require a meaningful response but are empty", file, join(empty))));
  if (!r.system_desc_numeric_fields.empty()) {
    out.push_back(pass("system_description_numeric_fields", not_numeric, r.system_desc_numeric_fields,
                       not_numeric.empty() ? 0 : line_of_key(text, not_numeric.front()),
                       not_numeric.empty() ? std::string()
                                           : fmt::format("{}: field(s) {} are not numbers (logged as an error, not failed)", file,
                                                         join(not_numeric))));
  }
  if (r.unknown_fields_warning) {
    std::vector<std::string> unknown;
    for (const auto& [k, v] : j.items()) {
      if (!contains(required, k) && !contains(r.system_desc_power_fields, k)) unknown.push_back(k);
    }
    out.push_back(pass("system_description_unknown_fields", unknown, "the checker's field lists",
                       unknown.empty() ? 0 : line_of_key(text, unknown.front()),
                       unknown.empty()
                           ? std::string()
                           : fmt::format("{}: field(s) {} unknown to the checker (logged as warnings)", file, join(unknown))));
  }

  // submitter: system_json.get("submitter").lower() == the folder's, lower-cased.
  {
    auto it = j.find("submitter");
    const json value = it == j.end() ? json(nullptr) : *it;
    const std::uint64_t line = line_of_key(text, "submitter");
    if (!value.is_string()) {
      out.push_back(fail("submitter", value, submitter, line,
                         fmt::format("{}: field \"submitter\" is {}; {}", file,
                                     it == j.end() ? "missing" : "not a string " + value.dump(), stops(r, "AttributeError"))));
    } else {
      out.push_back(
          verdict(to_lower_copy(value.get<std::string>()) == to_lower_copy(submitter), "submitter", value, submitter, line,
                  fmt::format("{}: field \"submitter\" {} is not the submitter folder {}", file, value.dump(), submitter)));
    }
  }

  // division: exact (script) or case-insensitive (package).
  {
    auto it = j.find("division");
    const json value = it == j.end() ? json(nullptr) : *it;
    const std::uint64_t line = line_of_key(text, "division");
    if (r.division_case_insensitive && !value.is_string()) {
      out.push_back(fail("division", value, division, line,
                         fmt::format("{}: field \"division\" is {}; {}", file,
                                     it == j.end() ? "missing" : "not a string " + value.dump(), stops(r, "AttributeError"))));
    } else {
      bool ok = value.is_string() && (r.division_case_insensitive ? to_lower_copy(value.get<std::string>()) == to_lower_copy(division)
                                                                  : value.get<std::string>() == division);
      out.push_back(verdict(ok, "division", value, division, line,
                            fmt::format("{}: field \"division\" {} is not the division folder {}{}", file,
                                        it == j.end() ? std::string("(missing)") : value.dump(), division,
                                        r.division_case_insensitive ? "" : " (compared exactly)")));
    }
  }
  return out;
}

}  // namespace

std::vector<ValidityCheck> judge_system_description(const fs::path& system_json, const SubmissionRules& rules,
                                                    const std::string& round, const std::string& division) {
  std::vector<ValidityCheck> out = system_description_checks(system_json, rules.at(round), division);
  for (auto& c : out) set_file(c, system_json.string());
  return out;
}

// ---------------------------------------------------------------------------------------------
// Measurements: check_measurement_dir (script); MeasurementsCheck (package).

std::vector<ValidityCheck> judge_measurements(PathRef submitter_dir, const std::string& system,
                                              const std::string& model_folder, const std::string& scenario,
                                              const SubmissionRules& rules, const std::string& round, bool power) {
  const RoundSubmissionRules& r = rules.at(round);
  const MeasurementRules& m = r.measurements;
  std::vector<ValidityCheck> out;
  auto fill = [&](std::string t) {
    t = replace_all(std::move(t), "{system}", system);
    t = replace_all(std::move(t), "{benchmark}", model_folder);
    return replace_all(std::move(t), "{scenario}", scenario);
  };
  // Paths are joined as text (path_join), as operator/ joins relative names: no
  // std::filesystem::path is built for them.
  const std::string dir = path_join(submitter_dir.text(), fill(m.dir));
  // Folders and files of the submitter's tree are looked up in its listings where the tree
  // walk made them (folder_listing.h), not stat-ed again.
  if (!listed_is_directory(dir)) {
    const bool exists = listed_exists(dir);
    out.push_back(fail("measurements_dir", nullptr, fill(m.dir), 0,
                       exists ? fmt::format("{}: not a folder; {}", dir, stops(r, "NotADirectoryError"))
                              : fmt::format("{}: no measurements folder{}", dir,
                                            r.exceptions_stop_checker ? " (check_results_dir: \"no measurement_dir\")" : "")));
    set_file(out.back(), dir);
    return out;
  }
  out.push_back(pass("measurements_dir", dir, fill(m.dir)));

  // The files directly in the folder, in name order (os.path.isfile follows links).
  const std::vector<std::string> files = regular_files_in(dir);

  // measurements_files.
  {
    bool endpoints = false;
    if (m.user_conf_optional_for_endpoints) {
      const std::string results = path_join(path_join(path_join(path_join(submitter_dir.text(), "results"), system), model_folder), scenario);
      endpoints = !listed_exists(path_join(results, "performance/run_1/mlperf_log_detail.txt")) &&
                  !listed_exists(path_join(results, "accuracy/mlperf_log_detail.txt"));
    }
    std::vector<std::string> problems, required;
    for (const auto& f : m.required_files) {
      if (f == "user.conf" && endpoints) continue;
      required.push_back(f);
      if (!contains(files, f)) {
        problems.push_back(f + " missing");
      } else if (listed_file_size(path_join(dir, f)) == std::optional<std::uintmax_t>(0)) {
        problems.push_back(f + " empty");
      }
    }
    out.push_back(verdict(problems.empty(), "measurements_files", problems, required, 0,
                          fmt::format("{}: {}", dir, join(problems, "; "))));
  }

  // measurements_json: the searched <system>*.json or the fixed name.
  std::string chosen;
  std::size_t suffix = 0;  // the length of the name's end that is not <impl>
  std::vector<std::string> candidates;
  const bool searched = m.json == "{system}*.json";
  if (searched) {
    for (const auto& f : files) {
      if (starts_with(f, system) && ends_with(f, ".json")) candidates.push_back(f);
    }
    if (!candidates.empty()) {
      chosen = candidates.front();
      suffix = ends_with(chosen, "_" + scenario + ".json") ? scenario.size() + 6 : 5;
    }
  } else if (contains(files, m.json)) {
    chosen = m.json;
  }
  const std::string json_file = path_join(dir, chosen);
  json j;
  std::string text, parse_error;
  if (chosen.empty()) {
    out.push_back(
        fail("measurements_json", nullptr, searched ? system + "*.json" : m.json, 0,
             searched ? fmt::format("{}: no {}*.json (check_measurement_dir: \"is missing {}*.json\"){}", dir, system,
                                    system, m.missing_json_stops_checker ? "; the checker stops (UnboundLocalError)" : "")
                      : fmt::format("{}: no {}", dir, m.json)));
  } else {
    bool ok = false;
    text = read_text(json_file, ok);
    j = parse_like_python(text, parse_error);
    if (!ok) parse_error = "cannot be read";
    if (!parse_error.empty()) {
      out.push_back(fail("measurements_json", chosen, searched ? system + "*.json" : m.json, 0,
                         fmt::format("{}: not JSON: {}; the checker stops", json_file, parse_error)));
    } else {
      out.push_back(
          pass("measurements_json", chosen, searched ? system + "*.json" : m.json, 0,
               candidates.size() > 1
                   ? fmt::format("{}: {} candidates ({}); the checker takes the first os.listdir yields, judged here: {}",
                                 dir, candidates.size(), join(candidates), chosen)
                   : std::string()));
    }
  }

  // measurements_json_fields.
  if (!chosen.empty() && parse_error.empty()) {
    std::vector<std::string> missing, empty;
    const bool object = j.is_object();
    for (const auto& k : m.required_fields) {
      if (!object || !j.contains(k)) {
        missing.push_back(k);
      } else if (!python_truthy(j.at(k))) {
        empty.push_back(k);
      }
    }
    std::vector<std::string> problems;
    for (const auto& k : missing) problems.push_back(k + " missing");
    for (const auto& k : empty) problems.push_back(k + " empty");
    std::string why = fmt::format("{}: {}", json_file, object ? join(problems, "; ") : std::string("not a JSON object"));
    if (m.weight_data_types_read && contains(missing, "weight_data_types")) {
      why += "; check_measurement_dir reads weight_data_types first: the checker stops (KeyError)";
    }
    out.push_back(verdict(problems.empty(), "measurements_json_fields", problems, m.required_fields,
                          empty.empty() ? 0 : line_of_key(text, empty.front()), why));
  }

  // code_dir.
  if (m.code == "code/{benchmark}/{impl}") {
    if (!chosen.empty()) {
      // impl = system_file[len(system_desc) + 1: -end], with Python's slice bounds.
      const std::size_t begin = std::min(system.size() + 1, chosen.size());
      const std::size_t stop = chosen.size() - std::min(suffix, chosen.size());
      const std::string impl = stop > begin ? chosen.substr(begin, stop - begin) : std::string();
      const std::string root = submitter_dir.text();
      std::string code_dir = py_join(py_join(root, "code"), model_folder);
      std::string redirect;
      if (listed_is_regular_file(code_dir)) {
        bool ok = false;
        redirect = strip(read_text(code_dir, ok));
        code_dir = py_join(py_join(py_join(root, "code"), redirect), impl);
      } else {
        code_dir = py_join(code_dir, impl);
      }
      const std::string parent = py_dirname(code_dir);
      const bool ok = listed_exists(code_dir) || listed_exists(parent);
      out.push_back(verdict(
          ok, "code_dir", code_dir, "the folder or its parent exists", 0,
          fmt::format("{}: neither the code folder nor {} exists{} (check_measurement_dir: \"is missing code_dir\")", code_dir,
                      parent,
                      redirect.empty() ? std::string() : fmt::format(" (code/{} redirects to {})", model_folder, redirect))));
    }
  } else {
    const std::string code_dir = path_join(submitter_dir.text(), fill(m.code));
    out.push_back(verdict(
        listed_exists(code_dir), "code_dir", code_dir, "exists", 0,
        fmt::format("{}: the source folder does not exist (MeasurementsCheck.directory_exist_check)", code_dir)));
  }

  // equal_issue_conf (v4.1): the .conf files may declare equal-issue mode.
  const std::string division = folder_name_above(submitter_dir);
  std::string conf_file;
  if (!chosen.empty() && m.equal_issue_conf_models.count(model_folder) && (division == "closed" || division == "network")) {
    const std::string ref = replace_all(replace_all(model_folder, "-99.9", ""), "-99", "");
    bool used = false;
    std::string crash, set_by;
    for (const auto& conf : m.equal_issue_conf_files) {
      if (!contains(files, conf) || !crash.empty()) continue;
      bool ok = false;
      const std::string conf_path = path_join(dir, conf);
      std::string content = replace_all(replace_all(read_text(conf_path, ok), "\r\n", "\n"), "\r", "\n");
      std::uint64_t number = 0;
      for (const std::string& raw : split(content, '\n')) {
        ++number;
        const std::string line = replace_all(raw, " ", "");
        if (line.empty() || line[0] == '#') continue;
        const auto kv = split(line, '=');
        if (kv.size() != 2) {
          crash = fmt::format("{}:{}: \"{}\" does not split into key=value; the checker stops (ValueError)",
                              conf_path, number, raw);
          set_by = fmt::format("{}:{}", conf_path, number);
          break;
        }
        const auto key = split(kv[0], '.');
        if (key.size() != 3) {
          crash = fmt::format("{}:{}: key \"{}\" is not model.scenario.key; the checker stops (ValueError)",
                              conf_path, number, kv[0]);
          set_by = fmt::format("{}:{}", conf_path, number);
          break;
        }
        if (key[2] == "sample_concatenate_permutation" && (key[0] == ref || key[0] == "*") &&
            (key[1] == scenario || key[1] == "*") && !kv[1].empty() &&
            std::all_of(kv[1].begin(), kv[1].end(), [](unsigned char c) { return std::isdigit(c); })) {
          used = std::strtoull(kv[1].c_str(), nullptr, 10) == 1;
          set_by = fmt::format("{}:{}", conf_path, number);
          break;
        }
      }
    }
    conf_file = set_by.empty() ? dir : set_by.substr(0, set_by.rfind(':'));
    if (!crash.empty()) {
      out.push_back(fail("equal_issue_conf", nullptr, "sample_concatenate_permutation = 1", 0, crash));
    } else {
      out.push_back(pass(
          "equal_issue_conf", used, "sample_concatenate_permutation = 1", 0,
          used ? fmt::format("{} declares equal-issue mode: check_results_dir accepts the run even if its log lacks it", set_by)
               : fmt::format("{}: no .conf declares equal-issue mode for {} {}: the run's log must show it "
                             "(check_performance_dir)",
                             dir, ref, scenario)));
    }
  }
  // A power submission's analyzer table and settings (check_measurement_dir, script rounds).
  if (power && r.exceptions_stop_checker) out.push_back(judge_power_measurement_files(dir));
  for (auto& c : out) {
    if (c.name == "measurements_json" || c.name == "measurements_json_fields") {
      set_file(c, chosen.empty() ? dir : json_file);
    } else if (c.name == "code_dir") {
      set_file(c, c.value.get<std::string>());
    } else if (c.name == "equal_issue_conf") {
      set_file(c, conf_file);
    } else {
      set_file(c, dir);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Required scenarios: check_results_dir (script); loader.py check_scenarios (package).

std::vector<ValidityCheck> judge_required_scenarios(const std::string& system_type, const std::string& mlperf_model,
                                                    const std::set<std::string>& scenarios_with_valid_results,
                                                    const SubmissionRules& rules, const std::string& round,
                                                    const std::string& division,
                                                    const std::optional<std::set<std::string>>& scenario_folders) {
  const RoundSubmissionRules& r = rules.at(round);
  std::vector<ValidityCheck> out;
  const bool strict = r.required_scenarios_divisions.count(division) > 0;
  const bool folders = r.scenarios_counted_by_folder;
  if (folders && !strict) {
    // loader.py runs check_scenarios (and Config.set_type) in closed and network only.
    out.push_back(pass("required_scenarios", json::array(), nullptr, 0,
                       fmt::format("the {} checker does not check the scenarios of the {} division", round, division)));
    return out;
  }
  const ScenarioRequirements* req = r.scenarios_of(system_type);
  std::vector<std::string> valid_types;
  for (const auto& [type, key] : r.system_types) valid_types.push_back(type);
  if (!req) {
    out.push_back(fail("system_type", system_type, valid_types, 0,
                       fmt::format("system_type \"{}\" is not one of {}{}", system_type, join(valid_types),
                                   folders ? "; the checker stops (Config.set_type raises ValueError)" : "")));
    return out;
  }
  out.push_back(pass("system_type", system_type, valid_types));

  // The model: known to the round (closed/network) and with required scenarios on the type.
  const std::string model = r.mlperf_model(mlperf_model);
  auto required_it = req->required.find(model);
  if (!folders && strict && !r.models.count(mlperf_model)) {
    out.push_back(
        fail("model", mlperf_model, "a model of the round", 0,
             fmt::format("{} is not a model of round {} (check_results_dir: \"invalid model for closed/network division\")",
                         mlperf_model, round)));
    return out;
  }
  if (required_it == req->required.end()) {
    out.push_back(fail("model", mlperf_model, fmt::format("a model of {} systems", system_type), 0,
                       fmt::format("{} has no required scenarios on a {} system{}", mlperf_model, system_type,
                                   folders ? "; the checker stops (get_required is None)"
                                           : " (check_results_dir: \"invalid model\"; the model is skipped)")));
    return out;
  }
  out.push_back(pass("model", mlperf_model, fmt::format("a model of {} systems", system_type)));

  static const std::vector<std::string> kNone;
  auto optional_it = req->optional.find(model);
  const std::vector<std::string>& required = required_it->second;
  const std::vector<std::string>& optional = optional_it == req->optional.end() ? kNone : optional_it->second;
  // Scenario names as the checker compares them: SCENARIO_MAPPING (script), lower case (package).
  auto key = [&](const std::string& s) {
    if (folders) return to_lower_copy(s);
    auto it = r.scenario_mapping.find(s);
    return it == r.scenario_mapping.end() ? s : it->second;
  };
  std::set<std::string> have;
  for (const auto& s : folders&& scenario_folders ? *scenario_folders : scenarios_with_valid_results) have.insert(key(s));
  auto has = [&](const std::string& s) { return have.count(key(s)) > 0; };
  const std::string counted = folders ? "scenario folders" : "scenarios with a valid performance run";

  if (strict) {
    std::vector<std::string> unknown;
    std::set<std::string> known;
    for (const auto& s : required) known.insert(key(s));
    for (const auto& s : optional) known.insert(key(s));
    for (const auto& s : have) {
      if (!known.count(s)) unknown.push_back(s);
    }
    std::vector<std::string> allowed = required;
    allowed.insert(allowed.end(), optional.begin(), optional.end());
    out.push_back(
        verdict(unknown.empty(), "scenarios_known", unknown, allowed, 0,
                fmt::format("{} on a {} system: scenario(s) {} are neither required nor optional{}", mlperf_model, system_type,
                            join(unknown),
                            folders ? "; every scenario of the model fails" : "; the checker ignores them (row dropped)")));
  }

  std::vector<std::string> missing;
  for (const auto& s : required) {
    if (!has(s)) missing.push_back(s);
  }
  const std::string missing_message = fmt::format("{} on a {} system: missing required scenario(s) {} among the {}", mlperf_model,
                                                  system_type, join(missing), counted);
  if (strict) {
    out.push_back(verdict(missing.empty(), "required_scenarios", missing, required, 0, missing_message));
  } else {
    out.push_back(pass("required_scenarios", missing, required, 0,
                       missing.empty()
                           ? std::string()
                           : missing_message + fmt::format(" (the checker ignores them in the {} division)", division)));
  }

  auto in_optional = [&](const std::string& s) {
    return std::any_of(optional.begin(), optional.end(), [&](const std::string& o) { return key(o) == key(s); });
  };
  if (r.one_of_server_interactive && in_optional("Server") && in_optional("Interactive")) {
    json present = json::array();
    for (const char* s : {"Server", "Interactive"}) {
      if (has(s)) present.push_back(s);
    }
    const std::string why = fmt::format("{} on a {} system: one of Server and Interactive is required, neither is among the {}",
                                        mlperf_model, system_type, counted);
    if (strict) {
      out.push_back(verdict(!present.empty(), "server_or_interactive", present, "one of Server, Interactive", 0, why));
    } else {
      out.push_back(pass("server_or_interactive", present, "one of Server, Interactive", 0,
                         present.empty() ? why + fmt::format(" (not checked in the {} division)", division) : std::string()));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The folder tree: check_results_dir's checks before any result (script rounds).

namespace {

// A folder of the submitter's tree: its absolute path and its path as the checker shows it
// (relative to the submission root).
struct TreeFolder {
  std::string path;
  std::string shown;
};

// An entry of the tree: a folder (`itself`: the folder folders[folder] is) or another entry
// of the folder folders[folder]. Its paths are made from its folder's when a check names it
// (few do): a path and a shown path per entry were most of the walk's allocations.
struct TreeEntry {
  std::uint32_t folder = 0;
  bool itself = false;
  std::string name;  // the last part of the path
  bool directory = false;
  bool symlink = false;
  bool empty = false;  // a folder without entries
  std::int64_t size = -1;  // a regular file's size as the walk found it (-1: not known)
};

// What walk finds: every folder and entry, in os.walk's order.
struct Tree {
  const fs::path& root;
  std::vector<TreeFolder> folders;
  std::vector<TreeEntry> entries;

  // The entry's absolute path.
  std::string path(const TreeEntry& e) const {
    return e.itself ? folders[e.folder].path : path_join(folders[e.folder].path, e.name);
  }
  // The entry's path as the checker shows it: its folder's shown path and its name (what
  // lexically_relative gives below a folder shown as a relative path), or lexically_relative
  // itself where the folder is shown as "" or ".".
  std::string shown(const TreeEntry& e) const { return e.itself ? folders[e.folder].shown : shown_in(folders[e.folder], e.name); }
  std::string shown_in(const TreeFolder& f, const std::string& name) const {
    if (!f.shown.empty() && f.shown != ".") return f.shown + "/" + name;
    return fs::path(path_join(f.path, name)).lexically_relative(root).generic_string();
  }
};

// os.walk of `top` (symlinks to folders listed, not followed): every folder (itself included)
// and every other entry. Paths are joined as text: a std::filesystem::path per entry (its
// parts parsed, then taken apart again to be shown) cost more than listing the folders.
// Folders `listed` holds (by path below `top`) are read from it; the listings the walk makes
// itself are kept in `record` (a reader of both finds every folder of the tree).
Tree walk(const fs::path& top, const fs::path& root, FolderListings* record, const FolderListings* listed) {
  Tree tree{root, {}, {}};
  std::error_code ec;
  struct Pending {
    TreeFolder folder;
    std::string name;
  };
  std::vector<Pending> stack;
  stack.push_back({{top.native(), top.lexically_relative(root).generic_string()}, top.filename().string()});
  while (!stack.empty()) {
    Pending next = std::move(stack.back());
    stack.pop_back();
    const auto index = static_cast<std::uint32_t>(tree.folders.size());
    tree.folders.push_back(std::move(next.folder));
    TreeEntry d{index, true, std::move(next.name), true, false, true};
    std::vector<std::string> children;
    // Each entry's type as the listing gives it: a stat only for a link (or an unknown type).
    // A folder discovery listed is read in place; the listing read or made is then kept.
    std::vector<FolderEntry> listed_now;
    const std::string& folder = tree.folders.back().path;
    std::string below = folder.substr(top.native().size());
    const std::vector<FolderEntry>* known = listed ? listed->find(below) : nullptr;
    const bool whole = known ? true : list_folder_with_sizes(folder, listed_now, ec);
    const std::vector<FolderEntry>& entries = known ? *known : listed_now;
    for (const auto& e : entries) {
      d.empty = false;
      const bool link = e.is_symlink(folder);
      const bool is_dir = e.is_directory(folder);  // os.walk lists a link to a folder among the folders
      if (is_dir && !link) {
        children.push_back(e.name);
      } else {
        tree.entries.push_back({index, false, e.name, is_dir, link, false, e.size});
      }
    }
    // Sibling paths compare as their names do. (Their paths are made before the listing is
    // moved to `record`: `folder` stays, the folder's place in tree.folders does not move
    // until the next folder is taken.)
    std::sort(children.begin(), children.end());
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      std::string p = path_join(folder, *it);
      std::string text = tree.shown_in(tree.folders.back(), *it);
      stack.push_back({{std::move(p), std::move(text)}, std::move(*it)});
    }
    if (record && whole && !known) record->add(std::move(below), std::move(listed_now));
    tree.entries.push_back(std::move(d));
  }
  return tree;
}

}  // namespace

std::vector<ValidityCheck> judge_submission_tree(const fs::path& submitter_dir, const SubmissionRules& rules,
                                                 const std::string& round, std::vector<bool>* drops_rows,
                                                 FolderListings* listings, const FolderListings* listed) {
  const RoundSubmissionRules& r = rules.at(round);
  std::vector<ValidityCheck> out;
  if (!r.tree) return out;
  const TreeRules& t = *r.tree;
  fs::path submitter = submitter_dir.lexically_normal();
  if (submitter.filename().empty()) submitter = submitter.parent_path();
  const fs::path division_dir = submitter.parent_path();
  const fs::path root = division_dir.parent_path();
  const std::string division = division_dir.filename().string();
  auto add = [&](std::string name, const std::vector<std::string>& offending, const fs::path& first, std::string limit,
                 std::string message, bool drops) {
    ValidityCheck c = offending.empty() ? pass(std::move(name), json::array(), std::move(limit))
                                        : fail(std::move(name), offending, std::move(limit), 0,
                                               fmt::format("{}: {}", message, join(offending)));
    set_file(c, (offending.empty() ? submitter : first).string());
    out.push_back(std::move(c));
    if (drops_rows) drops_rows->push_back(drops);
  };

  // The submission root and the division folder.
  {
    std::vector<std::string> bad;
    for (const auto& f : regular_files_in(root)) {
      if (std::none_of(t.root_file_suffixes_allowed.begin(), t.root_file_suffixes_allowed.end(),
                       [&](const std::string& suffix) { return ends_with(f, suffix); }))
        bad.push_back(f);
    }
    add("root_files", bad, bad.empty() ? root : root / bad.front(), "only *.md and *.pdf files beside the divisions",
        fmt::format("the submission root {} contains files outside the division folders (the checker publishes no "
                    "row of the submission)",
                    root.string()),
        true);
  }
  {
    std::vector<std::string> bad = regular_files_in(division_dir);
    for (auto& f : bad) f = division + "/" + f;
    add("division_files", bad, bad.empty() ? division_dir : root / bad.front(), "no file beside the submitters",
        fmt::format("{} contains files outside the submitter folders (the division is skipped)", division), true);
  }

  const Tree tree = walk(submitter, root, listings, listed);
  const std::vector<TreeEntry>& entries = tree.entries;
  const std::string skipped = "(the checker skips the submitter: none of its rows is published)";
  for (const auto& name : t.submitter_checks) {
    std::vector<std::string> bad;
    fs::path first;
    auto offend = [&](const TreeEntry& e) {
      if (bad.empty()) first = tree.path(e);
      bad.push_back(tree.shown(e));
    };
    std::string limit, message;
    if (name == "broken_symlinks") {
      limit = "no broken symbolic link";
      message = "broken symbolic links " + skipped;
      for (const auto& e : entries) {
        if (!e.symlink || e.directory) continue;
        std::error_code ec;
        fs::path target = fs::read_symlink(tree.path(e), ec);
        if (ec) continue;
        if (target.is_relative()) target = root / target;  // os.path.exists(os.readlink(f)) from the root
        if (!fs::exists(target, ec)) offend(e);
      }
    } else if (name == "file_size") {
      limit = fmt::format("files of at most {} bytes", t.file_size_limit_bytes);
      message = "files over the size limit " + skipped;
      for (const auto& e : entries) {
        if (e.directory) continue;
        // The size the walk took relative to the open folder; a look-up of the path only
        // where it could not (not a regular file, or its stat failed).
        if (e.size >= 0) {
          if (static_cast<std::uintmax_t>(e.size) > t.file_size_limit_bytes) offend(e);
          continue;
        }
        std::error_code ec;
        const auto size = fs::file_size(tree.path(e), ec);
        if (!ec && size > t.file_size_limit_bytes) offend(e);
      }
    } else if (name == "git_unfriendly_names") {
      limit = "no name starting with \".\"";
      message = "files or folders with git-unfriendly names " + skipped;
      for (const auto& e : entries) {
        if (e.directory && e.symlink) continue;  // os.walk lists a link to a folder in neither list
        if (e.name.starts_with('.')) offend(e);
      }
    } else if (name == "space_names") {
      limit = "no name with a space";
      message = "files or folders with spaces in their names " + skipped;
      for (const auto& e : entries) {
        if (e.directory && e.symlink) continue;
        if (e.name.find(' ') != std::string::npos) offend(e);
      }
    } else if (name == "pycache") {
      limit = "no __pycache__ folder";
      message = "__pycache__ folders " + skipped;
      for (const auto& e : entries) {
        if (e.directory && !e.symlink && ends_with(e.name, "__pycache__")) offend(e);
      }
    } else if (name == "empty_dirs") {
      limit = "no empty folder";
      message = "empty folders " + skipped;
      for (const auto& e : entries) {
        if (e.directory && !e.symlink && e.empty) offend(e);
      }
    } else {
      continue;  // a check this build does not know: the extractor asserts each name
    }
    add(name, bad, first, limit, message, true);
  }

  if (t.results_coverage) {
    const std::set<std::string> results = folders_in(submitter / "results");
    std::vector<std::string> bad;
    for (const auto& m : folders_in(submitter / "measurements")) {
      if (!results.count(m)) bad.push_back((submitter / "measurements" / m).lexically_relative(root).generic_string());
    }
    for (const auto& f : regular_files_in(submitter / "systems")) {
      if (ends_with(f, ".json") && !results.count(f.substr(0, f.size() - 5)))
        bad.push_back((submitter / "systems" / f).lexically_relative(root).generic_string());
    }
    add("results_coverage", bad, bad.empty() ? submitter : root / bad.front(),
        "a results/<system> folder for every measurements/<system> and systems/<system>.json",
        "measurements or system descriptions without results (the submission fails; the rows stay)", false);
  }
  if (t.calibration && division != "open") {
    std::error_code ec;
    const bool found = fs::exists(submitter / "calibration.md", ec) ||
                       fs::exists(submitter / "documentation" / "calibration.md", ec);
    std::vector<std::string> bad;
    if (!found) bad.push_back((submitter / "calibration.md").lexically_relative(root).generic_string());
    add("calibration", bad, submitter / "calibration.md", "calibration.md or documentation/calibration.md",
        "no calibration documentation, one of calibration.md or documentation/calibration.md is required (the "
        "submission fails; the rows stay)",
        false);
  }
  return out;
}

}  // namespace mlperf::inference
