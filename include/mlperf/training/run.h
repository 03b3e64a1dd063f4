#pragma once
// The run builder: the events of one result file, in order → one Run (scoring.md §2, §4.1).

#include <cstdint>
#include <deque>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "mlperf/compliance/rules.h"
#include "mlperf/mllog/folder_cache.h"
#include "mlperf/training/facts.h"
#include "mlperf/training/seeds.h"
#include "mlperf/mllog/mllog.h"
#include "mlperf/mllog/ruleset.h"

namespace mlperf {

class LineReader;

/// Milliseconds in a minute: MLLOG time_ms differences become minutes (scoring.md §2).
inline constexpr double kMillisecondsPerMinute = 60000.0;

/// Options that change how a run is read.
struct RunOptions {
  Ruleset ruleset;                  ///< ruleset the run is judged under
  bool bert_train_samples = false;  ///< bert: samples to converge from train_samples (§4.1)
  /// When set, read_run also judges the log by the official compliance rules of `ruleset`
  /// (Run::compliance), in the same pass. Must outlive the call.
  const compliance::RuleLibrary* compliance_rules = nullptr;
  /// With compliance_rules: also list the rule blocks evaluated (LogVerdict::blocks_run).
  bool record_compliance_blocks = false;
  /// Keep every logged key in Run::key_census (the tests and the fuzzer compare the two
  /// parsers by it); otherwise only kReportedCensusKeys, what scoring and check read, so a
  /// kept run stays small (issue #25).
  bool full_key_census = false;
};

/// The keys Run::key_census keeps unless RunOptions::full_key_census: those scoring (§3, the
/// RCP's batch size) and check (quality target, consistency findings) read.
inline constexpr std::string_view kReportedCensusKeys[] = {"eval_accuracy", "global_batch_size",
                                                           "submission_benchmark", "submission_division"};

/// Where and when a key event was logged.
struct EventMark {
  double time_ms = 0;
  std::uint64_t line = 0;
};

/// How often one MLLOG key is logged in a run, where first (time and line) and on which
/// line last (the time of a key's last line is never read; not reading it spares converting
/// the time of most lines).
struct KeyCensus {
  int count = 0;
  EventMark first;
  std::uint64_t last_line = 0;
};

/// Run::key_census: keys and their KeyCensus, sorted by key, in one flat block (a std::map
/// cost some 5 KB a run).
class KeyCensusTable {
 public:
  using Entry = std::pair<std::string, KeyCensus>;
  using const_iterator = std::vector<Entry>::const_iterator;

  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  /// The entry of `key`, or end().
  const_iterator find(std::string_view key) const;
  /// 1 when `key` is in the table, else 0.
  std::size_t count(std::string_view key) const { return find(key) == end() ? 0 : 1; }
  /// The census of `key`; throws std::out_of_range when it is not in the table.
  const KeyCensus& at(std::string_view key) const;
  /// Appends `key`, which must sort after every key already in the table.
  void append(std::string key, const KeyCensus& census);

 private:
  std::vector<Entry> entries_;
};

/// Samples to converge of a run that did not converge (the official checker uses 1e9, which
/// check_rcp substitutes: see rcp.cc).
inline constexpr double kNotConverged = std::numeric_limits<double>::infinity();

/// One result file, reduced to what scoring needs. Built in one pass; memory does not grow
/// with the length of the log (stable_diffusion keeps one entry per eval step).
struct Run {
  std::string file;          ///< path of the result file, as scored
  std::string benchmark;     ///< submission_benchmark ("" when not logged)
  std::string division;      ///< submission_division ("" when not logged)
  std::string org;           ///< submission_org
  std::string platform;      ///< submission_platform, as logged
  std::optional<long long> global_batch_size;  ///< last integral global_batch_size value (samples)
  /// Line of a last global_batch_size of 2^53 or more (no exact integer here; Python's RCP
  /// checker compares it with its RCPs' batch sizes and finds it above all of them, case
  /// "missing"); global_batch_size is then empty. 0 when none.
  std::uint64_t global_batch_size_beyond_line = 0;

