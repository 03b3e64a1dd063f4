// The compliance tests of a scenario folder (TEST01, TEST04, TEST06, …) and the accuracy
// folder's files, judged as the submission checker of each round judges them, on AMD's real
// v5.1 folders from data/examples (copied from mlcommons/inference_results_v5.1) and on
// mutants of them.

#include "mlperf/inference/compliance_tests.h"

#include <gtest/gtest.h>

#include "../test_support.h"
#include "mlperf/inference/accuracy.h"
#include "mlperf/inference/score.h"

namespace mlperf::inference {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::replace_first;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;

const InferenceData& data() {
  static const InferenceData d = load_inference_data(source_dir());
  return d;
}

const std::string kAmd = "inference_results_v5.1/closed/AMD";
const std::string kSdxl = "results/8xMI325x_2xEPYC-9655/stable-diffusion-xl";
const std::string kSdxlCompliance = "compliance/8xMI325x_2xEPYC-9655/stable-diffusion-xl";
const std::string kLlama = "results/8xMI300X_2xEPYC_9575F/llama2-70b-99";
const std::string kLlamaCompliance = "compliance/8xMI300X_2xEPYC_9575F/llama2-70b-99";

// A copy of AMD's v5.1 example submission (results, compliance, systems) under `tmp`.
fs::path amd_copy(const TempDir& tmp) {
  const fs::path root = tmp.path() / kAmd;
  fs::create_directories(root.parent_path());
  fs::copy(source_dir() / "data/examples" / kAmd, root, fs::copy_options::recursive);
  return root;
}

std::vector<ComplianceTestResult> judge(const fs::path& scenario_dir, const std::string& model,
                                        const std::string& scenario, const std::string& round = "v5.1",
                                        const std::string& division = "closed") {
  CompliancePerformanceContext ctx{&data().rules, &data().keys_read, round, model, scenario, division};
  return judge_compliance_tests(scenario_dir, data().compliance.rounds.at(round), model,
                                &data().accuracy.rounds.at(round), ctx);
}

const ValidityCheck* find(const ComplianceTestResult& t, const std::string& name) {
  for (const auto& c : t.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

TEST(ComplianceTests, RulesListTheTestsEachRoundsCheckerAsks) {
  const ComplianceRules& r = data().compliance;
  using V = std::vector<std::string>;
  EXPECT_EQ(r.rounds.at("v5.1").tests.at("llama2-70b-99"), (V{"TEST06"}));
  EXPECT_EQ(r.rounds.at("v5.1").tests.at("stable-diffusion-xl"), (V{"TEST01", "TEST04"}));
  EXPECT_EQ(r.rounds.at("v5.1").tests.at("llama3.1-8b-edge"), V{});
  EXPECT_EQ(r.rounds.at("v4.1").tests.at("resnet"), (V{"TEST01", "TEST04", "TEST05"}));
  EXPECT_EQ(r.rounds.at("v5.0").tests.at("rgat"), (V{"TEST01"}));
  EXPECT_EQ(r.rounds.at("v6.0").tests.at("dlrm-v3"), (V{"TEST08"}));
  EXPECT_EQ(r.rounds.at("v5.1").location, "compliance");
  EXPECT_EQ(r.rounds.at("v6.0").location, "results");
  EXPECT_EQ(r.rounds.at("v6.1").checker, "ComplianceCheck");
  EXPECT_EQ(r.rounds.at("v5.1").delta_percent_of("stable-diffusion-xl", "FID_SCORE"), 2.0);
  EXPECT_EQ(r.rounds.at("v5.1").delta_percent_of("bert-99.9", "F1"), 0.1);
  EXPECT_EQ(r.rounds.at("v5.1").delta_percent_of("resnet", "acc"), 1.0);
}

TEST(ComplianceTests, AmdsPublishedFoldersPassEveryTest) {
  const fs::path root = source_dir() / "data/examples" / kAmd;
  auto sdxl = judge(root / kSdxl / "Offline", "stable-diffusion-xl", "Offline");
  ASSERT_EQ(sdxl.size(), 2u);
  EXPECT_EQ(sdxl[0].test, "TEST01");
  EXPECT_EQ(sdxl[1].test, "TEST04");
  for (const auto& t : sdxl) {
    EXPECT_TRUE(t.valid) << t.test;
    EXPECT_NE(find(t, "performance_run"), nullptr) << t.test;  // its own run judged
    EXPECT_EQ(t.dir, (root / kSdxlCompliance / "Offline" / t.test).string());
  }
  EXPECT_NE(find(sdxl[0], "accuracy_files"), nullptr);
  for (const char* s : {"Offline", "Server", "Interactive"}) {
    auto llama = judge(root / kLlama / s, "llama2-70b-99", s);
    ASSERT_EQ(llama.size(), 1u);
    EXPECT_EQ(llama[0].test, "TEST06");
    EXPECT_TRUE(llama[0].valid) << s;
    EXPECT_TRUE(find(llama[0], "eos")->passed);
  }
  EXPECT_TRUE(judge(root / kLlama / "Offline", "llama2-70b-99", "Offline", "v5.1", "open").empty());
}

// The SDXL case: TEST01's verify_performance.txt says TEST FAIL.
TEST(ComplianceTests, ATest01PerformanceFailNamesTheFileAndLine) {
  TempDir tmp;
  const fs::path root = amd_copy(tmp);
  const fs::path verify = root / kSdxlCompliance / "Offline/TEST01/verify_performance.txt";
  replace_first(verify, "TEST PASS", "TEST FAIL");
  auto tests = judge(root / kSdxl / "Offline", "stable-diffusion-xl", "Offline");
  ASSERT_EQ(tests.size(), 2u);
  EXPECT_FALSE(tests[0].valid);
  EXPECT_TRUE(tests[1].valid);
  const ValidityCheck* c = find(tests[0], "verify_performance");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_EQ(c->value, "TEST FAIL");
  EXPECT_GT(c->line, 0u);
  EXPECT_NE(c->message.find(verify.string() + ":" + std::to_string(c->line)), std::string::npos) << c->message;
}

// The Llama case: TEST06 gone; and a TEST06 whose EOS check failed.
TEST(ComplianceTests, AMissingOrFailedTest06FailsTheFolder) {
  TempDir tmp;
  const fs::path root = amd_copy(tmp);
  fs::remove_all(root / kLlamaCompliance / "Offline/TEST06");
  auto gone = judge(root / kLlama / "Offline", "llama2-70b-99", "Offline");
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_FALSE(gone[0].valid);
  EXPECT_FALSE(find(gone[0], "test_folder")->passed);
  EXPECT_FALSE(find(gone[0], "verify_accuracy")->passed);

  const fs::path verify = root / kLlamaCompliance / "Server/TEST06/verify_accuracy.txt";
  replace_first(verify, "EOS check pass: True", "EOS check pass: False");
  auto eos = judge(root / kLlama / "Server", "llama2-70b-99", "Server");
  ASSERT_EQ(eos.size(), 1u);
  EXPECT_FALSE(eos[0].valid);
  const ValidityCheck* c = find(eos[0], "eos");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_EQ(c->value, "EOS check pass: False");
  EXPECT_TRUE(find(eos[0], "first_token")->passed);
  EXPECT_NE(c->message.find(verify.string() + ":"), std::string::npos);

  fs::remove_all(root / "compliance");
  auto none = judge(root / kLlama / "Interactive", "llama2-70b-99", "Interactive");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_FALSE(find(none[0], "compliance_folder")->passed);
}

// TEST01 without TEST PASS: the checker's non-deterministic mode compares the baseline and
// compliance accuracies, FID within 2 % and CLIP within 1 % for SDXL.
TEST(ComplianceTests, Test01NonDeterministicModeJudgesTheAccuracyDelta) {
  TempDir tmp;
  const fs::path root = amd_copy(tmp);
  const fs::path test = root / kSdxlCompliance / "Offline/TEST01";
  replace_first(test / "verify_accuracy.txt", "TEST PASS", "TEST FAIL");
  auto missing = judge(root / kSdxl / "Offline", "stable-diffusion-xl", "Offline");
  EXPECT_FALSE(missing[0].valid);
  EXPECT_EQ(find(missing[0], "accuracy_files")->value["missing"],
            (nlohmann::json{"baseline_accuracy.txt", "compliance_accuracy.txt"}));

  write_file(test / "accuracy/baseline_accuracy.txt", "{'FID_SCORE': 23.90, 'CLIP_SCORE': 31.74}\n");
  write_file(test / "accuracy/compliance_accuracy.txt", "{'FID_SCORE': 24.20, 'CLIP_SCORE': 31.70}\n");
  auto within = judge(root / kSdxl / "Offline", "stable-diffusion-xl", "Offline");
  EXPECT_TRUE(within[0].valid) << within[0].checks.back().message;

  write_file(test / "accuracy/compliance_accuracy.txt", "{'FID_SCORE': 25.00, 'CLIP_SCORE': 31.70}\n");
  auto beyond = judge(root / kSdxl / "Offline", "stable-diffusion-xl", "Offline");
  EXPECT_FALSE(beyond[0].valid);
  const ValidityCheck& c = beyond[0].checks.back();
  EXPECT_EQ(c.name, "accuracy_delta");
  EXPECT_EQ(c.value["metric"], "FID_SCORE");
  EXPECT_NEAR(c.value["delta_percent"].get<double>(), 4.4, 1e-9);
  EXPECT_EQ(c.limit, "<= 2%");
}

// A test's own run is a performance run: an INVALID one fails the test, naming its log line.
TEST(ComplianceTests, AnInvalidTest04RunFailsItsTest) {
  TempDir tmp;
  const fs::path root = amd_copy(tmp);
  const fs::path log = root / kSdxlCompliance / "Server/TEST04/performance/run_1/mlperf_log_detail.txt";
  replace_first(log, "\"key\": \"result_validity\", \"value\": \"VALID\"", "\"key\": \"result_validity\", \"value\": \"INVALID\"");
  write_file(root / kSdxlCompliance / "Server/TEST04/performance/run_1/notes.txt", "kept by mistake\n");
  auto tests = judge(root / kSdxl / "Server", "stable-diffusion-xl", "Server");
  ASSERT_EQ(tests.size(), 2u);
  EXPECT_TRUE(tests[0].valid);
  EXPECT_FALSE(tests[1].valid);
  const ValidityCheck* run = find(tests[1], "performance_run");
  EXPECT_FALSE(run->passed);
  EXPECT_EQ(run->value, nlohmann::json({"result_validity"}));
  EXPECT_GT(run->line, 0u);
  const ValidityCheck* files = find(tests[1], "performance_files");
  EXPECT_FALSE(files->passed);
  EXPECT_EQ(files->value["extra"], nlohmann::json({"notes.txt"}));
}

// v6.0's ComplianceCheck: tests inside the scenario folder; TEST08 passes on a line that is
// exactly TEST PASS, TEST07/TEST09 on TEST PASS anywhere.
TEST(ComplianceTests, TheV6CheckerReadsTestsInsideTheScenarioFolder) {
  TempDir tmp;
  const fs::path scenario = tmp.path() / "closed/Org/results/sys/gpt-oss-120b/Offline";
  write_file(scenario / "TEST07/verify_accuracy.txt", "Accuracy check: TEST PASS\n");
  auto tests = judge(scenario, "gpt-oss-120b", "Offline", "v6.0");
  ASSERT_EQ(tests.size(), 2u);
  EXPECT_EQ(tests[0].test, "TEST07");
  EXPECT_TRUE(tests[0].valid);
  EXPECT_EQ(tests[1].test, "TEST09");
  EXPECT_FALSE(tests[1].valid);
  EXPECT_EQ(tests[1].dir, (scenario / "TEST09").string());

  const fs::path dlrm = tmp.path() / "closed/Org/results/sys/dlrm-v3/Server";
  write_file(dlrm / "TEST08/verify_accuracy.txt", "NE check: TEST PASS\n");
  EXPECT_FALSE(judge(dlrm, "dlrm-v3", "Server", "v6.0")[0].valid);
  write_file(dlrm / "TEST08/verify_accuracy.txt", "NE check\r  TEST PASS \r");
  EXPECT_TRUE(judge(dlrm, "dlrm-v3", "Server", "v6.0")[0].valid);
}

const ValidityCheck* file_check(const AccuracyResult& a, const std::string& name) {
  for (const auto& c : a.file_checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

AccuracyResult files_of(const fs::path& accuracy_dir, const std::string& model, const std::string& round = "v5.1") {
  AccuracyResult a;
  judge_accuracy_files(accuracy_dir, data().accuracy.rounds.at(round), model, "Offline", a);
  return a;
}

TEST(AccuracyFiles, AmdsAccuracyFoldersHoldWhatTheCheckerRequires) {
  const fs::path root = source_dir() / "data/examples" / kAmd;
  AccuracyResult llama = files_of(root / kLlama / "Offline/accuracy", "llama2-70b-99");
  EXPECT_TRUE(llama.files_valid);
  for (const char* name : {"accuracy_files", "accuracy_log", "accuracy_log_errors", "accuracy_sample_count"}) {
    ASSERT_NE(file_check(llama, name), nullptr) << name;
    EXPECT_TRUE(file_check(llama, name)->passed) << name;
  }
  EXPECT_EQ(file_check(llama, "accuracy_sample_count")->value, 24576.0);
  AccuracyResult sdxl = files_of(root / kSdxl / "Offline/accuracy", "stable-diffusion-xl");
  EXPECT_TRUE(sdxl.files_valid);
  // No v5.1 SDXL submission holds accuracy/images/ and all were published: a warning only.
  ASSERT_EQ(sdxl.warnings.size(), 1u);
  EXPECT_NE(sdxl.warnings[0].find("images/ missing"), std::string::npos) << sdxl.warnings[0];
}

TEST(AccuracyFiles, AMissingUntruncatedOrErroneousAccuracyRunFails) {
  TempDir tmp;
  const fs::path root = amd_copy(tmp);
  const fs::path acc = root / kLlama / "Offline/accuracy";
  write_file(acc / "mlperf_log_accuracy.json", std::string(10241, ' '));
  AccuracyResult big = files_of(acc, "llama2-70b-99");
  EXPECT_FALSE(big.files_valid);
  EXPECT_EQ(file_check(big, "accuracy_log")->value, 10241);

  fs::remove(acc / "mlperf_log_accuracy.json");
  write_file(acc / "notes.txt", "x\n");
  AccuracyResult gone = files_of(acc, "llama2-70b-99");
  EXPECT_FALSE(file_check(gone, "accuracy_log")->passed);
  EXPECT_EQ(file_check(gone, "accuracy_files")->value,
            (nlohmann::json{{"missing", {"mlperf_log_accuracy.json"}}, {"extra", {"notes.txt"}}}));

  const fs::path detail = acc / "mlperf_log_detail.txt";
  std::string text = read_file(detail);
  const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  text += ":::MLLOG {\"key\": \"error_invalid_config\", \"value\": \"Multiple conf files are used.\", \"time_ms\": 1, "
          "\"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": true, "
          "\"is_warning\": false, \"file\": \"test_settings_internal.cc\", \"line_no\": 1, \"pid\": 1, \"tid\": 1}}\n";
  write_file(detail, text);
  AccuracyResult errors = files_of(acc, "llama2-70b-99");
  const ValidityCheck* c = file_check(errors, "accuracy_log_errors");
  EXPECT_FALSE(c->passed);
  EXPECT_EQ(c->line, lines + 1);
  EXPECT_NE(c->message.find("Multiple conf files are used."), std::string::npos) << c->message;
}

// A run that covers less than the dataset: v5.1's checker logs it and goes on (a warning
// here); v6.0's fails it.
TEST(AccuracyFiles, TheSampleCountFailsFromV6AndWarnsBefore) {
  TempDir tmp;
  const fs::path root = amd_copy(tmp);
  const fs::path acc = root / kLlama / "Offline/accuracy";
  replace_first(acc / "mlperf_log_detail.txt", "\"key\": \"qsl_reported_total_count\", \"value\": 24576",
             "\"key\": \"qsl_reported_total_count\", \"value\": 1000");
  AccuracyResult v51 = files_of(acc, "llama2-70b-99");
  EXPECT_TRUE(v51.files_valid);
  EXPECT_EQ(file_check(v51, "accuracy_sample_count"), nullptr);
  ASSERT_EQ(v51.warnings.size(), 1u);
  EXPECT_NE(v51.warnings[0].find("covers 1000 samples"), std::string::npos) << v51.warnings[0];
  AccuracyResult v60 = files_of(acc, "llama2-70b-99", "v6.0");
  EXPECT_FALSE(v60.files_valid);
  EXPECT_EQ(file_check(v60, "accuracy_sample_count")->value, 1000.0);
}

}  // namespace
}  // namespace mlperf::inference
