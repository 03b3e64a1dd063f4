// Reading accuracy/accuracy.txt as the submission checker's check_accuracy_dir does.

#include "mlperf/inference/accuracy.h"

#include "mlperf/inference/folder_files.h"
#include "mlperf/inference/loadgen_log.h"
#include "mlperf/mllog/folder_listing.h"
#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"
#include "mlperf/mllog/path_text.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string_view>
#include <new>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>

#include <boost/algorithm/string/case_conv.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace mlperf::inference {

namespace fs = std::filesystem;

std::string python_regex_to_ecmascript(const std::string& p) {
  std::string out;
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      out += c;
      out += p[++i];
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      continue;
    }
    if (c == '{') {
      // A quantifier only after an atom and when {n}, {n,} or {n,m} follows.
      std::size_t j = i + 1;
      while (j < p.size() && std::isdigit(static_cast<unsigned char>(p[j]))) ++j;
      bool digits = j > i + 1;
      if (j < p.size() && p[j] == ',') {
        ++j;
        while (j < p.size() && std::isdigit(static_cast<unsigned char>(p[j]))) ++j;
      }
      bool after_atom = !out.empty() && out.back() != '(' && out.back() != '|' && !(out.size() == 1 && out[0] == '^');
      if (digits && j < p.size() && p[j] == '}' && after_atom) {
        out += p.substr(i, j - i + 1);
        i = j;
        continue;
      }
      out += "\\{";
      continue;
    }
    if (c == '}') {
      out += "\\}";
      continue;
    }
    out += c;
  }
  return out;
}

const std::vector<AccuracyBound>* RoundAccuracyRules::targets_of(const std::string& model,
                                                                 const std::string& scenario) const {
  auto m = targets.find(model);
  if (m == targets.end()) return nullptr;
  if (auto s = m->second.find(scenario); s != m->second.end()) return &s->second;
  if (auto s = m->second.find(""); s != m->second.end()) return &s->second;
  return nullptr;
}

namespace {

std::vector<AccuracyBound> bounds(const nlohmann::json& list) {
  std::vector<AccuracyBound> out;
  for (const auto& pair : list) out.push_back({pair.at(0).get<std::string>(), pair.at(1).get<double>()});
  return out;
}

std::string number_text(double v) { return fmt::format("{}", v); }

}  // namespace

AccuracyRules AccuracyRules::load(const fs::path& file) {
  std::ifstream in = open_input_file(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the accuracy rules", file.string()));
  AccuracyRules rules;
  try {
    nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& [round, r] : doc.at("rounds").items()) {
      RoundAccuracyRules rr;
      rr.accuracy_column = r.value("accuracy_column", "metrics");
      rr.max_accuracy_log_size = r.value("max_accuracy_log_size", std::uint64_t{10240});
      rr.required_files = r.value("required_files", std::vector<std::string>{});
      rr.accuracy_sample_count_fails = r.value("accuracy_sample_count_fails", false);
      const std::string open_accepts = r.value("open_division_accepts", std::string("accuracy_dir"));
      if (open_accepts != "accuracy_dir" && open_accepts != "accuracy_result") {
        throw std::runtime_error(fmt::format("round {}: unknown open_division_accepts {}", round, open_accepts));
      }
      rr.open_accepts_accuracy_files = open_accepts == "accuracy_dir";
      const nlohmann::json extra = r.value("extra_files", nlohmann::json::object());
      for (const auto& [model, folders] : extra.items()) {
        rr.extra_files[model] = folders.get<std::map<std::string, std::vector<std::string>>>();
      }
      const nlohmann::json counts = r.value("accuracy_sample_count", nlohmann::json::object());
      for (const auto& [model, count] : counts.items()) {
        if (count.is_object()) {
          for (const auto& [scenario, n] : count.items()) rr.accuracy_sample_count[model][scenario] = n.get<std::uint64_t>();
        } else {
          rr.accuracy_sample_count[model][""] = count.get<std::uint64_t>();
        }
      }
      for (const auto& [metric, pattern] : r.at("patterns").items()) {
        std::string python = pattern.get<std::string>();
        std::string ecmascript = python_regex_to_ecmascript(python);
        std::string required = required_literal(python);
        rr.patterns.emplace(metric, AccuracyPattern(std::move(python), std::move(ecmascript), std::move(required)));
      }
      for (const auto& [model, t] : r.at("targets").items()) {
        if (t.is_object()) {
          for (const auto& [scenario, list] : t.items()) rr.targets[model][scenario] = bounds(list);
        } else {
          rr.targets[model][""] = bounds(t);
        }
      }
      const nlohmann::json limits = r.value("upper_limits", nlohmann::json::object());  // kept: items() refers to it
      for (const auto& [model, list] : limits.items()) {
        rr.upper_limits[model] = bounds(list);
      }
      rules.rounds.emplace(round, std::move(rr));
    }
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("{}: {}", file.string(), e.what()));
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: malformed accuracy rules: {}", file.string(), e.what()));
  }
  return rules;
}

