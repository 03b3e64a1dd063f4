#include "mlperf/inference/result.h"
#include "mlperf/mllog/line_reader.h"

#include <new>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include <boost/algorithm/string/case_conv.hpp>
#include <fmt/format.h>

namespace mlperf::inference {

namespace fs = std::filesystem;
using boost::algorithm::to_lower_copy;  // ASCII lower case (the C locale), as Python's str.lower() of ASCII

namespace {

constexpr double kNsPerMs = 1e6;

template <class T>
std::map<std::string, T> object_of(const nlohmann::json& j, const char* name) {
  std::map<std::string, T> out;
  if (j.contains(name)) {
    for (auto it = j.at(name).begin(); it != j.at(name).end(); ++it) out.emplace(it.key(), it.value().get<T>());
  }
  return out;
}

RoundRules round_rules(const nlohmann::json& j) {
  RoundRules r;
  r.result_keys = object_of<std::string>(j, "result_keys");
  r.model_result_keys = object_of<std::map<std::string, std::string>>(j, "model_result_keys");
  r.units = object_of<std::string>(j, "units");
  r.model_units = object_of<std::map<std::string, std::string>>(j, "model_units");
  for (const auto& s : j.value("early_stopping_scenarios", nlohmann::json::array())) {
    r.early_stopping_scenarios.insert(s.get<std::string>());
  }
  r.early_stopping_fails = j.value("early_stopping_fails", true);
  r.result_validity_fails = j.value("result_validity_fails", true);
  r.loadgen_errors_fail = j.value("loadgen_errors_fail", true);
  const std::string limits_by = j.value("llm_latency_limits_by", std::string("scenario_folder"));
  if (limits_by != "scenario_folder" && limits_by != "loadgen_scenario") {
    throw std::runtime_error("unknown llm_latency_limits_by " + limits_by);
  }
  r.llm_limits_by_loadgen_scenario = limits_by == "loadgen_scenario";
  const std::string inferred_column = j.value("inferred_column", std::string("inferred_figure"));
  if (inferred_column != "inferred_figure" && inferred_column != "scenario_text") {
    throw std::runtime_error("unknown inferred_column " + inferred_column);
  }
  r.inferred_column_compares_scenario_text = inferred_column == "scenario_text";
  r.min_duration_ms = j.value("min_duration_ms", 0.0);
  r.min_query_count = object_of<double>(j, "min_query_count");
  r.offline_min_samples_per_query = object_of<double>(j, "offline_min_samples_per_query");
  r.server_target_latency_ns = object_of<double>(j, "server_target_latency_ns");
  r.model_result_scale = object_of<std::map<std::string, double>>(j, "model_result_scale");
  for (const auto& [key, seeds] : {std::pair{"seeds", &r.seeds}, std::pair{"test05_seeds", &r.test05_seeds}}) {
    if (!j.contains(key)) continue;
    for (auto it = j[key].begin(); it != j[key].end(); ++it) (*seeds)[it.key()] = it.value().get<std::uint64_t>();
  }
  r.performance_sample_count = object_of<double>(j, "performance_sample_count");
  for (const auto& m : j.value("equal_issue_models", nlohmann::json::array())) r.equal_issue_models.insert(m.get<std::string>());
  for (const auto& d : j.value("equal_issue_divisions", nlohmann::json::array())) {
    r.equal_issue_divisions.insert(d.get<std::string>());
  }
  for (const auto& m : j.value("token_latency_models", nlohmann::json::array())) {
    r.token_latency_models.insert(m.get<std::string>());
  }
  if (j.contains("llm_latency_limits")) {
    for (auto m = j["llm_latency_limits"].begin(); m != j["llm_latency_limits"].end(); ++m) {
      for (auto s = m.value().begin(); s != m.value().end(); ++s) {
        r.llm_latency_limits[m.key()][s.key()] = {s.value().at("ttft_ns").get<double>(),
                                                  s.value().at("tpot_ns").get<double>()};
      }
    }
  }
  if (j.contains("endpoints")) r.endpoints = EndpointsRules::from_json(j.at("endpoints"));
  return r;
}

// A logged number as JSON: integers (counts, nanoseconds) as integers, the rest as doubles.
nlohmann::json number_json(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15) return static_cast<long long>(v);
  return v;
}

nlohmann::json value_or_null(const std::optional<double>& v) { return v ? number_json(*v) : nlohmann::json(); }

}  // namespace

