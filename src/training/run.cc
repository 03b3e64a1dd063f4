#include "mlperf/training/run.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/thread_cache.h"

namespace mlperf {

double round3(double x) {
  if (!std::isfinite(x)) return x;
  // printf rounds the exact binary value correctly (ties to even), as Python's round() does.
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.3f", x);
  return std::strtod(buf, nullptr);
}

namespace {

constexpr double kClosedInitLimitMinutes = 30.0;
constexpr double kOpenInitLimitMinutes = 240.0;

// What the run builder reads from an event, for a parsed Event and for an EventView (whose
// value and metadata are JSON text). Both give the same for the same line.

std::optional<double> number_at(const nlohmann::json& object, std::string_view key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// A string as it is, anything else as JSON text.
std::string string_value(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string_view key_of(const Event& e) { return e.key; }
std::string_view key_of(const EventView& e) { return e.key; }

std::optional<double> metadata_number(const Event& e, std::string_view name) { return number_at(e.metadata, name); }

std::optional<double> metadata_number(const ObjectMembers& metadata, std::string_view name) {
  return json_number(metadata.find(name));
}

// What an event's metadata is read through when it is read more than once: the parsed
// object of an Event, the members of an EventView's metadata found in one pass.
const Event& metadata_reader(const Event& e) { return e; }
ObjectMembers metadata_reader(const EventView& e) { return metadata_members(e.metadata, e.layout); }

// metadata.<name> when it is a string.
std::optional<std::string> metadata_string(const Event& e, std::string_view name) {
  auto it = e.metadata.find(name);
  if (it == e.metadata.end() || !it->is_string()) return std::nullopt;
  return it->template get<std::string>();
}
std::optional<std::string> metadata_string(const ObjectMembers& metadata, std::string_view name) {
  return json_string(metadata.find(name));
}

// metadata.<name> as string_value gives it, when present.
std::optional<std::string> metadata_text(const Event& e, std::string_view name) {
  auto it = e.metadata.find(name);
  if (it == e.metadata.end()) return std::nullopt;
  return string_value(*it);
}
std::optional<std::string> metadata_text(const EventView& e, std::string_view name) {
  std::string_view raw = json_member(e.metadata, name);
  if (raw.empty()) return std::nullopt;
  if (auto text = json_string(raw)) return text;
  return nlohmann::json::parse(raw.begin(), raw.end()).dump();
}

std::optional<double> value_number(const Event& e) {
  if (!e.value.is_number()) return std::nullopt;
  return e.value.get<double>();
}
std::optional<double> value_number(const EventView& e) { return json_number(e.value); }

// The value when it is an integral number a double holds exactly (|v| ≤ 2^53): a count such
// as the global batch size. A fraction, 1e300 or anything but a number is none.
template <class E>
std::optional<long long> value_integer(const E& e) {
  std::optional<double> v = value_number(e);
  if (!v || *v != std::floor(*v) || std::fabs(*v) > 9007199254740992.0) return std::nullopt;
  return static_cast<long long>(*v);
}

// The JSON text of X when `value` (validated JSON text) is exactly {"throughput": X} with
// X a number, as mlperf_logging writes tracked_stats; "" for anything else (then json_member
// decides). A sole member cannot repeat, so X is what json_member(value, "throughput") gives.
std::string_view sole_throughput(std::string_view value) {
  constexpr std::string_view kHead = "{\"throughput\": ";
  if (value.size() < kHead.size() + 2 || !value.starts_with(kHead) || value.back() != '}') return {};
  std::string_view x = value.substr(kHead.size(), value.size() - kHead.size() - 1);
  for (char c : x) {
    // A number's characters only; anything else (a nested value, a second member) is "".
    if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) return {};
  }
  return x;
}

// value.<name> when value is an object and the member a number (an EventView's is read in
// add_event, lazily).
std::optional<double> value_member_number(const Event& e, std::string_view name) {
  if (!e.value.is_object()) return std::nullopt;
  return number_at(e.value, name);
}

std::string value_text(const Event& e) { return string_value(e.value); }
std::string value_text(const EventView& e) {
  if (e.value.empty()) return nlohmann::json().dump();  // absent: null
  if (auto text = json_string(e.value)) return *text;
  return nlohmann::json::parse(e.value.begin(), e.value.end()).dump();
}

template <class E>
void mark_first(std::optional<EventMark>& mark, const E& e) {
  if (!mark) mark = EventMark{e.time_ms, e.line};
}

}  // namespace

RunBuilder::RunBuilder(std::string file, std::string benchmark_hint, const Facts& facts,
                       RunOptions options)
    : benchmark_hint_(std::move(benchmark_hint)), facts_(facts), options_(options) {
  run_.file = std::move(file);
}

const BenchmarkFacts* RunBuilder::facts_now() const {
  if (!facts_now_known_) {
    facts_now_ = facts_.find(run_.benchmark.empty() ? benchmark_hint_ : run_.benchmark);
    facts_now_known_ = true;
  }
  return facts_now_;
}

template <class E>
void RunBuilder::on_eval(const E& e) {
  const BenchmarkFacts* facts = facts_now();
  const auto& metadata = metadata_reader(e);
  // Each member is read once (a round has tens of thousands of eval lines).
  const std::optional<double> samples_count = metadata_number(metadata, "samples_count");
  const std::optional<double> epoch_num = metadata_number(metadata, "epoch_num");
  // Remember the convergence point in every unit; the unit is chosen at run_stop (§4.1).
  if (samples_count) last_samples_count_ = *samples_count;
  if (epoch_num) last_epoch_num_ = *epoch_num;
  any_point_ = true;
  if (facts && facts->convergence_unit == ConvergenceUnit::kMetricStep) {
    auto step = metadata_number(metadata, facts->step_field(options_.ruleset));
    if (!step) return;
    auto metric = metadata_string(metadata, "metric");
    auto value = value_number(e);
    if (metric && value) metric_steps_[*step][*metric] = *value;
    return;
  }
  const bool eval_accuracy = key_of(e) == "eval_accuracy";
  const bool wants_value =
      (eval_accuracy && run_.eval_points.size() < Run::kMaxKeptEvalPoints) || (facts && !run_.quality_target_reached);
  const std::optional<double> value = wants_value ? value_number(e) : std::nullopt;
  if (eval_accuracy && run_.eval_points.size() < Run::kMaxKeptEvalPoints) {
    std::optional<double> x = samples_count;
    if (!x) {
      x = epoch_num;
      if (x && value) run_.eval_points_in_epochs = true;
    }
    if (value && x) run_.eval_points.push_back({*x, *value});
  }
  // The quality target (§2, §6) is judged on eval_accuracy values (metric ""), and for the
  // HPC benchmarks that log an error instead (cosmoflow, oc20) on eval_error values.
  if (facts && !run_.quality_target_reached) {
    const QualityTarget* target = value ? facts->quality_target(options_.ruleset) : nullptr;
    if (target) {
      auto plain = target->metrics.find(eval_accuracy ? "" : "eval_error");
      if (plain != target->metrics.end() && plain->second.contains(*value)) {
        run_.quality_target_reached = true;
      }
    }
  }
}

namespace {
// A key's first and last 8 bytes (overlapping; zero-padded below 8 bytes): with its size,
// they are the whole key up to 16 bytes.
void key_words(std::string_view key, std::uint64_t& head, std::uint64_t& tail) {
  const std::size_t n = key.size();
  head = tail = 0;
  if (n >= 8) {
    std::memcpy(&head, key.data(), 8);
    std::memcpy(&tail, key.data() + n - 8, 8);
  } else {
    for (std::size_t i = 0; i < n; ++i) head = (head << 8) | static_cast<unsigned char>(key[i]);
  }
}

std::size_t key_hash(std::uint64_t head, std::uint64_t tail, std::size_t size) {
  std::uint64_t h = (head ^ (tail * 0x9E3779B97F4A7C15ull) ^ size) * 0xFF51AFD7ED558CCDull;
  return static_cast<std::size_t>(h ^ (h >> 32));
}

}  // namespace

KeyCensusTable::const_iterator KeyCensusTable::find(std::string_view key) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const Entry& e, std::string_view k) { return std::string_view(e.first) < k; });
  return it != entries_.end() && it->first == key ? it : entries_.end();
}

