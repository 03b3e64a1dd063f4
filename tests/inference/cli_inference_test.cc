// The CLI on inference trees: score (JSON fields, beside training), check (exit 1 with file
// and line), summarize (a column per model and scenario), compare, and the v5.1 corpus.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>
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
using testing::write_file;


TEST(CliInference, ScoreReportsInferenceAndTrainingFoldersSideBySide) {
  auto before = testing::snapshot(source_dir() / "data/examples");
  auto r = run_command(binary() + " score --format json " + q(source_dir() / "data/examples") + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  int training = 0, inference = 0;
  for (const auto& d : doc["results"]) {
    if (d["kind"] == "training") ++training;
    if (d["kind"] != "inference") continue;
    ++inference;
    if (d["directory"].get<std::string>().ends_with("8xMI300X_2xEPYC-9374F/llama2-70b-99.9/Server")) {
      EXPECT_EQ(d["division"], "closed");
      EXPECT_EQ(d["submitter"], "AMD");
      EXPECT_EQ(d["system"], "8xMI300X_2xEPYC-9374F");
      EXPECT_EQ(d["model"], "llama2-70b-99.9");
      EXPECT_EQ(d["scenario"], "Server");
      EXPECT_EQ(d["metric"], "result_completed_tokens_per_second");
      EXPECT_DOUBLE_EQ(d["performance_result"].get<double>(), 21028.2);
      EXPECT_EQ(d["units"], "Tokens/s");
      EXPECT_EQ(d["valid"], true);
      EXPECT_EQ(d["platform"], "MI300X");
      EXPECT_DOUBLE_EQ(d["expected"]["published"].get<double>(), 21028.2);
      EXPECT_EQ(d["expected"]["within_tolerance"], true);
      EXPECT_GE(d["checks"].size(), 6u);
    }
  }
  EXPECT_EQ(training, 7);
  EXPECT_EQ(inference, 9);
  EXPECT_EQ(testing::snapshot(source_dir() / "data/examples"), before);  // never writes into its input
}

// A Llama 2 70B Offline folder whose ROUGE1 misses its target (the first case) fails
// `check` with a finding naming accuracy.txt and its line; the JSON carries the accuracy object.
TEST(CliInference, AnAccuracyBelowTargetFailsCheckNamingTheFileAndLine) {
  TempDir tmp;
  fs::path root = tmp.path() / "inference_results_v5.1";
  fs::copy(source_dir() / "data/examples/inference_results_v5.1", root, fs::copy_options::recursive);
  fs::path scenario = root / "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline";
  std::string text = testing::read_file(scenario / "accuracy/accuracy.txt");
  text.replace(text.find("'rouge1': 44.4465"), 17, "'rouge1': 10.0");
  write_file(scenario / "accuracy/accuracy.txt", text);

  auto check = run_command(binary() + " check --format json " + q(root) + " 2>&1");
  EXPECT_EQ(check.status, 1) << check.out;
  auto doc = nlohmann::json::parse(check.out);
  int failed = 0;
  for (const auto& d : doc["results"]) {
    for (const auto& c : d["checks"]) {
      if (c["check"] != "accuracy" || c["findings"].empty()) continue;
      ++failed;
      EXPECT_TRUE(d["directory"].get<std::string>().ends_with("llama2-70b-99/Offline"));
      EXPECT_EQ(c["findings"][0]["line"], 4);
      EXPECT_TRUE(c["findings"][0]["file"].get<std::string>().ends_with("Offline/accuracy/accuracy.txt"));
    }
  }
  EXPECT_EQ(failed, 1);

  auto score = run_command(binary() + " score --format json " + q(scenario) + " 2>&1");
  auto result = nlohmann::json::parse(score.out)["results"][0];
  EXPECT_EQ(result["valid"], false);
  EXPECT_EQ(result["accuracy"]["valid"], false);
  EXPECT_DOUBLE_EQ(result["accuracy"]["metrics"]["ROUGE1"].get<double>(), 10.0);
  EXPECT_EQ(result["accuracy"]["column"], "ROUGE1: 10.0  ROUGE2: 22.0638  ROUGEL: 28.625  TOKENS_PER_SAMPLE: 301.1");
}

// The cases on copies of AMD's v5.1 folders: a Llama 2 70B Offline folder whose rouge1
// is 10.0 and whose TEST06 is gone, and an SDXL Offline folder whose FID is 40.5 and whose
// TEST01 verify_performance.txt says TEST FAIL. `check` exits 1 with a finding per failure,
// each naming its file (and line); the JSON gives the tests' verdicts.
TEST(CliInference, FailedComplianceTestsAndAccuracyFailCheckNamingTheirFiles) {
  TempDir tmp;
  fs::path root = tmp.path() / "inference_results_v5.1";
  fs::copy(source_dir() / "data/examples/inference_results_v5.1", root, fs::copy_options::recursive);
  fs::path amd = root / "closed/AMD";
  fs::path llama = amd / "results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline";
  std::string text = testing::read_file(llama / "accuracy/accuracy.txt");
  text.replace(text.find("'rouge1': 44.4465"), 17, "'rouge1': 10.0");
  write_file(llama / "accuracy/accuracy.txt", text);
  fs::remove_all(amd / "compliance/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline/TEST06");
  // Kept non-empty: an empty folder would make the checker reject the whole submitter.
  write_file(amd / "compliance/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline/README.md", "TEST06 lost\n");
  fs::path sdxl = amd / "results/8xMI325x_2xEPYC-9655/stable-diffusion-xl/Offline";
  text = testing::read_file(sdxl / "accuracy/accuracy.txt");
  const std::size_t fid = text.find("'FID_SCORE': ") + 13;
  text.replace(fid, text.find_first_of(",}", fid) - fid, "40.5");
  write_file(sdxl / "accuracy/accuracy.txt", text);
  fs::path verify = amd / "compliance/8xMI325x_2xEPYC-9655/stable-diffusion-xl/Offline/TEST01/verify_performance.txt";
  text = testing::read_file(verify);
  text.replace(text.find("TEST PASS"), 9, "TEST FAIL");
  write_file(verify, text);

  auto check = run_command(binary() + " check --format json " + q(root) + " 2>&1");
  EXPECT_EQ(check.status, 1) << check.out;
  std::map<std::string, std::vector<std::string>> failed;  // scenario folder → failed checks
  const nlohmann::json doc = nlohmann::json::parse(check.out);  // kept: the loop refers into it
  for (const auto& d : doc["results"]) {
    const std::string dir = d["directory"];
    for (const auto& c : d["checks"]) {
      for (const auto& f : c["findings"]) {
        if (f["severity"] != "error") continue;
        failed[dir.substr(dir.rfind("/results/") + 9)].push_back(c["check"].get<std::string>() + " " +
                                                              fs::path(f["file"].get<std::string>()).filename().string());
      }
    }
  }
  using V = std::vector<std::string>;
  EXPECT_EQ(failed["8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline"],
            (V{"accuracy accuracy.txt", "compliance_TEST06 TEST06", "compliance_TEST06 verify_accuracy.txt"}));
  EXPECT_EQ(failed["8xMI325x_2xEPYC-9655/stable-diffusion-xl/Offline"],
            (V{"accuracy accuracy.txt", "compliance_TEST01 verify_performance.txt"}));
  EXPECT_EQ(failed.size(), 2u);  // the other five folders pass

  auto score = run_command(binary() + " score --format json " + q(sdxl) + " 2>&1");
  auto result = nlohmann::json::parse(score.out)["results"][0];
  EXPECT_EQ(result["valid"], false);
  ASSERT_EQ(result["compliance_tests"].size(), 2u);
  EXPECT_EQ(result["compliance_tests"][0]["test"], "TEST01");
  EXPECT_EQ(result["compliance_tests"][0]["valid"], false);
  EXPECT_EQ(result["compliance_tests"][1]["test"], "TEST04");
  EXPECT_EQ(result["compliance_tests"][1]["valid"], true);
  EXPECT_DOUBLE_EQ(result["accuracy"]["metrics"]["FID_SCORE"].get<double>(), 40.5);
  EXPECT_EQ(result["accuracy"]["files_valid"], true);
}

fs::path v41_offline() {
  return source_dir() / "data/examples/inference_results_v4.1/closed/AMD/results/8xMI300X_2xEPYC-9374F/llama2-70b-99.9/Offline";
}

// AMD's v4.1 Offline run copied to `dir` with `from` (a key and its value, as logged) made
// `to`; returns the copied log and the line changed.
std::pair<fs::path, std::size_t> amd_offline_with(const fs::path& dir, const std::string& from, const std::string& to) {
  fs::path src = v41_offline();
  fs::path log = dir / "performance/run_1/mlperf_log_detail.txt";
  std::string text = testing::read_file(src / "performance/run_1/mlperf_log_detail.txt");
  std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at == std::string::npos) return {log, 0};
  text.replace(at, from.size(), to);
  write_file(log, text);
  return {log, 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'))};
}

TEST(CliInference, CheckFailsAnInvalidRunWithFileAndLine) {
  TempDir tmp;
  fs::path dir = tmp.path() / "closed/AMD/results/sys/llama2-70b-99.9/Offline";
  auto [log, line] = amd_offline_with(dir, "\"key\": \"result_validity\", \"value\": \"VALID\"",
                                      "\"key\": \"result_validity\", \"value\": \"INVALID\"");
  auto ok = run_command(binary() + " check " + q(v41_offline()) + " 2>&1");
  EXPECT_EQ(ok.status, 0) << ok.out;
  auto r = run_command(binary() + " check --format github " + q(dir) + " 2>&1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("::error file=" + log.string() + ",line=" + std::to_string(line) +
                       ",title=loadgen_result_validity::"),
            std::string::npos)
      << r.out;
}