AccuracyResult judge_accuracy(const fs::path& accuracy_dir, const RoundAccuracyRules& rules, const std::string& model,
                              const std::string& scenario, const std::string& division) {
  AccuracyResult out;
  const fs::path file = accuracy_dir / "accuracy.txt";
  const std::vector<AccuracyBound>* targets = rules.targets_of(model, scenario);
  // Read whole (read_whole_file: no stream set up per file), then line by line as
  // std::getline splits it.
  bool read_failed = false;
  const std::optional<std::string> text = read_whole_file(file, &read_failed);
  if (!text) {
    out.checks.push_back({"accuracy_txt", false, nullptr, file.filename().string(), 0,
                          fmt::format("{} is missing (the submission checker requires the accuracy run)", file.string())});
    return out;
  }
  out.file = file.string();
  if (!targets) {
    out.checks.push_back({"accuracy_target", false, model, nullptr, 0,
                          fmt::format("the round's checker has no accuracy target for model {}", model)});
    return out;
  }
  static const std::vector<AccuracyBound> kNone;
  auto limits_it = rules.upper_limits.find(model);
  const std::vector<AccuracyBound>& limits = limits_it == rules.upper_limits.end() ? kNone : limits_it->second;
  auto pattern_of = [&](const std::string& metric) -> const AccuracyPattern* {
    auto p = rules.patterns.find(metric);
    return p == rules.patterns.end() ? nullptr : &p->second;
  };
  // Each target's and limit's pattern, looked up once rather than on every line.
  std::vector<const AccuracyPattern*> target_patterns, limit_patterns;
  for (const auto& t : *targets) target_patterns.push_back(pattern_of(t.metric));
  for (const auto& l : limits) limit_patterns.push_back(pattern_of(l.metric));

  std::vector<bool> seen(targets->size(), false);
  std::vector<std::uint64_t> failed_line(targets->size(), 0), limit_line(limits.size(), 0);
  std::vector<std::string> failed_text(targets->size()), limit_text(limits.size());
  std::map<std::string, std::uint64_t> value_line;
  bool all_met = true, unreadable = false;
  std::uint64_t hash_line = 0;
  std::string line;
  std::uint64_t number = 0;
  auto capture = [](const AccuracyPattern* pattern, const std::string& text) -> std::optional<std::string> {
    return pattern ? pattern->first_group(text) : std::nullopt;
  };
  for (std::size_t at = 0; at < text->size();) {
    const std::size_t newline = text->find('\n', at);
    const std::size_t end = newline == std::string::npos ? text->size() : newline;
    line.assign(*text, at, end - at);
    at = newline == std::string::npos ? text->size() : newline + 1;
    ++number;
    // Python reads lines with their newline; `.` and `$` treat it as the end of the line.
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
    // The whole line is hash=([\w\d]+) (\w: ASCII letters, digits and '_', as the C locale
    // has it), matched by hand: std::regex took 10,000 instructions a line.
    if (line.size() > 5 && line.starts_with("hash=") &&
        std::all_of(line.begin() + 5, line.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        })) {
      out.hash = line.substr(5);
      hash_line = number;
    }
    for (std::size_t i = 0; i < targets->size(); ++i) {
      const AccuracyBound& t = (*targets)[i];
      std::optional<std::string> acc = capture(target_patterns[i], line);
      if (!acc) continue;
      std::optional<double> v = python_float(*acc);
      if (!v) {
        unreadable = true;
        failed_line[i] = number;
        failed_text[i] = *acc;
        all_met = false;
      } else if (*v >= t.value) {
        seen[i] = true;
      } else {
        all_met = false;
        if (!failed_line[i]) {
          failed_line[i] = number;
          failed_text[i] = *acc;
        }
      }
      if (!acc->empty()) {
        auto at = std::find_if(out.metrics.begin(), out.metrics.end(), [&](const auto& m) { return m.first == t.metric; });
        if (at == out.metrics.end()) {
          out.metrics.emplace_back(t.metric, *acc);
        } else {
          at->second = *acc;
        }
        value_line[t.metric] = number;
      }
    }
    for (std::size_t i = 0; i < limits.size(); ++i) {
      std::optional<std::string> acc = capture(limit_patterns[i], line);
      if (!acc) continue;
      std::optional<double> v = python_float(*acc);
      if ((v && *v > limits[i].value) || !v) {
        if (!limit_line[i]) {
          limit_line[i] = number;
          limit_text[i] = *acc;
        }
      }
    }
    if (out.hash && std::all_of(seen.begin(), seen.end(), [](bool b) { return b; })) break;
  }
  if (read_failed) {
    out.checks.push_back({"accuracy_txt", false, nullptr, nullptr, 0, fmt::format("{}: read error", file.string())});
    return out;
  }

  auto value_of = [&](const std::string& metric) -> nlohmann::json {
    for (const auto& [name, text] : out.metrics) {
      if (name == metric) {
        if (auto v = python_float(text)) return *v;
        return text;
      }
    }
    return nullptr;
  };
  bool targets_ok = all_met && !unreadable;
  for (std::size_t i = 0; i < targets->size(); ++i) {
    const AccuracyBound& t = (*targets)[i];
    bool ok = seen[i] && !failed_line[i];
    std::string message;
    if (failed_line[i]) {
      message = fmt::format("{} is {} at line {}; the target is at least {}", t.metric, failed_text[i], failed_line[i],
                            number_text(t.value));
    } else if (!seen[i]) {
      message = fmt::format("{} is not in {}", t.metric, file.string());
      targets_ok = false;
    }
    out.checks.push_back({t.metric, ok, ok || failed_line[i] ? value_of(t.metric) : nlohmann::json(),
                          fmt::format(">= {}", number_text(t.value)), failed_line[i] ? failed_line[i] : value_line[t.metric],
                          message});
  }
  bool limits_ok = true;
  for (std::size_t i = 0; i < limits.size(); ++i) {
    bool ok = limit_line[i] == 0;
    limits_ok &= ok;
    nlohmann::json value = ok ? value_of(limits[i].metric) : nlohmann::json(limit_text[i]);
    if (!ok) {
      if (auto v = python_float(limit_text[i])) value = *v;
    }
    out.checks.push_back({limits[i].metric + "_upper_limit", ok, value, fmt::format("<= {}", number_text(limits[i].value)),
                          limit_line[i],
                          ok ? std::string()
                             : fmt::format("{} is {} at line {}; the upper limit is {}", limits[i].metric, limit_text[i],
                                           limit_line[i], number_text(limits[i].value))});
  }
  out.checks.push_back({"hash", out.hash.has_value(), out.hash ? nlohmann::json(*out.hash) : nlohmann::json(),
                        "hash=<sha256 of mlperf_log_accuracy.json>", hash_line,
                        out.hash ? std::string() : fmt::format("{} has no hash= line", file.string())});

  bool closed_valid = targets_ok && limits_ok && out.hash.has_value();
  if (division == "open") {
    // "accuracy not valid but taken for open": any value found is accepted.
    out.valid = closed_valid || !out.metrics.empty();
    if (!closed_valid && out.valid) {
      for (const auto& c : out.checks) {
        if (!c.passed) out.warnings.push_back(accepted_in_open(c.message));
      }
    }
  } else {
    out.valid = closed_valid;
  }

  if (rules.accuracy_column == "first_value") {
    out.column = out.metrics.empty() ? std::string() : out.metrics.front().second;
  } else {
    std::string column;
    for (const auto& [name, text] : out.metrics) column += fmt::format("{}{}: {}", column.empty() ? "" : "  ", name, text);
    out.column = column;
  }
  return out;
}