const KeyCensus& KeyCensusTable::at(std::string_view key) const {
  auto it = find(key);
  if (it == end()) throw std::out_of_range(fmt::format("no key {} in the key census", key));
  return it->second;
}

void KeyCensusTable::append(std::string key, const KeyCensus& census) { entries_.emplace_back(std::move(key), census); }

KeyCensus& RunBuilder::census(std::string_view key) {
  std::uint64_t head, tail;
  key_words(key, head, tail);
  const std::size_t size = key.size();
  std::size_t mask = census_slots_.size() - 1;
  std::size_t i = key_hash(head, tail, size) & mask;
  for (; census_slots_[i].entry != nullptr; i = (i + 1) & mask) {
    const CensusSlot& slot = census_slots_[i];
    if (slot.size == size && slot.head == head && slot.tail == tail && (size <= 16 || slot.key == key)) {
      return *slot.entry;
    }
  }
  auto* entry = &census_.emplace_back(std::string(key), KeyCensus{});
  census_slots_[i] = CensusSlot{head, tail, size, entry->first, &entry->second};
  if (++census_used_ * 2 > census_slots_.size()) {
    // Rehash into a table twice the size.
    std::vector<CensusSlot> bigger(census_slots_.size() * 2);
    for (const CensusSlot& slot : census_slots_) {
      if (slot.entry == nullptr) continue;
      std::size_t j = key_hash(slot.head, slot.tail, slot.size) & (bigger.size() - 1);
      while (bigger[j].entry != nullptr) j = (j + 1) & (bigger.size() - 1);
      bigger[j] = slot;
    }
    census_slots_ = std::move(bigger);
  }
  return entry->second;
}