// A log loadgen wrote in accuracy mode, given as a run of its own, has no performance result;
// the report says which line tells the mode, and where an accuracy run is judged.
TEST(CliInference, AnAccuracyModeLogSaysItIsNoPerformanceRun) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "my_accuracy_run";
  auto [log, line] = amd_offline_with(dir, "\"key\": \"effective_test_mode\", \"value\": \"PerformanceOnly\"",
                                      "\"key\": \"effective_test_mode\", \"value\": \"AccuracyOnly\"");
  const fs::path bare = dir / "mlperf_log_detail.txt";
  fs::rename(log, bare);
  auto r = run_command(binary() + " score " + q(dir) + " 2>&1");
  EXPECT_NE(r.out.find(fmt::format("warning: {}:{}: effective_test_mode is \"AccuracyOnly\", not a performance run: "
                                   "loadgen logs no performance result in this mode (an accuracy run is judged from "
                                   "accuracy/accuracy.txt beside its scenario's performance/run_1: give that scenario "
                                   "folder)",
                                   bare.string(), line)),
            std::string::npos)
      << r.out;
  // A performance run says nothing of its mode.
  auto ok = run_command(binary() + " score " + q(v41_offline()) + " 2>&1");
  EXPECT_EQ(ok.out.find("effective_test_mode"), std::string::npos) << ok.out;
}