std::string accepted_in_open(const std::string& message) { return "open division, accepted: " + message; }

namespace {

// REQUIRED_ACC_BENCHMARK's subfolders and file stems (e.g. SDXL's images/) missing: a warning in
// `result.warnings` (extra_files_check; the official tables were made without it).
void warn_missing_extra_files(const fs::path& accuracy_dir, const RoundAccuracyRules& rules, const std::string& model,
                              AccuracyResult& result) {
  if (auto extra = rules.extra_files.find(model); extra != rules.extra_files.end()) {
    std::vector<std::string> missing;
    for (const auto& [folder, stems] : extra->second) {
      const std::string sub = path_join(accuracy_dir.native(), folder);
      if (!listed_is_directory(sub)) {
        missing.push_back(folder + "/");
        continue;
      }
      std::set<std::string> present;
      for (const auto& name : regular_files_in(sub)) present.insert(name.substr(0, name.find('.')));  // f.split(".")[0]
      for (const auto& stem : stems) {
        if (!present.count(stem)) missing.push_back(folder + "/" + stem + ".png");
      }
      if (!present.count("captions")) {
        result.warnings.push_back(fmt::format("{} has no captions file (the checker notes it without failing)", sub));
      }
    }
    // The round's results table was made with --skip-extra-accuracy-files-check (no v5.1 SDXL
    // submission holds accuracy/images/, all are published): a warning, never the verdict.
    if (!missing.empty()) {
      result.warnings.push_back(fmt::format("{}: {} missing (REQUIRED_ACC_BENCHMARK; the official results "
                                            "table was made without this check)", accuracy_dir.string(),
                                            fmt::join(missing, ", ")));
    }
  }
}

}  // namespace

