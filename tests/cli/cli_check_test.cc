// `mlperf-score check`: exit statuses (0 pass, 1 rule failed, 2 input/usage error), the
// table/json/github formats, the JUnit file, nothing written into inputs, and the v5.1
// corpus when ../shared is present.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mlperf/training/check.h"
#include "mlperf/training/package.h"
#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::binary;
using testing::q;
using testing::example_system;
using testing::read_file;
using testing::run_command;
using testing::snapshot;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;


std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

// Parses the file with xmllint when it is installed (Debian libxml2-utils).
void expect_well_formed_xml(const fs::path& file) {
  if (run_command("command -v xmllint >/dev/null 2>&1").status != 0) {
    std::cerr << "[   NOTE   ] xmllint is not installed: well-formedness only checked structurally\n";
    return;
  }
  auto r = run_command("xmllint --noout " + q(file) + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "");
}

// A copy of the llama31_8b example under <tmp>/llama31_8b.
// The llama31_8b example as a package: <tmp>/AMD/results/SYS/llama31_8b with the example's
// system description as AMD/systems/SYS.json.
fs::path copy_example(const TempDir& tmp) {
  fs::path dir = tmp.path() / "AMD/results/SYS/llama31_8b";
  fs::create_directories(dir.parent_path());
  fs::copy(example_system() / "llama31_8b", dir, fs::copy_options::recursive);
  fs::create_directories(tmp.path() / "AMD/systems");
  fs::copy_file(example_system().parent_path().parent_path() / "systems" / (example_system().filename().string() + ".json"),
                tmp.path() / "AMD/systems/SYS.json");
  return dir;
}

void drop_run_stop(const fs::path& file) {
  std::string text = read_file(file), out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
    if (line.find("\"key\": \"run_stop\"") == std::string::npos) out += line;
    start = end == std::string::npos ? text.size() : end + 1;
  }
  write_file(file, out);
}

TEST(CliCheck, TheExamplesPassAndNothingIsWrittenIntoThem) {
  auto before = snapshot(source_dir() / "data/examples/training_results_v5.1");
  auto r = run_command(binary() + " check " + q(source_dir() / "data/examples/training_results_v5.1") + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("AMD / MI355X_EPYC_9575F_pytorch / llama31_8b: PASSED\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  division closed   ruleset 5.1.0 (path)\n"), std::string::npos);
  EXPECT_NE(r.out.find("  compliance         pass\n"), std::string::npos);
  EXPECT_NE(r.out.find("check: 2 directories, 2 passed, 0 failed; 0 errors, 0 warnings\n"), std::string::npos);
  EXPECT_EQ(snapshot(source_dir() / "data/examples/training_results_v5.1"), before);
}