void RunBuilder::add(const Event& e) { add_event(e); }

void RunBuilder::add(const EventView& e) { add_event(e); }

RunBuilder::KeyRole RunBuilder::key_role(std::string_view k) {
  if (k == "tracked_stats") return KeyRole::kTrackedStats;
  if (k == "eval_accuracy" || k == "eval_error") return KeyRole::kEval;
  if (k == "global_batch_size") return KeyRole::kGlobalBatchSize;
  if (k == "train_samples") return KeyRole::kTrainSamples;
  if (k == "submission_benchmark") return KeyRole::kSubmissionBenchmark;
  if (k == "submission_division") return KeyRole::kSubmissionDivision;
  if (k == "submission_org") return KeyRole::kSubmissionOrg;
  if (k == "submission_platform") return KeyRole::kSubmissionPlatform;
  if (k == "init_start") return KeyRole::kInitStart;
  if (k == "init_stop") return KeyRole::kInitStop;
  if (k == "run_start") return KeyRole::kRunStart;
  if (k == "run_stop") return KeyRole::kRunStop;
  if (k == "seed") return KeyRole::kSeed;
  if (k == "number_of_nodes" || k == "accelerators_per_node") return KeyRole::kInstanceScale;
  return KeyRole::kOther;
}

template <class E>
void RunBuilder::add_event(const E& e) {
  ++run_.mllog_lines;
  const std::string_view k = key_of(e);
  // A line of a shape seen before finds its census entry and role without the key
  // (EventView only).
  const ShapeCensus* kept = nullptr;
  if constexpr (std::is_same_v<E, EventView>) kept = shape_census_.find(e.shape);
  ShapeCensus known;
  if (kept) {
    known = *kept;
  } else {
    known = ShapeCensus{&census(k), key_role(k)};
    if constexpr (std::is_same_v<E, EventView>) shape_census_.keep(e.shape, known);
  }
  KeyCensus& entry = *known.entry;
  if (entry.count++ == 0) entry.first = EventMark{e.time_ms, e.line};
  entry.last_line = e.line;
  switch (known.role) {
    case KeyRole::kOther:
      break;
    case KeyRole::kTrackedStats:
      on_tracked_stats(e);
      break;
    case KeyRole::kEval:
      on_eval(e);
      break;
    case KeyRole::kGlobalBatchSize: {
      std::optional<long long> size = value_integer(e);
      run_.global_batch_size = size;
      run_.global_batch_size_beyond_line = 0;
      if (!size) {
        // Every double of 2^53 or more is an integer; the RCP checker compares it with its
        // RCPs' batch sizes as Python compares numbers, so one this large is above all of them.
        const std::optional<double> big = value_number(e);
        if (big && std::isfinite(*big) && *big >= 9007199254740992.0) run_.global_batch_size_beyond_line = e.line;
      }
      break;
    }
    case KeyRole::kTrainSamples:
      if (auto samples = value_number(e)) last_train_samples_ = *samples;
      break;
    case KeyRole::kSubmissionBenchmark:
    case KeyRole::kSubmissionDivision:
    case KeyRole::kSubmissionOrg:
    case KeyRole::kSubmissionPlatform: {
      // The first value of each submission_* key.
      std::string& field = known.role == KeyRole::kSubmissionBenchmark  ? run_.benchmark
                           : known.role == KeyRole::kSubmissionDivision ? run_.division
                           : known.role == KeyRole::kSubmissionOrg      ? run_.org
                                                                        : run_.platform;
      if (field.empty()) {
        field = value_text(e);
        facts_now_known_ = false;  // the benchmark may be named now
      }
      break;
    }
    case KeyRole::kInitStart:
      ++run_.init_start_count;
      if (!run_.init_start || e.time_ms < run_.init_start->time_ms) run_.init_start = EventMark{e.time_ms, e.line};
      if ((run_.init_stop || run_.run_start) && !run_.late_init_start) {
        run_.late_init_start = EventMark{e.time_ms, e.line};
      }
      break;
    case KeyRole::kInitStop:
      ++run_.init_stop_count;
      mark_first(run_.init_stop, e);
      break;
    case KeyRole::kRunStart:
      ++run_.run_start_count;
      mark_first(run_.run_start, e);
      if (!(run_.summarizer_run_start && run_.summarizer_run_stop)) {
        run_.summarizer_run_start = EventMark{e.time_ms, e.line};
      }
      break;
    case KeyRole::kRunStop:
      on_run_stop(e);
      break;
    case KeyRole::kSeed:
      on_seed(e);
      break;
    case KeyRole::kInstanceScale:
      // HPC weak scaling's instance scale (Run::number_of_nodes).
      if (!(run_.number_of_nodes && run_.accelerators_per_node)) {
        if (auto v = value_number(e)) (k == "number_of_nodes" ? run_.number_of_nodes : run_.accelerators_per_node) = *v;
      }
      break;
  }
}