void judge_accuracy_files(const fs::path& accuracy_dir, const RoundAccuracyRules& rules, const std::string& model,
                          const std::string& scenario, AccuracyResult& result, bool packaging) {
  auto add = [&](std::string name, bool passed, nlohmann::json value, nlohmann::json limit, std::uint64_t line,
                 std::string message, const std::string& file) {
    result.file_checks.push_back({std::move(name), passed, std::move(value), std::move(limit), line,
                                  passed ? std::string() : std::move(message), file});
    result.files_valid = result.files_valid && passed;
  };
  if (packaging && !rules.required_files.empty()) {
    ValidityCheck files = files_check("accuracy_files", accuracy_dir.native(), rules.required_files);
    result.files_valid = result.files_valid && files.passed;
    result.file_checks.push_back(std::move(files));
  }
  // The files' paths joined as text (path_join), as operator/ joins them.
  const std::string log = path_join(accuracy_dir.native(), "mlperf_log_accuracy.json");
  if (!packaging) {
    // A run of one's own: its accuracy log as loadgen wrote it, whole or not there.
  } else if (!listed_is_regular_file(log)) {
    add("accuracy_log", false, nullptr, fmt::format("<= {} bytes", rules.max_accuracy_log_size), 0,
        fmt::format("{} is missing", log), log);
  } else {
    // The size from the submitter's listing where the tree walk made one (folder_listing.h).
    const std::optional<std::uintmax_t> size = listed_file_size(log);
    const bool ok = size && *size <= rules.max_accuracy_log_size;
    add("accuracy_log", ok, size ? nlohmann::json(*size) : nlohmann::json(),
        fmt::format("<= {} bytes", rules.max_accuracy_log_size), 0,
        fmt::format("{} is not truncated: {} bytes, at most {} allowed (truncate_accuracy_log.py)", log,
                    size.value_or(static_cast<std::uintmax_t>(-1)), rules.max_accuracy_log_size),
        log);
  }
  const std::string detail = path_join(accuracy_dir.native(), kDetailLogName);
  std::optional<LoadgenLog> detail_log;
  try {
    static const KeySet keys{"qsl_reported_total_count", "effective_accuracy_sample_count"};
    detail_log = read_detail_log_if_present(detail, keys);
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    add("accuracy_log_errors", false, nullptr, 0, 0, e.what(), detail);
  }
  if (!detail_log) {
    if (result.file_checks.empty() || result.file_checks.back().name != "accuracy_log_errors") {
      add("accuracy_log_errors", false, nullptr, 0, 0, fmt::format("{} is missing", detail), detail);
    }
  } else {
    const LoadgenLog& l = *detail_log;
    const std::uint64_t line = l.errors.empty() ? 0 : l.errors.front().line;
    add("accuracy_log_errors", l.error_events == 0, l.error_events, 0, line,
        fmt::format("{}:{}: the accuracy run logged {} loadgen error{}, the first: {}", detail, line,
                    l.error_events, l.error_events == 1 ? "" : "s", l.errors.empty() ? "" : l.errors.front().message),
        detail);
    auto counts = rules.accuracy_sample_count.find(model);
    if (counts != rules.accuracy_sample_count.end()) {
      auto c = counts->second.find(scenario);
      if (c == counts->second.end()) c = counts->second.find("");
      if (c != counts->second.end()) {
        const char* key = rules.accuracy_sample_count_fails && l.values.count("effective_accuracy_sample_count")
                              ? "effective_accuracy_sample_count"
                              : "qsl_reported_total_count";
        std::optional<double> n = l.number(key);
        const bool ok = n && *n == static_cast<double>(c->second);
        const std::string message =
            fmt::format("{}:{}: the accuracy run covers {} samples ({}); the dataset has {}", detail, l.line(key),
                        n ? fmt::format("{:g}", *n) : std::string("no"), key, c->second);
        if (rules.accuracy_sample_count_fails || ok) {
          add("accuracy_sample_count", ok, n ? nlohmann::json(*n) : nlohmann::json(), c->second, l.line(key), message,
              detail);
        } else {
          result.warnings.push_back(message + " (the round's checker logs this without failing the run)");
        }
      }
    }
  }
  warn_missing_extra_files(accuracy_dir, rules, model, result);
}

