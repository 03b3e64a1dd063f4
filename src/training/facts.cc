#include "mlperf/training/facts.h"
#include "mlperf/mllog/line_reader.h"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace mlperf {

bool Bounds::contains(double v) const {
  if (min && (min_inclusive ? v < *min : v <= *min)) return false;
  if (max && (max_inclusive ? v > *max : v >= *max)) return false;
  return true;
}

const QualityTarget* BenchmarkFacts::quality_target(const Ruleset& ruleset) const {
  for (const auto& t : quality_targets) {
    // Same usage only: versions order before usages (training 3.0.0 lies between hpc 1.0.0
    // and hpc 3.0.0).
    if (t.first.usage == ruleset.usage && t.first <= ruleset && ruleset <= t.last) return &t;
  }
  return nullptr;
}

const std::string& BenchmarkFacts::step_field(const Ruleset& ruleset) const {
  auto it = step_field_by_ruleset.find(ruleset.str());
  return it != step_field_by_ruleset.end() ? it->second : step_field_default;
}

const BenchmarkFacts* Facts::find(const std::string& name) const {
  auto it = benchmarks.find(name);
  return it == benchmarks.end() ? nullptr : &it->second;
}

Ruleset Facts::newest_ruleset() const { return newest_ruleset(Usage::kTraining); }

Ruleset Facts::newest_ruleset(Usage usage) const {
  for (auto it = rounds.rbegin(); it != rounds.rend(); ++it) {
    if (it->first.usage == usage) return it->first;
  }
  throw std::runtime_error(fmt::format("benchmark facts list no {} rounds", to_string(usage)));
}

namespace {

Ruleset ruleset_in_facts(const nlohmann::json& j, const std::string& where) {
  auto r = Ruleset::parse(j.get<std::string>());
  if (!r) throw std::runtime_error(fmt::format("{}: bad ruleset {}", where, j.dump()));
  return *r;
}

Bounds bounds_of(const nlohmann::json& j) {
  Bounds b;
  if (j.contains("min")) b.min = j.at("min").get<double>();
  if (j.contains("max")) b.max = j.at("max").get<double>();
  b.min_inclusive = j.value("min_inclusive", true);
  b.max_inclusive = j.value("max_inclusive", true);
  return b;
}

BenchmarkFacts benchmark_of(const std::string& name, const nlohmann::json& j,
                            const std::string& where) {
  BenchmarkFacts f;
  f.name = name;
  f.usage = j.value("usage", "training");
  f.required_runs = j.at("required_runs").get<int>();
  f.olympic_drop = j.value("olympic_drop", 1);
  std::string unit = j.at("convergence_unit").get<std::string>();
  if (unit == "samples_count") {
    f.convergence_unit = ConvergenceUnit::kSamplesCount;
  } else if (unit == "epoch_num") {
    f.convergence_unit = ConvergenceUnit::kEpochNum;
  } else if (unit == "metric_step") {
    f.convergence_unit = ConvergenceUnit::kMetricStep;
  } else {
    throw std::runtime_error(fmt::format("{}: {}: unknown convergence_unit \"{}\"", where, name, unit));
  }
  if (j.contains("step_field")) {
    const auto& s = j.at("step_field");
    f.step_field_default = s.value("default", "samples_count");
    if (s.contains("by_ruleset")) {
      for (const auto& [r, field] : s.at("by_ruleset").items()) {
        auto parsed = Ruleset::parse(r);
        if (!parsed) throw std::runtime_error(fmt::format("{}: {}: bad ruleset {}", where, name, r));
        f.step_field_by_ruleset[parsed->str()] = field.get<std::string>();
      }
    }
  }
  if (j.contains("convergence_metrics")) {
    for (const auto& [metric, b] : j.at("convergence_metrics").items()) {
      f.convergence_metrics[metric] = bounds_of(b);
    }
  }
  f.rcp_samples_key = j.value("rcp_samples_key", "Epochs to converge");
  f.official_rcp_check = j.value("official_rcp_check", true);
  for (const auto& t : j.value("quality_targets", nlohmann::json::array())) {
    QualityTarget q;
    const auto& span = t.at("rulesets");
    // An HPC benchmark's targets name HPC rulesets (hpc 1.0.0 … 3.0.0).
    const Usage usage = parse_usage(f.usage).value_or(Usage::kTraining);
    q.first = ruleset_in_facts(span.at(0), where).with_usage(usage);
    q.last = ruleset_in_facts(span.at(1), where).with_usage(usage);
    for (const auto& [metric, b] : t.at("metrics").items()) q.metrics[metric] = bounds_of(b);
    f.quality_targets.push_back(std::move(q));
  }
  if (f.required_runs <= 0 || f.olympic_drop < 0) {
    throw std::runtime_error(fmt::format("{}: {}: required_runs must be > 0", where, name));
  }
  return f;
}

}  // namespace

Facts Facts::load(const std::filesystem::path& file) {
  std::ifstream in = open_input_file(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open benchmark facts", file.string()));
  Facts facts;
  try {
    nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& [name, j] : doc.at("benchmarks").items()) {
      facts.benchmarks.emplace(name, benchmark_of(name, j, file.string()));
    }
    for (const auto& [r, list] : doc.at("rounds").items()) {
      auto parsed = Ruleset::parse(r);
      if (!parsed) throw std::runtime_error(fmt::format("{}: bad ruleset \"{}\"", file.string(), r));
      facts.rounds[*parsed] = list.get<std::vector<std::string>>();
    }
    // MLPerf HPC rounds (mlperf_logging benchmark_meta.py, usage "hpc"), versioned apart.
    const nlohmann::json hpc_rounds = doc.value("hpc_rounds", nlohmann::json::object());
    for (const auto& [r, list] : hpc_rounds.items()) {
      auto parsed = Ruleset::parse(r);
      if (!parsed) throw std::runtime_error(fmt::format("{}: bad HPC ruleset \"{}\"", file.string(), r));
      facts.rounds[parsed->with_usage(Usage::kHpc)] = list.get<std::vector<std::string>>();
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", file.string(), e.what()));
  }
  return facts;
}

}  // namespace mlperf
