// The reproducer's path (issue #14): logs named as run scripts name them, a first single
// run, a partial set, and the ruleset guessed from the logs' dates.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::binary;
using testing::q;
using testing::example_system;
using testing::run_command;
using testing::TempDir;


const fs::path kLlama8b = "llama31_8b";

// AMD's ten llama31_8b logs, renamed <DATESTAMP>_<N>.log (N = 1..10 for result_0..9.txt),
// in `dir`, outside any training_results_vX.Y path; a README.txt beside them.
void renamed_logs(const fs::path& dir) {
  fs::create_directories(dir);
  for (int n = 1; n <= 10; ++n) {
    fs::copy_file(example_system() / kLlama8b / ("result_" + std::to_string(n - 1) + ".txt"),
                  dir / ("251009120000_" + std::to_string(n) + ".log"));
  }
  testing::write_file(dir / "README.txt", "notes, no MLLOG here\n");
}

nlohmann::json score_json(const std::string& args, int& status) {
  auto r = run_command(binary() + " score --format json " + args + " 2>/dev/null");
  status = r.status;
  auto doc = nlohmann::json::parse(r.out);
  if (doc["results"].size() != 1) throw std::logic_error("expected one result: " + r.out);
  return doc["results"][0];
}

TEST(CliReproducer, RunScriptNamesScoreWithTheRulesetGiven) {
  TempDir tmp;
  renamed_logs(tmp.path() / "runs");
  int status = -1;
  auto r = score_json("--ruleset 5.1.0 " + q(tmp.path() / "runs"), status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(r["file_rule"], "run-script names");
  ASSERT_EQ(r["runs"].size(), 10u);
  EXPECT_EQ(r["runs"][0]["file"], (tmp.path() / "runs/251009120000_1.log").string());
  EXPECT_EQ(r["runs"][9]["file"], (tmp.path() / "runs/251009120000_10.log").string());
  ASSERT_EQ(r["ignored_files"].size(), 1u);
  EXPECT_EQ(r["ignored_files"][0], (tmp.path() / "runs/README.txt").string());
  EXPECT_EQ(r["ruleset_source"], "--ruleset");
  EXPECT_NEAR(r["score_minutes"].get<double>(), 99.70854353631518, 1e-9);
  EXPECT_EQ(r["verdict"], "passed");
  EXPECT_EQ(r["runs_required"], 10);
  EXPECT_DOUBLE_EQ(r["expected"]["published_minutes"].get<double>(), 99.71);
  EXPECT_EQ(r["expected"]["ruleset"], "5.1.0");
}

TEST(CliReproducer, RunScriptNamesScoreThroughTheGuessedRuleset) {
  TempDir tmp;
  renamed_logs(tmp.path() / "runs");
  int status = -1;
  auto r = score_json(q(tmp.path() / "runs"), status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(r["ruleset"], "5.1.0");
  EXPECT_EQ(r["ruleset_source"], "guessed");
  EXPECT_EQ(r["ruleset_reason"],
            "llama31_8b is in rounds 5.1.0, 6.0.0, 6.1.0; the logs start on 2025-10-08, before 5.1.0 was "
            "published (2025-11-12)");
  EXPECT_NEAR(r["score_minutes"].get<double>(), 99.70854353631518, 1e-9);
  EXPECT_DOUBLE_EQ(r["expected"]["published_minutes"].get<double>(), 99.71);

  auto table = run_command(binary() + " score " + q(tmp.path() / "runs") + " 2>/dev/null");
  EXPECT_NE(table.out.find("score          99.71 minutes   PASSED"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("files      10 taken by run-script names; ignored: README.txt"), std::string::npos);
}

TEST(CliReproducer, MllogContentAndGlobChooseTheFiles) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "runs";
  fs::create_directories(dir);
  for (int n : {1, 2, 10}) {
    fs::copy_file(example_system() / kLlama8b / ("result_" + std::to_string(n - 1) + ".txt"),
                  dir / ("run" + std::to_string(n) + ".log"));
  }
  testing::write_file(dir / "notes.txt", "no MLLOG\n");
  int status = -1;
  auto r = score_json("--ruleset 5.1.0 " + q(dir), status);
  EXPECT_EQ(r["file_rule"], "MLLOG content");
  ASSERT_EQ(r["runs"].size(), 3u);
  EXPECT_EQ(r["runs"][2]["file"], (dir / "run10.log").string());  // natural order
  EXPECT_EQ(r["ignored_files"][0], (dir / "notes.txt").string());
  auto g = score_json("--ruleset 5.1.0 --glob 'run1*.log' " + q(dir), status);
  EXPECT_EQ(g["file_rule"], "--glob run1*.log");
  ASSERT_EQ(g["runs"].size(), 2u);
}

TEST(CliReproducer, ALoneFirstRunIsIncompleteWithItsFiguresAndTheProjection) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "first";
  fs::create_directories(dir);
  fs::copy_file(example_system() / kLlama8b / "result_1.txt", dir / "result_1.txt");
  int status = -1;
  auto r = score_json(q(dir), status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(r["verdict"], "incomplete");
  EXPECT_EQ(r["passed"], false);
  EXPECT_EQ(r["runs_required"], 10);
  EXPECT_EQ(r["ruleset"], "5.1.0");  // guessed from the log's date
  ASSERT_EQ(r["runs"].size(), 1u);
  EXPECT_EQ(r["runs"][0]["role"], "counted");  // a lone run is never trimmed
  const double minutes = r["runs"][0]["minutes"].get<double>();
  EXPECT_NEAR(minutes, 102.68, 0.005);
  EXPECT_TRUE(r["score_minutes"].is_null());
  // The official checker on one run: no olympic mean of samples, so it fails with factor NaN (null).
  EXPECT_EQ(r["rcp"]["passed"], false);
  EXPECT_TRUE(r["rcp"]["normalization_factor"].is_null());
  EXPECT_TRUE(r["rcp"]["rcp_mean"].is_number());
  // The projection: ten runs converging like this one.
  const auto& p = r["projected_rcp"];
  EXPECT_EQ(p["case"], r["rcp"]["case"]);
  EXPECT_TRUE(p["min_mean"].is_number());
  const double samples = r["runs"][0]["samples_to_converge"].get<double>();
  EXPECT_DOUBLE_EQ(p["submission_mean"].get<double>(), samples);
  EXPECT_EQ(p["passed"], true);
  // Ten runs like this one: olympic mean = its minutes, times the RCP factor.
  EXPECT_NEAR(r["projected_score_minutes"].get<double>(), minutes * p["normalization_factor"].get<double>(), 1e-9);
  EXPECT_DOUBLE_EQ(r["expected"]["published_minutes"].get<double>(), 99.71);
  EXPECT_EQ(r["expected"]["projected"], true);

  auto table = run_command(binary() + " score " + q(dir) + " 2>/dev/null");
  EXPECT_EQ(table.status, 0);
  EXPECT_NE(table.out.find("incomplete (1 of 10 runs)"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("published 99.71 minutes (about 100); projected"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("projected RCP  passed"), std::string::npos) << table.out;

  auto check = run_command(binary() + " check " + q(dir) + " >/dev/null 2>&1");
  EXPECT_NE(check.status, 0);  // check still fails run_count
}

TEST(CliReproducer, APublishedFigureOfAnotherRoundNamesIt) {
  TempDir tmp;
  renamed_logs(tmp.path() / "runs");
  // Judged as 6.1.0, which has no published llama31_8b figure: the newest round's (6.0.0).
  auto r = run_command(binary() + " score --ruleset 6.1.0 " + q(tmp.path() / "runs") + " 2>/dev/null");
  EXPECT_NE(r.out.find("published 86.84 minutes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("that figure belongs to round 6.0.0; --ruleset 6.0.0 judges by its rules"), std::string::npos)
      << r.out;
  // Judged as 6.0.0, the round's own figure, and nothing said about another round.
  auto own = run_command(binary() + " score --ruleset 6.0.0 " + q(tmp.path() / "runs") + " 2>/dev/null");
  EXPECT_NE(own.out.find("published 86.84 minutes; measured 99.71"), std::string::npos) << own.out;
  EXPECT_EQ(own.out.find("belongs to round"), std::string::npos) << own.out;
}

TEST(CliReproducer, FiveOfTenRunsAreIncompleteNotPassed) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "training_results_v5.1/AMD/results/MI355X_EPYC_9575F_pytorch/llama31_8b";
  fs::create_directories(dir);
  for (int n = 1; n <= 5; ++n) {
    std::string name = "result_" + std::to_string(n) + ".txt";
    fs::copy_file(example_system() / kLlama8b / name, dir / name);
  }
  int status = -1;
  auto r = score_json(q(dir), status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(r["verdict"], "incomplete");
  // The figures the official summarizer gives five logs (it scores any number of them): the
  // olympic mean of the middle three, times the factor of an RCP check that passes.
  std::vector<double> minutes;
  for (const auto& run : r["runs"]) minutes.push_back(run["minutes"].get<double>());
  std::sort(minutes.begin(), minutes.end());
  ASSERT_EQ(minutes.size(), 5u);
  EXPECT_DOUBLE_EQ(r["olympic_minutes"].get<double>(), (minutes[1] + minutes[2] + minutes[3]) / 3);
  EXPECT_EQ(r["rcp"]["passed"], true);
  EXPECT_DOUBLE_EQ(r["score_minutes"].get<double>(),
                   r["olympic_minutes"].get<double>() * r["rcp"]["normalization_factor"].get<double>());
  EXPECT_TRUE(r["projected_score_minutes"].is_number());
  std::map<std::string, int> roles;
  for (const auto& run : r["runs"]) ++roles[run["role"].get<std::string>()];
  EXPECT_EQ(roles, (std::map<std::string, int>{{"counted", 3}, {"trimmed (fastest)", 1}, {"trimmed (slowest)", 1}}));
  EXPECT_EQ(r["passed"], true);  // the figures pass; the verdict stays incomplete
}

// `score LOG`: the log a run script just wrote, given by its path, is a first single run of
// its folder, with the figures of a folder holding it alone; the folder's other logs are not
// read.
TEST(CliReproducer, ALogGivenByItsPathIsAFirstSingleRun) {
  TempDir tmp;
  renamed_logs(tmp.path() / "runs");
  const fs::path log = tmp.path() / "runs/251009120000_2.log";
  const fs::path alone = tmp.path() / "alone";
  fs::create_directories(alone);
  fs::copy_file(log, alone / log.filename());
  int status = -1;
  auto r = score_json(q(log), status);
  EXPECT_EQ(status, 0);
  auto folder = score_json(q(alone), status);
  EXPECT_EQ(r["directory"], (tmp.path() / "runs").string());
  EXPECT_EQ(r["file_rule"], "the paths given");
  EXPECT_EQ(folder["file_rule"], "run-script names");
  ASSERT_EQ(r["runs"].size(), 1u);
  EXPECT_EQ(r["runs"][0]["file"], log.string());
  EXPECT_TRUE(r["ignored_files"].empty());
  EXPECT_EQ(r["verdict"], "incomplete");
  EXPECT_NEAR(r["runs"][0]["minutes"].get<double>(), 102.68, 0.005);  // AMD's result_1.txt
  for (const char* key : {"verdict", "runs_required", "ruleset", "ruleset_reason", "projected_score_minutes",
                          "projected_rcp", "rcp", "expected"}) {
    EXPECT_EQ(r[key], folder[key]) << key;
  }
  EXPECT_EQ(r["runs"][0]["minutes"], folder["runs"][0]["minutes"]);
  EXPECT_EQ(r["runs"][0]["samples_to_converge"], folder["runs"][0]["samples_to_converge"]);

  auto table = run_command(binary() + " score " + q(log) + " 2>/dev/null");
  EXPECT_EQ(table.status, 0);
  EXPECT_NE(table.out.find("files      1 taken by the paths given; ignored: none"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("incomplete (1 of 10 runs)"), std::string::npos) << table.out;
}

// `score LOG...` (a shell's `runs/*.log`): the logs of one folder given in a row are its runs,
// in natural order, each once; those of another folder are another directory.
TEST(CliReproducer, LogsGivenInARowAreTheirFoldersRuns) {
  TempDir tmp;
  const fs::path runs = tmp.path() / "runs";
  renamed_logs(runs);
  std::string args;
  for (int n : {10, 3, 1, 2, 4, 5, 6, 7, 8, 9, 3}) args += " " + q(runs / ("251009120000_" + std::to_string(n) + ".log"));
  int status = -1;
  auto r = score_json("--ruleset 5.1.0" + args, status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(r["file_rule"], "the paths given");
  ASSERT_EQ(r["runs"].size(), 10u);
  for (int n = 1; n <= 10; ++n) {
    EXPECT_EQ(r["runs"][n - 1]["file"], (runs / ("251009120000_" + std::to_string(n) + ".log")).string());
  }
  // The folder's figures, as when the folder is given.
  auto folder = score_json("--ruleset 5.1.0 " + q(runs), status);
  EXPECT_NEAR(r["score_minutes"].get<double>(), 99.70854353631518, 1e-9);
  EXPECT_EQ(r["score_minutes"], folder["score_minutes"]);
  EXPECT_EQ(r["rcp"], folder["rcp"]);
  EXPECT_EQ(r["verdict"], "passed");

  // A bare name and the same log as ./name, from the folder: one run of ".".
  auto bare = run_command("cd " + q(runs) + " && " + binary() +
                          " score --format json 251009120000_1.log ./251009120000_1.log 2>/dev/null");
  EXPECT_EQ(bare.status, 0);
  auto bare_doc = nlohmann::json::parse(bare.out);
  ASSERT_EQ(bare_doc["results"].size(), 1u) << bare.out;
  EXPECT_EQ(bare_doc["results"][0]["directory"], ".");
  EXPECT_EQ(bare_doc["results"][0]["runs"].size(), 1u);

  // Three logs of runs/, then one of another folder: two directories, in the order given.
  const fs::path other = tmp.path() / "other";
  fs::create_directories(other);
  fs::copy_file(runs / "251009120000_4.log", other / "251009120000_4.log");
  auto two = run_command(binary() + " score --format json" + " " + q(runs / "251009120000_1.log") + " " +
                         q(runs / "251009120000_2.log") + " " + q(runs / "251009120000_3.log") + " " +
                         q(other / "251009120000_4.log") + " 2>/dev/null");
  EXPECT_EQ(two.status, 0);
  auto doc = nlohmann::json::parse(two.out);
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][0]["directory"], runs.string());
  EXPECT_EQ(doc["results"][0]["runs"].size(), 3u);
  EXPECT_EQ(doc["results"][0]["verdict"], "incomplete");
  EXPECT_EQ(doc["results"][1]["directory"], other.string());
  EXPECT_EQ(doc["results"][1]["runs"].size(), 1u);

  // summarize: one system's row, from the ten.
  auto summary = run_command(binary() + " summarize --format json --ruleset 5.1.0" + args + " 2>/dev/null");
  EXPECT_EQ(summary.status, 0);
  auto summarized = nlohmann::json::parse(summary.out)["results"];
  ASSERT_EQ(summarized.size(), 1u) << summary.out;
  EXPECT_EQ(summarized[0]["file_rule"], "the paths given");
  EXPECT_EQ(summarized[0]["score_minutes"], folder["score_minutes"]);

  // compare: the logs given first are the baseline, all ten of them.
  auto compared = run_command(binary() + " compare --format json --ruleset 5.1.0" + args + " " + q(other) + " 2>/dev/null");
  EXPECT_EQ(compared.status, 0);
  auto rows = nlohmann::json::parse(compared.out)["rows"];
  ASSERT_EQ(rows.size(), 2u) << compared.out;
  EXPECT_EQ(rows[0]["is_baseline"], true);
  EXPECT_EQ(rows[0]["counted_runs"], 10);
  EXPECT_EQ(rows[0]["score_minutes"], folder["score_minutes"]);
  EXPECT_EQ(rows[1]["directory"], other.string());
  EXPECT_EQ(rows[1]["counted_runs"], 1);
}

// A loadgen log given by its path stands for its run's folder, and the run folder for its
// scenario folder: `score` and `check` answer as for the scenario folder, with a note on
// stderr; the detail and summary logs given together are one run.
TEST(CliReproducer, ALoadgenLogGivenByItsPathIsItsRunsFolder) {
  const fs::path scenario = testing::source_dir() /
                            "data/examples/inference_results_v5.1/closed/AMD/results/8xMI325x_2xEPYC-9655/"
                            "stable-diffusion-xl/Server";
  const fs::path run = scenario / "performance/run_1";
  for (const char* command : {"score", "check"}) {
    auto folder = run_command(binary() + " " + command + " --format json " + q(scenario) + " 2>&1");
    auto detail = run_command(binary() + " " + command + " --format json " + q(run / "mlperf_log_detail.txt") +
                              " 2>/dev/null");
    auto both = run_command(binary() + " " + command + " --format json " + q(run / "mlperf_log_detail.txt") + " " +
                            q(run / "mlperf_log_summary.txt") + " 2>/dev/null");
    EXPECT_EQ(detail.status, folder.status) << command;
    EXPECT_EQ(detail.out, folder.out) << command;
    EXPECT_EQ(both.out, folder.out) << command;
    auto doc = nlohmann::json::parse(folder.out);
    ASSERT_EQ(doc["results"].size(), 1u) << command;
  }
  auto score = nlohmann::json::parse(
      run_command(binary() + " score --format json " + q(run / "mlperf_log_summary.txt") + " 2>/dev/null").out);
  ASSERT_EQ(score["results"].size(), 1u);
  EXPECT_EQ(score["results"][0]["kind"], "inference");
  EXPECT_EQ(score["results"][0]["log_file"], (run / "mlperf_log_detail.txt").string());
  EXPECT_EQ(run_command(binary() + " score " + q(run) + " 2>&1 >/dev/null").out,
            "mlperf-score: note: " + run.string() + " is the performance run of " + scenario.string() +
                "; reading that folder\n");
}

// A scenario folder's accuracy run and its compliance tests, given by their folders (as an
// engineer who just ran TEST01 would), are judged with their scenario folder: the report is
// the scenario folder's, whose TEST01 line is the test's verdict. In the v5.1 layout the
// tests lie in <org>/compliance/, beside results/.
TEST(CliReproducer, AnAccuracyRunOrComplianceTestGivenIsJudgedWithItsScenarioFolder) {
  const fs::path org = testing::source_dir() / "data/examples/inference_results_v5.1/closed/AMD";
  const fs::path below = "8xMI325x_2xEPYC-9655/stable-diffusion-xl/Server";
  const fs::path scenario = org / "results" / below;
  for (const char* command : {"score", "check"}) {
    const std::string base = binary() + " " + command + " --format json ";
    auto folder = run_command(base + q(scenario) + " 2>&1");
    auto doc = nlohmann::json::parse(folder.out);
    ASSERT_EQ(doc["results"].size(), 1u) << command;
    for (const fs::path& given : {scenario / "accuracy", org / "compliance" / below / "TEST01",
                                  org / "compliance" / below / "TEST04/performance/run_1/mlperf_log_detail.txt",
                                  org / "compliance" / below}) {
      auto part = run_command(base + q(given) + " 2>/dev/null");
      EXPECT_EQ(part.status, folder.status) << command << " " << given;
      EXPECT_EQ(part.out, folder.out) << command << " " << given;
    }
  }
  // The table says which test it is, and where.
  auto table = run_command(binary() + " score " + q(org / "compliance" / below / "TEST01") + " 2>&1");
  EXPECT_NE(table.out.find("mlperf-score: note: " + (org / "compliance" / below / "TEST01").string() +
                           " is compliance test TEST01 of " + scenario.string() + "; reading that folder\n"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("TEST01     VALID   " + (org / "compliance" / below / "TEST01").string()), std::string::npos)
      << table.out;
  // A system's compliance folder holds the tests of that system's scenario folders.
  auto system = run_command(binary() + " score --format json " + q(org / "compliance/8xMI325x_2xEPYC-9655") +
                            " 2>/dev/null");
  auto results = run_command(binary() + " score --format json " + q(org / "results/8xMI325x_2xEPYC-9655") +
                             " 2>/dev/null");
  EXPECT_EQ(system.out, results.out);
  EXPECT_EQ(nlohmann::json::parse(results.out)["results"].size(), 2u);
}

// A compliance test given where no scenario folder holds it (the test's folder copied, or its
// scenario's results/ folder gone) is its own run read on its own: the place its path tells
// (submitter, system, model), the scenario from its log, and a warning that its verdict needs
// the scenario's run. Before, the TEST01 folder was read as the scenario and the scenario
// folder as the model ("no accuracy target for model Server").
TEST(CliReproducer, AComplianceTestWithoutItsScenarioFolderIsItsOwnRun) {
  TempDir tmp;
  const fs::path org = tmp.path() / "inference_results_v5.1/closed/AMD";
  fs::create_directories(org.parent_path());
  fs::copy(testing::source_dir() / "data/examples/inference_results_v5.1/closed/AMD", org, fs::copy_options::recursive);
  const fs::path below = "8xMI325x_2xEPYC-9655/stable-diffusion-xl/Server";
  fs::remove_all(org / "results" / below);
  const fs::path test = org / "compliance" / below / "TEST01";
  for (const fs::path& given : {test, test / "performance/run_1", test / "performance/run_1/mlperf_log_detail.txt"}) {
    auto r = run_command(binary() + " score " + q(given) + " 2>&1");
    EXPECT_EQ(r.status, 0) << given << r.out;
    EXPECT_EQ(r.out.rfind("AMD / 8xMI325x_2xEPYC-9655 / stable-diffusion-xl / Server\n", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("platform   MI325X"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("result     16.2388 Queries/s"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("compliance test TEST01's own run, read on its own"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("accuracy_target"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("note:"), std::string::npos) << r.out;
  }
  // The whole compliance tree: each scenario folder whose run is in results/ is that folder,
  // judged with its tests; the SDXL Server tests, whose scenario folder is gone, their own runs.
  auto tree = nlohmann::json::parse(
      run_command(binary() + " score --format json " + q(org / "compliance") + " 2>/dev/null").out);
  std::vector<std::string> directories;
  for (const auto& r : tree["results"]) directories.push_back(r["directory"].get<std::string>());
  const fs::path results = org / "results";
  EXPECT_EQ(directories, (std::vector<std::string>{
                             (results / "8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive").string(),
                             (results / "8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline").string(),
                             (results / "8xMI300X_2xEPYC_9575F/llama2-70b-99/Server").string(),
                             (results / "8xMI325x_2xEPYC-9655/stable-diffusion-xl/Offline").string(),
                             (test).string(),
                             (org / "compliance" / below / "TEST04").string(),
                         }));
  ASSERT_EQ(tree["results"].size(), 6u);
  EXPECT_EQ(tree["results"][3]["compliance_tests"].size(), 2u);  // TEST01 and TEST04 of SDXL Offline
  EXPECT_TRUE(tree["results"][4]["compliance_tests"].is_null());  // a test's own run: no tests judged
  EXPECT_TRUE(tree["results"][4]["accuracy"].is_null());
  ASSERT_EQ(tree["results"][4]["warnings"].size(), 1u);
}

// An inference run of one's own, outside <org>/results/<system>/<model>/<scenario>: the run
// is judged (its figure, validity, the accuracy run and compliance tests where they lie beside
// it), not how a submission packs it; a folder name is no platform, and --probe tags one.
TEST(CliReproducer, AnInferenceRunOfOnesOwnIsJudgedAsARunNotAsAPackage) {
  TempDir tmp;
  const fs::path amd = testing::source_dir() / "data/examples/inference_results_v5.1/closed/AMD";
  const fs::path offline = amd / "results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline";
  const fs::path own = tmp.path() / "node1/llama2-70b-99/Offline";
  fs::create_directories(own / "performance");
  fs::copy(offline / "performance/run_1", own / "performance/run_1", fs::copy_options::recursive);
  testing::write_file(own / "performance/run_1/harness.log", "the harness's own output\n");

  int status = -1;
  auto r = score_json(q(own), status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(r["model"], "llama2-70b-99");
  EXPECT_EQ(r["scenario"], "Offline");
  EXPECT_NEAR(r["performance_result"].get<double>(), 27803.9, 1e-9);
  EXPECT_EQ(r["units"], "Tokens/s");
  EXPECT_EQ(r["valid"], true) << r;
  EXPECT_TRUE(r["platform"].is_null()) << r;  // "node1" is a folder, not a platform
  EXPECT_TRUE(r["accuracy"].is_null()) << r;
  EXPECT_TRUE(r["compliance_tests"].is_null()) << r;
  for (const auto& c : r["checks"]) EXPECT_NE(c["name"], "performance_files") << c;  // no file list asked
  const std::string warnings = r["warnings"].dump();
  EXPECT_NE(warnings.find("no accuracy folder; the accuracy run is not judged"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("compliance tests TEST06 not judged (no TEST0x folder beside the run)"), std::string::npos)
      << warnings;
  // check passes it, and says what was not judged.
  auto checked = run_command(binary() + " check --format json " + q(own) + " 2>/dev/null");
  EXPECT_EQ(checked.status, 0);
  std::vector<std::string> check_warnings;
  const auto check_doc = nlohmann::json::parse(checked.out);
  for (const auto& c : check_doc["results"][0]["checks"]) {
    if (c["check"] != "score_warnings") continue;
    for (const auto& f : c["findings"]) {
      EXPECT_EQ(f["severity"], "warning");
      EXPECT_EQ(f["file"], own.string());
      check_warnings.push_back(f["message"]);
    }
  }
  EXPECT_EQ(check_warnings, (std::vector<std::string>{
                                "no accuracy folder; the accuracy run is not judged",
                                "compliance tests TEST06 not judged (no TEST0x folder beside the run)"}));

  // The accuracy run and TEST06 beside it are judged, as in a submission; not what packing
  // one makes of the accuracy folder: its accuracy log whole (20,000 bytes, where a
  // submission's is truncated to 10,240) and the evaluation's own output beside it.
  fs::copy(offline / "accuracy", own / "accuracy", fs::copy_options::recursive);
  testing::write_file(own / "accuracy/mlperf_log_accuracy.json", "[\n" + std::string(20000, ' ') + "]\n");
  testing::write_file(own / "accuracy/evaluation.log", "ROUGE scores computed\n");
  fs::copy(amd / "compliance/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline/TEST06", own / "TEST06",
           fs::copy_options::recursive);
  r = score_json(q(own), status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(r["valid"], true) << r;
  EXPECT_EQ(r["accuracy"]["column"], "ROUGE1: 44.4465  ROUGE2: 22.0638  ROUGEL: 28.625  TOKENS_PER_SAMPLE: 301.1");
  EXPECT_EQ(r["accuracy"]["files_valid"], true) << r["accuracy"];
  for (const auto& c : r["accuracy"]["file_checks"]) {
    EXPECT_TRUE(c["name"] != "accuracy_files" && c["name"] != "accuracy_log") << c;
  }
  ASSERT_EQ(r["compliance_tests"].size(), 1u) << r;
  EXPECT_EQ(r["compliance_tests"][0]["test"], "TEST06");
  EXPECT_EQ(r["compliance_tests"][0]["valid"], true);

  // With --probe, this node's GPUs tag the run, and the published figure is found.
  auto probed = run_command("env MLPERF_SCORE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "
                            "MLPERF_SCORE_HIP_LIBRARY=/nonexistent/libamdhip64.so " +
                            binary() + " score --format json --probe --sysfs-root " +
                            q(testing::source_dir() / "tests/data/sysfs/mi300x") + " " + q(own) + " 2>/dev/null");
  EXPECT_EQ(probed.status, 0);
  auto p = nlohmann::json::parse(probed.out)["results"][0];
  EXPECT_EQ(p["platform"], "MI300X");
  EXPECT_NEAR(p["expected"]["published"].get<double>(), 27803.9, 1e-9) << p;
  EXPECT_EQ(p["expected"]["within_tolerance"], true) << p;

  // A scenario folder named by the harness (offline_b2): the scenario loadgen logged.
  const fs::path named = tmp.path() / "node1/llama2-70b-99/offline_b2";
  fs::create_directories(named / "performance");
  fs::copy(offline / "performance/run_1", named / "performance/run_1", fs::copy_options::recursive);
  r = score_json(q(named), status);
  EXPECT_EQ(r["model"], "llama2-70b-99");
  EXPECT_EQ(r["scenario"], "Offline");
  EXPECT_NEAR(r["performance_result"].get<double>(), 27803.9, 1e-9);

  // The logs alone in <model>/<scenario>: the folder above the model is the system.
  const fs::path loose = tmp.path() / "node2/llama2-70b-99/Offline";
  fs::create_directories(loose.parent_path());
  fs::copy(offline / "performance/run_1", loose, fs::copy_options::recursive);
  r = score_json(q(loose), status);
  EXPECT_EQ(r["system"], "node2");
  EXPECT_EQ(r["model"], "llama2-70b-99");
  EXPECT_EQ(r["scenario"], "Offline");
  EXPECT_EQ(r["units"], "Tokens/s");

  // The logs alone, in a folder no model names: the scenario's own key, and a warning
  // naming the token figure the log holds beside it.
  const fs::path bare = tmp.path() / "harness_out";
  fs::copy(offline / "performance/run_1", bare, fs::copy_options::recursive);
  r = score_json(q(bare), status);
  EXPECT_EQ(r["scenario"], "Offline");
  EXPECT_EQ(r["metric"], "result_samples_per_second");
  const std::string bare_warnings = r["warnings"].dump();
  EXPECT_NE(bare_warnings.find("no folder of its path names a model the rules know"), std::string::npos)
      << bare_warnings;
  EXPECT_NE(bare_warnings.find("the log also holds result_tokens_per_second = 27803.9 (line "), std::string::npos)
      << bare_warnings;
}

}  // namespace
}  // namespace mlperf
