#include "mlperf/report/html/report.h"

#include <cmath>

#include <fmt/format.h>

#include "mlperf/mllog/path_text.h"
#include "mlperf/report/html/page.h"
#include "mlperf/inference/accuracy.h"
#include "mlperf/inference/power.h"
#include "mlperf/inference/compliance_tests.h"
#include "mlperf/inference/result.h"

namespace mlperf::html {

namespace {

// A file:// URL for an absolute path: every byte but the unreserved ones (RFC 3986) and '/'
// percent-encoded, so '#', '?', '%', spaces and non-ASCII names open the file they name.
std::string file_url(const std::filesystem::path& absolute) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : absolute.string()) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '.' || c == '_' || c == '~' || c == '/';
    if (keep) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

using nlohmann::json;

json compact_or_null(const std::optional<double>& v) { return v ? compact(*v) : json(); }

std::string num(const std::optional<double>& v, const char* spec = "{:.4f}") {
  return v && std::isfinite(*v) ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

std::string verdict(bool ok, std::string_view good, std::string_view bad) {
  return fmt::format("<span class=\"{}\">{}</span>", ok ? "ok" : "bad", escape(ok ? good : bad));
}

// A table from a header and rows of cells (HTML, escaped by the caller); cells that look
// like numbers are right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  Table& row(std::vector<std::string> cells) {
    rows_.push_back(std::move(cells));
    return *this;
  }
  std::string str() const {
    std::string out = "<table><thead><tr>";
    for (const auto& h : header_) out += "<th>" + escape(h) + "</th>";
    out += "</tr></thead><tbody>";
    for (const auto& r : rows_) {
      out += "<tr>";
      for (const auto& c : r) {
        bool numeric = !c.empty() && (std::isdigit(static_cast<unsigned char>(c[0])) || c[0] == '-' || c[0] == '+') &&
                       c.find('<') == std::string::npos && c.find(' ') == std::string::npos;
        out += numeric ? "<td class=\"n\">" : "<td>";
        out += c + "</td>";
      }
      out += "</tr>";
    }
    return out + "</tbody></table>";
  }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

std::string who(const std::string& submitter, const std::string& system) {
  return fmt::format("{} / {}", submitter.empty() ? "-" : submitter, system.empty() ? "-" : system);
}

std::string anchor(std::size_t i) { return fmt::format("d{}", i); }

const char* role_code(const std::string& role) {
  if (role.starts_with("counted")) return "c";
  if (role.starts_with("trimmed")) return "t";
  return "d";
}

void training_section(Page& page, const DirectoryResult& r, RcpPass pass) {
  // Run times: counted, trimmed, dropped; the olympic mean as a line.
  json labels = json::array(), minutes = json::array(), codes = json::array();
  Table runs_table({"run", "minutes", "status", "olympic mean"});
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const Run& run = r.runs[i];
    const std::string role = i < r.run_roles.size() ? r.run_roles[i] : "";
    labels.emplace_back(path_name(run.file));
    minutes.push_back(compact_or_null(run.minutes));
    codes.push_back(role_code(role));
    runs_table.row({escape(path_name(run.file)), num(run.minutes),
                    escape(run.status ? *run.status : (run.run_stop ? "no status" : "no run_stop")), escape(role)});
  }
  json lines = json::array();
  if (r.olympic_minutes) lines.push_back({"olympic mean", compact(*r.olympic_minutes)});
  runs_table.row({"olympic mean", num(r.olympic_minutes), "", fmt::format("{} trimmed each end", r.olympic_drop)});
  page.raw("<div class=\"grid\">");
  page.chart("Run times (blue counted, grey trimmed, red dropped)",
             {{"k", "bar"}, {"l", labels}, {"v", minutes}, {"c", codes}, {"h", lines}, {"y", "minutes"}},
             runs_table.str());

  // eval_accuracy against samples, every run, with the quality target.
  json eval_runs = json::array();
  bool epochs = false;
  std::optional<double> target;
  for (const Run& run : r.runs) {
    epochs = epochs || run.eval_points_in_epochs;
    // The bound that is the target: a lower-is-better metric (e.g. llama2_70b_lora's loss,
    // 0 ≤ x ≤ 0.925) has its target as the upper bound.
    if (run.quality_target && !target) {
      const Bounds& b = *run.quality_target;
      target = b.max && (!b.min || *b.min == 0) ? b.max : b.min;
    }
    if (run.eval_points.empty()) continue;
    json points = json::array();
    for (const auto& p : run.eval_points) {
      points.push_back(compact(p.samples));
      points.push_back(compact(p.accuracy));
    }
    eval_runs.push_back({{"n", std::string(path_name(run.file))}, {"p", std::move(points)}});
  }
  page.chart(target ? fmt::format("eval_accuracy per run (quality target {:g})", *target) : "eval_accuracy per run",
             {{"k", "eval"}, {"r", eval_runs}, {"q", compact_or_null(target)},
              {"x", epochs ? "epoch_num" : "samples_count"}, {"y", "eval_accuracy"}});