// A seed event, read as the official seed checker reads it (training/seeds.h). Runs log one
// or two, so an EventView's JSON is simply parsed.
template <class E>
void RunBuilder::on_seed(const E& e) {
  if (run_.seed_events++ >= Run::kMaxKeptSeeds) return;
  if constexpr (std::is_same_v<E, EventView>) {
    if (auto plain = read_plain_seed_record(e.value, e.metadata, e.line)) {
      run_.seeds.push_back(std::move(*plain));
      return;
    }
    nlohmann::json value = e.value.empty() ? nlohmann::json() : nlohmann::json::parse(e.value.begin(), e.value.end());
    nlohmann::json metadata =
        e.metadata.empty() ? nlohmann::json::object() : nlohmann::json::parse(e.metadata.begin(), e.metadata.end());
    run_.seeds.push_back(read_seed_record(value, metadata, e.line, e.value));
  } else {
    run_.seeds.push_back(read_seed_record(e.value, e.metadata, e.line));
  }
}

// The throughput of a tracked_stats event. Most logs hold thousands: an EventView keeps the
// text and the last one is parsed at finish.
template <class E>
void RunBuilder::on_tracked_stats(const E& e) {
  if constexpr (std::is_same_v<E, EventView>) {
    // Member names of an EventView hold no escapes: without the text "throughput" in
    // quotes there is no such member (many logs track only step times and losses). That
    // text holds no number byte, so it is in every line of a scanner shape or in none.
    if (e.shape != 0 && e.shape == shape_without_throughput_) return;
    std::string_view raw = sole_throughput(e.value);
    if (raw.empty() && e.value.find("\"throughput\"") != std::string_view::npos) {
      raw = json_member(e.value, "throughput");
    } else if (raw.empty()) {
      shape_without_throughput_ = e.shape;
    }
    if (!raw.empty() && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'))) {
      throughput_text_.assign(raw);
      throughput_pending_ = true;
    }
  } else if (auto t = value_member_number(e, "throughput")) {
    run_.last_throughput = *t;
    throughput_pending_ = false;
  }
}

