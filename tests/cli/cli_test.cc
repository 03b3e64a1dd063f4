// The mlperf-score command: formats, exit statuses, nothing written into inputs, and the
// v5.1 corpus check when ../shared is present.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "../test_support.h"

namespace mlperf {
namespace {

using testing::binary;
using testing::q;
using testing::example_system;
using testing::run_command;
using testing::source_dir;
using testing::TempDir;



TEST(Cli, ScoreExamplesAsJson) {
  auto r = run_command(binary() + " score --format json " + q(source_dir() / "data/examples/training_results_v5.1") + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 2u);
  const auto& lora = doc["results"][0];
  EXPECT_EQ(lora["benchmark"], "llama2_70b_lora");
  EXPECT_EQ(lora["ruleset"], "5.1.0");
  EXPECT_EQ(lora["platform"], "MI355X");
  EXPECT_EQ(lora["rcp"]["case"], "exact");
  EXPECT_EQ(lora["rcp"]["passed"], true);
  EXPECT_NEAR(lora["score_minutes"].get<double>(), 10.18474574915825, 1e-10);
  EXPECT_EQ(lora["runs"].size(), 10u);
  EXPECT_EQ(lora["runs"][0]["counted"], true);
  EXPECT_EQ(lora["runs"][0]["status"], "success");
  EXPECT_DOUBLE_EQ(lora["expected"]["published_minutes"].get<double>(), 10.18);
  const auto& l8b = doc["results"][1];
  EXPECT_NEAR(l8b["score_minutes"].get<double>(), 99.70854353631518, 1e-9);
  EXPECT_DOUBLE_EQ(l8b["rcp"]["submission_mean"].get<double>(), 178144.0);
}

TEST(Cli, TableShowsScoresAndTheExpectedComparison) {
  auto r = run_command(binary() + " score " + q(source_dir() / "data/examples") + " 2>/dev/null");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("score          10.18 minutes   PASSED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("score          99.71 minutes   PASSED"), std::string::npos);
  EXPECT_NE(r.out.find("published 99.71 minutes (about 100); measured 99.71"), std::string::npos);
  EXPECT_NE(r.out.find("ruleset 5.1.0 (path)"), std::string::npos);
}

TEST(Cli, CsvAndMarkdownHaveOneRowPerDirectory) {
  auto csv = run_command(binary() + " score --format csv " + q(example_system()) + " 2>/dev/null");
  ASSERT_EQ(csv.status, 0);
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 3);  // header + 2 rows
  EXPECT_EQ(csv.out.rfind("directory,submitter,system,benchmark,platform", 0), 0u);
  EXPECT_NE(csv.out.find(",llama31_8b,MI355X,closed,5.1.0,10,10,"), std::string::npos) << csv.out;
  auto md = run_command(binary() + " score --format markdown " + q(example_system()) + " 2>/dev/null");
  ASSERT_EQ(md.status, 0);
  EXPECT_EQ(std::count(md.out.begin(), md.out.end(), '\n'), 4);  // header, rule, 2 rows
  EXPECT_NE(md.out.find("| 99.71 |"), std::string::npos) << md.out;
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(run_command(binary() + " score --format yaml . 2>/dev/null").status, 2);
  EXPECT_EQ(run_command(binary() + " score 2>/dev/null").status, 2);
  EXPECT_EQ(run_command(binary() + " score --ruleset five . 2>/dev/null").status, 2);
  EXPECT_EQ(run_command(binary() + " score --data-dir /nonexistent " + q(example_system()) + " 2>/dev/null").status, 2);
}

TEST(Cli, MissingPathOrNoResultFilesExitTwoAndNameThePath) {
  TempDir tmp;
  auto r = run_command(binary() + " score " + q(tmp.path() / "missing") + " 2>&1 >/dev/null");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find((tmp.path() / "missing").string()), std::string::npos) << r.out;
  auto empty = run_command(binary() + " score " + q(tmp.path()) + " 2>&1 >/dev/null");
  EXPECT_EQ(empty.status, 2);
  EXPECT_NE(empty.out.find("no result files"), std::string::npos) << empty.out;
}

TEST(Cli, FailedRuleExitsOne) {
  TempDir tmp;
  auto dir = tmp.path() / "llama31_8b";
  std::filesystem::copy(example_system() / "llama31_8b", dir);
  // Two runs that never reach the quality target and never converge: no valid score.
  for (const char* f : {"result_0.txt", "result_1.txt"}) {
    std::string text = testing::read_file(dir / f);
    for (std::size_t at; (at = text.find("\"status\": \"success\"")) != std::string::npos;) {
      text.replace(at, 19, "\"status\": \"aborted\"");
    }
    const std::string eval = "\"key\": \"eval_accuracy\", \"value\": ";
    for (std::size_t at = text.find(eval); at != std::string::npos; at = text.find(eval, at + eval.size() + 1)) {
      text.insert(at + eval.size(), "9");  // 93.28… > 3.3: the target is never met
    }
    testing::write_file(dir / f, text);
  }
  auto r = run_command(binary() + " score --ruleset 5.1.0 --format json " + q(tmp.path()) + " 2>/dev/null");
  EXPECT_EQ(r.status, 1);
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["results"][0]["passed"], false);
  EXPECT_TRUE(doc["results"][0]["score_minutes"].is_null());
  EXPECT_EQ(doc["results"][0]["rcp"]["case"], "insufficient_convergence");
}

TEST(Cli, MalformedLineIsReportedWithFileAndLine) {
  TempDir tmp;
  auto dir = tmp.path() / "llama31_8b";
  std::filesystem::copy(example_system() / "llama31_8b", dir);
  std::string text = testing::read_file(dir / "result_5.txt");
  testing::write_file(dir / "result_5.txt", ":::MLLOG {\"time_ms\": oops\n" + text);
  auto r = run_command(binary() + " score --ruleset 5.1.0 " + q(dir) + " 2>&1 >/dev/null");
  EXPECT_NE(r.out.find((dir / "result_5.txt").string() + ":1: invalid MLLOG JSON"), std::string::npos) << r.out;
}

TEST(Cli, ScoringWritesNothingIntoAReadOnlyInput) {
  TempDir tmp;
  auto root = tmp.path() / "training_results_v5.1";
  std::filesystem::copy(source_dir() / "data/examples/training_results_v5.1", root,
                        std::filesystem::copy_options::recursive);
  auto before = testing::snapshot(root);
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    ::chmod(e.path().c_str(), e.is_directory() ? 0555 : 0444);
  }
  ::chmod(root.c_str(), 0555);
  for (const char* format : {"table", "json", "csv", "markdown"}) {
    auto r = run_command(binary() + " score --format " + format + " " + q(root) + " 2>/dev/null");
    EXPECT_EQ(r.status, 0) << format;
  }
  EXPECT_EQ(testing::snapshot(root), before);
}

TEST(Corpus, MatchesTheOfficialToolingOnAllOfV51) {
  auto shared = source_dir().parent_path() / "shared";
  if (!std::filesystem::exists(shared / "tools/verify-corpus")) {
    GTEST_SKIP() << "../shared is absent: the v5.1 corpus check is skipped";
  }
  auto r = run_command(q(shared / "tools/verify-corpus") + " " + binary() + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("184 passed, 0 failed"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace mlperf