KeySet InferenceRules::keys_read() const {
  KeySet keys = {
      "effective_scenario", "result_validity", "num_errors", "loadgen_version", "effective_min_duration_ms",
      "effective_min_query_count", "effective_samples_per_query", "early_stopping_met", "early_stopping_result",
      "effective_target_latency_ns", "requested_use_token_latencies",
      "result_first_token_99.00_percentile_latency_ns", "result_time_per_output_token_99.00_percentile_ns",
      "result_99.00_percentile_latency_ns", "result_99.00_percentile_per_query_latency_ns",
      "result_mean_latency_ns", "result_mean_query_latency_ns", "result_qps_without_loadgen_overhead",
      "early_stopping_latency_ms", "early_stopping_latency_ss", "effective_qsl_rng_seed",
      "effective_sample_index_rng_seed", "effective_schedule_rng_seed", "effective_performance_sample_count",
      "effective_sample_concatenate_permutation", "sut_name", "effective_test_mode"};
  for (const auto& [round, r] : rounds) {
    for (const auto& [s, k] : r.result_keys) keys.insert(k);
    for (const auto& [m, per] : r.model_result_keys) {
      for (const auto& [s, k] : per) keys.insert(k);
    }
  }
  return keys;
}

std::string InferenceRules::model_of(const std::string& folder) const {
  for (const auto& [name, r] : rounds) {
    if (r.model_result_keys.count(folder) || r.offline_min_samples_per_query.count(folder)) return folder;
  }
  for (const auto& [prefix, model] : model_aliases) {
    if (folder.rfind(prefix, 0) == 0) return model;
  }
  return folder;
}

bool InferenceRules::knows_model(const std::string& folder) const {
  for (const auto& [name, r] : rounds) {
    if (r.model_result_keys.count(folder) || r.offline_min_samples_per_query.count(folder)) return true;
  }
  return std::any_of(model_aliases.begin(), model_aliases.end(),
                     [&](const auto& alias) { return folder.rfind(alias.first, 0) == 0; });
}

