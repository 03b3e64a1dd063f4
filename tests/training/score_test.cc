// Scoring whole directories: AMD's MI355X v5.1 examples (data/examples) and crafted copies.

#include "mlperf/training/score.h"

#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>


#include "../test_support.h"

namespace mlperf {
namespace {

using testing::example_system;
using testing::source_dir;
using testing::TempDir;

class ScoreTest : public ::testing::Test {
 protected:
  DataContext data{source_dir()};
};

TEST_F(ScoreTest, FindsBothExampleDirectoriesInSortedOrder) {
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(source_dir() / "data/examples/training_results_v5.1", errors);
  EXPECT_TRUE(errors.empty());
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0].benchmark_name, "llama2_70b_lora");
  EXPECT_EQ(dirs[1].benchmark_name, "llama31_8b");
  EXPECT_EQ(dirs[0].submitter, "AMD");
  EXPECT_EQ(dirs[0].system, "MI355X_EPYC_9575F_pytorch");
  ASSERT_TRUE(dirs[0].system_description.has_value());
  ASSERT_TRUE(dirs[0].path_ruleset.has_value());
  EXPECT_EQ(dirs[0].path_ruleset->str(), "5.1.0");
  ASSERT_EQ(dirs[0].result_files.size(), 10u);
  EXPECT_EQ(dirs[0].result_files.front().filename(), "result_0.txt");
  EXPECT_EQ(dirs[0].result_files.back().filename(), "result_9.txt");
}

TEST_F(ScoreTest, Llama31_8bOnMI355XScoresAsPublished) {
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(example_system() / "llama31_8b", errors);
  ASSERT_EQ(dirs.size(), 1u);
  DirectoryResult r = score_training_directory(dirs[0], data, ScoreOptions{});
  EXPECT_EQ(r.benchmark, "llama31_8b");
  EXPECT_EQ(r.ruleset.str(), "5.1.0");
  EXPECT_EQ(r.ruleset_source, "path");
  EXPECT_EQ(r.platform.name, "MI355X");
  EXPECT_EQ(r.platform.source, "system description");
  ASSERT_TRUE(r.rcp.passed);
  EXPECT_EQ(r.rcp.rcp_case, RcpCase::kExact);
  EXPECT_DOUBLE_EQ(*r.rcp.submission_mean, 178144.0);
  EXPECT_NEAR(r.rcp.normalization_factor, 1.004011735824202, 1e-15);
  ASSERT_TRUE(r.score_minutes.has_value());
  EXPECT_NEAR(*r.score_minutes, 99.70854353631518, 1e-9);  // spec §7
  ASSERT_TRUE(r.expected.has_value());
  EXPECT_DOUBLE_EQ(r.expected->expected.published_minutes, 99.71);
  EXPECT_TRUE(r.expected->within_tolerance);
  EXPECT_NEAR(r.expected->delta_percent, (99.70854353631518 - 99.71) / 99.71 * 100, 1e-6);
  EXPECT_TRUE(r.passed);
  // scaling.json agrees with the computed factor: no warning about it.
  for (const auto& w : r.warnings) EXPECT_EQ(w.find("scaling.json"), std::string::npos) << w;
  // Roles: result_2 is the fastest, result_3 the slowest (real v5.1 logs).
  EXPECT_EQ(r.run_roles[2], "trimmed (fastest)");
  EXPECT_EQ(r.run_roles[3], "trimmed (slowest)");
  EXPECT_EQ(r.run_roles[0], "counted");
}

TEST_F(ScoreTest, Llama2_70bLoraOnMI355XScoresAsPublished) {
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(example_system() / "llama2_70b_lora", errors);
  ASSERT_EQ(dirs.size(), 1u);
  DirectoryResult r = score_training_directory(dirs[0], data, ScoreOptions{});
  ASSERT_TRUE(r.score_minutes.has_value());
  EXPECT_NEAR(*r.score_minutes, 10.18474574915825, 1e-10);  // spec §7
  EXPECT_NEAR(r.rcp.normalization_factor, 1.0033670033670032, 1e-15);
  ASSERT_TRUE(r.expected.has_value());
  EXPECT_DOUBLE_EQ(r.expected->expected.published_minutes, 10.18);
  ASSERT_TRUE(r.expected->expected.about_minutes.has_value());
  EXPECT_DOUBLE_EQ(*r.expected->expected.about_minutes, 10.0);
}

