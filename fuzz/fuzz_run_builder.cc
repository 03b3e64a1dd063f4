// libFuzzer target: a whole result log → line reader → MLLOG parser → run builder
// (scoring.md §1, §2, §4.1), read in small blocks so lines straddle reads. Every input goes
// both ways: read_run's (what `score` runs: fast scan, full parser as fallback) and every
// line through parse_mllog_line (read_run_full_parser, the reference). The two Runs must be
// equal in every field, doubles to the bit, and consistent — never a crash, a leak or
// undefined behaviour.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "mlperf/training/facts.h"
#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"
#include "mlperf/training/run.h"
#include "run_describe.h"  // tests/training/: every field of a Run as text

namespace {
const mlperf::Facts& facts() {
  static const mlperf::Facts f =
      mlperf::Facts::load(std::filesystem::path(MLPERF_SCORE_SOURCE_DIR) / "configs" / "benchmarks.json");
  return f;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The first byte picks the benchmark hint and ruleset so every convergence rule is reached.
  static const char* kBenchmarks[] = {"llama31_8b", "llama2_70b_lora", "stable_diffusion", "bert",
                                      "retinanet", "unet3d", "nonexistent"};
  static const char* kRulesets[] = {"5.1.0", "3.1.0", "5.0.0", "4.0.0"};
  unsigned selector = size > 0 ? data[0] : 0;
  mlperf::RunOptions options{*mlperf::Ruleset::parse(kRulesets[(selector >> 4) % 4]), (selector & 8) != 0};
  options.full_key_census = true;  // the two parsers are compared key by key
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
  if (mlperf::testing::describe(run) != mlperf::testing::describe(full)) std::abort();
  // Invariants: a counted run has minutes; a converged run has finite samples.
  if (run.counted() && !run.minutes) std::abort();
  if (run.converged && std::isinf(run.samples_to_converge)) std::abort();
  if (run.parse_errors.size() > mlperf::Run::kMaxKeptParseErrors) std::abort();
  return 0;
}
