// The scenario-folder verdicts against the official submission checker's (tag v5.1.1) on a
// real AMD v5.1 submission and 127 mutants of it (tests/data/inference/checker_oracle, made by
// scripts/official-inference-oracle): each mutant is applied to a copy of the baseline, scored,
// and the folders we call valid compared with the rows the checker's summary accepted, and
// `check`'s exit status with the checker's (1: "submission has errors").

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "../test_support.h"

namespace mlperf::inference {
namespace {

namespace fs = std::filesystem;
using testing::binary;
using testing::q;
using testing::run_command;
using testing::source_dir;
using testing::TempDir;

const fs::path kOracle = source_dir() / "tests/data/inference/checker_oracle";

// Mutants whose verdict the tool does not reproduce, named: a model folder that holds no run
// (invalid-model-folder: the checker rejects the model, the tool finds no run to score) and one
// checker bug (a TEST04 run without its result passes on TEST01's stale verdict).
bool not_reproduced(const std::string& id) {
  return id == "invalid-model-folder" || id == "sdxl-srv-test04-perf-result-key-missing";
}

TEST(InferenceCheckerOracle, ScenarioFolderVerdictsAgreeWithTheOfficialChecker) {
  TempDir tmp;
  const fs::path base = tmp.path() / "base";
  fs::create_directories(base);
  auto untar = run_command("tar -xzf " + q(kOracle / "base.tar.gz") + " -C " + q(base) + " 2>&1");
  ASSERT_EQ(untar.status, 0) << untar.out;
  std::ifstream in(kOracle / "mutants.jsonl");
  ASSERT_TRUE(in) << kOracle;
  std::size_t compared = 0, agreed = 0, not_judged = 0, other_flags = 0, crashed = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const nlohmann::json m = nlohmann::json::parse(line);
    const std::string id = m["id"];
    if (m["flags"] != nlohmann::json::array({"--skip-extra-accuracy-files-check"})) {
      ++other_flags;  // a checker option the tool has no counterpart for
      continue;
    }
    if (m["crashed"] == true) {
      ++crashed;  // the checker stopped midway: its rows are partial
      continue;
    }
    const bool judged = !not_reproduced(id);
    const fs::path root = tmp.path() / id / "inference_results_v5.1";
    fs::create_directories(root);
    fs::copy(base, root, fs::copy_options::recursive);
    testing::apply_ops(m["ops"], root);
    auto r = run_command(binary() + " score --format json " + q(root) + " 2>/dev/null");
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    std::set<std::string> ours, theirs;
    for (const auto& d : doc["results"]) {
      if (d["kind"] == "inference" && d["valid"] == true) {
        ours.insert(fs::path(d["directory"].get<std::string>()).lexically_relative(root).string());
      }
    }
    for (const auto& a : m["accepted"]) theirs.insert(a.get<std::string>());
    // The submission's verdict: `check` exits 1 where the checker's summary has errors.
    const int check_status = judged ? run_command(binary() + " check " + q(root) + " >/dev/null 2>&1").status : -1;
    fs::remove_all(tmp.path() / id);
    if (!judged) {
      ++not_judged;
      continue;
    }
    ++compared;
    const int their_status = m["exit_status"].get<int>();
    // `check` exits 2 where a log cannot be read (a line that does not parse), 1 for any other
    // error: either is the checker's 1.
    if (ours == theirs && (check_status != 0) == (their_status != 0)) {
      ++agreed;
    } else {
      ADD_FAILURE() << id << ": " << m["description"].get<std::string>() << "\n  ours:   " << nlohmann::json(ours).dump()
                    << " check exit " << check_status << "\n  theirs: " << nlohmann::json(theirs).dump() << " exit "
                    << their_status;
    }
  }
  std::cout << "official checker v5.1.1: " << agreed << " of " << compared
            << " records agree folder by folder and in the exit status; not compared: " << not_judged
            << " not reproduced, " << crashed
            << " where the checker crashed, " << other_flags << " with other checker flags\n";
  EXPECT_GE(compared, 110u);
}

}  // namespace
}  // namespace mlperf::inference
