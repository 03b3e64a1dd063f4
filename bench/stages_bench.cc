// Micro-benchmarks of the hot path of `score` (docs/architecture.md: line reader → MLLOG
// parser → run builder), each reporting bytes/s and lines/s. The input is AMD's real v5.1
// MI355X logs shipped in data/examples, with launcher and progress lines between the MLLOG
// lines in the proportion of the v5.1 round (about 2.3 other lines per MLLOG line, 46 % of
// the bytes), repeated to 8 MiB; or, with MLPERF_SCORE_BENCH_LOGS=DIR, the logs below DIR.
// Run: ./build/bench/mlperf_score_bench
// Performance is measured here and by scripts/bench-corpus, never in unit tests.

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mlperf/compliance/rules.h"
#include "mlperf/training/facts.h"
#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"
#include "mlperf/training/run.h"

#if MLPERF_SCORE_BENCH_SIMDJSON
#include <simdjson.h>
#endif

namespace {

namespace fs = std::filesystem;
using namespace mlperf;

constexpr std::size_t kTargetBytes = 8 << 20;

fs::path source_dir() { return MLPERF_SCORE_SOURCE_DIR; }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open");
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The shipped example logs, each ending in a newline.
std::vector<std::string> example_logs() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(source_dir() / "data/examples")) {
    std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.rfind("result_", 0) == 0) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error("no result_*.txt under data/examples");
  std::vector<std::string> logs;
  for (const auto& f : files) {
    logs.push_back(read_file(f));
    if (!logs.back().empty() && logs.back().back() != '\n') logs.back().push_back('\n');
  }
  return logs;
}

// A log of the round's shape: the example logs' MLLOG lines, each after a few lines of
// launcher and training output; repeated to kTargetBytes.
const std::string& corpus_like_text() {
  static const std::string text = [] {
    // MLPERF_SCORE_BENCH_LOGS=DIR: the result_*.txt files below DIR (e.g. the whole v5.1
    // round) as they are, instead of the shipped examples.
    if (const char* dir = std::getenv("MLPERF_SCORE_BENCH_LOGS")) {
      std::vector<fs::path> files;
      for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && name.rfind("result_", 0) == 0 && name.ends_with(".txt")) files.push_back(entry.path());
      }
      if (files.empty()) throw std::runtime_error(std::string("no result_*.txt under ") + dir);
      std::sort(files.begin(), files.end());
      std::string out;
      for (const auto& f : files) {
        out += read_file(f);
        if (!out.empty() && out.back() != '\n') out += '\n';
      }
      return out;
    }
    std::mt19937 rng(5);
    std::string out;
    const std::vector<std::string> logs = example_logs();
    while (out.size() < kTargetBytes) {
      for (const auto& log : logs) {
        std::istringstream in(log);
        std::string line;
        while (std::getline(in, line)) {
          // 7 other lines per 3 MLLOG lines on average, 60 to 140 bytes each.
          int others = static_cast<int>(rng() % 4) + (rng() % 3 == 0 ? 1 : 0);
          for (int k = 0; k < others; ++k) {
            std::string noise = "[1," + std::to_string(rng() % 8) + "]<stdout>: step " +
                                std::to_string(rng() % 100000) + " | loss " + std::to_string(rng() % 1000) +
                                ".1234 | lr 2.5e-04 | grad_norm 0.8125 | tokens/s " + std::to_string(rng());
            noise.resize(60 + rng() % 80, ' ');
            out += noise;
            out += '\n';
          }
          out += line;
          out += '\n';
        }
      }
    }
    return out;
  }();
  return text;
}

// A source over `text` without copying it first (read(2) copies too).
ByteSource view_source(std::string_view text) {
  auto offset = std::make_shared<std::size_t>(0);
  return [text, offset](char* buffer, std::size_t capacity) -> std::size_t {
    std::size_t n = std::min(capacity, text.size() - *offset);
    std::memcpy(buffer, text.data() + *offset, n);
    *offset += n;
    return n;
  };
}

struct Corpus {
  std::string_view text;
  std::uint64_t lines = 0;                   // all lines
  std::vector<std::string_view> mllog;      // the lines holding the token
  std::uint64_t mllog_bytes = 0;
};

const Corpus& corpus() {
  static const Corpus c = [] {
    Corpus c;
    c.text = corpus_like_text();
    // Views into the text itself (a LineReader's lines live in its buffer, which the next
    // block overwrites), each without its "\n" or "\r\n", as LineReader yields them.
    for (std::size_t at = 0; at < c.text.size();) {
      std::size_t nl = c.text.find('\n', at);
      if (nl == std::string_view::npos) nl = c.text.size();
      std::string_view line = c.text.substr(at, nl - at);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      ++c.lines;
      if (line.find(kMllogToken) != std::string_view::npos) {
        c.mllog.push_back(line);
        c.mllog_bytes += nl - at + 1;
      }
      at = nl + 1;
    }
    return c;
  }();
  return c;
}

