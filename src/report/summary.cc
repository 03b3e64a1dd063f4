#include "mlperf/report/summary.h"
#include "mlperf/report/hpc_report.h"
#include "mlperf/inference/accuracy.h"
#include "mlperf/inference/power.h"
#include "mlperf/inference/result.h"
#include "mlperf/report/table_text.h"
#include "mlperf/report/exact_bytes.h"

#include <new>
#include <algorithm>
#include <map>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace mlperf {

namespace fs = std::filesystem;

namespace {

void add_column(std::vector<std::string>& columns, const std::string& benchmark) {
  if (std::find(columns.begin(), columns.end(), benchmark) == columns.end()) columns.push_back(benchmark);
}

const std::vector<std::string> kDescriptionColumns = {
    "submitter",    "system",      "system_name",  "division", "availability", "accelerator_model_name",
    "accelerator_count", "host_processor_model_name", "framework"};

// Headers of the table format (for people).
const std::vector<std::string> kTableHeaders = {"submitter", "system", "system name", "division", "availability",
                                                "accelerator", "#", "host processor", "framework"};

std::vector<std::string> description_cells(const SystemRow& s) {
  return {s.submitter,
          s.scaling.empty() ? s.system : s.system + "/" + s.scaling,  // MLPerf HPC: <system>/strong|weak
          s.system_name,
          s.division,
          s.availability,
          s.accelerator_model_name,
          s.accelerator_count ? std::to_string(*s.accelerator_count) : std::string(),
          s.host_processor_model_name,
          s.framework};
}

// A score cell: 2 decimals; `absent` when the system has no directory; "no score" when it
// has one without a valid score.
std::string score_cell(const SystemRow& s, std::size_t column, const char* absent, bool inference = false,
                       const std::string& name = "") {
  if (!s.result_index[column]) return absent;
  if (!s.scores[column]) return "no score";
  // Inference figures as the official table prints them (6 significant digits).
  if (inference) return fmt::format("{:.6g}", *s.scores[column]);
  if (const char* spec = weak_scaling_cell_format(name)) {  // MLPerf HPC weak-scaling columns
    return fmt::format(fmt::runtime(spec), *s.scores[column]);
  }
  return fmt::format("{:.2f}", *s.scores[column]);
}

// Inference columns are named <model>/<scenario>; training benchmark names hold no '/'.
bool is_inference_column(const std::string& name) { return name.find('/') != std::string::npos; }

// The figure columns of the written table: each benchmark's score, and after each inference
// column its Accuracy column ("<model>/<scenario> Accuracy") and, where a folder of it is a
// power submission, its Power column, as the official results table prints them beside the
// figure.
struct FigureColumn {
  enum Kind { kFigure, kAccuracy, kPower };
  std::size_t benchmark;  ///< index into Summary::benchmarks
  Kind kind = kFigure;
};

std::vector<FigureColumn> figure_columns(const Summary& summary) {
  std::vector<FigureColumn> out;
  for (std::size_t c = 0; c < summary.benchmarks.size(); ++c) {
    out.push_back({c, FigureColumn::kFigure});
    if (is_inference_column(summary.benchmarks[c])) out.push_back({c, FigureColumn::kAccuracy});
    if (c < summary.power.size() && summary.power[c]) out.push_back({c, FigureColumn::kPower});
  }
  return out;
}

std::string figure_header(const Summary& summary, const FigureColumn& f) {
  const std::string& name = summary.benchmarks[f.benchmark];
  return f.kind == FigureColumn::kAccuracy ? name + " Accuracy" : f.kind == FigureColumn::kPower ? name + " Power" : name;
}

// The Power cell: the folder's Power_Result with its units ("5013.79 Watts"); "" for a folder
// without a power figure, `absent` without a folder.
std::string power_cell(const SystemRow& s, std::size_t column, const std::vector<DirectoryResult>& results,
                       const char* absent) {
  if (!s.result_index[column]) return absent;
  const auto& i = results[*s.result_index[column]].inference;
  return i && i->power ? inference::power_text(*i->power) : std::string();
}

// The Accuracy cell: the results table's Accuracy text of the folder's accuracy run ("ROUGE1:
// 44.5088  ROUGE2: …"); `absent` without a folder, "" when its accuracy was not read.
std::string accuracy_cell(const SystemRow& s, std::size_t column, const std::vector<DirectoryResult>& results,
                          const char* absent) {
  if (!s.result_index[column]) return absent;
  const auto& i = results[*s.result_index[column]].inference;
  return i && i->accuracy ? i->accuracy->column : std::string();
}

std::string figure_cell(const Summary& summary, const SystemRow& s, const FigureColumn& f,
                        const std::vector<DirectoryResult>& results, const char* absent) {
  if (f.kind == FigureColumn::kAccuracy) return accuracy_cell(s, f.benchmark, results, absent);
  if (f.kind == FigureColumn::kPower) return power_cell(s, f.benchmark, results, absent);
  return score_cell(s, f.benchmark, absent, is_inference_column(summary.benchmarks[f.benchmark]),
                    summary.benchmarks[f.benchmark]);
}

}  // namespace

