// The reports of `check` (report/check_report.h): GitHub annotations, JSON and the table,
// written from a CheckReport made here.
#include "mlperf/report/check_report.h"
#include "mlperf/report/exact_bytes.h"

#include <gtest/gtest.h>

#include <sstream>

#include "../test_support.h"

namespace mlperf {
namespace {

using testing::rs;

CheckReport sample_report() {
  CheckReport r;
  r.directory = "/results/AMD/results/sys/llama31_8b";
  r.submitter = "AMD";
  r.system = "sys";
  r.benchmark = "llama31_8b";
  r.division = "closed";
  r.ruleset = rs("5.1.0");
  r.ruleset_source = "path";
  CheckResult order{"event_order", "order", {}};
  order.findings.push_back({"event_order", Finding::kError, r.directory + "/result_2.txt", 41, "run_start, 100% early\nreally"});
  CheckResult count{"run_count", "count", {}};
  count.findings.push_back({"run_count", Finding::kWarning, r.directory, 0, "unknown benchmark"});
  r.checks = {order, count, CheckResult{"rcp", "rcp", {}}};
  return r;
}

TEST(CheckOutput, GithubAnnotationsEscapeDataAndProperties) {
  EXPECT_EQ(github_escape_data("50% a\r\nb: c, d"), "50%25 a%0D%0Ab: c, d");
  EXPECT_EQ(github_escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
  std::ostringstream out;
  write_github_annotations(out, {sample_report()});
  EXPECT_EQ(out.str(),
            "::error file=/results/AMD/results/sys/llama31_8b/result_2.txt,line=41,title=event_order::run_start, 100%25 "
            "early%0Areally\n"
            "::warning file=/results/AMD/results/sys/llama31_8b,title=run_count::unknown benchmark\n"
            "check: 1 directory, 0 passed, 1 failed; 1 error, 1 warning\n");
}

TEST(CheckOutput, JsonHasEveryCheckAndNullForAMissingLine) {
  auto j = check_to_json(sample_report());
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["errors"], 1);
  EXPECT_EQ(j["warnings"], 1);
  EXPECT_EQ(j["ruleset"], "5.1.0");
  ASSERT_EQ(j["checks"].size(), 3u);
  EXPECT_EQ(j["checks"][0]["check"], "event_order");
  EXPECT_EQ(j["checks"][0]["passed"], false);
  EXPECT_EQ(j["checks"][0]["findings"][0]["line"], 41);
  EXPECT_EQ(j["checks"][0]["findings"][0]["severity"], "error");
  EXPECT_TRUE(j["checks"][1]["findings"][0]["line"].is_null());
  EXPECT_EQ(j["checks"][1]["passed"], true);
  EXPECT_EQ(j["checks"][2]["findings"].size(), 0u);
}

TEST(CheckOutput, TableShowsEachCheckAndItsFindingsUnderIt) {
  std::ostringstream out;
  write_check_table(out, {sample_report()});
  EXPECT_EQ(out.str(),
            "AMD / sys / llama31_8b: FAILED (1 error) (1 warning)\n"
            "  directory  /results/AMD/results/sys/llama31_8b\n"
            "  division closed   ruleset 5.1.0 (path)\n"
            "\n"
            "  event_order        FAIL, 1 error\n"
            "    error    result_2.txt:41: run_start, 100% early\\nreally\n"  // a newline cannot forge a line
            "  run_count          pass, 1 warning\n"
            "    warning  .: unknown benchmark\n"
            "  rcp                pass\n"
            "\n"
            "check: 1 directory, 0 passed, 1 failed; 1 error, 1 warning\n");
}

// Rows are padded by characters (a check name of accents, one past the column) and every
// name is made safe for the terminal (an escape in the directory, the system and a file).
TEST(CheckOutput, TableRowsPadByCharactersAndEscapeNames) {
  CheckReport r;
  r.directory = "/r/s\x1b[2Jys/b";
  r.system = "s\x1b[2Jys";
  r.benchmark = "b";
  r.division = "open";
  r.ruleset = rs("5.0.0");
  r.ruleset_source = "guessed";
  CheckResult accents{"résumé", "r", {}};
  accents.findings.push_back({"résumé", Finding::kWarning, r.directory + "/a\tb.txt", 7, "é\x7f"});
  accents.findings.push_back({"résumé", Finding::kWarning, r.directory + "/c.txt", 0, "two"});
  r.checks = {accents, CheckResult{"a_check_name_of_20_", "x", {}}};
  std::ostringstream out;
  write_check_table(out, {r});
  EXPECT_EQ(out.str(),
            "s\\033[2Jys / b: PASSED (2 warnings)\n"
            "  directory  /r/s\\033[2Jys/b\n"
            "  division open   ruleset 5.0.0 (guessed)\n"
            "\n"
            "  résumé             pass, 2 warnings\n"
            "    warning  a\\tb.txt:7: é\\177\n"
            "    warning  c.txt: two\n"
            "  a_check_name_of_20_ pass\n"
            "\n"
            "check: 1 directory, 1 passed, 0 failed; 0 errors, 2 warnings\n");
}

// Streamed (issue #25): any split into batches gives the bytes of the whole report.
TEST(CheckReportWriter, BatchesGiveTheBytesOfOneWholeReport) {
  std::vector<CheckReport> reports;
  for (int i = 0; i < 5; ++i) {
    CheckReport r = sample_report();
    r.directory += std::to_string(i);
    if (i == 3) r.directory += "\xfe";  // not UTF-8
    reports.push_back(r);
  }
  using Format = CheckReportWriter::Format;
  for (Format format : {Format::kJson, Format::kTable, Format::kGithub}) {
    std::ostringstream whole;
    if (format == Format::kJson) write_check_json(whole, reports);
    if (format == Format::kTable) write_check_table(whole, reports);
    if (format == Format::kGithub) write_github_annotations(whole, reports);
    std::ostringstream out;
    CheckReportWriter writer(out, format);
    writer.add({reports[0], reports[1]});
    writer.add({});
    writer.add({reports[2], reports[3], reports[4]});
    writer.finish();
    EXPECT_EQ(out.str(), whole.str()) << static_cast<int>(format);
    // A batch of more reports than are made at once (threads x 8), made on many threads.
    std::vector<CheckReport> many;
    for (int i = 0; i < 150; ++i) many.push_back(reports[i % reports.size()]);
    std::ostringstream many_whole;
    if (format == Format::kJson) write_check_json(many_whole, many);
    if (format == Format::kTable) write_check_table(many_whole, many);
    if (format == Format::kGithub) write_github_annotations(many_whole, many);
    std::ostringstream one_by_one;
    CheckReportWriter single(one_by_one, format);
    for (const auto& r : many) single.add({r});
    single.finish();
    EXPECT_EQ(many_whole.str(), one_by_one.str()) << static_cast<int>(format);
  }
  // The JSON is the one dump of the whole document, _bytes siblings included.
  nlohmann::json doc = {{"results", nlohmann::json::array()}};
  for (const auto& r : reports) doc["results"].push_back(check_to_json(r));
  add_exact_bytes(doc);
  std::ostringstream json;
  write_check_json(json, reports);
  EXPECT_EQ(json.str(), doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  EXPECT_TRUE(doc["results"][3].contains("directory_bytes"));
}

// The JSON entry is written member by member (check_json_entry): with logs, findings,
// names that are not UTF-8 and strings that need escaping in every field, it is still the one
// dump of check_to_json's tree with its exact bytes.
TEST(CheckReportWriter, JsonEntryWrittenByHandIsTheTreeDump) {
  CheckReport odd = sample_report();
  odd.directory = "/r/d\xff";
  odd.submitter = "s\xfe";
  odd.system = "";
  odd.benchmark = "b\"\\";
  odd.division = "d\x01";
  odd.ruleset_source = "guessed\t";
  odd.checks[0].findings.push_back({"event_order", Finding::kWarning, "/r/d\xff/result_0.txt", 0, "m\xc0"});
  odd.checks.push_back(CheckResult{"extra \xff", "desc \xfe", {}});
  odd.logs = {{"/r/d\xff/result_0.txt", false, 2, 1}, {"/r/d/result_1.txt", true, 0, 0}};
  CheckReport bare;
  for (const auto& r : {sample_report(), odd, bare}) {
    nlohmann::json doc = {{"results", nlohmann::json::array({check_to_json(r)})}};
    add_exact_bytes(doc);
    std::ostringstream json;
    write_check_json(json, {r});
    EXPECT_EQ(json.str(), doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n") << r.directory;
  }
  std::ostringstream json;
  write_check_json(json, {odd});
  EXPECT_NE(json.str().find("\"file_bytes\": \"2f722f64ff2f726573756c745f302e747874\""), std::string::npos) << json.str();
}

}  // namespace
}  // namespace mlperf
