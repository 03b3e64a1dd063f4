// Tests of ruleset versions, bounds and the per-benchmark facts of scoring.md §6
// (configs/benchmarks.json).

#include "mlperf/training/facts.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mlperf/mllog/ruleset.h"
#include "../test_support.h"

namespace mlperf {
namespace {

using testing::source_dir;
using testing::TempDir;
using testing::write_file;

using testing::rs;

// ---------------------------------------------------------------------------------------------
// Ruleset

TEST(RulesetParse, FullVersion) {
  auto r = Ruleset::parse("5.1.0");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->parts[0], 5);
  EXPECT_EQ(r->parts[1], 1);
  EXPECT_EQ(r->parts[2], 0);
  EXPECT_EQ(r->str(), "5.1.0");
}

TEST(RulesetParse, MissingPartsDefaultToZero) {
  auto two = Ruleset::parse("5.1");
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->str(), "5.1.0");
  EXPECT_EQ(*two, rs("5.1.0"));

  auto one = Ruleset::parse("6");
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->str(), "6.0.0");
  EXPECT_EQ(*one, rs("6.0.0"));
}

TEST(RulesetParse, MultiDigitParts) {
  auto r = Ruleset::parse("10.12.3");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->parts[0], 10);
  EXPECT_EQ(r->parts[1], 12);
  EXPECT_EQ(r->parts[2], 3);
  EXPECT_EQ(r->str(), "10.12.3");
}

TEST(RulesetParse, RejectsMalformedText) {
  for (const char* bad : {"", "5.", "a.b", "5.1.0.1", "-1", "5.1.", ".5", "5..1", "5.x", "v5.1", "5.1.0 ",
                          " 5.1", "5.-1.0"}) {
    EXPECT_FALSE(Ruleset::parse(bad).has_value()) << '"' << bad << '"';
  }
}

TEST(RulesetOrder, ComparesPartByPart) {
  EXPECT_LT(rs("4.1.0"), rs("5.0.0"));
  EXPECT_LT(rs("5.0.0"), rs("5.1.0"));
  EXPECT_LT(rs("5.1.0"), rs("5.1.1"));
  EXPECT_LT(rs("5.9.9"), rs("6.0.0"));
  // Numeric, not lexicographic: 10 > 9.
  EXPECT_LT(rs("9.0.0"), rs("10.0.0"));
  EXPECT_LT(rs("5.2.0"), rs("5.10.0"));
  EXPECT_GT(rs("6.1.0"), rs("6.0.0"));
  EXPECT_EQ(rs("5.1"), rs("5.1.0"));
  EXPECT_NE(rs("5.1.0"), rs("5.0.1"));
  EXPECT_LE(rs("6"), rs("6.0.0"));
  EXPECT_GE(rs("6"), rs("6.0.0"));
}

TEST(RulesetOrder, DefaultIsZero) {
  Ruleset r;
  EXPECT_EQ(r.str(), "0.0.0");
  EXPECT_LT(r, rs("0.0.1"));
}

// ---------------------------------------------------------------------------------------------
// Bounds

TEST(Bounds, OpenBoundsContainEverything) {
  Bounds b;
  EXPECT_TRUE(b.contains(-1e300));
  EXPECT_TRUE(b.contains(0.0));
  EXPECT_TRUE(b.contains(1e300));
}

TEST(Bounds, InclusiveEnds) {
  Bounds b;
  b.min = 0.72;
  b.min_inclusive = true;
  b.max = 1.0;
  b.max_inclusive = true;
  EXPECT_TRUE(b.contains(0.72));
  EXPECT_TRUE(b.contains(1.0));
  EXPECT_TRUE(b.contains(0.9));
  EXPECT_FALSE(b.contains(0.7199));
  EXPECT_FALSE(b.contains(1.0001));
}

TEST(Bounds, ExclusiveEnds) {
  Bounds b;
  b.min = 2.6;
  b.min_inclusive = false;
  b.max = 2.69;
  b.max_inclusive = false;
  EXPECT_FALSE(b.contains(2.6));
  EXPECT_FALSE(b.contains(2.69));
  EXPECT_TRUE(b.contains(2.65));
  EXPECT_FALSE(b.contains(2.5));
  EXPECT_FALSE(b.contains(2.7));
}

