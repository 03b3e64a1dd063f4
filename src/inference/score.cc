#include "mlperf/inference/score.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "mlperf/path_text.h"
#include "mlperf/summary.h"
#include "mlperf/table_text.h"

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
      std::string text = value.get<std::string>();
      for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      network = text == "true";
    } else {
      readable = false;
    }
  }
  const std::string d = [&] {
    std::string lowered = division;
    for (auto& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lowered;
  }();
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
                                           const std::string& platform) const {
  const PublishedFigure* by_platform = nullptr;
  for (const auto& e : expected) {
    if (e.round != round || e.model != model || e.scenario != scenario) continue;
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

std::string InferenceData::accelerator_of(const fs::path& system_description) const {
  return system_of(system_description).accelerator_model_name;
}

InferenceData load_inference_data(const fs::path& root) {
  InferenceData data;
  data.rules = InferenceRules::load(root / "configs" / "inference_rules.json");
  data.keys_read = data.rules.keys_read();
  fs::path file = root / "configs" / "expected_results.json";
  std::ifstream in(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open expected results", file.string()));
  try {
    nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& e : doc.value("inference", nlohmann::json::array())) {
      data.expected.push_back({e.at("round").get<std::string>(), e.at("model").get<std::string>(),
                               e.at("scenario").get<std::string>(), e.value("system", ""),
                               e.value("platform", ""), e.at("published").get<double>(),
                               e.value("units", ""), e.value("source", "")});
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: malformed \"inference\" figures: {}", file.string(), e.what()));
  }
  return data;
}

bool is_loadgen_log_name(const std::string& name) { return name == kDetailLogName || name == kSummaryLogName; }

bool is_compliance_folder(const std::string& name) {
  return name == "compliance" || (name.size() == 6 && name.rfind("TEST", 0) == 0);
}

std::optional<LoadgenRun> find_loadgen_run(const fs::path& path, bool has_logs, bool performance_logs) {
  // Every folder of a tree passes here: the usual case (a scenario folder found by walking)
  // builds no normalized path; the division is read when scored.
  if (!has_logs && !performance_logs) return std::nullopt;
  const fs::path performance = path / "performance";
  fs::path name = path.has_filename() ? path : path.parent_path();
  LoadgenRun run;
  if (!has_logs && name.filename() != "." && name.filename() != "..") {
    run.run_dir = performance / "run_1";
    run.scenario_dir = name;
    run.scenario = name.filename().string();
    return run;
  }
  fs::path norm = fs::absolute(path).lexically_normal();
  if (!norm.has_filename()) norm = norm.parent_path();
  run.run_dir = has_logs ? path : performance / "run_1";
  run.scenario_dir = norm;
  run.scenario = norm.filename().string();
  run.bare = has_logs;
  if (has_logs && norm.parent_path().filename() == "performance") {
    // performance/run_N inside a scenario folder still names its scenario.
    run.scenario_dir = norm.parent_path().parent_path();
    run.scenario = run.scenario_dir.filename().string();
    run.bare = false;
  } else if (has_logs) {
    run.scenario.clear();  // a bare folder: the scenario comes from the log
  }
  return run;
}

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
  try {
    const InferenceData& inf = data.inference();
    const InferenceRules& rules = inf.rules;
    std::optional<LoadgenLog> detail = read_detail_log_if_present(run.run_dir / kDetailLogName, inf.keys_read);
    LoadgenLog log = detail ? std::move(*detail) : read_summary_log(run.run_dir / kSummaryLogName, rules.summary_labels);
    for (const auto& e : log.parse_errors) out.errors.push_back(fmt::format("{}:{}: {}", e.file, e.line, e.message));

    std::string model = dir.benchmark_name;
    if (run.bare) {
      // Outside the layout the folder names may still name the model (…/llama2-70b-99/Offline/).
      model.clear();
      for (fs::path p = fs::absolute(dir.path).lexically_normal(); p.has_relative_path(); p = p.parent_path()) {
        std::string name = p.filename().string();
        if (rules.model_of(name) != name || std::any_of(rules.rounds.begin(), rules.rounds.end(), [&](const auto& r) {
              return r.second.offline_min_samples_per_query.count(name) > 0;
            })) {
          model = name;
          break;
        }
      }
    }
    std::string round = rules.newest_round;
    std::string round_source = "newest shipped";
    if (auto r = dir.absolute_path.empty() ? round_from_path(dir.path) : round_from_absolute_path(dir.absolute_path)) {
      round = *r;
      round_source = "path";
    } else if (auto v = round_from_loadgen_version(log.text("loadgen_version").value_or(""));
               v && rules.rounds.count(*v)) {
      round = *v;
      round_source = "loadgen_version";
    }
    std::string scenario = run.scenario.empty() ? log.text("effective_scenario").value_or("") : run.scenario;
    auto result = std::make_shared<InferenceResult>(
        score_loadgen_run(log, rules, round, model, scenario, out.division.empty() ? "closed" : out.division));
    result->round_source = round_source;
    // The round as a version (v4.1 → 4.1.0), so reports that print a ruleset show it.
    if (auto version = Ruleset::parse(std::string_view(result->round).substr(1))) out.ruleset = *version;
    out.ruleset_source = round_source;
    // Summaries and comparisons group by this: one column per model and scenario.
    out.benchmark = result->model + "/" + result->scenario;

    // Platform: the system description's accelerator, else the system folder name.
    if (dir.system_description) {
      try {
        const SystemDescription& system = inf.system_of(*dir.system_description);
        out.accelerator_model_name = system.accelerator_model_name;
        add_network_mode_check(*result, system, log, out.division, dir.system_description->string());
      } catch (const std::exception& e) {
        out.warnings.push_back(e.what());
      }
    }
    out.platform = tag_platform(data.platforms(), out.accelerator_model_name, {dir.system});

    if (result->performance_result) {
      if (const PublishedFigure* p = inf.find(result->round, result->model, result->scenario, dir.system,
                                              out.platform.name)) {
        InferenceExpected e;
        e.round = p->round;
        e.model = p->model;
        e.scenario = p->scenario;
        e.system = p->system;
        e.platform = p->platform;
        e.units = p->units;
        e.source = p->source;
        e.published = p->published;
        e.measured = *result->performance_result;
        e.delta_percent = (e.measured - e.published) / e.published * 100.0;
        e.tolerance_percent = options.tolerance_percent;
        e.within_tolerance = std::fabs(e.delta_percent) <= options.tolerance_percent;
        e.lower_is_better = result->lower_is_better;
        if (!p->units.empty() && p->units != result->units) {
          out.warnings.push_back(fmt::format("published figure is in {}, the result in {}", p->units, result->units));
        }
        result->expected = e;
      }
    }
    out.passed = result->valid && out.errors.empty();
    out.inference = std::move(result);
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

nlohmann::json to_json(const DirectoryResult& r) {
  nlohmann::json j = {
      {"directory", r.dir.path.string()},
      {"kind", "inference"},
      {"division", json_string_or_null(r.division)},
      {"submitter", json_string_or_null(r.dir.submitter)},
      {"system", json_string_or_null(r.dir.system)},
      {"platform", json_string_or_null(r.platform.name)},
      {"platform_source", json_string_or_null(r.platform.source)},
      {"platform_known", r.platform.known},
      {"accelerator_model_name", json_string_or_null(r.accelerator_model_name)},
      {"errors", r.errors},
      {"warnings", r.warnings},
      {"passed", r.passed},
  };
  const InferenceResult* i = r.inference.get();
  j["model"] = i ? json_string_or_null(i->model) : nlohmann::json();
  j["scenario"] = i ? json_string_or_null(i->scenario) : nlohmann::json();
  j["loadgen_scenario"] = i ? json_string_or_null(i->loadgen_scenario) : nlohmann::json();
  j["round"] = i ? nlohmann::json(i->round) : nlohmann::json();
  j["round_source"] = i ? nlohmann::json(i->round_source) : nlohmann::json();
  j["metric"] = i ? json_string_or_null(i->metric) : nlohmann::json();
  j["performance_result"] = i ? json_number_or_null(i->performance_result) : nlohmann::json();
  j["units"] = i ? json_string_or_null(i->units) : nlohmann::json();
  j["lower_is_better"] = i ? i->lower_is_better : false;
  j["inferred"] = i ? i->inferred : false;
  j["valid"] = i ? i->valid : false;
  j["log_file"] = i ? json_string_or_null(i->log_file) : nlohmann::json();
  j["from_summary"] = i ? i->from_summary : false;
  nlohmann::json checks = nlohmann::json::array();
  if (i) {
    for (const auto& c : i->checks) {
      checks.push_back({{"name", c.name},
                        {"passed", c.passed},
                        {"value", c.value},
                        {"limit", c.limit},
                        {"line", c.line ? nlohmann::json(c.line) : nlohmann::json()},
                        {"message", json_string_or_null(c.message)}});
    }
  }
  j["checks"] = checks;
  nlohmann::json expected;
  if (i && i->expected) {
    const auto& e = *i->expected;
    expected = {{"round", e.round},        {"system", json_string_or_null(e.system)},
                {"platform", e.platform},  {"published", e.published},
                {"units", e.units},        {"measured", e.measured},
                {"delta_percent", e.delta_percent}, {"tolerance_percent", e.tolerance_percent},
                {"within_tolerance", e.within_tolerance}, {"lower_is_better", e.lower_is_better},
                {"source", e.source}};
  }
  j["expected"] = expected;
  return j;
}

namespace {

constexpr auto kReplace = nlohmann::json::error_handler_t::replace;

// Writes JSON text as nlohmann::json::dump(2) lays it out: members one per line, indented two
// spaces a level, "key": value, commas at line ends. Scalars go through nlohmann's own
// serializer (its number and string forms); structured values too, re-indented.
class JsonText {
 public:
  /// `indent`: spaces put after every newline, for text placed inside another document.
  JsonText(std::string& out, std::size_t indent) : out_(out), base_(indent) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // The key of the next member of the object open.
  void key(std::string_view name) {
    item();
    out_.push_back('"');
    out_.append(name);  // our own keys: nothing to escape
    out_.append("\": ");
    pending_value_ = true;
  }
  void value(const nlohmann::json& v) {
    // Scalars nlohmann writes plainly are written here (no serializer set up per value).
    switch (v.type()) {
      case nlohmann::json::value_t::null:
        return literal("null");
      case nlohmann::json::value_t::boolean:
        return boolean(v.get<bool>());
      case nlohmann::json::value_t::number_integer:
        return integer(v.get<std::int64_t>());
      case nlohmann::json::value_t::number_unsigned:
        return integer(v.get<std::uint64_t>());
      case nlohmann::json::value_t::string:
        return string(v.get_ref<const std::string&>());
      default:
        break;
    }
    item();
    if (v.is_structured() && !v.empty()) {
      std::string text = v.dump(2, ' ', false, kReplace);
      const std::string pad(base_ + 2 * depth_, ' ');
      for (std::size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
        text.insert(nl + 1, pad);
        nl += pad.size();
      }
      out_.append(text);
    } else {
      out_.append(v.dump(-1, ' ', false, kReplace));
    }
  }
  void string(const std::string& s) {
    // Printable ASCII without quote or backslash is written as it is (what nlohmann writes);
    // anything else goes through nlohmann's escaping.
    const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
      return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f && c != '"' && c != '\\';
    });
    if (!plain) {
      item();
      out_.append(nlohmann::json(s).dump(-1, ' ', false, kReplace));
      return;
    }
    item();
    out_.push_back('"');
    out_.append(s);
    out_.push_back('"');
  }
  void string_or_null(const std::string& s) { s.empty() ? literal("null") : string(s); }
  void number(double d) { value(nlohmann::json(d)); }
  template <class Integer>
  void integer(Integer n) {
    item();
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    out_.append(digits, end);
  }
  void number_or_null(const std::optional<double>& d) { d ? number(*d) : literal("null"); }
  void boolean(bool b) { literal(b ? "true" : "false"); }
  void literal(std::string_view text) {
    item();
    out_.append(text);
  }
  void strings(const std::vector<std::string>& list) {
    begin_array();
    for (const auto& s : list) string(s);
    end_array();
  }

 private:
  // Before an element: after a key, nothing; else a comma after the previous one and a new line.
  void item() {
    if (pending_value_) {
      pending_value_ = false;
      return;
    }
    if (depth_ == 0) return;
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
    out_.push_back('\n');
    out_.append(base_ + 2 * depth_, ' ');
  }
  void open(char c) {
    item();
    out_.push_back(c);
    ++depth_;
    first_.push_back(true);
  }
  void close(char c) {
    --depth_;
    if (!first_.back()) {
      out_.push_back('\n');
      out_.append(base_ + 2 * depth_, ' ');
    }
    first_.pop_back();
    out_.push_back(c);
  }

  std::string& out_;
  std::size_t base_ = 0;
  std::size_t depth_ = 0;
  std::vector<bool> first_;
  bool pending_value_ = false;
};

}  // namespace

