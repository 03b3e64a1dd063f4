#include "mlperf/training/score.h"
#include "mlperf/mllog/line_reader.h"

#include <new>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mlperf/training/olympic.h"
#include "mlperf/mllog/folder_cache.h"
#include "mlperf/mllog/parallel.h"

namespace mlperf {

namespace fs = std::filesystem;

namespace {

// Reads a small JSON file (system description, scaling.json); nullopt with `error` set.
std::optional<nlohmann::json> read_small_json(const fs::path& file, std::string& error) {
  std::ifstream in = open_input_file(file);
  if (!in) {
    error = fmt::format("{}: cannot open", file.string());
    return std::nullopt;
  }
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    error = fmt::format("{}: invalid JSON: {}", file.string(), e.what());
    return std::nullopt;
  }
}

std::string most_common(const std::vector<Run>& runs, std::string Run::*field) {
  std::map<std::string, int> counts;
  for (const auto& r : runs) {
    if (!(r.*field).empty()) ++counts[r.*field];
  }
  std::string best;
  int best_count = 0;
  for (const auto& [value, count] : counts) {
    if (count > best_count) best = value, best_count = count;
  }
  return best;
}

// The part each run plays in the olympic mean (§3): the fastest `drop` counted runs and the
// slowest `drop − dropped` are trimmed; ties keep file order.
std::vector<std::string> olympic_roles(const std::vector<Run>& runs, int dropped, int drop) {
  std::vector<std::string> roles(runs.size());
  std::vector<std::size_t> counted;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].counted()) {
      counted.push_back(i);
      roles[i] = "counted";
    } else {
      roles[i] = "dropped: " + (runs[i].drop_reasons.empty() ? std::string("no time to train")
                                                             : fmt::format("{}", fmt::join(runs[i].drop_reasons, "; ")));
    }
  }
  if (dropped > drop) return roles;
  std::stable_sort(counted.begin(), counted.end(),
                   [&](std::size_t a, std::size_t b) { return *runs[a].minutes < *runs[b].minutes; });
  const long n = static_cast<long>(counted.size());
  for (long k = 0; k < n; ++k) {
    if (k < drop) {
      roles[counted[k]] = "trimmed (fastest)";
    } else if (k >= n - (drop - dropped)) {
      roles[counted[k]] = "trimmed (slowest)";
    }
  }
  return roles;
}

// The runs of a directory read ahead by score_training_directories (all files of all
// directories on one pool), waiting for score_directory_with to take them.
struct ReadAhead {
  RunOptions options;                      // what the files were read with
  std::vector<Run> runs;                   // per result file; read[i] false when unreadable
  std::vector<char> read;                  // per result file: whether runs[i] was read
  std::vector<std::string> errors;         // per result file: why it is unreadable
};

// The Runs of `dir`'s result files, in order, and the errors of the unreadable ones: taken
// from `ahead` (may be null) when it was read with the same options, else read now. The
// runs are moved as one block (a directory of 100,000 runs is never held twice).
void read_result_files(const BenchmarkDir& dir, const Facts& facts, const RunOptions& run_options,
                       ReadAhead* ahead, std::vector<Run>& runs, std::vector<std::string>& errors) {
  if (ahead != nullptr && ahead->runs.size() == dir.result_files.size() &&
      ahead->options.ruleset == run_options.ruleset &&
      ahead->options.bert_train_samples == run_options.bert_train_samples) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < ahead->runs.size(); ++i) {
      if (ahead->read[i]) {
        if (kept != i) ahead->runs[kept] = std::move(ahead->runs[i]);
        ++kept;
      } else {
        errors.push_back(std::move(ahead->errors[i]));
      }
    }
    ahead->runs.resize(kept);
    if (runs.empty()) {
      runs = std::move(ahead->runs);
    } else {
      for (auto& run : ahead->runs) runs.push_back(std::move(run));
    }
    *ahead = ReadAhead{};
    return;
  }
  for (const auto& file : dir.result_files) {
    try {
      runs.push_back(read_run(file, dir.benchmark_name, facts, run_options));
    } catch (const std::bad_alloc&) {
      throw;  // out of memory is never a finding: main.cc says so, exit 2
    } catch (const std::exception& e) {
      errors.push_back(e.what());
    }
  }
}

}  // namespace

// YYYY-MM-DD (UTC) of a time in milliseconds since the epoch.
std::string utc_date(double time_ms) {
  using namespace std::chrono;
  auto days = floor<std::chrono::days>(sys_time<milliseconds>(milliseconds(static_cast<long long>(time_ms))));
  year_month_day ymd(days);
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                     static_cast<unsigned>(ymd.day()));
}