Summary summarize(const std::vector<DirectoryResult>& results, const Facts& facts) {
  Summary summary;
  // Columns: each ruleset's round, then strays.
  for (const auto& r : results) {
    if (r.dir.loadgen) continue;  // inference columns are model/scenario, in order of appearance
    std::string ruleset = ruleset_label(r.ruleset);  // "hpc 3.0.0" for MLPerf HPC
    if (std::find(summary.rulesets.begin(), summary.rulesets.end(), ruleset) != summary.rulesets.end()) continue;
    summary.rulesets.push_back(ruleset);
    auto round = facts.rounds.find(r.ruleset);
    if (round != facts.rounds.end()) {
      for (const auto& b : round->second) add_column(summary.benchmarks, b);
    }
  }
  // MLPerf HPC weak scaling: the official weak-scaling table's columns per benchmark.
  const bool any_weak = std::any_of(results.begin(), results.end(), [](const DirectoryResult& r) { return r.weak.has_value(); });
  if (any_weak) {
    std::vector<std::string> names = summary.benchmarks;
    for (const auto& r : results) {
      if (r.weak) add_column(names, r.benchmark);
    }
    for (const auto& b : names) {
      if (is_inference_column(b)) continue;
      for (const auto& c : weak_scaling_columns(b)) add_column(summary.benchmarks, c);
    }
  }
  for (const auto& r : results) {
    if (!r.weak) add_column(summary.benchmarks, r.benchmark);
  }
  const std::size_t columns = summary.benchmarks.size();

  // Rows: one per system folder (the parent of the benchmark directories).
  std::map<std::string, std::size_t> row_of;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const DirectoryResult& r = results[i];
    fs::path norm = fs::absolute(r.dir.path).lexically_normal();
    if (!norm.has_filename()) norm = norm.parent_path();
    // Inference: <system>/<model>/<scenario>, one row per system as the official table.
    std::string key = (r.dir.loadgen && !r.dir.loadgen->bare ? norm.parent_path() : norm).parent_path().string();
    // MLPerf HPC: the key is <system>/strong or <system>/weak, a row each, as the official tables.
    auto [it, inserted] = row_of.emplace(key, summary.systems.size());
    if (inserted) {
      SystemRow row;
      row.submitter = r.dir.submitter;
      row.system = r.dir.system;
      row.division = r.division;
      row.accelerator_model_name = r.accelerator_model_name;
      row.scaling = r.dir.scaling;
      row.result_index.resize(columns);
      row.scores.resize(columns);
      if (r.dir.system_description) {
        row.system_description = r.dir.system_description->string();
        try {
          SystemDescription d = read_system_description(*r.dir.system_description);
          row.system_name = d.system_name;
          if (!d.division.empty()) row.division = d.division;
          row.availability = d.availability;
          if (!d.accelerator_model_name.empty()) row.accelerator_model_name = d.accelerator_model_name;
          if (d.accelerators_per_node && d.number_of_nodes) {
            row.accelerator_count = *d.accelerators_per_node * *d.number_of_nodes;
          }
          row.host_processor_model_name = d.host_processor_model_name;
          row.framework = d.framework;
        } catch (const std::bad_alloc&) {
          throw;  // out of memory is never a finding: main.cc says so, exit 2
        } catch (const std::exception& e) {
          summary.warnings.push_back(e.what());
        }
      }
      summary.systems.push_back(std::move(row));
    }
    SystemRow& row = summary.systems[it->second];
    if (r.weak) {  // MLPerf HPC weak scaling: its four figures
      const auto cells = weak_scaling_cells(*r.weak);
      const auto names = weak_scaling_columns(r.benchmark);
      for (std::size_t k = 0; k < names.size(); ++k) {
        std::size_t c = std::find(summary.benchmarks.begin(), summary.benchmarks.end(), names[k]) - summary.benchmarks.begin();
        if (row.result_index[c]) continue;
        row.result_index[c] = i;
        row.scores[c] = cells[k];
      }
      continue;
    }
    std::size_t column =
        std::find(summary.benchmarks.begin(), summary.benchmarks.end(), r.benchmark) - summary.benchmarks.begin();
    if (row.result_index[column]) {
      summary.warnings.push_back(fmt::format("{} and {} are both {} of system {}; the first is shown",
                                             results[*row.result_index[column]].dir.path.string(),
                                             r.dir.path.string(), r.benchmark, row.system));
      continue;
    }
    row.result_index[column] = i;
    row.scores[column] = r.inference ? r.inference->performance_result : r.score_minutes;
    if (r.inference && r.inference->power) {
      summary.power.resize(columns);
      summary.power[column] = true;
    }
  }
  return summary;
}

