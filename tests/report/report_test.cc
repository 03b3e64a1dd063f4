// Tests of the reports (table, json, csv, markdown) built from hand-made DirectoryResults.

#include "mlperf/report/report.h"
#include "mlperf/inference/result.h"

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../test_support.h"
#include <nlohmann/json.hpp>

namespace mlperf {
namespace {

constexpr double kScore = 10.18474574915825;

using testing::rs;

Run make_run(const std::string& file, double minutes, std::optional<double> samples,
             std::vector<std::string> drop_reasons = {}, std::optional<std::string> status = "success") {
  Run run;
  run.file = file;
  run.benchmark = "llama2_70b_lora";
  run.division = "closed";
  run.platform = "MI355X";
  run.global_batch_size = 8;
  run.minutes = minutes;
  run.status = status;
  if (status) run.run_stop = EventMark{minutes * 60000.0, 100};
  run.quality_target_known = true;
  run.quality_target_reached = samples.has_value();
  run.converged = samples.has_value();
  run.samples_to_converge = samples.value_or(kNotConverged);
  run.drop_reasons = std::move(drop_reasons);
  return run;
}

// A passing llama2_70b_lora directory: four runs, one dropped, two trimmed, exact RCP match.
DirectoryResult passing_result() {
  DirectoryResult r;
  r.dir.path = "/data/AMD/results/MI355X_EPYC_9575F_pytorch/llama2_70b_lora";
  r.dir.benchmark_name = "llama2_70b_lora";
  r.dir.submitter = "AMD";
  r.dir.system = "MI355X_EPYC_9575F_pytorch";
  r.benchmark = "llama2_70b_lora";
  r.division = "closed";
  r.ruleset = rs("5.1.0");
  r.ruleset_source = "path";
  r.platform = PlatformTag{"MI355X", "system description", true};
  r.accelerator_model_name = "AMD Instinct MI355X";
  r.runs = {
      make_run(r.dir.path.string() + "/result_0.txt", 10.25, 3072),
      make_run(r.dir.path.string() + "/result_1.txt", 9.5, 2880),
      make_run(r.dir.path.string() + "/result_2.txt", 11.0, 3264),
      make_run(r.dir.path.string() + "/result_3.txt", 12.0, std::nullopt, {"did not converge"}, "aborted"),
  };
  r.run_roles = {"counted", "trimmed (fastest)", "trimmed (slowest)", "dropped: did not converge"};
  r.required_runs = 10;
  r.olympic_drop = 1;
  r.olympic_minutes = 10.0;
  r.rcp.passed = true;
  r.rcp.rcp_case = RcpCase::kExact;
  r.rcp.normalization_factor = 1.018474574915825;
  RcpRecord record;
  record.name = "llama2_70b_lora_ref_8";
  record.benchmark = "llama2_70b_lora";
  record.batch_size = 8;
  r.rcp.record = record;
  r.rcp.rcp_mean = 3100.0;
  r.rcp.min_mean = 2900.5;
  r.rcp.max_speedup = 1.0687812;
  r.rcp.submission_mean = 3043.75;
  r.rcp.message = "submission mean 3043.75 is within the max speedup";
  r.score_minutes = kScore;
  r.scaling_json_factor = 1.018474574915825;
  ExpectedResult published;
  published.ruleset = rs("5.1.0");
  published.benchmark = "llama2_70b_lora";
  published.platform = "MI355X";
  published.published_minutes = 10.18;
  published.about_minutes = 10;
  published.source = "AMD guide";
  r.expected = compare_expected(published, kScore, 5.0);
  r.warnings = {"only 4 of 10 required runs", "batch size | differs"};
  r.passed = true;
  return r;
}

// A failing directory with no valid score, no platform and no expected figure.
DirectoryResult failing_result() {
  DirectoryResult r;
  r.dir.path = "/data/other/flux1";
  r.dir.benchmark_name = "flux1";
  r.benchmark = "flux1";
  r.division = "closed";
  r.ruleset = rs("6.0.0");
  r.ruleset_source = "--ruleset";
  r.runs = {make_run("/data/other/flux1/result_0.txt", 50.0, std::nullopt, {"did not converge"}, std::nullopt)};
  r.run_roles = {"dropped: did not converge"};
  r.required_runs = 10;
  r.olympic_drop = 1;
  r.rcp.passed = false;
  r.rcp.rcp_case = RcpCase::kInsufficientConvergence;
  r.rcp.normalization_factor = 1.0;
  r.warnings = {"1 of 10 required runs"};
  r.passed = false;
  return r;
}

std::string render(const std::vector<DirectoryResult>& results, ReportFormat format,
                   RcpPass pass = RcpPass::kPruned) {
  std::ostringstream out;
  write_report(out, results, format, pass);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// ---------------------------------------------------------------------------------------------
// parse_report_format (csv_field: table_text_test.cc)

TEST(ReportFormat, ParsesTheFourNames) {
  EXPECT_EQ(parse_report_format("table"), ReportFormat::kTable);
  EXPECT_EQ(parse_report_format("json"), ReportFormat::kJson);
  EXPECT_EQ(parse_report_format("csv"), ReportFormat::kCsv);
  EXPECT_EQ(parse_report_format("markdown"), ReportFormat::kMarkdown);
}

TEST(ReportFormat, RejectsOtherNames) {
  for (const char* bad : {"", "JSON", "Table", "md", "tsv", "html", "json ", "csvx"}) {
    EXPECT_FALSE(parse_report_format(bad).has_value()) << '"' << bad << '"';
  }
}

// ---------------------------------------------------------------------------------------------
// to_json

TEST(ReportJson, TopLevelKeysAndValues) {
  DirectoryResult r = passing_result();
  nlohmann::json j = to_json(r, RcpPass::kPruned);
  EXPECT_EQ(j.at("directory"), "/data/AMD/results/MI355X_EPYC_9575F_pytorch/llama2_70b_lora");
  EXPECT_EQ(j.at("submitter"), "AMD");
  EXPECT_EQ(j.at("system"), "MI355X_EPYC_9575F_pytorch");
  EXPECT_EQ(j.at("benchmark"), "llama2_70b_lora");
  EXPECT_EQ(j.at("division"), "closed");
  EXPECT_EQ(j.at("ruleset"), "5.1.0");
  EXPECT_EQ(j.at("ruleset_source"), "path");
  EXPECT_EQ(j.at("platform"), "MI355X");
  EXPECT_EQ(j.at("platform_source"), "system description");
  EXPECT_EQ(j.at("platform_known"), true);
  EXPECT_EQ(j.at("accelerator_model_name"), "AMD Instinct MI355X");
  EXPECT_EQ(j.at("required_runs"), 10);
  EXPECT_DOUBLE_EQ(j.at("olympic_minutes").get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(j.at("scaling_json_factor").get<double>(), 1.018474574915825);
  EXPECT_EQ(j.at("passed"), true);
  EXPECT_EQ(j.at("warnings"), (nlohmann::json{"only 4 of 10 required runs", "batch size | differs"}));
}

TEST(ReportJson, ScoreAtFullPrecision) {
  nlohmann::json j = to_json(passing_result(), RcpPass::kPruned);
  ASSERT_TRUE(j.at("score_minutes").is_number());
  EXPECT_EQ(j.at("score_minutes").get<double>(), kScore);  // bit for bit, not rounded
  EXPECT_NE(j.dump().find("10.18474574915825"), std::string::npos);
}

// An RCP check the official checker cannot make (dlrm, minigo): no verdict and no factor.
TEST(ReportJson, AnRcpCheckNotMadeHasNullVerdictAndFactor) {
  DirectoryResult r = passing_result();
  r.rcp = RcpVerdict{};
  r.rcp.rcp_case = RcpCase::kNotChecked;
  r.rcp.normalization_factor = std::numeric_limits<double>::quiet_NaN();
  nlohmann::json j = to_json(r, RcpPass::kPruned);
  EXPECT_TRUE(j["rcp"]["passed"].is_null());
  EXPECT_TRUE(j["rcp"]["normalization_factor"].is_null());
  EXPECT_EQ(j["rcp"]["case"], "not_checked");
}

TEST(ReportJson, Runs) {
  nlohmann::json j = to_json(passing_result(), RcpPass::kPruned);
  const auto& runs = j.at("runs");
  ASSERT_TRUE(runs.is_array());
  ASSERT_EQ(runs.size(), 4u);

  EXPECT_EQ(runs[0].at("file"), "/data/AMD/results/MI355X_EPYC_9575F_pytorch/llama2_70b_lora/result_0.txt");
  EXPECT_DOUBLE_EQ(runs[0].at("minutes").get<double>(), 10.25);
  EXPECT_EQ(runs[0].at("counted"), true);
  EXPECT_EQ(runs[0].at("role"), "counted");
  EXPECT_EQ(runs[0].at("status"), "success");
  EXPECT_EQ(runs[0].at("converged"), true);
  EXPECT_DOUBLE_EQ(runs[0].at("samples_to_converge").get<double>(), 3072.0);
  EXPECT_EQ(runs[0].at("global_batch_size"), 8);
  EXPECT_TRUE(runs[0].at("drop_reasons").empty());

  EXPECT_EQ(runs[1].at("role"), "trimmed (fastest)");
  EXPECT_EQ(runs[1].at("counted"), true);  // trimmed runs still count towards the olympic mean
  EXPECT_DOUBLE_EQ(runs[1].at("samples_to_converge").get<double>(), 2880.0);
  EXPECT_EQ(runs[2].at("role"), "trimmed (slowest)");

  const auto& dropped = runs[3];
  EXPECT_EQ(dropped.at("file"), "/data/AMD/results/MI355X_EPYC_9575F_pytorch/llama2_70b_lora/result_3.txt");
  EXPECT_DOUBLE_EQ(dropped.at("minutes").get<double>(), 12.0);
  EXPECT_EQ(dropped.at("counted"), false);
  EXPECT_EQ(dropped.at("role"), "dropped: did not converge");
  EXPECT_EQ(dropped.at("status"), "aborted");
  EXPECT_EQ(dropped.at("converged"), false);
  EXPECT_TRUE(dropped.at("samples_to_converge").is_null());
  EXPECT_EQ(dropped.at("drop_reasons"), (nlohmann::json{"did not converge"}));
}

TEST(ReportJson, Rcp) {
  nlohmann::json j = to_json(passing_result(), RcpPass::kPruned);
  const auto& rcp = j.at("rcp");
  EXPECT_EQ(rcp.at("pass"), "pruned");
  EXPECT_EQ(rcp.at("passed"), true);
  EXPECT_EQ(rcp.at("case"), "exact");
  EXPECT_DOUBLE_EQ(rcp.at("normalization_factor").get<double>(), 1.018474574915825);
  EXPECT_DOUBLE_EQ(rcp.at("rcp_mean").get<double>(), 3100.0);
  EXPECT_DOUBLE_EQ(rcp.at("min_mean").get<double>(), 2900.5);
  EXPECT_DOUBLE_EQ(rcp.at("max_speedup").get<double>(), 1.0687812);
  EXPECT_DOUBLE_EQ(rcp.at("submission_mean").get<double>(), 3043.75);
  EXPECT_EQ(rcp.at("record"), "llama2_70b_lora_ref_8");
  EXPECT_EQ(rcp.at("record_batch_size"), 8);
  EXPECT_EQ(rcp.at("message"), "submission mean 3043.75 is within the max speedup");

  EXPECT_EQ(to_json(passing_result(), RcpPass::kFull).at("rcp").at("pass"), "full");
}

TEST(ReportJson, Expected) {
  nlohmann::json j = to_json(passing_result(), RcpPass::kPruned);
  const auto& e = j.at("expected");
  ASSERT_TRUE(e.is_object());
  EXPECT_EQ(e.at("platform"), "MI355X");
  EXPECT_DOUBLE_EQ(e.at("published_minutes").get<double>(), 10.18);
  EXPECT_DOUBLE_EQ(e.at("about_minutes").get<double>(), 10.0);
  EXPECT_EQ(e.at("measured_minutes").get<double>(), kScore);
  EXPECT_NEAR(e.at("delta_percent").get<double>(), 0.0466183610830, 1e-12);
  EXPECT_DOUBLE_EQ(e.at("tolerance_percent").get<double>(), 5.0);
  EXPECT_EQ(e.at("within_tolerance"), true);
  EXPECT_EQ(e.at("source"), "AMD guide");
}

TEST(ReportJson, NullsWhenAbsent) {
  nlohmann::json j = to_json(failing_result(), RcpPass::kPruned);
  EXPECT_TRUE(j.at("expected").is_null());
  EXPECT_TRUE(j.at("score_minutes").is_null());
  EXPECT_TRUE(j.at("olympic_minutes").is_null());
  EXPECT_TRUE(j.at("scaling_json_factor").is_null());
  EXPECT_TRUE(j.at("submitter").is_null());
  EXPECT_TRUE(j.at("system").is_null());
  EXPECT_TRUE(j.at("platform").is_null());
  EXPECT_TRUE(j.at("platform_source").is_null());
  EXPECT_EQ(j.at("platform_known"), false);
  EXPECT_TRUE(j.at("accelerator_model_name").is_null());
  EXPECT_EQ(j.at("ruleset"), "6.0.0");
  EXPECT_EQ(j.at("ruleset_source"), "--ruleset");
  EXPECT_EQ(j.at("passed"), false);
  const auto& rcp = j.at("rcp");
  EXPECT_EQ(rcp.at("passed"), false);
  EXPECT_EQ(rcp.at("case"), "insufficient_convergence");
  EXPECT_DOUBLE_EQ(rcp.at("normalization_factor").get<double>(), 1.0);
  EXPECT_TRUE(rcp.at("rcp_mean").is_null());
  EXPECT_TRUE(rcp.at("min_mean").is_null());
  EXPECT_TRUE(rcp.at("max_speedup").is_null());
  EXPECT_TRUE(rcp.at("submission_mean").is_null());
  EXPECT_TRUE(rcp.at("record").is_null());
  ASSERT_EQ(j.at("runs").size(), 1u);
  EXPECT_TRUE(j.at("runs")[0].at("status").is_null());
  EXPECT_TRUE(j.at("runs")[0].at("samples_to_converge").is_null());
  EXPECT_EQ(j.at("runs")[0].at("counted"), false);
}

TEST(ReportJson, RunWithoutMinutesIsNullAndNotCounted) {
  DirectoryResult r = failing_result();
  r.runs[0].minutes.reset();
  r.runs[0].drop_reasons.clear();
  nlohmann::json j = to_json(r, RcpPass::kPruned);
  EXPECT_TRUE(j.at("runs")[0].at("minutes").is_null());
  EXPECT_EQ(j.at("runs")[0].at("counted"), false);
}

TEST(ReportJson, WriteReportIsOneParsableDocument) {
  std::string text = render({passing_result(), failing_result()}, ReportFormat::kJson);
  nlohmann::json doc = nlohmann::json::parse(text);  // throws (fails the test) if not one document
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.size(), 1u);
  const auto& results = doc.at("results");
  ASSERT_TRUE(results.is_array());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].at("benchmark"), "llama2_70b_lora");
  EXPECT_EQ(results[0].at("score_minutes").get<double>(), kScore);
  EXPECT_EQ(results[1].at("benchmark"), "flux1");
  EXPECT_TRUE(results[1].at("score_minutes").is_null());
  EXPECT_EQ(results[0], to_json(passing_result(), RcpPass::kPruned));
}

TEST(ReportJson, WriteReportOfNothing) {
  nlohmann::json doc = nlohmann::json::parse(render({}, ReportFormat::kJson));
  ASSERT_TRUE(doc.at("results").is_array());
  EXPECT_TRUE(doc.at("results").empty());
}

TEST(ReportJson, WriteReportIsByteForByteOneDumpOfTheWholeDocument) {
  // write_report dumps each directory on its own and joins them; the text must be the one
  // dump of {"results": [...]} with indent 2, whatever the number of directories.
  for (std::size_t n : {0u, 1u, 2u, 5u}) {
    std::vector<DirectoryResult> results;
    nlohmann::json doc = {{"results", nlohmann::json::array()}};
    for (std::size_t i = 0; i < n; ++i) {
      results.push_back(i % 2 == 0 ? passing_result() : failing_result());
      results.back().warnings.push_back("line one\nline two");  // a newline inside a string
      doc["results"].push_back(to_json(results.back(), RcpPass::kPruned));
    }
    EXPECT_EQ(render(results, ReportFormat::kJson), doc.dump(2) + "\n") << n << " directories";
  }
}

// The streamed report (issue #25): any split into batches gives the bytes of write_report over
// all results, in every format; a directory of more runs than are built aside (2048) is
// written run by run and still equals the one dump of the whole document.
TEST(ReportWriter, BatchesGiveTheBytesOfOneWholeReport) {
  std::vector<DirectoryResult> results;
  for (int i = 0; i < 5; ++i) results.push_back(i % 2 == 0 ? passing_result() : failing_result());
  DirectoryResult many = passing_result();
  const mlperf::Run model = many.runs.front();
  many.runs.clear();
  many.run_roles.clear();
  for (int i = 0; i < 2100; ++i) {
    mlperf::Run run = model;
    run.file = "/r/many/result_" + std::to_string(i) + ".txt";
    run.minutes = 10.0 + i * 0.001;
    if (i == 7) run.file += "\xff";  // not UTF-8: its exact bytes beside it
    many.runs.push_back(run);
    many.run_roles.push_back(i % 3 == 0 ? "counted" : "trimmed (fastest)");
  }
  results.insert(results.begin() + 2, many);
  for (ReportFormat format : {ReportFormat::kJson, ReportFormat::kTable, ReportFormat::kCsv, ReportFormat::kMarkdown}) {
    const std::string whole = render(results, format);
    for (std::size_t batch : {1u, 2u, 4u}) {
      std::ostringstream out;
      ReportWriter writer(out, format, RcpPass::kPruned);
      for (std::size_t i = 0; i < results.size(); i += batch) {
        std::vector<DirectoryResult> part(results.begin() + static_cast<std::ptrdiff_t>(i),
                                          results.begin() + static_cast<std::ptrdiff_t>(std::min(i + batch, results.size())));
        writer.add(part);
      }
      writer.finish();
      EXPECT_EQ(out.str(), whole) << static_cast<int>(format) << " in batches of " << batch;
    }
  }
  // The JSON of the big directory is the one dump of its object, _bytes sibling included.
  nlohmann::json doc = {{"results", nlohmann::json::array()}};
  for (const auto& r : results) doc["results"].push_back(to_json(r, RcpPass::kPruned));
  EXPECT_EQ(render(results, ReportFormat::kJson), doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  EXPECT_EQ(doc["results"][2]["runs"][7]["file_bytes"], "2f722f6d616e792f726573756c745f372e747874ff");
  EXPECT_EQ(doc["results"][2]["runs"].size(), 2100u);
}

// An inference scenario folder's valid result at `path`, its figure `result` (tokens/s).
DirectoryResult inference_result(double result,
                                 const std::string& path = "/r/closed/AMD/results/8xMI300X/llama2-70b-99.9/Offline") {
  DirectoryResult r;
  r.dir.path = path;
  r.dir.loadgen = LoadgenRun{};
  r.benchmark = "llama2-70b-99.9/Offline";
  r.division = "closed";
  r.passed = true;
  auto figure = std::make_shared<inference::InferenceResult>();
  figure->model = "llama2-70b-99.9";
  figure->scenario = "Offline";
  figure->metric = "result_tokens_per_second";
  figure->performance_result = result;
  figure->valid = true;
  r.inference = figure;
  return r;
}

// Results given to prepare() as the scoring threads finish them (any order, many threads at
// once; ScoredHook) are written as soon as every one before them is: the report is the same
// bytes in every format, whatever the batches, the order and a training directory among them
// (which add() writes, and the results after it then wait for add()).
TEST(ReportWriter, ResultsPreparedAsTheyAreScoredGiveTheBytesOfOneWholeReport) {
  std::vector<DirectoryResult> results;
  for (int i = 0; i < 23; ++i) {
    results.push_back(inference_result(1000.5 + i, "/r/closed/AMD/results/8xMI300X/llama2-70b-99.9/Offline" + std::to_string(i)));
  }
  results.insert(results.begin() + 9, passing_result());
  for (ReportFormat format : {ReportFormat::kJson, ReportFormat::kTable, ReportFormat::kCsv, ReportFormat::kMarkdown}) {
    const std::string whole = render(results, format);
    for (std::size_t batch : {1u, 5u, 24u}) {
      for (unsigned seed : {1u, 2u, 3u}) {
        std::ostringstream out;
        ReportWriter writer(out, format, RcpPass::kPruned);
        for (std::size_t first = 0; first < results.size(); first += batch) {
          std::vector<DirectoryResult> part(
              results.begin() + static_cast<std::ptrdiff_t>(first),
              results.begin() + static_cast<std::ptrdiff_t>(std::min(first + batch, results.size())));
          std::vector<std::size_t> order;
          for (std::size_t k = 0; k < part.size(); ++k) {
            if (part[k].dir.loadgen) order.push_back(k);  // what score_directories hands out
          }
          std::shuffle(order.begin(), order.end(), std::mt19937(seed));
          std::vector<std::thread> threads;
          for (unsigned t = 0; t < 3; ++t) {
            threads.emplace_back([&, t] {
              for (std::size_t i = t; i < order.size(); i += 3) writer.prepare(order[i], part[order[i]]);
            });
          }
          for (auto& t : threads) t.join();
          writer.add(part);
        }
        writer.finish();
        EXPECT_EQ(out.str(), whole) << static_cast<int>(format) << " in batches of " << batch << ", order " << seed;
      }
    }
  }
  // Written as soon as its turn comes: before add(), and not before those ahead of it.
  std::ostringstream out;
  ReportWriter writer(out, ReportFormat::kJson, RcpPass::kPruned);
  const std::vector<DirectoryResult> part(results.begin(), results.begin() + 3);
  writer.prepare(2, part[2]);
  writer.prepare(1, part[1]);
  EXPECT_EQ(out.str(), "");
  writer.prepare(0, part[0]);
  const std::string three = render(part, ReportFormat::kJson);
  EXPECT_EQ(out.str(), three.substr(0, three.rfind("\n  ]")));
  writer.add(part);
  writer.finish();
  EXPECT_EQ(out.str(), three);
}

// The JSON report writes a training directory member by member (write_training_json): every
// member, optional and odd value must come out as the one dump of to_json's tree. Each case
// below changes what the writer branches on: weak scaling figures, a projected RCP check,
// a published comparison, parse errors, nulls, numbers that are not finite, integral and
// huge doubles, names that are not UTF-8 and strings that need escaping.
TEST(ReportJson, EveryTrainingMemberIsWrittenAsTheTreeDumpsIt) {
  std::vector<DirectoryResult> cases;
  cases.push_back(passing_result());
  cases.push_back(failing_result());
  DirectoryResult odd = passing_result();
  odd.dir.path = "/data/x\xff/llama2_70b_lora";
  odd.dir.submitter = "sub\xfe";
  odd.dir.system = "";
  odd.dir.file_rule = "*.log";
  odd.dir.ignored_files = {"/data/a.txt", "/data/b\xff.txt"};
  odd.benchmark = "bench\"mark\\";
  odd.division = "open\x01";
  odd.ruleset_reason = "logs of 2025-05-01\n";
  odd.ruleset_source = "guessed";
  odd.platform = PlatformTag{"Plat\xc0", "", false};
  odd.accelerator_model_name = "";
  odd.scaling = "weak";
  WeakScalingScore weak;
  weak.models_required = 4;
  weak.models_converged = 3;
  weak.enough_models = false;
  weak.number_of_models = 3;
  weak.instance_scale = 1LL << 40;
  weak.time_to_train_all_minutes = std::numeric_limits<double>::infinity();
  weak.throughput = 0.1;
  odd.weak = weak;
  odd.olympic_minutes = std::nullopt;
  odd.score_minutes = 1e21;
  odd.scaling_json_factor = 2.0;
  odd.rcp.rcp_case = RcpCase::kNotChecked;
  odd.rcp.normalization_factor = std::numeric_limits<double>::quiet_NaN();
  odd.rcp.record.reset();
  odd.rcp.rcp_mean.reset();
  odd.rcp.message = "msg \xff";
  odd.projected_rcp = passing_result().rcp;
  odd.projected_rcp->min_mean = -0.0;
  odd.projected_score_minutes = 1.0 / 3.0;
  ExpectedComparison expected;
  expected.expected.platform = "MI355X\xff";
  expected.expected.published_minutes = 10.0;
  expected.expected.about_minutes = std::nullopt;
  expected.expected.source = "doc";
  expected.expected.ruleset = rs("5.1.0");
  expected.measured_minutes = 1e-7;
  expected.delta_percent = -12.5;
  expected.tolerance_percent = 5;
  odd.expected = expected;
  odd.runs[0].status.reset();
  odd.runs[0].global_batch_size.reset();
  odd.runs[0].minutes = std::numeric_limits<double>::quiet_NaN();
  odd.runs[1].file += "\xfe";
  odd.runs[1].notes = {"note", "n\xff"};
  odd.runs[1].drop_reasons = {"\xff"};
  odd.runs[1].status = "st\xff";
  odd.runs[1].parse_error_count = 7;
  odd.runs[1].parse_errors = {{"f", 3, "bad \xff line"}, {"f", 9, "tab\there"}};
  odd.runs[2].samples_to_converge = 123456789012345678.0;
  odd.run_roles.pop_back();  // the last run has no role: ""
  odd.warnings = {"w\xff", "w2"};
  odd.verdict = "incomplete";
  cases.push_back(odd);
  DirectoryResult bare;
  bare.dir.path = "b";
  cases.push_back(bare);
  for (const auto& r : cases) {
    nlohmann::json doc = {{"results", nlohmann::json::array({to_json(r, RcpPass::kFull)})}};
    EXPECT_EQ(render({r}, ReportFormat::kJson, RcpPass::kFull),
              doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n")
        << r.dir.path;
  }
  const std::string text = render({odd}, ReportFormat::kJson, RcpPass::kFull);
  EXPECT_NE(text.find("\"directory_bytes\": \"2f646174612f78ff2f6c6c616d61325f3730625f6c6f7261\""), std::string::npos);
  EXPECT_NE(text.find("\"score_minutes\": 1e+21"), std::string::npos) << text;
  EXPECT_NE(text.find("\"enough_models\": false"), std::string::npos);
}

TEST(ReportJson, InvalidUtf8DoesNotThrow) {
  DirectoryResult r = passing_result();
  r.warnings.push_back(std::string("bad byte \xff here"));
  std::string text;
  EXPECT_NO_THROW(text = render({r}, ReportFormat::kJson));
  nlohmann::json doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc.at("results")[0].at("warnings").size(), 3u);
  // The warning's exact bytes beside the display list (exact_bytes.h); the valid ones null.
  const auto& exact = doc.at("results")[0].at("warnings_bytes");
  ASSERT_EQ(exact.size(), 3u);
  EXPECT_TRUE(exact[0].is_null());
  EXPECT_EQ(exact[2], "626164206279746520ff2068657265");
}

// ---------------------------------------------------------------------------------------------
// csv

// Splits CSV text into records of fields (RFC 4180: quoted fields may hold , " and newlines).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\n') {
      row.push_back(field);
      field.clear();
      rows.push_back(row);
      row.clear();
    } else {
      field += c;
    }
  }
  if (!field.empty() || !row.empty()) {
    row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}

