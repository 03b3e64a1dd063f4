#include "mlperf/training/package.h"
#include "mlperf/mllog/line_reader.h"

#include <new>
#include <algorithm>
#include <fnmatch.h>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mlperf/training/seeds.h"

namespace mlperf {

namespace fs = std::filesystem;

namespace {

std::string read_package_text(const fs::path& file) {
  // read_whole_file, not `<< rdbuf()`: a stream would swallow a std::bad_alloc and give the
  // file's first part as all of it.
  bool read_failed = false;
  std::optional<std::string> text = read_whole_file(file, &read_failed);
  if (!text || read_failed) throw std::runtime_error(fmt::format("{}: cannot be read", file.string()));
  return std::move(*text);
}

template <class T>
T required(const nlohmann::json& j, const char* key, const fs::path& file) {
  auto it = j.find(key);
  if (it == j.end()) throw std::runtime_error(fmt::format("{}: \"{}\" is missing", file.string(), key));
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(fmt::format("{}: \"{}\" has the wrong type", file.string(), key));
  }
}

Ruleset parse_package_ruleset(const std::string& text, const fs::path& file) {
  auto r = Ruleset::parse(text);
  if (!r) throw std::runtime_error(fmt::format("{}: \"{}\" is not a ruleset", file.string(), text));
  return *r;
}

// The non-hidden entries of a folder, sorted by name (what glob('<dir>/*') lists).
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.empty() && name[0] != '.') names.push_back(std::move(name));
  }
  throw_if_out_of_memory(ec.value());  // opendir's malloc: not an empty folder
  std::sort(names.begin(), names.end());
  return names;
}

bool matches(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), FNM_PERIOD) == 0;
}

// The 1-based line where the JSON text first writes the member name `field`; 0 when not found.
std::uint64_t line_of_field(const std::string& text, const std::string& field) {
  std::size_t at = text.find("\"" + field + "\"");
  if (at == std::string::npos) return 0;
  return 1 + static_cast<std::uint64_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::vector<std::string> q;
  for (const auto& i : items) q.push_back("'" + i + "'");
  return fmt::format("{}", fmt::join(q, ", "));
}

fs::path normal_absolute(const fs::path& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  if (ec) {
    throw_if_out_of_memory(ec.value());  // getcwd's malloc: not a path to take as it is
    a = p;
  }
  a = a.lexically_normal();
  if (!a.has_filename() && a.has_parent_path() && a != a.root_path()) a = a.parent_path();
  return a;
}

// True when `inner` is `outer` or lies below it (both absolute and normal).
bool at_or_below(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

}  // namespace

// ---- rules ------------------------------------------------------------------------------

PackageRules PackageRules::load(const fs::path& file) {
  nlohmann::json j = nlohmann::json::parse(read_package_text(file), nullptr, false);
  if (!j.is_object()) throw std::runtime_error(fmt::format("{}: not a JSON object", file.string()));
  PackageRules r;
  for (const auto& s : required<std::vector<std::string>>(j, "checked_rulesets", file)) {
    r.checked_rulesets.insert(parse_package_ruleset(s, file));
  }
  r.params_file = required<std::string>(j, "params_file", file);
  auto lines = required<std::map<std::string, std::string>>(j, "params_lines", file);
  r.rcp_bypass_line = lines.at("rcp_bypass");
  r.seed_bypass_line = lines.at("seed_checker_bypass");
  const nlohmann::json sd = required<nlohmann::json>(j, "system_description", file);
  r.required_fields = required<std::vector<std::string>>(sd, "required_fields", file);
  r.table_fields = required<std::vector<std::string>>(sd, "table_fields", file);
  r.status_options = required<std::map<std::string, std::vector<std::string>>>(sd, "status_options", file);
  r.status_checked_from = parse_package_ruleset(required<std::string>(sd, "status_checked_from", file), file);
  r.allowed_benchmarks =
      required<std::map<std::string, std::map<std::string, std::set<std::string>>>>(j, "allowed_benchmarks", file);
  return r;
}