// A run made with another round's seeds is not a valid result of this one.
TEST(CliInference, CheckFailsARunWithAnotherRoundsSeed) {
  TempDir tmp;
  fs::path dir = tmp.path() / "inference_results_v4.1/closed/AMD/results/sys/llama2-70b-99.9/Offline";
  auto [log, line] = amd_offline_with(dir, "\"key\": \"effective_schedule_rng_seed\", \"value\": 14962580496156340209",
                                      "\"key\": \"effective_schedule_rng_seed\", \"value\": 9933818062894767841");
  auto r = run_command(binary() + " check " + q(dir) + " 2>&1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(fmt::format("performance/run_1/mlperf_log_detail.txt:{}: ", line)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("schedule_rng_seed is not the round's seed: value 9933818062894767841, limit 14962580496156340209"),
            std::string::npos)
      << r.out;
}

// Every folder of AMD's v5.1 example passes the submission-level rules (folder tree, system
// description, measurements, required scenarios); a measurements file removed drops that
// scenario's row, a missing Server/Interactive keeps the Offline row but fails `check`, and an
// empty folder withholds every row of the submitter, as the official checker v5.1.1 judges.
TEST(CliInference, SubmissionRulesJudgeTheTreeSystemsMeasurementsAndScenarios) {
  const fs::path examples = source_dir() / "data/examples/inference_results_v5.1";
  auto clean = run_command(binary() + " score --format json " + q(examples) + " 2>&1");
  ASSERT_EQ(clean.status, 0) << clean.out;
  const nlohmann::json doc = nlohmann::json::parse(clean.out);
  ASSERT_EQ(doc["results"].size(), 5u);
  for (const auto& d : doc["results"]) {
    EXPECT_EQ(d["valid"], true) << d["directory"];
    ASSERT_TRUE(d["submission"].is_object()) << d["directory"];
    EXPECT_EQ(d["submission"]["valid"], true) << d["directory"];
    std::vector<std::string> names;
    for (const auto& c : d["submission"]["checks"]) names.push_back(c["name"]);
    for (const char* n : {"empty_dirs", "calibration", "system_description", "system_description_fields",
                          "measurements_files", "measurements_json_fields", "code_dir", "required_scenarios"}) {
      EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n << " in " << d["directory"];
    }
  }

  auto folders = [](const std::string& out) {
    std::map<std::string, bool> valid;  // <system>/<model>/<scenario> → valid
    const nlohmann::json j = nlohmann::json::parse(out);
    for (const auto& d : j["results"]) {
      const std::string dir = d["directory"];
      valid[dir.substr(dir.rfind("/results/") + 9)] = d["valid"];
    }
    return valid;
  };
  {
    TempDir tmp;
    const fs::path root = tmp.path() / "inference_results_v5.1";
    fs::copy(examples, root, fs::copy_options::recursive);
    const fs::path user_conf = root / "closed/AMD/measurements/8xMI325x_2xEPYC-9655/stable-diffusion-xl/Server/user.conf";
    fs::remove(user_conf);
    auto score = run_command(binary() + " score --format json " + q(root) + " 2>/dev/null");
    auto valid = folders(score.out);
    EXPECT_EQ(valid["8xMI325x_2xEPYC-9655/stable-diffusion-xl/Server"], false);
    EXPECT_EQ(valid["8xMI325x_2xEPYC-9655/stable-diffusion-xl/Offline"], true);
    auto check = run_command(binary() + " check " + q(root) + " 2>&1");
    EXPECT_EQ(check.status, 1);
    EXPECT_NE(check.out.find("submission_measurements_files"), std::string::npos) << check.out;
    EXPECT_NE(check.out.find("user.conf missing"), std::string::npos) << check.out;
  }
  {
    TempDir tmp;
    const fs::path root = tmp.path() / "inference_results_v5.1";
    fs::copy(examples, root, fs::copy_options::recursive);
    for (const char* part : {"results", "compliance", "measurements"}) {
      for (const char* scenario : {"Server", "Interactive"}) {
        fs::remove_all(root / "closed/AMD" / part / "8xMI300X_2xEPYC_9575F/llama2-70b-99" / scenario);
      }
    }
    auto valid = folders(run_command(binary() + " score --format json " + q(root) + " 2>/dev/null").out);
    EXPECT_EQ(valid.size(), 3u);
    EXPECT_EQ(valid["8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline"], true);  // the row stays (v5.1 script)
    auto check = run_command(binary() + " check " + q(root) + " 2>&1");
    EXPECT_EQ(check.status, 1);
    EXPECT_NE(check.out.find("one of Server and Interactive is required"), std::string::npos) << check.out;
  }
  {
    TempDir tmp;
    const fs::path root = tmp.path() / "inference_results_v5.1";
    fs::copy(examples, root, fs::copy_options::recursive);
    fs::create_directories(root / "closed/AMD/code/stable-diffusion-xl/notes");
    auto valid = folders(run_command(binary() + " score --format json " + q(root) + " 2>/dev/null").out);
    ASSERT_EQ(valid.size(), 5u);
    for (const auto& [dir, ok] : valid) EXPECT_FALSE(ok) << dir;
    auto check = run_command(binary() + " check " + q(root) + " 2>&1");
    EXPECT_EQ(check.status, 1);
    EXPECT_NE(check.out.find("closed/AMD/code/stable-diffusion-xl/notes"), std::string::npos) << check.out;
  }
}

