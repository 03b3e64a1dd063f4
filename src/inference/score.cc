#include "mlperf/inference/score.h"
#include "mlperf/mllog/line_reader.h"

#include "mlperf/inference/accuracy.h"
#include "mlperf/inference/compliance_tests.h"
#include "mlperf/inference/endpoints_log.h"
#include "mlperf/inference/folder_files.h"
#include "mlperf/inference/power.h"

#include <new>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <ostream>
#include <set>

#include <boost/algorithm/string/case_conv.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "mlperf/mllog/path_text.h"
#include "mlperf/mllog/folder_listing.h"

namespace mlperf {

// Declared in score.h; lives here so the training code never needs the inference data.
const inference::InferenceData& DataContext::inference() const {
  std::lock_guard lock(mutex_);
  if (!inference_) {
    inference_ = std::make_shared<const inference::InferenceData>(inference::load_inference_data(root_));
  }
  return *inference_;
}

namespace inference {

namespace fs = std::filesystem;
using boost::algorithm::to_lower_copy;  // ASCII lower case (the C locale), as Python's str.lower() of ASCII

namespace {

// <division> of <division>/<org>/results/<system>/<model>/<scenario>, read from the scenario
// folder's absolute, normal path; "" outside that layout.
std::string division_of(std::string_view scenario_dir) {
  const std::string_view results = path_parent(path_parent(path_parent(scenario_dir)));
  if (path_name(results) != "results") return "";
  return std::string(path_name(path_parent(path_parent(results))));
}

// The network-mode rule of the submission checker (is_system_over_network and the SUT name
// check of check_performance_dir): the system description's "is_network", read as a string
// ("true" in any case means a system over the network), must be true in the network division
// and false in the closed one; a network system's SUT name must hold "Network SUT". A field
// that is no string makes the official check raise: the run is invalid then.
void add_network_mode_check(InferenceResult& r, const SystemDescription& system, const LoadgenLog& log,
                            const std::string& division, const std::string& file) {
  bool network = false;
  bool readable = true;
  if (!system.is_network_json.empty() && system.is_network_json != "null") {
    auto value = nlohmann::json::parse(system.is_network_json, nullptr, false);
    if (value.is_string()) {
      network = to_lower_copy(value.get<std::string>()) == "true";
    } else {
      readable = false;
    }
  }
  const std::string d = to_lower_copy(division);
  auto add = [&](std::string name, bool passed, nlohmann::json value, nlohmann::json limit, std::uint64_t line,
                 std::string message) {
    r.checks.push_back({std::move(name), passed, std::move(value), std::move(limit), line,
                        passed ? std::string() : std::move(message)});
    r.valid = r.valid && passed;
  };
  if (!readable) {
    add("network_mode", false, nlohmann::json::parse(system.is_network_json, nullptr, false), "a string", 0,
        fmt::format("{}: is_network is not a string (the official check stops on it)", file));
    return;
  }
  if (d == "closed" || d == "network") {
    const bool wanted = d == "network";
    add("network_mode", network == wanted, network, wanted, 0,
        fmt::format("{}: a {} division system must {}be over the network (is_network)", file, d, wanted ? "" : "not "));
  }
  if (network && !log.from_summary) {
    std::string sut = log.text("sut_name").value_or("");
    add("network_sut_name", sut.find("Network SUT") != std::string::npos, sut, "contains \"Network SUT\"",
        log.line("sut_name"), "a network system's SUT name must contain \"Network SUT\"");
  }
}

}  // namespace

const PublishedFigure* InferenceData::find(const std::string& round, const std::string& model,
                                           const std::string& scenario, const std::string& system,
                                           const std::string& platform, const std::string& division) const {
  const PublishedFigure* by_platform = nullptr;
  for (const auto& e : expected) {
    if (e.round != round || e.model != model || e.scenario != scenario) continue;
    if (!e.division.empty() && !division.empty() && e.division != division) continue;
    if (!system.empty() && e.system == system) return &e;
    if (!by_platform && !platform.empty() && e.platform == platform) by_platform = &e;
  }
  return by_platform;
}

const SystemDescription& InferenceData::system_of(const fs::path& system_description) const {
  const std::string& key = system_description.native();
  {
    std::lock_guard lock(cache_->mutex);
    if (auto it = cache_->systems.find(key); it != cache_->systems.end()) return it->second;
  }
  // Read outside the lock (holding it measured slower); a file that cannot be read is not
  // kept, and its error comes again on each call.
  SystemDescription d = read_system_description(system_description);
  std::lock_guard lock(cache_->mutex);
  return cache_->systems.emplace(key, std::move(d)).first->second;
}

const InferenceData::SubmissionTree& InferenceData::tree_of(PathRef submitter_dir, const std::string& round,
                                                            const FolderListings* listed) const {
  const std::string key = round + "\n" + submitter_dir.text();
  std::shared_ptr<TreeSlot> slot;
  {
    std::lock_guard lock(cache_->mutex);
    std::shared_ptr<TreeSlot>& kept = cache_->trees[key];
    if (!kept) kept = std::make_shared<TreeSlot>();
    slot = kept;
  }
  // One thread walks the tree while the others asking for it wait: the scenario folders of a
  // submitter come together, and walking it on every thread at once listed each of its folders
  // once per thread. A walk that throws leaves it unwalked (the next call tries again).
  std::lock_guard walking(slot->walking);
  if (!slot->walked) {
    SubmissionTree tree;
    auto checks = std::make_shared<std::vector<ValidityCheck>>(
        judge_submission_tree(submitter_dir.path(), submission, round, &tree.drops_rows, &tree.listings, listed));
    for (std::size_t k = 0; k < checks->size(); ++k) {
      if ((*checks)[k].passed) continue;
      tree.any_failed = true;
      if (tree.drops_rows[k]) tree.drops_a_row = true;
    }
    tree.checks = std::move(checks);
    slot->tree = std::move(tree);
    slot->walked = true;
  }
  return slot->tree;
}

const std::vector<ValidityCheck>& InferenceData::system_checks_of(PathRef system_json,
                                                                  const std::string& round,
                                                                  const std::string& division) const {
  return system_judgment_of(system_json, round, division).checks;
}

const InferenceData::SystemJudgment& InferenceData::system_judgment_of(PathRef system_json,
                                                                       const std::string& round,
                                                                       const std::string& division) const {
  const std::string key = round + "\n" + division + "\n" + system_json.text();
  {
    std::lock_guard lock(cache_->mutex);
    if (auto it = cache_->system_checks.find(key); it != cache_->system_checks.end()) return it->second;
  }
  // Judged outside the lock, as system_of reads; a judgment that throws is not kept.
  SystemJudgment judged;
  judged.checks = judge_system_description(system_json.path(), submission, round, division);
  auto shared = std::make_shared<std::vector<ValidityCheck>>();
  for (const auto& c : judged.checks) {
    if (c.name == "network_mode") continue;  // judged with the run (add_network_mode_check)
    if (c.name == "system_description") judged.description_read = c.passed;
    if (c.name == "system_type" && c.value.is_string()) judged.system_type = c.value.get<std::string>();
    if (!c.passed) judged.any_failed = true;
    shared->push_back(c);
  }
  judged.shared = std::move(shared);
  std::lock_guard lock(cache_->mutex);
  return cache_->system_checks.emplace(key, std::move(judged)).first->second;
}

const NameplatePower& InferenceData::nameplate_of(const std::string& file) const {
  {
    std::lock_guard lock(cache_->mutex);
    if (auto it = cache_->nameplates.find(file); it != cache_->nameplates.end()) return it->second;
  }
  NameplatePower read = read_nameplate_power(file);
  std::lock_guard lock(cache_->mutex);
  return cache_->nameplates.emplace(file, std::move(read)).first->second;
}

std::string InferenceData::mapped_model_of(PathRef scenario_dir, const std::string& model) const {
  // <division>/<org>/results/<system>/<model>/<scenario>: submitter_of_scenario, as text.
  const std::string org = path_ancestor_text(scenario_dir.text(), 4);
  const std::map<std::string, std::string>* mapping = nullptr;
  {
    std::lock_guard lock(cache_->mutex);
    if (auto it = cache_->model_mappings.find(org); it != cache_->model_mappings.end()) mapping = &it->second;
  }
  if (!mapping) {
    std::map<std::string, std::string> read = read_model_mapping(org);
    std::lock_guard lock(cache_->mutex);
    mapping = &cache_->model_mappings.emplace(org, std::move(read)).first->second;
  }
  auto it = mapping->find(model);
  return it == mapping->end() ? model : it->second;
}

const std::set<std::string>& InferenceData::scenario_folders_of(PathRef model_dir) const {
  {
    std::lock_guard lock(cache_->mutex);
    if (auto it = cache_->scenario_folders.find(model_dir.text()); it != cache_->scenario_folders.end()) {
      return it->second;
    }
  }
  std::set<std::string> folders = folders_in(model_dir);
  std::lock_guard lock(cache_->mutex);
  return cache_->scenario_folders.emplace(model_dir.text(), std::move(folders)).first->second;
}

std::string InferenceData::accelerator_of(const fs::path& system_description) const {
  return system_of(system_description).accelerator_model_name;
}

InferenceData load_inference_data(const fs::path& root) {
  InferenceData data;
  data.rules = InferenceRules::load(root / "configs" / "inference_rules.json");
  data.accuracy = AccuracyRules::load(root / "configs" / "inference_accuracy.json");
  data.compliance = ComplianceRules::load(root / "configs" / "inference_compliance.json");
  data.submission = SubmissionRules::load(root / "configs" / "inference_submission.json");
  data.keys_read = data.rules.keys_read();
  fs::path file = root / "configs" / "expected_results.json";
  std::ifstream in = open_input_file(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open expected results", file.string()));
  try {
    nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& e : doc.value("inference", nlohmann::json::array())) {
      data.expected.push_back({e.at("round").get<std::string>(), e.at("model").get<std::string>(),
                               e.at("scenario").get<std::string>(), e.value("system", ""),
                               e.value("platform", ""), e.value("division", ""), e.at("published").get<double>(),
                               e.value("units", ""), e.value("source", "")});
    }
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: malformed \"inference\" figures: {}", file.string(), e.what()));
  }
  return data;
}

