// The official package checker's checks (package.h): params files, places in the layout,
// system descriptions, power results, and whole packages built from AMD's MI355X llama31_8b
// directory (data/examples) through check_training_directory.

#include "mlperf/training/package.h"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mlperf/compliance/rules.h"
#include "mlperf/mllog/discovery.h"
#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::example_system;
using testing::read_file;
using testing::replace_first;
using testing::rs;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;

const PackageRules& rules() {
  static const PackageRules r = PackageRules::load(source_dir() / "configs/package_checker.json");
  return r;
}

fs::path example_description() {
  return example_system().parent_path().parent_path() / "systems" / (example_system().filename().string() + ".json");
}

// ---- rules and params -----------------------------------------------------------------------

TEST(PackageRules, TheShippedFileHoldsTheOfficialSettings) {
  EXPECT_EQ(rules().checked_rulesets.size(), 12u);
  EXPECT_TRUE(rules().checked_rulesets.count(rs("1.0.0")));
  EXPECT_FALSE(rules().checked_rulesets.count(rs("0.7.0")));
  EXPECT_EQ(rules().required_fields.size(), 33u);
  EXPECT_EQ(rules().required_fields.front(), "submitter");
  EXPECT_EQ(rules().status_checked_from, rs("4.0.0"));
  EXPECT_EQ(rules().allows("training", rs("5.1.0"), "llama31_8b"), true);
  EXPECT_EQ(rules().allows("training", rs("5.1.0"), "bert"), false);
  EXPECT_EQ(rules().allows("training", rs("3.1.0"), "stable_diffusion"), true);
  EXPECT_EQ(rules().allows("hpc", rs("3.0.0"), "openfold"), true);
  EXPECT_EQ(rules().allows("training", rs("9.9.0"), "bert"), std::nullopt);
}

TEST(PackageRules, AMissingOrMalformedFileIsAnErrorNamingIt) {
  TempDir tmp;
  EXPECT_THROW(PackageRules::load(tmp.path() / "none.json"), std::runtime_error);
  write_file(tmp.path() / "bad.json", R"({"checked_rulesets": ["x"]})");
  try {
    PackageRules::load(tmp.path() / "bad.json");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), (tmp.path() / "bad.json").string() + ": \"x\" is not a ruleset");
  }
}

CheckerParams params_of(const std::string& text) {
  TempDir tmp;
  write_file(tmp.path() / "package_checker_params", text);
  return read_checker_params(tmp.path() / "package_checker_params", rules());
}

TEST(CheckerParams, OnlyALastLineWithoutLineBreakBypasses) {
  EXPECT_TRUE(params_of("seed-checker-bypass").seed_checker_bypass);
  EXPECT_FALSE(params_of("seed-checker-bypass").rcp_bypass);
  EXPECT_TRUE(params_of("note\nrcp-bypass").rcp_bypass);
  EXPECT_TRUE(params_of("note\rrcp-bypass").rcp_bypass);  // "\r" ends a line in text mode

  CheckerParams broken = params_of("seed-checker-bypass\n");
  EXPECT_FALSE(broken.seed_checker_bypass);
  ASSERT_EQ(broken.near_misses.size(), 1u);
  EXPECT_EQ(broken.near_misses[0].line, 1u);
  EXPECT_EQ(broken.near_misses[0].text, "seed-checker-bypass");
  CheckerParams crlf = params_of("rcp-bypass\r\nseed-checker-bypass");
  EXPECT_FALSE(crlf.rcp_bypass);
  EXPECT_TRUE(crlf.seed_checker_bypass);
  EXPECT_EQ(crlf.near_misses.size(), 1u);
  EXPECT_FALSE(params_of(" rcp-bypass").rcp_bypass);
  EXPECT_FALSE(params_of("").rcp_bypass);

  TempDir tmp;
  CheckerParams none = read_checker_params(tmp.path() / "package_checker_params", rules());
  EXPECT_FALSE(none.rcp_bypass || none.seed_checker_bypass);
}