  std::optional<EventMark> run_start;   ///< first run_start
  std::optional<EventMark> run_stop;    ///< first run_stop
  /// The run_start and run_stop the official summarizer takes (result_summarizer.py
  /// _query_run_start_stop): each the latest seen until both have been seen. Equal to
  /// run_start and run_stop in any log that logs each once, run_start first.
  std::optional<EventMark> summarizer_run_start;
  std::optional<EventMark> summarizer_run_stop;
  std::optional<EventMark> init_start;  ///< earliest init_start (by time_ms)
  std::optional<EventMark> init_stop;   ///< first init_stop
  int run_start_count = 0;
  int run_stop_count = 0;
  int init_start_count = 0;
  int init_stop_count = 0;
  std::optional<EventMark> late_init_start;  ///< an init_start logged after init_stop/run_start
  std::optional<std::string> status;         ///< run_stop metadata.status, when present

  /// Time to train in minutes: (run_stop − run_start) / 60000 of the summarizer's pair, when
  /// both exist (§2).
  std::optional<double> minutes;
  bool quality_target_known = false;    ///< the facts name a quality target for this ruleset
  bool quality_target_reached = false;  ///< some eval_accuracy met it (§2, §6)
  bool converged = false;               ///< run_stop success with a convergence point (§4.1)
  double samples_to_converge = kNotConverged;  ///< samples or epochs; kNotConverged if not
  std::optional<double> last_throughput;       ///< last tracked_stats throughput (samples/s)
  /// MLPerf HPC weak scaling: number_of_nodes and accelerators_per_node as the official
  /// summarizer reads them (result_summarizer.py _query_instance_scale): each the latest
  /// numeric value seen until both have been seen. Training scoring never reads them.
  std::optional<double> number_of_nodes;
  std::optional<double> accelerators_per_node;

  /// One eval_accuracy value and where in training it was logged (for reports).
  struct EvalPoint {
    double samples = 0;   ///< metadata.samples_count, else metadata.epoch_num (as logged)
    double accuracy = 0;  ///< the eval_accuracy value
  };
  /// The eval_accuracy points in log order, the first kMaxKeptEvalPoints (not stable_diffusion,
  /// whose metrics are per step). Reports draw them; scoring never reads them.
  std::vector<EvalPoint> eval_points;
  bool eval_points_in_epochs = false;  ///< some point's x is epoch_num (no samples_count logged)
  /// The quality target eval_accuracy must meet under this ruleset (§6), when the facts name one.
  std::optional<Bounds> quality_target;

  /// Per logged key: how often it appears and where first and last (for compliance checks);
  /// the keys of kReportedCensusKeys unless RunOptions::full_key_census.
  using KeyCensus = mlperf::KeyCensus;
  KeyCensusTable key_census;

  std::uint64_t mllog_lines = 0;         ///< lines holding the MLLOG token
  std::uint64_t parse_error_count = 0;   ///< MLLOG lines that failed to parse
  std::vector<ParseError> parse_errors;  ///< the first kMaxKeptParseErrors of them

  /// Its `seed` events as the official seed checker reads them (training/seeds.h), the
  /// first kMaxKeptSeeds; `seed_events` counts them all.
  std::vector<SeedRecord> seeds;
  std::uint64_t seed_events = 0;

  /// The official compliance verdict (RunOptions::compliance_rules set), else nullopt.
  std::optional<compliance::LogVerdict> compliance;

  /// Why the run does not count towards the score; empty when it counts. With the official
  /// compliance verdict (Run::compliance): the official summarizer's reasons, i.e. the log is
  /// not compliant or lacks run_start / run_stop (result_summarizer.py _read_result_file,
  /// _query_run_start_stop); without it, the conditions of §2.
  std::vector<std::string> drop_reasons;
  /// Notes that do not drop the run (e.g. no quality target known for this ruleset).
  std::vector<std::string> notes;

  static constexpr std::size_t kMaxKeptParseErrors = 100;
  static constexpr std::size_t kMaxKeptEvalPoints = 1000;
  static constexpr std::size_t kMaxKeptSeeds = 1000;