nlohmann::json to_json(const Summary& summary, const std::vector<DirectoryResult>& results, RcpPass pass) {
  nlohmann::json systems = nlohmann::json::array();
  for (const auto& s : summary.systems) {
    nlohmann::json scores = nlohmann::json::object();
    nlohmann::json directories = nlohmann::json::object();
    nlohmann::json accuracy = nlohmann::json::object();
    nlohmann::json power = nlohmann::json::object();
    for (std::size_t c = 0; c < summary.benchmarks.size(); ++c) {
      if (!s.result_index[c]) continue;
      scores[summary.benchmarks[c]] = json_number_or_null(s.scores[c]);
      if (is_inference_column(summary.benchmarks[c])) {
        const auto& i = results[*s.result_index[c]].inference;
        accuracy[summary.benchmarks[c]] = i && i->accuracy ? nlohmann::json(i->accuracy->column) : nlohmann::json();
        if (i && i->power) {
          power[summary.benchmarks[c]] = {{"power_result", json_number_or_null(i->power->power_metric)},
                                          {"power_units", i->power->units}};
        }
      }
      directories[summary.benchmarks[c]] = results[*s.result_index[c]].dir.path.string();
    }
    systems.push_back({
        {"submitter", json_string_or_null(s.submitter)},
        {"system", json_string_or_null(s.system)},
        {"system_name", json_string_or_null(s.system_name)},
        {"division", json_string_or_null(s.division)},
        {"availability", json_string_or_null(s.availability)},
        {"accelerator_model_name", json_string_or_null(s.accelerator_model_name)},
        {"accelerator_count", s.accelerator_count ? nlohmann::json(*s.accelerator_count) : nlohmann::json()},
        {"host_processor_model_name", json_string_or_null(s.host_processor_model_name)},
        {"framework", json_string_or_null(s.framework)},
        {"system_description", json_string_or_null(s.system_description)},
        {"scaling", json_string_or_null(s.scaling)},
        {"scores", scores},
        {"accuracy", accuracy},
        {"power", power},
        {"directories", directories},
    });
  }
  nlohmann::json all = nlohmann::json::array();
  for (const auto& r : results) all.push_back(to_json(r, pass));
  return {{"rulesets", summary.rulesets},
          {"benchmarks", summary.benchmarks},
          {"systems", systems},
          {"results", all},
          {"warnings", summary.warnings}};
}

