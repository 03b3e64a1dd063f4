#include "mlperf/report/inference_report.h"

#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "mlperf/inference/accuracy.h"
#include "mlperf/inference/compliance_tests.h"
#include "mlperf/inference/power.h"
#include "mlperf/inference/score.h"
#include "mlperf/report/table_text.h"
#include "mlperf/report/exact_bytes.h"
#include "mlperf/report/json_text.h"
#include "mlperf/mllog/mllog.h"
#include "mlperf/mllog/thread_cache.h"

namespace mlperf {

using inference::figure_text;
using inference::InferenceResult;
using inference::SubmissionChecks;
using inference::ValidityCheck;

namespace {

// `list`: a std::vector<ValidityCheck> or the SubmissionChecks.
template <class Checks>
nlohmann::json checks_json(const Checks& list) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : list) {
    checks.push_back({{"name", c.name},
                      {"passed", c.passed},
                      {"value", c.value},
                      {"limit", c.limit},
                      {"line", c.line ? nlohmann::json(c.line) : nlohmann::json()},
                      {"message", json_string_or_null(c.message)}});
  }
  return checks;
}

// The metrics of an accuracy run as numbers (the text where it is not one), by name.
nlohmann::json metrics_json(const inference::AccuracyResult& a) {
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& [name, text] : a.metrics) {
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    metrics[name] = end == text.c_str() + text.size() && !text.empty() ? nlohmann::json(v) : nlohmann::json(text);
  }
  return metrics;
}

// The accuracy object: metrics as numbers (the text where it is not one), the verdict, its
// checks, and the results table's Accuracy cell.
nlohmann::json accuracy_json(const InferenceResult* i) {
  if (!i || !i->accuracy) return nullptr;
  const inference::AccuracyResult& a = *i->accuracy;
  return {{"file", json_string_or_null(a.file)},
          {"metrics", metrics_json(a)},
          {"hash", a.hash ? nlohmann::json(*a.hash) : nlohmann::json()},
          {"valid", a.valid},
          {"checks", checks_json(a.checks)},
          {"files_valid", a.files_valid},
          {"file_checks", checks_json(a.file_checks)},
          {"warnings", a.warnings},
          {"column", a.column}};
}

// The compliance tests judged: [{test, directory, valid, checks}], null when not judged.
nlohmann::json compliance_tests_json(const InferenceResult* i) {
  if (!i || !i->compliance_tests) return nullptr;
  nlohmann::json tests = nlohmann::json::array();
  for (const auto& t : *i->compliance_tests) {
    tests.push_back({{"test", t.test}, {"directory", t.dir}, {"valid", t.valid}, {"checks", checks_json(t.checks)}});
  }
  return tests;
}

// The submission-level rules judged (system description, measurements, required scenarios):
// {valid, checks [{name, passed, value, limit, line, message, file}]}, null outside the
// submission layout.
nlohmann::json submission_json(const InferenceResult* i) {
  if (!i || i->submission_checks.empty()) return nullptr;
  nlohmann::json checks = checks_json(i->submission_checks);
  for (std::size_t k = 0; k < checks.size(); ++k) checks[k]["file"] = json_string_or_null(i->submission_checks[k].file);
  return {{"valid", i->submission_valid}, {"checks", std::move(checks)}};
}

// The power measurement (power.h): figure, units, efficiency, the design power (v6.1), what it was computed from, its
// checks; null where the folder has no performance/power.
nlohmann::json power_json(const InferenceResult* i) {
  if (!i || !i->power) return nullptr;
  const inference::PowerResult& p = *i->power;
  return {{"average_watts", p.samples ? nlohmann::json(p.average_watts) : nlohmann::json()},
          {"checks", checks_json(p.checks)},
          {"design_power_watts", i->design_power_watts},
          {"duration_s", p.power_begin.empty() ? nlohmann::json() : nlohmann::json(p.duration_s)},
          {"efficiency", json_number_or_null(p.efficiency)},
          {"power_begin", json_string_or_null(p.power_begin)},
          {"power_dir", p.power_dir},
          {"power_end", json_string_or_null(p.power_end)},
          {"power_metric", json_number_or_null(p.power_metric)},
          {"samples", p.samples},
          {"samples_file", p.samples_file},
          {"units", p.units},
          {"valid", p.valid}};
}

}  // namespace

