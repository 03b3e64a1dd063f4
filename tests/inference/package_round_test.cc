// The package rounds (v6.0, v6.1: the submission checker's submission_checker/ package, whose
// rules differ from the script's in code as well as in constants) on real v6.0 submissions,
// files unchanged, from MLCommons' v6.0 inference results (Apache-2.0; the copy at
// gbeezybez/inference_results_v6.0): tests/data/inference/package_v6.0.tar.gz holds closed/AMD's
// results/94xMI355X_24xEPYC_9575F/gpt-oss-120b/{Offline,Server}, its system description and
// src/README.md; package_v6.0_lenovo.tar.gz closed/Lenovo's whisper Offline on
// 1-node-2S-GNR_86C and llama2-70b-99 Offline and Server on SR675iV3. Every verdict below is the
// official checker's on the same folder (tools/submission at mlcommons/inference 3ecc2e0a and
// b66003e1, `python3 -m submission_checker.main --version v6.0`), on it and on the mutants each
// test makes (scripts/official-inference-package-oracle keeps those of the oracle tests); the
// figures are its CSV's.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "../test_support.h"
#include "mlperf/inference/score.h"

namespace mlperf::inference {
namespace {

namespace fs = std::filesystem;
using testing::replace_first;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;

constexpr const char* kSystem = "inference_results_v6.0/closed/AMD/results/94xMI355X_24xEPYC_9575F/gpt-oss-120b";

// The fixture unpacked into `tmp`; returns the round's folder, inference_results_<version> (the
// round a path names is the round whose rules judge it).
fs::path unpack(const TempDir& tmp, const std::string& fixture = "package_v6.0.tar.gz",
                const std::string& version = "v6.0") {
  auto r = testing::run_command("tar -xzf " + testing::q(source_dir() / "tests/data/inference" / fixture) + " -C " +
                                testing::q(tmp.path()));
  EXPECT_EQ(r.status, 0) << r.out;
  const fs::path round = tmp.path() / ("inference_results_" + version);
  if (!fs::exists(round)) fs::rename(tmp.path() / "inference_results_v6.0", round);  // a v6.0 fixture judged as `version`
  return round;
}

// Every scenario folder found below `root`, scored, in the order found.
std::vector<DirectoryResult> score_tree(const fs::path& root) {
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(root, errors);
  EXPECT_TRUE(errors.empty());
  std::vector<DirectoryResult> out;
  for (const auto& d : dirs) out.push_back(score_inference_directory(d, testing::source_data(), ScoreOptions{}));
  return out;
}

const ValidityCheck* check_named(const std::vector<ValidityCheck>& checks, const std::string& name) {
  for (const auto& c : checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::vector<std::string> failed_checks(const DirectoryResult& d) {
  std::vector<std::string> out;
  for (const auto& c : d.inference->checks) {
    if (!c.passed) out.push_back(c.name);
  }
  if (d.inference->accuracy) {
    for (const auto& c : d.inference->accuracy->file_checks) {
      if (!c.passed) out.push_back(c.name);
    }
  }
  return out;
}

// The names, comma-separated, for a failure message.
std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The checker accepts both folders (exit 0) with these figures; their accuracy folders hold
// the endpoint harness's accuracy_results.json, which the script checkers' file list
// (REQUIRED_ACC_FILES) would refuse and the package never compares.
TEST(PackageRound, RealAmdFoldersAreValidWithTheOfficialFigures) {
  TempDir tmp;
  const fs::path root = unpack(tmp);
  ASSERT_TRUE(fs::is_regular_file(tmp.path() / kSystem / "Offline/accuracy/accuracy_results.json"));
  auto results = score_tree(root);
  ASSERT_EQ(results.size(), 2u);
  const std::pair<const char*, double> expected[] = {{"Offline", 1031070.0}, {"Server", 900054.0}};
  for (std::size_t i = 0; i < 2; ++i) {
    const DirectoryResult& d = results[i];
    ASSERT_TRUE(d.inference) << d.dir.path;
    EXPECT_EQ(d.inference->round, "v6.0");
    EXPECT_EQ(d.inference->scenario, expected[i].first);
    EXPECT_EQ(d.inference->performance_result, expected[i].second);
    EXPECT_EQ(d.inference->units, "Tokens/s");
    // configs/expected_results.json holds AMD's rows of the round's published table.
    ASSERT_TRUE(d.inference->expected);
    EXPECT_EQ(d.inference->expected->system, "94xMI355X_24xEPYC_9575F");
    EXPECT_EQ(d.inference->expected->published, expected[i].second);
    EXPECT_EQ(d.inference->expected->delta_percent, 0.0);
    EXPECT_TRUE(d.inference->valid) << joined(failed_checks(d));
    EXPECT_TRUE(failed_checks(d).empty()) << joined(failed_checks(d));
    // Outside a power folder the package compares no file list in run_1; it reads the detail log.
    const ValidityCheck* files = check_named(d.inference->checks, "performance_files");
    ASSERT_NE(files, nullptr);
    EXPECT_TRUE(files->passed);
    EXPECT_EQ(files->limit, nlohmann::json({"mlperf_log_detail.txt"}));
    ASSERT_TRUE(d.inference->accuracy);
    EXPECT_EQ(check_named(d.inference->accuracy->file_checks, "accuracy_files"), nullptr);
    EXPECT_TRUE(check_named(d.inference->accuracy->file_checks, "accuracy_log")->passed);
  }
}

// Judged as a v6.1 run, the same MI355X folders meet AMD's rows of the v6.1 table: their
// 94-GPU system has none, so the platform (the system description's accelerator) picks the
// first MI355X row, the 8-GPU node's (summary.json rows 6 and 7), not the 72-GPU cluster's.
TEST(PackageRound, AV61RunMeetsThePublishedFigureOfItsPlatform) {
  TempDir tmp;
  auto results = score_tree(unpack(tmp, "package_v6.0.tar.gz", "v6.1"));
  ASSERT_EQ(results.size(), 2u);
  const std::pair<const char*, double> published[] = {{"Offline", 121818.0}, {"Server", 113241.0}};
  for (std::size_t i = 0; i < 2; ++i) {
    const DirectoryResult& d = results[i];
    ASSERT_TRUE(d.inference) << d.dir.path;
    EXPECT_EQ(d.inference->round, "v6.1");
    EXPECT_EQ(d.inference->scenario, published[i].first);
    EXPECT_EQ(d.platform.name, "MI355X");
    ASSERT_TRUE(d.inference->expected);
    EXPECT_EQ(d.inference->expected->system, "8xMI355X_2xEPYC_9575F");
    EXPECT_EQ(d.inference->expected->published, published[i].second);
    EXPECT_EQ(d.inference->expected->units, "Tokens/s");
    EXPECT_EQ(d.inference->expected->measured, *d.inference->performance_result);
  }
}

// A stray file in run_1 (NVIDIA's harness leaves metadata.json there in 52 published v6.0
// folders) or in the accuracy folder, and a run_1 without its summary log: the checker still
// accepts both folders.
TEST(PackageRound, FilesBesideTheRunAndAccuracyLogsDoNotFailAFolder) {
  TempDir tmp;
  const fs::path root = unpack(tmp);
  const fs::path system = tmp.path() / kSystem;
  write_file(system / "Offline/performance/run_1/metadata.json", "{}\n");
  write_file(system / "Server/accuracy/notes.txt", "x\n");
  fs::remove(system / "Server/performance/run_1/mlperf_log_summary.txt");
  auto results = score_tree(root);
  ASSERT_EQ(results.size(), 2u);
  for (const auto& d : results) {
    ASSERT_TRUE(d.inference);
    EXPECT_TRUE(d.inference->valid) << d.dir.path << ": " << joined(failed_checks(d));
  }
  EXPECT_EQ(results[1].inference->performance_result, 900054.0);
}

// Without run_1's detail log the checker stops (its loader reads every run from it: a
// TypeError, no row at all). The tool fails that folder, naming the file, and judges the rest;
// it does not fall back on the summary log as it does for a run of one's own.
TEST(PackageRound, ARunWithoutItsDetailLogFails) {
  TempDir tmp;
  const fs::path root = unpack(tmp);
  const fs::path run = tmp.path() / kSystem / "Offline/performance/run_1";
  fs::remove(run / "mlperf_log_detail.txt");
  auto results = score_tree(root);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0].inference->valid);
  EXPECT_EQ(failed_checks(results[0]), (std::vector<std::string>{"performance_files"}));
  const ValidityCheck* files = check_named(results[0].inference->checks, "performance_files");
  EXPECT_EQ(files->value["missing"], nlohmann::json({"mlperf_log_detail.txt"}));
  EXPECT_NE(files->message.find((run / "mlperf_log_detail.txt").string() + " is missing"), std::string::npos)
      << files->message;
  EXPECT_TRUE(results[1].inference->valid);
}

// Without accuracy/mlperf_log_accuracy.json the checker's accuracy_json_check fails (it raises
// on the missing path, which counts as a failure) and Server has no row; Offline keeps its own.
TEST(PackageRound, AMissingAccuracyLogFailsItsScenarioOnly) {
  TempDir tmp;
  const fs::path root = unpack(tmp);
  fs::remove(tmp.path() / kSystem / "Server/accuracy/mlperf_log_accuracy.json");
  auto results = score_tree(root);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].inference->valid);
  EXPECT_FALSE(results[1].inference->valid);
  EXPECT_EQ(failed_checks(results[1]), (std::vector<std::string>{"accuracy_log"}));
}

