#include "mlperf/report/report.h"
#include "mlperf/report/hpc_report.h"
#include "mlperf/inference/power.h"
#include "mlperf/inference/score.h"
#include "mlperf/report/inference_report.h"
#include "mlperf/mllog/parallel.h"
#include "mlperf/mllog/path_text.h"
#include "mlperf/report/table_text.h"
#include "mlperf/report/exact_bytes.h"
#include "mlperf/report/json_text.h"
#include "mlperf/report/in_order_texts.h"
#include "mlperf/report/output.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace mlperf {

namespace {

const char* pass_name(RcpPass pass) { return pass == RcpPass::kPruned ? "pruned" : "full"; }

std::string samples_text(double v) {
  if (!std::isfinite(v)) return "not converged";
  return fmt::format("{:.10g}", v);
}

std::string opt_text(const std::optional<double>& v, const char* spec = "{:.4f}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

std::string platform_text(const DirectoryResult& r) {
  if (r.platform.name.empty()) return "unknown";
  return r.platform.known ? r.platform.name : fmt::format("{} (not a known platform)", r.platform.name);
}

std::string run_status(const Run& run) {
  if (!run.status) return run.run_stop ? "no status" : "no run_stop";
  return *run.status;
}

// The RCP verdict as JSON: `passed` null where the check was not made (kNotChecked), the
// normalization factor null where it is not a number (too few runs).
nlohmann::json rcp_json(const RcpVerdict& v, RcpPass pass) {
  return {
      {"pass", pass_name(pass)},
      {"passed", v.rcp_case == RcpCase::kNotChecked ? nlohmann::json() : nlohmann::json(v.passed)},
      {"case", to_string(v.rcp_case)},
      {"normalization_factor", json_number_or_null(v.normalization_factor)},
      {"rcp_mean", json_number_or_null(v.rcp_mean)},
      {"min_mean", json_number_or_null(v.min_mean)},
      {"max_speedup", json_number_or_null(v.max_speedup)},
      {"submission_mean", json_number_or_null(v.submission_mean)},
      {"record", v.record ? nlohmann::json(v.record->name) : nlohmann::json()},
      {"record_batch_size", v.record ? nlohmann::json(v.record->batch_size) : nlohmann::json()},
      {"message", v.message},
  };
}

std::string verdict_text(const DirectoryResult& r) {
  if (r.verdict == "incomplete") return fmt::format("incomplete ({} of {} runs)", r.dir.result_files.size(), r.required_runs);
  if (!r.olympic_minutes) return "FAILED (no valid olympic score)";
  if (r.rcp.rcp_case == RcpCase::kNotChecked) return "PASSED (RCP not checked)";
  return r.rcp.passed ? "PASSED" : "FAILED (RCP check)";
}

struct Row {
  std::vector<std::string> cells;
};

// A design power (InferenceResult::design_power_watts) as the checker's CSV prints it: an int's
// digits, a float as JSON writes it ("2700.0"), text ("12 kW", "inf") as it is; "" for none.
std::string design_power_text(const nlohmann::json& watts) {
  if (watts.is_null()) return "";
  if (watts.is_string()) return watts.get<std::string>();
  return watts.dump();
}

// One header for both kinds of result: the training columns first (as before inference was
// read), then the kind and the inference figure, then MLPerf HPC's usage, scaling and the
// weak-scaling figures (as JSON names them), then an inference power submission's figure (the
// results table's Power_Result and Power_Units) and, from v6.1, its design power in watts (the
// checker's CSV column design_power_watts). A cell that does not apply is empty.
const std::vector<std::string> kRowHeader = {
    "directory", "submitter", "system", "benchmark", "platform", "division", "ruleset", "runs",
    "counted", "olympic_minutes", "rcp_case", "rcp_passed", "normalization_factor", "score_minutes",
    "expected_minutes", "delta_percent", "within_tolerance", "passed", "warnings",
    "kind", "model", "scenario", "metric", "performance_result", "units", "valid", "expected_result",
    "usage", "scaling", "number_of_models", "instance_scale", "time_to_train_all_minutes", "throughput",
    "power_result", "power_units", "design_power_watts"};

Row directory_row(const DirectoryResult& r, bool full_precision) {
  auto num = [&](const std::optional<double>& v, const char* spec) {
    // Not finite: an empty field, as JSON writes null (a warning says why).
    if (!v || !std::isfinite(*v)) return std::string();
    return full_precision ? fmt::format("{}", *v) : fmt::format(fmt::runtime(spec), *v);
  };
  Row row;
  if (const inference::InferenceResult* i = r.inference.get(); r.dir.loadgen) {
    // An inference scenario folder: no runs, olympic mean or RCP check; its figure is
    // Performance_Result in its units, compared with the published one (inference.md).
    const auto* e = i && i->expected ? &*i->expected : nullptr;
    row.cells = {r.dir.path.string(), r.dir.submitter, r.dir.system, r.benchmark, r.platform.name, r.division,
                 r.ruleset.str(), "", "", "", "", "", "", "", "",
                 e ? num(e->delta_percent, "{:+.2f}") : "",
                 e ? (e->within_tolerance ? "true" : "false") : "",
                 r.passed ? "true" : "false", std::to_string(r.warnings.size()),
                 "inference", i ? i->model : "", i ? i->scenario : "", i ? i->metric : "",
                 i ? num(i->performance_result, "{:.6g}") : "", i ? i->units : "",
                 i ? (i->valid ? "true" : "false") : "", e ? fmt::format("{}", e->published) : "",
                 "", "", "", "", "", "",
                 i && i->power ? num(i->power->power_metric, "{:.6g}") : "", i && i->power ? i->power->units : "",
                 i ? design_power_text(i->design_power_watts) : ""};
    return row;
  }
  int counted = 0;
  for (const auto& run : r.runs) counted += run.counted() ? 1 : 0;
  row.cells = {r.dir.path.string(),
               r.dir.submitter,
               r.dir.system,
               r.benchmark,
               r.platform.name,
               r.division,
               r.ruleset.str(),
               std::to_string(r.runs.size()),
               std::to_string(counted),
               num(r.olympic_minutes, "{:.4f}"),
               to_string(r.rcp.rcp_case),
               r.rcp.rcp_case == RcpCase::kNotChecked ? "" : r.rcp.passed ? "true" : "false",
               std::isnan(r.rcp.normalization_factor) ? "" : num(r.rcp.normalization_factor, "{:.6f}"),
               num(r.score_minutes, "{:.2f}"),
               r.expected ? fmt::format("{}", r.expected->expected.published_minutes) : "",
               r.expected ? num(r.expected->delta_percent, "{:+.2f}") : "",
               r.expected ? (r.expected->within_tolerance ? "true" : "false") : "",
               r.passed ? "true" : "false",
               std::to_string(r.warnings.size()),
               "training", "", "", "", "", "", "", "",
               to_string(r.ruleset.usage),
               r.scaling};
  // Weak scaling (MLPerf HPC): the summarizer's figures, empty where it has none.
  const WeakScalingScore* w = r.weak ? &*r.weak : nullptr;
  row.cells.push_back(w && w->number_of_models ? std::to_string(*w->number_of_models) : "");
  row.cells.push_back(w && w->instance_scale ? std::to_string(*w->instance_scale) : "");
  row.cells.push_back(w ? num(w->time_to_train_all_minutes, "{:.4f}") : "");
  row.cells.push_back(w ? num(w->throughput, "{:.4f}") : "");
  row.cells.insert(row.cells.end(), {"", "", ""});  // no power figure
  return row;
}

}  // namespace

std::optional<ReportFormat> parse_report_format(const std::string& name) {
  if (name == "table") return ReportFormat::kTable;
  if (name == "json") return ReportFormat::kJson;
  if (name == "csv") return ReportFormat::kCsv;
  if (name == "markdown") return ReportFormat::kMarkdown;
  return std::nullopt;
}

namespace {

// The runs[] entry of run `i` of a training directory. Members are assigned one by one (an
// initializer list copies each value twice; a round has thousands of runs); the object's
// keys are sorted either way.
nlohmann::json run_json(const DirectoryResult& r, std::size_t i) {
  const Run& run = r.runs[i];
  nlohmann::json errors = nlohmann::json::array();
  for (const auto& e : run.parse_errors) {
    nlohmann::json& error = errors.emplace_back(nlohmann::json::object());
    error["line"] = e.line;
    error["message"] = e.message;
  }
  nlohmann::json out = nlohmann::json::object();
  out["file"] = run.file;
  out["minutes"] = json_number_or_null(run.minutes);
  out["counted"] = run.counted();
  out["role"] = i < r.run_roles.size() ? r.run_roles[i] : "";
  out["status"] = run.status ? nlohmann::json(*run.status) : nlohmann::json();
  out["converged"] = run.converged;
  out["samples_to_converge"] = run.converged ? nlohmann::json(run.samples_to_converge) : nlohmann::json();
  out["quality_target_reached"] = run.quality_target_reached;
  out["global_batch_size"] = run.global_batch_size ? nlohmann::json(*run.global_batch_size) : nlohmann::json();
  out["drop_reasons"] = run.drop_reasons;
  out["notes"] = run.notes;
  out["parse_error_count"] = run.parse_error_count;
  out["parse_errors"] = std::move(errors);
  return out;
}

// A training directory's object (to_json's; the JSON report writes the same text with
// write_training_json).
nlohmann::json training_json(const DirectoryResult& r, RcpPass pass) {
  nlohmann::json runs = nlohmann::json::array();
  for (std::size_t i = 0; i < r.runs.size(); ++i) runs.push_back(run_json(r, i));
  nlohmann::json rcp = rcp_json(r.rcp, pass);
  nlohmann::json expected;
  if (r.expected) {
    const auto& e = *r.expected;
    expected = {{"platform", e.expected.platform},
                {"published_minutes", e.expected.published_minutes},
                {"about_minutes", json_number_or_null(e.expected.about_minutes)},
                {"measured_minutes", e.measured_minutes},
                {"delta_percent", e.delta_percent},
                {"tolerance_percent", e.tolerance_percent},
                {"within_tolerance", e.within_tolerance},
                {"source", e.expected.source},
                {"ruleset", e.expected.ruleset.str()},
                {"projected", !r.score_minutes.has_value()}};
  }
  std::vector<std::string> ignored;
  for (const auto& f : r.dir.ignored_files) ignored.push_back(f.string());
  // Assigned member by member (an initializer list copies each value twice); keys sort either way.
  nlohmann::json object = nlohmann::json::object();
  object["directory"] = r.dir.path.string();
  object["kind"] = "training";
  object["submitter"] = json_string_or_null(r.dir.submitter);
  object["system"] = json_string_or_null(r.dir.system);
  object["benchmark"] = r.benchmark;
  object["division"] = r.division;
  object["ruleset"] = r.ruleset.str();
  object["ruleset_source"] = r.ruleset_source;
  object["ruleset_reason"] = json_string_or_null(r.ruleset_reason);
  object["file_rule"] = r.dir.file_rule;
  object["ignored_files"] = std::move(ignored);
  object["platform"] = json_string_or_null(r.platform.name);
  object["platform_source"] = json_string_or_null(r.platform.source);
  object["platform_known"] = r.platform.known;
  object["accelerator_model_name"] = json_string_or_null(r.accelerator_model_name);
  object["required_runs"] = r.required_runs;
  object["runs_required"] = r.required_runs;
  object["runs"] = std::move(runs);
  object["olympic_minutes"] = json_number_or_null(r.olympic_minutes);
  object["rcp"] = std::move(rcp);
  object["score_minutes"] = json_number_or_null(r.score_minutes);
  object["scaling_json_factor"] = json_number_or_null(r.scaling_json_factor);
  object["expected"] = std::move(expected);
  object["passed"] = r.passed;
  object["verdict"] = r.verdict;
  object["projected_rcp"] = r.projected_rcp ? rcp_json(*r.projected_rcp, pass) : nlohmann::json();
  object["projected_score_minutes"] = json_number_or_null(r.projected_score_minutes);
  object["warnings"] = r.warnings;
  add_hpc_json_fields(object, r);  // usage, scaling; weak scaling's figures
  add_exact_bytes(object);          // names that are not UTF-8: their exact bytes too
  return object;
}


// The RCP verdict object as rcp_json has it, written member by member (keys sorted). A
// record's name comes from data/rcps (UTF-8), so no "record_bytes" is ever due.
void write_rcp(JsonText& j, const RcpVerdict& v, RcpPass pass) {
  j.begin_object();
  j.key("case");
  j.string(to_string(v.rcp_case));
  j.key("max_speedup");
  j.number_or_null(v.max_speedup);
  j.key("message");
  j.string(v.message);
  j.key("min_mean");
  j.number_or_null(v.min_mean);
  j.key("normalization_factor");
  j.number(v.normalization_factor);
  j.key("pass");
  j.string(pass_name(pass));
  j.key("passed");
  v.rcp_case == RcpCase::kNotChecked ? j.literal("null") : j.boolean(v.passed);
  j.key("rcp_mean");
  j.number_or_null(v.rcp_mean);
  j.key("record");
  v.record ? j.string(v.record->name) : j.literal("null");
  j.key("record_batch_size");
  v.record ? j.integer(v.record->batch_size) : j.literal("null");
  j.key("submission_mean");
  j.number_or_null(v.submission_mean);
  j.end_object();
}

// run_json's object, written member by member.
void write_run(JsonText& j, const DirectoryResult& r, std::size_t i) {
  const Run& run = r.runs[i];
  j.begin_object();
  j.key("converged");
  j.boolean(run.converged);
  j.key("counted");
  j.boolean(run.counted());
  j.key("drop_reasons");
  j.strings(run.drop_reasons);
  j.key("file");
  j.string(run.file);
  j.key("global_batch_size");
  run.global_batch_size ? j.integer(*run.global_batch_size) : j.literal("null");
  j.key("minutes");
  j.number_or_null(run.minutes);
  j.key("notes");
  j.strings(run.notes);
  j.key("parse_error_count");
  j.integer(run.parse_error_count);
  j.key("parse_errors");
  j.begin_array();
  for (const auto& e : run.parse_errors) {
    j.begin_object();
    j.key("line");
    j.integer(e.line);
    j.key("message");
    j.string(e.message);
    j.end_object();
  }
  j.end_array();
  j.key("quality_target_reached");
  j.boolean(run.quality_target_reached);
  j.key("role");
  j.string(i < r.run_roles.size() ? r.run_roles[i] : std::string());
  j.key("samples_to_converge");
  run.converged ? j.number(run.samples_to_converge) : j.literal("null");
  j.key("status");
  run.status ? j.string(*run.status) : j.literal("null");
  j.end_object();
}

// A training directory's object, byte for byte as to_json(r).dump(2) gives it (a test
// compares them), each line after the first indented by `pad` more spaces, written member by
// member in the keys' sorted order without building the tree (a fifth of the report's CPU
// went to building, dumping and freeing trees; issue #25). The text is appended to `text`;
// with an `out`, it goes there after every 64 KiB and at the end, so a directory of 100,000
// runs is never held whole. (Not an std::ostringstream for a text held whole: a stream
// takes a std::bad_alloc for a bad state and drops the rest of the object in silence.)
void write_training_json(std::string& text, std::ostream* out, const DirectoryResult& r, RcpPass pass,
                         std::size_t pad) {
  constexpr std::size_t kFlushBytes = 64 * 1024;
  text.reserve(text.size() + (r.runs.size() > 16 ? kFlushBytes + 4096 : 4096));
  JsonText j(text, pad);
  auto or_null = [&](const auto& v) { v ? j.integer(*v) : j.literal("null"); };
  const WeakScalingScore* w = r.weak ? &*r.weak : nullptr;
  j.begin_object();
  j.key("accelerator_model_name");
  j.string_or_null(r.accelerator_model_name);
  j.key("benchmark");
  j.string(r.benchmark);
  j.key("directory");
  j.string(r.dir.path.string());
  j.key("division");
  j.string(r.division);
  if (w) {
    j.key("enough_models");
    j.boolean(w->enough_models);
  }
  j.key("expected");
  if (r.expected) {
    const auto& e = *r.expected;
    j.begin_object();
    j.key("about_minutes");
    j.number_or_null(e.expected.about_minutes);
    j.key("delta_percent");
    j.number(e.delta_percent);
    j.key("measured_minutes");
    j.number(e.measured_minutes);
    j.key("platform");
    j.string(e.expected.platform);
    j.key("projected");
    j.boolean(!r.score_minutes.has_value());
    j.key("published_minutes");
    j.number(e.expected.published_minutes);
    j.key("ruleset");
    j.string(e.expected.ruleset.str());
    j.key("source");
    j.string(e.expected.source);
    j.key("tolerance_percent");
    j.number(e.tolerance_percent);
    j.key("within_tolerance");
    j.boolean(e.within_tolerance);
    j.end_object();
  } else {
    j.literal("null");
  }
  j.key("file_rule");
  j.string(r.dir.file_rule);
  j.key("ignored_files");
  {
    std::vector<std::string> ignored;
    ignored.reserve(r.dir.ignored_files.size());
    for (const auto& f : r.dir.ignored_files) ignored.push_back(f.string());
    j.strings(ignored);
  }
  if (w) {
    j.key("instance_scale");
    or_null(w->instance_scale);
  }
  j.key("kind");
  j.string("training");
  if (w) {
    j.key("models_converged");
    j.integer(w->models_converged);
    j.key("models_required");
    j.integer(w->models_required);
    j.key("number_of_models");
    or_null(w->number_of_models);
  }
  j.key("olympic_minutes");
  j.number_or_null(r.olympic_minutes);
  j.key("passed");
  j.boolean(r.passed);
  j.key("platform");
  j.string_or_null(r.platform.name);
  j.key("platform_known");
  j.boolean(r.platform.known);
  j.key("platform_source");
  j.string_or_null(r.platform.source);
  j.key("projected_rcp");
  r.projected_rcp ? write_rcp(j, *r.projected_rcp, pass) : j.literal("null");
  j.key("projected_score_minutes");
  j.number_or_null(r.projected_score_minutes);
  j.key("rcp");
  write_rcp(j, r.rcp, pass);
  j.key("required_runs");
  j.integer(r.required_runs);
  j.key("ruleset");
  j.string(r.ruleset.str());
  j.key("ruleset_reason");
  j.string_or_null(r.ruleset_reason);
  j.key("ruleset_source");
  j.string(r.ruleset_source);
  j.key("runs");
  j.begin_array();
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    write_run(j, r, i);
    if (out && text.size() >= kFlushBytes) {
      *out << text;
      text.clear();
    }
  }
  j.end_array();
  j.key("runs_required");
  j.integer(r.required_runs);
  j.key("scaling");
  j.string(r.scaling);
  j.key("scaling_json_factor");
  j.number_or_null(r.scaling_json_factor);
  j.key("score_minutes");
  j.number_or_null(r.score_minutes);
  j.key("submitter");
  j.string_or_null(r.dir.submitter);
  j.key("system");
  j.string_or_null(r.dir.system);
  if (w) {
    j.key("throughput");
    j.number_or_null(w->throughput);
    j.key("time_to_train_all_minutes");
    j.number_or_null(w->time_to_train_all_minutes);
  }
  j.key("usage");
  j.string(to_string(r.ruleset.usage));
  j.key("verdict");
  j.string(r.verdict);
  j.key("warnings");
  j.strings(r.warnings);
  j.end_object();
  if (out) {
    *out << text;
    text.clear();
  }
}

}  // namespace

