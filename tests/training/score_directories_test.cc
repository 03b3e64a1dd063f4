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

// The example llama31_8b logs (2025-10-08) in `folder`, outside any training_results_vX.Y
// path: the ruleset is guessed from their dates. With `first_a_year_later`, result_0.txt's
// times are a year later (after 5.1.0's publication) and the forecast from the first log
// (6.x) is not the guess from all of them (5.1.0).
BenchmarkDir guessed_dir(const std::filesystem::path& folder, bool first_a_year_later) {
  std::filesystem::create_directories(folder);
  const auto source = testing::example_system() / "llama31_8b";
  for (int n = 0; n < 10; ++n) {
    const std::string name = "result_" + std::to_string(n) + ".txt";
    std::string text = testing::read_file(source / name);
    if (n == 0 && first_a_year_later) {
      const std::string tag = "\"time_ms\": ";
      for (std::size_t at = text.find(tag); at != std::string::npos; at = text.find(tag, at + 1)) {
        const std::size_t digits = at + tag.size();
        const std::size_t end = text.find_first_not_of("0123456789", digits);
        const long long later = std::stoll(text.substr(digits, end - digits)) + 365LL * 86400000;
        text.replace(digits, end - digits, std::to_string(later));
      }
    }
    testing::write_file(folder / name, text);
  }
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(folder, errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(dirs.size(), 1u);
  return dirs.at(0);
}

TEST_F(ScoreDirectories, GuessedRulesetsAsEachDirectoryAlone) {
  // Read ahead under the first log's guess: the same results whether it is the guess from all
  // the logs (read once) or not (read again under that).
  testing::TempDir tmp;
  std::vector<BenchmarkDir> dirs = {guessed_dir(tmp.path() / "same", false),
                                    guessed_dir(tmp.path() / "first_later", true)};
  ScoreOptions options;
  std::vector<DirectoryResult> got = score_training_directories(dirs, data, options);
  ASSERT_EQ(got.size(), 2u);
  for (const auto& r : got) {
    EXPECT_EQ(r.ruleset.str(), "5.1.0");
    EXPECT_EQ(r.ruleset_source, "guessed");
    ASSERT_EQ(r.runs.size(), 10u);
    for (const auto& run : r.runs) {
      // Every log judged by the guessed round's compliance configs, the first one too.
      ASSERT_TRUE(run.compliance.has_value()) << run.file;
      ASSERT_FALSE(run.compliance->configs.empty()) << run.file;
      for (const auto& config : run.compliance->configs) EXPECT_NE(config.find("5.1.0"), std::string::npos) << config;
    }
  }
  EXPECT_EQ(got[0].verdict, "passed");
  EXPECT_NE(got[1].ruleset_reason.find("the logs start on 2025-10-08"), std::string::npos) << got[1].ruleset_reason;
  EXPECT_EQ(as_json(got), as_json(one_by_one(dirs, options)));

  // The first log alone guesses a later round, and so does the directory of it alone.
  BenchmarkDir later_alone = dirs[1];
  later_alone.result_files.resize(1);
  std::vector<DirectoryResult> alone = score_training_directories({later_alone}, data, options);
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_NE(alone[0].ruleset.str(), "5.1.0");
  EXPECT_EQ(alone[0].ruleset_source, "guessed");
  EXPECT_EQ(as_json(alone), as_json(one_by_one({later_alone}, options)));
}

TEST_F(ScoreDirectories, NoDirectoriesNoResults) {
  EXPECT_TRUE(score_training_directories({}, data, ScoreOptions{}).empty());
}

}  // namespace
}  // namespace mlperf
