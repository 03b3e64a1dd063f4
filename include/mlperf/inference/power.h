#pragma once
// MLPerf Inference Power: the power measurement of a scenario folder whose performance/ holds
// a power/ folder, judged and computed as the round's submission checker does
// (submission_checker.py check_power_dir and get_power_metric, tags v4.1, v5.0 and v5.1.1).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mlperf/inference/loadgen_log.h"
#include "mlperf/inference/result.h"

namespace mlperf::inference {

/// The files a power run's performance/run_1 and performance/ranging folders hold besides the
/// loadgen logs (REQUIRED_PERF_POWER_FILES).
inline constexpr std::string_view kPowerSamplesName = "spl.txt";

/// The power measurement of one scenario folder.
struct PowerResult {
  std::string power_dir;    ///< <scenario>/performance/power
  std::string samples_file;  ///< performance/run_1/spl.txt (the power analyzer's samples)
  /// "Watts" (Offline, Server, Interactive: the average power) or "millijoules" (SingleStream,
  /// MultiStream: energy per query), as the results table's Power_Units.
  std::string units;
  /// The results table's Power_Result at full precision: the average of the samples' watts
  /// (Offline, Server, Interactive), or average W × duration s × 1000 / result_query_count
  /// (× 8 for a MultiStream result inferred from a SingleStream run); null when it could not be
  /// computed. A figure with `valid` false (a file list failed) is one the checker drops.
  std::optional<double> power_metric;
  /// The checker's power_efficiency: the performance figure ÷ the average watts (Offline,
  /// Server, Interactive), or samples per query × 1000 ÷ power_metric (SingleStream 1,
  /// MultiStream 8); null with power_metric.
  std::optional<double> efficiency;
  std::size_t samples = 0;     ///< spl.txt "Time" lines with watts > 0 inside the window
  double average_watts = 0;    ///< their mean
  double duration_s = 0;       ///< power_end − power_begin, seconds
  std::string power_begin, power_end;  ///< as the run's detail log gives them
  /// ranging_files, power_files, ranging_run, power_samples, each with its value and limit.
  std::vector<ValidityCheck> checks;
  bool valid = true;  ///< every check passed and the metric was computed
};

/// The power figure as reports print it: figure_text of power_metric and its units ("29.239
/// millijoules", "5013.79 Watts"); "" when there is none.
std::string power_text(const PowerResult& power);

/// True when `scenario_dir`/performance/power exists (a file or a folder: os.path.exists), which
/// makes the checker judge the folder as a power submission.
bool has_power_measurement(const std::filesystem::path& scenario_dir);

/// A timestamp as the checker parses it (datetime.strptime with "%m-%d-%Y %H:%M:%S.%f"):
/// microseconds since 1970-01-01 00:00 of the same clock; nullopt when `text` does not match
/// (month, day, hour, minute, second of 1–2 digits, year of 4, 1–6 digits of fraction).
std::optional<std::int64_t> parse_power_timestamp(std::string_view text);

/// Judges the power measurement of `scenario_dir` (has_power_measurement) for the run read into
/// `run` (performance/run_1's log: its power_begin, power_end and result_query_count are read
/// again from that detail log; a run read from its summary has none), whose performance figure is `performance`
/// (InferenceResult::performance_result), in canonical scenario `scenario` of model folder
/// `model_folder`, round `round`, `division`. `file_lists`: whether the ranging and power
/// folders' file lists are judged (the submission layout; not for a run of one's own).
/// `ranging_figure`: whether the ranging run's figure must read (the script checkers of
/// v4.1–v5.1; v6.x's PowerCheck does not read it). `keys`: rules.keys_read(), for that log.
///
/// As check_power_dir / get_power_metric: performance/ranging holds exactly the loadgen logs and
/// spl.txt (mlperf_log_accuracy.json allowed) and its figure can be read; performance/power
/// holds exactly client.json, client.log, ptd_logs.txt, server.json and server.log; run_1's
/// spl.txt lines starting "Time" give a timestamp (field 2) and watts (field 4), and the samples
/// with power_begin < time < power_end and watts > 0 are averaged. No sample in the window, no
/// power_begin/power_end, an unreadable spl.txt or a field that does not parse makes the
/// measurement invalid (the checker's "has no power samples" error, or its exception). The Power
/// WG's power_checker.py (PTD logs, sessions, source checksums) is not run. Never throws for
/// bad input: each problem is a failed check naming the file.
PowerResult judge_power(const std::filesystem::path& scenario_dir, const LoadgenLog& run,
                        std::optional<double> performance, const InferenceRules& rules, const KeySet& keys,
                        const std::string& round, const std::string& model_folder, const std::string& scenario,
                        const std::string& division, bool file_lists, bool ranging_figure = true);

/// check_measurement_dir's files of a power submission (script rounds v4.1–v5.1): a file whose
/// name starts with "analyzer_table" and one starting with "power_settings"
/// (REQUIRED_POWER_MEASURE_FILES, matched with re.match) among the regular files of the
/// scenario's measurements folder `measurement_dir` and the three folders above it, the last
/// one found not empty. A check named "measurements_power_files" listing what is missing or
/// empty, naming the folder.
ValidityCheck judge_power_measurement_files(const std::string& measurement_dir);

}  // namespace mlperf::inference