  // Samples to converge against the RCP mean and the smallest mean it allows.
  json samples = json::array(), converged = json::array();
  Table samples_table({"run", "samples to converge"});
  for (const Run& run : r.runs) {
    samples.push_back(run.converged ? compact(run.samples_to_converge) : json());
    converged.push_back(run.converged ? "c" : "d");
    samples_table.row({escape(path_name(run.file)),
                       run.converged ? fmt::format("{:.10g}", run.samples_to_converge) : "not converged"});
  }
  json rcp_lines = json::array();
  auto add_line = [&](const char* name, const std::optional<double>& v) {
    if (v) rcp_lines.push_back({name, compact(*v)});
    samples_table.row({escape(name), num(v, "{:.2f}")});
  };
  add_line("RCP mean", r.rcp.rcp_mean);
  add_line("smallest acceptable mean", r.rcp.min_mean);
  add_line("submission mean", r.rcp.submission_mean);
  const std::string factor =
      std::isnan(r.rcp.normalization_factor) ? std::string("none") : fmt::format("{}", r.rcp.normalization_factor);
  samples_table.row({"normalization factor", factor});
  samples_table.row({"RCP check", fmt::format("{} ({}, {} set)",
                                              r.rcp.rcp_case == RcpCase::kNotChecked ? "not checked"
                                              : r.rcp.passed                         ? "passed"
                                                                                     : "FAILED",
                                              escape(to_string(r.rcp.rcp_case)),
                                              pass == RcpPass::kPruned ? "pruned" : "full")});
  if (r.projected_rcp) {
    // An incomplete set: the check of a full set converging like these runs (issue #14).
    const RcpVerdict& p = *r.projected_rcp;
    samples_table.row({"projected RCP check (full set)",
                       fmt::format("{}, factor {}", p.passed ? "passed" : "FAILED",
                                   std::isnan(p.normalization_factor) ? std::string("none")
                                                                      : fmt::format("{}", p.normalization_factor))});
  }
  page.chart("Samples to converge against the RCPs",
             {{"k", "bar"}, {"l", labels}, {"v", samples}, {"c", converged}, {"h", rcp_lines},
              {"y", epochs ? "epochs" : "samples"}},
             samples_table.str());

  // The score against the published figure.
  json score_labels = {"olympic mean", "score"}, score_values = {compact_or_null(r.olympic_minutes), compact_or_null(r.score_minutes)};
  json score_codes = {"t", r.passed ? "c" : "d"};
  Table score_table({"", "minutes"});
  score_table.row({"olympic mean", num(r.olympic_minutes)});
  score_table.row({"normalization factor", factor});
  score_table.row({"score", num(r.score_minutes, "{:.2f}")});
  if (r.projected_score_minutes) {
    score_labels.push_back("projected score");
    score_values.push_back(compact(*r.projected_score_minutes));
    score_codes.push_back("t");
    score_table.row({"projected score (full set)", num(r.projected_score_minutes, "{:.2f}")});
  }
  if (r.expected) {
    const auto& e = *r.expected;
    score_labels.push_back("published (" + e.expected.platform + ")");
    score_values.push_back(compact(e.expected.published_minutes));
    score_codes.push_back("p");
    score_table.row({escape("published (" + e.expected.platform + ")"), fmt::format("{:.2f}", e.expected.published_minutes)});
    score_table.row({"difference", fmt::format("{:+.2f} % ({} {:g} %)", e.delta_percent,
                                               e.within_tolerance ? "within" : "OUTSIDE", e.tolerance_percent)});
  } else {
    score_table.row({"published", "no published figure"});
  }
  page.chart("Score against the published figure",
             {{"k", "bar"}, {"l", score_labels}, {"v", score_values}, {"c", score_codes}, {"y", "minutes"}, {"hz", true}},
             score_table.str());
  page.raw("</div>");
}