std::string to_json_text(const DirectoryResult& r, std::size_t indent) {
  // Members in the order nlohmann's std::map keeps them (sorted by bytes); a test compares
  // this with to_json(r).dump(2).
  std::string out;
  out.reserve(4096);
  JsonText j(out, indent);
  const InferenceResult* i = r.inference.get();
  auto opt_string = [&](bool has, const std::string& s) { i && has ? j.string_or_null(s) : j.literal("null"); };
  j.begin_object();
  j.key("accelerator_model_name");
  j.string_or_null(r.accelerator_model_name);
  j.key("checks");
  j.begin_array();
  if (i) {
    for (const auto& c : i->checks) {
      j.begin_object();
      j.key("limit");
      j.value(c.limit);
      j.key("line");
      c.line ? j.integer(c.line) : j.literal("null");
      j.key("message");
      j.string_or_null(c.message);
      j.key("name");
      j.string(c.name);
      j.key("passed");
      j.boolean(c.passed);
      j.key("value");
      j.value(c.value);
      j.end_object();
    }
  }
  j.end_array();
  j.key("directory");
  j.string(r.dir.path.string());
  j.key("division");
  j.string_or_null(r.division);
  j.key("errors");
  j.strings(r.errors);
  j.key("expected");
  if (i && i->expected) {
    const auto& e = *i->expected;
    j.begin_object();
    j.key("delta_percent");
    j.number(e.delta_percent);
    j.key("lower_is_better");
    j.boolean(e.lower_is_better);
    j.key("measured");
    j.number(e.measured);
    j.key("platform");
    j.string(e.platform);
    j.key("published");
    j.number(e.published);
    j.key("round");
    j.string(e.round);
    j.key("source");
    j.string(e.source);
    j.key("system");
    j.string_or_null(e.system);
    j.key("tolerance_percent");
    j.number(e.tolerance_percent);
    j.key("units");
    j.string(e.units);
    j.key("within_tolerance");
    j.boolean(e.within_tolerance);
    j.end_object();
  } else {
    j.literal("null");
  }
  j.key("from_summary");
  j.boolean(i && i->from_summary);
  j.key("inferred");
  j.boolean(i && i->inferred);
  j.key("kind");
  j.string("inference");
  j.key("loadgen_scenario");
  opt_string(true, i ? i->loadgen_scenario : std::string());
  j.key("log_file");
  opt_string(true, i ? i->log_file : std::string());
  j.key("lower_is_better");
  j.boolean(i && i->lower_is_better);
  j.key("metric");
  opt_string(true, i ? i->metric : std::string());
  j.key("model");
  opt_string(true, i ? i->model : std::string());
  j.key("passed");
  j.boolean(r.passed);
  j.key("performance_result");
  i ? j.number_or_null(i->performance_result) : j.literal("null");
  j.key("platform");
  j.string_or_null(r.platform.name);
  j.key("platform_known");
  j.boolean(r.platform.known);
  j.key("platform_source");
  j.string_or_null(r.platform.source);
  j.key("round");
  i ? j.string(i->round) : j.literal("null");
  j.key("round_source");
  i ? j.string(i->round_source) : j.literal("null");
  j.key("scenario");
  opt_string(true, i ? i->scenario : std::string());
  j.key("submitter");
  j.string_or_null(r.dir.submitter);
  j.key("system");
  j.string_or_null(r.dir.system);
  j.key("units");
  opt_string(true, i ? i->units : std::string());
  j.key("valid");
  j.boolean(i && i->valid);
  j.key("warnings");
  j.strings(r.warnings);
  j.end_object();
  return out;
}

