// MLPerf Inference Power: check_power_dir and get_power_metric of the submission checker
// (power.h).
#include "mlperf/inference/power.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <exception>
#include <new>

#include "mlperf/inference/folder_files.h"
#include "mlperf/inference/score.h"
#include "mlperf/mllog/folder_listing.h"

namespace mlperf::inference {

namespace fs = std::filesystem;

namespace {

// REQUIRED_POWER_FILES: what performance/power holds, nothing else (files_diff without optional files).
const std::vector<std::string>& required_power_files() {
  static const std::vector<std::string> files{"client.json", "client.log", "ptd_logs.txt", "server.json", "server.log"};
  return files;
}

// Reads `min`..`max` decimal digits at text[at], advancing `at`; false when fewer than `min`.
bool read_digits(std::string_view text, std::size_t& at, std::size_t min, std::size_t max, int& value,
                 std::size_t* count = nullptr) {
  std::size_t n = 0;
  value = 0;
  while (n < max && at < text.size() && text[at] >= '0' && text[at] <= '9') {
    value = value * 10 + (text[at] - '0');
    ++at;
    ++n;
  }
  if (count) *count = n;
  return n >= min;
}

bool expect(std::string_view text, std::size_t& at, char c) {
  if (at >= text.size() || text[at] != c) return false;
  ++at;
  return true;
}

// Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

unsigned days_in_month(int y, int m) {
  static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : days[m - 1];
}

// The fields of a line split at every comma (str.split(",")).
std::vector<std::string_view> comma_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (std::size_t i = line.find(','); i != std::string_view::npos; i = line.find(',', start)) {
    fields.push_back(line.substr(start, i - start));
    start = i + 1;
  }
  fields.push_back(line.substr(start));
  return fields;
}

// The samples of spl.txt inside (begin, end): their count and sum, in file order; a message
// naming the file and line when a line the checker reads does not parse.
struct PowerSamples {
  std::size_t count = 0;
  double sum = 0;
  std::string error;
};

PowerSamples read_power_samples(const fs::path& spl, std::int64_t begin, std::int64_t end) {
  PowerSamples s;
  const std::optional<std::vector<std::string>> lines = read_text_lines(spl);
  if (!lines) {
    s.error = fmt::format("{} cannot be read", spl.string());
    return s;
  }
  for (std::size_t i = 0; i < lines->size(); ++i) {
    const std::string_view line = (*lines)[i];
    if (line.rfind("Time", 0) != 0) continue;
    const std::vector<std::string_view> fields = comma_fields(line);
    std::optional<std::int64_t> at = fields.size() > 1 ? parse_power_timestamp(fields[1]) : std::nullopt;
    if (!at) {
      s.error = fmt::format("{}:{}: no timestamp as %m-%d-%Y %H:%M:%S.%f in its second field", spl.string(), i + 1);
      return s;
    }
    if (*at <= begin || *at >= end) continue;
    std::optional<double> watts = fields.size() > 3 ? python_float(fields[3]) : std::nullopt;
    if (!watts) {
      s.error = fmt::format("{}:{}: its fourth field is not a number of watts", spl.string(), i + 1);
      return s;
    }
    if (*watts > 0) {
      s.sum += *watts;  // in file order, as Python's sum() of the list adds them
      ++s.count;
    }
  }
  return s;
}

}  // namespace

std::string power_text(const PowerResult& power) {
  return power.power_metric ? figure_text(*power.power_metric) + " " + power.units : std::string();
}

bool has_power_measurement(const fs::path& scenario_dir) {
  return listed_exists((scenario_dir / "performance" / "power").native());
}

