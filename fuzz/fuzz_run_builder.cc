// libFuzzer target: a whole result log → line reader → MLLOG parser → run builder
// (scoring.md §1, §2, §4.1), read in small blocks so lines straddle reads. Bit 2 of the
// first byte picks the path: read_run's (fast scan, full parser as fallback) or every line
// through parse_mllog_line. Any input must
// give a Run whose figures are consistent — never a crash, a leak or undefined behaviour.

#include <cmath>
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
  mlperf::LineReader reader(mlperf::string_source(std::move(text), tiny_reads ? 7 : SIZE_MAX),
                            tiny_reads ? 16 : 65536, 4096);
  mlperf::Run run;
  if ((selector & 4) == 0) {
    // What `score` runs: the fast scan with the full parser as fallback.
    run = mlperf::read_run(reader, "fuzz.txt", hint, facts(), options);
  } else {
    // Every line through the full parser (what `parse` and the fallback use).
    run = mlperf::read_run_full_parser(reader, "fuzz.txt", hint, facts(), options);
  }
  // Invariants: a counted run has minutes; a converged run has finite samples.
  if (run.counted() && !run.minutes) std::abort();
  if (run.converged && std::isinf(run.samples_to_converge)) std::abort();
  if (run.parse_errors.size() > mlperf::Run::kMaxKeptParseErrors) std::abort();
  return 0;
}