InferenceRules InferenceRules::load(const fs::path& file) {
  std::ifstream in = open_input_file(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read inference rules", file.string()));
  try {
    nlohmann::json doc = nlohmann::json::parse(in);
    InferenceRules rules;
    for (auto it = doc.at("rounds").begin(); it != doc.at("rounds").end(); ++it) {
      rules.rounds.emplace(it.key(), round_rules(it.value()));
    }
    rules.newest_round = doc.at("newest_round").get<std::string>();
    rules.scenario_names = object_of<std::string>(doc, "scenario_names");
    rules.interactive_runs_as = doc.value("interactive_runs_as", "Server");
    for (const auto& s : doc.value("latency_scale_ns_to_ms", nlohmann::json::array())) {
      rules.latency_scenarios_ns_to_ms.insert(s.get<std::string>());
    }
    for (const auto& a : doc.value("model_aliases", nlohmann::json::array())) {
      rules.model_aliases.emplace_back(a.at("prefix").get<std::string>(), a.at("model").get<std::string>());
    }
    rules.summary_labels = object_of<std::string>(doc, "summary_labels");
    if (!rules.rounds.count(rules.newest_round)) throw std::runtime_error("newest_round is not one of rounds");
    return rules;
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: malformed inference rules: {}", file.string(), e.what()));
  }
}

void SubmissionChecks::append_shared(Part part) {
  if (!own_.empty()) throw std::logic_error("SubmissionChecks: a shared part after the folder's own checks");
  if (!part || part->empty()) return;
  shared_size_ += part->size();
  parts_.push_back(std::move(part));
}

const ValidityCheck& SubmissionChecks::operator[](std::size_t k) const {
  for (const Part& part : parts_) {
    if (k < part->size()) return (*part)[k];
    k -= part->size();
  }
  return own_.at(k);
}

std::optional<std::string> round_from_loadgen_version(const std::string& version) {
  std::size_t dot = version.find('.');
  if (dot == std::string::npos || dot == 0) return std::nullopt;
  for (std::size_t k = 0; k < dot; ++k) {
    if (!std::isdigit(static_cast<unsigned char>(version[k]))) return std::nullopt;
  }
  std::size_t end = dot + 1;
  while (end < version.size() && std::isdigit(static_cast<unsigned char>(version[end]))) ++end;
  if (end == dot + 1) return std::nullopt;
  return "v" + version.substr(0, end);
}

namespace {

// The round a path component names (inference_results_vX.Y, inference_vX.Y), if any.
std::optional<std::string> round_from_component(std::string_view s) {
  std::optional<std::string> found;
  for (std::string_view prefix : {"inference_results_v", "inference_v"}) {
    if (!s.starts_with(prefix)) continue;
    if (auto r = round_from_loadgen_version(std::string(s.substr(prefix.size())))) found = r;
  }
  return found;
}

}  // namespace

std::optional<std::string> round_from_path(const fs::path& path) {
  std::optional<std::string> found;
  for (const auto& part : fs::absolute(path).lexically_normal()) {
    if (auto r = round_from_component(part.native())) found = r;
  }
  return found;
}

std::optional<std::string> round_from_absolute_path(std::string_view absolute) {
  std::optional<std::string> found;
  while (!absolute.empty()) {
    const std::size_t slash = absolute.find('/');
    if (auto r = round_from_component(absolute.substr(0, slash))) found = r;
    if (slash == std::string_view::npos) break;
    absolute.remove_prefix(slash + 1);
  }
  return found;
}

namespace {

// Appends one validity check with its value and limit; the message is kept only when it failed.
void add_check(InferenceResult& r, std::string name, bool passed, nlohmann::json value, nlohmann::json limit,
               std::uint64_t line, std::string message) {
  r.checks.push_back({std::move(name), passed, std::move(value), std::move(limit), line,
                      passed ? std::string() : std::move(message)});
}

// A rule as the round's checker applies it: a check where a failure fails the run (`fails`),
// else a failure is only a warning naming the log's line, with `why` (the checker logs it, or
// does not test it).
void add_check_or_warning(InferenceResult& r, const LoadgenLog& log, bool fails, const char* why, std::string name,
                          bool passed, nlohmann::json value, nlohmann::json limit, std::uint64_t line,
                          std::string message) {
  if (!passed && !fails) {
    r.warnings.push_back(fmt::format("{}:{}: {} ({})", log.file.string(), line, message, why));
  } else {
    add_check(r, std::move(name), passed, std::move(value), std::move(limit), line, std::move(message));
  }
}

// Names the run: its round (the newest when the rules lack it), model folder and the model whose
// rules apply, the table's scenario, and the scenario loadgen ran (an Interactive folder runs as
// interactive_runs_as when the log does not say).
void identify_run(InferenceResult& r, const LoadgenLog& log, const InferenceRules& rules, const std::string& round,
                  const std::string& model_folder, const std::string& scenario_folder) {
  r.round = rules.rounds.count(round) ? round : rules.newest_round;
  r.model = model_folder;
  r.rules_model = rules.model_of(model_folder);
  auto named = rules.scenario_names.find(to_lower_copy(scenario_folder));
  r.scenario = named != rules.scenario_names.end() ? named->second : scenario_folder;
  r.log_file = log.file.string();
  r.from_summary = log.from_summary;
  r.loadgen_version = log.text("loadgen_version").value_or("");
  std::string loadgen_scenario = log.text("effective_scenario").value_or("");
  if (loadgen_scenario.empty()) {
    loadgen_scenario = r.scenario == "Interactive" ? rules.interactive_runs_as : r.scenario;
  }
  r.loadgen_scenario = loadgen_scenario;
}

// The headline figure (get_performance_metric) of a run in `scenario`: `scenario_keys`'s key for
// `key_of` (loadgen's RESULT_FIELD_NEW by scenario; an endpoints run's RESULT_FIELD_ENDPOINTS by
// lower-case scenario), the model's own key of the scenario where it has one (else of
// `model_key_fallback`, where given), then ns → ms and the model's own scale.
std::optional<double> headline_figure(InferenceResult& r, const LoadgenLog& log, const InferenceRules& rules,
                                      const RoundRules& rr, const std::string& model, const std::string& scenario,
                                      const std::map<std::string, std::string>& scenario_keys,
                                      const std::string& key_of, const std::string& model_key_fallback = "") {
  if (auto key_it = scenario_keys.find(key_of); key_it != scenario_keys.end()) r.metric = key_it->second;
  if (auto m = rr.model_result_keys.find(model); m != rr.model_result_keys.end()) {
    auto k = m->second.find(scenario);
    if (k == m->second.end() && !model_key_fallback.empty()) k = m->second.find(model_key_fallback);
    if (k != m->second.end()) r.metric = k->second;
  }
  std::optional<double> figure = r.metric.empty() ? std::nullopt : log.number(r.metric);
  if (figure && rules.latency_scenarios_ns_to_ms.count(scenario)) *figure /= kNsPerMs;
  if (auto m = rr.model_result_scale.find(model); figure && m != rr.model_result_scale.end()) {
    if (auto f = m->second.find(scenario); f != m->second.end()) *figure *= f->second;
  }
  return figure;
}

// Results inferred from another scenario's run (get_inferred_result): replaces the figure and
// its key; false when the inferred result cannot stand.
bool infer_from_other_scenario(InferenceResult& r, std::optional<double>& figure, const LoadgenLog& log,
                               const InferenceRules& rules, const RoundRules& rr,
                               const std::string& loadgen_scenario) {
  bool inferred_valid = true;
  if (r.scenario != loadgen_scenario && !(r.scenario == "Interactive" && loadgen_scenario == rules.interactive_runs_as)) {
    const bool early_stopping = rr.early_stopping_scenarios.count(loadgen_scenario) > 0;
    std::optional<double> spq = log.number("effective_samples_per_query");
    if (r.scenario == "Offline" && loadgen_scenario == "SingleStream") {
      r.inferred = true;
      r.metric = "result_qps_without_loadgen_overhead";
      figure = log.number(r.metric);
    } else if (r.scenario == "Offline" && loadgen_scenario == "MultiStream") {
      r.inferred = true;
      r.metric = "result_mean_query_latency_ns";
      std::optional<double> mean = log.number(r.metric);
      figure = spq && mean ? std::optional<double>(*spq * 1000.0 / (*mean / kNsPerMs)) : std::nullopt;
    } else if (r.scenario == "MultiStream" && loadgen_scenario == "SingleStream") {
      r.inferred = true;  // 8 samples per query, whatever the SingleStream log says
      r.metric = early_stopping ? "early_stopping_latency_ms" : "result_99.00_percentile_latency_ns";
      std::optional<double> latency = log.number(r.metric);
      figure = latency ? std::optional<double>(*latency * 8 / kNsPerMs) : std::nullopt;
      if (early_stopping && latency && *latency == 0) {
        inferred_valid = false;
        add_check(r, "inferred_result", false, 0, "> 0", log.line(r.metric),
                  "not enough samples were processed for early stopping to make an estimate");
      }
    } else if (r.scenario == "Interactive") {
      inferred_valid = false;
      add_check(r, "inferred_result", false, loadgen_scenario, rules.interactive_runs_as,
                log.line("effective_scenario"), "an Interactive result can only come from a Server run");
    }
  }
  return inferred_valid;
}

// The figure as the table shows it (Performance_Result, Performance_Units, the model's own
// units where it has them), and the check that the log holds it.
void record_figure(InferenceResult& r, const std::optional<double>& figure, const LoadgenLog& log,
                   const InferenceRules& rules, const RoundRules& rr, const std::string& model,
                   const std::string& loadgen_scenario) {
  r.performance_result = figure;
  r.lower_is_better = rules.latency_scenarios_ns_to_ms.count(r.scenario) > 0;
  r.units = rr.units.count(r.scenario) ? rr.units.at(r.scenario) : "";
  if (auto m = rr.model_units.find(model); m != rr.model_units.end()) {
    if (auto u = m->second.find(r.scenario); u != m->second.end()) r.units = u->second;
  }
  add_check(r, "performance_result", figure.has_value(), value_or_null(figure),
            r.metric.empty() ? nlohmann::json() : nlohmann::json(r.metric), log.line(r.metric),
            r.metric.empty() ? fmt::format("no result key for scenario {} in round {}", loadgen_scenario, r.round)
                             : fmt::format("{} is not in the log", r.metric));
}

// result_validity: loadgen's own verdict must be VALID (a warning in a round whose checker
// never requires it).
void add_result_validity_check(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr) {
  std::optional<std::string> validity = log.text("result_validity");
  const std::string message = validity ? fmt::format("loadgen says the result is {}", *validity)
                                       : std::string("result_validity is not in the log");
  add_check_or_warning(r, log, rr.result_validity_fails, "the round's checker does not require VALID",
                       "result_validity", validity == "VALID",
                       validity ? nlohmann::json(*validity) : nlohmann::json(), "VALID", log.line("result_validity"),
                       message);
}

// loadgen_errors: a detail log must show no loadgen errors (num_errors, else the error events;
// a warning in a round whose checker does not fail a run for them).
void add_loadgen_errors_check(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr) {
  if (!log.from_summary) {
    std::optional<double> errors = log.number("num_errors");
    double count = errors ? *errors : static_cast<double>(log.error_events);
    std::string message = log.endpoints ? fmt::format("{} failed samples (n_samples_failed)", count)
                                        : fmt::format("{} loadgen errors", count);
    if (!log.errors.empty()) message += fmt::format(" (line {}: {})", log.errors.front().line, log.errors.front().message);
    add_check_or_warning(r, log, rr.loadgen_errors_fail, "the round's checker does not fail a run for them",
                         "loadgen_errors", count == 0, number_json(count), 0, errors ? log.line("num_errors") : 0,
                         message);
  }
}

// min_duration: effective_min_duration_ms at least the round's TEST_DURATION_MS.
void add_min_duration_check(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr) {
  std::optional<double> duration = log.number("effective_min_duration_ms");
  add_check(r, "min_duration", duration && *duration >= rr.min_duration_ms, value_or_null(duration),
            number_json(rr.min_duration_ms), log.line("effective_min_duration_ms"),
            "test duration (effective_min_duration_ms) below the minimum");
}

// min_query_count: a scenario without early stopping must run the round's minimum of queries.
void add_min_query_count_check(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr,
                               const std::string& loadgen_scenario) {
  if (auto min = rr.min_query_count.find(loadgen_scenario); min != rr.min_query_count.end()) {
    std::optional<double> count = log.number("effective_min_query_count");
    add_check(r, "min_query_count", count && *count >= min->second, value_or_null(count), number_json(min->second),
              log.line("effective_min_query_count"), "effective_min_query_count below the minimum");
  }
}

// offline_samples_per_query: a closed Offline run must issue the model's minimum of samples per query.
void add_offline_samples_per_query_check(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr,
                                         const std::string& model, const std::string& loadgen_scenario,
                                         const std::string& division) {
  if (loadgen_scenario == "Offline" && to_lower_copy(division) == "closed") {
    if (auto min = rr.offline_min_samples_per_query.find(model); min != rr.offline_min_samples_per_query.end()) {
      std::optional<double> spq = log.number("effective_samples_per_query");
      add_check(r, "offline_samples_per_query", spq && *spq >= min->second, value_or_null(spq),
                number_json(min->second), log.line("effective_samples_per_query"),
                "Offline samples per query below the minimum");
    }
  }
}

// early_stopping and server_target_latency_ns: an early-stopping scenario must meet its
// condition, and a Server run must target no more than the model's latency constraint.
void add_early_stopping_checks(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr,
                               const std::string& model, const std::string& loadgen_scenario) {
  std::optional<bool> met = log.boolean("early_stopping_met");
  const std::string message = "early stopping condition not met" +
                              (log.text("early_stopping_result") ? ": " + *log.text("early_stopping_result") : std::string());
  // check_performance_dir up to v5.1.1 logs a condition not met and goes on; a log without
  // the key fails in every round.
  add_check_or_warning(r, log, rr.early_stopping_fails || !met, "the round's checker logs this without failing the run",
                       "early_stopping", met == true, met ? nlohmann::json(*met) : nlohmann::json(), true,
                       log.line("early_stopping_met"), message);
  if (auto target = rr.server_target_latency_ns.find(model);
      target != rr.server_target_latency_ns.end() && loadgen_scenario == "Server") {
    std::optional<double> latency = log.number("effective_target_latency_ns");
    // LLM summaries print TTFT/TPOT targets instead; the detail log has this key (0).
    if (latency || !log.from_summary) {
      add_check(r, "server_target_latency_ns", latency && *latency <= target->second, value_or_null(latency),
                number_json(target->second), log.line("effective_target_latency_ns"),
                "Server target latency above the model's constraint");
    }
  }
}

// Validity (check_performance_dir), each condition with its value and limit.
void add_validity_checks(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr, const std::string& model,
                         const std::string& loadgen_scenario, const std::string& division) {
  add_result_validity_check(r, log, rr);
  add_loadgen_errors_check(r, log, rr);
  add_min_duration_check(r, log, rr);
  const bool early_stopping = rr.early_stopping_scenarios.count(loadgen_scenario) > 0;
  if (!early_stopping) add_min_query_count_check(r, log, rr, loadgen_scenario);
  add_offline_samples_per_query_check(r, log, rr, model, loadgen_scenario, division);
  if (early_stopping) add_early_stopping_checks(r, log, rr, model, loadgen_scenario);
}

// Seeds: each effective_<name> RNG seed must be the round's official one, logged as a plain
// integer; a log whose path names TEST05 is held to the round's TEST05 seeds where it has them
// (check_performance_dir: `config.seeds if "TEST05" not in fname else config.test05_seeds`).
void add_seed_checks(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr) {
  const bool test05 = !rr.test05_seeds.empty() && log.file.native().find("TEST05") != std::string::npos;
  for (const auto& [name, official] : test05 ? rr.test05_seeds : rr.seeds) {
    const std::string key = "effective_" + name;
    std::optional<std::string> text = log.text(key);
    std::uint64_t seed = 0;
    bool parsed = text && std::from_chars(text->data(), text->data() + text->size(), seed).ec == std::errc{} &&
                  std::to_string(seed) == *text;
    add_check(r, name, parsed && seed == official,
              parsed ? nlohmann::json(seed) : text ? nlohmann::json(*text) : nlohmann::json(), official, log.line(key),
              fmt::format("{} is not the round's {}seed", name, test05 ? "TEST05 " : ""));
  }
}

// performance_sample_count: at least the model's minimum.
void add_performance_sample_count_check(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr,
                                        const std::string& model) {
  if (auto min = rr.performance_sample_count.find(model); min != rr.performance_sample_count.end()) {
    std::optional<double> count = log.number("effective_performance_sample_count");
    add_check(r, "performance_sample_count", count && *count >= min->second, value_or_null(count),
              number_json(min->second), log.line("effective_performance_sample_count"),
              "performance_sample_count below the model's minimum");
  }
}

// equal_issue_mode: a detail log of an equal-issue model (in an equal-issue division) must use
// sample_concatenate_permutation.
void add_equal_issue_check(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr, const std::string& model,
                           const std::string& division) {
  if (!log.from_summary && rr.equal_issue_models.count(model) &&
      (rr.equal_issue_divisions.empty() || rr.equal_issue_divisions.count(to_lower_copy(division)))) {
    std::optional<bool> used = log.boolean("effective_sample_concatenate_permutation");
    add_check(r, "equal_issue_mode", used == true, used ? nlohmann::json(*used) : nlohmann::json(), true,
              log.line("effective_sample_concatenate_permutation"),
              "the model requires equal-issue mode (sample_concatenate_permutation)");
  }
}

// token_latencies: a detail log of an LLM must have requested token latencies.
void add_token_latencies_check(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr,
                               const std::string& model) {
  if (!log.from_summary && rr.token_latency_models.count(model)) {
    std::optional<bool> used = log.boolean("requested_use_token_latencies");
    add_check(r, "token_latencies", used == true, used ? nlohmann::json(*used) : nlohmann::json(), true,
              log.line("requested_use_token_latencies"), "an LLM run must log token latencies (use_token_latencies)");
  }
}

// ttft/tpot_99_percentile_ns: an LLM's 99th-percentile TTFT and TPOT must be below the
// limits of its scenario (the folder's, or loadgen's where the round's checker says so).
void add_llm_latency_checks(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr, const std::string& model,
                            const std::string& loadgen_scenario) {
  if (auto m = rr.llm_latency_limits.find(model); m != rr.llm_latency_limits.end()) {
    const std::string& scenario = rr.llm_limits_by_loadgen_scenario ? loadgen_scenario : r.scenario;
    if (auto limits = m->second.find(scenario); limits != m->second.end()) {
      const char* ttft_key = "result_first_token_99.00_percentile_latency_ns";
      const char* tpot_key = "result_time_per_output_token_99.00_percentile_ns";
      std::optional<double> ttft = log.number(ttft_key), tpot = log.number(tpot_key);
      add_check(r, "ttft_99_percentile_ns", ttft && *ttft < limits->second.ttft_ns, value_or_null(ttft),
                number_json(limits->second.ttft_ns), log.line(ttft_key), "TTFT 99th percentile not below the limit");
      add_check(r, "tpot_99_percentile_ns", tpot && *tpot < limits->second.tpot_ns, value_or_null(tpot),
                number_json(limits->second.tpot_ns), log.line(tpot_key), "TPOT 99th percentile not below the limit");
    }
  }
}

// The run's settings the checker holds to the round's (check_performance_dir): RNG seeds,
// performance sample count, equal-issue mode, token latencies.
void add_settings_checks(InferenceResult& r, const LoadgenLog& log, const RoundRules& rr, const std::string& model,
                         const std::string& loadgen_scenario, const std::string& division) {
  add_seed_checks(r, log, rr);
  add_performance_sample_count_check(r, log, rr, model);
  add_equal_issue_check(r, log, rr, model, division);
  add_token_latencies_check(r, log, rr, model);
  add_llm_latency_checks(r, log, rr, model, loadgen_scenario);
}

// An MLPerf endpoints run (endpoints_log.h) as PerformanceCheck judges it with is_endpoints:
// the scenario map_endpoints_scenario makes of the folder's and config.yaml's, the headline key
// RESULT_FIELD_ENDPOINTS (the model's own where RESULT_FIELD_BENCHMARK_OVERWRITE has one), and
// the checks without performance_sample_count_check and min_query_count_check: no early
// stopping, no qsl_rng_seed, token latencies taken as logged, a model that is not an LLM held to
// its 99th-percentile latency constraint, the model among ENDPOINTS_ALLOWED_MODELS.
void score_endpoints_run(InferenceResult& r, const LoadgenLog& log, const InferenceRules& rules, const RoundRules& rr,
                         const EndpointsRules& er, const std::string& division) {
  const std::string& model = r.rules_model;
  const std::optional<std::string> effective = log.text("effective_scenario");
  const std::string fixed = to_lower_copy(r.scenario);
  // map_endpoints_scenario (self.scenario in the checks), then SCENARIO_MAPPING for the figure.
  std::string scenario;
  if (fixed == "singlestream") {
    scenario = "SingleStream";
  } else if (fixed == "interactive" || (effective && to_lower_copy(*effective) == "interactive")) {
    scenario = "Interactive";
  } else if (effective && to_lower_copy(*effective) == "online") {
    scenario = "Server";
  } else if (effective) {
    scenario = *effective;
  } else {
    add_check(r, "effective_scenario", false, nullptr, nlohmann::json::array({"online", "offline"}), 0,
              fmt::format("{}: the run's type (config.yaml type) is missing: the checker stops on it (AttributeError)",
                          log.file.string()));
    return;
  }
  auto named = rules.scenario_names.find(scenario);
  const std::string canonical = named != rules.scenario_names.end() ? named->second : scenario;
  r.loadgen_scenario = canonical;

  std::optional<double> figure =
      headline_figure(r, log, rules, rr, model, canonical, er.result_keys, to_lower_copy(canonical),
                      canonical == "Interactive" ? er.interactive_model_keys_of : std::string());
  bool inferred_valid = true;
  if (to_lower_copy(scenario) != fixed && !(to_lower_copy(scenario) == "server" && fixed == "interactive")) {
    inferred_valid = infer_from_other_scenario(r, figure, log, rules, rr, canonical);
    if (r.scenario != canonical && !r.inferred && inferred_valid) {
      inferred_valid = false;
      add_check(r, "inferred_result", false, canonical, r.scenario, 0,
                fmt::format("a {} result cannot be inferred from a {} run", r.scenario, canonical));
    }
  }
  record_figure(r, figure, log, rules, rr, model, canonical);

  // The checks compare the values with numbers: text there raises a TypeError, which fails the
  // check; `compared` holds only the values that are numbers (JSON numbers and booleans).
  LoadgenLog compared = log;
  for (auto it = compared.values.begin(); it != compared.values.end();) {
    const char c = it->second.json.empty() ? '"' : it->second.json.front();
    it = (c == '"' || c == '{' || c == '[' || c == 'n') ? compared.values.erase(it) : std::next(it);
  }
  add_loadgen_errors_check(r, log, rr);
  add_equal_issue_check(r, log, rr, model, division);
  // seeds_check without qsl_rng_seed, which an endpoints run does not have; compared as Python
  // compares the values (an integer, not text holding one).
  for (const auto& [name, official] : rr.seeds) {
    if (name == "qsl_rng_seed") continue;
    const std::string key = "effective_" + name;
    auto it = log.values.find(key);
    nlohmann::json value = it == log.values.end() ? nlohmann::json() : nlohmann::json::parse(it->second.json, nullptr, false);
    const bool same = (value.is_number_unsigned() || value.is_number_integer()) && !value.is_number_float() &&
                      (value.is_number_unsigned() ? value.get<std::uint64_t>() == official
                                                  : value.get<std::int64_t>() >= 0 &&
                                                        static_cast<std::uint64_t>(value.get<std::int64_t>()) == official);
    add_check(r, name, same, value.is_discarded() ? nlohmann::json() : value, official, 0,
              fmt::format("{} is not the round's seed", name));
  }
  // latency_check: an LLM's latency is judged by its TTFT/TPOT below; another model's 99th
  // percentile by the constraint of the folder's scenario.
  if (!rr.token_latency_models.count(model)) {
    if (auto m = er.latency_constraints_ns.find(model); m != er.latency_constraints_ns.end()) {
      if (auto target = m->second.find(r.scenario); target != m->second.end() && target->second) {
        const char* key = "result_99.00_percentile_latency_ns";
        std::optional<double> latency = compared.number(key);
        add_check(r, "latency_99_percentile_ns", latency && *latency <= target->second, value_or_null(latency),
                  number_json(target->second), 0,
                  latency ? "99th-percentile latency above the model's constraint"
                          : "the 99th-percentile latency is missing or not a number (the check fails on a TypeError)");
      }
    }
  }
  add_min_duration_check(r, compared, rr);
  // llm_check: token latencies are taken as logged; Server and Interactive need the model's limits.
  if (rr.token_latency_models.count(model) && (scenario == "Server" || scenario == "Interactive")) {
    auto m = rr.llm_latency_limits.find(model);
    if (m == rr.llm_latency_limits.end() || !m->second.count(scenario)) {
      add_check(r, "ttft_99_percentile_ns", false, nullptr, nullptr, 0,
                fmt::format("TTFT/TPOT latency limits missing for model {} scenario {}", model, scenario));
    } else {
      add_llm_latency_checks(r, compared, rr, model, scenario);
    }
  }
  if (!model.empty()) add_check(r, "endpoints_model", er.allowed_models.count(model) > 0, model,
            nlohmann::json(std::vector<std::string>(er.allowed_models.begin(), er.allowed_models.end())), 0,
            fmt::format("model {} may not be submitted as an endpoints run", model));
  r.valid = inferred_valid;
  for (const auto& c : r.checks) r.valid = r.valid && c.passed;
}

// A loadgen run's figure and checks (check_performance_dir / PerformanceCheck).
void score_loadgen_figure(InferenceResult& r, const LoadgenLog& log, const InferenceRules& rules,
                          const RoundRules& rr, const std::string& division) {
  const std::string loadgen_scenario = r.loadgen_scenario;
  const std::string& model = r.rules_model;

  std::optional<double> figure =
      headline_figure(r, log, rules, rr, model, loadgen_scenario, rr.result_keys, loadgen_scenario);
  const bool inferred_valid = infer_from_other_scenario(r, figure, log, rules, rr, loadgen_scenario);
  record_figure(r, figure, log, rules, rr, model, loadgen_scenario);
  add_validity_checks(r, log, rr, model, loadgen_scenario, division);
  add_settings_checks(r, log, rr, model, loadgen_scenario, division);
  r.valid = inferred_valid;
  for (const auto& c : r.checks) r.valid = r.valid && c.passed;
}

}  // namespace

InferenceResult score_loadgen_run(const LoadgenLog& log, const InferenceRules& rules, const std::string& round,
                                  const std::string& model_folder, const std::string& scenario_folder,
                                  const std::string& division) {
  InferenceResult r;
  identify_run(r, log, rules, round, model_folder, scenario_folder);
  const RoundRules& rr = rules.rounds.at(r.round);
  if (log.endpoints && rr.endpoints) {
    score_endpoints_run(r, log, rules, rr, *rr.endpoints, division);
  } else {
    score_loadgen_figure(r, log, rules, rr, division);
  }
  r.inferred_in_table = r.inferred;
  if (rr.inferred_column_compares_scenario_text) {
    // results.py: row["Scenario"] (the folder's name) != effective_scenario, ("server",
    // "interactive") excepted; a folder not named after a scenario stands for r.scenario.
    const std::string folder =
        rules.scenario_names.count(to_lower_copy(scenario_folder)) ? scenario_folder : r.scenario;
    const std::optional<std::string> effective = log.text("effective_scenario");
    r.inferred_in_table = folder != effective && !(effective == "server" && folder == "interactive");
  }
  return r;
}

}  // namespace mlperf::inference
