// Reading accuracy/accuracy.txt as the submission checker's check_accuracy_dir does.

#include "mlperf/inference/accuracy.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
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

// Python's float() of the captured text; nullopt where it would raise.
std::optional<double> python_float(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

std::string number_text(double v) { return fmt::format("{}", v); }

}  // namespace

AccuracyRules AccuracyRules::load(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the accuracy rules", file.string()));
  AccuracyRules rules;
  try {
    nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& [round, r] : doc.at("rounds").items()) {
      RoundAccuracyRules rr;
      rr.accuracy_column = r.value("accuracy_column", "metrics");
      rr.max_accuracy_log_size = r.value("max_accuracy_log_size", std::uint64_t{10240});
      for (const auto& [metric, pattern] : r.at("patterns").items()) {
        std::string python = pattern.get<std::string>();
        try {
          rr.patterns.emplace(metric, std::make_pair(python, std::regex(python_regex_to_ecmascript(python))));
        } catch (const std::regex_error& e) {
          throw std::runtime_error(fmt::format("round {}: the pattern of {} does not compile: {}", round, metric, e.what()));
        }
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
  std::ifstream in(file, std::ios::binary);
  if (!in) {
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
  auto regex_of = [&](const std::string& metric) -> const std::regex* {
    auto p = rules.patterns.find(metric);
    return p == rules.patterns.end() ? nullptr : &p->second.second;
  };

  static const std::regex kHash(R"(hash=([\w\d]+))");
  std::vector<bool> seen(targets->size(), false);
  std::vector<std::uint64_t> failed_line(targets->size(), 0), limit_line(limits.size(), 0);
  std::vector<std::string> failed_text(targets->size()), limit_text(limits.size());
  std::map<std::string, std::uint64_t> value_line;
  bool all_met = true, unreadable = false;
  std::uint64_t hash_line = 0;
  std::string line;
  std::uint64_t number = 0;
  auto capture = [](const std::regex* re, const std::string& text) -> std::optional<std::string> {
    std::smatch m;
    if (re && std::regex_search(text, m, *re, std::regex_constants::match_continuous) && m.size() > 1 && m[1].matched) {
      return m[1].str();
    }
    return std::nullopt;
  };
  while (std::getline(in, line)) {
    ++number;
    // Python reads lines with their newline; `.` and `$` treat it as the end of the line.
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
    std::smatch hm;
    if (std::regex_match(line, hm, kHash)) {
      out.hash = hm[1].str();
      hash_line = number;
    }
    for (std::size_t i = 0; i < targets->size(); ++i) {
      const AccuracyBound& t = (*targets)[i];
      std::optional<std::string> acc = capture(regex_of(t.metric), line);
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
      std::optional<std::string> acc = capture(regex_of(limits[i].metric), line);
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
  if (in.bad()) {
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
        if (!c.passed) out.warnings.push_back(fmt::format("open division, accepted: {}", c.message));
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

std::string mapped_model(const fs::path& scenario_dir, const std::string& model) {
  // <division>/<org>/results/<system>/<model>/<scenario>
  fs::path org = scenario_dir.parent_path().parent_path().parent_path().parent_path();
  std::ifstream in(org / "model_mapping.json");
  if (!in) return model;
  try {
    nlohmann::json doc = nlohmann::json::parse(in);
    if (doc.is_object() && doc.contains(model) && doc[model].is_string()) return doc[model].get<std::string>();
  } catch (const std::exception&) {
  }
  return model;
}

}  // namespace mlperf::inference
