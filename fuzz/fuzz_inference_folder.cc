// libFuzzer target: one file of a real MLPerf Inference submission replaced by the input, then
// the scenario folder found, scored and checked as `score` and `check` do (inference.md: the
// loadgen logs, the accuracy run, the compliance tests, the submission checker's tree, system
// and measurement rules) and written in every report format. Never a crash, a leak or
// undefined behaviour, and the JSON report always parses as JSON. The files are those of AMD's
// v5.1 stable-diffusion-xl Offline folder and of NVIDIA's v6.1 qwen3-vl-235b-a22b Server MLPerf
// endpoints run (config.yaml through the YAML composer, the two JSON files: endpoints_log.h),
// both from data/examples.
//
// Input: byte 0 picks the file (kFiles, modulo their number); the rest is its new content
// (none: the file is removed, and the summary log stands in for a missing detail log).
// Every input gets a fresh copy of the tree, since the inference data keeps what it judged
// per path (a system description, a submitter's tree) for as long as it lives.
// `fuzz_inference_folder -write_seeds=DIR` writes one seed per file (its byte and the real
// content) into DIR and exits: scripts/fuzz seeds the corpus so, from the files themselves.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlperf/inference/check.h"
#include "mlperf/inference/score.h"
#include "mlperf/mllog/discovery.h"
#include "mlperf/report/inference_report.h"
#include "mlperf/report/report.h"
#include "mlperf/training/data_context.h"
#include "fuzz_support.h"