  /// True when the run counts towards the olympic mean.
  bool counted() const { return drop_reasons.empty() && minutes.has_value(); }
};

/// Replaces `run`'s drop reasons by the official summarizer's when the run carries the
/// official compliance verdict: it counts when the compliance checker accepts the log and the
/// log has run_start and run_stop (result_summarizer.py _compute_strong_score_standalone,
/// _read_result_file, _query_run_start_stop). Does nothing without a verdict.
void apply_official_verdict(Run& run);

/// Feeds the events of one file, in log order, into a Run.
class RunBuilder {
 public:
  /// `benchmark_hint` (usually the directory name) is used until submission_benchmark is
  /// logged; `facts` must outlive the builder.
  RunBuilder(std::string file, std::string benchmark_hint, const Facts& facts, RunOptions options);

  /// Takes one event (with its line number set).
  void add(const Event& event);
  /// Takes one event found by scan_mllog_line (with its line number set): the same as
  /// add(Event) with parse_mllog_line's event of that line, reading only the fields that
  /// scoring uses (§2, §4.1) from the JSON text. The views of one builder must all come from
  /// one MllogScanner or carry no shape (EventView::shape 0): lines of one shape are known to
  /// share their key.
  void add(const EventView& event);
  /// Records a line that failed to parse.
  void add_error(ParseError error);
  /// Applies the compliance conditions of §2 and the convergence rule of §4.1.
  Run finish();

 private:
  const BenchmarkFacts* facts_now() const;
  template <class E>
  void add_event(const E& event);  // Event or EventView
  template <class E>
  void on_eval(const E& event);
  template <class E>
  void on_tracked_stats(const E& event);
  template <class E>
  void on_run_stop(const E& event);
  template <class E>
  void on_seed(const E& event);
  /// The convergence point at a successful run_stop (§4.1): samples, epochs or metric step.
  std::optional<double> convergence_point() const;
  KeyCensus& census(std::string_view key);