TEST(Bounds, MixedEnds) {
  Bounds b;  // 0 < v ≤ 3.3
  b.min = 0.0;
  b.min_inclusive = false;
  b.max = 3.3;
  b.max_inclusive = true;
  EXPECT_FALSE(b.contains(0.0));
  EXPECT_TRUE(b.contains(1e-9));
  EXPECT_TRUE(b.contains(3.3));
  EXPECT_FALSE(b.contains(3.31));
}

TEST(Bounds, OnlyOneSide) {
  Bounds lower;  // v ≥ 0.908
  lower.min = 0.908;
  EXPECT_TRUE(lower.contains(0.908));
  EXPECT_TRUE(lower.contains(1e9));
  EXPECT_FALSE(lower.contains(0.9079));

  Bounds upper;  // v ≤ 90
  upper.max = 90.0;
  EXPECT_TRUE(upper.contains(90.0));
  EXPECT_TRUE(upper.contains(-5.0));
  EXPECT_FALSE(upper.contains(90.0001));
}

// ---------------------------------------------------------------------------------------------
// Facts::load of the shipped configs/benchmarks.json

class FactsFile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { facts_ = new Facts(Facts::load(source_dir() / "configs/benchmarks.json")); }
  static void TearDownTestSuite() {
    delete facts_;
    facts_ = nullptr;
  }
  static const BenchmarkFacts& bench(const std::string& name) {
    const BenchmarkFacts* f = facts_->find(name);
    if (f == nullptr) throw std::logic_error("benchmark missing from facts: " + name);
    return *f;
  }
  static Facts* facts_;
};

Facts* FactsFile::facts_ = nullptr;

TEST_F(FactsFile, RequiredRunsOfSection6) {
  const std::vector<std::pair<std::string, int>> expected = {
      {"bert", 10},          {"dlrm", 5},           {"dlrm_dcnv2", 10},
      {"gnmt", 10},          {"gpt3", 3},           {"maskrcnn", 5},
      {"minigo", 10},        {"resnet", 5},         {"ssd", 5},
      {"retinanet", 5},      {"stable_diffusion", 10}, {"transformer", 10},
      {"ncf", 10},           {"rnnt", 10},          {"unet3d", 40},
      {"gnn", 10},           {"rgat", 10},          {"llama2_70b_lora", 10},
      {"llama31_405b", 3},   {"llama31_8b", 10},    {"flux1", 10},
      {"gpt_oss_20b", 10},   {"deepseekv3_671b", 3}, {"qwen35_397b_grpo", 3},
      {"deepcam", 5},        {"cosmoflow", 10},     {"oc20", 5},
      {"openfold", 10}};
  for (const auto& [name, runs] : expected) {
    const BenchmarkFacts* f = facts_->find(name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->required_runs, runs) << name;
    EXPECT_EQ(f->name, name);
  }
  EXPECT_EQ(facts_->benchmarks.size(), expected.size());
}

TEST_F(FactsFile, UsageTrainingOrHpc) {
  for (const char* hpc : {"deepcam", "cosmoflow", "oc20", "openfold"}) EXPECT_EQ(bench(hpc).usage, "hpc") << hpc;
  for (const char* training : {"bert", "unet3d", "llama2_70b_lora", "llama31_8b", "flux1", "dlrm"}) {
    EXPECT_EQ(bench(training).usage, "training") << training;
  }
}

TEST_F(FactsFile, UnknownBenchmarkIsNull) {
  EXPECT_EQ(facts_->find("no_such_benchmark"), nullptr);
  EXPECT_EQ(facts_->find(""), nullptr);
  EXPECT_EQ(facts_->find("BERT"), nullptr);  // names are exact
}

TEST_F(FactsFile, OlympicDropIsFourForUnet3dOnly) {
  EXPECT_EQ(bench("unet3d").olympic_drop, 4);
  for (const auto& [name, f] : facts_->benchmarks) {
    if (name != "unet3d") {
      EXPECT_EQ(f.olympic_drop, 1) << name;
    }
  }
}

TEST_F(FactsFile, ConvergenceUnits) {
  EXPECT_EQ(bench("llama2_70b_lora").convergence_unit, ConvergenceUnit::kSamplesCount);
  EXPECT_EQ(bench("llama31_8b").convergence_unit, ConvergenceUnit::kSamplesCount);
  EXPECT_EQ(bench("llama31_405b").convergence_unit, ConvergenceUnit::kSamplesCount);
  EXPECT_EQ(bench("flux1").convergence_unit, ConvergenceUnit::kSamplesCount);
  EXPECT_EQ(bench("retinanet").convergence_unit, ConvergenceUnit::kEpochNum);
  EXPECT_EQ(bench("bert").convergence_unit, ConvergenceUnit::kEpochNum);
  EXPECT_EQ(bench("stable_diffusion").convergence_unit, ConvergenceUnit::kMetricStep);
}

