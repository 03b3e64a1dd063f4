// The MLPerf HPC compliance configs (configs/compliance/hpc_X.Y.Z/, issue #26) judged by the
// same engine as the training ones, on real logs of mlcommons/hpc_results_v3.0 and v2.0
// (tests/data/hpc/). Each verdict here is the official checker's
// (`python -m mlperf_logging.compliance_checker --usage hpc --ruleset X.Y.Z LOG`, logging 7bbf792).

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "mlperf/compliance/rules.h"
#include "mlperf/training/facts.h"
#include "mlperf/training/run.h"
#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::source_dir;

class HpcCompliance : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    library_ = new compliance::RuleLibrary(compliance::RuleLibrary::load(source_dir() / "configs/compliance"));
    facts_ = new Facts(Facts::load(source_dir() / "configs/benchmarks.json"));
  }
  static void TearDownTestSuite() {
    delete facts_;
    delete library_;
  }

  static compliance::LogVerdict judge(const fs::path& log, const std::string& ruleset, Usage usage) {
    RunOptions options;
    options.ruleset = Ruleset::parse(ruleset)->with_usage(usage);
    options.compliance_rules = library_;
    return read_run(log, "", *facts_, options).compliance.value();
  }

  static compliance::RuleLibrary* library_;
  static Facts* facts_;
};

compliance::RuleLibrary* HpcCompliance::library_ = nullptr;
Facts* HpcCompliance::facts_ = nullptr;

const fs::path kDeepcam =
    "tests/data/hpc/hpc_results_v3.0/Clemson/results/18xR750-2xA100-PCIe-80GB/strong/deepcam/result_0.txt";

TEST_F(HpcCompliance, EveryHpcRulesetIsShipped) {
  for (const char* r : {"1.0.0", "2.0.0", "3.0.0"}) {
    EXPECT_TRUE(library_->has_ruleset(Ruleset::parse(r)->with_usage(Usage::kHpc))) << r;
  }
  EXPECT_FALSE(library_->has_ruleset(Ruleset::parse("4.0.0")->with_usage(Usage::kHpc)));
}

// Official: SUCCESS, through common → closed_common → closed_deepcam → the LAMB and
// cosine-annealing configs it enqueues.
TEST_F(HpcCompliance, DeepcamLogIsCompliantUnderItsRound) {
  compliance::LogVerdict v = judge(source_dir() / kDeepcam, "3.0.0", Usage::kHpc);
  EXPECT_TRUE(v.compliant) << (v.findings.empty() ? "" : v.findings.front().message);
  EXPECT_EQ(v.configs, (std::vector<std::string>{"hpc_3.0.0/common.yaml", "hpc_3.0.0/closed_common.yaml",
                                                  "hpc_3.0.0/closed_deepcam.yaml", "hpc_3.0.0/closed_deepcam_lamb.yaml",
                                                  "hpc_3.0.0/closed_deepcam_cosine_annealing.yaml"}));
}

// Official: the training 6.1.0 checker stops (FileNotFoundError: training_6.1.0/closed_deepcam.yaml),
// so the log does not count: what `score` did to every HPC run before issue #26.
TEST_F(HpcCompliance, DeepcamLogIsNotCompliantUnderTrainingRules) {
  EXPECT_FALSE(judge(source_dir() / kDeepcam, "6.1.0", Usage::kTraining).compliant);
}

// Official: FAILED (closed_deepcam.yaml: opt_name must be Adam, AdamW or LAMB).
TEST_F(HpcCompliance, AnOptimizerTheClosedDivisionForbidsFails) {
  std::ifstream in(source_dir() / kDeepcam);
  std::stringstream text;
  text << in.rdbuf();
  std::string body = text.str();
  const std::string from = R"("key": "opt_name", "value": "LAMB")";
  auto at = body.find(from);
  ASSERT_NE(at, std::string::npos);
  body.replace(at, from.size(), R"("key": "opt_name", "value": "SGD")");
  testing::TempDir tmp;
  const fs::path mutated = tmp.path() / "result_0.txt";
  std::ofstream(mutated) << body;
  compliance::LogVerdict v = judge(mutated, "3.0.0", Usage::kHpc);
  EXPECT_FALSE(v.compliant);
  bool named = false;
  for (const auto& f : v.findings) named = named || (f.error && f.rule.find("hpc_3.0.0/closed_deepcam.yaml") != std::string::npos);
  EXPECT_TRUE(named);
}

// Every real log shipped under tests/data/hpc is compliant under its round's rules (the
// official summarizer counts every one: data/oracles/hpc_v*.jsonl).
TEST_F(HpcCompliance, EveryShippedRealLogIsCompliantUnderItsRound) {
  int logs = 0;
  for (const auto& e : fs::recursive_directory_iterator(source_dir() / "tests/data/hpc")) {
    const std::string path = e.path().string();
    if (!e.is_regular_file() || e.path().filename().string().rfind("result_", 0) != 0) continue;
    const std::string ruleset = path.find("hpc_results_v2.0") != std::string::npos ? "2.0.0" : "3.0.0";
    compliance::LogVerdict v = judge(e.path(), ruleset, Usage::kHpc);
    EXPECT_TRUE(v.compliant) << path << ": " << (v.findings.empty() ? "" : v.findings.front().message);
    ++logs;
  }
  EXPECT_EQ(logs, 71);
}

}  // namespace
}  // namespace mlperf