TEST(CliCheck, TwoMissingRunStopsExitOneWithGithubAnnotations) {
  TempDir tmp;
  fs::path dir = copy_example(tmp);
  drop_run_stop(dir / "result_3.txt");
  drop_run_stop(dir / "result_5.txt");
  auto r = run_command(binary() + " check --ruleset 5.1.0 --format github " + q(dir) + " 2>/dev/null");
  EXPECT_EQ(r.status, 1) << r.out;
  std::string prefix = "::error file=" + dir.string();
  const std::string missing = "run_stop must be logged exactly once (training_5.1.0/common.yaml); found none\n";
  EXPECT_EQ(r.out.rfind(prefix + "/result_3.txt,title=compliance::" + missing + prefix +
                            "/result_5.txt,title=compliance::" + missing +
                            prefix + ",title=olympic_score::2 of 10 runs do not count (result_3.txt, result_5.txt); " +
                            "the olympic mean drops at most 1: no valid score\n" + prefix +
                            ",title=rcp::RCP check failed (insufficient_convergence): ",
                        0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("\ncheck: 1 directory, 0 passed, 1 failed; 4 errors, 0 warnings\n"), std::string::npos) << r.out;
}

TEST(CliCheck, OneMissingRunStopExitsZeroWithAWarning) {
  TempDir tmp;
  fs::path dir = copy_example(tmp);
  drop_run_stop(dir / "result_3.txt");
  auto r = run_command(binary() + " check --ruleset 5.1.0 --format json " + q(dir) + " 2>/dev/null");
  EXPECT_EQ(r.status, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 1u);
  const auto& d = doc["results"][0];
  EXPECT_EQ(d["passed"], true);
  EXPECT_EQ(d["errors"], 0);
  EXPECT_EQ(d["warnings"], 2);
  const auto& keys = d["checks"][1];
  EXPECT_EQ(keys["check"], "compliance");
  EXPECT_EQ(keys["passed"], true);
  EXPECT_EQ(keys["findings"][0]["severity"], "warning");
  EXPECT_EQ(keys["findings"][0]["file"], (dir / "result_3.txt").string());
  EXPECT_TRUE(keys["findings"][0]["line"].is_null());
  // The per-log official verdicts: result_3 is not compliant although the directory passes.
  ASSERT_EQ(d["logs"].size(), 10u);
  EXPECT_EQ(d["logs"][3]["file"], (dir / "result_3.txt").string());
  EXPECT_EQ(d["logs"][3]["compliant"], false);
  EXPECT_EQ(d["logs"][4]["compliant"], true);
}

// Issue #12's example: a closed llama31_8b log with opt_name "sgd", opt_adamw_beta_1 0.5 and
// max_sequence_length 4096, given on its own. The official checker rejects it (exit 1) with
// these three CHECK failures.
TEST(CliCheck, ASingleClosedLlamaLogWithWrongHyperparametersFailsWithTheRuleInWords) {
  TempDir tmp;
  fs::path log = tmp.path() / "llama31_8b" / "result_0.txt";
  fs::create_directories(log.parent_path());
  std::string text = read_file(example_system() / "llama31_8b" / "result_0.txt");
  auto swap = [&](const std::string& from, const std::string& to) {
    auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  swap("\"key\": \"opt_name\", \"value\": \"adamw\"", "\"key\": \"opt_name\", \"value\": \"sgd\"");
  swap("\"key\": \"opt_adamw_beta_1\", \"value\": 0.9", "\"key\": \"opt_adamw_beta_1\", \"value\": 0.5");
  swap("\"key\": \"max_sequence_length\", \"value\": 8192", "\"key\": \"max_sequence_length\", \"value\": 4096");
  write_file(log, text);

  auto r = run_command(binary() + " check --ruleset 5.1.0 " + q(log) + " 2>&1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("  compliance         FAIL, 3 errors\n"
                       "    error    result_0.txt:19: max_sequence_length must be 8192 in the closed division "
                       "(training_5.1.0/closed_llama31_8b.yaml); found 4096\n"
                       "    error    result_0.txt:23: opt_name must be 'adamw' in the closed division "
                       "(training_5.1.0/closed_llama31_8b.yaml); found 'sgd'\n"
                       "    error    result_0.txt:25: opt_adamw_beta_1 must be 0.9 in the closed division "
                       "(training_5.1.0/closed_llama31_8b.yaml); found 0.5\n"),
            std::string::npos)
      << r.out;
  // A single log is judged alone: no run count, olympic or RCP checks.
  EXPECT_EQ(r.out.find("run_count"), std::string::npos) << r.out;

  auto j = run_command(binary() + " check --ruleset 5.1.0 --format json " + q(log) + " 2>/dev/null");
  EXPECT_EQ(j.status, 1);
  auto doc = nlohmann::json::parse(j.out);
  const auto& logs = doc["results"][0]["logs"];
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(logs[0]["file"], log.string());
  EXPECT_EQ(logs[0]["compliant"], false);
  EXPECT_EQ(logs[0]["errors"], 3);
}

TEST(CliCheck, AnUntouchedSingleLogExitsZero) {
  auto r = run_command(binary() + " check --ruleset 5.1.0 --format json " +
                       q(example_system() / "llama31_8b" / "result_4.txt") + " 2>/dev/null");
  EXPECT_EQ(r.status, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["results"][0]["logs"][0]["compliant"], true);
  EXPECT_EQ(doc["results"][0]["passed"], true);
}

TEST(CliCheck, NineOfTenRunsExitOneAndTheJunitFileSaysWhy) {
  TempDir tmp;
  fs::path dir = copy_example(tmp);
  fs::remove(dir / "result_9.txt");
  fs::path junit = tmp.path() / "out" / "check.xml";
  fs::create_directories(junit.parent_path());
  auto r = run_command(binary() + " check --ruleset 5.1.0 --junit " + q(junit) + " " + q(dir) + " 2>&1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("  run_count          FAIL, 1 error\n    error    .: 9 result files; llama31_8b requires 10 runs\n"),
            std::string::npos)
      << r.out;
  std::string xml = read_file(junit);
  expect_well_formed_xml(junit);
  EXPECT_EQ(occurrences(xml, "<testsuite "), 1u);
  EXPECT_EQ(occurrences(xml, "<testcase "), kCheckIds.size() + kPackageCheckIds.size());
  EXPECT_NE(xml.find("<failure message=\"" + dir.string() + ": 9 result files; llama31_8b requires 10 runs\" "
                     "type=\"run_count\">"),
            std::string::npos)
      << xml;
  // Only the JUnit file appears in its folder: no temporary left behind.
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(junit.parent_path())) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(CliCheck, InputAndUsageErrorsExitTwo) {
  TempDir tmp;
  EXPECT_EQ(run_command(binary() + " check " + q(tmp.path() / "missing") + " >/dev/null 2>&1").status, 2);
  EXPECT_EQ(run_command(binary() + " check --format xml " + q(example_system()) + " >/dev/null 2>&1").status, 2);
  EXPECT_EQ(run_command(binary() + " check --ruleset five " + q(example_system()) + " >/dev/null 2>&1").status, 2);
  EXPECT_EQ(run_command(binary() + " check >/dev/null 2>&1").status, 2);
  // The JUnit file cannot be written: reported, exit 2, nothing created.
  auto r = run_command(binary() + " check --junit " + q(tmp.path() / "no" / "x.xml") + " " + q(example_system()) +
                       " 2>&1 >/dev/null");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find((tmp.path() / "no" / "x.xml").string() + ": cannot write: "), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(tmp.path() / "no"));
}