void write_summary(std::ostream& out, const Summary& summary, const std::vector<DirectoryResult>& results,
                   ReportFormat format, RcpPass pass) {
  const std::vector<FigureColumn> figures = figure_columns(summary);
  switch (format) {
    case ReportFormat::kJson:
    {
      nlohmann::json doc = to_json(summary, results, pass);
      add_exact_bytes(doc);  // names that are not UTF-8: their exact bytes too (exact_bytes.h)
      out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
      break;
    }
    case ReportFormat::kCsv: {
      std::vector<std::string> header = kDescriptionColumns;
      for (const auto& f : figures) header.push_back(figure_header(summary, f));
      for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << csv_field(header[i]);
      out << '\n';
      for (const auto& s : summary.systems) {
        auto row = description_cells(s);
        for (const auto& f : figures) row.push_back(figure_cell(summary, s, f, results, ""));
        for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csv_field(row[i]);
        out << '\n';
      }
      break;
    }
    case ReportFormat::kMarkdown: {
      std::vector<std::string> header = kDescriptionColumns;
      for (const auto& f : figures) header.push_back(figure_header(summary, f));
      out << '|';
      for (const auto& h : header) out << ' ' << markdown_cell(h) << " |";
      out << "\n|";
      for (std::size_t i = 0; i < header.size(); ++i) {
        const bool text = i < kDescriptionColumns.size() || figures[i - kDescriptionColumns.size()].kind == FigureColumn::kAccuracy;
        out << (text ? "---|" : "---:|");
      }
      out << '\n';
      for (const auto& s : summary.systems) {
        out << '|';
        for (const auto& cell : description_cells(s)) out << ' ' << markdown_cell(cell) << " |";
        for (const auto& f : figures) out << ' ' << markdown_cell(figure_cell(summary, s, f, results, "")) << " |";
        out << '\n';
      }
      break;
    }
    case ReportFormat::kTable: {
      std::vector<std::string> header = kTableHeaders;
      for (const auto& f : figures) header.push_back(figure_header(summary, f));
      std::vector<std::vector<std::string>> table;
      for (const auto& s : summary.systems) {
        auto row = description_cells(s);
        for (auto& cell : row) {
          if (cell.empty()) cell = "-";
        }
        for (const auto& f : figures) {
          std::string cell = figure_cell(summary, s, f, results, "-");
          row.push_back(cell.empty() ? "-" : cell);
        }
        table.push_back(std::move(row));
      }
      std::vector<std::size_t> width(header.size());
      for (std::size_t i = 0; i < header.size(); ++i) {
        width[i] = display_width(header[i]);
        for (const auto& row : table) width[i] = std::max(width[i], display_width(row[i]));
      }
      bool inference = std::any_of(summary.benchmarks.begin(), summary.benchmarks.end(), is_inference_column);
      if (!summary.rulesets.empty() || !inference) {
        fmt::print(out, "Scores in minutes (time to train × RCP normalization factor), ruleset {}\n",
                   summary.rulesets.empty() ? std::string("-") : fmt::format("{}", fmt::join(summary.rulesets, ", ")));
        if (std::any_of(results.begin(), results.end(), [](const DirectoryResult& r) { return r.weak.has_value(); })) {
          fmt::print(out, "{}\n", kWeakScalingLegend);
        }
      }
      if (inference) {
        fmt::print(out, "Inference: Performance_Result per <model>/<scenario> as the official results table "
                        "(Tokens/s, Samples/s, Queries/s or Latency (ms)), and its Accuracy column\n");
        if (std::find(summary.power.begin(), summary.power.end(), true) != summary.power.end()) {
          fmt::print(out, "Power: Power_Result of a power submission (Watts; millijoules per query for "
                          "SingleStream and MultiStream)\n");
        }
      }
      auto print_row = [&](const std::vector<std::string>& row) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
          // counts and scores right-aligned, accuracy text left-aligned
          bool figure = i == 6 || (i >= kTableHeaders.size() && figures[i - kTableHeaders.size()].kind != FigureColumn::kAccuracy);
          line += (i ? "  " : "") + pad(row[i], width[i], figure);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out << line << '\n';
      };
      print_row(header);
      for (const auto& row : table) print_row(row);
      break;
    }
  }
}

}  // namespace mlperf
