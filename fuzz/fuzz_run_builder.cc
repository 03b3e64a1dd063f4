// libFuzzer target: a whole result log → line reader → MLLOG parser → run builder
// (scoring.md §1, §2, §4.1), read in small blocks so lines straddle reads. Every input goes
// both ways: read_run's (what `score` runs: fast scan, full parser as fallback) and every
// line through parse_mllog_line (read_run_full_parser, the reference). The two Runs must be
// equal in every field, doubles to the bit, and consistent — never a crash, a leak or
// undefined behaviour.

#include <cmath>
#include <cstring>
#include <optional>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "mlperf/facts.h"
#include "mlperf/line_reader.h"
#include "mlperf/mllog.h"
#include "mlperf/run.h"

namespace {
const mlperf::Facts& facts() {
  static const mlperf::Facts f =
      mlperf::Facts::load(std::filesystem::path(MLPERF_SCORE_SOURCE_DIR) / "configs" / "benchmarks.json");
  return f;
}
bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same(const std::optional<double>& a, const std::optional<double>& b) {
  return a.has_value() == b.has_value() && (!a || same_double(*a, *b));
}
bool same(const mlperf::EventMark& a, const mlperf::EventMark& b) {
  return same_double(a.time_ms, b.time_ms) && a.line == b.line;
}
bool same(const std::optional<mlperf::EventMark>& a, const std::optional<mlperf::EventMark>& b) {
  return a.has_value() == b.has_value() && (!a || same(*a, *b));
}

// Every field of the two Runs, doubles to the bit.
bool same_run(const mlperf::Run& a, const mlperf::Run& b) {
  if (a.file != b.file || a.benchmark != b.benchmark || a.division != b.division || a.org != b.org ||
      a.platform != b.platform || a.global_batch_size != b.global_batch_size) {
    return false;
  }
  if (!same(a.run_start, b.run_start) || !same(a.run_stop, b.run_stop) || !same(a.init_start, b.init_start) ||
      !same(a.init_stop, b.init_stop) || !same(a.late_init_start, b.late_init_start)) {
    return false;
  }
  if (a.run_start_count != b.run_start_count || a.run_stop_count != b.run_stop_count ||
      a.init_start_count != b.init_start_count || a.init_stop_count != b.init_stop_count || a.status != b.status ||
      !same(a.minutes, b.minutes)) {
    return false;
  }
  if (a.quality_target_known != b.quality_target_known || a.quality_target_reached != b.quality_target_reached ||
      a.converged != b.converged || !same_double(a.samples_to_converge, b.samples_to_converge) ||
      !same(a.last_throughput, b.last_throughput)) {
    return false;
  }
  if (a.key_census.size() != b.key_census.size()) return false;
  for (auto i = a.key_census.begin(), j = b.key_census.begin(); i != a.key_census.end(); ++i, ++j) {
    if (i->first != j->first || i->second.count != j->second.count || !same(i->second.first, j->second.first) ||
        !same(i->second.last, j->second.last)) {
      return false;
    }
  }
  if (a.mllog_lines != b.mllog_lines || a.parse_error_count != b.parse_error_count ||
      a.parse_errors.size() != b.parse_errors.size() || a.drop_reasons != b.drop_reasons || a.notes != b.notes) {
    return false;
  }
  for (std::size_t i = 0; i < a.parse_errors.size(); ++i) {
    if (a.parse_errors[i].line != b.parse_errors[i].line || a.parse_errors[i].message != b.parse_errors[i].message) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The first byte picks the benchmark hint and ruleset so every convergence rule is reached.
  static const char* kBenchmarks[] = {"llama31_8b", "llama2_70b_lora", "stable_diffusion", "bert",
                                      "retinanet", "unet3d", "nonexistent"};
  static const char* kRulesets[] = {"5.1.0", "3.1.0", "5.0.0", "4.0.0"};
  unsigned selector = size > 0 ? data[0] : 0;
  mlperf::RunOptions options{*mlperf::Ruleset::parse(kRulesets[(selector >> 4) % 4]), (selector & 8) != 0};
  std::string hint = kBenchmarks[selector % 7];
  std::string text(reinterpret_cast<const char*>(data), size);

  // Bit 6: tiny reads and blocks (every line straddles reads, the buffer grows) or whole ones.
  const bool tiny_reads = (selector & 64) != 0;
  auto reader = [&] {
    return mlperf::LineReader(mlperf::string_source(text, tiny_reads ? 7 : SIZE_MAX), tiny_reads ? 16 : 65536, 4096);
  };
  mlperf::LineReader fast_reader = reader();
  const mlperf::Run run = mlperf::read_run(fast_reader, "fuzz.txt", hint, facts(), options);
  mlperf::LineReader full_reader = reader();
  const mlperf::Run full = mlperf::read_run_full_parser(full_reader, "fuzz.txt", hint, facts(), options);
  if (!same_run(run, full)) std::abort();
  // Invariants: a counted run has minutes; a converged run has finite samples.
  if (run.counted() && !run.minutes) std::abort();
  if (run.converged && std::isinf(run.samples_to_converge)) std::abort();
  if (run.parse_errors.size() > mlperf::Run::kMaxKeptParseErrors) std::abort();
  return 0;
}