std::optional<Ruleset> guess_ruleset(const std::string& benchmark, const std::vector<Run>& runs,
                                     const DataContext& data, std::string* reason) {
  std::optional<double> first;
  for (const auto& r : runs) {
    if (r.run_start && (!first || r.run_start->time_ms < *first)) first = r.run_start->time_ms;
  }
  std::vector<Ruleset> rounds;
  for (const auto& [ruleset, names] : data.facts().rounds) {
    if (std::find(names.begin(), names.end(), benchmark) != names.end()) rounds.push_back(ruleset);
  }
  if (!first || rounds.empty()) return std::nullopt;
  std::string date = utc_date(*first);
  auto listed = [&] {
    std::vector<std::string> names;
    for (const auto& r : rounds) names.push_back(r.str());
    return names;
  };
  for (const auto& r : rounds) {
    auto published = data.round_dates().find(r);
    if (published != data.round_dates().end() && date <= published->second) {
      if (reason != nullptr) {
        *reason = fmt::format("{} is in rounds {}; the logs start on {}, before {} was published ({})", benchmark,
                              fmt::join(listed(), ", "), date, r.str(), published->second);
      }
      return r;
    }
  }
  if (reason != nullptr) {
    *reason = fmt::format("{} is in rounds {}; the logs start on {}, after every round's publication: the newest",
                          benchmark, fmt::join(listed(), ", "), date);
  }
  return rounds.back();
}