std::optional<bool> PackageRules::allows(const std::string& usage, const Ruleset& ruleset,
                                         const std::string& benchmark) const {
  auto u = allowed_benchmarks.find(usage);
  if (u == allowed_benchmarks.end()) return std::nullopt;
  auto r = u->second.find(ruleset.str());
  if (r == u->second.end()) r = u->second.find(fmt::format("{}.{}", ruleset.parts[0], ruleset.parts[1]));
  if (r == u->second.end()) return std::nullopt;
  return r->second.count(benchmark) > 0;
}

// Declared in data_context.h; read on first use, so scoring never needs the file.
const PackageRules& DataContext::package_rules() const {
  std::lock_guard lock(mutex_);
  if (!package_rules_) {
    package_rules_ = std::make_shared<const PackageRules>(PackageRules::load(root_ / "configs" / "package_checker.json"));
  }
  return *package_rules_;
}

// ---- place and params --------------------------------------------------------------------

PackagePlace package_place(const fs::path& absolute_dir) {
  PackagePlace p;
  p.benchmark = absolute_dir.filename().string();
  fs::path up = absolute_dir.parent_path();
  std::string name = up.filename().string();
  if (name == "strong" || name == "weak") {
    p.scaling = name;
    up = up.parent_path();
  }
  p.system = up.filename().string();
  p.system_dir = up;
  if (up.parent_path().filename() != "results" || p.system.empty()) {
    p.scaling.clear();
    return p;
  }
  p.in_layout = true;
  p.org_dir = up.parent_path().parent_path();
  p.system_description = p.org_dir / "systems" / (p.system + ".json");
  return p;
}

CheckerParams read_checker_params(const fs::path& file, const PackageRules& rules) {
  CheckerParams params;
  std::error_code ec;
  if (!fs::exists(file, ec)) return params;
  std::string text = read_package_text(file);
  // Universal newlines: "\r\n" and "\r" read as "\n".
  std::string lines;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      lines.push_back('\n');
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      lines.push_back(text[i]);
    }
  }
  std::size_t start = 0, number = 0;
  while (start < lines.size()) {
    std::size_t end = lines.find('\n', start);
    bool broken = end != std::string::npos;
    std::string line = lines.substr(start, broken ? end - start : std::string::npos);
    ++number;
    for (const auto* want : {&rules.rcp_bypass_line, &rules.seed_bypass_line}) {
      if (line != *want) continue;
      if (broken) {
        params.near_misses.push_back({number, line});
      } else {
        (want == &rules.rcp_bypass_line ? params.rcp_bypass : params.seed_checker_bypass) = true;
      }
    }
    start = broken ? end + 1 : lines.size();
  }
  return params;
}

// ---- system descriptions ------------------------------------------------------------------

SystemDescriptionVerdict check_system_description(const fs::path& file, const std::string& usage,
                                                  const Ruleset& ruleset, const PackageRules& rules) {
  SystemDescriptionVerdict v;
  v.file = file.string();
  auto error = [&](std::uint64_t line, std::string message) {
    v.errors.push_back({"system_description", Finding::kError, v.file, line, std::move(message)});
  };
  std::string text;
  try {
    text = read_package_text(file);
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception&) {
    std::error_code ec;
    error(0, fs::exists(file, ec) ? "cannot be read" : "is missing: the package checker opens it for every benchmark directory of the system and stops without it");
    return v;
  }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    error(0, "is not JSON: the package checker stops on it");
    return v;
  }
  if (!j.is_object()) {
    error(0, "is not a JSON object");
    return v;
  }
  v.readable = true;
  if (auto d = j.find("division"); d != j.end() && d->is_string()) v.division = d->get<std::string>();
  if (auto n = j.find("system_name"); n != j.end() && n->is_string()) v.system_name = n->get<std::string>();
  for (const auto& field : rules.required_fields) {
    if (!j.contains(field)) error(0, fmt::format("missing field {}", field));
  }
  for (const auto& field : rules.table_fields) {
    auto it = j.find(field);
    if (it != j.end() && !it->is_string()) {
      error(line_of_field(text, field),
            fmt::format("field {} is {}, not a string: the checker stops on it (TypeError joining the results table row)",
                        field, it->dump()));
    }
  }
  auto options = rules.status_options.find(usage);
  auto status = j.find("status");
  if (options != rules.status_options.end() && ruleset >= rules.status_checked_from && status != j.end()) {
    const auto& allowed = options->second;
    bool ok = status->is_string() && std::find(allowed.begin(), allowed.end(), status->get<std::string>()) != allowed.end();
    if (!ok) {
      error(line_of_field(text, "status"),
            fmt::format("field status contains a non valid value: {}, must be one of [{}] (ruleset {})",
                        status->is_string() ? status->get<std::string>() : status->dump(), quoted_list(allowed),
                        ruleset.str()));
    }
  }
  return v;
}