// In a power folder the package does compare run_1's file list (PowerCheck's
// required_files_check): without spl.txt the checker reports "run_1 has file list mismatch
// ({'spl.txt'})" and drops the row.
TEST(PackageRound, APowerFoldersRunStillNeedsItsSamples) {
  TempDir tmp;
  const fs::path root = unpack(tmp);
  const fs::path performance = tmp.path() / kSystem / "Offline/performance";
  fs::copy(performance / "run_1", performance / "ranging");
  write_file(performance / "ranging/spl.txt", "x\n");
  for (const char* f : {"client.json", "client.log", "ptd_logs.txt", "server.json", "server.log"}) {
    write_file(performance / "power" / f, "{}\n");
  }
  auto results = score_tree(root);
  ASSERT_EQ(results.size(), 2u);
  const DirectoryResult& offline = results[0];
  EXPECT_FALSE(offline.inference->valid);
  const ValidityCheck* files = check_named(offline.inference->checks, "performance_files");
  ASSERT_NE(files, nullptr);
  EXPECT_FALSE(files->passed);
  EXPECT_EQ(files->value["missing"], nlohmann::json({"spl.txt"}));
  EXPECT_TRUE(results[1].inference->valid);
}

// From v6.1 the package reads the system's nameplate power file (systems/<system>_power.yaml) in
// a power submission and only warns where there is none; so does this tool, in each power
// folder of such a round. A v6.0 power folder has no such file to read, and no such warning.
TEST(PackageRound, AV61PowerFolderWithoutANameplatePowerFileWarns) {
  for (const std::string version : {"v6.0", "v6.1"}) {
    TempDir tmp;
    const fs::path root = unpack(tmp, "package_v6.0.tar.gz", version);
    const fs::path performance = root / "closed/AMD/results/94xMI355X_24xEPYC_9575F/gpt-oss-120b/Offline/performance";
    fs::copy(performance / "run_1", performance / "ranging");
    for (const char* f : {"client.json", "client.log", "ptd_logs.txt", "server.json", "server.log"}) {
      write_file(performance / "power" / f, "{}\n");
    }
    auto results = score_tree(root);
    ASSERT_EQ(results.size(), 2u) << version;
    const std::string expected =
        (root / "closed/AMD/systems/94xMI355X_24xEPYC_9575F_power.yaml").string() + ": the nameplate power file is missing";
    std::size_t found = 0;
    for (const auto& w : results[0].warnings) found += w.find(expected) == 0 ? 1 : 0;
    EXPECT_EQ(found, version == "v6.1" ? 1u : 0u) << version;
    for (const auto& w : results[1].warnings) EXPECT_EQ(w.find("nameplate"), std::string::npos) << version << ": " << w;
  }
}

