// The submission checks (check.h): rules as data, and crafted bad copies of AMD's MI355X
// llama31_8b directory (data/examples) that must fail with exactly the right findings.
//
// Facts of the fixture used below (every result_N.txt of that directory): global_batch_size
// at line 17, init_stop at line 40, run_start at line 41; run_stop at line 128 in
// result_0/2/7/8/9, 134 in result_1/4/5/6, 140 in result_3; the last eval_accuracy three
// lines before run_stop; batch size 32; quality target 0 < v <= 3.3 (scoring.md §6).

#include "mlperf/training/check.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::example_system;
using testing::read_file;
using testing::rs;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;

// (check, severity, file shown as its name or "." for the directory, line, message)
using Row = std::tuple<std::string, std::string, std::string, std::uint64_t, std::string>;

// Applies `edit` to line `number` (1-based) of `file`.
void edit_line(const fs::path& file, std::size_t number, const std::function<std::string(std::string)>& edit) {
  std::string text = read_file(file), out;
  std::istringstream in(text);
  std::string line;
  std::size_t n = 0;
  bool ends_with_newline = !text.empty() && text.back() == '\n';
  while (std::getline(in, line)) {
    ++n;
    out += n == number ? edit(line) : line;
    out += '\n';
  }
  if (!ends_with_newline && !out.empty()) out.pop_back();
  ASSERT_GE(n, number) << file;
  write_file(file, out);
}

// Removes every line of `file` holding `needle`.
void remove_lines_with(const fs::path& file, const std::string& needle) {
  std::string text = read_file(file), out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(needle) == std::string::npos) out += line + '\n';
  }
  write_file(file, out);
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

// The time_ms on line `number` of `file`.
std::string time_ms_at(const fs::path& file, std::size_t number) {
  std::istringstream in(read_file(file));
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (n == number && std::regex_search(line, m, std::regex(R"("time_ms": (\d+))"))) return m[1].str();
  }
  return "";
}

class CheckTest : public ::testing::Test {
 protected:
  void SetUp() override { fs::copy(example_system() / "llama31_8b", dir, fs::copy_options::recursive); }

  fs::path file(int i) const { return dir / fmt::format("result_{}.txt", i); }

  CheckReport check() {
    std::vector<DiscoveryError> errors;
    auto dirs = find_benchmark_dirs(dir, errors);
    EXPECT_TRUE(errors.empty());
    EXPECT_EQ(dirs.size(), 1u);
    ScoreOptions options;
    options.ruleset = rs("5.1.0");
    options.compliance_rules = &rules;
    result = score_training_directory(dirs.at(0), data, options);
    return check_training_directory(result, data.facts());
  }

  std::vector<Row> rows(const CheckReport& report) const {
    std::vector<Row> out;
    for (const auto& c : report.checks) {
      for (const auto& f : c.findings) {
        EXPECT_EQ(f.check, c.check);
        std::string shown = f.file == dir.string() ? "." : fs::path(f.file).filename().string();
        out.emplace_back(f.check, to_string(f.severity), shown, f.line, f.message);
      }
    }
    return out;
  }

  // Every check but those named passes.
  static void expect_failed_checks(const CheckReport& report, const std::vector<std::string>& failing) {
    for (const auto& c : report.checks) {
      bool should_fail = std::find(failing.begin(), failing.end(), c.check) != failing.end();
      EXPECT_EQ(c.passed(), !should_fail) << c.check;
    }
    EXPECT_EQ(report.passed(), failing.empty());
  }

  DataContext data{source_dir()};
  compliance::RuleLibrary rules = compliance::RuleLibrary::load(source_dir() / "configs/compliance");
  TempDir tmp;
  fs::path dir = tmp.path() / "llama31_8b";
  DirectoryResult result;
};

TEST_F(CheckTest, TheUntouchedDirectoryPassesEveryCheckWithoutFindings) {
  CheckReport report = check();
  ASSERT_EQ(report.checks.size(), kCheckIds.size());
  for (std::size_t i = 0; i < kCheckIds.size(); ++i) EXPECT_EQ(report.checks[i].check, kCheckIds[i]);
  EXPECT_EQ(rows(report), std::vector<Row>{});
  EXPECT_TRUE(report.passed());
  EXPECT_FALSE(report.input_error);
  EXPECT_EQ(report.benchmark, "llama31_8b");
  EXPECT_EQ(report.division, "closed");
  EXPECT_EQ(report.ruleset.str(), "5.1.0");
  EXPECT_EQ(report.ruleset_source, "--ruleset");
}