// ---- power -----------------------------------------------------------------------------------

namespace {

// int(os.path.splitext(name)[0].split('_')[-1]), nullopt where Python raises.
std::optional<long long> power_index(const std::string& name) {
  std::string stem = fs::path(name).stem().string();
  std::string last = stem.substr(stem.find_last_of('_') == std::string::npos ? 0 : stem.find_last_of('_') + 1);
  if (auto text = python_int_text(nlohmann::json(last))) {
    try {
      return std::stoll(*text);
    } catch (const std::bad_alloc&) {
      throw;  // out of memory is never a finding: main.cc says so, exit 2
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// check_range: every index within [0, n-1] (repeats are not looked for, as in the official code).
bool in_range(const std::vector<long long>& indices) {
  const long long n = static_cast<long long>(indices.size());
  return std::all_of(indices.begin(), indices.end(), [&](long long e) { return e >= 0 && e <= n - 1; });
}

// check_equals: the positions whose count differs from the most common one (ties: the first seen).
std::vector<std::size_t> unequal(const std::vector<std::size_t>& counts) {
  std::vector<std::pair<std::size_t, int>> seen;  // count, how often, in order of first sight
  for (auto c : counts) {
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == c; });
    if (it == seen.end()) {
      seen.push_back({c, 1});
    } else {
      ++it->second;
    }
  }
  auto most = seen.begin();
  for (auto it = seen.begin(); it != seen.end(); ++it) {
    if (it->second > most->second) most = it;
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] != most->first) out.push_back(i);
  }
  return out;
}

}  // namespace

std::vector<Finding> check_power(const fs::path& power_dir, const std::vector<fs::path>& result_files) {
  std::vector<Finding> out;
  auto add = [&](Finding::Severity severity, const fs::path& file, std::string message) {
    out.push_back({"power", severity, file.string(), 0, std::move(message)});
  };
  std::vector<std::size_t> node_counts, sw_counts;
  for (const auto& result : result_files) {
    const std::string run = result.stem().string();
    const fs::path folder = power_dir / run;
    std::error_code ec;
    if (!fs::exists(folder, ec)) {
      add(Finding::kError, result, fmt::format("no power result {} for this run", folder.string()));
      continue;
    }
    if (!fs::is_directory(folder, ec)) {
      add(Finding::kError, power_dir, fmt::format("{} is not a folder: the power checker stops on it", folder.string()));
      return out;
    }
    std::vector<std::string> files = listing(folder);
    std::vector<long long> nodes, switches;
    std::size_t other = 0;
    for (const auto& f : files) {
      bool node = f.starts_with("node"), sw = f.starts_with("sw");
      if (!node && !sw) {
        ++other;
        continue;
      }
      auto index = power_index(f);
      if (!index) {
        add(Finding::kError, power_dir,
            fmt::format("{}/{} is not numbered <name>_<N>: the power checker stops on it", folder.string(), f));
        return out;
      }
      (node ? nodes : switches).push_back(*index);
    }
    if (other > 0) {
      add(Finding::kWarning, folder, fmt::format("{} files are neither node_<N> nor sw_<N>", other));
    }
    if (!in_range(nodes)) {
      add(Finding::kError, result, fmt::format("node power files of {} are not numbered node_0 … node_{}", folder.string(),
                                               static_cast<long long>(nodes.size()) - 1));
    }
    if (!in_range(switches)) {
      add(Finding::kError, result, fmt::format("switch power files of {} are not numbered sw_0 … sw_{}", folder.string(),
                                               static_cast<long long>(switches.size()) - 1));
    }
    node_counts.push_back(nodes.size());
    sw_counts.push_back(switches.size());
  }
  if (node_counts.empty()) {
    add(Finding::kError, power_dir, "no run has a power result: the power checker stops (max() of nothing)");
    return out;
  }
  // As the official code, a position among the runs with power results names the run at that
  // position among all result files.
  for (const auto* counts : {&node_counts, &sw_counts}) {
    for (std::size_t i : unequal(*counts)) {
      add(Finding::kError, result_files[i],
          fmt::format("{} power files differ in number from the other runs'", counts == &node_counts ? "node" : "switch"));
    }
  }
  return out;
}