TEST_F(FactsFile, StableDiffusionStepFieldByRuleset) {
  const BenchmarkFacts& sd = bench("stable_diffusion");
  EXPECT_EQ(sd.step_field(rs("3.1.0")), "step_num");
  EXPECT_EQ(sd.step_field(rs("3.1")), "step_num");
  EXPECT_EQ(sd.step_field(rs("5.0.0")), "samples_count");
  EXPECT_EQ(sd.step_field(rs("4.0.0")), "samples_count");
}

TEST_F(FactsFile, StableDiffusionConvergenceMetrics) {
  const BenchmarkFacts& sd = bench("stable_diffusion");
  ASSERT_EQ(sd.convergence_metrics.size(), 2u);
  ASSERT_EQ(sd.convergence_metrics.count("FID"), 1u);
  ASSERT_EQ(sd.convergence_metrics.count("CLIP"), 1u);
  const Bounds& fid = sd.convergence_metrics.at("FID");
  const Bounds& clip = sd.convergence_metrics.at("CLIP");
  EXPECT_TRUE(fid.contains(90.0));
  EXPECT_FALSE(fid.contains(90.01));
  EXPECT_TRUE(clip.contains(0.15));
  EXPECT_FALSE(clip.contains(0.149));
}

TEST_F(FactsFile, RcpSamplesKey) {
  EXPECT_EQ(bench("llama2_70b_lora").rcp_samples_key, "samples to converge");
  EXPECT_EQ(bench("flux1").rcp_samples_key, "samples to converge");
  EXPECT_EQ(bench("llama31_8b").rcp_samples_key, "Epochs to converge");
  EXPECT_EQ(bench("bert").rcp_samples_key, "Epochs to converge");
}

TEST_F(FactsFile, Llama31_8bTargetUnder5_1) {
  const QualityTarget* t = bench("llama31_8b").quality_target(rs("5.1.0"));
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->first, rs("5.1.0"));
  EXPECT_EQ(t->last, rs("6.1.0"));
  ASSERT_EQ(t->metrics.count(""), 1u);
  const Bounds& b = t->metrics.at("");
  EXPECT_TRUE(b.contains(3.3));
  EXPECT_TRUE(b.contains(3.29));
  EXPECT_FALSE(b.contains(3.31));
  EXPECT_FALSE(b.contains(0.0));
  // Not in force before 5.1.
  EXPECT_EQ(bench("llama31_8b").quality_target(rs("5.0.0")), nullptr);
}

TEST_F(FactsFile, BertTarget) {
  const QualityTarget* t = bench("bert").quality_target(rs("5.0.0"));
  ASSERT_NE(t, nullptr);
  const Bounds& b = t->metrics.at("");
  EXPECT_TRUE(b.contains(0.72));
  EXPECT_TRUE(b.contains(0.75));
  EXPECT_FALSE(b.contains(1.0));
  EXPECT_FALSE(b.contains(0.719));
  // bert: 4.0–5.1 only.
  EXPECT_NE(bench("bert").quality_target(rs("4.0.0")), nullptr);
  EXPECT_NE(bench("bert").quality_target(rs("5.1.0")), nullptr);
  EXPECT_EQ(bench("bert").quality_target(rs("6.0.0")), nullptr);
}

TEST_F(FactsFile, Gpt3TargetUnder4_1) {
  const QualityTarget* t = bench("gpt3").quality_target(rs("4.1.0"));
  ASSERT_NE(t, nullptr);
  const Bounds& b = t->metrics.at("");
  EXPECT_FALSE(b.contains(2.6));
  EXPECT_TRUE(b.contains(2.69));
  EXPECT_TRUE(b.contains(2.65));
  EXPECT_FALSE(b.contains(2.7));
  EXPECT_EQ(bench("gpt3").quality_target(rs("5.0.0")), nullptr);
}

TEST_F(FactsFile, RetinanetHasNoTargetUnder6_0) {
  EXPECT_EQ(bench("retinanet").quality_target(rs("6.0.0")), nullptr);
  const QualityTarget* t = bench("retinanet").quality_target(rs("5.1.0"));
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->metrics.at("").contains(0.34));
  EXPECT_FALSE(t->metrics.at("").contains(0.339));
}