const Facts& facts() {
  static const Facts f = Facts::load(source_dir() / "configs/benchmarks.json");
  return f;
}

void report(benchmark::State& state, std::uint64_t bytes, std::uint64_t lines) {
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  state.counters["lines/s"] = benchmark::Counter(static_cast<double>(lines), benchmark::Counter::kIsIterationInvariantRate);
}

// Line reader: every line (LineReader::next).
void BM_LineReader_AllLines(benchmark::State& state) {
  const Corpus& c = corpus();
  for (auto _ : state) {
    LineReader reader(view_source(c.text));
    Line line;
    std::uint64_t n = 0;
    while (reader.next(line)) ++n;
    benchmark::DoNotOptimize(n);
  }
  report(state, c.text.size(), c.lines);
}
BENCHMARK(BM_LineReader_AllLines);

// Line reader: only the MLLOG lines (LineReader::next_with, as read_run does).
void BM_LineReader_MllogLines(benchmark::State& state) {
  const Corpus& c = corpus();
  for (auto _ : state) {
    LineReader reader(view_source(c.text));
    Line line;
    std::uint64_t n = 0;
    while (reader.next_with(kMllogToken, line)) n += line.number;
    benchmark::DoNotOptimize(n);
  }
  report(state, c.text.size(), c.lines);
}
BENCHMARK(BM_LineReader_MllogLines);

// MLLOG parser, full events (parse_mllog_line: nlohmann/json documents).
void BM_Mllog_ParseFullEvent(benchmark::State& state) {
  const Corpus& c = corpus();
  Event event;
  std::string error;
  for (auto _ : state) {
    for (std::string_view line : c.mllog) benchmark::DoNotOptimize(parse_mllog_line(line, event, error));
  }
  report(state, c.mllog_bytes, c.mllog.size());
}
BENCHMARK(BM_Mllog_ParseFullEvent);

// MLLOG parser, the scoring fast path (scan_mllog_line: validate, keep JSON text).
void BM_Mllog_ScanEventView(benchmark::State& state) {
  const Corpus& c = corpus();
  EventView view;
  for (auto _ : state) {
    for (std::string_view line : c.mllog) benchmark::DoNotOptimize(scan_mllog_line(line, view));
  }
  report(state, c.mllog_bytes, c.mllog.size());
}
BENCHMARK(BM_Mllog_ScanEventView);

// MLLOG parser, the fast path with its memory of line shapes (MllogScanner, as read_run).
void BM_Mllog_ScanWithShapes(benchmark::State& state) {
  const Corpus& c = corpus();
  EventView view;
  for (auto _ : state) {
    MllogScanner scanner;
    for (std::string_view line : c.mllog) benchmark::DoNotOptimize(scanner.scan(line, view));
  }
  report(state, c.mllog_bytes, c.mllog.size());
}
BENCHMARK(BM_Mllog_ScanWithShapes);

// Run builder fed parsed events (RunBuilder::add(Event)).
void BM_RunBuilder_AddEvent(benchmark::State& state) {
  const Corpus& c = corpus();
  std::vector<Event> events(c.mllog.size());
  std::string error;
  for (std::size_t i = 0; i < events.size(); ++i) {
    parse_mllog_line(c.mllog[i], events[i], error);
    events[i].line = i + 1;
  }
  RunOptions options{*Ruleset::parse("5.1.0"), false};
  for (auto _ : state) {
    RunBuilder builder("bench.txt", "llama31_8b", facts(), options);
    for (const Event& e : events) builder.add(e);
    benchmark::DoNotOptimize(builder.finish());
  }
  report(state, c.mllog_bytes, c.mllog.size());
}
BENCHMARK(BM_RunBuilder_AddEvent);

// Run builder fed event views (RunBuilder::add(EventView), as read_run does).
void BM_RunBuilder_AddEventView(benchmark::State& state) {
  const Corpus& c = corpus();
  std::vector<EventView> views(c.mllog.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    scan_mllog_line(c.mllog[i], views[i]);
    views[i].line = i + 1;
  }
  RunOptions options{*Ruleset::parse("5.1.0"), false};
  for (auto _ : state) {
    RunBuilder builder("bench.txt", "llama31_8b", facts(), options);
    for (const EventView& v : views) builder.add(v);
    benchmark::DoNotOptimize(builder.finish());
  }
  report(state, c.mllog_bytes, c.mllog.size());
}
BENCHMARK(BM_RunBuilder_AddEventView);

