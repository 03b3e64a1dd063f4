// Scoring and checking directories of either kind (report/directories.h): a tree holding
// training benchmark directories and inference scenario folders gives, in the order given,
// what each kind's own scorer and checker give for each directory on its own.
#include "mlperf/report/directories.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "../test_support.h"
#include "mlperf/inference/check.h"
#include "mlperf/inference/score.h"
#include "mlperf/report/check_report.h"
#include "mlperf/report/report.h"

namespace mlperf {
namespace {

using testing::source_dir;

std::string as_json(const std::vector<DirectoryResult>& results) {
  std::ostringstream out;
  write_report(out, results, ReportFormat::kJson, RcpPass::kPruned);
  return out.str();
}

class Directories : public ::testing::Test {
 protected:
  DataContext data{source_dir()};

  // Every directory of data/examples (7 training, 9 inference), the kinds interleaved and one
  // of each given twice.
  std::vector<BenchmarkDir> mixed() {
    std::vector<DiscoveryError> errors;
    std::vector<BenchmarkDir> dirs = find_benchmark_dirs(source_dir() / "data/examples", errors);
    EXPECT_TRUE(errors.empty());
    std::vector<BenchmarkDir> training, inference;
    for (const auto& d : dirs) (d.loadgen ? inference : training).push_back(d);
    EXPECT_EQ(training.size(), 7u);
    EXPECT_EQ(inference.size(), 9u);
    std::vector<BenchmarkDir> out;
    for (std::size_t i = 0; i < inference.size(); ++i) {
      out.push_back(inference[i]);
      if (i < training.size()) out.push_back(training[training.size() - 1 - i]);
    }
    out.push_back(training[0]);
    out.push_back(inference[0]);
    return out;
  }
};

TEST_F(Directories, EachKindScoredByItsOwnScorerInTheOrderGiven) {
  const std::vector<BenchmarkDir> dirs = mixed();
  const std::vector<DirectoryResult> got = score_directories(dirs, data, ScoreOptions{});
  ASSERT_EQ(got.size(), dirs.size());
  std::vector<DirectoryResult> one_by_one;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    EXPECT_EQ(got[i].dir.path, dirs[i].path) << i;
    EXPECT_EQ(got[i].inference != nullptr, dirs[i].loadgen.has_value()) << dirs[i].path;
    one_by_one.push_back(dirs[i].loadgen ? inference::score_inference_directory(dirs[i], data, ScoreOptions{})
                                         : score_training_directory(dirs[i], data, ScoreOptions{}));
    EXPECT_EQ(as_json({score_directory(dirs[i], data, ScoreOptions{})}), as_json({one_by_one.back()})) << dirs[i].path;
  }
  EXPECT_EQ(as_json(got), as_json(one_by_one));
  // The training directories, last first: v6.0 MI355X llama31_8b and llama2_70b_lora, v6.0
  // MI350X llama31_8b and llama2_70b_lora, v6.0 MI325X flux1, then v5.1 llama31_8b and
  // llama2_70b_lora.
  EXPECT_EQ(got[1].benchmark, "llama31_8b");
  EXPECT_EQ(got[1].ruleset.str(), "6.0.0");
  EXPECT_EQ(got[3].benchmark, "llama2_70b_lora");
  EXPECT_EQ(got[5].platform.name, "MI350X");
  EXPECT_EQ(got[9].benchmark, "flux1");
  EXPECT_EQ(got[11].benchmark, "llama31_8b");
  EXPECT_EQ(got[11].ruleset.str(), "5.1.0");
  EXPECT_TRUE(got[0].inference && got[0].inference->valid);
}

// Each inference scenario folder is handed to the ScoredHook once, on the thread that scored
// it, with its index among those scored together; the training directories are not. A
// report writer given them there (ReportWriter::prepare) writes the report of the whole,
// whatever the batches.
TEST_F(Directories, EachScenarioFolderIsHandedOnOnceAsItIsScored) {
  const std::vector<BenchmarkDir> dirs = mixed();
  std::ostringstream whole;
  write_report(whole, score_directories(dirs, data, ScoreOptions{}), ReportFormat::kJson, RcpPass::kPruned);
  for (std::size_t batch_files : {std::size_t{1}, std::size_t{3}, kBatchFiles}) {
    std::ostringstream out;
    ReportWriter writer(out, ReportFormat::kJson, RcpPass::kPruned);
    std::mutex mutex;
    std::vector<std::pair<std::size_t, std::string>> handed;  // index and path, this batch
    std::size_t scenario_folders = 0;
    bool given = false;
    auto feed = [&](std::vector<BenchmarkDir>& out) {
      if (given) return false;
      given = true;
      out = dirs;
      return true;
    };
    score_directories_in_batches(
        feed, data, ScoreOptions{},
        [&](std::vector<DirectoryResult>& batch) {
          std::sort(handed.begin(), handed.end());
          std::vector<std::pair<std::size_t, std::string>> want;
          for (std::size_t k = 0; k < batch.size(); ++k) {
            if (batch[k].dir.loadgen) want.emplace_back(k, batch[k].dir.path.string());
          }
          EXPECT_EQ(handed, want) << "batches of " << batch_files << " files";
          scenario_folders += handed.size();
          handed.clear();
          writer.add(batch);
        },
        batch_files, MissingRules::kScoreWithout,
        [&](std::size_t index, const DirectoryResult& result) {
          {
            std::lock_guard lock(mutex);
            handed.emplace_back(index, result.dir.path.string());
          }
          writer.prepare(index, result);
        });
    writer.finish();
    EXPECT_EQ(scenario_folders, 10u);  // 9, one given twice
    EXPECT_EQ(out.str(), whole.str()) << "batches of " << batch_files << " files";
  }
}

TEST_F(Directories, EachKindCheckedByItsOwnChecker) {
  const std::vector<DirectoryResult> results = score_directories(mixed(), data, ScoreOptions{});
  for (const auto& r : results) {
    const CheckReport report = check_directory(r, data.facts());
    const CheckReport own = r.dir.loadgen ? inference::check_inference_directory(r)
                                          : check_training_directory(r, data.facts());
    EXPECT_EQ(check_to_json(report), check_to_json(own)) << r.dir.path;
    EXPECT_TRUE(report.passed()) << r.dir.path;
    // A training directory is judged by the package checks, a scenario folder by its validity.
    EXPECT_EQ(report.find("rcp") != nullptr, !r.dir.loadgen) << r.dir.path;
  }
}

TEST_F(Directories, NoDirectoriesNoResults) {
  EXPECT_TRUE(score_directories({}, data, ScoreOptions{}).empty());
  std::size_t batches = 0;
  EXPECT_TRUE(score_directories_in_batches(std::vector<BenchmarkDir>{}, data, ScoreOptions{},
                                           [&](std::vector<DirectoryResult>&) { ++batches; })
                  .empty());
  EXPECT_EQ(batches, 0u);
}

// Scored a batch at a time (issue #25): whatever the batch size, the batches come in the order
// given, hold at most that many result files (a bigger directory alone), and together are
// what score_directories gives.
TEST_F(Directories, BatchesInTheOrderGivenEqualScoringAllAtOnce) {
  const std::vector<BenchmarkDir> dirs = mixed();
  const std::string all = as_json(score_directories(dirs, data, ScoreOptions{}));
  for (std::size_t batch_files : {std::size_t{1}, std::size_t{3}, std::size_t{8}, kBatchFiles}) {
    std::vector<DirectoryResult> got;
    std::size_t batches = 0;
    std::string last_batch;  // the last batch consumed, as JSON
    const std::vector<DirectoryResult> returned =
        score_directories_in_batches(dirs, data, ScoreOptions{}, [&](std::vector<DirectoryResult>& batch) {
          ++batches;
          std::size_t files = 0;
          for (const auto& r : batch) files += std::max<std::size_t>(r.dir.result_files.size(), 1);
          EXPECT_TRUE(batch.size() == 1 || files <= batch_files) << files << " files in a batch of " << batch_files;
          last_batch = as_json(batch);
          for (const auto& r : batch) got.push_back(r);
        }, batch_files);
    // The last batch comes back, as consumed, for the caller to let go (or leave to the exit).
    EXPECT_EQ(as_json(returned), last_batch) << "batches of " << batch_files << " files";
    ASSERT_EQ(got.size(), dirs.size());
    for (std::size_t i = 0; i < dirs.size(); ++i) EXPECT_EQ(got[i].dir.path, dirs[i].path) << i;
    EXPECT_EQ(as_json(got), all) << "batches of " << batch_files << " files";
    if (batch_files == 1) EXPECT_EQ(batches, dirs.size());
    if (batch_files == kBatchFiles) EXPECT_EQ(batches, 1u);
  }
}

}  // namespace
}  // namespace mlperf