TEST_F(FactsFile, OtherTargetsOfSection6) {
  const Bounds& lora = bench("llama2_70b_lora").quality_target(rs("6.1.0"))->metrics.at("");
  EXPECT_TRUE(lora.contains(0.925));
  EXPECT_FALSE(lora.contains(0.926));
  EXPECT_FALSE(lora.contains(0.0));

  const Bounds& dcn = bench("dlrm_dcnv2").quality_target(rs("6.0.0"))->metrics.at("");
  EXPECT_TRUE(dcn.contains(0.80275));
  EXPECT_TRUE(dcn.contains(1.0));
  EXPECT_FALSE(dcn.contains(0.8027));
  EXPECT_EQ(bench("dlrm_dcnv2").quality_target(rs("6.1.0")), nullptr);

  const Bounds& l405 = bench("llama31_405b").quality_target(rs("5.0.0"))->metrics.at("");
  EXPECT_TRUE(l405.contains(5.6));
  EXPECT_FALSE(l405.contains(5.61));
  EXPECT_EQ(bench("llama31_405b").quality_target(rs("6.1.0")), nullptr);

  const Bounds& flux = bench("flux1").quality_target(rs("5.1.0"))->metrics.at("");
  EXPECT_TRUE(flux.contains(0.586));
  EXPECT_FALSE(flux.contains(0.587));

  const Bounds& oss = bench("gpt_oss_20b").quality_target(rs("6.0.0"))->metrics.at("");
  EXPECT_TRUE(oss.contains(3.34));
  EXPECT_FALSE(oss.contains(3.35));

  const Bounds& ds = bench("deepseekv3_671b").quality_target(rs("6.1.0"))->metrics.at("");
  EXPECT_TRUE(ds.contains(3.6));
  EXPECT_FALSE(ds.contains(3.61));

  const Bounds& unet = bench("unet3d").quality_target(rs("4.0.0"))->metrics.at("");
  EXPECT_TRUE(unet.contains(0.908));
  EXPECT_TRUE(unet.contains(5.0));  // no upper bound
  EXPECT_FALSE(unet.contains(0.907));
  EXPECT_EQ(bench("unet3d").quality_target(rs("4.1.0")), nullptr);

  EXPECT_NE(bench("resnet").quality_target(rs("4.0.0")), nullptr);
  EXPECT_EQ(bench("resnet").quality_target(rs("4.1.0")), nullptr);
}

TEST_F(FactsFile, StableDiffusionFidAndClipTarget) {
  const QualityTarget* t = bench("stable_diffusion").quality_target(rs("5.0.0"));
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->metrics.size(), 2u);
  EXPECT_EQ(t->metrics.count(""), 0u);
  const Bounds& fid = t->metrics.at("FID");
  const Bounds& clip = t->metrics.at("CLIP");
  EXPECT_TRUE(fid.contains(0.0));
  EXPECT_TRUE(fid.contains(90.0));
  EXPECT_FALSE(fid.contains(90.5));
  EXPECT_FALSE(fid.contains(-0.1));
  EXPECT_TRUE(clip.contains(0.15));
  EXPECT_TRUE(clip.contains(1.0));
  EXPECT_FALSE(clip.contains(0.14));
  EXPECT_FALSE(clip.contains(1.01));
  EXPECT_NE(bench("stable_diffusion").quality_target(rs("4.0.0")), nullptr);
  EXPECT_EQ(bench("stable_diffusion").quality_target(rs("5.1.0")), nullptr);
}

TEST_F(FactsFile, BenchmarksWithoutTargets) {
  for (const char* name : {"dlrm", "gnmt", "qwen35_397b_grpo"}) {
    EXPECT_TRUE(bench(name).quality_targets.empty()) << name;
    EXPECT_EQ(bench(name).quality_target(rs("6.1.0")), nullptr) << name;
  }
}