std::optional<std::int64_t> parse_power_timestamp(std::string_view text) {
  std::size_t at = 0;
  int month = 0, day = 0, year = 0, hour = 0, minute = 0, second = 0, fraction = 0;
  std::size_t fraction_digits = 0;
  if (!read_digits(text, at, 1, 2, month) || !expect(text, at, '-') || !read_digits(text, at, 1, 2, day) ||
      !expect(text, at, '-') || !read_digits(text, at, 4, 4, year) || !expect(text, at, ' ') ||
      !read_digits(text, at, 1, 2, hour) || !expect(text, at, ':') || !read_digits(text, at, 1, 2, minute) ||
      !expect(text, at, ':') || !read_digits(text, at, 1, 2, second) || !expect(text, at, '.') ||
      !read_digits(text, at, 1, 6, fraction, &fraction_digits) || at != text.size()) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || static_cast<unsigned>(day) > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    return std::nullopt;
  }
  for (std::size_t k = fraction_digits; k < 6; ++k) fraction *= 10;  // %f: "858" is 858000 µs
  const std::int64_t seconds = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 +
                               hour * 3600 + minute * 60 + second;
  return seconds * 1000000 + fraction;
}

ValidityCheck judge_power_measurement_files(const std::string& measurement_dir) {
  // The measurements folder and three above it, their files in name order, as the checker
  // lists them (the last match wins, and its size is the one judged).
  std::vector<std::string> files;
  fs::path folder(measurement_dir);
  for (int up = 0; up < 4; ++up) {
    for (const auto& name : regular_files_in(folder.native())) files.push_back((folder / name).string());
    folder = folder.parent_path();
  }
  std::vector<std::string> problems;
  const std::vector<std::string> required{"analyzer_table.*", "power_settings.*"};
  for (const auto& pattern : required) {
    const std::string prefix = pattern.substr(0, pattern.size() - 2);
    const std::string* found = nullptr;
    for (const auto& f : files) {
      if (fs::path(f).filename().string().rfind(prefix, 0) == 0) found = &f;
    }
    if (!found) {
      problems.push_back(pattern + " missing");
    } else if (listed_file_size(*found) == std::optional<std::uintmax_t>(0)) {
      problems.push_back(*found + " empty");
    }
  }
  return {"measurements_power_files", problems.empty(), problems.empty() ? nlohmann::json(required) : nlohmann::json(problems),
          required, 0,
          problems.empty() ? std::string()
                           : fmt::format("{}: {} (check_measurement_dir, a power submission)", measurement_dir,
                                         fmt::join(problems, "; ")),
          measurement_dir};
}