void inference_section(Page& page, const DirectoryResult& r) {
  const inference::InferenceResult& inf = *r.inference;
  json labels = {"measured"}, values = {compact_or_null(inf.performance_result)}, codes = {inf.valid ? "c" : "d"};
  Table checks({"check", "passed", "value", "limit", "line", "message"});
  for (const auto& c : inf.checks) {
    checks.row({escape(c.name), verdict(c.passed, "yes", "no"), escape(c.value.dump()), escape(c.limit.dump()),
                c.line ? std::to_string(c.line) : "", escape(c.message)});
  }
  Table figure({"", inf.units});
  figure.row({"measured", num(inf.performance_result, "{:.6g}")});
  if (inf.expected) {
    labels.push_back("published (" + inf.expected->system + ")");
    values.push_back(compact(inf.expected->published));
    codes.push_back("p");
    figure.row({"published", fmt::format("{:.6g}", inf.expected->published)});
    figure.row({"difference", fmt::format("{:+.2f} % ({} {:g} %)", inf.expected->delta_percent,
                                          inf.expected->within_tolerance ? "within" : "OUTSIDE",
                                          inf.expected->tolerance_percent)});
  }
  // The accuracy beside the figure, as the results table prints it, and what judged it.
  std::string judged;
  if (inf.accuracy) {
    const inference::AccuracyResult& a = *inf.accuracy;
    figure.row({"accuracy", escape(a.column.empty() ? "none" : a.column) + " " +
                                verdict(a.valid && a.files_valid, "valid", "invalid")});
    Table accuracy({"accuracy check", "passed", "value", "limit", "line", "message"});
    for (const auto* list : {&a.checks, &a.file_checks}) {
      for (const auto& c : *list) {
        accuracy.row({escape(c.name), verdict(c.passed, "yes", "no"),
                      escape(c.value.is_string() ? c.value.get<std::string>() : c.value.dump()),
                      escape(c.limit.is_string() ? c.limit.get<std::string>() : c.limit.dump()),
                      c.line ? std::to_string(c.line) : "", escape(c.message)});
      }
    }
    judged += accuracy.str();
  }
  // A power submission's figure beside the performance figure, and the checks that judged it.
  if (inf.power) {
    const inference::PowerResult& p = *inf.power;
    figure.row({"power", (p.power_metric ? escape(inference::power_text(p)) : "none") + " " +
                             verdict(p.valid, "valid", "invalid")});
    Table power({"power check", "passed", "value", "limit", "line", "message"});
    for (const auto& c : p.checks) {
      power.row({escape(c.name), verdict(c.passed, "yes", "no"), escape(c.value.dump()), escape(c.limit.dump()),
                 c.line ? std::to_string(c.line) : "", escape(c.message)});
    }
    judged += power.str();
  }
  if (inf.compliance_tests) {
    Table tests({"compliance test", "passed", "folder", "failed checks"});
    for (const auto& t : *inf.compliance_tests) {
      std::string failures;
      for (const auto& c : t.checks) {
        if (!c.passed) failures += (failures.empty() ? "" : "<br>") + escape(c.message);
      }
      tests.row({escape(t.test), verdict(t.valid, "yes", "no"), escape(t.dir), failures});
    }
    judged += tests.str();
  }
  if (!inf.submission_checks.empty()) {
    Table submission({"submission check", "passed", "file", "message"});
    for (const auto& c : inf.submission_checks) {
      submission.row({escape(c.name), verdict(c.passed, "yes", "no"), escape(c.file), escape(c.message)});
    }
    judged += submission.str();
  }
  page.raw("<div class=\"grid\">");
  page.chart(fmt::format("{} {} ({})", inf.model, inf.scenario, inf.valid ? "valid" : "INVALID"),
             {{"k", "bar"}, {"l", labels}, {"v", values}, {"c", codes}, {"y", inf.units}, {"hz", true}},
             figure.str() + checks.str() + judged);
  page.raw("</div>");
}

std::string result_score(const DirectoryResult& r) {
  if (r.inference) return num(r.inference->performance_result, "{:.6g}") + " " + escape(r.inference->units);
  return r.score_minutes ? fmt::format("{:.2f} min", *r.score_minutes) : "no score";
}