namespace {

namespace fs = std::filesystem;
using mlperf::fuzz::source_dir;

// The files an input may replace, relative to data/examples, each with the scenario folder it
// belongs to: every kind of file the scenario folder's judgment reads.
struct FuzzedFile {
  const char* scenario;
  const char* file;
};
#define MLPERF_FUZZ_AMD "inference_results_v5.1/closed/AMD/"
#define MLPERF_FUZZ_SDXL "8xMI325x_2xEPYC-9655/stable-diffusion-xl/Offline/"
#define MLPERF_FUZZ_ENDPOINTS \
  "inference_results_v6.1/NVIDIA/VR-NVL72_VR-288GB_aarch64x72_TRT/qwen3-vl-235b-a22b/Server/"
constexpr const char* kAmd = MLPERF_FUZZ_AMD "results/" MLPERF_FUZZ_SDXL;
constexpr const char* kEndpoints = MLPERF_FUZZ_ENDPOINTS;
const FuzzedFile kFiles[] = {
    {kAmd, MLPERF_FUZZ_AMD "results/" MLPERF_FUZZ_SDXL "performance/run_1/mlperf_log_detail.txt"},
    {kAmd, MLPERF_FUZZ_AMD "results/" MLPERF_FUZZ_SDXL "performance/run_1/mlperf_log_summary.txt"},
    {kAmd, MLPERF_FUZZ_AMD "results/" MLPERF_FUZZ_SDXL "accuracy/accuracy.txt"},
    {kAmd, MLPERF_FUZZ_AMD "results/" MLPERF_FUZZ_SDXL "accuracy/mlperf_log_detail.txt"},
    {kAmd, MLPERF_FUZZ_AMD "results/" MLPERF_FUZZ_SDXL "accuracy/mlperf_log_accuracy.json"},
    {kAmd, MLPERF_FUZZ_AMD "compliance/" MLPERF_FUZZ_SDXL "TEST01/verify_accuracy.txt"},
    {kAmd, MLPERF_FUZZ_AMD "compliance/" MLPERF_FUZZ_SDXL "TEST01/verify_performance.txt"},
    {kAmd, MLPERF_FUZZ_AMD "compliance/" MLPERF_FUZZ_SDXL "TEST01/accuracy/accuracy.txt"},
    {kAmd, MLPERF_FUZZ_AMD "compliance/" MLPERF_FUZZ_SDXL "TEST04/verify_performance.txt"},
    {kAmd, MLPERF_FUZZ_AMD "compliance/" MLPERF_FUZZ_SDXL "TEST04/performance/run_1/mlperf_log_detail.txt"},
    {kAmd, MLPERF_FUZZ_AMD "measurements/" MLPERF_FUZZ_SDXL "8xMI325x_2xEPYC-9655_Offline.json"},
    {kAmd, MLPERF_FUZZ_AMD "measurements/" MLPERF_FUZZ_SDXL "user.conf"},
    {kAmd, MLPERF_FUZZ_AMD "measurements/" MLPERF_FUZZ_SDXL "mlperf.conf"},
    {kAmd, MLPERF_FUZZ_AMD "systems/8xMI325x_2xEPYC-9655.json"},
    {kEndpoints, MLPERF_FUZZ_ENDPOINTS "config.yaml"},
    {kEndpoints, MLPERF_FUZZ_ENDPOINTS "performance/result_summary.json"},
    {kEndpoints, MLPERF_FUZZ_ENDPOINTS "accuracy/accuracy_results.json"},
};
#undef MLPERF_FUZZ_AMD
#undef MLPERF_FUZZ_SDXL
#undef MLPERF_FUZZ_ENDPOINTS

constexpr std::size_t kFileCount = sizeof kFiles / sizeof kFiles[0];

const fs::path& source_examples() {
  static const fs::path p = source_dir() / "data/examples";
  return p;
}

// A folder of this process's own, removed at exit.
const fs::path& work_dir() {
  static const fs::path p = [] {
    const fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    fs::path dir = base / ("mlperf-fuzz-inference-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::atexit([] { std::error_code ec; fs::remove_all(work_dir(), ec); });
    return dir;
  }();
  return p;
}

// `to` removed and made a copy of `from`, tried again when a system call was interrupted
// (libFuzzer's SIGALRM, which checks for slow inputs every second, interrupts a file copy).
void copy_tree(const fs::path& from, const fs::path& to, fs::copy_options options) {
  for (int attempt = 1;; ++attempt) {
    std::error_code ec;
    fs::remove_all(to, ec);
    if (!ec) fs::copy(from, to, options, ec);
    if (!ec) return;
    if (ec != std::errc::interrupted || attempt == 10) throw fs::filesystem_error("cannot copy", from, to, ec);
  }
}

// The shipped data, made anew now and then: its inference caches keep an entry for every
// submitter folder and system description judged, and every input has paths of its own.
const mlperf::DataContext& data(bool renew) {
  static std::unique_ptr<mlperf::DataContext> d;
  if (!d || renew) d = std::make_unique<mlperf::DataContext>(source_dir());
  return *d;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  mlperf::fuzz::write_seeds_if_asked(*argc, *argv, [] {
    std::vector<std::pair<std::string, std::string>> seeds;
    for (std::size_t k = 0; k < kFileCount; ++k) {
      seeds.emplace_back("seed_" + std::to_string(k),
                         std::string(1, static_cast<char>(k)) +
                             mlperf::fuzz::read_seed_source(source_examples() / kFiles[k].file));
    }
    return seeds;
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* input, std::size_t size) {
  static std::uint64_t count = 0;
  const std::size_t which = size > 0 ? input[0] % kFileCount : 0;
  const std::string content(reinterpret_cast<const char*>(input) + (size > 0 ? 1 : 0), size > 0 ? size - 1 : 0);

  // A copy of the inference examples, hard links to a copy made once in the work folder
  // (nothing is written to them), with the chosen file written anew in place of its link.
  static const fs::path original = [] {
    fs::path p = work_dir() / "original";
    fs::create_directories(p);
    for (const char* round : {"inference_results_v5.1", "inference_results_v6.1"}) {
      copy_tree(source_examples() / round, p / round, fs::copy_options::recursive);
    }
    return p;
  }();
  const fs::path examples = work_dir() / std::to_string(count % 2);
  copy_tree(original, examples, fs::copy_options::recursive | fs::copy_options::create_hard_links);
  const FuzzedFile& fuzzed = kFiles[which];
  const fs::path target = examples / fuzzed.file;
  fs::remove(target);
  if (!content.empty()) {  // an empty content leaves the file missing
    std::ofstream out(target, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
  }

  const mlperf::DataContext& context = data(count++ % 256 == 0);
  std::vector<mlperf::DiscoveryError> errors;
  std::vector<mlperf::BenchmarkDir> dirs = mlperf::find_benchmark_dirs(examples / fuzzed.scenario, errors);
  if (dirs.size() != 1 || !dirs[0].loadgen) return 0;  // the input made it no scenario folder
  mlperf::DirectoryResult result = mlperf::inference::score_inference_directory(dirs[0], context, mlperf::ScoreOptions{});
  mlperf::inference::check_inference_directory(result);

  // The JSON object parses; every other format is written.
  const std::string text = mlperf::inference_to_json_text(result, 2);
  if (!nlohmann::json::accept(text)) std::abort();
  for (auto format : {mlperf::ReportFormat::kTable, mlperf::ReportFormat::kJson, mlperf::ReportFormat::kCsv,
                      mlperf::ReportFormat::kMarkdown}) {
    std::ostringstream out;
    mlperf::ReportWriter writer(out, format, mlperf::RcpPass{});
    writer.add({result});
    writer.finish();
    if (format == mlperf::ReportFormat::kJson && !nlohmann::json::accept(out.str())) std::abort();
  }
  return 0;
}