// A scenario folder without loadgen logs is not skipped: the package reads it as an MLPerf
// endpoints submission (config.yaml, performance/result_summary.json), which this tool does not
// score, so it fails with a check saying so, and `check` fails. Without those files it fails
// for the missing run.
TEST(PackageRound, AScenarioFolderWithoutLoadgenLogsFails) {
  for (const bool endpoints : {true, false}) {
    TempDir tmp;
    const fs::path root = unpack(tmp);
    const fs::path server = root / "closed/AMD/results/94xMI355X_24xEPYC_9575F/gpt-oss-120b/Server";
    for (const char* log : {"mlperf_log_detail.txt", "mlperf_log_summary.txt"}) {
      fs::remove(server / "performance/run_1" / log);
      fs::remove(server / "accuracy" / log);
    }
    if (endpoints) {
      write_file(server / "config.yaml", "type: online\n");
      write_file(server / "performance/result_summary.json", "{\"qps\": 100}\n");
    }
    auto results = score_tree(root);
    ASSERT_EQ(results.size(), 2u);
    EXPECT_TRUE(results[0].inference->valid);
    const DirectoryResult& s = results[1];
    EXPECT_EQ(s.dir.path, server);
    ASSERT_NE(s.inference, nullptr);
    EXPECT_FALSE(s.inference->valid);
    EXPECT_FALSE(s.passed);
    EXPECT_EQ(s.inference->round, "v6.0");
    EXPECT_EQ(s.benchmark, "gpt-oss-120b/Server");
    const ValidityCheck* c = check_named(s.inference->checks, "performance_log");
    ASSERT_NE(c, nullptr);
    EXPECT_FALSE(c->passed);
    EXPECT_EQ(c->message, endpoints ? server.string() + " is an MLPerf endpoints submission (config.yaml, "
                                                       "performance/result_summary.json), which the checker reads in "
                                                       "place of loadgen logs; round v6.0's checker has no result key "
                                                       "for one (from v6.1 it has), so the folder is not scored"
                                    : (server / "performance/run_1").string() +
                                          " holds no loadgen log (mlperf_log_detail.txt or mlperf_log_summary.txt): "
                                          "the scenario has no performance run, and the checker fails it");
    const int status = testing::run_command(testing::binary() + " check " + testing::q(root) + " >/dev/null 2>&1").status;
    EXPECT_EQ(status, 1);
    // check's finding names the run folder; its HTML page links to it.
    auto html = testing::run_command(testing::binary() + " check --format html " + testing::q(root) + " 2>/dev/null");
    EXPECT_EQ(html.status, 1);
    EXPECT_NE(html.out.find("file://" + (server / "performance/run_1").string() + "\">"), std::string::npos);
  }
}