// HPC targets (hpc_X.Y.Z/closed_<benchmark>.yaml ATLEAST_ONE_CHECK) name HPC rulesets only.
TEST_F(FactsFile, HpcTargetsNameHpcRulesets) {
  const Ruleset hpc3 = rs("3.0.0").with_usage(Usage::kHpc);
  const Ruleset hpc1 = rs("1.0.0").with_usage(Usage::kHpc);
  const QualityTarget* deepcam = bench("deepcam").quality_target(hpc1);
  ASSERT_NE(deepcam, nullptr);
  EXPECT_TRUE(deepcam->metrics.at("").contains(0.82));
  EXPECT_FALSE(deepcam->metrics.at("").contains(0.8199));
  EXPECT_FALSE(deepcam->metrics.at("").contains(1.01));
  const QualityTarget* cosmoflow = bench("cosmoflow").quality_target(hpc3);
  ASSERT_NE(cosmoflow, nullptr);
  EXPECT_TRUE(cosmoflow->metrics.at("eval_error").contains(0.124));
  EXPECT_FALSE(cosmoflow->metrics.at("eval_error").contains(0.1241));
  EXPECT_FALSE(cosmoflow->metrics.at("eval_error").contains(0.0));
  EXPECT_TRUE(bench("oc20").quality_target(hpc3)->metrics.at("eval_error").contains(0.036));
  EXPECT_EQ(bench("openfold").quality_target(rs("2.0.0").with_usage(Usage::kHpc)), nullptr);  // a 3.0.0 benchmark
  EXPECT_TRUE(bench("openfold").quality_target(hpc3)->metrics.at("").contains(0.8));
  EXPECT_EQ(bench("deepcam").quality_target(rs("3.0.0")), nullptr);  // training 3.0.0 had no deepcam
}

TEST_F(FactsFile, Rounds) {
  // 1.0.0 … 6.1.0 and HPC 1.0.0 … 3.0.0 (benchmark_meta.py _ALL_ALLOWED_BENCHMARKS)
  ASSERT_EQ(facts_->rounds.size(), 15u);
  EXPECT_EQ(facts_->newest_ruleset().str(), "6.1.0");
  EXPECT_EQ(facts_->newest_ruleset(Usage::kHpc).folder(), "hpc_3.0.0");
  auto hpc3 = facts_->rounds.at(rs("3.0.0").with_usage(Usage::kHpc));
  EXPECT_EQ(hpc3, (std::vector<std::string>{"cosmoflow", "deepcam", "oc20", "openfold"}));
  EXPECT_EQ(facts_->rounds.at(rs("2.0.0").with_usage(Usage::kHpc)).size(), 3u);
  auto round = [&](const char* r) {
    auto it = facts_->rounds.find(rs(r));
    if (it == facts_->rounds.end()) throw std::logic_error(std::string("round missing: ") + r);
    auto names = it->second;
    std::sort(names.begin(), names.end());
    return names;
  };
  auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(round("2.1.0"), sorted({"bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"}));
  EXPECT_EQ(round("3.1.0"),
            sorted({"bert", "dlrm_dcnv2", "gpt3", "maskrcnn", "resnet", "ssd", "rnnt", "unet3d", "stable_diffusion"}));
  EXPECT_EQ(round("5.1.0"), sorted({"llama31_8b", "dlrm_dcnv2", "retinanet", "flux1", "llama2_70b_lora", "rgat",
                                    "llama31_405b"}));
  EXPECT_EQ(round("5.0.0"), sorted({"bert", "dlrm_dcnv2", "retinanet", "stable_diffusion", "llama2_70b_lora",
                                    "rgat", "llama31_405b"}));
  EXPECT_EQ(round("4.0.0"), sorted({"bert", "dlrm_dcnv2", "gpt3", "resnet", "ssd", "unet3d", "stable_diffusion",
                                    "llama2_70b_lora", "gnn"}));
  EXPECT_EQ(round("6.1.0"), sorted({"llama31_8b", "flux1", "llama2_70b_lora", "gpt_oss_20b", "deepseekv3_671b",
                                    "qwen35_397b_grpo"}));
  // Every benchmark of every round has facts.
  for (const auto& [r, names] : facts_->rounds) {
    for (const auto& n : names) EXPECT_NE(facts_->find(n), nullptr) << r.str() << ": " << n;
  }
}

TEST_F(FactsFile, NewestRuleset) {
  EXPECT_EQ(facts_->newest_ruleset(), rs("6.1.0"));
  EXPECT_EQ(facts_->newest_ruleset().str(), "6.1.0");
}

TEST(FactsNoRounds, NewestRulesetThrows) {
  Facts empty;
  EXPECT_THROW(empty.newest_ruleset(), std::runtime_error);
}

// ---------------------------------------------------------------------------------------------
// Facts::load errors