void directory_sections(Page& page, const std::vector<DirectoryResult>& results, RcpPass pass) {
  Table index({"directory", "benchmark", "score", "verdict"});
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    index.row({fmt::format("<a href=\"#{}\">{}</a>", anchor(i), escape(who(r.dir.submitter, r.dir.system))),
               escape(r.inference ? r.inference->model + " " + r.inference->scenario : r.benchmark),
               result_score(r), verdict(r.passed, r.inference ? "valid" : "passed", r.inference ? "invalid" : "failed")});
  }
  page.raw("<h2>Results</h2><div class=\"scroll\">" + index.str() + "</div>");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    page.raw(fmt::format("<section class=\"dir\" id=\"{}\"><h2>{} / {}</h2><p class=\"meta\">{} · platform {} · {} · "
                         "ruleset {} · {}</p>",
                         anchor(i), escape(who(r.dir.submitter, r.dir.system)),
                         escape(r.inference ? r.inference->model + " " + r.inference->scenario : r.benchmark),
                         escape(r.dir.path.string()), escape(r.platform.name.empty() ? "unknown" : r.platform.name),
                         escape(r.division), escape(r.inference ? r.inference->round : r.ruleset.str()),
                         verdict(r.passed, r.inference ? "valid" : "passed", r.inference ? "invalid" : "failed")));
    if (r.inference) {
      inference_section(page, r);
    } else {
      training_section(page, r, pass);
    }
    for (const auto& w : r.warnings) page.raw("<p class=\"meta\">warning: " + escape(w) + "</p>");
    for (const auto& e : r.errors) page.raw("<p class=\"bad\">" + escape(e) + "</p>");
    page.raw("</section>\n");
  }
}

}  // namespace

std::string score_report(const std::vector<DirectoryResult>& results, RcpPass pass) {
  Page page("mlperf-score report");
  page.raw(fmt::format("<h1>mlperf-score report</h1><p class=\"meta\">{} directories</p>", results.size()));
  directory_sections(page, results, pass);
  return page.str();
}

std::string summary_report(const Summary& summary, const std::vector<DirectoryResult>& results, RcpPass pass) {
  Page page("mlperf-score summary");
  std::string rulesets;
  for (const auto& r : summary.rulesets) rulesets += (rulesets.empty() ? "" : ", ") + r;
  page.raw(fmt::format("<h1>mlperf-score summary</h1><p class=\"meta\">{} systems · ruleset {}</p>",
                       summary.systems.size(), escape(rulesets)));
  std::vector<std::string> header = {"submitter", "system", "accelerator", "count"};
  for (const auto& b : summary.benchmarks) header.push_back(b);
  Table table(header);
  for (const auto& s : summary.systems) {
    std::vector<std::string> cells = {escape(s.submitter), escape(s.system_name.empty() ? s.system : s.system_name),
                                      escape(s.accelerator_model_name),
                                      s.accelerator_count ? std::to_string(*s.accelerator_count) : ""};
    for (std::size_t b = 0; b < summary.benchmarks.size(); ++b) {
      if (!s.result_index[b]) {
        cells.push_back("");
      } else {
        cells.push_back(fmt::format("<a href=\"#{}\">{}</a>", anchor(*s.result_index[b]),
                                    s.scores[b] ? fmt::format("{:.2f}", *s.scores[b]) : "no score"));
      }
    }
    table.row(std::move(cells));
  }
  page.raw("<h2>Scores (minutes)</h2><div class=\"scroll\">" + table.str() + "</div><div class=\"grid\">");
  for (std::size_t b = 0; b < summary.benchmarks.size(); ++b) {
    json labels = json::array(), values = json::array();
    Table numbers({"system", "minutes"});
    for (const auto& s : summary.systems) {
      if (!s.scores[b]) continue;
      labels.push_back(who(s.submitter, s.system));
      values.push_back(compact(*s.scores[b]));
      numbers.row({escape(who(s.submitter, s.system)), fmt::format("{:.2f}", *s.scores[b])});
    }
    if (labels.empty()) continue;
    page.chart(summary.benchmarks[b] + ": score per system",
               {{"k", "bar"}, {"l", labels}, {"v", values}, {"y", "minutes"}, {"hz", true}}, numbers.str());
  }
  page.raw("</div>");
  for (const auto& w : summary.warnings) page.raw("<p class=\"meta\">warning: " + escape(w) + "</p>");
  directory_sections(page, results, pass);
  return page.str();
}