nlohmann::json to_json(const DirectoryResult& r, RcpPass pass) {
  if (r.dir.loadgen) return inference_to_json(r);
  return training_json(r, pass);
}

// The RCP check as the text table shows it: the verdict line under `title` (14 columns),
// then the record, means, speedup, factor and message.
void print_rcp_block(std::ostream& out, const char* title, const RcpVerdict& v, RcpPass pass) {
  if (v.rcp_case == RcpCase::kNotChecked) {
    fmt::print(out, "  {} not checked\n    {}\n", title, v.message);
    return;
  }
  fmt::print(out, "  {} {} ({} set){}\n", title, v.passed ? "passed" : "FAILED", pass_name(pass),
             v.record ? fmt::format(", record {} (BS {})", v.record->name, v.record->batch_size) : "");
  fmt::print(out, "    case                     {}\n", to_string(v.rcp_case));
  fmt::print(out, "    RCP mean                 {}\n", opt_text(v.rcp_mean, "{:.2f}"));
  fmt::print(out, "    smallest acceptable mean {}\n", opt_text(v.min_mean, "{:.2f}"));
  fmt::print(out, "    max speedup              {}\n", opt_text(v.max_speedup, "{:.7f}"));
  fmt::print(out, "    submission mean          {}\n", opt_text(v.submission_mean, "{:.2f}"));
  fmt::print(out, "    normalization factor     {}\n",
             std::isnan(v.normalization_factor) ? std::string("none") : fmt::format("{}", v.normalization_factor));
  if (!v.message.empty()) fmt::print(out, "    {}\n", v.message);
}