namespace {

using boost::algorithm::to_lower_copy;  // ASCII lower case, as Python's str.lower() of ASCII

// json.dumps of a value (separators ", " and ": ", ASCII only, floats as Python's repr, a
// dict's members in the file's order), for the results table's Accuracy cell.
std::string python_json_dumps(const nlohmann::ordered_json& v) {
  if (v.is_object()) {
    std::string out = "{";
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (out.size() > 1) out += ", ";
      out += nlohmann::ordered_json(it.key()).dump(-1, ' ', true) + ": " + python_json_dumps(it.value());
    }
    return out + "}";
  }
  if (v.is_array()) {
    std::string out = "[";
    for (const auto& item : v) out += (out.size() > 1 ? ", " : "") + python_json_dumps(item);
    return out + "]";
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
    return python_float_repr(d);
  }
  return v.dump(-1, ' ', true);
}

// _numeric_accuracy_score: the score as a number (a number, numeric text, or the dict member
// named by a metric, its lower case, its last _-part, then f1, score, accuracy); nullopt
// where none is.
std::optional<double> numeric_accuracy_score(const nlohmann::ordered_json& score, const std::vector<AccuracyBound>& targets) {
  auto number = [](const nlohmann::ordered_json& v) -> std::optional<double> {
    if (v.is_number()) return v.get<double>();
    if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
    if (v.is_string()) return python_float(v.get<std::string>());
    return std::nullopt;
  };
  if (!score.is_object()) return score.is_string() || score.is_number() || score.is_boolean() ? number(score) : std::nullopt;
  std::vector<std::string> keys;
  for (const auto& t : targets) {
    const std::string lower = to_lower_copy(t.metric);
    keys.push_back(t.metric);
    keys.push_back(lower);
    keys.push_back(lower.substr(lower.rfind('_') == std::string::npos ? 0 : lower.rfind('_') + 1));
  }
  for (const char* k : {"f1", "score", "accuracy"}) keys.emplace_back(k);
  for (const auto& k : keys) {
    auto it = score.find(k);
    if (it == score.end()) continue;
    if (it->is_number() || it->is_boolean()) return number(*it);
    if (it->is_string()) {
      if (auto n = number(*it)) return n;
    }
  }
  return std::nullopt;
}

}  // namespace

