// `summarize` on an MLPerf HPC round (issue #26): a row per system and scaling, as the
// official summarizer's strong- and weak-scaling tables, with the figures of
// data/oracles/hpc_v3.0.jsonl (the official summarizer's) for the folders of tests/data/hpc.

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mlperf/report/report.h"
#include "mlperf/report/summary.h"
#include "mlperf/training/score.h"
#include "../test_support.h"

namespace mlperf {
namespace {

TEST(HpcSummary, StrongAndWeakRowsWithTheOfficialColumns) {
  DataContext data{testing::source_dir()};
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(testing::source_dir() / "tests/data/hpc/hpc_results_v3.0/NVIDIA", errors);
  ASSERT_TRUE(errors.empty());
  ASSERT_EQ(dirs.size(), 2u);  // eos_n256 weak/openfold, eos_n80 strong/oc20
  std::vector<DirectoryResult> results = score_training_directories(dirs, data, {});
  Summary s = summarize(results, data.facts());
  EXPECT_EQ(s.rulesets, (std::vector<std::string>{"hpc 3.0.0"}));
  ASSERT_EQ(s.systems.size(), 2u);
  auto column = [&](const std::string& name) {
    auto it = std::find(s.benchmarks.begin(), s.benchmarks.end(), name);
    EXPECT_NE(it, s.benchmarks.end()) << name;
    return static_cast<std::size_t>(it - s.benchmarks.begin());
  };
  const SystemRow& weak = s.systems[0];
  EXPECT_EQ(weak.system, "eos_n256_ngc23.09_pytorch");
  EXPECT_EQ(weak.scaling, "weak");
  EXPECT_EQ(weak.scores[column("openfold:number_of_models")], 16.0);
  EXPECT_EQ(weak.scores[column("openfold:instance_scale")], 2048.0);
  EXPECT_NEAR(*weak.scores[column("openfold:time_to_train_all")], 34.415, 1e-9);
  EXPECT_NEAR(*weak.scores[column("openfold:throughput")], 0.4649135551358419, 1e-12);
  EXPECT_FALSE(weak.result_index[column("openfold")]);  // no strong figure in a weak row
  const SystemRow& strong = s.systems[1];
  EXPECT_EQ(strong.system, "eos_n80_ngc23.09_pytorch");
  EXPECT_EQ(strong.scaling, "strong");
  EXPECT_NEAR(*strong.scores[column("oc20")], 10.736822222222223, 1e-9);
  EXPECT_FALSE(strong.result_index[column("oc20:number_of_models")]);

  std::ostringstream text;
  write_summary(text, s, results, ReportFormat::kTable, RcpPass::kPruned);
  EXPECT_NE(text.str().find("eos_n256_ngc23.09_pytorch/weak"), std::string::npos);
  EXPECT_NE(text.str().find("0.4649"), std::string::npos);  // throughput, 4 decimals
  EXPECT_NE(text.str().find("10.74"), std::string::npos);
}


// score --format csv and markdown carry the weak-scaling figures JSON has, in its names.
TEST(HpcReport, CsvAndMarkdownHaveTheWeakScalingColumnsOfJson) {
  DataContext data{testing::source_dir()};
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(testing::source_dir() / "tests/data/hpc/hpc_results_v3.0/NVIDIA", errors);
  ASSERT_EQ(dirs.size(), 2u);
  std::vector<DirectoryResult> results = score_training_directories(dirs, data, {});
  std::ostringstream csv, markdown, json;
  write_report(csv, results, ReportFormat::kCsv, RcpPass::kPruned);
  write_report(markdown, results, ReportFormat::kMarkdown, RcpPass::kPruned);
  write_report(json, results, ReportFormat::kJson, RcpPass::kPruned);
  std::vector<std::string> lines;
  std::istringstream in(csv.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(lines[0].ends_with(
      ",usage,scaling,number_of_models,instance_scale,time_to_train_all_minutes,throughput,power_result,power_units,"
      "design_power_watts"))
      << lines[0];
  const auto doc = nlohmann::json::parse(json.str());
  const auto& weak = doc["results"][0];
  ASSERT_EQ(weak["scaling"], "weak");
  // The weak folder's row ends with JSON's figures at full precision; the strong one's are empty.
  EXPECT_TRUE(lines[1].ends_with(fmt::format(",hpc,weak,16,2048,{},{},,,", weak["time_to_train_all_minutes"].get<double>(),
                                             weak["throughput"].get<double>())))
      << lines[1];
  EXPECT_TRUE(lines[2].ends_with(",hpc,strong,,,,,,,")) << lines[2];
  EXPECT_NE(markdown.str().find("| hpc | weak | 16 | 2048 | 34.4150 | 0.4649 |  |  |  |"), std::string::npos) << markdown.str();
}

}  // namespace
}  // namespace mlperf
