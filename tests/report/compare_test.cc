// Comparisons: run-time spread, speedup against a baseline, grouping by benchmark, formats.
// Figures were computed by hand from the example logs (run_stop − run_start of each file).

#include "mlperf/report/directories.h"
#include "mlperf/report/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <sstream>

#include "../test_support.h"

namespace mlperf {
namespace {

using testing::example_system;
using testing::rs;
using testing::source_dir;
using testing::TempDir;

mlperf::Run run_with_minutes(double minutes, bool dropped = false) {
  mlperf::Run run;
  run.minutes = minutes;
  if (dropped) run.drop_reasons.push_back("did not reach the quality target");
  return run;
}

TEST(RunMinutesStats, UsesCountedRunsAndThePopulationDeviation) {
  // Counted 3, 1, 2, 4 (a dropped 100 is ignored): mean 2.5, population variance
  // (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25, CV sqrt(1.25) / 2.5.
  std::vector<mlperf::Run> runs = {run_with_minutes(3), run_with_minutes(100, true), run_with_minutes(1),
                           run_with_minutes(2), run_with_minutes(4)};
  RunMinutesStats s = run_minutes_stats(runs);
  EXPECT_EQ(s.counted_runs, 4);
  EXPECT_DOUBLE_EQ(*s.min_minutes, 1.0);
  EXPECT_DOUBLE_EQ(*s.median_minutes, 2.5);
  EXPECT_DOUBLE_EQ(*s.max_minutes, 4.0);
  EXPECT_DOUBLE_EQ(*s.mean_minutes, 2.5);
  EXPECT_NEAR(*s.cv, 0.4472135954999579, 1e-15);
}

TEST(RunMinutesStats, OddCountSingleRunAndNoRuns) {
  RunMinutesStats odd = run_minutes_stats({run_with_minutes(5), run_with_minutes(1), run_with_minutes(3)});
  EXPECT_DOUBLE_EQ(*odd.median_minutes, 3.0);
  RunMinutesStats one = run_minutes_stats({run_with_minutes(7)});
  EXPECT_DOUBLE_EQ(*one.median_minutes, 7.0);
  EXPECT_DOUBLE_EQ(*one.cv, 0.0);
  RunMinutesStats none = run_minutes_stats({run_with_minutes(7, true)});
  EXPECT_EQ(none.counted_runs, 0);
  EXPECT_FALSE(none.min_minutes.has_value());
  EXPECT_FALSE(none.cv.has_value());
}

// A copy of `from` whose runs all take twice as long: each run_stop moves to
// run_start + 2 × (run_stop − run_start). Samples to converge are unchanged, so the RCP
// factor is too and the score doubles exactly (scaling by 2 is exact in binary floating point).
void write_twice_as_slow_copy(const std::filesystem::path& from, const std::filesystem::path& to) {
  static const std::regex time_ms(R"("time_ms": (\d+))");
  std::filesystem::create_directories(to);
  for (const auto& entry : std::filesystem::directory_iterator(from)) {
    std::istringstream in(testing::read_file(entry.path()));
    std::string out, line;
    long long run_start = -1;
    while (std::getline(in, line)) {
      std::smatch m;
      if (line.find("\"key\": \"run_start\"") != std::string::npos && std::regex_search(line, m, time_ms)) {
        run_start = std::stoll(m[1]);
      } else if (line.find("\"key\": \"run_stop\"") != std::string::npos && run_start >= 0 &&
                 std::regex_search(line, m, time_ms)) {
        long long stop = run_start + 2 * (std::stoll(m[1]) - run_start);
        line = m.prefix().str() + "\"time_ms\": " + std::to_string(stop) + m.suffix().str();
      }
      out += line + "\n";
    }
    testing::write_file(to / entry.path().filename(), out);
  }
}

class CompareExamples : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<DiscoveryError> errors;
    dirs_ = find_benchmark_dirs(example_system(), errors);  // llama2_70b_lora, llama31_8b
    write_twice_as_slow_copy(example_system() / "llama2_70b_lora", tmp_.path() / "SLOW_copy/llama2_70b_lora");
    auto slow = find_benchmark_dirs(tmp_.path() / "SLOW_copy", errors);
    ASSERT_TRUE(errors.empty());
    ASSERT_EQ(dirs_.size(), 2u);
    ASSERT_EQ(slow.size(), 1u);
    dirs_.push_back(slow[0]);
    options_.ruleset = rs("5.1.0");
    results_ = score_directories(dirs_, data_, options_);
  }