TEST_F(CheckTest, OneMissingRunStopIsAcceptedWithAWarning) {
  remove_lines_with(file(3), "\"key\": \"run_stop\"");
  CheckReport report = check();
  EXPECT_EQ(rows(report),
            (std::vector<Row>{
                {"compliance", "warning", "result_3.txt", 0,
                 "run_stop must be logged exactly once (training_5.1.0/common.yaml); found none"},
                {"olympic_score", "warning", ".", 0,
                 "1 of 10 runs fail per-run checks (result_3.txt): accepted, the olympic mean drops up to 1"},
            }));
  expect_failed_checks(report, {});
  EXPECT_EQ(report.find("compliance")->findings.at(0).file, file(3).string());
  ASSERT_EQ(report.logs.size(), 10u);
  EXPECT_FALSE(report.logs[3].compliant);  // the drop allowance does not change the log's verdict
  EXPECT_TRUE(report.logs[2].compliant);
}

TEST_F(CheckTest, TwoMissingRunStopsFail) {
  remove_lines_with(file(3), "\"key\": \"run_stop\"");
  remove_lines_with(file(5), "\"key\": \"run_stop\"");
  CheckReport report = check();
  EXPECT_EQ(rows(report),
            (std::vector<Row>{
                {"compliance", "error", "result_3.txt", 0,
                 "run_stop must be logged exactly once (training_5.1.0/common.yaml); found none"},
                {"compliance", "error", "result_5.txt", 0,
                 "run_stop must be logged exactly once (training_5.1.0/common.yaml); found none"},
                {"olympic_score", "error", ".", 0,
                 "2 of 10 runs do not count (result_3.txt, result_5.txt); the olympic mean drops at most 1: no "
                 "valid score"},
                {"rcp", "error", ".", 0, "RCP check failed (insufficient_convergence): " + result.rcp.message},
            }));
  EXPECT_EQ(result.rcp.rcp_case, RcpCase::kInsufficientConvergence);
  expect_failed_checks(report, {"compliance", "olympic_score", "rcp"});
}

TEST_F(CheckTest, QualityTargetNeverReachedInTwoRunsFails) {
  for (int i : {1, 2}) {
    std::string text = read_file(file(i));
    text = std::regex_replace(text, std::regex(R"("key": "eval_accuracy", "value": [0-9.]+)"),
                              R"("key": "eval_accuracy", "value": 3.5)");
    write_file(file(i), replace_all(text, "\"status\": \"success\"", "\"status\": \"aborted\""));
  }
  CheckReport report = check();
  const std::string rule = "some eval_accuracy must satisfy `(v['value'] <= 3.3) and v['value'] > 0.0` in the closed "
                           "division (training_5.1.0/closed_llama31_8b.yaml); ";
  EXPECT_EQ(rows(report),
            (std::vector<Row>{
                {"compliance", "error", "result_1.txt", 131, rule + "none of the 15 did"},
                {"compliance", "error", "result_2.txt", 125, rule + "none of the 14 did"},
                {"run_stop_status", "warning", "result_1.txt", 134, "run_stop status is \"aborted\": the run did not converge"},
                {"run_stop_status", "warning", "result_2.txt", 128, "run_stop status is \"aborted\": the run did not converge"},
                {"quality_target", "error", "result_1.txt", 131,
                 "no eval_accuracy meets the quality target 0 < v <= 3.3 (15 logged, the last at line 131)"},
                {"quality_target", "error", "result_2.txt", 125,
                 "no eval_accuracy meets the quality target 0 < v <= 3.3 (14 logged, the last at line 125)"},
                {"olympic_score", "error", ".", 0,
                 "2 of 10 runs do not count (result_1.txt, result_2.txt); the olympic mean drops at most 1: no "
                 "valid score"},
                {"rcp", "error", ".", 0, "RCP check failed (insufficient_convergence): " + result.rcp.message},
            }));
  expect_failed_checks(report, {"compliance", "quality_target", "olympic_score", "rcp"});
}

TEST_F(CheckTest, MixedBatchSizesFail) {
  edit_line(file(4), 17, [](std::string line) {
    return replace_all(line, "\"key\": \"global_batch_size\", \"value\": 32", "\"key\": \"global_batch_size\", \"value\": 64");
  });
  CheckReport report = check();
  EXPECT_EQ(rows(report),
            (std::vector<Row>{
                {"consistency", "error", "result_4.txt", 17, "global_batch_size is 64 here but 32 in 9 of 10 runs"},
                {"rcp", "error", ".", 0, "RCP check failed (no_batch_size): " + result.rcp.message},
            }));
  EXPECT_EQ(result.rcp.rcp_case, RcpCase::kNoBatchSize);
  expect_failed_checks(report, {"consistency", "rcp"});
}