// The MLLOG scanner with shapes and the official compliance rules (training 5.1.0) reading
// its views, as read_run feeds them (the lines just scanned, so in cache), then the verdict;
// a new reader after each run_stop, as the input is logs one after the other. Without the
// run builder. The rules' own cost is this minus BM_Mllog_ScanWithShapes.
void BM_ScanAndComplianceRules(benchmark::State& state) {
  const Corpus& c = corpus();
  const Ruleset ruleset = *Ruleset::parse("5.1.0");
  static const compliance::RuleLibrary library =
      compliance::RuleLibrary::load(source_dir() / "configs" / "compliance", {*Ruleset::parse("5.1.0")});
  MllogScanner scanner;
  EventView view;
  for (auto _ : state) {
    auto reader = std::make_unique<compliance::LogReader>(library, ruleset);
    std::uint64_t number = 0;
    for (std::string_view line : c.mllog) {
      const std::size_t token_at = line.find(kMllogToken);
      if (scanner.scan(line, view, token_at) != ScanKind::kEvent) {
        state.SkipWithError("an example line the scanner is unsure of");
        return;
      }
      view.line = ++number;
      reader->add_event(view, line, token_at);
      if (view.key == "run_stop") {
        benchmark::DoNotOptimize(reader->finish());
        reader = std::make_unique<compliance::LogReader>(library, ruleset);
      }
    }
    benchmark::DoNotOptimize(reader->finish());
  }
  report(state, c.mllog_bytes, c.mllog.size());
}
BENCHMARK(BM_ScanAndComplianceRules);

// All three stages on a file (read_run), page cache warm.
void BM_ReadRun_File(benchmark::State& state) {
  const Corpus& c = corpus();
  fs::path file = fs::temp_directory_path() / ("mlperf-score-bench-" + std::to_string(::getpid()) + ".txt");
  {
    std::ofstream out(file, std::ios::binary);
    out.write(c.text.data(), static_cast<std::streamsize>(c.text.size()));
  }
  RunOptions options{*Ruleset::parse("5.1.0"), false};
  for (auto _ : state) benchmark::DoNotOptimize(read_run(file, "llama31_8b", facts(), options));
  fs::remove(file);
  report(state, c.text.size(), c.lines);
}
BENCHMARK(BM_ReadRun_File);

#if MLPERF_SCORE_BENCH_SIMDJSON
// For comparison only (mlperf-score does not use it): simdjson, which issue #5 sanctions for
// the hot path, validating the same MLLOG payloads and reading time_ms and key. Built when
// Debian's libsimdjson-dev is installed. Its DOM parser is the mode that validates a whole
// document, as the scanner does.
std::vector<std::string_view> payloads(const Corpus& c) {
  std::vector<std::string_view> out;
  for (std::string_view line : c.mllog) out.push_back(line.substr(line.rfind(kMllogToken) + kMllogToken.size()));
  return out;
}

void BM_Simdjson_DomParsePerLine(benchmark::State& state) {
  const Corpus& c = corpus();
  // The payloads one after another in one buffer, as the scanner reads them, each followed by
  // the SIMDJSON_PADDING bytes simdjson may read past a document (laid out before timing).
  std::string arena;
  std::vector<std::pair<std::size_t, std::size_t>> spans;  // offset, length
  for (std::string_view p : payloads(c)) {
    spans.emplace_back(arena.size(), p.size());
    arena.append(p).append(simdjson::SIMDJSON_PADDING, ' ');
  }
  std::vector<simdjson::padded_string_view> docs;
  for (auto [offset, length] : spans) docs.emplace_back(arena.data() + offset, length, length + simdjson::SIMDJSON_PADDING);
  simdjson::dom::parser parser;
  std::uint64_t valid = 0;
  for (auto _ : state) {
    for (const auto& doc : docs) {
      simdjson::dom::element e;
      double time_ms = 0;
      std::string_view key;
      if (parser.parse(doc).get(e) == simdjson::SUCCESS && e["time_ms"].get(time_ms) == simdjson::SUCCESS &&
          e["key"].get(key) == simdjson::SUCCESS) {
        ++valid;
      }
      benchmark::DoNotOptimize(time_ms);
      benchmark::DoNotOptimize(key);
    }
  }
  if (valid == 0) state.SkipWithError("simdjson read no event");
  report(state, c.mllog_bytes, c.mllog.size());
}
BENCHMARK(BM_Simdjson_DomParsePerLine);

#endif

}  // namespace

BENCHMARK_MAIN();