  TempDir tmp_;
  DataContext data_{source_dir()};
  ScoreOptions options_;
  std::vector<BenchmarkDir> dirs_;
  std::vector<DirectoryResult> results_;
};

TEST_F(CompareExamples, GroupsByBenchmarkWithTheFirstPathAsBaseline) {
  // Baseline: the two example directories (the first path).
  Comparison c = compare_results(results_, 2);
  ASSERT_EQ(c.benchmarks, (std::vector<std::string>{"llama2_70b_lora", "llama31_8b"}));
  ASSERT_EQ(c.rows.size(), 3u);
  // The slow copy sits in the llama2_70b_lora group, after the example directory.
  EXPECT_EQ(c.rows[0].benchmark, "llama2_70b_lora");
  EXPECT_EQ(c.rows[0].result_index, 0u);
  EXPECT_TRUE(c.rows[0].is_baseline);
  EXPECT_EQ(c.rows[1].benchmark, "llama2_70b_lora");
  EXPECT_EQ(c.rows[1].result_index, 2u);
  EXPECT_EQ(c.rows[1].system, "SLOW_copy");
  EXPECT_FALSE(c.rows[1].is_baseline);
  EXPECT_EQ(c.rows[2].benchmark, "llama31_8b");
  EXPECT_TRUE(c.rows[2].is_baseline);

  // Speedup = baseline score / this score: 1 for the baseline itself, 10.1847…/20.3694… = 0.5.
  EXPECT_DOUBLE_EQ(*c.rows[0].speedup, 1.0);
  EXPECT_NEAR(*c.rows[0].score_minutes, 10.18474574915825, 1e-10);
  EXPECT_DOUBLE_EQ(*c.rows[1].score_minutes, 2 * *c.rows[0].score_minutes);
  EXPECT_DOUBLE_EQ(*c.rows[1].speedup, 0.5);
  EXPECT_EQ(c.rows[1].baseline_directory, results_[0].dir.path.string());
  EXPECT_DOUBLE_EQ(*c.rows[2].speedup, 1.0);
}

TEST_F(CompareExamples, ABaselineFromElsewhereGivesTheInverseSpeedup) {
  // Put the slow copy first and make it the only baseline: the example is 2× faster, and
  // llama31_8b has no baseline directory, so no speedup.
  std::vector<DirectoryResult> reordered = {results_[2], results_[0], results_[1]};
  Comparison c = compare_results(reordered, 1);
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0].system, "SLOW_copy");
  EXPECT_DOUBLE_EQ(*c.rows[1].speedup, 2.0);
  EXPECT_EQ(c.rows[2].benchmark, "llama31_8b");
  EXPECT_FALSE(c.rows[2].speedup.has_value());
  EXPECT_TRUE(c.rows[2].baseline_directory.empty());
}