TEST(CliInference, SummarizeShowsTheAccuracyColumnBesideEachFigure) {
  const fs::path examples = source_dir() / "data/examples/inference_results_v5.1";
  auto json = run_command(binary() + " summarize --format json " + q(examples) + " 2>&1");
  ASSERT_EQ(json.status, 0) << json.out;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["systems"][0]["accuracy"]["llama2-70b-99/Offline"],
            "ROUGE1: 44.4465  ROUGE2: 22.0638  ROUGEL: 28.625  TOKENS_PER_SAMPLE: 301.1");
  auto csv = run_command(binary() + " summarize --format csv " + q(examples) + " 2>&1");
  ASSERT_EQ(csv.status, 0) << csv.out;
  const std::string header = csv.out.substr(0, csv.out.find('\n'));
  EXPECT_NE(header.find("llama2-70b-99/Offline,llama2-70b-99/Offline Accuracy"), std::string::npos) << header;
  EXPECT_NE(csv.out.find("27803.9,ROUGE1: 44.4465  ROUGE2: 22.0638  ROUGEL: 28.625  TOKENS_PER_SAMPLE: 301.1"),
            std::string::npos)
      << csv.out;
  auto table = run_command(binary() + " summarize " + q(examples) + " 2>&1");
  EXPECT_NE(table.out.find("stable-diffusion-xl/Offline Accuracy"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("CLIP_SCORE: "), std::string::npos) << table.out;
}