AccuracyResult judge_endpoints_accuracy(const fs::path& accuracy_dir, const LoadgenLog& accuracy_log,
                                        const RoundAccuracyRules& rules, const EndpointsRules& endpoints,
                                        const std::string& model, const std::string& scenario,
                                        const std::string& division) {
  AccuracyResult result;
  const std::string file = accuracy_log.file.string();
  result.file = file;
  auto add = [&](std::vector<ValidityCheck>& to, std::string name, bool passed, nlohmann::json value,
                 nlohmann::json limit, std::string message) {
    to.push_back({std::move(name), passed, std::move(value), std::move(limit), 0, passed ? std::string() : std::move(message), file});
  };
  // accuracy_result_check
  auto score_it = accuracy_log.values.find("accuracy_score");
  if (score_it == accuracy_log.values.end()) {
    add(result.checks, "accuracy_score", false, nullptr, "accuracy_scores[].score",
        fmt::format("{}: accuracy score not found", file));
  } else {
    const nlohmann::ordered_json score = nlohmann::ordered_json::parse(score_it->second.json);
    std::string cell = python_json_dumps(score);
    std::string column;
    for (char c : cell) {
      if (c == ',') column += ' ';
      else if (c != '"' && c != '{' && c != '}') column += c;
    }
    const auto first = column.find_first_not_of(" \t\n\r\f\v");
    const auto last = column.find_last_not_of(" \t\n\r\f\v");
    result.column = first == std::string::npos ? std::string() : column.substr(first, last - first + 1);
    result.metrics.emplace_back("score", score.is_string() ? score.get<std::string>() : score.dump());
    const std::vector<AccuracyBound>* targets = rules.targets_of(model, scenario);
    if (to_lower_copy(division) != "open" && endpoints.accuracy_target_models.count(model) && targets && !targets->empty()) {
      std::optional<double> numeric = numeric_accuracy_score(score, *targets);
      const double target = targets->front().value;
      add(result.checks, "accuracy_score", numeric && *numeric >= target,
          numeric ? nlohmann::json(*numeric) : nlohmann::json(score_it->second.json), target,
          numeric ? fmt::format("{}: accuracy not met: expected={}, found={}", file, target, *numeric)
                  : fmt::format("{}: could not parse accuracy score {}", file, score_it->second.json));
    } else {
      add(result.checks, "accuracy_score", true, nlohmann::json::parse(score_it->second.json), nullptr, "");
    }
  }
  result.valid = std::all_of(result.checks.begin(), result.checks.end(), [](const ValidityCheck& c) { return c.passed; });
  // loadgen_errors_check: the accuracy run's failed samples (num_errors `or 0`) fail it.
  std::optional<double> errors = accuracy_log.number("num_errors");
  const double failed = errors.value_or(0);
  add(result.file_checks, "accuracy_log_errors", failed == 0, failed, 0,
      fmt::format("{}: the accuracy run has {} failed samples (n_samples_failed)", file, failed));
  // dataset_check
  if (auto counts = rules.accuracy_sample_count.find(model); counts != rules.accuracy_sample_count.end()) {
    auto c = counts->second.find(scenario);
    if (c == counts->second.end()) c = counts->second.find("");
    if (c != counts->second.end()) {
      const char* key = accuracy_log.values.count("effective_accuracy_sample_count") ? "effective_accuracy_sample_count"
                                                                                      : "qsl_reported_total_count";
      std::optional<double> n = accuracy_log.number(key);
      add(result.file_checks, "accuracy_sample_count", n && *n == static_cast<double>(c->second),
          n ? nlohmann::json(*n) : nlohmann::json(), c->second,
          fmt::format("{}: the accuracy run covers {} samples ({}); the dataset has {}", file,
                      n ? fmt::format("{:g}", *n) : std::string("no"), key, c->second));
    }
  }
  warn_missing_extra_files(accuracy_dir, rules, model, result);
  result.files_valid = std::all_of(result.file_checks.begin(), result.file_checks.end(),
                                   [](const ValidityCheck& c) { return c.passed; });
  return result;
}

namespace {

// An expression compiled when first asked for, once, by any thread; `error` says why it does
// not compile.
struct LazyRegex {
  std::once_flag once;
  std::optional<std::regex> regex;
  std::string error;

