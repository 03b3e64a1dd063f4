// Tests of score_directories: the result files of all directories are read on a thread pool
// (biggest first), yet every directory's result is what score_directory gives on its own,
// in the order given, unreadable files included.

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mlperf/report/report.h"  // results compared through their JSON report
#include "mlperf/training/score.h"
#include "../test_support.h"

namespace mlperf {
namespace {

std::string as_json(const std::vector<DirectoryResult>& results) {
  std::ostringstream out;
  write_report(out, results, ReportFormat::kJson, RcpPass::kPruned);
  return out.str();
}

class ScoreDirectories : public ::testing::Test {
 protected:
  DataContext data{testing::source_dir()};

  std::vector<BenchmarkDir> example_dirs() {
    std::vector<DiscoveryError> errors;
    auto dirs = find_benchmark_dirs(testing::source_dir() / "data/examples/training_results_v5.1", errors);
    EXPECT_TRUE(errors.empty());
    EXPECT_EQ(dirs.size(), 2u);
    return dirs;
  }

  // score_directory one by one, in order: what score_directories must give.
  std::vector<DirectoryResult> one_by_one(const std::vector<BenchmarkDir>& dirs, const ScoreOptions& options) {
    std::vector<DirectoryResult> out;
    for (const auto& d : dirs) out.push_back(score_training_directory(d, data, options));
    return out;
  }
};

TEST_F(ScoreDirectories, SameResultsInTheGivenOrder) {
  std::vector<BenchmarkDir> dirs = example_dirs();
  // Each directory twice and in both orders: results follow the input, not the reading.
  std::vector<BenchmarkDir> input = {dirs[1], dirs[0], dirs[1], dirs[0]};
  ScoreOptions options;
  std::vector<DirectoryResult> got = score_training_directories(input, data, options);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].benchmark, "llama31_8b");
  EXPECT_EQ(got[1].benchmark, "llama2_70b_lora");
  ASSERT_EQ(got[0].runs.size(), 10u);
  EXPECT_EQ(got[0].runs[3].file, dirs[1].result_files[3].string());
  EXPECT_EQ(as_json(got), as_json(one_by_one(input, options)));
}

TEST_F(ScoreDirectories, OptionsReachTheReadAhead) {
  // A ruleset from the command line and the bert option change how files are read.
  std::vector<BenchmarkDir> dirs = example_dirs();
  ScoreOptions options;
  options.ruleset = testing::rs("4.1.0");
  options.bert_train_samples = true;
  std::vector<DirectoryResult> got = score_training_directories(dirs, data, options);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].ruleset.str(), "4.1.0");
  EXPECT_EQ(as_json(got), as_json(one_by_one(dirs, options)));
}

TEST_F(ScoreDirectories, UnreadableFileIsAnErrorOfItsDirectoryOnly) {
  std::vector<BenchmarkDir> dirs = example_dirs();
  testing::TempDir tmp;
  dirs[0].result_files.insert(dirs[0].result_files.begin() + 2, tmp.path() / "result_missing.txt");
  ScoreOptions options;
  std::vector<DirectoryResult> got = score_training_directories(dirs, data, options);
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(got[0].errors.size(), 1u);
  EXPECT_NE(got[0].errors[0].find("result_missing.txt"), std::string::npos) << got[0].errors[0];
  EXPECT_EQ(got[0].runs.size(), 10u);
  EXPECT_TRUE(got[1].errors.empty());
  EXPECT_EQ(as_json(got), as_json(one_by_one(dirs, options)));
}

TEST_F(ScoreDirectories, NoDirectoriesNoResults) {
  EXPECT_TRUE(score_training_directories({}, data, ScoreOptions{}).empty());
}

}  // namespace
}  // namespace mlperf