TEST_F(CheckTest, RunStartBeforeInitStopByTimeCountsAsTheOfficialSummarizerCountsIt) {
  // The official rules order init_stop and run_start by line (common.yaml run_start CHECK
  // s['init_stopped']), not by time_ms, and the official summarizer counts every compliant
  // log: so do scoring and check (the runs are just longer).
  for (int i : {2, 6}) {
    edit_line(file(i), 41, [](std::string line) {
      return std::regex_replace(line, std::regex(R"("time_ms": \d+)"), "\"time_ms\": 1759966200000");
    });
  }
  CheckReport report = check();
  EXPECT_EQ(rows(report), std::vector<Row>{});
  expect_failed_checks(report, {});
  ASSERT_EQ(report.logs.size(), 10u);
  EXPECT_TRUE(report.logs[2].compliant);
  EXPECT_TRUE(report.logs[6].compliant);
  EXPECT_TRUE(result.runs.at(2).counted());
  EXPECT_TRUE(result.runs.at(6).counted());
}

TEST_F(CheckTest, RunStartBeforeInitStopByTimeInOneRunMakesItTheSlowest) {
  edit_line(file(2), 41, [](std::string line) {
    return std::regex_replace(line, std::regex(R"("time_ms": \d+)"), "\"time_ms\": 1759966200000");
  });
  CheckReport report = check();
  EXPECT_EQ(rows(report), std::vector<Row>{});
  expect_failed_checks(report, {});
  EXPECT_EQ(result.run_roles.at(2), "trimmed (slowest)");
}

TEST_F(CheckTest, TwoRunsMissingAKeyTheOfficialRulesRequireFail) {
  // Without eval_samples (line 20) the official compliance checker rejects the log, and the
  // official summarizer drops it: two dropped logs are one too many.
  for (int i : {0, 1}) remove_lines_with(file(i), "\"key\": \"eval_samples\"");
  CheckReport report = check();
  EXPECT_EQ(rows(report),
            (std::vector<Row>{
                {"compliance", "error", "result_0.txt", 0,
                 "eval_samples must be logged exactly once in the closed division "
                 "(training_5.1.0/closed_llama31_8b.yaml); found none"},
                {"compliance", "error", "result_1.txt", 0,
                 "eval_samples must be logged exactly once in the closed division "
                 "(training_5.1.0/closed_llama31_8b.yaml); found none"},
                {"olympic_score", "error", ".", 0,
                 "2 of 10 runs do not count (result_0.txt, result_1.txt); the olympic mean drops at most 1: no valid "
                 "score"},
            }));
  EXPECT_FALSE(result.olympic_minutes.has_value());
  expect_failed_checks(report, {"compliance", "olympic_score"});
}

TEST_F(CheckTest, TheRcpCheckOnlyWarnsInTheOpenDivision) {
  for (int i = 0; i < 10; ++i) {
    write_file(file(i), replace_all(read_file(file(i)), "\"key\": \"submission_division\", \"value\": \"closed\"",
                                    "\"key\": \"submission_division\", \"value\": \"open\""));
  }
  edit_line(file(4), 17, [](std::string line) { return replace_all(line, "\"value\": 32", "\"value\": 64"); });
  CheckReport report = check();
  EXPECT_EQ(report.division, "open");
  auto found = rows(report);
  EXPECT_EQ(found.back(), Row("rcp", "warning", ".", 0,
                              "RCP check failed (no_batch_size): " + result.rcp.message +
                                  " (not required in the open division)"));
  EXPECT_NE(std::find(found.begin(), found.end(),
                      Row("consistency", "error", "result_4.txt", 17,
                          "global_batch_size is 64 here but 32 in 9 of 10 runs")),
            found.end());
  // training_5.1.0/open_llama31_8b.yaml wants some eval_accuracy below 1.0 (the official
  // checker rejects these logs in the open division, checked with it).
  EXPECT_EQ(found.at(0), Row("compliance", "error", "result_0.txt", 125,
                             "some eval_accuracy must satisfy `v['value'] < 1.0` in the open division "
                             "(training_5.1.0/open_llama31_8b.yaml); none of the 14 did"));
  expect_failed_checks(report, {"compliance", "consistency", "olympic_score"});
}

TEST_F(CheckTest, NineOfTenRunsFailTheRunCount) {
  fs::remove(file(9));
  CheckReport report = check();
  EXPECT_EQ(rows(report), (std::vector<Row>{{"run_count", "error", ".", 0, "9 result files; llama31_8b requires 10 runs"}}));
  expect_failed_checks(report, {"run_count"});
}