// ---- the judge -------------------------------------------------------------------------------

PackageJudge::PackageJudge(const PackageRules& rules, const Facts& facts, const std::vector<fs::path>& given_paths,
                           PackageOptions options)
    : rules_(rules), facts_(facts), options_(options) {
  for (const auto& p : given_paths) given_.push_back(normal_absolute(p));
}

const SystemDescriptionVerdict& PackageJudge::description(const fs::path& file, const std::string& usage,
                                                          const Ruleset& ruleset) const {
  std::string key = fmt::format("{}|{}|{}", file.string(), usage, ruleset.str());
  {
    std::lock_guard lock(mutex_);
    if (auto it = descriptions_.find(key); it != descriptions_.end()) return it->second;
  }
  SystemDescriptionVerdict v = check_system_description(file, usage, ruleset, rules_);
  std::lock_guard lock(mutex_);
  return descriptions_.emplace(key, std::move(v)).first->second;
}

std::vector<Finding> PackageJudge::other_descriptions(const PackagePlace& place, const std::string& usage,
                                                      const Ruleset& ruleset) const {
  std::vector<Finding> out;
  bool whole_submitter = std::any_of(given_.begin(), given_.end(),
                                     [&](const fs::path& g) { return at_or_below(place.org_dir, g); });
  if (!whole_submitter) return out;
  // The org's list is made once (an org has many benchmark directories), then each directory
  // takes every description but its own.
  const std::string key = fmt::format("{}|{}|{}", place.org_dir.string(), usage, ruleset.str());
  const std::vector<std::pair<fs::path, std::vector<Finding>>>* all = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (auto it = org_descriptions_.find(key); it != org_descriptions_.end()) all = &it->second;
  }
  if (!all) {
    std::vector<std::pair<fs::path, std::vector<Finding>>> made;
    for (const auto& name : listing(place.org_dir / "systems")) {
      if (!matches("*.json", name)) continue;
      fs::path file = place.org_dir / "systems" / name;
      std::vector<Finding> errors;
      for (Finding f : description(file, usage, ruleset).errors) {
        f.message = fmt::format("{} (another system's description: the package checker judges every systems/*.json)",
                                f.message);
        errors.push_back(std::move(f));
      }
      made.emplace_back(std::move(file), std::move(errors));
    }
    std::lock_guard lock(mutex_);
    all = &org_descriptions_.emplace(key, std::move(made)).first->second;  // std::map: never moves
  }
  for (const auto& [file, errors] : *all) {
    if (file == place.system_description) continue;
    out.insert(out.end(), errors.begin(), errors.end());
  }
  return out;
}

namespace {

constexpr std::array<std::string_view, kPackageCheckIds.size()> kPackageCheckDescriptions = {
    "the package checker's result files: result_<N>.txt, exactly the benchmark's run count (at least, weak scaling)",
    "each run logs its own seed through MLLOG (official seed checker; closed division)",
    "the system description <org>/systems/<system>.json has every required field and an allowed status",
    "power results, where the directory has power/: node_<N> and sw_<N> files for every run",
};

// The seeds of each run as the official seed checker takes them: result files in sorted order.
std::vector<RunSeeds> run_seeds(const DirectoryResult& r) {
  std::vector<RunSeeds> out;
  for (const auto& run : r.runs) {
    RunSeeds s{run.file, run.seeds, {}};
    if (!run.parse_errors.empty()) {
      s.unreadable = fmt::format("line {} does not parse as MLLOG", run.parse_errors.front().line);
    } else if (run.parse_error_count > 0) {
      s.unreadable = "an MLLOG line does not parse";
    } else if (run.compliance) {
      for (const auto& f : run.compliance->findings) {
        if (f.rule == "mlp_parser") {
          s.unreadable = fmt::format("line {}: {}", f.line, f.message);
          break;
        }
      }
    }
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const RunSeeds& a, const RunSeeds& b) { return a.file < b.file; });
  return out;
}