TEST_F(ScoreTest, TolerancePercentDecidesTheVerdict) {
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(example_system() / "llama2_70b_lora", errors);
  ScoreOptions options;
  options.tolerance_percent = 0.01;  // 10.1847 vs 10.18 is +0.047 %
  DirectoryResult r = score_training_directory(dirs[0], data, options);
  ASSERT_TRUE(r.expected.has_value());
  EXPECT_FALSE(r.expected->within_tolerance);
}

TEST_F(ScoreTest, ExplicitRulesetWinsOverThePath) {
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(example_system() / "llama31_8b", errors);
  ScoreOptions options;
  options.ruleset = Ruleset::parse("6.1.0");
  DirectoryResult r = score_training_directory(dirs[0], data, options);
  EXPECT_EQ(r.ruleset.str(), "6.1.0");
  EXPECT_EQ(r.ruleset_source, "--ruleset");
  // The published figure is found all the same: 6.1.0 has none for llama31_8b on MI355X, so
  // it is the newest round's that has one, 6.0.0 (the report says so), not the path's 5.1.0.
  ASSERT_TRUE(r.expected.has_value());
  EXPECT_EQ(r.expected->expected.ruleset.str(), "6.0.0");
  EXPECT_DOUBLE_EQ(r.expected->expected.published_minutes, 86.84);
}

// A copy of the llama31_8b example with some runs damaged.
class DamagedCopy : public ScoreTest {
 protected:
  void SetUp() override {
    dir_ = tmp_.path() / "training_results_v5.1/AMD/results/MI355X_EPYC_9575F_pytorch/llama31_8b";
    std::filesystem::create_directories(dir_.parent_path());
    std::filesystem::copy(example_system() / "llama31_8b", dir_, std::filesystem::copy_options::recursive);
  }
  // Removes the run_stop line of one result file.
  void drop_run_stop(const std::string& file) {
    std::string text = testing::read_file(dir_ / file);
    std::string out;
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t nl = text.find('\n', pos);
      std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
      std::string line = text.substr(pos, end - pos);
      if (line.find("\"key\": \"run_stop\"") == std::string::npos) out += line;
      pos = end;
    }
    testing::write_file(dir_ / file, out);
  }
  DirectoryResult score(const ScoreOptions& options = {}) {
    std::vector<DiscoveryError> errors;
    auto dirs = find_benchmark_dirs(dir_, errors);
    EXPECT_EQ(dirs.size(), 1u);
    return score_training_directory(dirs.at(0), data, options);
  }
  TempDir tmp_;
  std::filesystem::path dir_;
};

TEST_F(DamagedCopy, OneRunWithoutRunStopStandsInForTheSlowest) {
  drop_run_stop("result_0.txt");  // 95.9690 min, a counted run
  DirectoryResult r = score();
  EXPECT_FALSE(r.runs[0].counted());
  EXPECT_EQ(r.run_roles[0].rfind("dropped: ", 0), 0u);
  // Counted minutes sorted: drop the fastest only (the dropped run replaces the slowest).
  std::vector<double> counted;
  for (const auto& run : r.runs) {
    if (run.counted()) counted.push_back(*run.minutes);
  }
  ASSERT_EQ(counted.size(), 9u);
  std::sort(counted.begin(), counted.end());
  double sum = 0;
  for (std::size_t i = 1; i < 9; ++i) sum += counted[i];
  ASSERT_TRUE(r.olympic_minutes.has_value());
  EXPECT_DOUBLE_EQ(*r.olympic_minutes, sum / 8);
  EXPECT_EQ(r.run_roles[3], "counted");  // the slowest stays in: result_0 took its place
  // Samples: result_0 did not converge (+inf) and falls off the top; the rest pass the RCP.
  EXPECT_FALSE(r.runs[0].converged);
  EXPECT_TRUE(r.rcp.passed);
}