// run_stop: the summarizer's clock, and at the first one the status and whether the run
// converged with the points seen so far (§4.1).
template <class E>
void RunBuilder::on_run_stop(const E& e) {
  ++run_.run_stop_count;
  if (!(run_.summarizer_run_start && run_.summarizer_run_stop)) run_.summarizer_run_stop = EventMark{e.time_ms, e.line};
  if (run_.run_stop) return;
  run_.run_stop = EventMark{e.time_ms, e.line};
  run_.status = metadata_text(e, "status");
  if (run_.status != "success" || !any_point_) return;
  if (std::optional<double> point = convergence_point()) {
    run_.converged = true;
    run_.samples_to_converge = *point;
  }
}

std::optional<double> RunBuilder::convergence_point() const {
  const BenchmarkFacts* facts = facts_now();
  if (facts && facts->convergence_unit == ConvergenceUnit::kMetricStep) {
    // The first eval step where every convergence metric is within its bounds.
    for (const auto& [step, metrics] : metric_steps_) {
      bool ok = !facts->convergence_metrics.empty();
      for (const auto& [name, bounds] : facts->convergence_metrics) {
        auto m = metrics.find(name);
        if (m == metrics.end() || !bounds.contains(m->second)) ok = false;
      }
      if (ok) return step;
    }
    return std::nullopt;
  }
  if (options_.bert_train_samples && (run_.benchmark.empty() ? benchmark_hint_ : run_.benchmark) == "bert") {
    return last_train_samples_;
  }
  if (facts && facts->convergence_unit == ConvergenceUnit::kSamplesCount) return last_samples_count_;
  if (last_epoch_num_) return round3(*last_epoch_num_);
  return std::nullopt;
}

void RunBuilder::add_error(ParseError error) {
  ++run_.mllog_lines;
  ++run_.parse_error_count;
  if (run_.parse_errors.size() < Run::kMaxKeptParseErrors) run_.parse_errors.push_back(std::move(error));
}