// A harness's loadgen logs kept in the submitter's src/ (Supermicro's src/bucket_results,
// Google's and Quanta's run outputs in the v6.0 round) are not results: the checker reads
// results/ only and accepts the submission. Walking the round, they are not taken as runs;
// named by their own path, they are read as a run of one's own (of no known model).
TEST(PackageRound, HarnessLogsInTheSourceFolderAreNotRuns) {
  TempDir tmp;
  const fs::path root = unpack(tmp);
  const fs::path harness = root / "closed/AMD/src/harness_output";
  for (const char* log : {"mlperf_log_detail.txt", "mlperf_log_summary.txt"}) {
    fs::create_directories(harness);
    fs::copy_file(tmp.path() / kSystem / "Offline/performance/run_1" / log, harness / log);
  }
  auto results = score_tree(root);
  ASSERT_EQ(results.size(), 2u);
  for (const auto& d : results) {
    EXPECT_EQ(d.dir.path.string().find("/src/"), std::string::npos) << d.dir.path;
    EXPECT_TRUE(d.inference->valid) << d.dir.path;
  }
  // No folder of that path names a model, so the figure is Offline's own key.
  auto named = score_tree(harness);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0].inference->performance_result, 753.549);
  EXPECT_EQ(named[0].inference->units, "Samples/s");
}