std::map<std::string, std::string> by_header(const std::vector<std::string>& header,
                                             const std::vector<std::string>& row) {
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < header.size() && i < row.size(); ++i) out[header[i]] = row[i];
  return out;
}

TEST(ReportCsv, HeaderThenOneRowPerDirectory) {
  std::string text = render({passing_result(), failing_result()}, ReportFormat::kCsv);
  auto lines = lines_of(text);
  ASSERT_EQ(lines.size(), 3u) << text;
  EXPECT_EQ(lines[0].rfind("directory,submitter,system,benchmark,platform,", 0), 0u) << lines[0];
  for (const char* column : {"division", "ruleset", "counted", "olympic_minutes", "rcp_case", "rcp_passed",
                             "normalization_factor", "score_minutes", "expected_minutes", "delta_percent",
                             "within_tolerance", "passed"}) {
    EXPECT_NE(lines[0].find(column), std::string::npos) << column;
  }

  auto rows = parse_csv(text);
  ASSERT_EQ(rows.size(), 3u);
  const auto& header = rows[0];
  EXPECT_EQ(rows[1].size(), header.size());
  EXPECT_EQ(rows[2].size(), header.size());

  auto first = by_header(header, rows[1]);
  EXPECT_EQ(first["directory"], "/data/AMD/results/MI355X_EPYC_9575F_pytorch/llama2_70b_lora");
  EXPECT_EQ(first["submitter"], "AMD");
  EXPECT_EQ(first["benchmark"], "llama2_70b_lora");
  EXPECT_EQ(first["platform"], "MI355X");
  EXPECT_EQ(first["ruleset"], "5.1.0");
  EXPECT_EQ(first["runs"], "4");
  EXPECT_EQ(first["counted"], "3");
  EXPECT_EQ(first["rcp_case"], "exact");
  EXPECT_EQ(first["rcp_passed"], "true");
  EXPECT_EQ(first["score_minutes"], "10.18474574915825");  // full precision
  EXPECT_EQ(first["expected_minutes"], "10.18");
  EXPECT_EQ(first["within_tolerance"], "true");
  EXPECT_EQ(first["passed"], "true");
  EXPECT_EQ(first["warnings"], "2");

  auto second = by_header(header, rows[2]);
  EXPECT_EQ(second["benchmark"], "flux1");
  EXPECT_EQ(second["score_minutes"], "");
  EXPECT_EQ(second["olympic_minutes"], "");
  EXPECT_EQ(second["expected_minutes"], "");
  EXPECT_EQ(second["rcp_case"], "insufficient_convergence");
  EXPECT_EQ(second["passed"], "false");
  EXPECT_EQ(second["counted"], "0");
}

