#include "mlperf/report/compare.h"
#include "mlperf/inference/accuracy.h"
#include "mlperf/inference/power.h"
#include "mlperf/inference/score.h"
#include "mlperf/report/table_text.h"
#include "mlperf/report/exact_bytes.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace mlperf {

namespace {

// The global batch size all runs that logged one agree on.
std::optional<long long> common_batch_size(const std::vector<Run>& runs) {
  std::optional<long long> found;
  for (const auto& run : runs) {
    if (!run.global_batch_size) continue;
    if (found && *found != *run.global_batch_size) return std::nullopt;
    found = run.global_batch_size;
  }
  return found;
}

const std::vector<std::string> kColumns = {
    "benchmark",      "directory",      "submitter",    "system",         "platform",
    "division",       "ruleset",        "score_minutes", "speedup",       "baseline_directory",
    "counted_runs",   "min_minutes",    "median_minutes", "max_minutes",  "cv_minutes",
    "converged_runs", "mean_samples_to_converge", "global_batch_size", "normalization_factor",
    "rcp_passed",     "passed",         "kind",         "performance_result", "units",
    "scaling",        "number_of_models", "instance_scale", "time_to_train_all_minutes", "throughput",
    "accuracy",       "power_result",   "power_units"};

// The cells of kColumns; `full` keeps full precision (csv), else figures are rounded. A cell
// that does not apply to the row's kind is empty.
std::vector<std::string> cells(const ComparisonRow& r, bool full) {
  auto num = [&](const std::optional<double>& v, const char* spec) {
    if (!v || !std::isfinite(*v)) return std::string();
    return full ? fmt::format("{}", *v) : fmt::format(fmt::runtime(spec), *v);
  };
  if (r.inference) {
    // A loadgen result: its figure and speedup; the run, minutes and RCP cells stay empty.
    return {r.benchmark, r.directory, r.submitter, r.system, r.platform, r.division, r.ruleset, "",
            num(r.speedup, "{:.3f}"), r.baseline_directory, "", "", "", "", "", "", "", "", "", "",
            r.passed ? "true" : "false", "inference", num(r.performance_result, "{:.6g}"), r.units,
            "", "", "", "", "", r.accuracy, num(r.power_result, "{:.6g}"), r.power_units};
  }
  const WeakScalingScore* w = r.weak ? &*r.weak : nullptr;
  return {r.benchmark,
          r.directory,
          r.submitter,
          r.system,
          r.platform,
          r.division,
          r.ruleset,
          num(r.score_minutes, "{:.2f}"),
          num(r.speedup, "{:.3f}"),
          r.baseline_directory,
          std::to_string(r.minutes.counted_runs),
          num(r.minutes.min_minutes, "{:.4f}"),
          num(r.minutes.median_minutes, "{:.4f}"),
          num(r.minutes.max_minutes, "{:.4f}"),
          num(r.minutes.cv, "{:.4f}"),
          std::to_string(r.converged_runs),
          num(r.mean_samples_to_converge, "{:.2f}"),
          r.global_batch_size ? std::to_string(*r.global_batch_size) : std::string(),
          num(r.normalization_factor, "{:.6f}"),
          r.rcp_passed ? (*r.rcp_passed ? "true" : "false") : "",
          r.passed ? "true" : "false",
          "training",
          "",
          "",
          r.scaling,
          w && w->number_of_models ? std::to_string(*w->number_of_models) : "",
          w && w->instance_scale ? std::to_string(*w->instance_scale) : "",
          w ? num(w->time_to_train_all_minutes, "{:.4f}") : "",
          w ? num(w->throughput, "{:.4f}") : "",
          "", "", ""};
}

std::string fixed(const std::optional<double>& v, const char* spec) {
  return v && std::isfinite(*v) ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

// The table of one group: its title line, then a header and a row per directory with the
// columns of its kind (the time to train and its spread; weak scaling's figures; the
// inference figure).
struct GroupTable {
  std::string unit_note;  ///< what the figures are, after the baseline in the title
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  bool power = false;                    ///< an inference row has a power figure: a power column
  std::vector<std::string> power_cells;  ///< per inference row, its power figure or "-"
};

GroupTable group_table(const Comparison& c, const std::string& group) {
  GroupTable t;
  for (const auto& r : c.rows) {
    if (r.group != group) continue;
    const std::string submitter = r.submitter.empty() ? "-" : r.submitter;
    const std::string system = r.system.empty() ? "-" : r.system;
    const std::string platform = r.platform.empty() ? "unknown" : r.platform;
    const std::string speedup = r.speedup ? fmt::format("{:.3f}x", *r.speedup) : "-";
    const std::string cv = r.minutes.cv ? fmt::format("{:.2f}", *r.minutes.cv * 100.0) : "-";
    if (r.inference) {
      t.unit_note = "the figure of the official results table";
      t.header = {"submitter", "system", "platform", "result", "speedup", "verdict", "accuracy"};
      t.rows.push_back({submitter, system, platform,
                        r.performance_result ? inference::figure_text(*r.performance_result) + " " + r.units : "-",
                        speedup, r.passed ? "PASSED" : "FAILED", r.accuracy.empty() ? "-" : r.accuracy});
      if (r.power_result) t.power = true;
      t.power_cells.push_back(r.power_result ? inference::figure_text(*r.power_result) + " " + r.power_units : "-");
    } else if (r.scaling == "weak") {  // as group_of: every row of a group takes one branch
      const WeakScalingScore w = r.weak.value_or(WeakScalingScore{});
      t.unit_note = "throughput in models per minute, times in minutes";
      t.header = {"submitter", "system",  "platform", "throughput", "speedup", "models", "instance scale",
                  "time to train all", "min", "median", "max", "CV %"};
      t.rows.push_back({submitter, system, platform, fixed(w.throughput, "{:.4f}"), speedup,
                        w.number_of_models ? std::to_string(*w.number_of_models) : "-",
                        w.instance_scale ? std::to_string(*w.instance_scale) : "-",
                        fixed(w.time_to_train_all_minutes, "{:.4f}"), fixed(r.minutes.min_minutes, "{:.4f}"),
                        fixed(r.minutes.median_minutes, "{:.4f}"), fixed(r.minutes.max_minutes, "{:.4f}"), cv});
    } else {
      t.unit_note = "score and run times in minutes";
      t.header = {"submitter", "system", "platform", "score", "speedup", "min", "median", "max", "CV %",
                  "mean samples to converge", "batch size", "RCP factor"};
      t.rows.push_back({submitter, system, platform, fixed(r.score_minutes, "{:.2f}"), speedup,
                        fixed(r.minutes.min_minutes, "{:.4f}"), fixed(r.minutes.median_minutes, "{:.4f}"),
                        fixed(r.minutes.max_minutes, "{:.4f}"), cv, fixed(r.mean_samples_to_converge, "{:.2f}"),
                        r.global_batch_size ? std::to_string(*r.global_batch_size) : "-",
                        fixed(r.normalization_factor, "{:.6f}")});
    }
  }
  // An inference group with a power submission: its power figure beside the result.
  if (t.power) {
    t.header.insert(t.header.begin() + 4, "power");
    for (std::size_t k = 0; k < t.rows.size(); ++k) t.rows[k].insert(t.rows[k].begin() + 4, t.power_cells[k]);
  }
  return t;
}

void write_comparison_table(std::ostream& out, const Comparison& c) {
  bool first_group = true;
  for (const auto& group : c.benchmarks) {
    std::string baseline;
    for (const auto& r : c.rows) {
      if (r.group == group && !r.baseline_directory.empty()) {
        baseline = r.baseline_directory;
        break;
      }
    }
    const GroupTable t = group_table(c, group);
    std::vector<std::size_t> width(t.header.size());
    for (std::size_t i = 0; i < t.header.size(); ++i) {
      width[i] = display_width(t.header[i]);
      for (const auto& row : t.rows) width[i] = std::max(width[i], display_width(row[i]));
    }
    if (!first_group) out << '\n';
    first_group = false;
    fmt::print(out, "{}   (baseline: {}; {})\n", group, baseline.empty() ? "none" : baseline, t.unit_note);
    auto print_row = [&](const std::vector<std::string>& row) {
      std::string line;
      for (std::size_t i = 0; i < row.size(); ++i) {
        // Names and words left-aligned, figures right-aligned.
        const bool words = t.header[i] == "verdict" || t.header[i] == "accuracy";
        line += "  " + pad(row[i], width[i], i >= 3 && !words);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << '\n';
    };
    print_row(t.header);
    for (const auto& row : t.rows) print_row(row);
  }
}

// The group a result is compared in (ComparisonRow::group).
std::string group_of(const DirectoryResult& r) {
  return !r.inference && r.scaling == "weak" ? r.benchmark + " (weak scaling)" : r.benchmark;
}

}  // namespace

RunMinutesStats run_minutes_stats(const std::vector<Run>& runs) {
  std::vector<double> minutes;
  for (const auto& run : runs) {
    if (run.counted()) minutes.push_back(*run.minutes);
  }
  RunMinutesStats s;
  s.counted_runs = static_cast<int>(minutes.size());
  if (minutes.empty()) return s;
  std::sort(minutes.begin(), minutes.end());
  const std::size_t n = minutes.size();
  s.min_minutes = minutes.front();
  s.max_minutes = minutes.back();
  s.median_minutes = n % 2 == 1 ? minutes[n / 2] : (minutes[n / 2 - 1] + minutes[n / 2]) / 2.0;
  double sum = 0;
  for (double m : minutes) sum += m;
  const double mean = sum / static_cast<double>(n);
  s.mean_minutes = mean;
  double squares = 0;
  for (double m : minutes) squares += (m - mean) * (m - mean);
  const double stdev = std::sqrt(squares / static_cast<double>(n));  // population (divide by N)
  if (mean > 0) s.cv = stdev / mean;
  return s;
}

Comparison compare_results(const std::vector<DirectoryResult>& results, std::size_t baseline_count) {
  Comparison c;
  std::map<std::string, std::size_t> baseline_of;  // group → index of its baseline result
  for (std::size_t i = 0; i < std::min(baseline_count, results.size()); ++i) {
    baseline_of.emplace(group_of(results[i]), i);
  }
  std::vector<std::string> groups(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    groups[i] = group_of(results[i]);
    if (std::find(c.benchmarks.begin(), c.benchmarks.end(), groups[i]) == c.benchmarks.end()) {
      c.benchmarks.push_back(groups[i]);
    }
  }
  for (const auto& group : c.benchmarks) {
    for (std::size_t i = 0; i < results.size(); ++i) {
      const DirectoryResult& r = results[i];
      if (groups[i] != group) continue;
      ComparisonRow row;
      row.result_index = i;
      row.directory = r.dir.path.string();
      row.submitter = r.dir.submitter;
      row.system = r.dir.system;
      row.benchmark = r.benchmark;
      row.group = group;
      row.platform = r.platform.name;
      row.division = r.division;
      row.ruleset = r.ruleset.str();
      row.score_minutes = r.score_minutes;
      row.passed = r.passed;
      auto base = baseline_of.find(group);
      const DirectoryResult* b = base != baseline_of.end() ? &results[base->second] : nullptr;
      if (b) {
        row.is_baseline = base->second == i;
        row.baseline_directory = b->dir.path.string();
        row.baseline_score_minutes = b->score_minutes;
      }
      if (r.inference) {
        row.inference = true;
        row.performance_result = r.inference->performance_result;
        row.units = r.inference->units;
        if (r.inference->accuracy) row.accuracy = r.inference->accuracy->column;
        if (r.inference->power && r.inference->power->power_metric) {
          row.power_result = r.inference->power->power_metric;
          row.power_units = r.inference->power->units;
        }
        if (b) row.speedup = inference::speedup(*b, r);
        c.rows.push_back(std::move(row));
        continue;  // no runs, minutes or RCP check
      }
      row.scaling = r.scaling;
      row.weak = r.weak;
      if (r.scaling == "weak") {
        // More models per minute is faster: this throughput over the baseline's.
        const std::optional<double> mine = r.weak ? r.weak->throughput : std::nullopt;
        const std::optional<double> theirs = b && b->weak ? b->weak->throughput : std::nullopt;
        if (mine && theirs && *theirs > 0) row.speedup = *mine / *theirs;
      } else {
        if (b && b->score_minutes && r.score_minutes && *r.score_minutes > 0) {
          row.speedup = *b->score_minutes / *r.score_minutes;
        }
        if (std::isfinite(r.rcp.normalization_factor)) row.normalization_factor = r.rcp.normalization_factor;
        if (r.rcp.rcp_case != RcpCase::kNotChecked) row.rcp_passed = r.rcp.passed;
      }
      row.minutes = run_minutes_stats(r.runs);
      double samples = 0;
      for (const auto& run : r.runs) {
        if (run.converged && std::isfinite(run.samples_to_converge)) {
          ++row.converged_runs;
          samples += run.samples_to_converge;
        }
      }
      if (row.converged_runs > 0) row.mean_samples_to_converge = samples / row.converged_runs;
      row.global_batch_size = common_batch_size(r.runs);
      c.rows.push_back(std::move(row));
    }
  }
  return c;
}

nlohmann::json to_json(const ComparisonRow& r) {
  const WeakScalingScore* w = r.weak ? &*r.weak : nullptr;
  auto count = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {
      {"directory", r.directory},
      {"submitter", json_string_or_null(r.submitter)},
      {"system", json_string_or_null(r.system)},
      {"benchmark", r.benchmark},
      {"group", r.group},
      {"kind", r.inference ? "inference" : "training"},
      {"scaling", json_string_or_null(r.scaling)},
      {"platform", json_string_or_null(r.platform)},
      {"division", r.division},
      {"ruleset", r.ruleset},
      {"score_minutes", json_number_or_null(r.score_minutes)},
      {"performance_result", json_number_or_null(r.performance_result)},
      {"units", json_string_or_null(r.units)},
      {"accuracy", json_string_or_null(r.accuracy)},
      {"power_result", json_number_or_null(r.power_result)},
      {"power_units", json_string_or_null(r.power_units)},
      {"passed", r.passed},
      {"is_baseline", r.is_baseline},
      {"baseline_directory", json_string_or_null(r.baseline_directory)},
      {"baseline_score_minutes", json_number_or_null(r.baseline_score_minutes)},
      {"speedup", json_number_or_null(r.speedup)},
      {"counted_runs", r.minutes.counted_runs},
      {"min_minutes", json_number_or_null(r.minutes.min_minutes)},
      {"median_minutes", json_number_or_null(r.minutes.median_minutes)},
      {"max_minutes", json_number_or_null(r.minutes.max_minutes)},
      {"mean_minutes", json_number_or_null(r.minutes.mean_minutes)},
      {"cv_minutes", json_number_or_null(r.minutes.cv)},
      {"converged_runs", r.converged_runs},
      {"mean_samples_to_converge", json_number_or_null(r.mean_samples_to_converge)},
      {"global_batch_size", r.global_batch_size ? nlohmann::json(*r.global_batch_size) : nlohmann::json()},
      {"normalization_factor", json_number_or_null(r.normalization_factor)},
      {"rcp_passed", r.rcp_passed ? nlohmann::json(*r.rcp_passed) : nlohmann::json()},
      {"number_of_models", w ? count(w->number_of_models) : nlohmann::json()},
      {"instance_scale", w ? count(w->instance_scale) : nlohmann::json()},
      {"time_to_train_all_minutes", json_number_or_null(w ? w->time_to_train_all_minutes : std::nullopt)},
      {"throughput", json_number_or_null(w ? w->throughput : std::nullopt)},
  };
}

void write_comparison(std::ostream& out, const Comparison& c, ReportFormat format) {
  switch (format) {
    case ReportFormat::kJson: {
      nlohmann::json doc = {{"benchmarks", c.benchmarks}, {"rows", nlohmann::json::array()}};
      for (const auto& r : c.rows) doc["rows"].push_back(to_json(r));
      add_exact_bytes(doc);  // names that are not UTF-8: their exact bytes too (exact_bytes.h)
      out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
      break;
    }
    case ReportFormat::kTable:
      write_comparison_table(out, c);
      break;
    case ReportFormat::kCsv: {
      for (std::size_t i = 0; i < kColumns.size(); ++i) out << (i ? "," : "") << kColumns[i];
      out << '\n';
      for (const auto& r : c.rows) {
        auto row = cells(r, true);
        for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csv_field(row[i]);
        out << '\n';
      }
      break;
    }
    case ReportFormat::kMarkdown: {
      out << '|';
      for (const auto& h : kColumns) out << ' ' << h << " |";
      out << "\n|";
      for (std::size_t i = 0; i < kColumns.size(); ++i) out << "---|";
      out << '\n';
      for (const auto& r : c.rows) {
        out << '|';
        for (const auto& cell : cells(r, false)) out << ' ' << markdown_cell(cell) << " |";
        out << '\n';
      }
      break;
    }
  }
}

}  // namespace mlperf