TEST(PackagePlace, TrainingAndHpcLayoutsAndFoldersOutsideThem) {
  PackagePlace t = package_place("/r/training_results_v5.1/AMD/results/MI355X/llama31_8b");
  EXPECT_TRUE(t.in_layout);
  EXPECT_EQ(t.org_dir, "/r/training_results_v5.1/AMD");
  EXPECT_EQ(t.system, "MI355X");
  EXPECT_EQ(t.benchmark, "llama31_8b");
  EXPECT_EQ(t.scaling, "");
  EXPECT_EQ(t.system_description, "/r/training_results_v5.1/AMD/systems/MI355X.json");
  EXPECT_EQ(t.system_dir, "/r/training_results_v5.1/AMD/results/MI355X");

  PackagePlace h = package_place("/r/hpc_results_v3.0/HPE/results/sys/weak/openfold");
  EXPECT_TRUE(h.in_layout);
  EXPECT_EQ(h.scaling, "weak");
  EXPECT_EQ(h.system, "sys");
  EXPECT_EQ(h.system_description, "/r/hpc_results_v3.0/HPE/systems/sys.json");

  PackagePlace mine = package_place("/home/me/runs/llama31_8b");
  EXPECT_FALSE(mine.in_layout);
  EXPECT_EQ(mine.benchmark, "llama31_8b");
  EXPECT_FALSE(package_place("/home/me/weak/llama31_8b").in_layout);
}

// ---- system descriptions -----------------------------------------------------------------

class SystemDescriptionTest : public ::testing::Test {
 protected:
  void write(const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = nlohmann::json::parse(read_file(example_description()));
    edit(j);
    write_file(file, j.dump(4));
  }
  SystemDescriptionVerdict check(const char* ruleset = "5.1.0", const char* usage = "training") {
    return check_system_description(file, usage, rs(ruleset), rules());
  }
  TempDir tmp;
  fs::path file = tmp.path() / "sys.json";
};

TEST_F(SystemDescriptionTest, TheExampleIsValid) {
  write([](nlohmann::json&) {});
  auto v = check();
  EXPECT_TRUE(v.readable);
  EXPECT_EQ(v.division, "closed");
  EXPECT_TRUE(v.errors.empty());
}

TEST_F(SystemDescriptionTest, EachMissingFieldIsAnError) {
  write([](nlohmann::json& j) {
    j.erase("accelerator_memory_capacity");
    j.erase("sw_notes");
  });
  auto v = check();
  ASSERT_EQ(v.errors.size(), 2u);
  EXPECT_EQ(v.errors[0].message, "missing field accelerator_memory_capacity");
  EXPECT_EQ(v.errors[0].check, "system_description");
  EXPECT_EQ(v.errors[0].file, file.string());
  EXPECT_EQ(v.errors[1].message, "missing field sw_notes");
}

TEST_F(SystemDescriptionTest, TheStatusIsCheckedFromRuleset4OnInTrainingOnly) {
  write([](nlohmann::json& j) { j["status"] = "available"; });
  auto v = check();
  ASSERT_EQ(v.errors.size(), 1u);
  EXPECT_EQ(v.errors[0].message,
            "field status contains a non valid value: available, must be one of ['Available on-premise', "
            "'Available cloud', 'Research, Development, or Internal (RDI)', 'Preview'] (ruleset 5.1.0)");
  // The line where the file writes "status" (dump(4) sorts the keys).
  const std::string text = read_file(file);
  EXPECT_EQ(v.errors[0].line,
            1u + std::count(text.begin(), text.begin() + static_cast<long>(text.find("\"status\"")), '\n'));
  EXPECT_TRUE(check("4.0.0").errors.size() == 1u);
  EXPECT_TRUE(check("3.1.0").errors.empty());
  EXPECT_TRUE(check("5.1.0", "hpc").errors.empty());
}

TEST_F(SystemDescriptionTest, ATableFieldThatIsNotAStringStopsTheChecker) {
  write([](nlohmann::json& j) { j["accelerators_per_node"] = 8; });
  auto v = check("3.1.0");
  ASSERT_EQ(v.errors.size(), 1u);
  EXPECT_EQ(v.errors[0].message,
            "field accelerators_per_node is 8, not a string: the checker stops on it (TypeError joining the results "
            "table row)");
  EXPECT_GT(v.errors[0].line, 0u);
}