void write_table(std::ostream& out, const DirectoryResult& r, RcpPass pass) {
  if (r.dir.loadgen) return write_inference_table(out, r);
  fmt::print(out, "{} / {} / {}\n", r.dir.submitter.empty() ? "-" : terminal_text(r.dir.submitter),
             r.dir.system.empty() ? "-" : terminal_text(r.dir.system), terminal_text(r.benchmark));
  fmt::print(out, "  directory  {}\n", terminal_text(r.dir.path.string()));
  fmt::print(out, "  platform   {}{}   division {}   ruleset {} ({})\n", platform_text(r),
             r.platform.source.empty() ? "" : fmt::format(" (from {})", r.platform.source), r.division,
             ruleset_label(r.ruleset), r.ruleset_source);
  if (!r.ruleset_reason.empty()) fmt::print(out, "  ruleset    guessed: {}\n", r.ruleset_reason);
  if (r.dir.file_rule != "result_*.txt" || !r.dir.ignored_files.empty()) {
    std::vector<std::string> ignored;
    for (const auto& f : r.dir.ignored_files) ignored.push_back(terminal_text(path_name(f.string())));
    fmt::print(out, "  files      {} taken by {}; ignored: {}\n", r.dir.result_files.size(), r.dir.file_rule,
               ignored.empty() ? std::string("none") : fmt::format("{}", fmt::join(ignored, ", ")));
  }
  std::size_t width = 12;
  for (const auto& run : r.runs) width = std::max(width, display_width(terminal_text(path_name(run.file))));
  fmt::print(out, "\n  {:<{}}  {:>10}  {:>20}  {:<10}  {}\n", "run", width, "minutes", "samples to converge",
             "status", r.weak ? "weak scaling" : "olympic mean");
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const Run& run = r.runs[i];
    fmt::print(out, "  {}  {:>10}  {:>20}  {:<10}  {}\n", pad(terminal_text(path_name(run.file)), width, false), opt_text(run.minutes),
               run.converged ? samples_text(run.samples_to_converge) : "not converged", run_status(run),
               i < r.run_roles.size() ? r.run_roles[i] : "");
  }
  if (r.weak) {  // MLPerf HPC weak scaling: its figures in place of the olympic mean and score
    write_weak_scaling_block(out, r);
    for (const auto& w : r.warnings) fmt::print(out, "  warning: {}\n", w);
    return;
  }
  int counted = 0;
  for (const auto& run : r.runs) counted += run.counted() ? 1 : 0;
  fmt::print(out, "\n  olympic mean   {} minutes ({} of {} runs counted, {} trimmed each end)\n",
             opt_text(r.olympic_minutes), counted, r.runs.size(), r.olympic_drop);
  print_rcp_block(out, "RCP check     ", r.rcp, pass);
  if (r.scaling_json_factor) fmt::print(out, "    scaling.json             {}\n", *r.scaling_json_factor);
  fmt::print(out, "  score          {}   {}\n",
             r.score_minutes ? fmt::format("{:.2f} minutes", *r.score_minutes) : std::string("none"),
             verdict_text(r));
  if (r.verdict == "incomplete") {
    fmt::print(out, "  projected      {} (a full set of {} runs converging like these){}\n",
               r.projected_score_minutes ? fmt::format("{:.2f} minutes", *r.projected_score_minutes)
                                         : std::string("none"),
               r.required_runs, r.projected_rcp ? "; its RCP check:" : "");
    if (r.projected_rcp) print_rcp_block(out, "projected RCP ", *r.projected_rcp, pass);
  }
  if (r.expected) {
    const auto& e = *r.expected;
    fmt::print(out, "  expected       {} {}: published {:.2f} minutes{}; {} {:.2f}, {:+.2f} % ({} {} %)\n",
               e.expected.platform, r.benchmark, e.expected.published_minutes,
               e.expected.about_minutes ? fmt::format(" (about {:g})", *e.expected.about_minutes) : "",
               r.score_minutes ? "measured" : "projected", e.measured_minutes, e.delta_percent,
               e.within_tolerance ? "within" : "OUTSIDE", fmt::format("{:g}", e.tolerance_percent));
    if (e.expected.ruleset != r.ruleset) {
      fmt::print(out, "                 that figure belongs to round {}; --ruleset {} judges by its rules\n",
                 e.expected.ruleset.str(), e.expected.ruleset.str());
    }
  } else {
    fmt::print(out, "  expected       no published figure for {} on {}\n", r.benchmark, platform_text(r));
  }
  for (const auto& w : r.warnings) fmt::print(out, "  warning: {}\n", terminal_text(w));
}