  // The expression `ecmascript()` gives (asked once, at the first call) compiled; throws
  // std::runtime_error naming `python` when it does not compile.
  template <class Text>
  const std::regex& get(const Text& ecmascript, const std::string& python) {
    std::call_once(once, [&] {
      try {
        regex.emplace(ecmascript());
      } catch (const std::regex_error& e) {
        regex.reset();
        error = e.what();
      }
    });
    if (!regex) throw std::runtime_error(fmt::format("the accuracy pattern {} does not compile: {}", python, error));
    return *regex;
  }
};

}  // namespace

struct AccuracyPattern::Compiled {
  LazyRegex whole;
  // The split's R, where there is a split: all first_group runs of such a pattern, compiled
  // on its own (compiling the whole expression too took as long again).
  LazyRegex rest;
};

AccuracyPattern::AccuracyPattern(std::string python_text, std::string ecmascript_text, std::string required_text)
    : python(std::move(python_text)),
      ecmascript(std::move(ecmascript_text)),
      required(std::move(required_text)),
      split(split_leading_any(python)),
      compiled_(std::make_shared<Compiled>()) {}

const std::regex& AccuracyPattern::regex() const {
  return compiled_->whole.get([&] { return ecmascript; }, python);
}

// The split's R, compiled once; throws as regex() when it does not compile.
const std::regex& AccuracyPattern::rest_regex() const {
  return compiled_->rest.get([&] { return python_regex_to_ecmascript(split->rest); }, python);
}

std::optional<std::string> AccuracyPattern::first_group(const std::string& line) const {
  if (!required.empty() && line.find(required) == std::string::npos) return std::nullopt;
  std::smatch m;
  if (split) {
    const std::regex& rest = rest_regex();
    // R where its text occurs, rightmost first: the first place it matches is the one the
    // whole pattern's `.*` stops at. That `.*` (ECMAScript's `.`) crosses no '\r' or '\n'.
    const std::string& prefix = split->prefix;
    const std::size_t limit = std::min(line.find_first_of("\r\n"), line.size());
    for (std::size_t at = line.rfind(prefix, limit);; at = line.rfind(prefix, at - 1)) {
      if (at == std::string::npos) return std::nullopt;
      if (std::regex_search(line.cbegin() + static_cast<std::ptrdiff_t>(at), line.cend(), m, rest,
                            std::regex_constants::match_continuous)) {
        if (m.size() > 1 && m[1].matched) return m[1].str();
        return std::nullopt;
      }
      if (at == 0) return std::nullopt;
    }
  }
  if (std::regex_search(line, m, regex(), std::regex_constants::match_continuous) && m.size() > 1 && m[1].matched) {
    return m[1].str();
  }
  return std::nullopt;
}

std::optional<LeadingAnySplit> split_leading_any(const std::string& p) {
  // `.*` first, not lazy or possessive, and no flags or lookarounds anywhere.
  if (p.size() < 3 || p.compare(0, 2, ".*") != 0 || p[2] == '?' || p[2] == '+' || p[2] == '*' || p[2] == '{') {
    return std::nullopt;
  }
  for (std::size_t at = p.find("(?"); at != std::string::npos; at = p.find("(?", at + 2)) {
    if (p.compare(at, 3, "(?:") != 0) return std::nullopt;
  }
  const std::string rest = p.substr(2);
  // Walk R: no top-level '|', no '^', no \b, \B or back reference; note where a trailing
  // top-level `.*` starts.
  int depth = 0;
  std::size_t tail = std::string::npos;  // where a top-level unescaped ".*" ending R starts
  for (std::size_t i = 0; i < rest.size(); ++i) {
    const char c = rest[i];
    if (c == '\\') {
      if (i + 1 >= rest.size()) return std::nullopt;
      const char e = rest[++i];
      if (e == 'b' || e == 'B' || (e >= '0' && e <= '9')) return std::nullopt;
      continue;
    }
    if (c == '[') {  // a class, to its closing bracket
      ++i;
      if (i < rest.size() && rest[i] == '^') ++i;
      if (i < rest.size() && rest[i] == ']') ++i;
      while (i < rest.size() && rest[i] != ']') i += rest[i] == '\\' ? 2 : 1;
      if (i >= rest.size()) return std::nullopt;
      continue;
    }
    if (c == '^') return std::nullopt;
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == '|' && depth == 0) return std::nullopt;
    if (c == '.' && depth == 0 && i + 2 == rest.size() && rest[i + 1] == '*') tail = i;
  }
  LeadingAnySplit out;
  out.rest = tail == std::string::npos ? rest : rest.substr(0, tail);
  // The plain characters R starts with (an escaped punctuation mark is one); a character a
  // quantifier follows is not certain.
  std::string prefix;
  for (std::size_t i = 0; i < out.rest.size(); ++i) {
    char c = out.rest[i];
    std::size_t next = i + 1;
    if (c == '\\') {
      if (i + 1 >= out.rest.size() || std::isalnum(static_cast<unsigned char>(out.rest[i + 1]))) break;
      c = out.rest[i + 1];
      next = i + 2;
    } else if (std::string_view(".^$*+?{}[]()|").find(c) != std::string_view::npos) {
      break;
    }
    if (next < out.rest.size() && std::string_view("*+?{").find(out.rest[next]) != std::string_view::npos) break;
    prefix.push_back(c);
    i = next - 1;
  }
  if (prefix.empty()) return std::nullopt;
  out.prefix = std::move(prefix);
  return out;
}

