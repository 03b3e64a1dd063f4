// The stages of `score` on a whole MLPerf Inference round (issue #13's figure), one at a
// time on one thread where the stage allows: folder discovery, reading the detail logs,
// scoring the scenario folders, and the JSON report. The round is the v5.1 inference corpus
// (../shared/tools/corpus inference_v5.1 unpacks it to /tmp/mlperf-reference/inference_v5.1)
// or MLPERF_SCORE_BENCH_INFERENCE=DIR; each benchmark is skipped, saying so, without it.
// scripts/bench-inference times the whole command against grep.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

#include "mlperf/report/directories.h"
#include "mlperf/inference/loadgen_log.h"
#include "mlperf/inference/score.h"
#include "mlperf/report/report.h"
#include "mlperf/training/score.h"

namespace {

namespace fs = std::filesystem;
using namespace mlperf;

fs::path round_dir() {
  const char* env = std::getenv("MLPERF_SCORE_BENCH_INFERENCE");
  return env ? fs::path(env) : fs::path("/tmp/mlperf-reference/inference_v5.1");
}

const DataContext& data() {
  static DataContext d{MLPERF_SCORE_SOURCE_DIR};
  return d;
}

// The scenario folders of the round, found once.
const std::vector<BenchmarkDir>& scenario_dirs() {
  static std::vector<BenchmarkDir> dirs = [] {
    std::vector<DiscoveryError> errors;
    return fs::is_directory(round_dir()) ? find_benchmark_dirs(round_dir(), errors) : std::vector<BenchmarkDir>{};
  }();
  return dirs;
}

bool have_round(benchmark::State& state) {
  if (!scenario_dirs().empty()) return true;
  state.SkipWithError(("no inference round at " + round_dir().string() + " (MLPERF_SCORE_BENCH_INFERENCE)").c_str());
  return false;
}

void BM_Inference_Discovery(benchmark::State& state) {
  if (!have_round(state)) return;
  std::size_t found = 0;
  for (auto _ : state) {
    std::vector<DiscoveryError> errors;
    found = find_benchmark_dirs(round_dir(), errors).size();
  }
  state.counters["folders"] = static_cast<double>(found);
}
BENCHMARK(BM_Inference_Discovery)->Unit(benchmark::kMillisecond);

void BM_Inference_ReadDetailLogs(benchmark::State& state) {
  if (!have_round(state)) return;
  std::vector<fs::path> logs;
  std::uintmax_t bytes = 0;
  for (const auto& d : scenario_dirs()) {
    if (!d.loadgen) continue;
    fs::path log = d.loadgen->run_dir / inference::kDetailLogName;
    std::error_code ec;
    if (fs::is_regular_file(log, ec)) {
      bytes += fs::file_size(log, ec);
      logs.push_back(log);
    }
  }
  const auto& keys = data().inference().keys_read;
  for (auto _ : state) {
    for (const auto& log : logs) benchmark::DoNotOptimize(inference::read_detail_log(log, keys));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.counters["logs"] = static_cast<double>(logs.size());
}
BENCHMARK(BM_Inference_ReadDetailLogs)->Unit(benchmark::kMillisecond);

void BM_Inference_ScoreFolders(benchmark::State& state) {
  if (!have_round(state)) return;
  for (auto _ : state) {
    for (const auto& d : scenario_dirs()) benchmark::DoNotOptimize(score_directory(d, data(), {}));
  }
}
BENCHMARK(BM_Inference_ScoreFolders)->Unit(benchmark::kMillisecond);

void BM_Inference_JsonReport(benchmark::State& state) {
  if (!have_round(state)) return;
  std::vector<DirectoryResult> results;
  for (const auto& d : scenario_dirs()) results.push_back(score_directory(d, data(), {}));
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::ostringstream out;
    write_report(out, results, ReportFormat::kJson, RcpPass::kPruned);
    bytes = out.str().size();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_Inference_JsonReport)->Unit(benchmark::kMillisecond);

}  // namespace