TEST(ReportCsv, AnInferenceRowCarriesItsFigureAndNoTrainingCells) {
  DirectoryResult inference = inference_result(23514.8123);
  inference.dir.submitter = "AMD";
  auto figure = std::make_shared<inference::InferenceResult>(*inference.inference);
  figure->units = "Tokens/s";
  inference::InferenceExpected e;
  e.published = 23514.8;
  e.delta_percent = 0.00005;
  e.within_tolerance = true;
  figure->expected = e;
  inference.inference = figure;

  auto rows = parse_csv(render({passing_result(), inference}, ReportFormat::kCsv));
  ASSERT_EQ(rows.size(), 3u);
  ASSERT_EQ(rows[2].size(), rows[0].size());
  auto training = by_header(rows[0], rows[1]);
  EXPECT_EQ(training["kind"], "training");
  EXPECT_EQ(training["rcp_case"], "exact");
  EXPECT_EQ(training["performance_result"], "");
  EXPECT_EQ(training["units"], "");
  auto row = by_header(rows[0], rows[2]);
  const std::vector<std::pair<std::string, std::string>> want = {
      {"kind", "inference"},
      {"model", "llama2-70b-99.9"},
      {"scenario", "Offline"},
      {"metric", "result_tokens_per_second"},
      {"performance_result", "23514.8123"},  // full precision
      {"units", "Tokens/s"},
      {"valid", "true"},
      {"expected_result", "23514.8"},
      {"delta_percent", "5e-05"},
      {"within_tolerance", "true"}};
  for (const auto& [column, value] : want) EXPECT_EQ(row[column], value) << column;
  for (const char* training_only : {"runs", "counted", "olympic_minutes", "rcp_case", "rcp_passed",
                                    "normalization_factor", "score_minutes", "expected_minutes"}) {
    EXPECT_EQ(row[training_only], "") << training_only;
  }
  // Markdown rounds the figure.
  std::string markdown = render({inference}, ReportFormat::kMarkdown);
  EXPECT_NE(markdown.find("| inference | llama2-70b-99.9 | Offline | result_tokens_per_second | 23514.8 | Tokens/s | true |"),
            std::string::npos)
      << markdown;
}