namespace {

// The published figure for `benchmark` on `platform`: under `ruleset`, else under the newest
// other round that has one (the report names that round). Null when none.
const ExpectedResult* find_expected_any_round(const ExpectedResults& expected, const Ruleset& ruleset,
                                              const std::string& benchmark, const std::string& platform) {
  if (const ExpectedResult* e = expected.find(ruleset, benchmark, platform)) return e;
  const ExpectedResult* best = nullptr;
  for (const auto& e : expected.results) {
    if (e.benchmark == benchmark && e.platform == platform && (!best || best->ruleset < e.ruleset)) best = &e;
  }
  return best;
}

// `values` repeated in turn up to `n` entries: a full set whose runs behave like these.
template <typename T>
std::vector<T> repeated_to(const std::vector<T>& values, std::size_t n) {
  std::vector<T> out;
  for (std::size_t i = 0; !values.empty() && i < n; ++i) out.push_back(values[i % values.size()]);
  return out;
}

// The usage `dir` is judged under (ScoreOptions::usage): --usage, else the round in the path,
// else hpc for the HPC layout or an HPC benchmark's folder, else training.
Usage usage_of(const BenchmarkDir& dir, const DataContext& data, const ScoreOptions& options) {
  if (options.usage) return *options.usage;
  if (dir.path_ruleset) return dir.path_ruleset->usage;
  if (!dir.scaling.empty()) return Usage::kHpc;
  const BenchmarkFacts* facts = data.facts().find(dir.benchmark_name);
  return facts && facts->usage == "hpc" ? Usage::kHpc : Usage::kTraining;
}

// Step 1, the ruleset: --ruleset, else the round in the path, else the newest shipped (which
// a guess from the logs' dates may replace in step 2); of the directory's usage.
void choose_ruleset(const BenchmarkDir& dir, const DataContext& data, const ScoreOptions& options,
                    DirectoryResult& out) {
  const Usage usage = usage_of(dir, data, options);
  if (options.ruleset) {
    out.ruleset = options.ruleset->with_usage(usage);
    out.ruleset_source = "--ruleset";
  } else if (dir.path_ruleset && dir.path_ruleset->usage == usage) {
    out.ruleset = *dir.path_ruleset;
    out.ruleset_source = "path";
  } else {
    out.ruleset = data.facts().newest_ruleset(usage);
    out.ruleset_source = "newest shipped";
  }
  if (dir.scaling == "weak") out.scaling = "weak";
}

// Whether `dir`'s ruleset is guessed from its logs' dates: neither --ruleset nor a round of
// the usage of `chosen` (step 1's ruleset) in its path (issue #14).
bool ruleset_to_guess(const BenchmarkDir& dir, const ScoreOptions& options, const Ruleset& chosen) {
  return !options.ruleset && !(dir.path_ruleset && dir.path_ruleset->usage == chosen.usage);
}

// Step 2, read the logs (taken from `ahead` when read already) and name the benchmark from
// them (the folder name when they are silent). They are read under the ruleset of step 1, or
// where `ahead` holds them, under the one it was read with (forecast_ruleset). With neither
// --ruleset nor a round in the path, the round is guessed from the logs' dates and the logs
// read again under it when they were read under another (issue #14).
void read_logs(const BenchmarkDir& dir, const DataContext& data, const ScoreOptions& options, ReadAhead* ahead,
               DirectoryResult& out) {
  const bool to_guess = ruleset_to_guess(dir, options, out.ruleset);
  const Ruleset read_with = to_guess && ahead != nullptr ? ahead->options.ruleset : out.ruleset;
  RunOptions run_options{read_with, options.bert_train_samples, options.compliance_rules};
  read_result_files(dir, data.facts(), run_options, ahead, out.runs, out.errors);
  out.benchmark = most_common(out.runs, &Run::benchmark);
  if (out.benchmark.empty()) out.benchmark = dir.benchmark_name;
  if (!to_guess) return;
  std::string reason;
  if (std::optional<Ruleset> guessed = guess_ruleset(out.benchmark, out.runs, data, &reason)) {
    out.ruleset_source = "guessed";
    out.ruleset_reason = reason;
    out.ruleset = *guessed;
  }
  if (out.ruleset == read_with) return;
  run_options = RunOptions{out.ruleset, options.bert_train_samples, options.compliance_rules};
  out.runs.clear();
  out.errors.clear();
  read_result_files(dir, data.facts(), run_options, nullptr, out.runs, out.errors);
}

// Step 3, what the runs agree on: the benchmarks they name (a warning when more than one) and
// the division (the most common; "closed" when none is logged). Returns the benchmarks named.
std::set<std::string> agree_on_benchmark_and_division(DirectoryResult& out) {
  std::set<std::string> benchmarks;
  for (const auto& r : out.runs) {
    if (!r.benchmark.empty()) benchmarks.insert(r.benchmark);
  }
  if (benchmarks.size() > 1) {
    out.warnings.push_back(fmt::format("runs name different benchmarks: {}", fmt::join(benchmarks, ", ")));
  }
  out.division = most_common(out.runs, &Run::division);
  if (out.division.empty()) out.division = "closed";
  return benchmarks;
}

// Step 4, the benchmark's facts (§6: required runs, olympic drop); null for an unknown
// benchmark. Warns when the benchmark is not one of the ruleset's round.
const BenchmarkFacts* apply_benchmark_facts(const DataContext& data, DirectoryResult& out) {
  const BenchmarkFacts* facts = data.facts().find(out.benchmark);
  if (!facts) {
    out.warnings.push_back(fmt::format("unknown benchmark \"{}\": no facts, no RCP check", out.benchmark));
    return nullptr;
  }
  out.required_runs = facts->required_runs;
  out.olympic_drop = facts->olympic_drop;
  auto round = data.facts().rounds.find(out.ruleset);
  if (round != data.facts().rounds.end() &&
      std::find(round->second.begin(), round->second.end(), out.benchmark) == round->second.end()) {
    out.warnings.push_back(fmt::format("{} is not a benchmark of the {} round", out.benchmark, out.ruleset.str()));
  }
  return facts;
}

// Step 5, the platform (spec/devices.md): the system description's accelerator first, then
// the logs; with `--probe`, the node the tool runs on (device_probe.h) where neither names a
// known platform.
void tag_directory_platform(const BenchmarkDir& dir, const DataContext& data, const ScoreOptions& options,
                            DirectoryResult& out) {
  if (dir.system_description) {
    // Only accelerator_model_name is wanted: a plain system description (most are) is read
    // without building its tree (is_plain_json: nlohmann would read the same); anything else
    // is parsed by nlohmann as before, errors and all.
    std::string text = read_whole_file(*dir.system_description).value_or(std::string());
    std::string error;
    if (is_plain_json(text)) {
      const std::string_view json = std::string_view(text).substr(text.find_first_not_of(" \t\r\n"));
      if (std::optional<std::string> name = json_string(json_member(json, "accelerator_model_name"))) {
        out.accelerator_model_name = std::move(*name);
      }
    } else if (auto doc = read_small_json(*dir.system_description, error)) {
      if (doc->is_object() && doc->contains("accelerator_model_name") && (*doc)["accelerator_model_name"].is_string()) {
        out.accelerator_model_name = (*doc)["accelerator_model_name"].get<std::string>();
      }
    } else {
      out.warnings.push_back(error);
    }
  }
  // Each platform the runs log, once, in order of first appearance (a directory's runs
  // mostly log one): tag_platform takes the first that matches, so repeats change nothing.
  std::vector<std::string> logged_platforms;
  for (const auto& r : out.runs) {
    if (!r.platform.empty() &&
        std::find(logged_platforms.begin(), logged_platforms.end(), r.platform) == logged_platforms.end()) {
      logged_platforms.push_back(r.platform);
    }
  }
  out.platform = tag_platform(data.platforms(), out.accelerator_model_name, logged_platforms);
  apply_probed_platform(out, options, out.platform.source == "log" ? "the logs say" : "the system description says");
}

// What the olympic mean step found beside DirectoryResult's own fields.
struct OlympicStep {
  bool incomplete = false;                 // fewer result files than the benchmark requires
  std::optional<double> projected_minutes;  // olympic mean of the projected full set
};

// The olympic mean of a full set whose runs behave like `runs` (each run's minutes, or a
// dropped run, repeated in turn up to `required_runs`); nullopt without runs.
std::optional<double> projected_olympic_mean(const std::vector<Run>& runs, int required_runs, int drop) {
  if (runs.empty()) return std::nullopt;
  std::vector<double> all_minutes;
  for (const auto& r : runs) all_minutes.push_back(r.counted() ? *r.minutes : NAN);
  std::vector<double> counted;
  int dropped = 0;
  for (double m : repeated_to(all_minutes, static_cast<std::size_t>(required_runs))) {
    if (std::isnan(m)) {
      ++dropped;
    } else {
      counted.push_back(m);
    }
  }
  return olympic_mean(counted, dropped, drop);
}

// Step 6, time to train and the olympic mean (§2, §3), each run's role in it, and the
// projection of an incomplete set (issue #14).
OlympicStep take_olympic_mean(const BenchmarkDir& dir, DirectoryResult& out) {
  std::vector<double> counted;
  int dropped = 0;
  for (const auto& r : out.runs) {
    if (r.counted()) {
      counted.push_back(*r.minutes);
    } else {
      ++dropped;
    }
    if (r.parse_error_count > 0) {
      out.warnings.push_back(fmt::format("{}: {} MLLOG line(s) failed to parse; first at line {}: {}", r.file,
                                         r.parse_error_count, r.parse_errors.front().line,
                                         r.parse_errors.front().message));
    }
  }
  const int drop = out.olympic_drop;
  OlympicStep step;
  // Fewer result files than required (a first run, a partial set): nothing is trimmed and the
  // set is judged as a full one whose runs behave like these, marked as projected.
  step.incomplete = out.required_runs > 0 && static_cast<int>(dir.result_files.size()) < out.required_runs;
  // The official summarizer scores any number of logs: where its olympic mean exists for a
  // partial set, it is reported as it is (verdict still incomplete); the projection comes beside it.
  out.olympic_minutes = olympic_mean(counted, dropped, drop);
  if (step.incomplete) {
    out.run_roles = out.olympic_minutes ? olympic_roles(out.runs, dropped, drop) : olympic_roles(out.runs, 0, 0);
    step.projected_minutes = projected_olympic_mean(out.runs, out.required_runs, drop);
    out.warnings.push_back(fmt::format("incomplete ({} of {} runs): no verdict; figures for a full set marked projected",
                                       dir.result_files.size(), out.required_runs));
    return step;
  }
  out.run_roles = olympic_roles(out.runs, dropped, drop);
  if (!out.olympic_minutes) {
    out.warnings.push_back(dropped > drop
                               ? fmt::format("{} runs dropped, at most {} allowed: no valid score", dropped, drop)
                               : fmt::format("too few counted runs ({}) for an olympic mean", counted.size()));
  }
  return step;
}

// The directory as the RCP checker sees it (§4.1): samples to converge per run and the global
// batch size the runs agree on. A run that logs no global_batch_size (the empty log of a job
// that died at once) takes no part; one whose value is no integer (a string, a fraction)
// leaves the batch size undetermined. Warns when the runs use different batch sizes.
RcpSubmission rcp_submission(const BenchmarkFacts& facts, const std::set<std::string>& benchmarks,
                             DirectoryResult& out) {
  RcpSubmission sub;
  sub.benchmark = out.benchmark;
  sub.ruleset = out.ruleset;
  sub.olympic_drop = facts.olympic_drop;
  sub.required_runs = facts.required_runs;
  std::set<long long> sizes;
  bool unreadable_size = false;
  for (const auto& r : out.runs) {
    sub.samples_to_converge.push_back(r.converged ? r.samples_to_converge : kNotConverged);
    if (r.global_batch_size) {
      sizes.insert(*r.global_batch_size);
    } else if (r.global_batch_size_beyond_line != 0) {
      sizes.insert(std::numeric_limits<long long>::max());  // above every RCP's batch size
    } else if (r.key_census.count("global_batch_size") > 0) {
      unreadable_size = true;
    }
  }
  if (!unreadable_size && sizes.size() == 1 && benchmarks.size() <= 1) sub.batch_size = *sizes.begin();
  if (sizes.size() > 1) {
    out.warnings.push_back(fmt::format("runs use different global batch sizes: {}", fmt::join(sizes, ", ")));
  }
  return sub;
}

// Step 7, convergence against the RCPs (§4): out.rcp, and for an incomplete set the check of
// the projected full set (returned). dlrm and minigo are not checked, as in the official
// tooling (docs/training-rulesets.md).
std::optional<RcpVerdict> check_convergence(const BenchmarkFacts* facts, const std::set<std::string>& benchmarks,
                                            bool incomplete, const DataContext& data, const ScoreOptions& options,
                                            DirectoryResult& out) {
  if (!facts) {
    out.rcp.message = "unknown benchmark: no RCP check";
    return std::nullopt;
  }
  if (!facts->official_rcp_check) {
    out.rcp = RcpVerdict{};
    out.rcp.rcp_case = RcpCase::kNotChecked;
    out.rcp.normalization_factor = std::numeric_limits<double>::quiet_NaN();  // none computed; the score is × 1.0
    out.rcp.message = fmt::format(
        "not checked: the official RCP checker has no entry for {} in its table of submission runs, so the "
        "official summarizer reports the score unscaled with no RCP verdict",
        out.benchmark);
    return std::nullopt;
  }
  const RcpSubmission sub = rcp_submission(*facts, benchmarks, out);
  std::optional<RcpVerdict> projected;
  try {
    auto records = data.rcps(*facts, out.ruleset);
    std::vector<RcpRecord> set = options.rcp_pass == RcpPass::kPruned ? prune_rcps(*records) : *records;
    out.rcp = check_rcp(set, sub);
    if (incomplete) {
      // The set judged as a full one whose runs converge like these (repeated in turn).
      RcpSubmission full = sub;
      full.samples_to_converge = repeated_to(sub.samples_to_converge, facts->required_runs);
      projected = check_rcp(set, full);
      out.projected_rcp = projected;
    }
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    out.rcp = RcpVerdict{};
    out.rcp.message = e.what();
    out.errors.push_back(e.what());
  }
  return projected;
}

// Step 8, the score (§5) and the verdict. Convergence against the RCPs binds the closed
// division only (MLPerf Training rules); an open result is scored with the factor the check
// gives (1.0 on a fail). The score is reported whatever the RCP verdict (olympic mean × 1.0
// on a fail); the verdict fails.
void take_score(const OlympicStep& olympic, const std::optional<RcpVerdict>& projected_rcp, DirectoryResult& out) {
  bool rcp_required = out.division != "open";
  if (!rcp_required && !out.rcp.passed && out.rcp.rcp_case != RcpCase::kNotChecked) {
    out.warnings.push_back("RCP check failed; not required in the open division");
  }
  const bool rcp_not_checked = out.rcp.rcp_case == RcpCase::kNotChecked;
  if (rcp_not_checked) out.warnings.push_back("RCP " + out.rcp.message);
  bool rcp_ok = out.rcp.passed || !rcp_required || rcp_not_checked;
  if (out.olympic_minutes) {
    out.score_minutes = *out.olympic_minutes * (out.rcp.passed ? out.rcp.normalization_factor : 1.0);
  }
  if (olympic.projected_minutes) {
    const RcpVerdict& p = projected_rcp ? *projected_rcp : out.rcp;
    out.projected_score_minutes = *olympic.projected_minutes * (p.passed ? p.normalization_factor : 1.0);
  }
  out.passed = out.olympic_minutes.has_value() && rcp_ok;
  out.verdict = olympic.incomplete ? "incomplete" : out.passed ? "passed" : "failed";
  // Impossible figures keep the official verdict (the official summarizer computes the same
  // numbers) but never pass silently: a warning names the file and line of each.
  for (const auto& run : out.runs) {
    if (run.minutes && !(std::isfinite(*run.minutes) && *run.minutes > 0)) {
      out.warnings.push_back(fmt::format("{}:{}: impossible time to train {} minutes (run_stop − run_start must be a "
                                         "positive, finite time)",
                                         run.file, run.summarizer_run_stop ? run.summarizer_run_stop->line : 0,
                                         *run.minutes));
    }
    if (run.global_batch_size_beyond_line != 0) {
      out.warnings.push_back(fmt::format("{}:{}: impossible global_batch_size (2^53 samples or more; checked as above "
                                         "every RCP's batch size, as the official RCP checker compares it)",
                                         run.file, run.global_batch_size_beyond_line));
    }
    if (run.converged && !(std::isfinite(run.samples_to_converge) && run.samples_to_converge > 0)) {
      out.warnings.push_back(fmt::format("{}: impossible samples to converge {} (must be a positive, finite count)",
                                         run.file, run.samples_to_converge));
    }
  }
  if (out.score_minutes && !(std::isfinite(*out.score_minutes) && *out.score_minutes > 0)) {
    out.warnings.push_back(fmt::format("{}: impossible score {} minutes (not a positive, finite number; JSON writes "
                                       "it as null, CSV as an empty field)",
                                       out.dir.path.string(), *out.score_minutes));
  }
}

// Step 9, scaling.json beside the logs: reported, never modified (§5); a warning when it
// disagrees with the factor the RCP rules give.
void read_scaling_json(const BenchmarkDir& dir, DirectoryResult& out) {
  if (!may_hold(dir, "scaling.json")) return;
  fs::path scaling = dir.path / "scaling.json";
  std::error_code ec;
  if (!fs::is_regular_file(scaling, ec)) return;
  std::string error;
  auto doc = read_small_json(scaling, error);
  if (!doc || !doc->is_object() || !doc->contains("scaling_factor") || !(*doc)["scaling_factor"].is_number()) {
    out.warnings.push_back(doc ? fmt::format("{}: no numeric scaling_factor", scaling.string()) : error);
    return;
  }
  out.scaling_json_factor = (*doc)["scaling_factor"].get<double>();
  double computed = out.rcp.passed ? out.rcp.normalization_factor : 1.0;  // what the checker writes
  if (std::fabs(*out.scaling_json_factor - computed) > 1e-9 * std::max(1.0, std::fabs(computed))) {
    out.warnings.push_back(
        fmt::format("scaling.json says {} but the RCP rules give {}", *out.scaling_json_factor, computed));
  }
}

// Step 10, the published figure for the platform (configs/expected_results.json), compared
// with the score (or the projected score of an incomplete set).
void compare_with_published(const DataContext& data, const ScoreOptions& options, DirectoryResult& out) {
  std::optional<double> measured = out.score_minutes ? out.score_minutes : out.projected_score_minutes;
  if (!measured || !out.platform.known) return;
  if (const ExpectedResult* e = find_expected_any_round(data.expected(), out.ruleset, out.benchmark, out.platform.name)) {
    out.expected = compare_expected(*e, *measured, options.tolerance_percent);
  }
}

// MLPerf HPC weak scaling (weak_scaling.h) in place of steps 6 – 9: every compliant run is a
// trained model; the figures exist when enough models trained. Fewer result files than the
// benchmark needs is incomplete, as for a strong set.
void score_weak_directory(const BenchmarkFacts* facts, DirectoryResult& out) {
  out.run_roles.clear();
  for (const auto& r : out.runs) {
    out.run_roles.push_back(r.counted() ? "model" : "dropped: " + (r.drop_reasons.empty()
                                                                       ? std::string("no time to train")
                                                                       : fmt::format("{}", fmt::join(r.drop_reasons, "; "))));
  }
  out.rcp = RcpVerdict{};
  out.rcp.rcp_case = RcpCase::kNotChecked;
  out.rcp.normalization_factor = std::numeric_limits<double>::quiet_NaN();
  out.rcp.message = "weak scaling: the official summarizer checks RCPs for strong scaling only";
  out.weak = score_weak_scaling(out.runs, facts ? facts->required_runs : 0);
  const WeakScalingScore& w = *out.weak;
  for (const auto& p : w.problems) out.warnings.push_back(p);
  const bool incomplete = facts && static_cast<int>(out.runs.size() + out.errors.size()) < facts->required_runs;
  out.passed = facts && w.enough_models && w.problems.empty();
  out.verdict = incomplete && !out.passed ? "incomplete" : out.passed ? "passed" : "failed";
  if (!w.enough_models) {
    out.warnings.push_back(fmt::format("{} of at least {} models trained: no weak-scaling figures", w.models_converged,
                                       w.models_required));
  }
}

// score_training_directory with the runs score_training_directories read ahead (null: read
// them here): the steps above, in order.
DirectoryResult score_directory_with(BenchmarkDir given, const DataContext& data, const ScoreOptions& options,
                                     ReadAhead* ahead) {
  DirectoryResult out;
  // Moved in, read from the result: a directory's file list (every path of a 100,000-run
  // folder) is held once, not by the input and by its result.
  out.dir = std::move(given);
  const BenchmarkDir& dir = out.dir;
  choose_ruleset(dir, data, options, out);
  read_logs(dir, data, options, ahead, out);
  const std::set<std::string> benchmarks = agree_on_benchmark_and_division(out);
  const BenchmarkFacts* facts = apply_benchmark_facts(data, out);
  tag_directory_platform(dir, data, options, out);
  if (out.scaling == "weak") {
    // The package checker's RCP check of the folder, on a scratch copy (its warnings and
    // errors are not the summarizer's).
    DirectoryResult scratch = out;
    check_convergence(facts, benchmarks, false, data, options, scratch);
    if (scratch.rcp.rcp_case != RcpCase::kNotChecked || !scratch.rcp.message.empty()) out.package_rcp = scratch.rcp;
    score_weak_directory(facts, out);
    for (const auto& err : out.errors) out.warnings.push_back(err);
    return out;
  }
  const OlympicStep olympic = take_olympic_mean(dir, out);
  const std::optional<RcpVerdict> projected_rcp =
      check_convergence(facts, benchmarks, olympic.incomplete, data, options, out);
  take_score(olympic, projected_rcp, out);
  read_scaling_json(dir, out);
  compare_with_published(data, options, out);
  for (const auto& err : out.errors) out.warnings.push_back(err);
  return out;
}

// The ruleset `dir` is judged under (as score_directory_with chooses it).
Ruleset chosen_ruleset(const BenchmarkDir& dir, const DataContext& data, const ScoreOptions& options) {
  DirectoryResult chosen;
  choose_ruleset(dir, data, options, chosen);
  return chosen.ruleset;
}

// The ruleset to read `dir`'s logs under before they are read: ruleset_of's, unless it is to
// be guessed from the logs (read_logs). Then the guess from its first result file's head
// (read_run_head): the guess from all its logs is usually the same (one campaign's logs), and
// where it is not, read_logs reads them again. Without it every log of a directory older
// than the newest shipped round was read twice, the second time on one thread.
Ruleset forecast_ruleset(const BenchmarkDir& dir, const DataContext& data, const ScoreOptions& options) {
  DirectoryResult chosen;
  choose_ruleset(dir, data, options, chosen);
  if (!ruleset_to_guess(dir, options, chosen.ruleset) || dir.result_files.empty()) return chosen.ruleset;
  try {
    const RunHead head = read_run_head(dir.result_files.front());
    std::vector<Run> first(1);  // guess_ruleset reads only the run_start of its runs
    first.front().run_start = head.run_start;
    const std::string& benchmark = head.benchmark.empty() ? dir.benchmark_name : head.benchmark;
    if (std::optional<Ruleset> guessed = guess_ruleset(benchmark, first, data)) return *guessed;
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception&) {
    // An unreadable first log: the read itself reports it.
  }
  return chosen.ruleset;
}

// The official summarizer reads every log through the compliance checker and drops the logs
// it rejects (result_summarizer.py _read_result_file): scoring does the same, with the
// official configs for the rulesets `dirs` are judged under, unless `options` brings its rules
// (check). Rules that cannot be loaded leave scoring to §2's own conditions; `problem` says why.
struct SummarizerRules {
  ScoreOptions options;
  std::unique_ptr<compliance::RuleLibrary> library;
  std::string problem;
};

SummarizerRules with_compliance_rules(const std::vector<BenchmarkDir>& dirs, const DataContext& data,
                                      const ScoreOptions& options) {
  SummarizerRules out{options, nullptr, ""};
  if (options.compliance_rules) return out;
  try {
    out.library = std::make_unique<compliance::RuleLibrary>(load_compliance_rules(dirs, data, options));
    out.options.compliance_rules = out.library.get();
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    out.problem = fmt::format("official compliance rules not loaded ({}): runs judged by scoring.md §2 only", e.what());
  }
  return out;
}

}  // namespace