namespace {

// One line of the last screen of a table report of several directories: who, benchmark or
// model/scenario, figure, verdict, delta to the published figure.
using SummaryRow = std::array<std::string, 5>;

SummaryRow summary_row(const DirectoryResult& r) {
  SummaryRow row;
  row[0] = terminal_text(fmt::format("{} / {}", r.dir.submitter.empty() ? "-" : r.dir.submitter,
                                     r.dir.system.empty() ? "-" : r.dir.system));
  if (r.inference) {
    const auto& i = *r.inference;
    row[1] = terminal_text(i.model + "/" + i.scenario);
    row[2] = i.performance_result ? inference::figure_text(*i.performance_result) + " " + i.units : "none";
    if (i.power && i.power->power_metric) row[2] += ", " + inference::power_text(*i.power);
    row[3] = i.valid ? "VALID" : "INVALID";
    if (!i.submission_valid && i.valid) row[3] += " (submission fails)";
    row[4] = i.expected ? fmt::format("{:+.2f} % vs published", i.expected->delta_percent) : "no published figure";
  } else {
    row[1] = terminal_text(r.benchmark);
    row[2] = r.score_minutes ? fmt::format("{:.2f} minutes", *r.score_minutes) : "no score";
    row[3] = verdict_text(r);
    row[4] = r.expected ? fmt::format("{:+.2f} % vs published", r.expected->delta_percent) : "no published figure";
  }
  if (!r.errors.empty()) row[3] += fmt::format(" ({} error{})", r.errors.size(), r.errors.size() == 1 ? "" : "s");
  return row;
}

// The last screen: the rows, then the counts, so the end of the output answers "did it pass?".
void write_table_summary(std::ostream& out, const std::vector<SummaryRow>& rows, std::size_t passed) {
  std::array<std::size_t, 5> width{};
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], display_width(row[c]));
  }
  fmt::print(out, "\nsummary\n");
  for (const auto& row : rows) {
    std::string line = "  " + pad(row[0], width[0], false) + "  " + pad(row[1], width[1], false) + "  " +
                       pad(row[2], width[2], true) + "  " + pad(row[3], width[3], false) + "  " + row[4];
    fmt::print(out, "{}\n", line);
  }
  fmt::print(out, "{} directories: {} passed, {} failed\n", rows.size(), passed, rows.size() - passed);
}