TEST(ReportCsv, QuotesFieldsWithCommasAndQuotes) {
  DirectoryResult r = passing_result();
  r.dir.path = "/data/a,b/llama2_70b_lora";
  r.dir.system = "sys \"fast\"";
  std::string text = render({r}, ReportFormat::kCsv);
  EXPECT_NE(text.find("\"/data/a,b/llama2_70b_lora\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"sys \"\"fast\"\"\""), std::string::npos) << text;
  auto rows = parse_csv(text);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[1].size(), rows[0].size());
  auto row = by_header(rows[0], rows[1]);
  EXPECT_EQ(row["directory"], "/data/a,b/llama2_70b_lora");
  EXPECT_EQ(row["system"], "sys \"fast\"");
  EXPECT_EQ(row["benchmark"], "llama2_70b_lora");
}

TEST(ReportCsv, NoDirectoriesIsJustTheHeader) {
  auto lines = lines_of(render({}, ReportFormat::kCsv));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("directory,", 0), 0u);
}

// ---------------------------------------------------------------------------------------------
// markdown

// Cells of a markdown table row: split on '|' not preceded by a backslash, trimmed.
std::vector<std::string> md_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += "\\|";
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  cells.push_back(cell);
  // Leading and trailing pipes leave empty outer pieces.
  if (!cells.empty() && cells.front().empty()) cells.erase(cells.begin());
  if (!cells.empty() && cells.back().empty()) cells.pop_back();
  for (auto& c : cells) {
    auto b = c.find_first_not_of(' ');
    auto e = c.find_last_not_of(' ');
    c = b == std::string::npos ? "" : c.substr(b, e - b + 1);
  }
  return cells;
}

