// MLPerf Inference Power (power.h): the power figure of a scenario folder with a power
// measurement, on real UntetherAI v4.1 folders (tests/data/inference/power_v4.1.tar.gz: the
// performance/ folders of closed/UntetherAI/results/h13_u3_slim/resnet50/{singlestream,
// multistream,offline} from mlcommons/inference_results_v4.1, Apache-2.0, unchanged) against
// the official v4.1 submission checker's figures, and on made-up folders for each rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "../test_support.h"
#include "mlperf/inference/power.h"
#include "mlperf/inference/score.h"
#include "mlperf/report/compare.h"
#include "mlperf/report/html/report.h"
#include "mlperf/report/inference_report.h"
#include "mlperf/report/report.h"
#include "mlperf/report/summary.h"

namespace mlperf::inference {
namespace {

namespace fs = std::filesystem;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;

const DataContext& power_data() { return testing::source_data(); }

const ValidityCheck* power_check(const std::vector<ValidityCheck>& checks, const std::string& name) {
  for (const auto& c : checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

DirectoryResult score_folder(const fs::path& scenario_dir, const DataContext& data = power_data()) {
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(scenario_dir, errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(dirs.size(), 1u);
  if (dirs.size() != 1) return {};
  return score_inference_directory(dirs[0], data, ScoreOptions{});
}

TEST(Power, TimestampsParseAsTheCheckersStrptime) {
  EXPECT_EQ(parse_power_timestamp("01-01-1970 00:00:00.0"), 0);
  EXPECT_EQ(parse_power_timestamp("01-02-1970 00:00:01.000001"), 86401000001LL);
  EXPECT_EQ(parse_power_timestamp("7-3-1970 1:2:3.5"), ((31 + 28 + 31 + 30 + 31 + 30 + 2) * 86400LL + 3723) * 1000000 + 500000);
  const auto begin = parse_power_timestamp("07-23-2024 15:48:32.939");
  const auto end = parse_power_timestamp("07-23-2024 15:58:32.939");
  ASSERT_TRUE(begin && end);
  EXPECT_EQ(*end - *begin, 600000000);
  EXPECT_EQ(*parse_power_timestamp("03-01-2024 00:00:00.0") - *parse_power_timestamp("02-29-2024 00:00:00.0"),
            86400000000LL);  // a leap day
  for (const char* bad : {"02-29-2023 00:00:00.0", "13-01-2024 00:00:00.0", "02-30-2024 00:00:00.0",
                          "07-23-24 15:48:32.939", "07-23-2024 15:48:32", "07-23-2024 15:48:60.0",
                          "07-23-2024 24:00:00.0", "07-23-2024 15:48:32.9390000", "07-23-2024 15:48:32.939 ",
                          "07/23/2024 15:48:32.939", ""}) {
    EXPECT_FALSE(parse_power_timestamp(bad)) << bad;
  }
}

// The official v4.1 checker (submission_checker.py --version v4.1, power rows of its CSV)
// gives these figures for the three folders, to the last digit.
TEST(Power, RealUntetherAiFoldersGiveTheOfficialFigures) {
  TempDir tmp;
  auto r = testing::run_command("tar -xzf " + testing::q(source_dir() / "tests/data/inference/power_v4.1.tar.gz") +
                                " -C " + testing::q(tmp.path()));
  ASSERT_EQ(r.status, 0) << r.out;
  const fs::path system = tmp.path() / "inference_results_v4.1/closed/UntetherAI/results/h13_u3_slim/resnet50";
  struct Expected {
    const char* folder;
    double power_metric;
    const char* units;
    std::size_t samples;
    double efficiency;
  };
  std::vector<DirectoryResult> all;
  for (const Expected& e : {Expected{"singlestream", 29.238986918361313, "millijoules", 600, 34.200911365093376},
                            Expected{"multistream", 61.316696672746566, "millijoules", 600, 130.4701726300882},
                            Expected{"offline", 398.32998477930016, "Watts", 657, 423.5684142470005}}) {
    SCOPED_TRACE(e.folder);
    DirectoryResult d = score_folder(system / e.folder);
    ASSERT_TRUE(d.inference);
    ASSERT_TRUE(d.inference->power);
    const PowerResult& p = *d.inference->power;
    ASSERT_TRUE(p.power_metric);
    EXPECT_EQ(*p.power_metric, e.power_metric);  // exact: the same operations in the same order
    EXPECT_EQ(p.units, e.units);
    EXPECT_EQ(p.samples, e.samples);
    ASSERT_TRUE(p.efficiency);
    EXPECT_EQ(*p.efficiency, e.efficiency);
    EXPECT_TRUE(p.valid);
    for (const char* name : {"ranging_run", "ranging_files", "power_files", "power_samples"}) {
      ASSERT_NE(power_check(p.checks, name), nullptr) << name;
      EXPECT_TRUE(power_check(p.checks, name)->passed) << name;
    }
    // run_1 must hold spl.txt beside the loadgen logs in a power submission.
    const ValidityCheck* files = power_check(d.inference->checks, "performance_files");
    ASSERT_NE(files, nullptr);
    EXPECT_TRUE(files->passed);
    EXPECT_EQ(files->limit, nlohmann::json({"mlperf_log_summary.txt", "mlperf_log_detail.txt", "spl.txt"}));
    // Both JSON writers give the power object alike.
    const nlohmann::json j = mlperf::inference_to_json(d);
    EXPECT_EQ(mlperf::inference_to_json_text(d), j.dump(2));
    EXPECT_EQ(j["power"]["power_metric"], e.power_metric);
    EXPECT_EQ(j["power"]["units"], e.units);
    // CSV ends with the figure at full precision, its units and no design power (before v6.1).
    std::ostringstream csv;
    write_report(csv, {d}, ReportFormat::kCsv, RcpPass::kPruned);
    EXPECT_NE(csv.str().find(fmt::format(",{},{},\n", e.power_metric, e.units)), std::string::npos) << csv.str();
    EXPECT_TRUE(std::any_of(d.warnings.begin(), d.warnings.end(), [](const std::string& w) {
      return w.find("power_checker.py") != std::string::npos && w.find("is not run") != std::string::npos;
    }));
    all.push_back(std::move(d));
  }
  // summarize: a Power column beside each power folder's Accuracy column, and in JSON.
  const Summary summary = summarize(all, power_data().facts());
  std::ostringstream table, csv;
  write_summary(table, summary, all, ReportFormat::kTable, RcpPass::kPruned);
  write_summary(csv, summary, all, ReportFormat::kCsv, RcpPass::kPruned);
  EXPECT_NE(table.str().find("resnet50/SingleStream Power"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("29.239 millijoules"), std::string::npos) << table.str();
  EXPECT_NE(csv.str().find("resnet50/Offline Power"), std::string::npos) << csv.str();
  EXPECT_NE(csv.str().find("398.33 Watts"), std::string::npos) << csv.str();
  // The HTML report shows the figure beside the performance figure, with its checks.
  const std::string html = mlperf::html::score_report(all, RcpPass::kPruned);
  EXPECT_NE(html.find("29.239 millijoules"), std::string::npos);
  EXPECT_NE(html.find("power check"), std::string::npos);
  // compare: the power figure beside the result of each power folder.
  const Comparison comparison = compare_results(all, 1);
  ASSERT_EQ(comparison.rows.size(), 3u);
  for (const auto& row : comparison.rows) {
    ASSERT_TRUE(row.power_result);
    EXPECT_EQ(to_json(row)["power_result"], *row.power_result);
  }
  std::ostringstream compared;
  write_comparison(compared, comparison, ReportFormat::kTable);
  EXPECT_NE(compared.str().find("29.239 millijoules"), std::string::npos) << compared.str();
  const nlohmann::json sj = to_json(summary, all, RcpPass::kPruned);
  EXPECT_EQ(sj["systems"][0]["power"]["resnet50/MultiStream"]["power_result"], 61.316696672746566);
  EXPECT_EQ(sj["systems"][0]["power"]["resnet50/MultiStream"]["power_units"], "millijoules");
  // Without the power folder the same run is no power submission: no figure, no spl.txt asked
  // (a new context: the one above keeps the submitter tree it listed).
  fs::remove_all(system / "offline/performance/power");
  const DataContext fresh(source_dir());
  DirectoryResult plain = score_folder(system / "offline", fresh);
  ASSERT_TRUE(plain.inference);
  EXPECT_FALSE(plain.inference->power);
  const ValidityCheck* files = power_check(plain.inference->checks, "performance_files");
  ASSERT_NE(files, nullptr);
  EXPECT_FALSE(files->passed);  // spl.txt is now an unexpected file
  EXPECT_EQ(files->value["extra"], nlohmann::json({"spl.txt"}));
}

// One loadgen MLLOG line.
std::string power_event(const std::string& key, const std::string& value_json) {
  return ":::MLLOG {\"key\": \"" + key + "\", \"value\": " + value_json +
         ", \"time_ms\": 1.000000, \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", "
         "\"metadata\": {\"is_error\": false, \"is_warning\": false, \"file\": \"results.cc\", \"line_no\": 1, "
         "\"pid\": 7, \"tid\": 7}}\n";
}

// A resnet run of `scenario` with its power window from 10:00:00.0 to 10:00:10.5.
std::string power_run_log(const std::string& scenario, bool window = true) {
  std::string log = power_event("loadgen_version", "\"5.1.0 @ 091d51f041\"") +
                    power_event("effective_scenario", "\"" + scenario + "\"") +
                    power_event("result_samples_per_second", "3000.0") +
                    power_event("result_90.00_percentile_latency_ns", "2000000") +
                    power_event("early_stopping_latency_ss", "2000000") + power_event("result_query_count", "4000") +
                    power_event("result_validity", "\"VALID\"");
  if (window) {
    log += power_event("power_begin", "\"01-02-2025 10:00:00.000\"") +
           power_event("power_end", "\"01-02-2025 10:00:10.500\"");
  }
  return log;
}

std::string sample(const std::string& time, const std::string& watts) {
  return "Time," + time + ",Watts," + watts + ",Volts,230.000000,Amps,1.000000,PF,0.990000,Mark,run_testing\n";
}

// Samples at and outside the window's ends, of zero watts, and lines not starting "Time" are
// left out; the mean of the rest is the figure.
std::string window_samples() {
  return "Ranging mode: begin\n" + sample("01-02-2025 09:59:59.999", "900.0") +
         sample("01-02-2025 10:00:00.000", "900.0") +  // at power_begin: not inside
         sample("01-02-2025 10:00:01.000", "100.0") + sample("01-02-2025 10:00:02.000", "0.000000") +
         sample("01-02-2025 10:00:03.000", "200.0") + "Error,01-02-2025 10:00:04.000,Watts,900.0\n" +
         sample("01-02-2025 10:00:05.5", "300.0") + sample("01-02-2025 10:00:10.500", "900.0") +  // at power_end
         sample("01-02-2025 10:00:11.000", "900.0");
}

// A power scenario folder of resnet50 in the v5.1 submission layout.
fs::path make_power_folder(const fs::path& root, const std::string& scenario, const std::string& folder) {
  const fs::path dir = root / "inference_results_v5.1/closed/Org/results/sys/resnet50" / folder;
  for (const char* run : {"run_1", "ranging"}) {
    write_file(dir / "performance" / run / "mlperf_log_detail.txt", power_run_log(scenario));
    write_file(dir / "performance" / run / "mlperf_log_summary.txt", "SUT name : x\n");
    write_file(dir / "performance" / run / "spl.txt", window_samples());
  }
  for (const char* f : {"client.json", "client.log", "ptd_logs.txt", "server.json", "server.log"}) {
    write_file(dir / "performance/power" / f, "{}\n");
  }
  return dir;
}

TEST(Power, SamplesInsideTheWindowAreAveragedIntoWattsOrMillijoulesPerQuery) {
  TempDir tmp;
  DirectoryResult offline = score_folder(make_power_folder(tmp.path(), "Offline", "Offline"));
  ASSERT_TRUE(offline.inference && offline.inference->power);
  const PowerResult& w = *offline.inference->power;
  EXPECT_TRUE(w.valid);
  EXPECT_EQ(w.samples, 3u);
  EXPECT_EQ(w.average_watts, 200.0);
  EXPECT_EQ(w.power_metric, 200.0);
  EXPECT_EQ(w.units, "Watts");
  EXPECT_EQ(w.duration_s, 10.5);
  EXPECT_EQ(w.efficiency, 3000.0 / 200.0);  // samples/s per W
  EXPECT_EQ(w.power_begin, "01-02-2025 10:00:00.000");

  // SingleStream: energy per query, 200 W × 10.5 s × 1000 / 4000 queries = 525 mJ.
  DirectoryResult single = score_folder(make_power_folder(tmp.path(), "SingleStream", "SingleStream"));
  ASSERT_TRUE(single.inference && single.inference->power);
  const PowerResult& s = *single.inference->power;
  EXPECT_TRUE(s.valid);
  EXPECT_EQ(s.units, "millijoules");
  EXPECT_EQ(s.power_metric, 200.0 * 10.5 * 1000 / 4000);
  EXPECT_EQ(s.efficiency, 1000 / (200.0 * 10.5 * 1000 / 4000));
}

TEST(Power, EachMissingPartMakesTheMeasurementInvalid) {
  TempDir tmp;
  auto failed = [](const DirectoryResult& d) {
    std::vector<std::string> names;
    if (d.inference && d.inference->power) {
      for (const auto& c : d.inference->power->checks) {
        if (!c.passed) names.push_back(c.name);
      }
    }
    return names;
  };
  using V = std::vector<std::string>;
  {
    fs::path dir = make_power_folder(tmp.path() / "a", "Offline", "Offline");
    fs::remove_all(dir / "performance/ranging");
    DirectoryResult d = score_folder(dir);
    EXPECT_EQ(failed(d), (V{"ranging_run", "ranging_files"}));
    EXPECT_FALSE(d.inference->valid);
    EXPECT_TRUE(d.inference->power->power_metric);  // still computed; the checker drops the row
  }
  {
    // v6.0's PowerCheck judges the ranging folder's files but does not read its figure.
    const fs::path dir = tmp.path() / "g/inference_results_v6.0/closed/Org/results/sys/resnet50/Offline";
    fs::path made = make_power_folder(tmp.path() / "g0", "Offline", "Offline");
    fs::create_directories(dir.parent_path());
    fs::rename(made, dir);
    fs::remove(dir / "performance/ranging/mlperf_log_detail.txt");
    DirectoryResult d = score_folder(dir);
    ASSERT_TRUE(d.inference && d.inference->power);
    EXPECT_EQ(d.inference->round, "v6.0");
    EXPECT_EQ(failed(d), (V{"ranging_files"}));
  }
  {
    fs::path dir = make_power_folder(tmp.path() / "b", "Offline", "Offline");
    write_file(dir / "performance/power/notes.txt", "x");
    fs::remove(dir / "performance/power/server.log");
    DirectoryResult d = score_folder(dir);
    EXPECT_EQ(failed(d), (V{"power_files"}));
    const ValidityCheck* c = power_check(d.inference->power->checks, "power_files");
    EXPECT_EQ(c->value["missing"], nlohmann::json({"server.log"}));
    EXPECT_EQ(c->value["extra"], nlohmann::json({"notes.txt"}));
  }
  {
    fs::path dir = make_power_folder(tmp.path() / "c", "Offline", "Offline");
    write_file(dir / "performance/run_1/mlperf_log_detail.txt", power_run_log("Offline", false));
    DirectoryResult d = score_folder(dir);
    EXPECT_EQ(failed(d), (V{"power_samples"}));
    EXPECT_FALSE(d.inference->power->power_metric);
    EXPECT_NE(power_check(d.inference->power->checks, "power_samples")->message.find("no power_begin"),
              std::string::npos);
  }
  {
    fs::path dir = make_power_folder(tmp.path() / "d", "Offline", "Offline");
    write_file(dir / "performance/run_1/spl.txt", sample("01-02-2025 09:00:00.000", "100.0"));
    DirectoryResult d = score_folder(dir);
    EXPECT_EQ(failed(d), (V{"power_samples"}));
    EXPECT_NE(power_check(d.inference->power->checks, "power_samples")->message.find("has no power samples falling in power range"),
              std::string::npos);
  }
  {
    fs::path dir = make_power_folder(tmp.path() / "e", "Offline", "Offline");
    write_file(dir / "performance/run_1/spl.txt",
               sample("01-02-2025 10:00:01.000", "100.0") + sample("01-02-2025 10:00:02.000", "n/a"));
    DirectoryResult d = score_folder(dir);
    EXPECT_EQ(failed(d), (V{"power_samples"}));
    EXPECT_NE(power_check(d.inference->power->checks, "power_samples")->message.find("spl.txt:2:"), std::string::npos);
  }
  {
    // run_1 without spl.txt: the run folder's file list fails (REQUIRED_PERF_POWER_FILES).
    fs::path dir = make_power_folder(tmp.path() / "f", "Offline", "Offline");
    fs::remove(dir / "performance/run_1/spl.txt");
    DirectoryResult d = score_folder(dir);
    const ValidityCheck* files = power_check(d.inference->checks, "performance_files");
    ASSERT_NE(files, nullptr);
    EXPECT_FALSE(files->passed);
    EXPECT_EQ(files->value["missing"], nlohmann::json({"spl.txt"}));
    EXPECT_EQ(failed(d), (V{"power_samples"}));
  }
}

// check_measurement_dir looks for the analyzer table and the power settings in the scenario's
// measurements folder and the three above it; the last one found must not be empty.
TEST(Power, AnalyzerTableAndPowerSettingsAreFoundUpToThreeFoldersAbove) {
  TempDir tmp;
  const fs::path measurements = tmp.path() / "Org/measurements";
  const fs::path dir = measurements / "sys/resnet50/Offline";
  write_file(dir / "sys.json", "{}");
  ValidityCheck none = judge_power_measurement_files(dir.string());
  EXPECT_FALSE(none.passed);
  EXPECT_EQ(none.value, nlohmann::json({"analyzer_table.* missing", "power_settings.* missing"}));
  EXPECT_EQ(none.file, dir.string());
  write_file(measurements / "analyzer_table.md", "Yokogawa WT310\n");  // three folders above
  write_file(dir.parent_path() / "power_settings.md", "");             // one above, empty
  ValidityCheck empty = judge_power_measurement_files(dir.string());
  EXPECT_FALSE(empty.passed);
  EXPECT_EQ(empty.value, nlohmann::json({(dir.parent_path() / "power_settings.md").string() + " empty"}));
  write_file(dir.parent_path() / "power_settings.md", "max Q\n");
  EXPECT_TRUE(judge_power_measurement_files(dir.string()).passed);
  // Four folders above is too far.
  fs::remove(measurements / "analyzer_table.md");
  write_file(tmp.path() / "analyzer_table.md", "x");
  EXPECT_EQ(judge_power_measurement_files(dir.string()).value, nlohmann::json({"analyzer_table.* missing"}));
}

}  // namespace
}  // namespace mlperf::inference