// Training directories of more runs than this are written straight to the output, run by
// run, instead of as text built beside the others on the pool.
constexpr std::size_t kRunsBuiltAside = 2048;

}  // namespace

struct ReportWriter::Summary {
  std::vector<SummaryRow> rows;
  std::size_t passed = 0;
};

ReportWriter::ReportWriter(std::ostream& out, ReportFormat format, RcpPass pass)
    : out_(out), format_(format), pass_(pass), summary_(std::make_unique<Summary>()), stream_(std::make_unique<InOrderTexts>()) {
  switch (format_) {
    case ReportFormat::kJson:
    case ReportFormat::kTable:
      break;
    case ReportFormat::kCsv:
      for (std::size_t i = 0; i < kRowHeader.size(); ++i) out_ << (i ? "," : "") << kRowHeader[i];
      out_ << '\n';
      break;
    case ReportFormat::kMarkdown:
      out_ << '|';
      for (const auto& h : kRowHeader) out_ << ' ' << h << " |";
      out_ << "\n|";
      for (std::size_t i = 0; i < kRowHeader.size(); ++i) out_ << "---|";
      out_ << '\n';
      break;
  }
}

ReportWriter::~ReportWriter() = default;

void ReportWriter::write_separator(std::size_t written) {
  if (format_ == ReportFormat::kJson) out_ << json_results_separator(written);
  if (format_ == ReportFormat::kTable && written > 0) out_ << '\n';
}