TEST_F(SystemDescriptionTest, MissingNotJsonOrNotAnObjectIsAnError) {
  auto missing = check();
  EXPECT_FALSE(missing.readable);
  ASSERT_EQ(missing.errors.size(), 1u);
  EXPECT_EQ(missing.errors[0].message,
            "is missing: the package checker opens it for every benchmark directory of the system and stops without it");
  write_file(file, "{\"division\": ");
  EXPECT_EQ(check().errors.at(0).message, "is not JSON: the package checker stops on it");
  write_file(file, "[1, 2]");
  EXPECT_EQ(check().errors.at(0).message, "is not a JSON object");
}

// ---- power -------------------------------------------------------------------------------

class PowerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 3; ++i) {
      results.push_back(dir / fmt::format("result_{}.txt", i));
      write_file(results.back(), "");
      for (const char* name : {"node_0.txt", "node_1.txt", "sw_0.txt"}) {
        write_file(dir / "power" / fmt::format("result_{}", i) / name, "");
      }
    }
  }
  std::vector<std::pair<std::string, std::string>> findings() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& f : check_power(dir / "power", results)) {
      EXPECT_EQ(f.check, "power");
      out.push_back({to_string(f.severity), fs::path(f.file).filename().string() + ": " + f.message});
    }
    return out;
  }
  TempDir tmp;
  fs::path dir = tmp.path() / "bench";
  std::vector<fs::path> results;
};

TEST_F(PowerTest, NumberedFilesForEveryRunPass) { EXPECT_TRUE(findings().empty()); }

TEST_F(PowerTest, ARunWithoutPowerResultsFails) {
  fs::remove_all(dir / "power/result_1");
  auto f = findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].first, "error");
  EXPECT_EQ(f[0].second, "result_1.txt: no power result " + (dir / "power/result_1").string() + " for this run");
}

TEST_F(PowerTest, FilesNumberedOutOfRangeFailTheirRun) {
  fs::rename(dir / "power/result_2/node_1.txt", dir / "power/result_2/node_5.txt");
  auto f = findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].second, "result_2.txt: node power files of " + (dir / "power/result_2").string() +
                             " are not numbered node_0 … node_1");
}

TEST_F(PowerTest, ARunWithAnotherNumberOfNodesFails) {
  write_file(dir / "power/result_0/node_2.txt", "");
  auto f = findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].second, "result_0.txt: node power files differ in number from the other runs'");
}

TEST_F(PowerTest, WhatStopsTheOfficialCheckerFailsTheFolder) {
  write_file(dir / "power/result_0/node_a.txt", "");
  auto f = findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].second, "power: " + (dir / "power/result_0").string() +
                             "/node_a.txt is not numbered <name>_<N>: the power checker stops on it");
  fs::remove_all(dir / "power");
  fs::create_directories(dir / "power");
  auto g = findings();
  ASSERT_EQ(g.size(), 4u);  // each run, then no power result at all
  EXPECT_EQ(g[3].second, "power: no run has a power result: the power checker stops (max() of nothing)");
}

TEST_F(PowerTest, OtherFilesAreAWarning) {
  write_file(dir / "power/result_0/readme.md", "");
  auto f = findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].first, "warning");
  EXPECT_EQ(f[0].second, "result_0: 1 files are neither node_<N> nor sw_<N>");
}

// ---- whole packages --------------------------------------------------------------------------