TEST_F(CompareExamples, RunSpreadSamplesBatchSizeAndFactor) {
  Comparison c = compare_results(results_, 2);
  // llama2_70b_lora, sorted minutes 9.7849166… … 11.1226333…: median of the middle two
  // (9.8302333… + 9.8303833…) / 2.
  const ComparisonRow& lora = c.rows[0];
  EXPECT_EQ(lora.minutes.counted_runs, 10);
  EXPECT_NEAR(*lora.minutes.min_minutes, 9.784916666666666, 1e-12);
  EXPECT_NEAR(*lora.minutes.median_minutes, 9.830308333333335, 1e-12);
  EXPECT_NEAR(*lora.minutes.max_minutes, 11.122633333333333, 1e-12);
  EXPECT_NEAR(*lora.minutes.cv, 0.05816006639253628, 1e-12);
  EXPECT_EQ(lora.converged_runs, 10);
  EXPECT_DOUBLE_EQ(*lora.mean_samples_to_converge, 3187.2);
  EXPECT_EQ(*lora.global_batch_size, 8);
  EXPECT_NEAR(lora.normalization_factor.value(), 1.0033670033670032, 1e-15);
  EXPECT_EQ(lora.rcp_passed, std::optional<bool>(true));
  // The slow copy: every run time doubled, CV unchanged.
  const ComparisonRow& slow = c.rows[1];
  EXPECT_DOUBLE_EQ(*slow.minutes.min_minutes, 2 * *lora.minutes.min_minutes);
  EXPECT_DOUBLE_EQ(*slow.minutes.median_minutes, 2 * *lora.minutes.median_minutes);
  EXPECT_DOUBLE_EQ(*slow.minutes.max_minutes, 2 * *lora.minutes.max_minutes);
  EXPECT_NEAR(*slow.minutes.cv, *lora.minutes.cv, 1e-12);
  // llama31_8b: 5 runs at 172000, 4 at 184288, 1 at 196576 samples → mean 179372.8.
  const ComparisonRow& l8b = c.rows[2];
  EXPECT_NEAR(*l8b.minutes.min_minutes, 95.74425, 1e-12);
  EXPECT_NEAR(*l8b.minutes.median_minutes, 99.319975, 1e-12);
  EXPECT_NEAR(*l8b.minutes.max_minutes, 109.44045, 1e-12);
  EXPECT_NEAR(*l8b.minutes.cv, 0.04495837641110675, 1e-12);
  EXPECT_DOUBLE_EQ(*l8b.mean_samples_to_converge, 179372.8);
  EXPECT_EQ(*l8b.global_batch_size, 32);
  EXPECT_NEAR(l8b.normalization_factor.value(), 1.004011735824202, 1e-15);
}

TEST_F(CompareExamples, JsonCsvMarkdownAndTable) {
  Comparison c = compare_results(results_, 2);
  std::ostringstream json;
  write_comparison(json, c, ReportFormat::kJson);
  auto doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["benchmarks"], nlohmann::json({"llama2_70b_lora", "llama31_8b"}));
  ASSERT_EQ(doc["rows"].size(), 3u);
  EXPECT_DOUBLE_EQ(doc["rows"][1]["speedup"].get<double>(), 0.5);
  EXPECT_EQ(doc["rows"][1]["baseline_directory"], results_[0].dir.path.string());
  EXPECT_EQ(doc["rows"][2]["global_batch_size"], 32);
  EXPECT_DOUBLE_EQ(doc["rows"][2]["mean_samples_to_converge"].get<double>(), 179372.8);

  std::ostringstream csv;
  write_comparison(csv, c, ReportFormat::kCsv);
  const std::string csv_text = csv.str();
  EXPECT_EQ(std::count(csv_text.begin(), csv_text.end(), '\n'), 4);  // header + 3 rows
  EXPECT_EQ(csv.str().rfind("benchmark,directory,submitter,system,platform", 0), 0u) << csv.str();
  EXPECT_NE(csv.str().find(",0.5," + results_[0].dir.path.string() + ","), std::string::npos) << csv.str();

  std::ostringstream md;
  write_comparison(md, c, ReportFormat::kMarkdown);
  EXPECT_NE(md.str().find("| 20.37 | 0.500 |"), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("| 99.71 | 1.000 |"), std::string::npos) << md.str();

  std::ostringstream table;
  write_comparison(table, c, ReportFormat::kTable);
  EXPECT_NE(table.str().find("llama2_70b_lora   (baseline: " + results_[0].dir.path.string()), std::string::npos)
      << table.str();
  EXPECT_NE(table.str().find("0.500x"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("5.82"), std::string::npos) << table.str();  // CV % of llama2_70b_lora
}

}  // namespace
}  // namespace mlperf
