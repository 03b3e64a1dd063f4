#include "mlperf/run.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "mlperf/line_reader.h"

namespace mlperf {

double round3(double x) {
  if (!std::isfinite(x)) return x;
  // printf rounds the exact binary value correctly (ties to even), as Python's round() does.
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.3f", x);
  return std::strtod(buf, nullptr);
}

namespace {

constexpr double kMillisecondsPerMinute = 60000.0;
constexpr double kClosedInitLimitMinutes = 30.0;
constexpr double kOpenInitLimitMinutes = 240.0;

std::optional<double> number_at(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string string_value(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

void mark_first(std::optional<EventMark>& mark, const Event& e) {
  if (!mark) mark = EventMark{e.time_ms, e.line};
}

}  // namespace

RunBuilder::RunBuilder(std::string file, std::string benchmark_hint, const Facts& facts,
                       RunOptions options)
    : benchmark_hint_(std::move(benchmark_hint)), facts_(facts), options_(options) {
  run_.file = std::move(file);
}

const BenchmarkFacts* RunBuilder::facts_now() const {
  return facts_.find(run_.benchmark.empty() ? benchmark_hint_ : run_.benchmark);
}

void RunBuilder::on_eval(const Event& e) {
  const BenchmarkFacts* facts = facts_now();
  // Remember the convergence point in every unit; the unit is chosen at run_stop (§4.1).
  if (auto s = number_at(e.metadata, "samples_count")) last_samples_count_ = *s;
  if (auto epoch = number_at(e.metadata, "epoch_num")) last_epoch_num_ = round3(*epoch);
  any_point_ = true;
  if (facts && facts->convergence_unit == ConvergenceUnit::kMetricStep) {
    auto step = number_at(e.metadata, facts->step_field(options_.ruleset).c_str());
    auto metric = e.metadata.find("metric");
    if (step && metric != e.metadata.end() && metric->is_string() && e.value.is_number()) {
      metric_steps_[*step][metric->get<std::string>()] = e.value.get<double>();
    }
    return;
  }
  // The quality target (§2, §6) is judged on eval_accuracy values only.
  if (e.key == "eval_accuracy" && facts && e.value.is_number() && !run_.quality_target_reached) {
    if (const QualityTarget* target = facts->quality_target(options_.ruleset)) {
      auto plain = target->metrics.find("");
      if (plain != target->metrics.end() && plain->second.contains(e.value.get<double>())) {
        run_.quality_target_reached = true;
      }
    }
  }
}

void RunBuilder::add(const Event& e) {
  ++run_.mllog_lines;
  const std::string& k = e.key;
  Run::KeyCensus& census = run_.key_census[k];
  if (census.count++ == 0) census.first = EventMark{e.time_ms, e.line};
  census.last = EventMark{e.time_ms, e.line};
  if (k == "eval_accuracy" || k == "eval_error") {
    on_eval(e);
  } else if (k == "tracked_stats") {
    if (e.value.is_object()) {
      if (auto t = number_at(e.value, "throughput")) run_.last_throughput = *t;
    }
  } else if (k == "global_batch_size") {
    if (e.value.is_number()) run_.global_batch_size = e.value.get<long long>();
  } else if (k == "train_samples") {
    if (e.value.is_number()) last_train_samples_ = e.value.get<double>();
  } else if (k == "submission_benchmark") {
    if (run_.benchmark.empty()) run_.benchmark = string_value(e.value);
  } else if (k == "submission_division") {
    if (run_.division.empty()) run_.division = string_value(e.value);
  } else if (k == "submission_org") {
    if (run_.org.empty()) run_.org = string_value(e.value);
  } else if (k == "submission_platform") {
    if (run_.platform.empty()) run_.platform = string_value(e.value);
  } else if (k == "init_start") {
    ++run_.init_start_count;
    if (!run_.init_start || e.time_ms < run_.init_start->time_ms) run_.init_start = EventMark{e.time_ms, e.line};
    if ((run_.init_stop || run_.run_start) && !run_.late_init_start) {
      run_.late_init_start = EventMark{e.time_ms, e.line};
    }
  } else if (k == "init_stop") {
    ++run_.init_stop_count;
    mark_first(run_.init_stop, e);
  } else if (k == "run_start") {
    ++run_.run_start_count;
    mark_first(run_.run_start, e);
  } else if (k == "run_stop") {
    ++run_.run_stop_count;
    if (!run_.run_stop) {
      run_.run_stop = EventMark{e.time_ms, e.line};
      auto status = e.metadata.find("status");
      if (status != e.metadata.end()) run_.status = string_value(*status);
      // Convergence is decided at the first run_stop with the points seen so far (§4.1).
      const BenchmarkFacts* facts = facts_now();
      if (run_.status == "success" && any_point_) {
        std::optional<double> point;
        if (facts && facts->convergence_unit == ConvergenceUnit::kMetricStep) {
          for (const auto& [step, metrics] : metric_steps_) {
            bool ok = !facts->convergence_metrics.empty();
            for (const auto& [name, bounds] : facts->convergence_metrics) {
              auto m = metrics.find(name);
              if (m == metrics.end() || !bounds.contains(m->second)) ok = false;
            }
            if (ok) {
              point = step;
              break;
            }
          }
        } else if (options_.bert_train_samples && (run_.benchmark.empty() ? benchmark_hint_ : run_.benchmark) == "bert") {
          point = last_train_samples_;
        } else if (facts && facts->convergence_unit == ConvergenceUnit::kSamplesCount) {
          point = last_samples_count_;
        } else {
          point = last_epoch_num_;
        }
        if (point) {
          run_.converged = true;
          run_.samples_to_converge = *point;
        }
      }
    }
  }
}

void RunBuilder::add_error(ParseError error) {
  ++run_.mllog_lines;
  ++run_.parse_error_count;
  if (run_.parse_errors.size() < Run::kMaxKeptParseErrors) run_.parse_errors.push_back(std::move(error));
}

Run RunBuilder::finish() {
  Run& r = run_;
  auto& drop = r.drop_reasons;
  if (r.run_start && r.run_stop) {
    r.minutes = (r.run_stop->time_ms - r.run_start->time_ms) / kMillisecondsPerMinute;
  }
  if (r.parse_error_count > 0) {
    drop.push_back(fmt::format("{} MLLOG line(s) failed to parse (first at line {})",
                               r.parse_error_count, r.parse_errors.front().line));
  }
  if (r.run_start_count != 1) drop.push_back(fmt::format("expected exactly one run_start, found {}", r.run_start_count));
  if (r.run_stop_count != 1) drop.push_back(fmt::format("expected exactly one run_stop, found {}", r.run_stop_count));
  if (r.run_stop && !r.status) drop.push_back(fmt::format("run_stop at line {} has no metadata.status", r.run_stop->line));

  // Event order (§2): init_start ≤ init_stop ≤ run_start ≤ run_stop.
  if (r.init_start_count == 0) {
    drop.push_back("no init_start");
  } else if (r.late_init_start) {
    drop.push_back(fmt::format("init_start at line {} comes after init_stop or run_start", r.late_init_start->line));
  }
  if (!r.init_stop) {
    drop.push_back("no init_stop");
  } else {
    if (r.init_start && r.init_stop->time_ms < r.init_start->time_ms) {
      drop.push_back(fmt::format("init_stop at line {} is before init_start", r.init_stop->line));
    }
    if (r.run_start && r.run_start->time_ms < r.init_stop->time_ms) {
      drop.push_back(fmt::format("run_start at line {} is before init_stop at line {}", r.run_start->line, r.init_stop->line));
    }
    if (r.init_start) {
      double limit = r.division == "open" ? kOpenInitLimitMinutes : kClosedInitLimitMinutes;
      double init_minutes = (r.init_stop->time_ms - r.init_start->time_ms) / kMillisecondsPerMinute;
      if (init_minutes >= limit) {
        drop.push_back(fmt::format("initialization took {:.1f} minutes (limit {:g} in the {} division)", init_minutes,
                                   limit, r.division == "open" ? "open" : "closed"));
      }
    }
  }
  if (r.run_start && r.run_stop && r.run_stop->time_ms < r.run_start->time_ms) {
    drop.push_back(fmt::format("run_stop at line {} is before run_start at line {}", r.run_stop->line, r.run_start->line));
  }

  // Quality target (§2, §6).
  const BenchmarkFacts* facts = facts_now();
  const QualityTarget* target = facts ? facts->quality_target(options_.ruleset) : nullptr;
  r.quality_target_known = target != nullptr;
  if (target && facts->convergence_unit == ConvergenceUnit::kMetricStep) {
    for (const auto& [step, metrics] : metric_steps_) {
      bool ok = true;
      for (const auto& [name, bounds] : target->metrics) {
        auto m = metrics.find(name);
        if (m == metrics.end() || !bounds.contains(m->second)) ok = false;
      }
      if (ok) {
        r.quality_target_reached = true;
        break;
      }
    }
  }
  std::string bench = r.benchmark.empty() ? benchmark_hint_ : r.benchmark;
  if (!facts) {
    r.notes.push_back(fmt::format("unknown benchmark \"{}\": quality target not checked", bench));
  } else if (!target) {
    r.notes.push_back(fmt::format("no quality target known for {} under ruleset {}: not checked", bench,
                                  options_.ruleset.str()));
  } else if (!r.quality_target_reached) {
    drop.push_back("quality target never reached");
  }
  if (r.run_stop && r.status && *r.status != "success") {
    r.notes.push_back(fmt::format("run_stop status \"{}\"", *r.status));
  }
  return std::move(run_);
}

Run read_run(const std::filesystem::path& path, const std::string& benchmark_hint, const Facts& facts,
             const RunOptions& options) {
  RunBuilder builder(path.string(), benchmark_hint, facts, options);
  LineReader reader(file_source(path));
  Line line;
  Event event;
  std::string error;
  while (reader.next(line)) {
    if (line.truncated) {
      if (line.text.find(kMllogToken) != std::string_view::npos) {
        builder.add_error({path.string(), line.number,
                           fmt::format("MLLOG line longer than {} bytes", LineReader::kDefaultMaxLineBytes)});
      }
      continue;
    }
    switch (parse_mllog_line(line.text, event, error)) {
      case LineKind::kNotMllog:
        break;
      case LineKind::kEvent:
        event.line = line.number;
        builder.add(event);
        break;
      case LineKind::kError:
        builder.add_error({path.string(), line.number, error});
        break;
    }
  }
  return builder.finish();
}

}  // namespace mlperf