// AMD/results/SYS/llama31_8b with AMD/systems/SYS.json, scored and checked as `check` does.
class PackageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir.parent_path());
    fs::copy(example_system() / "llama31_8b", dir, fs::copy_options::recursive);
    fs::create_directories(org / "systems");
    fs::copy_file(example_description(), org / "systems/SYS.json");
  }

  CheckReport check(const fs::path& given, PackageOptions options = {}) {
    std::vector<DiscoveryError> errors;
    auto dirs = find_benchmark_dirs(dir, errors);
    EXPECT_EQ(dirs.size(), 1u);
    ScoreOptions score_options;
    score_options.ruleset = rs("5.1.0");
    score_options.compliance_rules = &compliance;
    result = score_training_directory(dirs.at(0), data, score_options);
    PackageJudge judge(rules(), data.facts(), {given}, options);
    CheckOptions check_options;
    check_options.package = &judge;
    return check_training_directory(result, data.facts(), check_options);
  }
  CheckReport check() { return check(dir); }

  // "check severity name:line message" of every finding, name "." for the directory.
  std::vector<std::string> rows(const CheckReport& report, const std::string& only = "") const {
    std::vector<std::string> out;
    for (const auto& c : report.checks) {
      for (const auto& f : c.findings) {
        if (!only.empty() && f.check != only) continue;
        std::string name = f.file == dir.string() ? "." : fs::path(f.file).filename().string();
        out.push_back(fmt::format("{} {} {}:{} {}", f.check, to_string(f.severity), name, f.line, f.message));
      }
    }
    return out;
  }

  DataContext data{source_dir()};
  compliance::RuleLibrary compliance = compliance::RuleLibrary::load(source_dir() / "configs/compliance");
  TempDir tmp;
  fs::path org = tmp.path() / "AMD";
  fs::path dir = org / "results/SYS/llama31_8b";
  DirectoryResult result;
};

TEST_F(PackageTest, TheExamplePackagePassesWithTheChecksInOrder) {
  CheckReport report = check();
  EXPECT_TRUE(report.passed());
  EXPECT_TRUE(rows(report).empty()) << fmt::format("{}", fmt::join(rows(report), "\n"));
  std::vector<std::string> ids;
  for (const auto& c : report.checks) ids.push_back(c.check);
  EXPECT_EQ(ids, (std::vector<std::string>{"input_readable", "compliance", "run_stop_status", "quality_target",
                                           "consistency", "run_count", "result_files",
                                           "seeds", "system_description", "power", "olympic_score", "rcp"}));
}

TEST_F(PackageTest, ASeedReusedByAnotherRunFails) {
  replace_first(dir / "result_1.txt", "\"key\": \"seed\", \"value\": 26464", "\"key\": \"seed\", \"value\": 19624");
  CheckReport report = check();
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(rows(report), (std::vector<std::string>{
                              "seeds error result_1.txt:21 logs seed 19624 on /workspace/code/src/callbacks.py:341, as "
                              "result_0.txt already does: each run needs its own seed"}));
}

TEST_F(PackageTest, TheSeedCheckerBypassTurnsItsErrorsIntoWarnings) {
  replace_first(dir / "result_1.txt", "\"key\": \"seed\", \"value\": 26464", "\"key\": \"seed\", \"value\": 19624");
  write_file(dir / "package_checker_params", "seed-checker-bypass");
  CheckReport report = check();
  EXPECT_TRUE(report.passed());
  EXPECT_EQ(rows(report, "seeds"),
            (std::vector<std::string>{"seeds warning result_1.txt:21 logs seed 19624 on /workspace/code/src/callbacks.py:341, "
                                      "as result_0.txt already does: each run needs its own seed (seed checker bypassed by " +
                                      (dir / "package_checker_params").string() + ")"}));
  EXPECT_TRUE(check(dir, {false, true}).passed());  // --seed-checker-bypass

  // With a line break after it, the official code does not take the line: check says why.
  write_file(org / "results/SYS/package_checker_params", "seed-checker-bypass\n");
  fs::remove(dir / "package_checker_params");
  CheckReport broken = check();
  EXPECT_FALSE(broken.passed());
  EXPECT_EQ(rows(broken, "seeds").at(0),
            "seeds warning package_checker_params:1 \"seed-checker-bypass\" is followed by a line break, so the package "
            "checker does not take it (it compares whole lines as readlines() returns them): end the file without a "
            "line break to bypass");
}

TEST_F(PackageTest, AnOpenDivisionSystemSkipsTheSeedChecker) {
  replace_first(dir / "result_1.txt", "\"key\": \"seed\", \"value\": 26464", "\"key\": \"seed\", \"value\": 19624");
  replace_first(org / "systems/SYS.json", "\"closed\"", "\"open\"");
  CheckReport report = check();
  EXPECT_TRUE(rows(report, "seeds").empty());
  EXPECT_TRUE(report.passed());
}