std::string comparison_report(const Comparison& c) {
  Page page("mlperf-score comparison");
  page.raw("<h1>mlperf-score comparison</h1>");
  for (const auto& group : c.benchmarks) {
    json labels = json::array(), values = json::array(), codes = json::array(), lines = json::array();
    Table table({"directory", "figure", "units", "speedup", "counted runs", "min", "median", "max", "cv",
                 "converged", "mean samples to converge", "batch size", "normalization factor", "RCP"});
    std::string units;
    for (const auto& row : c.rows) {
      if (row.group != group) continue;
      // The group's figure: the inference result, weak scaling's throughput, else the score.
      const bool weak = row.scaling == "weak";
      std::optional<double> figure = row.score_minutes;
      if (row.inference) figure = row.performance_result;
      if (weak && row.weak) figure = row.weak->throughput;
      units = row.inference ? row.units : weak ? "models/minute" : "minutes";
      labels.push_back(who(row.submitter, row.system) + (row.is_baseline ? " (baseline)" : ""));
      values.push_back(compact_or_null(figure));
      codes.push_back(row.is_baseline ? "p" : row.passed ? "c" : "d");
      if (row.is_baseline && figure && lines.empty()) lines.push_back({"baseline", compact(*figure)});
      table.row({escape(row.directory) + (row.is_baseline ? " (baseline)" : ""), num(figure, "{:.6g}"), escape(units),
                 num(row.speedup, "{:.3f}"), std::to_string(row.minutes.counted_runs), num(row.minutes.min_minutes, "{:.2f}"),
                 num(row.minutes.median_minutes, "{:.2f}"), num(row.minutes.max_minutes, "{:.2f}"),
                 num(row.minutes.cv, "{:.4f}"), std::to_string(row.converged_runs),
                 num(row.mean_samples_to_converge, "{:.6g}"),
                 row.global_batch_size ? std::to_string(*row.global_batch_size) : "-",
                 row.normalization_factor ? fmt::format("{}", *row.normalization_factor) : "-",
                 row.rcp_passed ? verdict(*row.rcp_passed, "passed", "failed") : "-"});
    }
    page.raw("<section class=\"dir\"><h2>" + escape(group) + "</h2><div class=\"grid\">");
    page.chart(group + " (green: baseline)",
               {{"k", "bar"}, {"l", labels}, {"v", values}, {"c", codes}, {"h", lines}, {"y", units}, {"hz", true}},
               table.str());
    page.raw("</div></section>");
  }
  return page.str();
}

std::string check_report(const std::vector<CheckReport>& reports) {
  Page page("mlperf-score check");
  std::size_t passed = 0;
  for (const auto& r : reports) passed += r.passed() ? 1 : 0;
  page.raw(fmt::format("<h1>mlperf-score check</h1><p class=\"meta\">{} of {} directories passed</p>", passed,
                       reports.size()));
  for (const auto& r : reports) {
    page.raw(fmt::format("<section class=\"dir\"><h2>{} / {} {}</h2><p class=\"meta\">{} · {} · ruleset {}</p>",
                         escape(who(r.submitter, r.system)), escape(r.benchmark),
                         verdict(r.passed(), "passed", "failed"), escape(r.directory), escape(r.division),
                         escape(r.ruleset.str())));
    Table checks({"check", "verifies", "result", "errors", "warnings"});
    Table findings({"severity", "check", "where", "finding"});
    std::size_t finding_count = 0;
    for (const auto& c : r.checks) {
      checks.row({escape(c.check), escape(c.description), verdict(c.passed(), "passed", "failed"),
                  std::to_string(c.count(Finding::kError)), std::to_string(c.count(Finding::kWarning))});
      for (const auto& f : c.findings) {
        ++finding_count;
        std::string where = f.line ? fmt::format("{}:{}", f.file, f.line) : f.file;
        // A finding naming no file has no link (std::filesystem::absolute throws for "").
        std::string link = f.file.empty() ? escape(where)
                                          : fmt::format("<a href=\"{}\">{}</a>",
                                                        escape(file_url(std::filesystem::absolute(f.file))), escape(where));
        findings.row({f.severity == Finding::kError ? "<span class=\"bad\">error</span>" : "warning", escape(f.check),
                      std::move(link), escape(f.message)});
      }
    }
    page.raw("<div class=\"scroll\">" + checks.str() + "</div>");
    if (finding_count > 0) page.raw("<h3>Findings</h3><div class=\"scroll\">" + findings.str() + "</div>");
    page.raw("</section>\n");
  }
  return page.str();
}

}  // namespace mlperf::html