void write_table(std::ostream& out, const DirectoryResult& r) {
  const InferenceResult* i = r.inference.get();
  fmt::print(out, "{} / {} / {} / {}\n", r.dir.submitter.empty() ? "-" : r.dir.submitter,
             r.dir.system.empty() ? "-" : r.dir.system, i && !i->model.empty() ? i->model : "-",
             i ? i->scenario : "-");
  fmt::print(out, "  directory  {}\n", r.dir.path.string());
  std::string platform = r.platform.name.empty() ? "unknown" : r.platform.name;
  fmt::print(out, "  platform   {}   division {}   round {}\n", platform, r.division.empty() ? "-" : r.division,
             i ? fmt::format("{} ({})", i->round, i->round_source) : "-");
  if (!i) {
    fmt::print(out, "  result     none (log unreadable)\n");
    return;
  }
  fmt::print(out, "  log        {}{}\n", i->log_file, i->from_summary ? " (no detail log: summary read)" : "");
  fmt::print(out, "  result     {} {}   ({}{}{})   {}\n",
             i->performance_result ? figure_text(*i->performance_result) : "none", i->units, i->metric,
             i->loadgen_scenario != i->scenario ? ", " + i->loadgen_scenario + " run" : "",
             i->inferred ? ", inferred" : "", i->valid ? "VALID" : "INVALID");
  for (const auto& c : i->checks) {
    if (c.name == "performance_result") continue;
    // A run judged by token latencies logs no latency target (0): say so rather than show a
    // bare 0 against the model's constraint.
    const bool untargeted = c.name == "server_target_latency_ns" && c.value == 0;
    fmt::print(out, "    {:<26} {:<6} {} (limit {}){}{}\n", c.name, c.passed ? "ok" : "FAILED",
               c.value.is_null() ? "absent" : c.value.dump(), c.limit.dump(),
               untargeted ? "  no latency target set: the run is judged by TTFT/TPOT" : "",
               c.passed ? "" : fmt::format("  line {}: {}", c.line, c.message));
  }
  if (i->expected) {
    const auto& e = *i->expected;
    fmt::print(out, "  expected   {} {} {}: published {} {}; measured {}, {:+.2f} % ({} {} %)\n", e.platform,
               e.model, e.scenario, figure_text(e.published), e.units, figure_text(e.measured), e.delta_percent,
               e.within_tolerance ? "within" : "OUTSIDE", fmt::format("{:g}", e.tolerance_percent));
  } else {
    fmt::print(out, "  expected   no published figure for {} {} on {}\n", i->model, i->scenario, platform);
  }
  for (const auto& w : r.warnings) fmt::print(out, "  warning: {}\n", w);
}

}  // namespace inference

}  // namespace mlperf