TEST_F(PackageTest, AnEleventhRunAndAStrayFileAreJudgedAsTheOfficialChecker) {
  fs::copy_file(dir / "result_0.txt", dir / "result_10.txt");
  write_file(dir / "notes.txt", "x");
  write_file(dir / "scaling.json", "{}");  // written by the official RCP checker: known
  write_file(dir / ".hidden", "x");        // glob does not see it
  CheckReport report = check();
  EXPECT_FALSE(report.passed());
  auto r = rows(report, "result_files");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], "result_files error .:0 11 result_*.txt files; llama31_8b requires exactly 10");
  EXPECT_EQ(r[1], "result_files warning .:0 files not named result_<N>.txt: notes.txt (the package checker warns; "
                  "rename the runs among them)");
}

TEST_F(PackageTest, AMissingSystemDescriptionFailsAndABrokenOneOfAnotherSystemWhenTheSubmitterIsGiven) {
  write_file(org / "systems/OTHER.json", "{\"division\": \"closed\"}");
  EXPECT_TRUE(check(dir).passed());  // given the benchmark directory: only its own system
  CheckReport whole = check(org);
  EXPECT_FALSE(whole.passed());
  auto r = rows(whole, "system_description");
  ASSERT_EQ(r.size(), 32u);  // every required field but division
  EXPECT_EQ(r[0], "system_description error OTHER.json:0 missing field submitter (another system's description: "
                  "the package checker judges every systems/*.json)");
  fs::remove(org / "systems/OTHER.json");
  fs::remove(org / "systems/SYS.json");
  EXPECT_EQ(rows(check(), "system_description"),
            (std::vector<std::string>{"system_description error SYS.json:0 is missing: the package checker opens it for "
                                      "every benchmark directory of the system and stops without it"}));
}

TEST_F(PackageTest, PowerErrorsCountWithComplianceFailuresAgainstTheDropAllowance) {
  for (int i = 0; i < 10; ++i) write_file(dir / fmt::format("power/result_{}/node_0.txt", i), "");
  EXPECT_TRUE(check().passed());
  fs::remove_all(dir / "power/result_4");
  CheckReport one = check();
  EXPECT_TRUE(one.passed());  // one failing run: accepted under olympic scoring
  EXPECT_EQ(rows(one, "power"), (std::vector<std::string>{"power warning result_4.txt:0 no power result " +
                                                          (dir / "power/result_4").string() + " for this run"}));
  fs::remove_all(dir / "power/result_7");
  CheckReport two = check();
  EXPECT_FALSE(two.passed());
  EXPECT_EQ(rows(two, "olympic_score"),
            (std::vector<std::string>{"olympic_score error .:0 2 of 10 runs fail per-run checks (result_4.txt, "
                                      "result_7.txt); at most 1 may"}));
}

TEST_F(PackageTest, ABenchmarkTheRulesetDoesNotListIsSkipped) {
  fs::path bert = org / "results/SYS/bert";
  fs::rename(dir, bert);
  dir = bert;
  replace_first(org / "systems/SYS.json", "\"Available on-premise\"", "\"available\"");
  CheckReport report = check();
  EXPECT_EQ(rows(report, "result_files"),
            (std::vector<std::string>{"result_files warning .:0 \"bert\" is not a training benchmark of ruleset 5.1.0: the "
                                      "package checker skips this directory (its other findings are warnings)"}));
  EXPECT_TRUE(rows(report, "seeds").empty());
  EXPECT_EQ(rows(report, "system_description").size(), 1u);  // the system description is still judged
  EXPECT_FALSE(report.passed());                               // and fails

  // Nothing else of a skipped folder fails: one run of a stray folder has no olympic mean.
  replace_first(org / "systems/SYS.json", "\"available\"", "\"Available on-premise\"");
  for (int i = 1; i < 10; ++i) fs::remove(dir / fmt::format("result_{}.txt", i));
  CheckReport stray = check();
  EXPECT_TRUE(stray.passed());
  EXPECT_FALSE(rows(stray, "run_count").empty());
  EXPECT_EQ(rows(stray, "run_count").at(0).rfind("run_count warning", 0), 0u);
}

}  // namespace
}  // namespace mlperf