PowerResult judge_power(const fs::path& scenario_dir, const LoadgenLog& run, std::optional<double> performance,
                        const InferenceRules& rules, const KeySet& keys, const std::string& round,
                        const std::string& model_folder, const std::string& scenario, const std::string& division,
                        bool file_lists, bool ranging_figure) {
  PowerResult p;
  const fs::path performance_dir = scenario_dir / "performance";
  const fs::path ranging = performance_dir / "ranging";
  const fs::path power = performance_dir / "power";
  p.power_dir = power.string();
  p.samples_file = (performance_dir / "run_1" / kPowerSamplesName).string();
  const bool per_query = scenario == "SingleStream" || scenario == "MultiStream";
  p.units = per_query ? "millijoules" : "Watts";
  auto add = [&](ValidityCheck c) {
    p.valid = p.valid && c.passed;
    p.checks.push_back(std::move(c));
  };

  // The ranging run: its figure must be readable (get_performance_metric; check_ranging_dir).
  if (ranging_figure) {
    const fs::path log_file = ranging / std::string(kDetailLogName);
    std::string why;
    try {
      std::optional<LoadgenLog> log = read_detail_log_if_present(log_file, keys);
      if (!log) {
        why = "it is missing";
      } else {
        InferenceResult r = score_loadgen_run(*log, rules, round, model_folder, scenario, division);
        if (!r.performance_result) why = fmt::format("no {} in it", r.metric.empty() ? "result" : r.metric);
      }
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      why = e.what();
    }
    add({"ranging_run", why.empty(), why.empty() ? nlohmann::json("a figure") : nlohmann::json(), "a figure", 0,
         why.empty() ? std::string()
                     : fmt::format("{}: the ranging run's figure cannot be read (check_ranging_dir): {}",
                                   log_file.string(), why),
         log_file.string()});
  }

  // The folders' files (check_power_dir's files_diff); run_1's are judged with the run folder.
  if (file_lists) {
    const std::vector<std::string> run_files{std::string(kSummaryLogName), std::string(kDetailLogName),
                                             std::string(kPowerSamplesName)};
    add(files_check("ranging_files", ranging.string(), run_files, {"mlperf_log_accuracy.json"}));
    add(files_check("power_files", power.string(), required_power_files()));
  }

  // The samples inside the run's power window, and the metric (get_power_metric).
  auto samples_check = [&](bool passed, nlohmann::json value, std::uint64_t line, std::string message,
                           std::string file) {
    add({"power_samples", passed, std::move(value), "at least one sample with watts > 0 in (power_begin, power_end)",
         line, std::move(message), std::move(file)});
  };
  // The run's power window and query count, read from its detail log only here: the few power
  // folders do not make every other log's reading keep three more keys.
  static const KeySet power_keys{"power_begin", "power_end", "result_query_count", "effective_scenario"};
  LoadgenLog run_log;
  run_log.file = run.file;
  std::string read_error;
  try {
    if (!run.from_summary) run_log = read_detail_log(run.file, power_keys);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    read_error = e.what();
  }
  const std::string log_file = run_log.file.string();
  if (!read_error.empty()) {
    samples_check(false, nullptr, 0, read_error, log_file);
    return p;
  }
  const std::optional<std::string> begin_text = run_log.text("power_begin");
  const std::optional<std::string> end_text = run_log.text("power_end");
  if (!begin_text || !end_text) {
    samples_check(false, nullptr, 0,
                  fmt::format("{}: no {} (the checker's log reader raises, and the power run is invalid)", log_file,
                              !begin_text ? "power_begin" : "power_end"),
                  log_file);
    return p;
  }
  p.power_begin = *begin_text;
  p.power_end = *end_text;
  const std::optional<std::int64_t> begin = parse_power_timestamp(*begin_text);
  const std::optional<std::int64_t> end = parse_power_timestamp(*end_text);
  if (!begin || !end) {
    const bool first = !begin;
    samples_check(false, first ? *begin_text : *end_text, run_log.line(first ? "power_begin" : "power_end"),
                  fmt::format("{}:{}: {} \"{}\" is not a time as %m-%d-%Y %H:%M:%S.%f", log_file,
                              run_log.line(first ? "power_begin" : "power_end"), first ? "power_begin" : "power_end",
                              first ? *begin_text : *end_text),
                  log_file);
    return p;
  }
  p.duration_s = static_cast<double>(*end - *begin) / 1e6;
  const PowerSamples s = read_power_samples(p.samples_file, *begin, *end);
  if (!s.error.empty()) {
    samples_check(false, nullptr, 0, s.error, p.samples_file);
    return p;
  }
  p.samples = s.count;
  if (s.count == 0) {
    samples_check(false, 0, 0,
                  fmt::format("{} has no power samples falling in power range: {} - {}", p.samples_file, *begin_text,
                              *end_text),
                  p.samples_file);
    return p;
  }
  p.average_watts = s.sum / static_cast<double>(s.count);
  std::string why;
  if (!per_query) {
    p.power_metric = p.average_watts;
    if (performance) {
      p.efficiency = *performance / p.average_watts;
    } else {
      why = fmt::format("{}: the run has no performance figure to divide by the power", log_file);
    }
  } else {
    const std::optional<double> queries = run_log.number("result_query_count");
    if (!queries || std::trunc(*queries) == 0) {
      why = fmt::format("{}: {} result_query_count to divide the energy by", log_file, queries ? "a zero" : "no");
    } else {
      const double num_queries = std::trunc(*queries);
      const double samples_per_query = scenario == "SingleStream" ? 1 : 8;
      const std::optional<std::string> logged = run_log.text("effective_scenario");
      if (scenario == "MultiStream" && logged && *logged == "SingleStream") {
        p.power_metric = p.average_watts * p.duration_s * samples_per_query * 1000 / num_queries;
      } else {
        p.power_metric = p.average_watts * p.duration_s * 1000 / num_queries;
      }
      p.efficiency = (samples_per_query * 1000) / *p.power_metric;
    }
  }
  samples_check(why.empty(), s.count, 0,
                why, why.empty() ? p.samples_file : log_file);
  if (!why.empty()) p.power_metric.reset();
  return p;
}

}  // namespace mlperf::inference