TEST_F(DamagedCopy, TwoRunsWithoutRunStopLeaveNoValidScore) {
  drop_run_stop("result_0.txt");
  drop_run_stop("result_1.txt");
  DirectoryResult r = score();
  EXPECT_FALSE(r.olympic_minutes.has_value());
  EXPECT_FALSE(r.score_minutes.has_value());
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.rcp.rcp_case, RcpCase::kInsufficientConvergence);
}

TEST_F(DamagedCopy, FewerRunsThanRequiredWarns) {
  std::filesystem::remove(dir_ / "result_9.txt");
  DirectoryResult r = score();
  bool warned = false;
  for (const auto& w : r.warnings) warned |= w.find("incomplete (9 of 10 runs)") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_EQ(r.verdict, "incomplete");
}

TEST_F(DamagedCopy, ScalingJsonThatDisagreesIsReportedNotChanged) {
  testing::write_file(dir_ / "scaling.json", "{\"scaling_factor\": 1.00383}");
  DirectoryResult r = score();
  ASSERT_TRUE(r.scaling_json_factor.has_value());
  EXPECT_DOUBLE_EQ(*r.scaling_json_factor, 1.00383);
  bool warned = false;
  for (const auto& w : r.warnings) warned |= w.find("scaling.json says 1.00383") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_EQ(testing::read_file(dir_ / "scaling.json"), "{\"scaling_factor\": 1.00383}");
}

TEST_F(DamagedCopy, MixedBatchSizesFailTheRcpCheck) {
  std::string text = testing::read_file(dir_ / "result_4.txt");
  auto at = text.find("\"key\": \"global_batch_size\", \"value\": 32");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"key\": \"global_batch_size\", \"value\": 32").size(),
               "\"key\": \"global_batch_size\", \"value\": 64");
  testing::write_file(dir_ / "result_4.txt", text);
  DirectoryResult r = score();
  EXPECT_EQ(r.rcp.rcp_case, RcpCase::kNoBatchSize);
  EXPECT_FALSE(r.rcp.passed);
  EXPECT_FALSE(r.passed);
}

// dlrm and minigo are not in the official RCP checker's table of submission runs: it raises,
// and the official summarizer reports the score unscaled with no RCP verdict (issue #16).
TEST_F(DamagedCopy, ABenchmarkTheOfficialRcpCheckerCannotCheckIsScoredUnscaled) {
  const std::filesystem::path root = tmp_.path() / "data";
  std::filesystem::create_directories(root);
  std::filesystem::copy(source_dir() / "configs", root / "configs", std::filesystem::copy_options::recursive);
  auto facts = nlohmann::json::parse(testing::read_file(root / "configs/benchmarks.json"));
  EXPECT_EQ(facts["benchmarks"]["dlrm"]["official_rcp_check"], false);
  EXPECT_EQ(facts["benchmarks"]["minigo"]["official_rcp_check"], false);
  facts["benchmarks"]["llama31_8b"]["official_rcp_check"] = false;
  testing::write_file(root / "configs/benchmarks.json", facts.dump(2));
  DataContext unchecked{root};
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(dir_, errors);
  ASSERT_EQ(dirs.size(), 1u);
  const DirectoryResult checked = score_training_directory(dirs[0], data, {});
  const DirectoryResult r = score_training_directory(dirs[0], unchecked, {});
  EXPECT_EQ(r.rcp.rcp_case, RcpCase::kNotChecked);
  EXPECT_TRUE(std::isnan(r.rcp.normalization_factor));
  ASSERT_TRUE(r.olympic_minutes && r.score_minutes && checked.score_minutes);
  EXPECT_DOUBLE_EQ(*r.score_minutes, *r.olympic_minutes);
  EXPECT_DOUBLE_EQ(*r.olympic_minutes, *checked.olympic_minutes);
  EXPECT_GT(checked.rcp.normalization_factor, 1.0);  // the check would have scaled it
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.verdict, "passed");
  EXPECT_FALSE(r.rcp.passed);  // no verdict: the JSON report writes null (report_test.cc)
}