void apply_probed_platform(DirectoryResult& out, const ScoreOptions& options, const std::string& named_by) {
  if (!options.probed_platform) return;
  const PlatformTag& probed = *options.probed_platform;
  // A system description naming another accelerator (e.g. an NVIDIA GPU) is a platform
  // too: it keeps its tag. Placeholders and system names give way to the probe.
  bool named_elsewhere = !out.platform.known && out.platform.source == "system description";
  if (!out.platform.known && !named_elsewhere) {
    if (!out.platform.name.empty()) {
      out.warnings.push_back(fmt::format("{} \"{}\", not a known platform; tagged {} from this node (probe)", named_by,
                                         out.platform.name, probed.name));
    }
    out.platform = probed;
  } else if (out.platform.name != probed.name) {  // known, or named by the system description
    out.warnings.push_back(fmt::format("{} {} but this node holds {} (probe)", named_by, out.platform.name, probed.name));
  }
}

bool ComplianceNeeds::covers(const ComplianceNeeds& other) const {
  if (guessed) return true;
  if (other.guessed) return false;
  return std::includes(rulesets.begin(), rulesets.end(), other.rulesets.begin(), other.rulesets.end());
}

void ComplianceNeeds::merge(const ComplianceNeeds& other) {
  rulesets.insert(other.rulesets.begin(), other.rulesets.end());
  guessed = guessed || other.guessed;
}

