// Summaries: one row per system with its description, one score column per benchmark of
// the round, and the same per-directory JSON as `score --format json`.

#include "mlperf/report/directories.h"
#include "mlperf/report/summary.h"

#include <gtest/gtest.h>

#include <sstream>

#include "../test_support.h"

namespace mlperf {
namespace {

using testing::source_dir;
using testing::TempDir;
using testing::write_file;

const std::vector<std::string> kRound51 = {"llama31_8b", "dlrm_dcnv2", "retinanet", "flux1",
                                           "llama2_70b_lora", "rgat", "llama31_405b"};

std::size_t column(const Summary& s, const std::string& benchmark) {
  return std::find(s.benchmarks.begin(), s.benchmarks.end(), benchmark) - s.benchmarks.begin();
}

class SummaryExamples : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<DiscoveryError> errors;
    auto dirs = find_benchmark_dirs(source_dir() / "data/examples/training_results_v5.1", errors);
    ASSERT_EQ(dirs.size(), 2u);
    results_ = score_directories(dirs, data_, ScoreOptions{});  // ruleset 5.1.0 from the path
  }

  DataContext data_{source_dir()};
  std::vector<DirectoryResult> results_;
};

TEST_F(SummaryExamples, OneSystemRowWithTheRoundsColumns) {
  Summary s = summarize(results_, data_.facts());
  EXPECT_EQ(s.rulesets, std::vector<std::string>{"5.1.0"});
  EXPECT_EQ(s.benchmarks, kRound51);
  EXPECT_TRUE(s.warnings.empty());
  ASSERT_EQ(s.systems.size(), 1u);
  const SystemRow& row = s.systems[0];
  EXPECT_EQ(row.submitter, "AMD");
  EXPECT_EQ(row.system, "MI355X_EPYC_9575F_pytorch");
  EXPECT_EQ(row.system_name, "SMCI355X (AS -4126GS-NMR-LCC)");
  EXPECT_EQ(row.division, "closed");
  EXPECT_EQ(row.availability, "Available on-premise");
  EXPECT_EQ(row.accelerator_model_name, "AMD Instinct MI355X");
  EXPECT_EQ(row.accelerator_count, 8);  // "8" per node × "1" node
  EXPECT_EQ(row.host_processor_model_name, "AMD EPYC 9575F");
  EXPECT_EQ(row.framework, "PyTorch 2.8.0.dev20251001+rocm7.0.0.git64359f59, ROCm 7.0.0");
  EXPECT_NEAR(*row.scores[column(s, "llama2_70b_lora")], 10.18474574915825, 1e-10);
  EXPECT_NEAR(*row.scores[column(s, "llama31_8b")], 99.70854353631518, 1e-9);
  EXPECT_EQ(*row.result_index[column(s, "llama2_70b_lora")], 0u);
  EXPECT_EQ(*row.result_index[column(s, "llama31_8b")], 1u);
  EXPECT_FALSE(row.result_index[column(s, "flux1")].has_value());
  EXPECT_FALSE(row.scores[column(s, "flux1")].has_value());
}

TEST_F(SummaryExamples, JsonCarriesExactlyTheScoreJsonOfEachDirectory) {
  Summary s = summarize(results_, data_.facts());
  nlohmann::json doc = to_json(s, results_, RcpPass::kPruned);
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][0], to_json(results_[0], RcpPass::kPruned));
  EXPECT_EQ(doc["results"][1], to_json(results_[1], RcpPass::kPruned));
  const auto& system = doc["systems"][0];
  EXPECT_EQ(system["accelerator_model_name"], "AMD Instinct MI355X");
  EXPECT_EQ(system["accelerator_count"], 8);
  EXPECT_DOUBLE_EQ(system["scores"]["llama2_70b_lora"].get<double>(), *results_[0].score_minutes);
  EXPECT_DOUBLE_EQ(system["scores"]["llama31_8b"].get<double>(), *results_[1].score_minutes);
  EXPECT_FALSE(system["scores"].contains("flux1"));
  EXPECT_EQ(system["directories"]["llama31_8b"], results_[1].dir.path.string());
  EXPECT_EQ(doc["benchmarks"], nlohmann::json(kRound51));
}