TEST_F(CheckTest, AKeyRepeatedWithAnotherValueFailsTheLogAnExactRepeatOnlyWarns) {
  // A submission_org line with another value (null) and an exact copy of run_start.
  edit_line(file(0), 41, [](std::string line) {
    return line + "\n" + replace_all(line, "\"key\": \"run_start\"", "\"key\": \"submission_org\"") + "\n" + line;
  });
  CheckReport report = check();
  auto found = rows(report);
  ASSERT_EQ(found.size(), 3u) << ::testing::PrintToString(found);
  // The failing log is accepted by the drop allowance: its error shows as a warning.
  EXPECT_EQ(found[0], Row("compliance", "warning", "result_0.txt", 42,
                          "submission_org must be logged exactly once (training_5.1.0/common.yaml); found 2 times "
                          "with different values: 'AMD', None"));
  EXPECT_EQ(found[1], Row("compliance", "warning", "result_0.txt", 43,
                          "run_start must be logged exactly once (training_5.1.0/common.yaml); found 2 times with the "
                          "same value None (a warning)"));
  EXPECT_EQ(found[2], Row("olympic_score", "warning", ".", 0,
                          "1 of 10 runs fail per-run checks (result_0.txt): accepted, the olympic mean drops up to 1"));
  expect_failed_checks(report, {});
  EXPECT_FALSE(report.logs.at(0).compliant);
  EXPECT_EQ(report.logs.at(0).errors, 1u);
  EXPECT_EQ(report.logs.at(0).warnings, 1u);
}

TEST_F(CheckTest, InitializationOverTheLimitIsFound) {
  // The first init_start (line 2, also the earliest) moved to 31.5 minutes before init_stop.
  long long init_stop = std::stoll(time_ms_at(file(7), 40));
  edit_line(file(7), 2, [&](std::string line) {
    return std::regex_replace(line, std::regex(R"("time_ms": \d+)"), fmt::format("\"time_ms\": {}", init_stop - 1890000));
  });
  CheckReport report = check();
  EXPECT_EQ(rows(report),
            (std::vector<Row>{
                {"compliance", "warning", "result_7.txt", 40,
                 "init_stop must satisfy `ll.timestamp - s['first_init_start'] < (s['compile_time_mins']*60*1e3)` "
                 "(training_5.1.0/common.yaml); found ll.timestamp = " + std::to_string(init_stop) +
                     ".0, s['first_init_start'] = " + std::to_string(init_stop - 1890000) +
                     ".0, s['compile_time_mins'] = 30"},
                {"olympic_score", "warning", ".", 0,
                 "1 of 10 runs fail per-run checks (result_7.txt): accepted, the olympic mean drops up to 1"},
            }));
}

TEST_F(CheckTest, UnparsableMllogLineIsAFindingAtItsLine) {
  edit_line(file(8), 20, [](std::string) { return ":::MLLOG {\"time_ms\": 1, \"key\": "; });
  CheckReport report = check();
  const CheckResult* rules = report.find("compliance");
  ASSERT_EQ(rules->findings.size(), 2u);
  EXPECT_EQ(rules->findings[0].file, file(8).string());
  EXPECT_EQ(rules->findings[0].line, 20u);
  EXPECT_EQ(rules->findings[0].severity, Finding::kWarning);  // one failing log: within the drop allowance
  EXPECT_EQ(rules->findings[0].message.rfind("MLLOG line does not parse: ", 0), 0u);
  // Line 20 was eval_samples: now missing too (found by the closed_llama31_8b.yaml rule, which
  // withdraws common.yaml's finding about the same key).
  EXPECT_EQ(rules->findings[1].line, 0u);
  EXPECT_EQ(rules->findings[1].message,
            "eval_samples must be logged exactly once in the closed division (training_5.1.0/closed_llama31_8b.yaml); "
            "found none");
  EXPECT_FALSE(report.logs.at(8).compliant);
}

TEST_F(CheckTest, ExtraChecksAreAppendedAfterTheBuiltInOnes) {
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(dir, errors);
  DirectoryResult r = score_training_directory(dirs.at(0), data, ScoreOptions{rs("5.1.0")});
  CheckOptions options;
  options.extra_checks.push_back([](const DirectoryResult& d) {
    CheckResult c{"platform_probe", "the logged platform matches this machine", {}};
    c.findings.push_back({"", Finding::kError, d.dir.path.string(), 0, "no device"});
    return c;
  });
  CheckReport report = check_training_directory(r, data.facts(), options);
  ASSERT_EQ(report.checks.size(), kCheckIds.size() + 1);
  EXPECT_EQ(report.checks.back().check, "platform_probe");
  EXPECT_EQ(report.checks.back().findings.at(0).check, "platform_probe");
  EXPECT_FALSE(report.passed());
}

}  // namespace
}  // namespace mlperf