ComplianceNeeds compliance_needs(const std::vector<BenchmarkDir>& dirs, const DataContext& data,
                                 const ScoreOptions& options) {
  ComplianceNeeds needs;
  for (const auto& d : dirs) {
    if (d.loadgen) continue;
    needs.rulesets.insert(chosen_ruleset(d, data, options));
    // A directory whose ruleset is guessed from its logs may need any folder of its usage.
    needs.guessed = needs.guessed || (!options.ruleset && !d.path_ruleset);
  }
  return needs;
}

compliance::RuleLibrary load_compliance_rules(const ComplianceNeeds& needs, const DataContext& data) {
  if (needs.rulesets.empty()) return {};
  const std::filesystem::path root = data.root() / "configs" / "compliance";
  return needs.guessed ? compliance::RuleLibrary::load(root) : compliance::RuleLibrary::load(root, needs.rulesets);
}

compliance::RuleLibrary load_compliance_rules(const std::vector<BenchmarkDir>& dirs, const DataContext& data,
                                              const ScoreOptions& options) {
  return load_compliance_rules(compliance_needs(dirs, data, options), data);
}

DirectoryResult score_training_directory(const BenchmarkDir& dir, const DataContext& data,
                                         const ScoreOptions& options) {
  SummarizerRules rules = with_compliance_rules({dir}, data, options);
  DirectoryResult result = score_directory_with(BenchmarkDir(dir), data, rules.options, nullptr);
  if (!rules.problem.empty()) result.warnings.push_back(rules.problem);
  return result;
}

