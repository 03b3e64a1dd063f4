#include "mlperf/report/directories.h"

#include "mlperf/inference/check.h"
#include "mlperf/inference/score.h"
#include "mlperf/mllog/parallel.h"
#include "mlperf/compliance/rules.h"

#include <algorithm>
#include <optional>

namespace mlperf {

DirectoryResult score_directory(const BenchmarkDir& dir, const DataContext& data, const ScoreOptions& options) {
  if (dir.loadgen) return inference::score_inference_directory(dir, data, options);
  return score_training_directory(dir, data, options);
}

std::vector<DirectoryResult> score_directories(std::vector<BenchmarkDir> dirs, const DataContext& data,
                                               const ScoreOptions& options, const ScoredHook& scored) {
  std::vector<std::size_t> training;   // indices into dirs
  std::vector<std::size_t> inference;  // indices into dirs
  for (std::size_t i = 0; i < dirs.size(); ++i) (dirs[i].loadgen ? inference : training).push_back(i);
  if (inference.empty()) return score_training_directories(std::move(dirs), data, options);
  std::vector<BenchmarkDir> training_dirs;
  for (std::size_t i : training) training_dirs.push_back(std::move(dirs[i]));
  std::vector<DirectoryResult> results(dirs.size());
  if (!training_dirs.empty()) {
    std::vector<DirectoryResult> scored = score_training_directories(std::move(training_dirs), data, options);
    for (std::size_t k = 0; k < training.size(); ++k) results[training[k]] = std::move(scored[k]);
  }
  parallel_for(inference.size(), default_threads(), [&](std::size_t k) {
    DirectoryResult& result = results[inference[k]];
    result = inference::score_inference_directory(dirs[inference[k]], data, options);
    if (scored) scored(inference[k], result);
  });
  return results;
}

std::vector<DirectoryResult> score_directories_in_batches(const BenchmarkDirFeed& feed, const DataContext& data,
                                                          const ScoreOptions& given_options,
                                                          const std::function<void(std::vector<DirectoryResult>&)>& consume,
                                                          std::size_t batch_files, MissingRules missing_rules,
                                                          const ScoredHook& scored) {
  ScoreOptions options = given_options;
  std::optional<compliance::RuleLibrary> rules;  // loaded for `loaded`
  ComplianceNeeds loaded;
  bool rules_failed = false;
  std::vector<BenchmarkDir> batch;
  std::size_t files = 0;
  std::vector<DirectoryResult> last;  // the last batch's results, handed back
  // Scores the batch and hands it to `consume`; its results are let go at once, before more
  // directories are found, unless it is the last (kept in `last`).
  auto flush = [&](bool is_last) {
    if (batch.empty()) return;
    if (!given_options.compliance_rules && !rules_failed) {
      const ComplianceNeeds needs = compliance_needs(batch, data, given_options);
      if (!needs.rulesets.empty() && (!rules || !loaded.covers(needs))) {
        ComplianceNeeds wanted = loaded;
        wanted.merge(needs);
        try {
          rules.emplace(load_compliance_rules(wanted, data));
          loaded = wanted;
        } catch (const std::bad_alloc&) {
          throw;  // out of memory is never a finding: main.cc says so, exit 2
        } catch (const std::exception&) {
          if (missing_rules == MissingRules::kThrow) throw;
          // score_training_directories tries again for each batch and says why in its results.
          rules.reset();
          rules_failed = true;
        }
      }
      options.compliance_rules = rules ? &*rules : nullptr;
    }
    std::vector<DirectoryResult> results = score_directories(std::move(batch), data, options, scored);
    batch.clear();
    files = 0;
    consume(results);
    if (is_last) last = std::move(results);
  };
  std::vector<BenchmarkDir> found;
  while (feed(found)) {
    for (auto& dir : found) {
      const std::size_t n = std::max<std::size_t>(dir.result_files.size(), 1);
      if (!batch.empty() && files + n > batch_files) flush(false);
      batch.push_back(std::move(dir));
      files += n;
    }
    found.clear();
  }
  flush(true);
  return last;
}

std::vector<DirectoryResult> score_directories_in_batches(std::vector<BenchmarkDir> dirs, const DataContext& data,
                                                          const ScoreOptions& options,
                                                          const std::function<void(std::vector<DirectoryResult>&)>& consume,
                                                          std::size_t batch_files) {
  bool given = false;
  return score_directories_in_batches(
      [&](std::vector<BenchmarkDir>& out) {
        if (given) return false;
        given = true;
        for (auto& d : dirs) out.push_back(std::move(d));
        return !out.empty();
      },
      data, options, consume, batch_files);
}

CheckReport check_directory(const DirectoryResult& result, const Facts& facts, const CheckOptions& options) {
  if (result.dir.loadgen) return inference::check_inference_directory(result);
  return check_training_directory(result, facts, options);
}

}  // namespace mlperf