void ReportWriter::prepare(std::size_t index, const DirectoryResult& result) {
  if (!result.dir.loadgen) return;  // a training directory: add() writes it
  switch (format_) {
    case ReportFormat::kJson:
      // The object indented for its place in {"results": [...]} (four spaces).
      stream_->give(index, inference_to_json_text(result, 4), [&](std::string_view text, std::size_t written) {
        write_separator(written);
        out_ << text;
      });
      break;
    case ReportFormat::kTable: {
      TextStream text;
      write_table(text, result, pass_);
      stream_->give(index, std::move(text).str(), [&](std::string_view text, std::size_t written) {
        write_separator(written);
        out_ << text;
      });
      break;
    }
    case ReportFormat::kCsv:
    case ReportFormat::kMarkdown:
      break;
  }
}

void ReportWriter::add(const std::vector<DirectoryResult>& results) {
  switch (format_) {
    case ReportFormat::kJson: {
      // {"results": [...]} as nlohmann::json dumps it with indent 2: each directory's object
      // made on its own thread already indented for its place (four spaces), then written
      // in order, a window at a time; a directory of many runs is written run by run in its
      // turn. prepare() wrote the results before stream_->next() and holds the texts it
      // made of later ones.
      const std::size_t first = stream_->next();
      std::vector<std::optional<std::string>> given(results.size() - std::min(first, results.size()));
      for (std::size_t k = 0; k < given.size(); ++k) given[k] = stream_->take(first + k);
      parallel_in_order<std::string>(
          given.size(), default_threads(),
          [&](std::size_t k) {
            const DirectoryResult& r = results[first + k];
            std::string text;
            if (given[k]) {
              text = std::move(*given[k]);
            } else if (r.dir.loadgen) {
              text = inference_to_json_text(r, 4);
            } else if (r.runs.size() <= kRunsBuiltAside) {
              write_training_json(text, nullptr, r, pass_, 4);
            }
            return text;
          },
          [&](std::size_t k, const std::string& text) {
            const DirectoryResult& r = results[first + k];
            write_separator(stream_->count_written());
            if (!r.dir.loadgen && r.runs.size() > kRunsBuiltAside) {
              std::string runs;
              write_training_json(runs, &out_, r, pass_, 4);
            } else {
              out_ << text;
            }
          });
      stream_->end_batch();
      break;
    }
    case ReportFormat::kTable:
      // prepare() wrote the results before stream_->next() and holds the texts it made of later ones.
      for (std::size_t k = 0; k < results.size(); ++k) {
        const DirectoryResult& r = results[k];
        if (k >= stream_->next()) {
          write_separator(stream_->count_written());
          if (std::optional<std::string> text = stream_->take(k)) {
            out_ << *text;
          } else {
            write_table(out_, r, pass_);
          }
        }
        summary_->rows.push_back(summary_row(r));
        summary_->passed += r.passed ? 1 : 0;
      }
      stream_->end_batch();
      break;
    case ReportFormat::kCsv:
      for (const auto& r : results) {
        Row row = directory_row(r, true);
        for (std::size_t i = 0; i < row.cells.size(); ++i) out_ << (i ? "," : "") << csv_field(row.cells[i]);
        out_ << '\n';
        ++written_;
      }
      break;
    case ReportFormat::kMarkdown:
      for (const auto& r : results) {
        Row row = directory_row(r, false);
        out_ << '|';
        for (const auto& c : row.cells) out_ << ' ' << markdown_cell(c) << " |";
        out_ << '\n';
        ++written_;
      }
      break;
  }
}

void ReportWriter::finish() {
  switch (format_) {
    case ReportFormat::kJson:
      out_ << json_results_end(stream_->written());
      break;
    case ReportFormat::kTable:
      if (summary_->rows.size() > 1) write_table_summary(out_, summary_->rows, summary_->passed);
      break;
    case ReportFormat::kCsv:
    case ReportFormat::kMarkdown:
      break;
  }
}

void write_report(std::ostream& out, const std::vector<DirectoryResult>& results, ReportFormat format,
                  RcpPass pass) {
  ReportWriter writer(out, format, pass);
  writer.add(results);
  writer.finish();
}

}  // namespace mlperf
