// The RCP check (scoring.md §4) against the official RCP checker's verdicts on made-up
// submissions around every RCP table of training 5.0.0 - 6.1.0, hpc 3.0.0 and gpt3
// (tests/data/training/rcp_oracle.jsonl.gz, written by scripts/official-rcp-oracle from
// mlcommons/logging 7bbf792): per submission the batch size, the samples to converge of each
// run (null: did not converge), the pass and the official verdict, case and normalization
// factor. Each is judged here as `score` judges a directory: the shipped table of the
// ruleset (pruned or full), the benchmark's required runs and olympic drop.

#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mlperf/training/data_context.h"
#include "mlperf/training/rcp.h"
#include "mlperf/training/run.h"
#include "../test_support.h"

namespace mlperf {
namespace {

using testing::q;
using testing::run_command;
using testing::source_dir;
using testing::source_data;

struct OracleRecord {
  nlohmann::json json;
  std::string label;  // for failure messages
};

std::vector<OracleRecord> load_oracle() {
  auto r = run_command("gzip -dc " + q(source_dir() / "tests/data/training/rcp_oracle.jsonl.gz"));
  EXPECT_EQ(r.status, 0);
  std::vector<OracleRecord> out;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) out.push_back({nlohmann::json::parse(line), line});
  return out;
}

// A directory's runs of `facts`' benchmark as `score` hands them to the check: the benchmark's
// olympic drop and required runs.
RcpSubmission submission(const BenchmarkFacts& facts, const std::string& ruleset, std::optional<long long> batch_size,
                         std::vector<double> samples) {
  RcpSubmission s;
  s.benchmark = facts.name;
  s.ruleset = *Ruleset::parse(ruleset);
  s.batch_size = batch_size;
  s.samples_to_converge = std::move(samples);
  s.olympic_drop = facts.olympic_drop;
  s.required_runs = facts.required_runs;
  return s;
}

RcpSubmission submission_of(const nlohmann::json& j, const BenchmarkFacts& facts) {
  std::vector<double> samples;
  for (const auto& x : j.at("samples")) samples.push_back(x.is_null() ? kNotConverged : x.get<double>());
  std::optional<long long> batch_size;
  if (!j.at("global_batch_size").is_null()) batch_size = j.at("global_batch_size").get<long long>();
  return submission(facts, j.at("ruleset").get<std::string>(), batch_size, std::move(samples));
}

TEST(RcpOracle, EveryMadeUpSubmissionGetsTheOfficialVerdictCaseAndFactor) {
  const auto records = load_oracle();
  ASSERT_EQ(records.size(), 7257u) << "tests/data/training/rcp_oracle.jsonl.gz";
  const DataContext& data = source_data();
  std::map<std::string, int> per_case;
  int compared = 0;
  for (const auto& rec : records) {
    const auto& j = rec.json;
    ASSERT_FALSE(j.at("passed").is_null()) << "the checker raised: " << rec.label;
    const BenchmarkFacts* facts = data.facts().find(j.at("benchmark").get<std::string>());
    ASSERT_NE(facts, nullptr) << rec.label;
    ASSERT_EQ(facts->usage, j.at("usage").get<std::string>()) << rec.label;
    ASSERT_TRUE(facts->official_rcp_check) << rec.label;
    const RcpSubmission sub = submission_of(j, *facts);
    auto table = data.rcps(*facts, sub.ruleset);
    const std::vector<RcpRecord> set = j.at("rcp_pass") == "pruned" ? prune_rcps(*table) : *table;
    const RcpVerdict v = check_rcp(set, sub);
    EXPECT_EQ(v.passed, j.at("passed").get<bool>()) << rec.label << "\n" << v.message;
    EXPECT_EQ(to_string(v.rcp_case), j.at("case").get<std::string>()) << rec.label << "\n" << v.message;
    // The same double: the official float was written with repr, which reads back exactly.
    EXPECT_EQ(v.normalization_factor, j.at("normalization_factor").get<double>()) << rec.label << "\n" << v.message;
    ++per_case[j.at("case").get<std::string>()];
    ++compared;
  }
  EXPECT_EQ(compared, 7257);
  // The oracle reaches every case the checker can give a directory with a batch size and a
  // table, both verdicts where there are two.
  for (const char* c : {"exact", "interpolated", "smaller_batch_fallback", "missing", "insufficient_convergence",
                        "no_batch_size"}) {
    EXPECT_GT(per_case[c], 0) << c;
  }
}

// The published v6.0 round: the official result summarizer's summary.json of GigaComputing and
// Inventec (mlcommons/training_results_v6.0, read from its copy Richardyu114/training_results_v6.0
// at eabf23a) gives per directory the global batch size, the olympic mean of samples (epochs) to
// converge, "Pass" and the RCP scaling factor to 10 decimals.
TEST(RcpOracle, PublishedV60FactorsOfTheResultSummarizer) {
  struct Row {
    const char* benchmark;
    long long gbs;
    double mean;
    double factor;  // as summary.json rounds it
  };
  const Row rows[] = {
      {"dlrm_dcnv2", 65536, 0.775, 1.0073711123},       // GigaComputing G894-SD3-AAX7, hugectr
      {"llama31_8b", 16, 172032, 1.0},                  // GigaComputing, Inventec
      {"llama2_70b_lora", 8, 3072, 1.0347222222},       // GigaComputing, Inventec
      {"gpt_oss_20b", 24, 208896, 1.0163398693},        // GigaComputing
      {"gpt_oss_20b", 24, 205824, 1.0315091211},        // Inventec P9000IG7
  };
  const DataContext& data = source_data();
  for (const Row& row : rows) {
    const BenchmarkFacts* facts = data.facts().find(row.benchmark);
    ASSERT_NE(facts, nullptr) << row.benchmark;
    const RcpSubmission sub = submission(
        *facts, "6.0.0", row.gbs, std::vector<double>(static_cast<std::size_t>(facts->required_runs), row.mean));
    const RcpVerdict v = check_rcp(prune_rcps(*data.rcps(*facts, sub.ruleset)), sub);
    EXPECT_TRUE(v.passed) << row.benchmark << ": " << v.message;
    EXPECT_EQ(std::round(v.normalization_factor * 1e10) / 1e10, row.factor) << row.benchmark << ": " << v.message;
  }
}

// gpt3 converges at some 1.2e9 samples, more than the 1e9 the official checker gives a run
// that did not converge: that run sorts to the bottom, and the olympic mean of three runs is
// the faster converged one, not the slower (as it would be with the run at +inf).
TEST(RcpOracle, Gpt3RunThatDidNotConvergeSortsBelowTheConvergedOnes) {
  const DataContext& data = source_data();
  const BenchmarkFacts* gpt3 = data.facts().find("gpt3");
  ASSERT_NE(gpt3, nullptr);
  const RcpSubmission sub = submission(*gpt3, "4.1.0", 1536, {1190595133.44, 1195376640.0, kNotConverged});
  const RcpVerdict v = check_rcp(*data.rcps(*gpt3, sub.ruleset), sub);
  ASSERT_TRUE(v.submission_mean.has_value());
  EXPECT_EQ(*v.submission_mean, 1190595133.44);
  EXPECT_TRUE(v.passed) << v.message;
  EXPECT_EQ(v.rcp_case, RcpCase::kExact);
  EXPECT_EQ(v.normalization_factor, *v.rcp_mean / 1190595133.44);
  EXPECT_GT(v.normalization_factor, 1.0);
}

}  // namespace
}  // namespace mlperf