TEST(ReportMarkdown, HeaderSeparatorAndOneRowPerDirectory) {
  std::string text = render({passing_result(), failing_result()}, ReportFormat::kMarkdown);
  auto lines = lines_of(text);
  ASSERT_EQ(lines.size(), 4u) << text;
  auto header = md_cells(lines[0]);
  ASSERT_FALSE(header.empty());
  EXPECT_EQ(header.front(), "directory");
  EXPECT_EQ(header[26], "expected_result");  // the inference columns, then MLPerf HPC's, then power's
  EXPECT_EQ(header[header.size() - 4], "throughput");
  EXPECT_EQ(header[header.size() - 2], "power_units");
  EXPECT_EQ(header.back(), "design_power_watts");
  auto sep = md_cells(lines[1]);
  ASSERT_EQ(sep.size(), header.size());
  for (const auto& s : sep) EXPECT_EQ(s, "---");

  auto first_cells = md_cells(lines[2]);
  ASSERT_EQ(first_cells.size(), header.size());
  auto first = by_header(header, first_cells);
  EXPECT_EQ(first["benchmark"], "llama2_70b_lora");
  EXPECT_EQ(first["platform"], "MI355X");
  EXPECT_EQ(first["ruleset"], "5.1.0");
  EXPECT_EQ(first["counted"], "3");
  EXPECT_EQ(first["olympic_minutes"], "10.0000");
  EXPECT_EQ(first["rcp_case"], "exact");
  EXPECT_EQ(first["normalization_factor"], "1.018475");
  EXPECT_EQ(first["score_minutes"], "10.18");
  EXPECT_EQ(first["expected_minutes"], "10.18");
  EXPECT_EQ(first["delta_percent"], "+0.05");
  EXPECT_EQ(first["within_tolerance"], "true");
  EXPECT_EQ(first["passed"], "true");

  auto second_cells = md_cells(lines[3]);
  ASSERT_EQ(second_cells.size(), header.size());
  auto second = by_header(header, second_cells);
  EXPECT_EQ(second["benchmark"], "flux1");
  EXPECT_EQ(second["score_minutes"], "");
  EXPECT_EQ(second["passed"], "false");
}