namespace {

// The run's log: the detail log, else the summary; its parse errors become the folder's errors.
LoadgenLog read_run_log(const LoadgenRun& run, const InferenceData& inf, DirectoryResult& out) {
  std::optional<LoadgenLog> detail = read_detail_log_if_present(run.run_dir / kDetailLogName, inf.keys_read);
  LoadgenLog log =
      detail ? std::move(*detail) : read_summary_log(run.run_dir / kSummaryLogName, inf.rules.summary_labels);
  for (const auto& e : log.parse_errors) out.errors.push_back(fmt::format("{}:{}: {}", e.file, e.line, e.message));
  return log;
}

// A run of one's own: its logs lie in a folder of their own (bare), or its scenario folder is
// not <org>/results/<system>/<model>/<scenario>. Only the run is judged there, not how a
// submission packs it: the accuracy run and compliance tests where they are beside it; not
// the run and accuracy folders' file lists, the truncated accuracy log or the submission rules.
bool outside_submission_layout(const BenchmarkDir& dir) { return dir.loadgen->bare || dir.submitter.empty(); }

// Where a run stands: its model folder and system.
struct RunPlace {
  std::string model;   ///< the model folder's name ("" when no folder names one)
  std::string system;  ///< the system folder's name
};

// The model folder and system: the layout's, or for a run outside the submission layout the
// nearest folder a round knows and the folder above it (else the folder above the run).
RunPlace place_of_run(const BenchmarkDir& dir, const InferenceRules& rules) {
  if (!outside_submission_layout(dir)) return {dir.benchmark_name, dir.system};
  // Outside the layout the folder names may still name the model (…/llama2-70b-99/Offline/).
  for (fs::path p = fs::absolute(dir.path).lexically_normal(); p.has_relative_path(); p = p.parent_path()) {
    std::string name = p.filename().string();
    if (rules.knows_model(name)) return {std::move(name), p.parent_path().filename().string()};
  }
  return {"", dir.system};
}

// The scenario: the scenario folder's name in the submission layout; outside it, that name
// where it names a scenario (…/Offline/), else the scenario loadgen logged.
std::string scenario_of_run(const BenchmarkDir& dir, const InferenceRules& rules, const LoadgenLog& log) {
  const LoadgenRun& run = *dir.loadgen;
  if (!run.scenario.empty() &&
      (!outside_submission_layout(dir) || rules.scenario_names.count(to_lower_copy(run.scenario)))) {
    return run.scenario;
  }
  return log.text("effective_scenario").value_or(run.scenario);
}

// A run of one's own whose path names no model (place_of_run found none) is read with its
// scenario's own key and no model's rules: the warning says so, and names a figure the log
// holds under a key some model of the round reads instead (result_tokens_per_second for an
// LLM's Offline run).
void warn_model_unknown(DirectoryResult& out, const InferenceResult& result, const BenchmarkDir& dir,
                        const InferenceRules& rules, const LoadgenLog& log) {
  if (!outside_submission_layout(dir) || !result.model.empty()) return;
  std::set<std::string> model_keys;
  if (auto rr = rules.rounds.find(result.round); rr != rules.rounds.end()) {
    for (const auto& [model, keys] : rr->second.model_result_keys) {
      if (auto k = keys.find(result.loadgen_scenario); k != keys.end() && k->second != result.metric) {
        model_keys.insert(k->second);
      }
    }
  }
  std::string also;
  for (const auto& key : model_keys) {
    if (auto v = log.number(key)) {
      also = fmt::format("; the log also holds {} = {} (line {})", key, figure_text(*v), log.line(key));
      break;
    }
  }
  out.warnings.push_back(fmt::format(
      "{}: no folder of its path names a model the rules know, so the figure is the {} scenario's own key ({}) and "
      "no model's accuracy target or compliance test applies{}; put the run in a folder named after its model "
      "(…/<model>/<scenario>/, e.g. llama2-70b-99/Offline)",
      dir.loadgen->scenario_dir.string(), result.scenario, result.metric.empty() ? "none" : result.metric, also));
}

// The round whose rules apply and where it came from.
struct RunRound {
  std::string round;
  std::string source;
};

// The round: the one the path names, else the loadgen_version's when the rules know it (`log`:
// nullptr for a folder without one), else the newest shipped.
RunRound round_of_run(const BenchmarkDir& dir, const InferenceRules& rules, const LoadgenLog* log) {
  RunRound out{rules.newest_round, "newest shipped"};
  if (auto r = dir.absolute_path.empty() ? round_from_path(dir.path) : round_from_absolute_path(dir.absolute_path)) {
    out.round = *r;
    out.source = "path";
  } else if (auto v = round_from_loadgen_version(log ? log->text("loadgen_version").value_or("") : std::string());
             v && rules.rounds.count(*v)) {
    out.round = *v;
    out.source = "loadgen_version";
  }
  return out;
}

// The round as the directory's ruleset (v4.1 → 4.1.0), so reports that print a ruleset show it.
void set_ruleset(DirectoryResult& out, const RunRound& round) {
  if (auto version = Ruleset::parse(std::string_view(round.round).substr(1))) out.ruleset = *version;
  out.ruleset_source = round.source;
}

// Platform: the system description's accelerator (and its network-mode rule), else the system
// folder name (outside the submission layout only where it names a known platform: there it
// is any folder's name); with --probe, this node's GPUs where neither names one. An
// unreadable system description is a warning.
void tag_system(DirectoryResult& out, InferenceResult& result, const BenchmarkDir& dir, const InferenceData& inf,
                const DataContext& data, const LoadgenLog& log, const ScoreOptions& options) {
  if (dir.system_description) {
    try {
      const SystemDescription& system = inf.system_of(*dir.system_description);
      out.accelerator_model_name = system.accelerator_model_name;
      add_network_mode_check(result, system, log, out.division, dir.system_description->string());
    } catch (const std::bad_alloc&) {
      throw;  // out of memory is never a finding: main.cc says so, exit 2
    } catch (const std::exception& e) {
      out.warnings.push_back(e.what());
    }
  }
  std::vector<std::string> named;
  if (!outside_submission_layout(dir) || data.platforms().match(dir.system)) named.push_back(dir.system);
  out.platform = tag_platform(data.platforms(), out.accelerator_model_name, named);
  apply_probed_platform(out, options,
                        out.platform.source == "log" ? "the system name says" : "the system description says");
}

// The published figure for the round, model, scenario and system (else platform), and the
// measured figure against it within the tolerance; a warning when their units differ.
void compare_with_published(DirectoryResult& out, InferenceResult& result, const BenchmarkDir& dir,
                            const InferenceData& inf, const ScoreOptions& options) {
  if (result.performance_result) {
    if (const PublishedFigure* p = inf.find(result.round, result.model, result.scenario, dir.system,
                                            out.platform.name, out.division)) {
      InferenceExpected e;
      e.round = p->round;
      e.model = p->model;
      e.scenario = p->scenario;
      e.system = p->system;
      e.platform = p->platform;
      e.units = p->units;
      e.source = p->source;
      e.published = p->published;
      e.measured = *result.performance_result;
      e.delta_percent = (e.measured - e.published) / e.published * 100.0;
      e.tolerance_percent = options.tolerance_percent;
      e.within_tolerance = std::fabs(e.delta_percent) <= options.tolerance_percent;
      e.lower_is_better = result.lower_is_better;
      if (!p->units.empty() && p->units != result.units) {
        out.warnings.push_back(fmt::format("published figure is in {}, the result in {}", p->units, result.units));
      }
      result.expected = e;
    }
  }
}

// The model whose accuracy rules apply: in the open division the one the checker judges the
// accuracy of (get_mlperf_model: the submitter's model_mapping.json, the round's mapping, then
// its guesses from the folder name, "bert-99" in "obert-base-pruned90-none-bert-99").
std::string accuracy_model_of(const DirectoryResult& out, const InferenceResult& result, const LoadgenRun& run,
                              const InferenceData& inf) {
  if (out.division != "open") return result.rules_model;
  std::string mapped = inf.mapped_model_of(run.scenario_dir, result.model);
  if (auto sr = inf.submission.rounds.find(result.round); sr != inf.submission.rounds.end()) {
    mapped = sr->second.mlperf_model(mapped);
  }
  return inf.rules.model_of(mapped);
}

// The accuracy run beside the performance run (<scenario>/accuracy/), judged for the mlperf
// model the folder stands for (open division: model_mapping.json). A run outside the
// submission layout without an accuracy folder is not judged (a warning says so).
void judge_accuracy_run(DirectoryResult& out, InferenceResult& result, const LoadgenRun& run, bool own_run,
                        const InferenceData& inf) {
  const fs::path accuracy_dir = run.scenario_dir / "accuracy";
  if (own_run && !listed_is_directory(accuracy_dir)) {
    out.warnings.push_back(fmt::format("{}: no accuracy folder; the accuracy run is not judged", run.scenario_dir.string()));
    return;
  }
  auto rr = inf.accuracy.rounds.find(result.round);
  if (rr == inf.accuracy.rounds.end()) {
    out.warnings.push_back(fmt::format("no accuracy rules for round {}; the accuracy run is not judged", result.round));
    return;
  }
  const std::string model = accuracy_model_of(out, result, run, inf);
  auto accuracy = std::make_shared<AccuracyResult>(
      judge_accuracy(accuracy_dir, rr->second, model, result.scenario, out.division.empty() ? "closed" : out.division));
  if (!accuracy->file.empty()) {
    judge_accuracy_files(accuracy_dir, rr->second, model, result.scenario, *accuracy, !own_run);
    if (out.division == "open" && !accuracy->metrics.empty() && rr->second.open_accepts_accuracy_files) {
      // "accuracy not valid but taken for open": only a file list mismatch drops an open row
      // (up to v5.1; v6.x's package forgives the open division accuracy.txt's values alone).
      for (auto& c : accuracy->file_checks) {
        if (c.passed || c.name == "accuracy_files") continue;
        accuracy->warnings.push_back(accepted_in_open(c.message));
        c.passed = true;
      }
      accuracy->files_valid = std::all_of(accuracy->file_checks.begin(), accuracy->file_checks.end(),
                                          [](const ValidityCheck& c) { return c.passed; });
    }
  }
  for (const auto& w : accuracy->warnings) out.warnings.push_back(w);
  result.valid = result.valid && accuracy->valid && accuracy->files_valid;
  result.accuracy = std::move(accuracy);
}

// What the checker asks of the run folder itself in the submission layout: exactly
// mlperf_log_summary.txt and mlperf_log_detail.txt in performance/run_1, and spl.txt too in a
// power submission (REQUIRED_PERF_POWER_FILES; mlperf_log_accuracy.json, mlperf_log_trace.json,
// results.json, .gitkeep allowed; files_diff), and a log whose MLLOG lines all parse (the
// checker's strict parser raises on one that does not, and the run is invalid). The script
// checkers (v4.1–v5.1, check_results_dir) ask for that file list in every scenario folder, the
// package (v6.x, PowerCheck.required_files_check) in power folders only
// (RoundSubmissionRules::run_files_only_with_power).
void judge_run_folder(InferenceResult& result, const LoadgenRun& run, bool own_run, bool power, const LoadgenLog& log,
                      const InferenceData& inf) {
  auto add = [&](ValidityCheck c) {
    result.valid = result.valid && c.passed;
    result.checks.push_back(std::move(c));
  };
  auto sr = inf.submission.rounds.find(result.round);
  const bool files_checked = power || sr == inf.submission.rounds.end() || !sr->second.run_files_only_with_power;
  if (!own_run && files_checked) {
    std::vector<std::string> required{std::string(kSummaryLogName), std::string(kDetailLogName)};
    if (power) required.emplace_back(kPowerSamplesName);
    add(files_check("performance_files", run.run_dir.string(), required, {"mlperf_log_accuracy.json"}));
  } else if (!own_run) {
    // The package compares no file list here, but its loader reads every run from the detail
    // log and the checker stops (a TypeError) without it: a run read from its summary fails.
    const std::string detail = path_join(run.run_dir.native(), kDetailLogName);
    const bool present = listed_is_regular_file(detail);
    add({"performance_files", present,
         {{"missing", present ? nlohmann::json::array() : nlohmann::json::array({kDetailLogName})},
          {"extra", nlohmann::json::array()}},
         nlohmann::json::array({kDetailLogName}), 0,
         present ? std::string()
                 : fmt::format("{} is missing (the checker's loader reads the run from it and stops without it)", detail),
         run.run_dir.string()});
  }
  if (!log.parse_errors.empty()) {
    const auto& e = log.parse_errors.front();
    add({"mllog_lines", false, log.parse_errors.size(), 0, e.line,
         fmt::format("{} MLLOG line{} do not parse (the checker's parser stops on them); the first: {}",
                     log.parse_errors.size(), log.parse_errors.size() == 1 ? "" : "s", e.message),
         log.file.string()});
  }
}

// A power submission's measurement (power.h): the ranging run, the power folder, the samples
// of run_1's spl.txt and the power figure. The Power WG's power_checker.py, which the checker
// also runs, is not: a warning says so.
void judge_power_run(DirectoryResult& out, InferenceResult& result, const LoadgenRun& run, bool own_run,
                     const LoadgenLog& log, const InferenceData& inf) {
  // The script checkers (v4.1–v5.1) read the ranging run's figure; v6.x's PowerCheck does not.
  auto sr = inf.submission.rounds.find(result.round);
  const bool script = sr == inf.submission.rounds.end() || sr->second.exceptions_stop_checker;
  auto power = std::make_shared<PowerResult>(judge_power(run.scenario_dir, log, result.performance_result, inf.rules,
                                                         inf.keys_read, result.round, result.model, result.scenario,
                                                         out.division.empty() ? "closed" : out.division, !own_run,
                                                         script));
  out.warnings.push_back(fmt::format(
      "{}: the Power WG's power_checker.py (PTD logs, client and server sessions, source checksums) is not run; "
      "the power folder's files, the ranging run and the samples in the run's power window are judged",
      power->power_dir));
  result.valid = result.valid && power->valid;
  result.power = std::move(power);
}

// The compliance tests the round's checker asks of the folder's model (closed and network
// divisions). Outside the submission layout they are judged only where the run folder holds
// TEST0x folders; otherwise a warning names the tests not judged.
void judge_compliance_run(DirectoryResult& out, InferenceResult& result, const LoadgenRun& run, bool own_run,
                          const InferenceData& inf) {
  const std::string division = out.division.empty() ? "closed" : out.division;
  if (division == "open") return;
  auto cr = inf.compliance.rounds.find(result.round);
  if (cr == inf.compliance.rounds.end()) {
    out.warnings.push_back(fmt::format("no compliance test rules for round {}; the compliance tests are not judged", result.round));
    return;
  }
  auto tests = cr->second.tests.find(result.rules_model);
  if (tests == cr->second.tests.end() || tests->second.empty()) return;
  // The round's rules as they are; a copy only where a bare run keeps its tests beside it.
  const RoundComplianceRules* rules = &cr->second;
  std::optional<RoundComplianceRules> beside_the_run;
  if (own_run) {
    // A run of one's own: its TEST0x folders beside the logs, when there are any.
    bool any = false;
    for (const auto& t : tests->second) any = any || listed_is_directory(run.scenario_dir / t);
    if (!any) {
      out.warnings.push_back(fmt::format("{}: compliance tests {} not judged (no TEST0x folder beside the run)",
                                         run.scenario_dir.string(), fmt::join(tests->second, ", ")));
      return;
    }
    beside_the_run = cr->second;
    beside_the_run->location = "results";
    rules = &*beside_the_run;
  }
  auto ar = inf.accuracy.rounds.find(result.round);
  CompliancePerformanceContext ctx{&inf.rules, &inf.keys_read, result.round, result.model, result.scenario, division};
  auto judged = std::make_shared<std::vector<ComplianceTestResult>>(judge_compliance_tests(
      run.scenario_dir, *rules, result.rules_model, ar == inf.accuracy.rounds.end() ? nullptr : &ar->second, ctx));
  for (const auto& t : *judged) result.valid = result.valid && t.valid;
  result.compliance_tests = std::move(judged);
}

// An absolute, normal path's text without a trailing separator ("/" stays).
std::string_view without_trailing_separator(std::string_view absolute) {
  while (absolute.size() > 1 && absolute.back() == '/') absolute.remove_suffix(1);
  return absolute;
}

// The scenario folder of `run`, absolute and normal (no trailing separator).
fs::path normal_scenario_dir(const LoadgenRun& run) {
  fs::path scenario_dir = fs::absolute(run.scenario_dir).lexically_normal();
  if (scenario_dir.filename().empty()) scenario_dir = scenario_dir.parent_path();
  return scenario_dir;
}

// In the submission layout, the submitter's tree is walked (judge_submission_rules) and its
// listings answer the scenario folder's own checks (run folder, accuracy run, compliance
// tests, measurements): `use` is set to read them, for the submitter folder as the run names
// it and as an absolute normal path. The walk reads what discovery listed of the tree
// (BenchmarkDir::submitter_listings), and keeps only what it listed itself: `use` reads
// both. Nothing when the round has no submission rules.
void use_tree_listings(const BenchmarkDir& dir, const fs::path& scenario_dir, const DirectoryResult& out,
                       const std::string& round, const InferenceData& inf, std::optional<FolderListings::Use>& use) {
  const LoadgenRun& run = *dir.loadgen;
  if (run.bare || out.division.empty() || !inf.submission.rounds.count(round)) return;
  const std::string submitter_dir = path_ancestor_text(scenario_dir.native(), 4);
  const InferenceData::SubmissionTree& tree = inf.tree_of(submitter_dir, round, dir.submitter_listings.get());
  std::vector<fs::path> tops{fs::path(submitter_dir)};
  if (!run.scenario_dir.filename().empty()) tops.push_back(path_ancestor(run.scenario_dir, 4));
  use.emplace(&tree.listings, std::move(tops), dir.submitter_listings.get());
}

// From v6.1 (the round's nameplate_power_file): the loader reads every system's nameplate power
// file, and stops the checker where it does not load as YAML; SystemCheck then takes a power
// submission's design power from it (nameplate.h). `add` adds a check that drops the row.
template <typename Add>
void judge_nameplate(DirectoryResult& out, InferenceResult& result, Add& add, const std::string& submitter_dir,
                     const std::string& system, const std::string& system_json, const RoundSubmissionRules& rules,
                     const InferenceData& inf) {
  const std::optional<std::string> file = rules.nameplate_power_path(submitter_dir, system);
  if (!file) return;
  const NameplatePower& nameplate = inf.nameplate_of(*file);
  if (nameplate.load_error) {
    add({"nameplate_power_file", false, nullptr, "YAML that yaml.safe_load loads", 0,
         fmt::format("{}: {}: the checker's loader reads it for every system, and stops there (it judges nothing)",
                     *file, *nameplate.load_error),
         *file},
        true);
    return;
  }
  if (!result.power) return;
  const SystemDescription& description = inf.system_of(system_json);
  NameplateJudgment judged = judge_nameplate_power(nameplate, description.system_power_capacity_json);
  if (!judged.warning.empty()) out.warnings.push_back(std::move(judged.warning));
  result.design_power_watts = std::move(judged.design_power_watts);
  add(std::move(judged.check), true);
}

// The submission-level rules of the round's checker (submission.h) for a folder in the
// submission layout: the submitter's folder tree (script rounds), the system description <division>/<org>/systems/<system>.json, the
// scenario's measurements, and the scenarios the model must have on the system's type (counted
// among the model folder's scenario folders: where the script counts only scenarios whose
// performance run passed, a folder it would not count has a failing row of its own, so the
// submission's verdict is the same). What a failure does to this folder's row follows the
// round's checker, as submission.h states per rule.
void judge_submission_rules(DirectoryResult& out, InferenceResult& result, const LoadgenRun& run,
                            const fs::path& scenario_dir, const InferenceData& inf) {
  if (run.bare || out.division.empty()) return;
  auto rr = inf.submission.rounds.find(result.round);
  if (rr == inf.submission.rounds.end()) {
    out.warnings.push_back(fmt::format("no submission rules for round {}; the system description, measurements and "
                                       "required scenarios are not judged",
                                       result.round));
    return;
  }
  const RoundSubmissionRules& rules = rr->second;
  const bool package = !rules.exceptions_stop_checker;  // v6.x: each check's failure invalidates the rows
  // The folders above as text: <submitter>/results/<system>/<model>/<scenario>.
  const std::string model_dir = path_ancestor_text(scenario_dir.native(), 1);
  const std::string system_dir = path_ancestor_text(model_dir, 1);
  const std::string submitter_dir = path_ancestor_text(system_dir, 2);
  const std::string system = path_filename(system_dir);
  const std::string model_folder = path_filename(model_dir);
  const std::string scenario_folder = path_filename(scenario_dir.native());

  SubmissionChecks& checks = result.submission_checks;
  auto add = [&](ValidityCheck c, bool drops_row) {
    if (!c.passed && drops_row) result.valid = false;
    if (!c.passed) result.submission_valid = false;
    checks.push_back(std::move(c));
  };

  // The folder tree first, as the checker walks it before any result; then the system
  // description. Both are judged once and shared by the folders they cover.
  const InferenceData::SubmissionTree& tree = inf.tree_of(submitter_dir, result.round);
  checks.append_shared(tree.checks);
  if (tree.drops_a_row) result.valid = false;
  if (tree.any_failed) result.submission_valid = false;

  const std::string system_json = path_join(path_join(submitter_dir, "systems"), system + ".json");
  const InferenceData::SystemJudgment& judged_system = inf.system_judgment_of(system_json, result.round, out.division);
  checks.append_shared(judged_system.shared);
  // Script: the system is skipped; package: its rows are invalid.
  if (judged_system.any_failed) result.valid = result.submission_valid = false;
  const std::string& system_type = judged_system.system_type;
  const bool system_read = judged_system.description_read;
  for (auto& c : judge_measurements(submitter_dir, system, model_folder, scenario_folder, inf.submission, result.round,
                                    result.power != nullptr)) {
    add(std::move(c), true);  // the scenario is skipped (script) or its row invalid (package)
  }
  if (!system_read) return;
  judge_nameplate(out, result, add, submitter_dir, system, system_json, rules, inf);

  const std::set<std::string>& folders = inf.scenario_folders_of(model_dir);
  std::string folder_model = model_folder;
  if (out.division == "open") folder_model = inf.mapped_model_of(scenario_dir, model_folder);
  const std::string mlperf_model = rules.mlperf_model(folder_model);
  auto mapped_scenario = [&](const std::string& s) {
    auto m = rules.scenario_mapping.find(to_lower_copy(s));
    return m == rules.scenario_mapping.end() ? s : m->second;
  };
  const std::string this_scenario = mapped_scenario(scenario_folder);
  for (auto& c : judge_required_scenarios(system_type, mlperf_model, folders, inf.submission, result.round, out.division,
                                          package ? std::optional<std::set<std::string>>(folders) : std::nullopt)) {
    bool drops = true;
    if (!package && (c.name == "required_scenarios" || c.name == "server_or_interactive")) {
      drops = false;  // the rows stay in the table; the submission fails
    } else if (!package && c.name == "scenarios_known" && c.value.is_array()) {
      drops = false;  // only the unknown scenario's own row is dropped
      for (const auto& s : c.value) drops = drops || (s.is_string() && mapped_scenario(s.get<std::string>()) == this_scenario);
    }
    if (c.file.empty()) c.file = model_dir;
    add(std::move(c), drops);
  }
}

// A run loadgen made in another mode than a performance run (an accuracy run given as the
// performance run, a peak search) has no performance result: the checker fails it on the
// missing result keys; the warning says why they are missing. A log without the key (a
// summary log alone) says nothing.
void warn_not_a_performance_run(DirectoryResult& out, const LoadgenLog& log) {
  const std::optional<std::string> mode = log.text("effective_test_mode");
  if (!mode || *mode == "PerformanceOnly" || *mode == "SubmissionRun") return;
  out.warnings.push_back(fmt::format(
      "{}:{}: effective_test_mode is \"{}\", not a performance run: loadgen logs no performance result in "
      "this mode{}",
      log.file.string(), log.line("effective_test_mode"), *mode,
      *mode == "AccuracyOnly" ? " (an accuracy run is judged from accuracy/accuracy.txt beside its scenario's "
                                "performance/run_1: give that scenario folder)"
                              : ""));
}

// A scenario folder of a submission without a loadgen log (LoadgenRun::no_loadgen_log) fails
// its performance_log check: the script checkers (v4.1–v5.1) fail a folder without its logs;
// the package (v6.x) reads such a folder as an MLPerf endpoints submission (config.yaml,
// performance/result_summary.json, accuracy/accuracy_results.json), which this tool does not
// read, so it cannot be scored and is not called valid.
void judge_folder_without_log(DirectoryResult& out, const BenchmarkDir& dir, const fs::path& scenario_dir,
                              const InferenceData& inf) {
  const LoadgenRun& run = *dir.loadgen;
  auto result = std::make_shared<InferenceResult>();
  result->model = dir.benchmark_name;
  result->rules_model = dir.benchmark_name;
  result->scenario = run.scenario;
  result->loadgen_scenario = run.scenario;
  const RunRound round = round_of_run(dir, inf.rules, nullptr);
  result->round = round.round;
  result->round_source = round.source;
  set_ruleset(out, round);
  out.benchmark = result->model + "/" + result->scenario;
  const std::vector<std::string> endpoints_files = endpoints_files_in(scenario_dir);
  const std::string message =
      endpoints_files.empty()
          ? fmt::format("{} holds no loadgen log ({} or {}): the scenario has no performance run, and the checker "
                        "fails it",
                        run.run_dir.string(), kDetailLogName, kSummaryLogName)
          : fmt::format("{} is an MLPerf endpoints submission ({}), which the checker reads in place of loadgen "
                        "logs; round {}'s checker has no result key for one (from v6.1 it has), so the folder is "
                        "not scored",
                        scenario_dir.string(), fmt::join(endpoints_files, ", "), round.round);
  result->checks.push_back({"performance_log", false, nullptr,
                            nlohmann::json::array({kDetailLogName, kSummaryLogName}), 0, message,
                            run.run_dir.string()});
  result->valid = false;
  out.passed = false;
  out.inference = std::move(result);
}

// A scenario folder without loadgen logs that holds an MLPerf endpoints run (config.yaml,
// performance/result_summary.json, accuracy/accuracy_results.json), in a round whose package
// reads such runs (rules.endpoints, v6.1): read as EndpointsParser reads it (endpoints_log.h)
// and judged as the package judges it with is_endpoints: PerformanceCheck
// (score_loadgen_run), AccuracyCheck (judge_endpoints_accuracy), ComplianceCheck's audit files
// (judge_endpoints_audits), and the submission's rules as for any folder. False (nothing done)
// where the folder holds no endpoints file or the round's checker reads no endpoints runs.
bool score_endpoints_folder(DirectoryResult& out, const BenchmarkDir& dir, const fs::path& scenario_dir,
                            const InferenceData& inf, const DataContext& data, const ScoreOptions& options) {
  const LoadgenRun& run = *dir.loadgen;
  const RunRound round = round_of_run(dir, inf.rules, nullptr);
  auto rr = inf.rules.rounds.find(round.round);
  if (rr == inf.rules.rounds.end() || !rr->second.endpoints || endpoints_files_in(scenario_dir).empty()) return false;
  const EndpointsRules& er = *rr->second.endpoints;
  const std::string division = out.division.empty() ? "closed" : out.division;
  EndpointsLog performance = read_endpoints_log(scenario_dir, EndpointsLogType::Performance, er);
  EndpointsLog accuracy_run = read_endpoints_log(scenario_dir, EndpointsLogType::Accuracy, er);
  for (auto* read : {&performance, &accuracy_run}) {
    for (auto& p : read->problems) {
      if (std::find(out.warnings.begin(), out.warnings.end(), p) == out.warnings.end()) out.warnings.push_back(p);
    }
  }
  const RunPlace place = place_of_run(dir, inf.rules);
  out.dir.system = place.system;
  // A run of one's own in a folder that names no scenario: the scenario its type names.
  std::string scenario = run.scenario;
  if (!inf.rules.scenario_names.count(to_lower_copy(scenario))) {
    if (std::optional<std::string> type = performance.log.text("effective_scenario")) {
      const std::string t = to_lower_copy(*type);
      scenario = t == "online" ? "Server" : t == "offline" ? "Offline" : *type;
    }
  }
  if (place.model.empty()) {
    out.warnings.push_back(fmt::format("{}: no folder of the path names a model: the endpoints run is read with its "
                                       "scenario's own key and judged without a model's rules",
                                       scenario_dir.string()));
  }
  auto result = std::make_shared<InferenceResult>(
      score_loadgen_run(performance.log, inf.rules, round.round, place.model, scenario, division));
  result->round_source = round.source;
  set_ruleset(out, round);
  out.benchmark = result->model.empty() ? result->scenario : result->model + "/" + result->scenario;
  for (const auto& w : result->warnings) out.warnings.push_back(w);
  for (const auto* read : {&performance, &accuracy_run}) {
    if (read->crash.empty()) continue;
    result->checks.push_back({"endpoints_log", false, nullptr, nullptr, 0,
                              read->crash + " (the checker's EndpointsParser raises here and the checker stops)",
                              read->log.file.string()});
    result->valid = false;
  }
  tag_system(out, *result, out.dir, inf, data, performance.log, options);
  compare_with_published(out, *result, out.dir, inf, options);
  if (auto ar = inf.accuracy.rounds.find(result->round); ar != inf.accuracy.rounds.end()) {
    auto judged = std::make_shared<AccuracyResult>(
        judge_endpoints_accuracy(scenario_dir / "accuracy", accuracy_run.log, ar->second, er,
                                 accuracy_model_of(out, *result, run, inf), result->scenario, division));
    for (const auto& w : judged->warnings) out.warnings.push_back(w);
    result->valid = result->valid && judged->valid && judged->files_valid;
    result->accuracy = std::move(judged);
  }
  // compliance_endpoints_check judges the open division too (the loadgen tests skip it).
  if (auto cr = inf.compliance.rounds.find(result->round); cr != inf.compliance.rounds.end()) {
    if (auto tests = cr->second.tests.find(result->rules_model); tests != cr->second.tests.end()) {
      for (auto& c : judge_endpoints_audits(scenario_dir, tests->second, er, result->rules_model, performance.log)) {
        result->valid = result->valid && c.passed;
        result->checks.push_back(std::move(c));
      }
    }
  }
  if (has_power_measurement(run.scenario_dir)) {
    out.warnings.push_back(fmt::format("{}: the power measurement of an endpoints run is not judged",
                                       run.scenario_dir.string()));
  }
  judge_submission_rules(out, *result, run, scenario_dir, inf);
  out.passed = result->valid && out.errors.empty();
  out.inference = std::move(result);
  return true;
}

}  // namespace

