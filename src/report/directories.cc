#include "mlperf/report/directories.h"

#include "mlperf/inference/check.h"
#include "mlperf/inference/score.h"
#include "mlperf/mllog/parallel.h"

namespace mlperf {

DirectoryResult score_directory(const BenchmarkDir& dir, const DataContext& data, const ScoreOptions& options) {
  if (dir.loadgen) return inference::score_inference_directory(dir, data, options);
  return score_training_directory(dir, data, options);
}

std::vector<DirectoryResult> score_directories(const std::vector<BenchmarkDir>& dirs, const DataContext& data,
                                               const ScoreOptions& options) {
  std::vector<std::size_t> training;   // indices into dirs
  std::vector<std::size_t> inference;  // indices into dirs
  std::vector<BenchmarkDir> training_dirs;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    if (dirs[i].loadgen) {
      inference.push_back(i);
    } else {
      training.push_back(i);
      training_dirs.push_back(dirs[i]);
    }
  }
  std::vector<DirectoryResult> results(dirs.size());
  if (!training_dirs.empty()) {
    std::vector<DirectoryResult> scored = score_training_directories(training_dirs, data, options);
    for (std::size_t k = 0; k < training.size(); ++k) results[training[k]] = std::move(scored[k]);
  }
  parallel_for(inference.size(), default_threads(), [&](std::size_t k) {
    results[inference[k]] = inference::score_inference_directory(dirs[inference[k]], data, options);
  });
  return results;
}

CheckReport check_directory(const DirectoryResult& result, const Facts& facts, const CheckOptions& options) {
  if (result.dir.loadgen) return inference::check_inference_directory(result);
  return check_training_directory(result, facts, options);
}

}  // namespace mlperf