TEST_F(SummaryExamples, TextFormatsRoundScoresToTwoDecimals) {
  Summary s = summarize(results_, data_.facts());
  std::ostringstream csv, md, table;
  write_summary(csv, s, results_, ReportFormat::kCsv, RcpPass::kPruned);
  EXPECT_EQ(csv.str(),
            "submitter,system,system_name,division,availability,accelerator_model_name,accelerator_count,"
            "host_processor_model_name,framework,llama31_8b,dlrm_dcnv2,retinanet,flux1,llama2_70b_lora,rgat,"
            "llama31_405b\n"
            "AMD,MI355X_EPYC_9575F_pytorch,SMCI355X (AS -4126GS-NMR-LCC),closed,Available on-premise,"
            "AMD Instinct MI355X,8,AMD EPYC 9575F,"
            "\"PyTorch 2.8.0.dev20251001+rocm7.0.0.git64359f59, ROCm 7.0.0\",99.71,,,,10.18,,\n");
  write_summary(md, s, results_, ReportFormat::kMarkdown, RcpPass::kPruned);
  EXPECT_NE(md.str().find("| AMD Instinct MI355X | 8 | AMD EPYC 9575F |"), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("| 99.71 |  |  |  | 10.18 |  |  |"), std::string::npos) << md.str();
  write_summary(table, s, results_, ReportFormat::kTable, RcpPass::kPruned);
  EXPECT_NE(table.str().find("ruleset 5.1.0"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("99.71"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("10.18"), std::string::npos) << table.str();
}

TEST(SystemDescription, CountsAsNumbersOrStrings) {
  TempDir tmp;
  write_file(tmp.path() / "a.json",
             R"({"accelerators_per_node": 4, "number_of_nodes": " 18 ", "status": "Available cloud",
                 "host_processor_model_name": "Neoverse-V2", "accelerator_model_name": "X"})");
  SystemDescription d = read_system_description(tmp.path() / "a.json");
  EXPECT_EQ(d.accelerators_per_node, 4);
  EXPECT_EQ(d.number_of_nodes, 18);
  EXPECT_EQ(d.availability, "Available cloud");
  EXPECT_EQ(d.host_processor_model_name, "Neoverse-V2");
  write_file(tmp.path() / "b.json", R"({"accelerators_per_node": "eight", "number_of_nodes": 2.5})");
  SystemDescription b = read_system_description(tmp.path() / "b.json");
  EXPECT_FALSE(b.accelerators_per_node.has_value());
  EXPECT_FALSE(b.number_of_nodes.has_value());
}

TEST(SystemDescription, MalformedFileThrowsNamingIt) {
  TempDir tmp;
  write_file(tmp.path() / "bad.json", "{\"status\": ");
  try {
    read_system_description(tmp.path() / "bad.json");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((tmp.path() / "bad.json").string()), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_system_description(tmp.path() / "missing.json"), std::runtime_error);
}

TEST(Summary, BrokenDescriptionBecomesAWarningAndTheRowStays) {
  TempDir tmp;
  auto root = tmp.path() / "training_results_v5.1/AMD";
  std::filesystem::create_directories(root / "results/SYS");
  std::filesystem::copy(testing::example_system() / "llama31_8b", root / "results/SYS/llama31_8b");
  write_file(root / "systems/SYS.json", "not json");
  DataContext data(source_dir());
  std::vector<DiscoveryError> errors;
  auto results = score_directories(find_benchmark_dirs(root, errors), data, ScoreOptions{});
  ASSERT_EQ(results.size(), 1u);
  Summary s = summarize(results, data.facts());
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find((root / "systems/SYS.json").string()), std::string::npos) << s.warnings[0];
  ASSERT_EQ(s.systems.size(), 1u);
  EXPECT_EQ(s.systems[0].system, "SYS");
  EXPECT_FALSE(s.systems[0].accelerator_count.has_value());
  EXPECT_NEAR(*s.systems[0].scores[column(s, "llama31_8b")], 99.70854353631518, 1e-9);
}

TEST(Summary, BenchmarksOutsideTheRoundGetTheirOwnColumn) {
  // Scored under 6.1.0 (no dlrm_dcnv2 in that round), a dlrm_dcnv2-named copy still shows.
  TempDir tmp;
  std::filesystem::create_directories(tmp.path() / "SYS");
  std::filesystem::copy(testing::example_system() / "llama31_8b", tmp.path() / "SYS/llama31_8b");
  DataContext data(source_dir());
  std::vector<DiscoveryError> errors;
  ScoreOptions options;
  options.ruleset = testing::rs("6.1.0");
  auto results = score_directories(find_benchmark_dirs(tmp.path(), errors), data, options);
  ASSERT_EQ(results.size(), 1u);
  results[0].benchmark = "dlrm_dcnv2";  // as if the logs had named it
  Summary s = summarize(results, data.facts());
  EXPECT_EQ(s.benchmarks, (std::vector<std::string>{"llama31_8b", "flux1", "llama2_70b_lora", "gpt_oss_20b",
                                                    "deepseekv3_671b", "qwen35_397b_grpo", "dlrm_dcnv2"}));
  EXPECT_TRUE(s.systems[0].result_index.back().has_value());
}

}  // namespace
}  // namespace mlperf
