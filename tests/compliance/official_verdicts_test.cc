// `check` on single logs agrees with the official compliance checker's verdicts, stored with
// the logs (tests/data/compliance/README.md): six benchmarks, six rulesets, mutants of
// every rule family.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::run_command;
using testing::source_dir;

TEST(OfficialVerdicts, CheckAgreesWithTheOfficialCheckerOnEveryStoredLog) {
  fs::path dir = source_dir() / "tests/data/compliance";
  std::map<std::string, std::map<std::string, bool>> official;  // ruleset → log → valid
  std::ifstream in(dir / "official.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    official[j["ruleset"].get<std::string>()][j["log"].get<std::string>()] = j["valid"].get<bool>();
  }
  ASSERT_EQ(official.size(), 6u);  // rulesets 3.1.0, 4.0.0 … 6.0.0
  std::size_t accepted = 0, rejected = 0;
  for (const auto& [ruleset, logs] : official) {
    std::string command = std::string(MLPERF_SCORE_BINARY) + " check --format json --ruleset " + ruleset;
    for (const auto& [log, valid] : logs) command += " '" + (dir / log).string() + "'";
    auto r = run_command(command + " 2>/dev/null");
    auto doc = nlohmann::json::parse(r.out);
    std::map<std::string, bool> ours;
    for (const auto& result : doc["results"]) {
      for (const auto& l : result["logs"]) ours[fs::path(l["file"].get<std::string>()).filename().string()] = l["compliant"];
    }
    for (const auto& [log, valid] : logs) {
      ASSERT_EQ(ours.count(log), 1u) << ruleset << " " << log;
      EXPECT_EQ(ours[log], valid) << "ruleset " << ruleset << ": " << log;
      (valid ? accepted : rejected)++;
    }
  }
  // Both verdicts are well represented.
  EXPECT_EQ(accepted, 50u);
  EXPECT_EQ(rejected, 118u);
}

}  // namespace
}  // namespace mlperf