TEST_F(DamagedCopy, OpenDivisionDoesNotNeedTheRcpCheck) {
  // Every run logs "closed"; make them open and give them a batch size with no RCP record.
  for (const auto& f : std::filesystem::directory_iterator(dir_)) {
    if (f.path().filename() == "scaling.json") continue;
    std::string text = testing::read_file(f.path());
    for (auto [from, to] : {std::pair<std::string, std::string>{"\"value\": \"closed\"", "\"value\": \"open\""},
                            {"\"key\": \"global_batch_size\", \"value\": 32", "\"key\": \"global_batch_size\", \"value\": 4096"}}) {
      for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
      }
    }
    testing::write_file(f.path(), text);
  }
  // The official open-division llama31_8b rules reject these logs (they want an eval_accuracy
  // below 1.0 with epoch_num): with them every run is dropped and there is no score.
  EXPECT_FALSE(score().score_minutes.has_value());
  // Judged without compliance rules (scoring.md §2 only), the RCP verdict does not bind the
  // open division.
  compliance::RuleLibrary no_rules;
  ScoreOptions options;
  options.compliance_rules = &no_rules;
  DirectoryResult r = score(options);
  EXPECT_EQ(r.division, "open");
  EXPECT_EQ(r.rcp.rcp_case, RcpCase::kMissing);  // only smaller batch sizes have records
  EXPECT_FALSE(r.rcp.passed);
  EXPECT_TRUE(r.passed);
  ASSERT_TRUE(r.score_minutes.has_value());
  EXPECT_DOUBLE_EQ(*r.score_minutes, *r.olympic_minutes);  // factor 1.0
}

// The system description's accelerator_model_name, in every form a file can give it, is what
// nlohmann::json reads there (most files are read without building a tree; the others are
// parsed as before), and a file that is no JSON is a warning naming it.
TEST_F(DamagedCopy, SystemDescriptionsOfEveryFormGiveTheNameNlohmannReads) {
  const std::filesystem::path file = tmp_.path() / "training_results_v5.1/AMD/systems/MI355X_EPYC_9575F_pytorch.json";
  std::filesystem::create_directories(file.parent_path());
  for (const std::string text : {
           std::string("  {\"a\": [1, {\"b\": null}], \"accelerator_model_name\": \"AMD Instinct MI355X\"}\n"),
           std::string(R"({"accelerator_model_name": "AMD Instinct MI\u0033\u0032\u0035X"})"),
           std::string(R"({"accelerator_model_name": 5})"),
           std::string(R"({"accelerator_model_name": "x", "accelerator_model_name": "AMD Instinct MI325X"})"),
           std::string(R"({"na\"me": 1, "accelerator_model_name": "AMD Instinct MI300X"})"),
           std::string(R"({"accelerator_model_name": "Tab\tX \"quoted\" \/ \\"})"),
           std::string("[1, 2]"),
           std::string("{\"accelerator_model_name\": \"caf\xC3\xA9\"}"),
       }) {
    testing::write_file(file, text);
    const nlohmann::json doc = nlohmann::json::parse(text);
    const std::string expected = doc.is_object() && doc.contains("accelerator_model_name") &&
                                         doc["accelerator_model_name"].is_string()
                                     ? doc["accelerator_model_name"].get<std::string>()
                                     : "";
    DirectoryResult r = score();
    EXPECT_EQ(r.accelerator_model_name, expected) << text;
    for (const auto& w : r.warnings) EXPECT_EQ(w.find("invalid JSON"), std::string::npos) << text << ": " << w;
  }
  testing::write_file(file, R"({"accelerator_model_name": "AMD)");
  DirectoryResult r = score();
  EXPECT_EQ(r.accelerator_model_name, "");
  bool named = false;
  for (const auto& w : r.warnings) named = named || (w.find(file.string() + ": invalid JSON") != std::string::npos);
  EXPECT_TRUE(named);
}

TEST_F(DamagedCopy, PlatformComesFromTheLogsWithoutSystemDescription) {
  // No systems/ folder in the copy: the platform comes from the logs ("MI355X").
  DirectoryResult r = score();
  EXPECT_EQ(r.platform.name, "MI355X");
  EXPECT_EQ(r.platform.source, "log");
}

}  // namespace
}  // namespace mlperf