// The package never requires loadgen's result_validity to be VALID (get_performance_metric_check
// only sets a flag that is already true) and, without --submission-exceptions, never fails a
// run for loadgen errors: the checker accepts Offline with both; they are warnings here.
TEST(PackageRound, AnInvalidLoadgenResultAndLoadgenErrorsAreWarnings) {
  TempDir tmp;
  const fs::path root = unpack(tmp);
  const fs::path detail = tmp.path() / kSystem / "Offline/performance/run_1/mlperf_log_detail.txt";
  replace_first(detail, R"("key": "result_validity", "value": "VALID")",
                R"("key": "result_validity", "value": "INVALID")");
  replace_first(detail, R"("key": "num_errors", "value": 0)", R"("key": "num_errors", "value": 1)");
  auto results = score_tree(root);
  ASSERT_EQ(results.size(), 2u);
  const InferenceResult& offline = *results[0].inference;
  EXPECT_TRUE(offline.valid) << joined(failed_checks(results[0]));
  EXPECT_EQ(offline.performance_result, 1031070.0);
  EXPECT_EQ(check_named(offline.checks, "result_validity"), nullptr);
  EXPECT_EQ(check_named(offline.checks, "loadgen_errors"), nullptr);
  auto warned = [&](const std::string& text) {
    return std::any_of(offline.warnings.begin(), offline.warnings.end(),
                       [&](const std::string& w) { return w.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(warned("loadgen says the result is INVALID (the round's checker does not require VALID)"));
  EXPECT_TRUE(warned("1 loadgen errors (the round's checker does not fail a run for them)"));
}

// Loadgen runs an Interactive folder as Server, and the package's llm_check reads the limits
// of loadgen's scenario: the Server run renamed Interactive is held to gpt-oss-120b's Server
// TTFT/TPOT limits (3 s, 80 ms), not the Interactive ones (2 s, 15 ms) its TPOT would fail,
// and the checker accepts it.
TEST(PackageRound, AnInteractiveFolderIsHeldToTheServerTokenLatencyLimits) {
  TempDir tmp;
  const fs::path root = unpack(tmp);
  fs::rename(tmp.path() / kSystem / "Server", tmp.path() / kSystem / "Interactive");
  auto results = score_tree(root);
  ASSERT_EQ(results.size(), 2u);
  const DirectoryResult& interactive = results[0].inference->scenario == "Interactive" ? results[0] : results[1];
  ASSERT_EQ(interactive.inference->scenario, "Interactive");
  EXPECT_TRUE(interactive.inference->valid) << joined(failed_checks(interactive));
  const ValidityCheck* tpot = check_named(interactive.inference->checks, "tpot_99_percentile_ns");
  ASSERT_NE(tpot, nullptr);
  EXPECT_TRUE(tpot->passed);
  EXPECT_EQ(tpot->limit, nlohmann::json(80000000));
  EXPECT_EQ(check_named(interactive.inference->checks, "ttft_99_percentile_ns")->limit, nlohmann::json(3000000000LL));
}

// The open division: the package forgives accuracy_result_check alone (accuracy.txt's values
// and its hash line), not its checks of the accuracy run's loadgen errors, log size or dataset
// count, which the script checkers took "for open" too. The checker accepts Offline below its
// target and without hash=, and drops Server, whose accuracy run logged an error.
TEST(PackageRound, TheOpenDivisionForgivesTheAccuracyValuesOnly) {
  TempDir tmp;
  unpack(tmp);
  const fs::path round = tmp.path() / "inference_results_v6.0";
  replace_first(round / "closed/AMD/systems/94xMI355X_24xEPYC_9575F.json", R"("division": "closed")",
             R"("division": "open")");
  fs::rename(round / "closed", round / "open");
  const fs::path model = round / "open/AMD/results/94xMI355X_24xEPYC_9575F/gpt-oss-120b";
  replace_first(model / "Offline/accuracy/accuracy.txt", "'exact_match': 83.889", "'exact_match': 50.0");
  replace_first(model / "Offline/accuracy/accuracy.txt", "hash=", "hush=");
  std::ofstream(model / "Server/accuracy/mlperf_log_detail.txt", std::ios::app)
      << R"(:::MLLOG {"key": "error_runtime", "value": "boom", "time_ms": 1.0, "namespace": "mlperf::logging", )"
      << R"("event_type": "POINT_IN_TIME", "metadata": {"is_error": true, "is_warning": false, "file": "x.cc", )"
      << R"("line_no": 1, "pid": 1, "tid": 1}})" << "\n";
  auto results = score_tree(round);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].division, "open");
  EXPECT_TRUE(results[0].inference->valid) << joined(failed_checks(results[0]));
  EXPECT_FALSE(results[1].inference->valid);
  EXPECT_EQ(failed_checks(results[1]), (std::vector<std::string>{"accuracy_log_errors"}));
}

// An MLPerf endpoints run is scored wherever it lies: its scenario folder given by name, the
// whole submission, or a copy outside the submission layout under <model>/<scenario>, and in a
// folder that names neither (the scenario from config.yaml's type, no model's rules).
TEST(PackageRound, AnEndpointsRunIsScoredWhereverItLies) {
  TempDir tmp;
  const fs::path root = unpack(tmp, "package_v6.1_nvidia.tar.gz", "v6.1");
  const fs::path offline = root / "closed/NVIDIA/results/VR-NVL72_VR-288GB_aarch64x72_TRT/deepseek-r1/Offline";
  fs::create_directories(tmp.path() / "own/deepseek-r1");
  fs::copy(offline, tmp.path() / "own/deepseek-r1/Offline", fs::copy_options::recursive);
  fs::copy(offline, tmp.path() / "run1", fs::copy_options::recursive);
  for (const fs::path& given : {offline, root, tmp.path() / "own", tmp.path() / "run1"}) {
    auto r = testing::run_command(testing::binary() + " score --format json " + testing::q(given) + " 2>/dev/null");
    const nlohmann::json doc = nlohmann::json::parse(r.out.empty() ? "{}" : r.out);
    ASSERT_TRUE(doc.contains("results")) << given << ": " << r.out.substr(0, 500);
    const nlohmann::json* found = nullptr;
    for (const auto& d : doc["results"]) {
      if (d["scenario"] == "Offline" && (d["model"] == "deepseek-r1" || d["model"].is_null())) found = &d;
    }
    ASSERT_NE(found, nullptr) << given << ": " << r.out.substr(0, 500);
    if (given == tmp.path() / "run1") {
      // No model: Offline's own key, the samples per second the package infers (1,600,000 in 5.1 ks).
      EXPECT_EQ((*found)["metric"], "result_samples_per_second");
      EXPECT_EQ((*found)["performance_result"], 1600000 / (5124404179908 / 1e9));
    } else {
      EXPECT_EQ((*found)["metric"], "result_tokens_per_second") << given;
      EXPECT_EQ((*found)["performance_result"], 1183326.8540322022) << given;  // the published figure
    }
    EXPECT_EQ((*found)["valid"], true) << given;
    EXPECT_EQ((*found)["accuracy"]["column"], "81.35824977210574") << given;
    // The published table's inferred is 1: its Scenario "Offline" is not config.yaml's type "offline".
    EXPECT_EQ((*found)["inferred"], true) << given;
    EXPECT_EQ(r.status, 0) << given;
  }
}

// Every record of scripts/official-inference-package-oracle (tests/data/inference/package_oracle:
// the package at bfc0da57 on each fixture and its mutants), re-applied to the fixture: the
// folders `score` calls valid are the rows the checker accepted, and `check` fails exactly
// where the checker exits 1. Where the checker crashed (a detail log, the system description
// or measurements.json missing or not JSON, an unknown model: it stops and judges nothing)
// only the exit status is compared, for the tool judges the rest.
struct OracleCount {
  std::size_t records = 0;
  std::size_t compared = 0;
  std::size_t crashed = 0;
  std::size_t design_powers = 0;  // CSV rows whose design_power_watts was compared
  std::size_t figures = 0;        // CSV rows whose Result was compared
  std::size_t inferred = 0;       // CSV rows whose inferred column was compared
  /// Rows whose Result differs from the checker's: folder → the tool's figure.
  std::map<std::string, double> other_figures;
};

// A JSON value as Python's str() prints it in the checker's CSV: None, True, an int, a float's
// repr ("2700.0"), text as it is.
std::string python_str(const nlohmann::json& v) {
  if (v.is_null()) return "None";
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

OracleCount compare_with_oracle(const std::string& records) {
  OracleCount count;
  std::ifstream in(source_dir() / "tests/data/inference/package_oracle" / records);
  EXPECT_TRUE(in) << records;
  TempDir tmp;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json m = nlohmann::json::parse(line);
    const std::string what = records + " " + m["id"].get<std::string>() + ": " + m["description"].get<std::string>();
    const fs::path root = unpack(tmp, m["fixture"], m.value("version", "v6.0"));
    testing::apply_ops(m["ops"], root);
    const int check_status = testing::run_command(testing::binary() + " check " + testing::q(root) + " >/dev/null 2>&1").status;
    EXPECT_EQ(check_status != 0, m["exit_status"] != 0) << what << ", check exit " << check_status;
    ++count.records;
    if (m["crashed"] == true) {
      ++count.crashed;
    } else {
      ++count.compared;
      auto r = testing::run_command(testing::binary() + " score --format json " + testing::q(root) + " 2>/dev/null");
      EXPECT_FALSE(r.out.empty()) << what;
      std::set<std::string> ours, theirs;
      const nlohmann::json doc = nlohmann::json::parse(r.out.empty() ? "{}" : r.out);
      std::map<std::string, std::string> our_design;  // folder → design power as Python prints it
      std::map<std::string, nlohmann::json> our_figure, our_inferred;
      for (const auto& d : doc.value("results", nlohmann::json::array())) {
        const std::string folder = fs::path(d["directory"].get<std::string>()).lexically_relative(root).string();
        if (d["valid"] == true) ours.insert(folder);
        our_figure[folder] = d["performance_result"];
        our_inferred[folder] = d["inferred"];
        const nlohmann::json& power = d["power"];
        our_design[folder] = python_str(power.is_object() ? power["design_power_watts"] : nlohmann::json());
      }
      for (const auto& a : m["accepted"]) theirs.insert(a.get<std::string>());
      EXPECT_EQ(ours, theirs) << what;
      // v6.1: the CSV's design_power_watts of each row, "None" where the folder has none; the
      // tool's CSV carries the JSON's value in its last column ("" for none).
      if (m.contains("design_power_watts")) {
        auto csv = testing::run_command(testing::binary() + " score --format csv " + testing::q(root) + " 2>/dev/null");
        std::istringstream rows(csv.out);
        std::string header;
        std::getline(rows, header);
        EXPECT_TRUE(header.ends_with(",power_result,power_units,design_power_watts")) << header;
        for (std::string row; std::getline(rows, row);) {
          const std::string folder = fs::path(row.substr(0, row.find(','))).lexically_relative(root).string();
          const std::string cell = row.substr(row.rfind(',') + 1);
          EXPECT_EQ(cell.empty() ? "None" : cell, our_design[folder]) << what << ": " << folder;
        }
        EXPECT_EQ(m["design_power_watts"].size(), m["accepted"].size()) << what;
        for (std::size_t k = 0; k < std::min(m["accepted"].size(), m["design_power_watts"].size()); ++k) {
          const std::string folder = m["accepted"][k];
          EXPECT_EQ(our_design[folder], m["design_power_watts"][k].get<std::string>()) << what << ": " << folder;
          ++count.design_powers;
        }
      }
      // The CSV's inferred column of each row, "0" or "1" (a power submission's second row repeats it).
      if (m.contains("inferred")) {
        EXPECT_EQ(m["inferred"].size(), m["accepted"].size()) << what;
        for (std::size_t k = 0; k < std::min(m["accepted"].size(), m["inferred"].size()); ++k) {
          const std::string folder = m["accepted"][k];
          EXPECT_EQ(our_inferred[folder], m["inferred"][k] == "1") << what << ": " << folder;
          ++count.inferred;
        }
      }
      // The CSV's Result of each folder's row (records made since the endpoints fixture), as a
      // double; a power submission's second row, its power figure, is not compared here.
      if (m.contains("result")) {
        std::set<std::string> seen;
        for (std::size_t k = 0; k < std::min(m["accepted"].size(), m["result"].size()); ++k) {
          const std::string folder = m["accepted"][k];
          if (!seen.insert(folder).second) continue;
          const double theirs_figure = std::stod(m["result"][k].get<std::string>());
          const nlohmann::json& mine = our_figure[folder];
          EXPECT_TRUE(mine.is_number()) << what << ": " << folder;
          if (!mine.is_number()) continue;
          if (mine.get<double>() != theirs_figure) count.other_figures[m["id"].get<std::string>() + " " + folder] = mine.get<double>();
          ++count.figures;
        }
      }
    }
    fs::remove_all(root);
  }
  return count;
}

// closed/AMD's gpt-oss-120b: the loadgen rules, accuracy, TEST07/TEST09, the open division,
// power, the system description, measurements.json, the submitter's folders and the scenario
// folders' names (Interactive, lower case: the CSV's inferred column).
TEST(PackageRound, VerdictsOnMutantsOfTheAmdFolderAgreeWithTheOfficialChecker) {
  const OracleCount count = compare_with_oracle("amd.jsonl");
  EXPECT_EQ(count.compared, 66u);
  EXPECT_EQ(count.crashed, 8u);
  EXPECT_EQ(count.inferred, 92u);
}

// closed/Lenovo's whisper (TEST01, deterministic or not) and llama2-70b-99 (TEST06, the
// TTFT/TPOT limits, ROUGE and tokens per sample, an Interactive folder).
TEST(PackageRound, VerdictsOnMutantsOfTheLenovoFoldersAgreeWithTheOfficialChecker) {
  const OracleCount count = compare_with_oracle("lenovo.jsonl");
  EXPECT_EQ(count.compared, 33u);
  EXPECT_EQ(count.crashed, 0u);
  EXPECT_EQ(count.inferred, 76u);
}

// The same fixtures judged as v6.1 submissions (`--version v6.1`, the folder named
// inference_results_v6.1): each record first puts the v6.1 loadgen seeds in place of v6.0's, and
// the Lenovo fixture loses llama2-70b-99, a model v6.1 lacks; the mutants that touched it are
// not run. So the v6.1 rules (configs/*.json, rounds v6.1) are the package's on real logs.
//
// From v6.1 the package reads each system's nameplate power file: 36 more AMD records make the
// Offline folder a power submission (the package run with --skip-power-check) and vary the file
// (nameplate.h) or the system description's system_power_capacity; each row's design power is
// compared with the CSV's design_power_watts. Eight of them stop the checker (the file is not
// YAML that PyYAML loads).
TEST(PackageRound, VerdictsOnMutantsJudgedAsV61AgreeWithTheOfficialChecker) {
  const OracleCount amd = compare_with_oracle("amd_v6.1.jsonl");
  EXPECT_EQ(amd.records, 110u);
  EXPECT_EQ(amd.crashed, 16u);
  EXPECT_EQ(amd.design_powers, 155u);
  EXPECT_EQ(amd.inferred, 155u);
  const OracleCount lenovo = compare_with_oracle("lenovo_v6.1.jsonl");
  EXPECT_EQ(lenovo.records, 17u);
  EXPECT_EQ(lenovo.crashed, 0u);
  for (const auto& [what, figure] : amd.other_figures) ADD_FAILURE() << what << ": " << figure;
  for (const auto& [what, figure] : lenovo.other_figures) ADD_FAILURE() << what << ": " << figure;
}

// closed/NVIDIA's Vera Rubin NVL72 deepseek-r1 and qwen3-vl-235b-a22b, six MLPerf endpoints runs
// of the published v6.1 round (config.yaml, performance/result_summary.json,
// accuracy/accuracy_results.json; endpoints_log.h), and 43 mutants: the files missing or broken,
// the settings, seeds, latencies, failed samples, accuracy scores of each form, audit files, the
// scenario of the run against the folder's, the open division (whose audit files are judged
// too). Each accepted row's figure is compared too: they agree but for deepseek-r1 Interactive,
// where the tool gives the published table's figure (its tokens per second) and the package at
// bfc0da57 its queries per second.
TEST(PackageRound, VerdictsOnMutantsOfTheNvidiaEndpointsRunsAgreeWithTheOfficialChecker) {
  const OracleCount nvidia = compare_with_oracle("nvidia_v6.1.jsonl");
  EXPECT_EQ(nvidia.records, 44u);
  EXPECT_EQ(nvidia.crashed, 3u);
  EXPECT_GT(nvidia.figures, 200u);
  EXPECT_EQ(nvidia.inferred, 218u);  // every row 1: the table's Scenario is never config.yaml's type
  // The published figure (summary.json of mlcommons/inference_results_v6.1) in every record that
  // accepts the folder, and nothing else differs.
  std::set<std::string> records_with_other_figures;
  for (const auto& [what, figure] : nvidia.other_figures) {
    EXPECT_NE(what.find("deepseek-r1/Interactive"), std::string::npos) << what;
    EXPECT_EQ(figure, 652750.1447708113) << what;
    records_with_other_figures.insert(what.substr(0, what.find(' ')));
  }
  EXPECT_GE(records_with_other_figures.size(), 30u);
}

}  // namespace
}  // namespace mlperf::inference