  Run run_;
  // Every key, in order of first appearance (a deque: entries never move, and a log's 50 or
  // so keys take a few blocks, not a node each); sorted into Run::key_census at finish.
  std::deque<std::pair<std::string, KeyCensus>> census_;
  std::string benchmark_hint_;
  const Facts& facts_;
  RunOptions options_;
  // facts_now()'s answer, kept until run_.benchmark is set (a look-up per eval line otherwise).
  mutable const BenchmarkFacts* facts_now_ = nullptr;
  mutable bool facts_now_known_ = false;
  // Convergence state (§4.1): the last remembered point per unit.
  std::optional<double> last_samples_count_;
  std::optional<double> last_epoch_num_;   // as logged; rounded (round3) when used
  std::string throughput_text_;            // the last tracked_stats throughput of an
  bool throughput_pending_ = false;        // EventView, parsed at finish
  // EventView::shape of the last tracked_stats line found without a throughput member: lines
  // of one shape differ only in their numbers, so they have none either (0: no such shape).
  std::uint64_t shape_without_throughput_ = 0;
  std::optional<double> last_train_samples_;
  std::map<double, std::map<std::string, double>> metric_steps_;  // stable_diffusion
  std::optional<std::string> run_stop_status_;
  bool any_point_ = false;
  // key_census entries by key, so an event finds its entry without building a std::string:
  // an open-addressing table (power-of-two size, at most half full) of views into the
  // map's keys, whose nodes never move.
  struct CensusSlot {
    std::uint64_t head = 0, tail = 0;  // first and last 8 bytes of the key (overlapping)
    std::size_t size = 0;              // a key of at most 16 bytes is these three
    std::string_view key;
    Run::KeyCensus* entry = nullptr;
  };
  std::vector<CensusSlot> census_slots_ = std::vector<CensusSlot>(128);  // a log's keys, half full
  std::size_t census_used_ = 0;
  // What add_event does with a key's lines (the keys it reads; kOther: only counted).
  enum class KeyRole : std::uint8_t {
    kOther, kTrackedStats, kEval, kGlobalBatchSize, kTrainSamples, kSubmissionBenchmark, kSubmissionDivision,
    kSubmissionOrg, kSubmissionPlatform, kInitStart, kInitStop, kRunStart, kRunStop, kSeed, kInstanceScale
  };
  static KeyRole key_role(std::string_view key);
  // The census entry and role of a scanner shape's key: most lines skip the key look-up and
  // the key comparisons.
  struct ShapeCensus {
    Run::KeyCensus* entry = nullptr;
    KeyRole role = KeyRole::kOther;
  };
  ShapeMemo<ShapeCensus> shape_census_;
};

/// Reads `path` with the streaming line reader and MLLOG parser and builds its Run.
/// Malformed lines become parse errors in the Run. Only the lines holding the MLLOG token
/// are looked at (LineReader::next_with); each goes through the fast path (a per-thread
/// MllogScanner and RunBuilder::add(EventView)) and, when that is unsure, parse_mllog_line:
/// the Run is the one parse_mllog_line and add(Event) give for every line. Throws std::runtime_error naming the
/// file when it cannot be opened or read, or is not a regular file (a directory, a FIFO).
Run read_run(const std::filesystem::path& path, const std::string& benchmark_hint,
             const Facts& facts, const RunOptions& options);

/// What stat(2) (symbolic links followed) said of a result file before it was opened.
struct ResultFileStat {
  bool known = false;        ///< stat succeeded; when false, opening the file says why not
  bool regular = false;      ///< a regular file: the only kind read_run opens
  bool directory = false;    ///< a directory (its error says so, as open(2) would)
  std::uint64_t bytes = 0;   ///< size in bytes of a regular file, else 0
};

/// One stat(2) of `path` (relative to its folder when `folders` holds it, see FolderCache);
/// never throws other than std::bad_alloc.
ResultFileStat stat_result_file(const std::filesystem::path& path, FolderCache* folders = nullptr);

/// read_run(path, …) for a file stat_result_file has just looked at: a caller that needs the
/// size first (to read the biggest files first) asks the file system once, not twice. Throws
/// as read_run(path, …); a FIFO, socket or device (`before_open` not regular) is never opened.
/// With `folders`, the file is opened relative to its folder held there (file_source).
Run read_run(const std::filesystem::path& path, const ResultFileStat& before_open, const std::string& benchmark_hint,
             const Facts& facts, const RunOptions& options, FolderCache* folders = nullptr);

/// read_run on lines from any source (a string, a pipe): `name` is the file name its errors
/// carry. The same path, fast scan and fallback, as for a file; the fuzzer feeds it.
Run read_run(LineReader& reader, const std::string& name, const std::string& benchmark_hint,
             const Facts& facts, const RunOptions& options);

/// What a log says before its training starts that guessing its directory's ruleset from the
/// logs' dates reads (issue #14; score.cc guess_ruleset): its benchmark and run_start.
struct RunHead {
  std::string benchmark;               ///< the first submission_benchmark string; "" when none
  std::optional<EventMark> run_start;  ///< the first run_start (time_ms, line); none when not logged
};

/// Reads `path` up to its first run_start, parsing only the MLLOG lines whose text names
/// run_start or (until one is found) submission_benchmark: some 17,000 instructions for a
/// 10 KB log that read_run takes through every rule. Lines that do not parse are passed over
/// (read_run reports them). For a forecast only: scoring reads every log in full anyway.
/// Throws std::runtime_error naming the file when it cannot be opened or read, or is not a
/// regular file.
RunHead read_run_head(const std::filesystem::path& path);

/// The reference read_run must equal: every line through LineReader::next and
/// parse_mllog_line into RunBuilder::add(Event), no fast scan. An over-long line is an error
/// when its kept head holds the MLLOG token (as read_run sees it). Tests and the fuzzer
/// compare the two; `parse`-like callers that want every event use parse_mllog_line directly.
Run read_run_full_parser(LineReader& reader, const std::string& name, const std::string& benchmark_hint,
                         const Facts& facts, const RunOptions& options);

/// Python's round(x, 3): the double nearest to x rounded half-to-even at 3 decimals.
double round3(double x);

}  // namespace mlperf