std::vector<DirectoryResult> score_training_directories(std::vector<BenchmarkDir> dirs, const DataContext& data,
                                                        const ScoreOptions& given_options) {
  SummarizerRules rules = with_compliance_rules(dirs, data, given_options);
  const ScoreOptions& options = rules.options;
  const unsigned threads = default_threads();
  // 1. Every result file of every directory on one pool, the biggest first so that the
  //    threads finish together (a few directories still use every core).
  std::vector<ReadAhead> ahead(dirs.size());
  struct FileJob {
    std::size_t dir;
    std::size_t file;
    ResultFileStat stat;  // its size orders the jobs; its type spares read_run a second stat
  };
  std::vector<FileJob> jobs;
  // The calling thread holds the folders it stats in open (FolderCache): a log is stat'ed
  // relative to its folder, one path look-up a folder instead of one a log. On one thread it
  // also opens and checks the logs that way (two more look-ups a log spared). Threads of
  // their own do not: their held folders (eight each) push the process past the 64 file
  // descriptors a table starts with, and growing a table that threads share waits for an
  // RCU grace period (synchronize_rcu), which doubled the all-core time on 16 cores.
  FolderCache stat_folders;  // let go when the pass ends
  const bool open_in_folders = threads == 1;
  // The ruleset as score_directory_with chooses it, forecast where it guesses (a mismatch
  // only means reading again there); a forecast reads a log's head, so on the pool too.
  std::vector<Ruleset> rulesets(dirs.size());
  parallel_for(dirs.size(), threads, [&](std::size_t d) { rulesets[d] = forecast_ruleset(dirs[d], data, options); });
  for (std::size_t d = 0; d < dirs.size(); ++d) {
    ahead[d].options = RunOptions{rulesets[d], options.bert_train_samples, options.compliance_rules};
    ahead[d].runs.resize(dirs[d].result_files.size());
    ahead[d].read.resize(dirs[d].result_files.size(), 0);
    ahead[d].errors.resize(dirs[d].result_files.size());
    for (std::size_t f = 0; f < dirs[d].result_files.size(); ++f) {
      jobs.push_back({d, f, stat_result_file(dirs[d].result_files[f], &stat_folders)});
    }
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const FileJob& a, const FileJob& b) { return a.stat.bytes > b.stat.bytes; });
  if (!open_in_folders) stat_folders.clear();
  parallel_for(jobs.size(), threads, [&](std::size_t j) {
    const FileJob& job = jobs[j];
    const BenchmarkDir& dir = dirs[job.dir];
    ReadAhead& slot = ahead[job.dir];
    try {
      slot.runs[job.file] = read_run(dir.result_files[job.file], job.stat, dir.benchmark_name, data.facts(), slot.options,
                                     open_in_folders ? &stat_folders : nullptr);
      slot.read[job.file] = 1;
    } catch (const std::bad_alloc&) {
      throw;  // out of memory is never a finding: main.cc says so, exit 2
    } catch (const std::exception& e) {
      slot.errors[job.file] = e.what();
    }
  });
  // 2. Score each directory from its runs; results in the order given.
  std::vector<DirectoryResult> results(dirs.size());
  parallel_for(dirs.size(), threads, [&](std::size_t d) {
    results[d] = score_directory_with(std::move(dirs[d]), data, options, &ahead[d]);
    if (!rules.problem.empty()) results[d].warnings.push_back(rules.problem);
    ahead[d] = ReadAhead{};
  });
  return results;
}

}  // namespace mlperf