DirectoryResult score_inference_directory(const BenchmarkDir& dir, const DataContext& data,
                                          const ScoreOptions& options) {
  DirectoryResult out;
  out.dir = dir;
  out.benchmark = dir.benchmark_name;
  const LoadgenRun& run = *dir.loadgen;
  // The scenario folder is the folder found, or one the run named by normalizing its path.
  const bool found_here = !dir.absolute_path.empty() && !run.bare && run.scenario_dir == dir.path;
  out.division = division_of(found_here ? dir.absolute_path
                                        : fs::absolute(run.scenario_dir).lexically_normal().string());
  // The scenario folder absolute and normal (no trailing separator), for the submission's rules.
  const fs::path scenario_dir = found_here ? fs::path(without_trailing_separator(dir.absolute_path))
                                           : normal_scenario_dir(run);
  try {
    const InferenceData& inf = data.inference();
    const InferenceRules& rules = inf.rules;
    if (run.no_loadgen_log) {
      if (!score_endpoints_folder(out, dir, scenario_dir, inf, data, options)) judge_folder_without_log(out, dir, scenario_dir, inf);
      return out;
    }
    LoadgenLog log = read_run_log(run, inf, out);
    const RunPlace place = place_of_run(dir, rules);
    const std::string& model = place.model;
    out.dir.system = place.system;
    const RunRound round = round_of_run(dir, rules, &log);
    const std::string scenario = scenario_of_run(dir, rules, log);
    const bool own_run = outside_submission_layout(dir);
    auto result = std::make_shared<InferenceResult>(
        score_loadgen_run(log, rules, round.round, model, scenario, out.division.empty() ? "closed" : out.division));
    result->round_source = round.source;
    set_ruleset(out, round);
    // Summaries and comparisons group by this: one column per model and scenario.
    out.benchmark = result->model.empty() ? result->scenario : result->model + "/" + result->scenario;

    for (const auto& w : result->warnings) out.warnings.push_back(w);
    warn_not_a_performance_run(out, log);
    warn_model_unknown(out, *result, dir, rules, log);
    std::optional<FolderListings::Use> listings;
    use_tree_listings(dir, scenario_dir, out, result->round, inf, listings);
    const bool power = has_power_measurement(run.scenario_dir);
    judge_run_folder(*result, run, own_run, power, log, inf);
    if (power) judge_power_run(out, *result, run, own_run, log, inf);
    tag_system(out, *result, out.dir, inf, data, log, options);
    compare_with_published(out, *result, out.dir, inf, options);
    if (run.compliance_test.empty()) {
      judge_accuracy_run(out, *result, run, own_run, inf);
      judge_compliance_run(out, *result, run, own_run, inf);
    } else {
      // A test's verdict compares its run with the scenario's (scenario_folder_part finds
      // that folder where there is one): alone, only its own run is judged.
      out.warnings.push_back(fmt::format(
          "{}: compliance test {}'s own run, read on its own: no scenario folder holds it here, and the test "
          "is judged with the scenario's performance run (give that scenario folder); its accuracy and "
          "verdict are not judged",
          run.scenario_dir.string(), run.compliance_test));
    }
    judge_submission_rules(out, *result, run, scenario_dir, inf);
    out.passed = result->valid && out.errors.empty();
    out.inference = std::move(result);
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    out.errors.push_back(e.what());
    out.passed = false;
  }
  return out;
}

std::optional<double> speedup(const DirectoryResult& baseline, const DirectoryResult& result) {
  const InferenceResult* b = baseline.inference.get();
  const InferenceResult* r = result.inference.get();
  if (!b || !r || !b->performance_result || !r->performance_result || b->units != r->units) return std::nullopt;
  if (*b->performance_result <= 0 || *r->performance_result <= 0) return std::nullopt;
  return r->lower_is_better ? *b->performance_result / *r->performance_result
                            : *r->performance_result / *b->performance_result;
}

std::string figure_text(double value) { return fmt::format("{:.6g}", value); }

}  // namespace inference

}  // namespace mlperf