TEST(CliCheck, AnUnreadableResultFileExitsTwoAndIsAnInputFinding) {
  TempDir tmp;
  fs::path dir = copy_example(tmp);
  fs::remove(dir / "result_9.txt");
  fs::create_symlink(tmp.path() / "nowhere.txt", dir / "result_9.txt");  // dangling: cannot be opened
  auto r = run_command(binary() + " check --ruleset 5.1.0 --format json " + q(dir) + " 2>/dev/null");
  EXPECT_EQ(r.status, 2) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  const auto& input = doc["results"][0]["checks"][0];
  EXPECT_EQ(input["check"], "input_readable");
  EXPECT_EQ(input["passed"], false);
  ASSERT_EQ(input["findings"].size(), 1u);
  EXPECT_EQ(input["findings"][0]["file"], (dir / "result_9.txt").string());
  EXPECT_EQ(input["findings"][0]["message"], "cannot open: No such file or directory");
}

TEST(CliCheck, Corpus) {
  auto shared = source_dir().parent_path() / "shared";
  if (!fs::exists(shared / "tools/corpus")) {
    GTEST_SKIP() << "../shared is absent: the v5.1 corpus check is skipped";
  }
  auto corpus = run_command(fs::path(shared / "tools/corpus").string() + " 2>/dev/null");
  ASSERT_EQ(corpus.status, 0);
  std::string root = corpus.out.substr(0, corpus.out.find('\n'));
  TempDir tmp;
  fs::path junit = tmp.path() / "corpus.xml";
  // As the acceptance check: no --ruleset, the corpus folder (training_v5.1) names it.
  auto r = run_command(binary() + " check --junit " + q(junit) + " " + q(root) + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.out.substr(r.out.size() > 4000 ? r.out.size() - 4000 : 0);
  EXPECT_NE(r.out.find("check: 184 directories, 184 passed, 0 failed; 0 errors, "), std::string::npos);
  std::string xml = read_file(junit);
  EXPECT_EQ(occurrences(xml, "<testsuite "), 184u);
  EXPECT_EQ(occurrences(xml, "<testcase "), 184u * (kCheckIds.size() + kPackageCheckIds.size()));
  EXPECT_EQ(occurrences(xml, "<failure "), 0u);
  EXPECT_EQ(occurrences(xml, "<property name=\"ruleset\" value=\"5.1.0\"/>"), 184u);
  expect_well_formed_xml(junit);
  // The three directories with one non-converged run pass with a warning about it.
  std::size_t accepted = occurrences(xml, "accepted, the olympic mean drops up to 1");
  EXPECT_EQ(accepted, 3u);
  for (const char* d : {"Cisco/results/hpf_n8/dlrm_dcnv2", "Dell/results/1xXE9680Lx8H200-SXM-141GB/rgat",
                        "Dell/results/1xXE9780x8B200-SXM-180GB/llama2_70b_lora"}) {
    std::size_t begin = xml.find("<testsuite name=\"" + root + "/" + d + "\"");
    ASSERT_NE(begin, std::string::npos) << d;
    std::string suite = xml.substr(begin, xml.find("</testsuite>", begin) - begin);
    EXPECT_NE(suite.find("accepted, the olympic mean drops up to 1"), std::string::npos) << suite;
  }
}

}  // namespace
}  // namespace mlperf