TEST(ReportMarkdown, PipeInsideACellIsEscaped) {
  DirectoryResult r = passing_result();
  r.dir.system = "A|B";
  auto lines = lines_of(render({r}, ReportFormat::kMarkdown));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[2].find("A\\|B"), std::string::npos) << lines[2];
  auto header = md_cells(lines[0]);
  auto cells = md_cells(lines[2]);
  ASSERT_EQ(cells.size(), header.size()) << lines[2];
  EXPECT_EQ(by_header(header, cells)["system"], "A\\|B");
}

// ---------------------------------------------------------------------------------------------
// table

TEST(ReportTable, PassingDirectory) {
  std::ostringstream out;
  write_table(out, passing_result(), RcpPass::kPruned);
  std::string text = out.str();
  EXPECT_NE(text.find("AMD / MI355X_EPYC_9575F_pytorch / llama2_70b_lora"), std::string::npos) << text;
  EXPECT_NE(text.find("MI355X (from system description)"), std::string::npos) << text;
  EXPECT_NE(text.find("ruleset 5.1.0 (path)"), std::string::npos) << text;
  EXPECT_NE(text.find("10.18 minutes"), std::string::npos) << text;
  EXPECT_EQ(text.find("10.1847"), std::string::npos) << text;  // rounded to 2 decimals
  EXPECT_NE(text.find("PASSED"), std::string::npos) << text;
  EXPECT_EQ(text.find("FAILED"), std::string::npos) << text;
  EXPECT_NE(text.find("exact"), std::string::npos) << text;
  EXPECT_NE(text.find("llama2_70b_lora_ref_8 (BS 8)"), std::string::npos) << text;
  EXPECT_NE(text.find("trimmed (fastest)"), std::string::npos) << text;
  EXPECT_NE(text.find("trimmed (slowest)"), std::string::npos) << text;
  EXPECT_NE(text.find("dropped: did not converge"), std::string::npos) << text;
  EXPECT_NE(text.find("result_0.txt"), std::string::npos) << text;
  EXPECT_NE(text.find("result_3.txt"), std::string::npos) << text;
  EXPECT_NE(text.find("3 of 4 runs counted"), std::string::npos) << text;
  EXPECT_NE(text.find("+0.05 %"), std::string::npos) << text;
  EXPECT_NE(text.find("within 5 %"), std::string::npos) << text;
  EXPECT_NE(text.find("warning: only 4 of 10 required runs\n"), std::string::npos) << text;
  EXPECT_NE(text.find("warning: batch size | differs\n"), std::string::npos) << text;
}