std::string required_literal(const std::string& p) {
  // Flags can make a letter match others ((?i)); a top-level | makes no text required.
  for (std::size_t at = p.find("(?"); at != std::string::npos; at = p.find("(?", at + 2)) {
    if (p.compare(at, 3, "(?:") != 0) return {};
  }
  std::string best, run;
  int depth = 0;
  auto end_run = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    char literal = 0;
    switch (c) {
      case '\\':
        if (i + 1 >= p.size()) return {};
        ++i;
        if (std::isalnum(static_cast<unsigned char>(p[i]))) {
          end_run();  // \d, \s, \w, \b, a back reference: not one plain character
        } else {
          literal = p[i];
        }
        break;
      case '[':  // a class: skipped to its closing bracket
        end_run();
        ++i;
        if (i < p.size() && p[i] == '^') ++i;
        if (i < p.size() && p[i] == ']') ++i;
        while (i < p.size() && p[i] != ']') i += p[i] == '\\' ? 2 : 1;
        if (i >= p.size()) return {};
        break;
      case '(':
        ++depth;
        end_run();
        break;
      case ')':
        --depth;
        end_run();
        break;
      case '|':
        if (depth == 0) return {};
        end_run();
        break;
      case '*':
      case '+':
      case '?':
      case '{':
        // A quantifier (or a literal brace, taken as one: the text is only shorter): the atom
        // before it is not one required character.
        if (!run.empty()) run.pop_back();
        end_run();
        if (c == '{') {
          std::size_t j = i + 1;
          while (j < p.size() && (std::isdigit(static_cast<unsigned char>(p[j])) || p[j] == ',')) ++j;
          if (j < p.size() && p[j] == '}') i = j;
        }
        break;
      case '.':
      case '^':
      case '$':
        end_run();
        break;
      default:
        literal = c;
    }
    if (literal == 0) continue;
    if (depth > 0) {
      end_run();  // inside a group: perhaps one branch of several
    } else {
      run.push_back(literal);
    }
  }
  end_run();
  return best;
}

fs::path submitter_of_scenario(const fs::path& scenario_dir) {
  // <division>/<org>/results/<system>/<model>/<scenario>
  return path_ancestor(scenario_dir, 4);
}

std::map<std::string, std::string> read_model_mapping(const fs::path& org_dir) {
  std::map<std::string, std::string> mapping;
  std::ifstream in = open_input_file(org_dir / "model_mapping.json");
  if (!in) return mapping;
  try {
    nlohmann::json doc = nlohmann::json::parse(in);
    if (!doc.is_object()) return mapping;
    for (const auto& [folder, model] : doc.items()) {
      if (model.is_string()) mapping.emplace(folder, model.get<std::string>());
    }
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception&) {
    mapping.clear();
  }
  return mapping;
}

std::string mapped_model(const fs::path& scenario_dir, const std::string& model) {
  const std::map<std::string, std::string> mapping = read_model_mapping(submitter_of_scenario(scenario_dir));
  auto it = mapping.find(model);
  return it == mapping.end() ? model : it->second;
}

}  // namespace mlperf::inference