TEST(CliInference, SummarizeHasOneRowPerSystemAndAColumnPerModelAndScenario) {
  auto r = run_command(binary() + " summarize --format json " +
                       q(source_dir() / "data/examples/inference_results_v5.1") + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["systems"].size(), 2u);
  const auto& mi300x = doc["systems"][0];
  EXPECT_EQ(mi300x["system"], "8xMI300X_2xEPYC_9575F");
  EXPECT_DOUBLE_EQ(mi300x["scores"]["llama2-70b-99/Offline"].get<double>(), 27803.9);
  EXPECT_DOUBLE_EQ(mi300x["scores"]["llama2-70b-99/Interactive"].get<double>(), 8840.42);
  EXPECT_DOUBLE_EQ(doc["systems"][1]["scores"]["stable-diffusion-xl/Server"].get<double>(), 16.2044);
}

TEST(CliInference, CorpusMatchesTheOfficialTable) {
  fs::path tool = source_dir().parent_path() / "shared/tools/verify-inference";
  if (!fs::exists(tool)) GTEST_SKIP() << "../shared is absent: the v5.1 inference corpus check is skipped";
  auto r = run_command(q(tool) + " " + binary() + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.out.substr(r.out.size() > 4000 ? r.out.size() - 4000 : 0);
  EXPECT_NE(r.out.find("1436 passed, 0 failed"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace mlperf::inference
