// `mlperf-score compare` and `summarize` end to end: formats, baselines, exit statuses,
// nothing written into inputs, and the v5.1 corpus checks when ../shared is present.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <algorithm>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../test_support.h"

namespace mlperf {
namespace {

using testing::binary;
using testing::q;
using testing::example_system;
using testing::run_command;
using testing::source_dir;
using testing::TempDir;


TEST(CliCompare, ExamplesAgainstACopyOfOneDirectory) {
  // The same llama31_8b logs in a second system folder: same score, speedup 1, grouped
  // with the example; llama2_70b_lora has only the example.
  TempDir tmp;
  auto copy = tmp.path() / "training_results_v5.1/X/results/COPY";
  std::filesystem::create_directories(copy);
  std::filesystem::copy(example_system() / "llama31_8b", copy / "llama31_8b");
  auto r = run_command(binary() + " compare --format json " + q(example_system()) + " " + q(copy) + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["benchmarks"], nlohmann::json({"llama2_70b_lora", "llama31_8b"}));
  ASSERT_EQ(doc["rows"].size(), 3u);
  EXPECT_EQ(doc["rows"][1]["system"], "MI355X_EPYC_9575F_pytorch");
  EXPECT_EQ(doc["rows"][1]["is_baseline"], true);
  EXPECT_EQ(doc["rows"][2]["system"], "COPY");
  EXPECT_EQ(doc["rows"][2]["is_baseline"], false);
  EXPECT_DOUBLE_EQ(doc["rows"][2]["speedup"].get<double>(), 1.0);
  EXPECT_NEAR(doc["rows"][2]["score_minutes"].get<double>(), 99.70854353631518, 1e-9);
}

TEST(CliCompare, BaselineOptionAndTableOutput) {
  auto lora = example_system() / "llama2_70b_lora";
  auto r = run_command(binary() + " compare --baseline " + q(lora) + " " + q(example_system()) + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  // The baseline directory is also below the PATH: it is shown once.
  EXPECT_EQ(r.out.find("llama2_70b_lora   (baseline: " + lora.string() + "; score and run times in minutes)"), 0u)
      << r.out;
  EXPECT_NE(r.out.find("llama31_8b   (baseline: none;"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 7) << r.out;  // 2 × (title, header, row) + blank
  EXPECT_NE(r.out.find("1.000x"), std::string::npos) << r.out;
}

TEST(CliCompare, InferenceRowsInCsvCarryTheirFigureNotTrainingCells) {
  // AMD's v5.1 inference examples: each row's figure and units, the run and RCP cells empty.
  auto r = run_command(binary() + " compare --format csv " + q(source_dir() / "data/examples/inference_results_v5.1") +
                       " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(cells);
  }
  ASSERT_GE(rows.size(), 2u);
  const auto& header = rows[0];
  auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  bool offline = false;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), header.size()) << i;
    EXPECT_EQ(rows[i][column("kind")], "inference");
    EXPECT_EQ(rows[i][column("counted_runs")], "");
    EXPECT_EQ(rows[i][column("normalization_factor")], "");
    EXPECT_EQ(rows[i][column("rcp_passed")], "");
    EXPECT_FALSE(rows[i][column("units")].empty());
    if (rows[i][column("benchmark")] == "llama2-70b-99/Offline") {
      offline = true;
      EXPECT_NEAR(std::stod(rows[i][column("performance_result")]), 27803.9, 0.1);
      EXPECT_EQ(rows[i][column("units")], "Tokens/s");
    }
  }
  EXPECT_TRUE(offline) << r.out;
}

TEST(CliCompare, InferenceRowsInJsonAndTableCarryNoTrainingFigures) {
  // An inference row has no RCP check, factor or runs: JSON says null, and its table block
  // shows the result, speedup and verdict, not a score in minutes beside an RCP factor.
  const auto v51 = source_dir() / "data/examples/inference_results_v5.1";
  auto json = run_command(binary() + " compare --format json " + q(v51) + " 2>/dev/null");
  ASSERT_EQ(json.status, 0) << json.out;
  auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["rows"].size(), 5u);
  for (const auto& row : doc["rows"]) {
    EXPECT_EQ(row["kind"], "inference") << row;
    EXPECT_EQ(row["group"], row["benchmark"]) << row;
    EXPECT_TRUE(row["normalization_factor"].is_null()) << row;
    EXPECT_TRUE(row["rcp_passed"].is_null()) << row;
    EXPECT_TRUE(row["scaling"].is_null()) << row;
    EXPECT_TRUE(row["throughput"].is_null()) << row;
    EXPECT_EQ(row["passed"], true) << row;
    EXPECT_FALSE(row["accuracy"].get<std::string>().empty()) << row;  // the results table's Accuracy cell
  }
  EXPECT_EQ(doc["rows"][1]["accuracy"], "ROUGE1: 44.4465  ROUGE2: 22.0638  ROUGEL: 28.625  TOKENS_PER_SAMPLE: 301.1");
  auto table = run_command(binary() + " compare " + q(v51) + " 2>/dev/null");
  ASSERT_EQ(table.status, 0) << table.out;
  EXPECT_EQ(table.out.find("RCP factor"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("in minutes"), std::string::npos) << table.out;
  const auto offline = v51 / "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline";
  EXPECT_NE(table.out.find("llama2-70b-99/Offline   (baseline: " + offline.string() +
                           "; the figure of the official results table)\n"
                           "  submitter  system                 platform            result  speedup  verdict  accuracy\n"
                           "  AMD        8xMI300X_2xEPYC_9575F  MI300X    27803.9 Tokens/s   1.000x  PASSED   "
                           "ROUGE1: 44.4465  ROUGE2: 22.0638  ROUGEL: 28.625  TOKENS_PER_SAMPLE: 301.1\n"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("  AMD        8xMI325x_2xEPYC-9655  MI325X    18.5856 Samples/s   1.000x  PASSED   "
                           "CLIP_SCORE: 31.749353325665  FID_SCORE: 23.909064176163497\n"),
            std::string::npos)
      << table.out;
}

TEST(CliCompare, WeakScalingFoldersAreComparedByThroughputApartFromStrongOnes) {
  // MLPerf HPC: a weak-scaling folder's figure is models per minute, not a time to train. It
  // is compared with other weak-scaling folders of its benchmark only: the baseline's weak
  // deepcam and a copy holding 5 of its 8 models in "deepcam (weak scaling)", the strong
  // deepcam folder in "deepcam" (no baseline there).
  const auto hpc = source_dir() / "tests/data/hpc";
  const auto weak = hpc / "hpc_results_v2.0/HelmholtzAI/results/horeka_gpu_n64_pytorch1.13/weak/deepcam";
  const auto strong = hpc / "hpc_results_v3.0/Clemson/results/18xR750-2xA100-PCIe-80GB/strong/deepcam";
  TempDir tmp;
  const auto copy = tmp.path() / "hpc_results_v2.0/HelmholtzAI/results/FIVE_MODELS/weak/deepcam";
  std::filesystem::create_directories(copy);
  for (int i = 1; i <= 5; ++i) {
    const std::string name = "result_" + std::to_string(i) + ".txt";
    std::filesystem::copy_file(weak / name, copy / name);
  }
  auto r = run_command(binary() + " compare --format json " + q(weak) + " " + q(copy) + " " + q(strong) + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["benchmarks"], nlohmann::json({"deepcam (weak scaling)", "deepcam"}));
  ASSERT_EQ(doc["rows"].size(), 3u);
  const auto& base = doc["rows"][0];
  const auto& five = doc["rows"][1];
  const auto& strong_row = doc["rows"][2];

  // The weak figures are those `score` gives each folder (checked against the official
  // summarizer by the HPC tests); the speedup is the copy's throughput over the baseline's.
  auto score_of = [](const std::filesystem::path& dir) {
    auto s = run_command(binary() + " score --format json " + q(dir) + " 2>/dev/null");
    return nlohmann::json::parse(s.out)["results"][0];
  };
  const auto scored_base = score_of(weak), scored_five = score_of(copy);
  EXPECT_EQ(base["group"], "deepcam (weak scaling)");
  EXPECT_EQ(base["scaling"], "weak");
  EXPECT_EQ(base["is_baseline"], true);
  EXPECT_EQ(base["number_of_models"], 8);
  EXPECT_EQ(five["number_of_models"], 5);
  EXPECT_EQ(base["instance_scale"], 64);
  EXPECT_EQ(base["throughput"], scored_base["throughput"]);
  EXPECT_EQ(five["throughput"], scored_five["throughput"]);
  EXPECT_EQ(five["time_to_train_all_minutes"], scored_five["time_to_train_all_minutes"]);
  EXPECT_NEAR(base["throughput"].get<double>(), 8 / base["time_to_train_all_minutes"].get<double>(), 1e-12);
  EXPECT_DOUBLE_EQ(base["speedup"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(five["speedup"].get<double>(),
                   five["throughput"].get<double>() / base["throughput"].get<double>());
  EXPECT_NE(five["speedup"].get<double>(), 1.0);
  for (const auto* row : {&base, &five}) {
    EXPECT_TRUE((*row)["normalization_factor"].is_null()) << *row;
    EXPECT_TRUE((*row)["rcp_passed"].is_null()) << *row;
    EXPECT_TRUE((*row)["score_minutes"].is_null()) << *row;
  }
  EXPECT_EQ(strong_row["group"], "deepcam");
  EXPECT_EQ(strong_row["scaling"], "strong");
  EXPECT_TRUE(strong_row["speedup"].is_null()) << strong_row;
  EXPECT_TRUE(strong_row["baseline_directory"].is_null()) << strong_row;
  EXPECT_TRUE(strong_row["throughput"].is_null()) << strong_row;
  EXPECT_EQ(strong_row["rcp_passed"], true);

  auto table = run_command(binary() + " compare " + q(weak) + " " + q(copy) + " " + q(strong) + " 2>/dev/null");
  ASSERT_EQ(table.status, 0) << table.out;
  EXPECT_EQ(table.out.find("deepcam (weak scaling)   (baseline: " + weak.string() +
                           "; throughput in models per minute, times in minutes)\n"
                           "  submitter    system                      platform               throughput  speedup"
                           "  models  instance scale  time to train all"),
            0u)
      << table.out;
  EXPECT_NE(table.out.find("\ndeepcam   (baseline: none; score and run times in minutes)\n"), std::string::npos)
      << table.out;

  // CSV: the weak figures in their columns, the RCP cells empty.
  auto csv = run_command(binary() + " compare --format csv " + q(weak) + " 2>/dev/null");
  ASSERT_EQ(csv.status, 0) << csv.out;
  const std::string header = csv.out.substr(0, csv.out.find('\n'));
  EXPECT_NE(header.find(",scaling,number_of_models,instance_scale,time_to_train_all_minutes,throughput"),
            std::string::npos)
      << header;
  EXPECT_NE(csv.out.find(",,,true,training,,,weak,8,64,"), std::string::npos) << csv.out;
}

TEST(CliCompare, UsageAndInputErrorsExitTwo) {
  TempDir tmp;
  EXPECT_EQ(run_command(binary() + " compare 2>/dev/null").status, 2);
  EXPECT_EQ(run_command(binary() + " compare --format yaml " + q(example_system()) + " 2>/dev/null").status, 2);
  auto r = run_command(binary() + " compare " + q(example_system()) + " " + q(tmp.path() / "missing") + " 2>&1 >/dev/null");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find((tmp.path() / "missing").string()), std::string::npos) << r.out;
}

TEST(CliSummarize, ExamplesTableAndJson) {
  auto table = run_command(binary() + " summarize " + q(source_dir() / "data/examples/training_results_v5.1") + " 2>/dev/null");
  ASSERT_EQ(table.status, 0) << table.out;
  EXPECT_NE(table.out.find("AMD Instinct MI355X"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("99.71"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("10.18"), std::string::npos) << table.out;
  EXPECT_EQ(std::count(table.out.begin(), table.out.end(), '\n'), 3) << table.out;  // title, header, 1 system

  auto json = run_command(binary() + " summarize --format json " + q(source_dir() / "data/examples/training_results_v5.1") + " 2>/dev/null");
  ASSERT_EQ(json.status, 0);
  auto doc = nlohmann::json::parse(json.out);
  auto score = run_command(binary() + " score --format json " + q(source_dir() / "data/examples/training_results_v5.1") + " 2>/dev/null");
  // Exactly the per-directory JSON of `score --format json`.
  EXPECT_EQ(doc["results"], nlohmann::json::parse(score.out)["results"]);
  EXPECT_EQ(doc["systems"][0]["accelerator_count"], 8);
}

TEST(CliSummarize, WritesNothingIntoAReadOnlyInput) {
  TempDir tmp;
  auto root = tmp.path() / "training_results_v5.1";
  std::filesystem::copy(source_dir() / "data/examples/training_results_v5.1", root,
                        std::filesystem::copy_options::recursive);
  auto before = testing::snapshot(root);
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    ::chmod(e.path().c_str(), e.is_directory() ? 0555 : 0444);
  }
  for (const char* format : {"table", "json", "csv", "markdown"}) {
    EXPECT_EQ(run_command(binary() + " summarize --format " + format + " " + q(root) + " 2>/dev/null").status, 0);
    EXPECT_EQ(run_command(binary() + " compare --format " + format + " " + q(root) + " 2>/dev/null").status, 0);
  }
  EXPECT_EQ(testing::snapshot(root), before);
}

// The unpacked v5.1 corpus, or "" when ../shared is absent.
std::filesystem::path corpus() {
  auto tool = source_dir().parent_path() / "shared/tools/corpus";
  if (!std::filesystem::exists(tool)) return {};
  auto r = run_command(q(tool) + " 2>/dev/null");
  std::string path = r.out.substr(0, r.out.find('\n'));
  return r.status == 0 && std::filesystem::is_directory(path) ? std::filesystem::path(path) : std::filesystem::path();
}

TEST(CorpusSummary, EveryScoreEqualsTheOracle) {
  auto root = corpus();
  if (root.empty()) GTEST_SKIP() << "../shared (or its v5.1 corpus) is absent: the v5.1 summarize check is skipped";
  auto r = run_command(binary() + " summarize --ruleset 5.1.0 --format json " + q(root) + " 2>/dev/null");
  ASSERT_EQ(r.status, 0);
  auto doc = nlohmann::json::parse(r.out);
  std::map<std::string, double> scores;  // directory relative to the corpus → score
  for (const auto& result : doc["results"]) {
    std::string dir = result["directory"];
    ASSERT_EQ(dir.rfind(root.string() + "/", 0), 0u) << dir;
    ASSERT_TRUE(result["score_minutes"].is_number()) << dir;
    scores[dir.substr(root.string().size() + 1)] = result["score_minutes"];
  }
  // The table cells (systems[].scores) are the same figures.
  std::size_t cells = 0;
  for (const auto& system : doc["systems"]) {
    for (const auto& [benchmark, score] : system["scores"].items()) {
      std::string dir = system["directories"][benchmark];
      EXPECT_DOUBLE_EQ(score.get<double>(), scores[dir.substr(root.string().size() + 1)]) << dir;
      ++cells;
    }
  }
  EXPECT_EQ(cells, 184u);
  std::ifstream oracle(source_dir().parent_path() / "shared/mlperf-reference/oracle/training_v5.1.jsonl");
  std::size_t checked = 0;
  for (std::string line; std::getline(oracle, line);) {
    if (line.empty()) continue;
    auto expected = nlohmann::json::parse(line);
    std::string dir = expected["directory"];
    ASSERT_EQ(scores.count(dir), 1u) << dir;
    double want = expected["score_minutes"];
    EXPECT_NEAR(scores[dir], want, 1e-9 * std::fabs(want)) << dir;
    ++checked;
  }
  EXPECT_EQ(checked, 184u);
  EXPECT_EQ(scores.size(), 184u);
}

TEST(CorpusCompare, Mi355xIsAbout275TimesFasterThanMi300xOnLlama2Lora) {
  auto root = corpus();
  if (root.empty()) GTEST_SKIP() << "../shared (or its v5.1 corpus) is absent: the v5.1 compare check is skipped";
  auto amd = root / "AMD/results";
  auto r = run_command(binary() + " compare --ruleset 5.1.0 --format json " + q(amd / "MI300X_EPYC_9575F_pytorch_llama2_70b/llama2_70b_lora") +
                       " " + q(amd / "MI325X_EPYC_9575F_pytorch_llama2_70b/llama2_70b_lora") + " " +
                       q(amd / "MI350X_EPYC_9575F_pytorch/llama2_70b_lora") + " " +
                       q(amd / "MI355X_EPYC_9575F_pytorch/llama2_70b_lora") + " 2>/dev/null");
  ASSERT_EQ(r.status, 0);
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["rows"].size(), 4u);
  EXPECT_EQ(doc["benchmarks"], nlohmann::json({"llama2_70b_lora"}));
  std::vector<std::string> platforms;
  for (const auto& row : doc["rows"]) platforms.push_back(row["platform"]);
  EXPECT_EQ(platforms, (std::vector<std::string>{"MI300X", "MI325X", "MI350X", "MI355X"}));
  // Oracle scores: MI300X 27.968884483726146, MI355X 10.18474574915825 → 2.746…
  EXPECT_DOUBLE_EQ(doc["rows"][0]["speedup"].get<double>(), 1.0);
  EXPECT_NEAR(doc["rows"][3]["speedup"].get<double>(), 27.968884483726146 / 10.18474574915825, 1e-9);
  EXPECT_NEAR(doc["rows"][3]["speedup"].get<double>(), 2.75, 0.01);
  EXPECT_NEAR(doc["rows"][1]["speedup"].get<double>(), 27.968884483726146 / 21.049289430199426, 1e-9);
}

}  // namespace
}  // namespace mlperf