TEST(ReportTable, CaseLineNamesTheRcpCase) {
  DirectoryResult r = passing_result();
  r.rcp.rcp_case = RcpCase::kInterpolated;
  std::ostringstream out;
  write_table(out, r, RcpPass::kFull);
  std::string text = out.str();
  EXPECT_NE(text.find("interpolated"), std::string::npos) << text;
  EXPECT_NE(text.find("full set"), std::string::npos) << text;
}

TEST(ReportTable, NoScorePrintsNoneAndFailed) {
  std::ostringstream out;
  write_table(out, failing_result(), RcpPass::kPruned);
  std::string text = out.str();
  EXPECT_NE(text.find("score          none"), std::string::npos) << text;
  EXPECT_NE(text.find("FAILED"), std::string::npos) << text;
  EXPECT_EQ(text.find("PASSED"), std::string::npos) << text;
  EXPECT_NE(text.find("insufficient_convergence"), std::string::npos) << text;
  EXPECT_NE(text.find("not converged"), std::string::npos) << text;
  EXPECT_NE(text.find("no run_stop"), std::string::npos) << text;
  EXPECT_NE(text.find("no published figure for flux1"), std::string::npos) << text;
  EXPECT_NE(text.find("warning: 1 of 10 required runs"), std::string::npos) << text;
  EXPECT_NE(text.find("- / - / flux1"), std::string::npos) << text;
}