struct Params {
  CheckerParams system, benchmark;
  fs::path system_file, benchmark_file;
};

void note_near_misses(const CheckerParams& params, const fs::path& file, const PackageRules& rules, CheckResult& seeds,
                      std::vector<Finding>& rcp_notes) {
  for (const auto& miss : params.near_misses) {
    Finding f{"", Finding::kWarning, file.string(), miss.line,
              fmt::format("\"{}\" is followed by a line break, so the package checker does not take it (it compares "
                          "whole lines as readlines() returns them): end the file without a line break to bypass",
                          miss.text)};
    if (miss.text == rules.seed_bypass_line) {
      f.check = "seeds";
      seeds.findings.push_back(std::move(f));
    } else {
      f.check = "rcp";
      rcp_notes.push_back(std::move(f));
    }
  }
}

}  // namespace

PackageVerdict PackageJudge::judge(const DirectoryResult& r) const {
  PackageVerdict v;
  for (std::size_t i = 0; i < kPackageCheckIds.size(); ++i) {
    v.checks.push_back({std::string(kPackageCheckIds[i]), std::string(kPackageCheckDescriptions[i]), {}});
  }
  CheckResult& files = v.checks[0];
  CheckResult& seeds = v.checks[1];
  CheckResult& system = v.checks[2];
  CheckResult& power = v.checks[3];
  const fs::path dir = r.dir.path;
  const PackagePlace place = package_place(r.dir.absolute_path.empty() ? normal_absolute(dir) : fs::path(r.dir.absolute_path));
  const BenchmarkFacts* facts = facts_.find(place.benchmark);
  if (!facts) facts = facts_.find(r.benchmark);
  const std::string usage = place.scaling.empty() ? (facts ? facts->usage : "training") : "hpc";
  // The official checker tests the ruleset's version string whatever the usage, so MLPerf
  // HPC's 1.0.0 - 3.0.0 get the seed check too (package_checker.py: `ruleset in {...}`).
  const bool checked_ruleset = rules_.checked_rulesets.count(r.ruleset.with_usage(Usage::kTraining)) > 0;
  auto add = [](CheckResult& c, Finding::Severity severity, const fs::path& file, std::uint64_t line, std::string message) {
    c.findings.push_back({c.check, severity, file.string(), line, std::move(message)});
  };

  // The system description, and the division the package checker judges by.
  v.division = r.division;
  if (!place.in_layout) {
    add(system, Finding::kWarning, dir, 0,
        "not in the submission layout <org>/results/<system>/<benchmark>: there is no system description "
        "(<org>/systems/<system>.json) to check, and the division is the logs'");
  } else {
    const SystemDescriptionVerdict& sd = description(place.system_description, usage, r.ruleset);
    if (checked_ruleset || !sd.readable) system.findings.insert(system.findings.end(), sd.errors.begin(), sd.errors.end());
    if (checked_ruleset) {
      for (auto& f : other_descriptions(place, usage, r.ruleset)) system.findings.push_back(std::move(f));
    }
    if (sd.readable) {
      v.division = sd.division;
      v.division_from_description = true;
    }
  }

  // A benchmark the ruleset does not list: the package checker skips the directory.
  if (auto allowed = rules_.allows(usage, r.ruleset, place.benchmark); allowed && !*allowed) {
    v.skipped = place.in_layout;
    add(files, Finding::kWarning, dir, 0,
        fmt::format("\"{}\" is not a {} benchmark of ruleset {}: the package checker skips this directory{}",
                    place.benchmark, usage, r.ruleset.str(),
                    place.in_layout ? " (its other findings are warnings)" : ""));
    return v;
  }

  // package_checker_params of the system folder and of the benchmark directory.
  Params params;
  params.benchmark_file = dir / rules_.params_file;
  if (place.in_layout) params.system_file = place.system_dir / rules_.params_file;
  for (auto [file, out] : {std::pair{&params.system_file, &params.system}, std::pair{&params.benchmark_file, &params.benchmark}}) {
    if (file->empty()) continue;
    if (file == &params.benchmark_file && !may_hold(r.dir, rules_.params_file)) continue;  // known absent
    try {
      *out = read_checker_params(*file, rules_);
    } catch (const std::bad_alloc&) {
      throw;  // out of memory is never a finding: main.cc says so, exit 2
    } catch (const std::exception& e) {
      add(files, Finding::kError, *file, 0, e.what());
    }
    note_near_misses(*out, *file, rules_, seeds, v.rcp_notes);
  }

  // Result files.
  std::vector<std::string> listed;  // only where the walk did not list the folder
  if (!r.dir.entries) listed = listing(dir);
  const std::vector<std::string>& names = r.dir.entries ? *r.dir.entries : listed;
  std::vector<fs::path> result_files;
  for (const auto& n : names) {
    if (matches("result_*.txt", n)) result_files.push_back(dir / n);
  }
  std::error_code ec;
  const int required = r.required_runs;
  const int found = static_cast<int>(result_files.size());
  if (r.dir.file_rule != "result_*.txt" && !place.in_layout) {
    add(files, Finding::kWarning, dir, 0,
        fmt::format("the runs are found by {} ({} files): a submission package names them result_<N>.txt", r.dir.file_rule,
                    r.dir.result_files.size()));
  } else if (required > 0 && (place.scaling == "weak" ? found < required : found != required)) {
    add(files, place.in_layout ? Finding::kError : Finding::kWarning, dir, 0,
        fmt::format("{} result_*.txt files; {} requires {} {}{}", found, place.benchmark,
                    place.scaling == "weak" ? "at least" : "exactly", required,
                    place.in_layout ? "" : " in a submission package"));
  }
  // scaling.json (written by the official RCP checker itself) and the power folder are
  // known: the official checker counts them too, but they are part of a package.
  std::vector<std::string> others;
  for (const auto& n : names) {
    if (!matches("result_*.txt", n) && n != rules_.params_file && n != "scaling.json" && n != "power") {
      others.push_back(n);
    }
  }
  if (!others.empty()) {
    add(files, Finding::kWarning, dir, 0,
        fmt::format("files not named result_<N>.txt: {} (the package checker warns; rename the runs among them)",
                    fmt::join(others, ", ")));
  }

  // Seeds: closed division, rulesets 1.0.0 on.
  const bool seed_bypass = options_.seed_checker_bypass || params.system.seed_checker_bypass || params.benchmark.seed_checker_bypass;
  if (checked_ruleset && v.division == "closed") {
    std::string source = options_.seed_checker_bypass ? "--seed-checker-bypass"
                         : params.system.seed_checker_bypass ? params.system_file.string()
                                                             : params.benchmark_file.string();
    for (const auto& f : check_seeds(run_seeds(r))) {
      if (seed_bypass && f.error) {
        add(seeds, Finding::kWarning, f.file, f.line, f.message + " (seed checker bypassed by " + source + ")");
      } else {
        add(seeds, f.error ? Finding::kError : Finding::kWarning, f.file, f.line, f.message);
      }
    }
  }

  // Power.
  if (may_hold(r.dir, "power") && fs::exists(dir / "power", ec)) {
    for (auto& f : check_power(dir / "power", result_files)) power.findings.push_back(std::move(f));
  }

  v.rcp_bypass = options_.rcp_bypass || params.system.rcp_bypass || params.benchmark.rcp_bypass;
  v.rcp_bypass_source = options_.rcp_bypass ? "--rcp-bypass"
                        : params.system.rcp_bypass ? params.system_file.string()
                                                   : params.benchmark_file.string();
  return v;
}

}  // namespace mlperf