nlohmann::json inference_to_json(const DirectoryResult& r) {
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
  j["inferred"] = i ? i->inferred_in_table : false;
  j["valid"] = i ? i->valid : false;
  j["log_file"] = i ? json_string_or_null(i->log_file) : nlohmann::json();
  j["from_summary"] = i ? i->from_summary : false;
  j["checks"] = i ? checks_json(i->checks) : nlohmann::json::array();
  j["accuracy"] = accuracy_json(i);
  j["compliance_tests"] = compliance_tests_json(i);
  j["submission"] = submission_json(i);
  j["power"] = power_json(i);
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
  add_exact_bytes(j);  // names that are not UTF-8: their exact bytes too (exact_bytes.h)
  return j;
}

namespace {

// One check {file?, limit, line, message, name, passed, value} as checks_json has it (with
// "file" for the submission's): written from the check, no document built.
void write_check(JsonText& j, const ValidityCheck& c, bool with_file) {
  j.begin_object();
  if (with_file) {
    j.key("file");
    j.string_or_null(c.file);
  }
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

// The checks as checks_json has them.
template <class Checks>
void write_checks(JsonText& j, const Checks& list, bool with_file) {
  j.begin_array();
  for (const auto& c : list) write_check(j, c, with_file);
  j.end_array();
}

// The text of a shared part of the submission checks (SubmissionChecks::shared_parts) as
// write_checks writes it at an element indent, made once per part and indent and then copied:
// every scenario folder of a submitter repeats its folder tree's and system's checks, two
// thirds of the submission checks' text in the v5.1 round. Kept per thread; the part is held,
// so its address names no other part while it is kept.
class SharedPartTexts {
 public:
  const std::string& text(const SubmissionChecks::Part& part, std::size_t element_indent) {
    for (auto e = entries_.rbegin(); e != entries_.rend(); ++e) {
      if (e->part == part && e->indent == element_indent) return e->text;
    }
    if (entries_.size() >= kKept) entries_.clear();
    std::string text = JsonText::render_elements(element_indent, [&](JsonText& r) {
      for (const auto& c : *part) write_check(r, c, true);
    });
    entries_.push_back({part, element_indent, std::move(text)});
    return entries_.back().text;
  }

 private:
  // A round has a few hundred submitter trees and systems; a folder's parts are usually the
  // last few kept, so the search runs from the end.
  static constexpr std::size_t kKept = 64;
  struct Entry {
    SubmissionChecks::Part part;
    std::size_t indent = 0;
    std::string text;
  };
  std::vector<Entry> entries_;
};

// accuracy_json's object, written member by member.
void write_accuracy(JsonText& j, const InferenceResult* i) {
  if (!i || !i->accuracy) return j.literal("null");
  const inference::AccuracyResult& a = *i->accuracy;
  j.begin_object();
  j.key("checks");
  write_checks(j, a.checks, false);
  j.key("column");
  j.string(a.column);
  j.key("file");
  j.string_or_null(a.file);
  j.key("file_checks");
  write_checks(j, a.file_checks, false);
  j.key("files_valid");
  j.boolean(a.files_valid);
  j.key("hash");
  a.hash ? j.string(*a.hash) : j.literal("null");
  j.key("metrics");
  j.value(metrics_json(a));
  j.key("valid");
  j.boolean(a.valid);
  j.key("warnings");
  j.strings(a.warnings);
  j.end_object();
}

// compliance_tests_json's array, written member by member.
void write_compliance_tests(JsonText& j, const InferenceResult* i) {
  if (!i || !i->compliance_tests) return j.literal("null");
  j.begin_array();
  for (const auto& t : *i->compliance_tests) {
    j.begin_object();
    j.key("checks");
    write_checks(j, t.checks, false);
    j.key("directory");
    j.string(t.dir);
    j.key("test");
    j.string(t.test);
    j.key("valid");
    j.boolean(t.valid);
    j.end_object();
  }
  j.end_array();
}

// submission_json's object, written member by member.
void write_submission(JsonText& j, const InferenceResult* i) {
  if (!i || i->submission_checks.empty()) return j.literal("null");
  j.begin_object();
  j.key("checks");
  j.begin_array();
  SharedPartTexts& shared = ThreadCache<SharedPartTexts>::get();
  for (const auto& part : i->submission_checks.shared_parts()) j.elements_text(shared.text(part, j.element_indent()));
  for (const auto& c : i->submission_checks.own()) write_check(j, c, true);
  j.end_array();
  j.key("valid");
  j.boolean(i->submission_valid);
  j.end_object();
}

// power_json's object, written from its document (a few per round).
void write_power(JsonText& j, const InferenceResult* i) {
  if (!i || !i->power) return j.literal("null");
  j.value(power_json(i));
}

}  // namespace

std::string inference_to_json_text(const DirectoryResult& r, std::size_t indent) {
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
  j.key("accuracy");
  write_accuracy(j, i);
  j.key("checks");
  if (i) {
    write_checks(j, i->checks, false);
  } else {
    j.begin_array();
    j.end_array();
  }
  j.key("compliance_tests");
  write_compliance_tests(j, i);
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
  j.boolean(i && i->inferred_in_table);
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
  j.key("power");
  write_power(j, i);
  j.key("round");
  i ? j.string(i->round) : j.literal("null");
  j.key("round_source");
  i ? j.string(i->round_source) : j.literal("null");
  j.key("scenario");
  opt_string(true, i ? i->scenario : std::string());
  j.key("submission");
  write_submission(j, i);
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

namespace {

// One line of the table report: names and messages from files and logs escaped
// (terminal_text), so none can break the line or drive the terminal.
void print_line(std::ostream& out, std::string_view line) { out << terminal_text(line) << '\n'; }

}  // namespace

void write_inference_table(std::ostream& out, const DirectoryResult& r) {
  const InferenceResult* i = r.inference.get();
  print_line(out, fmt::format("{} / {} / {} / {}", r.dir.submitter.empty() ? "-" : r.dir.submitter,
             r.dir.system.empty() ? "-" : r.dir.system, i && !i->model.empty() ? i->model : "-",
             i ? i->scenario : "-"));
  print_line(out, fmt::format("  directory  {}", r.dir.path.string()));
  std::string platform = r.platform.name.empty() ? "unknown" : r.platform.name;
  print_line(out, fmt::format("  platform   {}   division {}   round {}", platform, r.division.empty() ? "-" : r.division,
             i ? fmt::format("{} ({})", i->round, i->round_source) : "-"));
  if (!i) {
    print_line(out, "  result     none (log unreadable)");
    return;
  }
  print_line(out, fmt::format("  log        {}{}", i->log_file.empty() ? "none" : i->log_file,
                              i->from_summary ? " (no detail log: summary read)" : ""));
  const std::string detail = fmt::format("{}{}{}", i->metric,
                                         i->loadgen_scenario != i->scenario ? ", " + i->loadgen_scenario + " run" : "",
                                         i->inferred ? ", inferred" : "");
  print_line(out, fmt::format("  result     {} {}   {}   {}", i->performance_result ? figure_text(*i->performance_result) : "none", i->units,
             detail.empty() ? std::string() : "(" + detail + ")", i->valid ? "VALID" : "INVALID"));
  for (const auto& c : i->checks) {
    if (c.name == "performance_result") continue;
    // A run judged by token latencies logs no latency target (0): say so rather than show a
    // bare 0 against the model's constraint.
    const bool untargeted = c.name == "server_target_latency_ns" && c.value == 0;
    print_line(out, fmt::format("    {:<26} {:<6} {} (limit {}){}{}", c.name, c.passed ? "ok" : "FAILED",
               c.value.is_null() ? "absent" : c.value.dump(), c.limit.dump(),
               untargeted ? "  no latency target set: the run is judged by TTFT/TPOT" : "",
               c.passed ? "" : fmt::format("  line {}: {}", c.line, c.message)));
  }
  if (i->power) {
    const inference::PowerResult& p = *i->power;
    const bool per_query = p.units == "millijoules";
    std::string from = !p.samples ? "no samples"
                       : per_query ? fmt::format("{} samples, average {} W, over {} s", p.samples,
                                                 figure_text(p.average_watts), figure_text(p.duration_s))
                                   : fmt::format("average of {} samples over {} s", p.samples, figure_text(p.duration_s));
    std::string efficiency;
    if (p.efficiency) {
      std::string per = per_query ? "samples" : i->units.substr(0, i->units.find('/'));
      efficiency = fmt::format("; {} {}/J", figure_text(*p.efficiency), per);
    }
    const std::string design =
        i->design_power_watts.is_null()
            ? std::string()
            : fmt::format("; design power {} W",
                          i->design_power_watts.is_string() ? i->design_power_watts.get<std::string>() : i->design_power_watts.dump());
    print_line(out, fmt::format("  power      {} {}{}   ({}{}{})   {}", p.power_metric ? figure_text(*p.power_metric) : "none",
               p.units, per_query ? " per query" : "", from, efficiency, design, p.valid ? "VALID" : "INVALID"));
    for (const auto& c : p.checks) {
      if (!c.passed) print_line(out, fmt::format("    {:<26} FAILED  {}", c.name, c.message));
    }
  }
  if (i->accuracy) {
    const inference::AccuracyResult& a = *i->accuracy;
    print_line(out, fmt::format("  accuracy   {}   {}", a.column.empty() ? "none" : a.column, a.valid ? "VALID" : "INVALID"));
    for (const auto& c : a.file_checks) {
      if (!c.passed) print_line(out, fmt::format("    {:<26} FAILED  {}", c.name, c.message));
    }
    for (const auto& c : a.checks) {
      print_line(out, fmt::format("    {:<26} {:<6} {} ({}){}", c.name, c.passed ? "ok" : "FAILED",
                 c.value.is_null() ? "absent" : c.value.is_string() ? c.value.get<std::string>() : c.value.dump(),
                 c.limit.is_string() ? c.limit.get<std::string>() : c.limit.dump(),
                 c.passed ? "" : fmt::format("  {}", c.message)));
    }
  }
  if (i->compliance_tests) {
    for (const auto& t : *i->compliance_tests) {
      print_line(out, fmt::format("  {}     {}   {}", t.test, t.valid ? "VALID" : "INVALID", t.dir));
      for (const auto& c : t.checks) {
        if (c.passed) continue;
        print_line(out, fmt::format("    {:<26} FAILED  {}", c.name, c.message));
      }
    }
  }
  if (!i->submission_checks.empty()) {
    print_line(out, fmt::format("  submission {}", i->submission_valid ? "VALID" : "INVALID"));
    for (const auto& c : i->submission_checks) {
      if (c.passed) continue;
      print_line(out, fmt::format("    {:<26} FAILED  {}", c.name, c.message));
    }
  }
  if (i->expected) {
    const auto& e = *i->expected;
    print_line(out, fmt::format("  expected   {} {} {}: published {} {}; measured {}, {:+.2f} % ({} {} %)", e.platform,
               e.model, e.scenario, figure_text(e.published), e.units, figure_text(e.measured), e.delta_percent,
               e.within_tolerance ? "within" : "OUTSIDE", fmt::format("{:g}", e.tolerance_percent)));
  } else {
    print_line(out, fmt::format("  expected   no published figure for {} {} on {}", i->model, i->scenario, platform));
  }
  for (const auto& w : r.warnings) print_line(out, fmt::format("  warning: {}", w));
}

}  // namespace mlperf