TEST(ReportTable, RcpFailureIsFailedEvenWithAnOlympicMean) {
  DirectoryResult r = passing_result();
  r.rcp.passed = false;
  r.rcp.rcp_case = RcpCase::kMissing;
  r.score_minutes.reset();
  r.passed = false;
  std::ostringstream out;
  write_table(out, r, RcpPass::kPruned);
  std::string text = out.str();
  EXPECT_NE(text.find("none"), std::string::npos) << text;
  EXPECT_NE(text.find("FAILED (RCP check)"), std::string::npos) << text;
  EXPECT_NE(text.find("missing"), std::string::npos) << text;
  EXPECT_EQ(text.find("PASSED"), std::string::npos) << text;
}

TEST(ReportTable, UnknownPlatformIsLabelled) {
  DirectoryResult r = passing_result();
  r.platform = PlatformTag{"Custom GPU", "system description", false};
  std::ostringstream out;
  write_table(out, r, RcpPass::kPruned);
  EXPECT_NE(out.str().find("Custom GPU (not a known platform)"), std::string::npos) << out.str();
}

TEST(ReportTable, WriteReportSeparatesDirectories) {
  std::string text = render({passing_result(), failing_result()}, ReportFormat::kTable);
  std::ostringstream one, two;
  write_table(one, passing_result(), RcpPass::kPruned);
  write_table(two, failing_result(), RcpPass::kPruned);
  // The directories, then the summary that makes the last screen answer "did it pass?".
  const std::string summary =
      "\nsummary\n"
      "  AMD / MI355X_EPYC_9575F_pytorch  llama2_70b_lora  10.18 minutes  PASSED                           +0.05 % vs published\n"
      "  - / -                            flux1                 no score  FAILED (no valid olympic score)  no published figure\n"
      "2 directories: 1 passed, 1 failed\n";
  EXPECT_EQ(text, one.str() + "\n" + two.str() + summary);
}

}  // namespace
}  // namespace mlperf
