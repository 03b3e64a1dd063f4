// Every config file of configs/compliance/ (rulesets 1.0.0 – 6.1.0) applied to a real result log
// of its benchmark, with the official compliance checker's verdict on each (issue #22, item 8):
// the logs and verdicts are tests/data/compliance/configs.tar.gz, made by
// scripts/make-config-logs (tests/data/compliance/README.md says which log is which).

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../test_support.h"
#include "mlperf/compliance/rules.h"
#include "mlperf/training/facts.h"
#include "mlperf/training/run.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::source_dir;

// The configs the official queue can reach: training_X.Y.Z/common.yaml of every ruleset, and
// whatever a reachable config's enqueue_config('<name>'.format(…)) can name ({} is any file
// name part). Some shipped files are reached by no queue: 1.1.0's open_common.yaml enqueues
// the 1.0.0 open configs, 4.0.0's closed_resnet.yaml the 3.1.0 optimizer configs.
std::set<std::string> reachable_configs(const compliance::RuleLibrary& library) {
  std::map<std::string, std::vector<std::regex>> enqueues;  // config → the names it can enqueue
  static const std::regex call(R"(enqueue_config\(\s*'([^']*)')");
  for (const auto& [name, config] : library.configs()) {
    std::ifstream in(source_dir() / "configs/compliance" / name);
    std::stringstream text;
    text << in.rdbuf();
    std::string body = text.str();
    for (std::sregex_iterator it(body.begin(), body.end(), call), end; it != end; ++it) {
      std::string pattern;
      std::string literal = (*it)[1];
      for (std::size_t i = 0; i < literal.size(); ++i) {
        if (literal.compare(i, 2, "{}") == 0) {
          pattern += "[^/]*";
          ++i;
        } else {
          pattern += std::isalnum(static_cast<unsigned char>(literal[i])) || literal[i] == '_' ? std::string(1, literal[i])
                                                                                                : "\\" + std::string(1, literal[i]);
        }
      }
      enqueues[name].emplace_back(pattern);
    }
  }
  std::set<std::string> reached;
  std::vector<std::string> todo;
  for (const auto& [name, config] : library.configs()) {
    if (name.ends_with("/common.yaml")) todo.push_back(name);
  }
  while (!todo.empty()) {
    std::string name = todo.back();
    todo.pop_back();
    if (!reached.insert(name).second) continue;
    for (const auto& pattern : enqueues[name]) {
      for (const auto& [other, config] : library.configs()) {
        if (std::regex_match(other, pattern)) todo.push_back(other);
      }
    }
  }
  return reached;
}

struct Row {
  std::string log, ruleset;
  bool valid = false;
};

class ConfigCoverage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    auto r = testing::run_command("tar -xzf " + testing::q(source_dir() / "tests/data/compliance/configs.tar.gz") +
                                  " -C " + testing::q(dir_->path()));
    ASSERT_EQ(r.status, 0) << r.out;
    library_ = new compliance::RuleLibrary(compliance::RuleLibrary::load(source_dir() / "configs/compliance"));
    facts_ = new Facts(Facts::load(source_dir() / "configs/benchmarks.json"));
    std::ifstream in(dir_->path() / "configs/official.jsonl");
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::json::parse(line);
      rows_.push_back({j["log"], j["ruleset"], j["valid"]});
    }
  }
  static void TearDownTestSuite() {
    delete facts_;
    delete library_;
    delete dir_;
    rows_.clear();  // read again by the next SetUpTestSuite (--gtest_repeat)
  }

  // Our verdict on one row, with the blocks it evaluated.
  static compliance::LogVerdict judge(const Row& row) {
    RunOptions options;
    options.ruleset = Ruleset::parse(row.ruleset).value();
    options.compliance_rules = library_;
    options.record_compliance_blocks = true;
    mlperf::Run run = read_run(dir_->path() / "configs" / row.log, "", *facts_, options);
    return run.compliance.value();
  }

  static testing::TempDir* dir_;
  static compliance::RuleLibrary* library_;
  static Facts* facts_;
  static std::vector<Row> rows_;
};

testing::TempDir* ConfigCoverage::dir_ = nullptr;
compliance::RuleLibrary* ConfigCoverage::library_ = nullptr;
Facts* ConfigCoverage::facts_ = nullptr;
std::vector<Row> ConfigCoverage::rows_;

TEST_F(ConfigCoverage, EveryConfigIsAppliedAndEveryBlockRunsAgreeingWithTheOfficialChecker) {
  ASSERT_EQ(rows_.size(), 199u);
  std::set<std::string> applied, ran;
  std::size_t accepted = 0;
  for (const Row& row : rows_) {
    compliance::LogVerdict verdict = judge(row);
    EXPECT_EQ(verdict.compliant, row.valid) << "ruleset " << row.ruleset << ": " << row.log;
    accepted += row.valid;
    applied.insert(verdict.configs.begin(), verdict.configs.end());
    ran.insert(verdict.blocks_run.begin(), verdict.blocks_run.end());
  }
  EXPECT_EQ(accepted, 159u);  // and 40 rejected: both verdicts are well represented

  std::set<std::string> reachable = reachable_configs(*library_);
  std::vector<std::string> not_applied, not_run;
  std::size_t blocks = 0, training_configs = 0, training_reachable = 0;
  for (const auto& [name, config] : library_->configs()) {
    // This fixture holds training logs; the MLPerf HPC configs (hpc_X.Y.Z/) are judged on real
    // HPC logs in hpc_compliance_test.cc.
    if (name.starts_with("hpc_")) continue;
    ++training_configs;
    training_reachable += reachable.count(name);
    if (!reachable.count(name)) {
      EXPECT_EQ(applied.count(name), 0u) << name;
      continue;
    }
    if (!applied.count(name)) not_applied.push_back(name);
    for (const auto& b : config.blocks()) {
      ++blocks;
      if (!ran.count(name + ": " + b)) not_run.push_back(name + ": " + b);
    }
  }
  EXPECT_EQ(training_configs, 240u);
  EXPECT_EQ(training_reachable, 232u);  // all but the eight 1.1.0 open configs
  EXPECT_TRUE(not_applied.empty()) << ::testing::PrintToString(not_applied);
  // Every BEGIN, END and KEY block (PRE, CHECK, FIRST_CHECK, ATLEAST_ONE_CHECK, POST) of
  // every reachable config ran on some log.
  EXPECT_EQ(blocks, 1600u);
  EXPECT_TRUE(not_run.empty()) << not_run.size() << " blocks never ran: " << ::testing::PrintToString(not_run);
}

}  // namespace
}  // namespace mlperf