// Runs Facts::load(file) and returns the message of the std::runtime_error it throws.
std::string load_error(const std::filesystem::path& file) {
  try {
    Facts::load(file);
  } catch (const std::runtime_error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}

const char* kMinimalBenchmark = R"({"required_runs": 5, "convergence_unit": "epoch_num"})";

TEST(FactsLoad, MinimalFileUsesDefaults) {
  TempDir dir;
  auto file = dir.path() / "benchmarks.json";
  write_file(file, std::string(R"({"benchmarks": {"toy": )") + kMinimalBenchmark +
                       R"(}, "rounds": {"5.1": ["toy"]}})");
  Facts f = Facts::load(file);
  ASSERT_NE(f.find("toy"), nullptr);
  const BenchmarkFacts& toy = *f.find("toy");
  EXPECT_EQ(toy.required_runs, 5);
  EXPECT_EQ(toy.olympic_drop, 1);
  EXPECT_EQ(toy.usage, "training");
  EXPECT_EQ(toy.convergence_unit, ConvergenceUnit::kEpochNum);
  EXPECT_EQ(toy.rcp_samples_key, "Epochs to converge");
  EXPECT_TRUE(toy.quality_targets.empty());
  EXPECT_EQ(f.newest_ruleset(), rs("5.1.0"));
}

TEST(FactsLoad, MissingFileThrowsNamingIt) {
  TempDir dir;
  auto file = dir.path() / "no_such_benchmarks.json";
  std::string msg = load_error(file);
  EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
}

TEST(FactsLoad, MalformedJsonThrowsNamingFile) {
  TempDir dir;
  auto file = dir.path() / "broken.json";
  write_file(file, R"({"benchmarks": {"bert": {"required_runs": 10,)");
  std::string msg = load_error(file);
  EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
}

TEST(FactsLoad, MissingSectionThrowsNamingFile) {
  TempDir dir;
  auto file = dir.path() / "no_rounds.json";
  write_file(file, std::string(R"({"benchmarks": {"toy": )") + kMinimalBenchmark + "}}");
  std::string msg = load_error(file);
  EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
}

TEST(FactsLoad, MissingRequiredRunsThrowsNamingFile) {
  TempDir dir;
  auto file = dir.path() / "no_required_runs.json";
  write_file(file, R"({"benchmarks": {"toy": {"convergence_unit": "epoch_num"}}, "rounds": {}})");
  std::string msg = load_error(file);
  EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
}

TEST(FactsLoad, NonPositiveRequiredRunsThrows) {
  TempDir dir;
  auto file = dir.path() / "zero_runs.json";
  write_file(file, R"({"benchmarks": {"toy": {"required_runs": 0, "convergence_unit": "epoch_num"}}, "rounds": {}})");
  std::string msg = load_error(file);
  EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("toy"), std::string::npos) << msg;
}

TEST(FactsLoad, UnknownConvergenceUnitThrows) {
  TempDir dir;
  auto file = dir.path() / "bad_unit.json";
  write_file(file,
             R"({"benchmarks": {"toy": {"required_runs": 5, "convergence_unit": "furlongs"}}, "rounds": {}})");
  std::string msg = load_error(file);
  EXPECT_NE(msg.find("furlongs"), std::string::npos) << msg;
  EXPECT_NE(msg.find("toy"), std::string::npos) << msg;
  EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
}

TEST(FactsLoad, BadQualityTargetRulesetThrowsNamingFile) {
  TempDir dir;
  auto file = dir.path() / "bad_target.json";
  write_file(file, R"({"benchmarks": {"toy": {"required_runs": 5, "convergence_unit": "epoch_num",
                       "quality_targets": [{"rulesets": ["5.x", "6.0.0"], "metrics": {"": {"max": 1}}}]}},
                       "rounds": {}})");
  std::string msg = load_error(file);
  EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
}

// The header promises "Throws std::runtime_error naming the file on ... malformed content";
// a bad ruleset key under "rounds" is malformed content too.
TEST(FactsLoad, BadRoundRulesetThrowsNamingFile) {
  TempDir dir;
  auto file = dir.path() / "bad_round.json";
  write_file(file, std::string(R"({"benchmarks": {"toy": )") + kMinimalBenchmark +
                       R"(}, "rounds": {"five.one": ["toy"]}})");
  std::string msg = load_error(file);
  EXPECT_NE(msg.find("five.one"), std::string::npos) << msg;
  EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
}

}  // namespace
}  // namespace mlperf