Run RunBuilder::finish() {
  Run& r = run_;
  std::vector<const std::pair<std::string, KeyCensus>*> reported;
  for (const auto& entry : census_) {
    if (options_.full_key_census || std::find(std::begin(kReportedCensusKeys), std::end(kReportedCensusKeys),
                                              entry.first) != std::end(kReportedCensusKeys)) {
      reported.push_back(&entry);
    }
  }
  std::sort(reported.begin(), reported.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* entry : reported) r.key_census.append(entry->first, entry->second);
  if (throughput_pending_) r.last_throughput = json_number(throughput_text_);
  if (const BenchmarkFacts* facts = facts_now()) {
    const QualityTarget* target = facts->quality_target(options_.ruleset);
    if (target) {
      auto plain = target->metrics.find("");
      if (plain != target->metrics.end()) r.quality_target = plain->second;
    }
  }
  auto& drop = r.drop_reasons;
  if (r.summarizer_run_start && r.summarizer_run_stop) {
    r.minutes = (r.summarizer_run_stop->time_ms - r.summarizer_run_start->time_ms) / kMillisecondsPerMinute;
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

namespace {

// A line longer than the reader keeps: an error of the run.
void add_too_long(RunBuilder& builder, const std::string& name, const Line& line, const LineReader& reader) {
  builder.add_error({name, line.number, fmt::format("MLLOG line longer than {} bytes", reader.max_line_bytes())});
}

// `line` through the full parser into `builder`: an event, an error, or nothing (no MLLOG).
LineKind add_parsed_line(RunBuilder& builder, const std::string& name, const Line& line, Event& event,
                         std::string& error) {
  LineKind kind = parse_mllog_line(line.text, event, error);
  switch (kind) {
    case LineKind::kNotMllog:
      break;
    case LineKind::kEvent:
      event.line = line.number;
      builder.add(event);
      break;
    case LineKind::kError:
      builder.add_error({name, line.number, error});
      break;
  }
  return kind;
}

// The JSON after the last MLLOG token of `text` (scoring.md §1).
std::string_view mllog_payload(std::string_view text) {
  std::size_t at = text.rfind(kMllogToken);
  return at == std::string_view::npos ? std::string_view() : text.substr(at + kMllogToken.size());
}

}  // namespace

ResultFileStat stat_result_file(const std::filesystem::path& path, FolderCache* folders) {
  ResultFileStat out;
  struct stat info {};
  const FileLocation at = folders ? folders->locate(path) : FileLocation{};
  if (::fstatat(at.dirfd(), at.name_or(path.native()), &info, 0) != 0) return out;
  out.known = true;
  out.regular = S_ISREG(info.st_mode);
  out.directory = S_ISDIR(info.st_mode);
  out.bytes = out.regular ? static_cast<std::uint64_t>(info.st_size) : 0;
  return out;
}

namespace {

// A FIFO, socket or device named result_N.txt is no log (and opening a FIFO blocks): throws
// std::runtime_error naming `path` unless stat found it regular (or failed: open says why).
void refuse_unless_regular(const std::filesystem::path& path, const ResultFileStat& before_open) {
  if (before_open.known && !before_open.regular) {
    throw std::runtime_error(fmt::format("{}: cannot open: {}", path.string(),
                                         before_open.directory ? std::strerror(EISDIR) : "not a regular file"));
  }
}

}  // namespace

Run read_run(const std::filesystem::path& path, const ResultFileStat& before_open, const std::string& benchmark_hint,
             const Facts& facts, const RunOptions& options, FolderCache* folders) {
  refuse_unless_regular(path, before_open);
  LineReader reader(file_source(path, folders));
  return read_run(reader, path.string(), benchmark_hint, facts, options);
}

Run read_run(const std::filesystem::path& path, const std::string& benchmark_hint, const Facts& facts,
             const RunOptions& options) {
  return read_run(path, stat_result_file(path), benchmark_hint, facts, options);
}

Run read_run(LineReader& reader, const std::string& name, const std::string& benchmark_hint,
             const Facts& facts, const RunOptions& options) {
  RunBuilder builder(name, benchmark_hint, facts, options);
  // The compliance rules read the same lines beside the builder (architecture.md).
  std::optional<compliance::LogReader> rules;
  if (options.compliance_rules && options.compliance_rules->has_ruleset(options.ruleset)) {
    rules.emplace(*options.compliance_rules, options.ruleset, options.record_compliance_blocks);
  }
  Line line;
  // One scanner per thread, kept from file to file: the shapes it learnt from one log
  // usually fit the next (the runs of a benchmark log alike). Its results do not depend on
  // what it has seen.
  MllogScanner& scanner = ThreadCache<MllogScanner>::get();
  EventView view;
  Event event;
  std::string error;
  // Only lines holding the MLLOG token come out of the reader (§1: the rest is ignored).
  while (reader.next_with(kMllogToken, line)) {
    if (line.truncated) {
      add_too_long(builder, name, line, reader);
      if (rules) rules->add_parse_error(line.number, "line too long");
      continue;
    }
    // The fast path reads most lines; the full parser decides the others (and words errors).
    if (scanner.scan(line.text, view, line.needle_at) == ScanKind::kEvent) {
      view.line = line.number;
      builder.add(view);
      if (rules) rules->add_event(view, line.text, line.needle_at);
      continue;
    }
    LineKind kind = add_parsed_line(builder, name, line, event, error);
    if (rules && kind == LineKind::kEvent) {
      rules->add_event(event.key, event.time_ms, line.number, mllog_payload(line.text));
    } else if (rules && kind == LineKind::kError) {
      rules->add_parse_error(line.number, error);
    }
  }
  Run run = builder.finish();
  if (rules) {
    run.compliance = rules->finish();
    apply_official_verdict(run);
  }
  return run;
}

void apply_official_verdict(Run& run) {
  if (!run.compliance) return;
  run.drop_reasons.clear();
  if (run.parse_error_count > 0) {
    // Why the checker rejects the log, in the scorer's words (the findings name each line).
    run.drop_reasons.push_back(fmt::format("{} MLLOG line(s) failed to parse (first at line {})", run.parse_error_count,
                                           run.parse_errors.front().line));
  } else if (!run.compliance->compliant) {
    const compliance::RuleFinding* first = nullptr;
    std::size_t errors = 0;
    for (const auto& f : run.compliance->findings) {
      if (!f.error) continue;
      if (!first) first = &f;
      ++errors;
    }
    std::string where = first && first->line > 0 ? fmt::format("line {}: ", first->line) : std::string();
    run.drop_reasons.push_back(fmt::format("not compliant (official rules): {}{}{}", where,
                                           first ? first->message : std::string("rejected"),
                                           errors > 1 ? fmt::format(" (+{} more)", errors - 1) : std::string()));
  }
  if (!run.summarizer_run_start) run.drop_reasons.push_back("run_start not recorded");
  if (!run.summarizer_run_stop) run.drop_reasons.push_back("run_stop not recorded");
}

RunHead read_run_head(const std::filesystem::path& path) {
  // Opened without blocking and fstat-ed (a FIFO is never read): no stat of the path first,
  // one system call of the five a forecast takes. Missing or not a regular file: the errors
  // the full read gives.
  std::optional<ByteSource> source = regular_file_source(path);
  if (!source) {
    refuse_unless_regular(path, stat_result_file(path));
    source = file_source(path, nullptr);
  }
  LineReader reader(std::move(*source));
  RunHead head;
  Line line;
  EventView view;
  Event event;
  std::string error;
  while (reader.next_with(kMllogToken, line)) {
    // Only the lines that can be those sought are parsed.
    if (line.truncated) continue;
    const bool may_start = line.text.find("run_start") != std::string_view::npos;
    if (!may_start && (!head.benchmark.empty() || line.text.find("submission_benchmark") == std::string_view::npos)) {
      continue;
    }
    // The fast scan reads them; the full parser (some 30,000 instructions a line) only what
    // it is unsure of.
    std::string_view key;
    std::optional<std::string> benchmark;
    double time_ms = 0;
    if (scan_mllog_line(line.text, view, line.needle_at) == ScanKind::kEvent) {
      key = view.key;
      time_ms = view.time_ms;
      if (key == "submission_benchmark") benchmark = json_string(view.value);
    } else if (parse_mllog_line(line.text, event, error) == LineKind::kEvent) {
      key = event.key;
      time_ms = event.time_ms;
      if (key == "submission_benchmark" && event.value.is_string()) benchmark = event.value.get<std::string>();
    } else {
      continue;
    }
    if (key == "run_start") {
      head.run_start = EventMark{time_ms, line.number};
      break;
    }
    if (benchmark && head.benchmark.empty()) head.benchmark = std::move(*benchmark);
  }
  return head;
}

Run read_run_full_parser(LineReader& reader, const std::string& name, const std::string& benchmark_hint,
                         const Facts& facts, const RunOptions& options) {
  RunBuilder builder(name, benchmark_hint, facts, options);
  Line line;
  Event event;
  std::string error;
  while (reader.next(line)) {
    if (line.truncated) {
      if (line.text.find(kMllogToken) != std::string_view::npos) add_too_long(builder, name, line, reader);
      continue;
    }
    add_parsed_line(builder, name, line, event, error);
  }
  return builder.finish();
}

}  // namespace mlperf
