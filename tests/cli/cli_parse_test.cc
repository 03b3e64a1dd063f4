// `mlperf-score parse`: every MLLOG event as one JSON line, errors with file and line on
// stderr, --keys, standard input, and the exit statuses (0 clean, 1 bad line, 2 unreadable).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../test_support.h"

namespace mlperf {
namespace {

using testing::binary;
using testing::q;
using testing::example_system;
using testing::read_file;
using testing::run_command;
using testing::TempDir;
using testing::write_file;


// Noise, rank prefixes, a CRLF line, a bad line, two tokens on one line, no final newline.
const std::string kLog =
    "launcher: starting 8 ranks\n"
    "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 1000, \"event_type\": \"INTERVAL_START\", \"key\": "
    "\"run_start\", \"value\": null, \"metadata\": {\"file\": \"a.py\", \"lineno\": 1}}\n"
    "[1,0]<stdout>: :::MLLOG {\"time_ms\": 1500.5, \"event_type\": \"POINT_IN_TIME\", \"key\": "
    "\"eval_accuracy\", \"value\": 0.91, \"metadata\": {\"samples_count\": 3072, \"epoch_num\": 1}}\r\n"
    ":::MLLOG {\"time_ms\": oops\n"
    "x :::MLLOG junk :::MLLOG {\"time_ms\": 61000, \"event_type\": \"INTERVAL_END\", \"key\": \"run_stop\", "
    "\"value\": {\"a\": [1, 2]}, \"metadata\": {\"status\": \"success\"}}";

std::string expected_lines(const std::string& file) {
  return "{\"file\":\"" + file +
         "\",\"line\":2,\"time_ms\":1000,\"event_type\":\"INTERVAL_START\",\"key\":\"run_start\",\"value\":null,"
         "\"metadata\":{\"file\":\"a.py\",\"lineno\":1}}\n"
         "{\"file\":\"" + file +
         "\",\"line\":3,\"time_ms\":1500.5,\"event_type\":\"POINT_IN_TIME\",\"key\":\"eval_accuracy\","
         "\"value\":0.91,\"metadata\":{\"epoch_num\":1,\"samples_count\":3072}}\n"
         "{\"file\":\"" + file +
         "\",\"line\":5,\"time_ms\":61000,\"event_type\":\"INTERVAL_END\",\"key\":\"run_stop\","
         "\"value\":{\"a\":[1,2]},\"metadata\":{\"status\":\"success\"}}\n";
}

TEST(CliParse, PrintsEveryEventAsOneJsonLineAndTheBadLineOnStderr) {
  TempDir tmp;
  auto log = tmp.path() / "result_0.txt";
  write_file(log, kLog);
  auto r = run_command(binary() + " parse " + q(log) + " 2>" + q(tmp.path() / "err"));
  EXPECT_EQ(r.status, 1);  // one MLLOG line failed to parse
  EXPECT_EQ(r.out, expected_lines(log.string()));
  std::string err = read_file(tmp.path() / "err");
  EXPECT_EQ(err.rfind(log.string() + ":4: invalid MLLOG JSON", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST(CliParse, KeysFilter) {
  TempDir tmp;
  auto log = tmp.path() / "result_0.txt";
  write_file(log, kLog);
  auto r = run_command(binary() + " parse --keys run_start,run_stop " + q(log) + " 2>/dev/null");
  EXPECT_EQ(r.status, 1);  // the bad line still counts
  std::string all = expected_lines(log.string());
  std::string first = all.substr(0, all.find('\n') + 1);
  std::string last = all.substr(all.rfind('\n', all.size() - 2) + 1);
  EXPECT_EQ(r.out, first + last);
}

TEST(CliParse, StandardInputIsNamedStdin) {
  TempDir tmp;
  auto log = tmp.path() / "result_0.txt";
  write_file(log, kLog);
  auto r = run_command("cat " + q(log) + " | " + binary() + " parse - 2>" + q(tmp.path() / "err"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, expected_lines("<stdin>"));
  EXPECT_EQ(read_file(tmp.path() / "err").rfind("<stdin>:4: invalid MLLOG JSON", 0), 0u);
}

TEST(CliParse, Latin1BytesBecomeUtf8) {
  TempDir tmp;
  auto log = tmp.path() / "result_0.txt";
  write_file(log, ":::MLLOG {\"time_ms\": 5, \"key\": \"submission_org\", \"value\": \"Caf\xe9\"}\n");
  auto r = run_command(binary() + " parse " + q(log));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "{\"file\":\"" + log.string() +
                       "\",\"line\":1,\"time_ms\":5,\"event_type\":null,\"key\":\"submission_org\","
                       "\"value\":\"Caf\xc3\xa9\",\"metadata\":{}}\n");
}

TEST(CliParse, ARealLogParsesCleanlyLineForLine) {
  auto log = example_system() / "llama2_70b_lora/result_0.txt";
  std::string text = read_file(log);
  std::size_t mllog_lines = 0;
  for (std::size_t at = text.find(":::MLLOG "); at != std::string::npos; at = text.find(":::MLLOG ", at + 1)) {
    ++mllog_lines;
  }
  auto r = run_command(binary() + " parse " + q(log));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(static_cast<std::size_t>(std::count(r.out.begin(), r.out.end(), '\n')), mllog_lines);
  auto stops = run_command(binary() + " parse --keys run_start,run_stop " + q(log));
  EXPECT_EQ(stops.status, 0);
  auto newline = stops.out.find('\n');
  ASSERT_NE(newline, std::string::npos);
  auto start = nlohmann::json::parse(stops.out.substr(0, newline));
  auto stop = nlohmann::json::parse(stops.out.substr(newline + 1));
  EXPECT_EQ(start["line"], 21);
  EXPECT_EQ(start["time_ms"], 1759734393481LL);
  EXPECT_EQ(stop["line"], 58);
  EXPECT_EQ(stop["time_ms"], 1759735060271LL);
  EXPECT_EQ(stop["metadata"]["status"], "success");
  EXPECT_EQ(stop["metadata"]["samples_count"], 3456);
}

TEST(CliParse, UnreadableFileExitsTwoAndTheOthersAreStillRead) {
  TempDir tmp;
  auto log = tmp.path() / "result_0.txt";
  write_file(log, kLog);
  auto missing = tmp.path() / "missing.txt";
  auto r = run_command(binary() + " parse " + q(missing) + " " + q(tmp.path()) + " " + q(log) + " 2>" +
                       q(tmp.path() / "err"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, expected_lines(log.string()));
  std::string err = read_file(tmp.path() / "err");
  EXPECT_NE(err.find(missing.string() + ": cannot open"), std::string::npos) << err;
  EXPECT_NE(err.find(tmp.path().string() + ": cannot open"), std::string::npos) << err;  // a directory
  EXPECT_NE(err.find(log.string() + ":4: invalid MLLOG JSON"), std::string::npos) << err;
}

TEST(CliParse, AFileWithoutMllogLinesSaysSoAndExitsZero) {
  // A loadgen summary or a harness's output holds no MLLOG line: nothing on stdout, a note on
  // stderr, so an empty answer is never mistaken for a log of no events. --keys filtering
  // every event away is no such case.
  TempDir tmp;
  write_file(tmp.path() / "summary.txt", "MLPerf Results Summary\nTokens per second: 27803.9\nResult is : VALID\n");
  write_file(tmp.path() / "empty.txt", "");
  write_file(tmp.path() / "result_0.txt", kLog);
  auto r = run_command(binary() + " parse " + q(tmp.path() / "summary.txt") + " " + q(tmp.path() / "empty.txt") + " " +
                       q(tmp.path() / "result_0.txt") + " --keys no_such_key 2>" + q(tmp.path() / "err"));
  EXPECT_EQ(r.status, 1);  // result_0.txt's bad line
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_file(tmp.path() / "err"),
            "mlperf-score: note: " + (tmp.path() / "summary.txt").string() +
                ": no MLLOG line (\":::MLLOG {...}\") in its 3 lines\n"
                "mlperf-score: note: " + (tmp.path() / "empty.txt").string() + " is empty\n" +
                (tmp.path() / "result_0.txt").string() + ":4: invalid MLLOG JSON at column 22: syntax error while "
                "parsing value - invalid literal; last read: '\"time_ms\": o'\n");
  auto clean = run_command(binary() + " parse " + q(tmp.path() / "summary.txt") + " 2>/dev/null");
  EXPECT_EQ(clean.status, 0);
}

TEST(CliParse, UsageErrorExitsTwo) { EXPECT_EQ(run_command(binary() + " parse 2>/dev/null").status, 2); }

}  // namespace
}  // namespace mlperf
