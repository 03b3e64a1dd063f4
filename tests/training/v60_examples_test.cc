// AMD's real MLPerf Training v6.0 directories shipped in data/examples/training_results_v6.0
// (llama2_70b_lora and llama31_8b on MI355X and MI350X, flux1 on eight nodes of MI325X: the
// first real logs of ruleset 6.0.0 here; their lines end in CRLF, as AMD's files do, but for
// MI350X llama31_8b's) against what the official tooling gives them: every figure of
// data/oracles/training_v6.0.jsonl (scripts/official-training-oracle: the result summarizer's
// runs, olympic mean, RCP verdict and score), the compliance checker's and package checker's
// verdicts (every log SUCCESS, the package "FOUND NO ERRORS"), and the round's published
// figure for each platform.

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mlperf/training/score.h"
#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;

fs::path v60_round() { return testing::source_dir() / "data/examples/training_results_v6.0"; }

// The oracle's lines, one object per directory (its path relative to the round).
std::vector<nlohmann::json> oracle_lines() {
  std::ifstream in(testing::source_dir() / "data/oracles/training_v6.0.jsonl");
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  }
  return out;
}

// a and b agree to a relative 1e-12 (the summarizer's and our doubles come from the same
// integer milliseconds, so they are equal or off in the last bit).
void expect_close(double a, double b, const std::string& what) {
  EXPECT_LE(std::fabs(a - b), 1e-12 * std::fabs(b)) << what << ": " << a << " vs " << b;
}

class V60Examples : public ::testing::Test {
 protected:
  DataContext data{testing::source_dir()};

  std::map<std::string, DirectoryResult> scored() {
    std::vector<DiscoveryError> errors;
    std::vector<BenchmarkDir> dirs = find_benchmark_dirs(v60_round(), errors);
    EXPECT_TRUE(errors.empty());
    std::map<std::string, DirectoryResult> out;
    for (const auto& d : dirs) {
      out.emplace(fs::relative(d.path, v60_round()).generic_string(), score_training_directory(d, data, {}));
    }
    return out;
  }
};

TEST_F(V60Examples, EveryFigureIsTheOfficialSummarizers) {
  const std::vector<nlohmann::json> oracle = oracle_lines();
  ASSERT_EQ(oracle.size(), 5u);
  std::map<std::string, DirectoryResult> got = scored();
  ASSERT_EQ(got.size(), 5u);
  for (const auto& o : oracle) {
    const std::string dir = o.at("directory").get<std::string>();
    SCOPED_TRACE(dir);
    ASSERT_TRUE(got.count(dir));
    const DirectoryResult& r = got.at(dir);
    EXPECT_EQ(r.ruleset.str(), "6.0.0");
    EXPECT_EQ(r.ruleset_source, "path");
    EXPECT_EQ(r.benchmark, o.at("benchmark").get<std::string>());
    EXPECT_EQ(r.division, o.at("division").get<std::string>());
    // Every run the summarizer counts, with its minutes; none dropped.
    const auto& runs = o.at("runs");
    ASSERT_EQ(r.runs.size(), runs.size());
    EXPECT_EQ(o.at("dropped_runs").get<int>(), 0);
    for (const mlperf::Run& run : r.runs) {
      const std::string name = fs::path(run.file).filename().string();
      ASSERT_TRUE(runs.contains(name)) << name;
      ASSERT_TRUE(run.minutes) << name;
      expect_close(*run.minutes, runs.at(name).get<double>(), name);
    }
    ASSERT_TRUE(r.olympic_minutes);
    expect_close(*r.olympic_minutes, o.at("olympic_minutes").get<double>(), "olympic mean");
    EXPECT_EQ(r.rcp.passed, o.at("rcp").at("passed").get<bool>());
    EXPECT_STREQ(to_string(r.rcp.rcp_case), o.at("rcp").at("case").get<std::string>().c_str());
    expect_close(r.rcp.normalization_factor, o.at("rcp").at("normalization_factor").get<double>(), "factor");
    ASSERT_TRUE(r.score_minutes);
    expect_close(*r.score_minutes, o.at("score_minutes").get<double>(), "score");
    EXPECT_TRUE(r.passed);
  }
}

// The platform comes from each system description, and the published figure found is the
// v6.0 round's own for it (not the v5.1 one of the same platform and benchmark).
TEST_F(V60Examples, EachMeetsThePublishedFigureOfItsPlatformAndRound) {
  std::map<std::string, DirectoryResult> got = scored();
  const std::map<std::string, std::pair<std::string, double>> want = {
      {"AMD/results/MI355X_EPYC_9575F_primus/llama2_70b_lora", {"MI355X", 8.27}},
      {"AMD/results/MI350X_EPYC_9575F_primus/llama2_70b_lora", {"MI350X", 10.25}},
      {"AMD/results/MI355X_EPYC_9575F_primus/llama31_8b", {"MI355X", 86.84}},
      {"AMD/results/MI350X_EPYC_9575F_primus/llama31_8b", {"MI350X", 109.76}},
      {"AMD/results/8xMI325X_EPYC_9575F_pytorch/flux1", {"MI325X", 92.36}},
  };
  for (const auto& [dir, platform_published] : want) {
    SCOPED_TRACE(dir);
    ASSERT_TRUE(got.count(dir));
    const DirectoryResult& r = got.at(dir);
    EXPECT_EQ(r.platform.name, platform_published.first);
    EXPECT_EQ(r.platform.source, "system description");
    ASSERT_TRUE(r.expected);
    EXPECT_EQ(r.expected->expected.ruleset.str(), "6.0.0");
    EXPECT_DOUBLE_EQ(r.expected->expected.published_minutes, platform_published.second);
    EXPECT_TRUE(r.expected->within_tolerance);
    EXPECT_LT(std::fabs(r.expected->delta_percent), 0.05);  // the table rounds to 0.01 minutes
  }
}

// The official checkers pass every log (compliance checker, ruleset 6.0.0: "SUCCESS" for all
// 50) and every directory (package checker: seeds, system description, result files, RCP).
TEST(V60ExamplesCheck, EveryCheckPassesAsTheOfficialCheckers) {
  auto r = testing::run_command(testing::binary() + " check --format json " + testing::q(v60_round()) + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc.at("results").size(), 5u) << r.out;
  for (const auto& d : doc.at("results")) {
    SCOPED_TRACE(d.at("directory").get<std::string>());
    EXPECT_EQ(d.at("passed"), true);
    EXPECT_EQ(d.at("ruleset"), "6.0.0");
    EXPECT_EQ(d.at("errors"), 0);
    EXPECT_EQ(d.at("warnings"), 0);
    ASSERT_EQ(d.at("logs").size(), 10u);
    for (const auto& log : d.at("logs")) EXPECT_EQ(log.at("compliant"), true) << log.dump();
    std::vector<std::string> checks;
    for (const auto& c : d.at("checks")) {
      EXPECT_EQ(c.at("passed"), true) << c.dump();
      checks.push_back(c.at("check").get<std::string>());
    }
    // The package checker's own checks are among them.
    for (const char* name : {"seeds", "system_description", "result_files", "rcp"}) {
      EXPECT_NE(std::find(checks.begin(), checks.end(), name), checks.end()) << name;
    }
  }
}

}  // namespace
}  // namespace mlperf
