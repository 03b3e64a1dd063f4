#pragma once
// `follow`: a live view of one training log while it grows (issue #14). A reader of the MLLOG
// parser's event stream (architecture.md) beside RunBuilder: it keeps only what the view shows,
// and reads the file one block at a time, whatever its size.

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "mlperf/mllog/mllog.h"
#include "mlperf/training/score.h"

namespace mlperf {

/// What the live view shows after the events read so far.
struct FollowUpdate {
  double time_ms = 0;                     ///< time_ms of the last event read
  std::string benchmark;                  ///< submission_benchmark, when logged
  std::optional<double> elapsed_minutes;  ///< (time_ms − run_start) / 60000, after run_start
  std::optional<double> samples;          ///< samples (or epochs) done: last samples_count / epoch_num
  std::optional<double> throughput;       ///< last tracked_stats throughput, as logged
  std::optional<double> eval_accuracy;    ///< last eval_accuracy value
  bool quality_target_reached = false;    ///< an eval_accuracy within the quality target (§6)
  std::optional<double> rcp_mean_samples; ///< samples to converge the RCP mean expects (§4)
  /// elapsed_minutes × rcp_mean_samples / samples: time to train if the run converges at the
  /// RCP mean at its present pace.
  std::optional<double> projected_minutes;
  bool final = false;             ///< run_stop read
  std::optional<double> minutes;  ///< time to train, (run_stop − run_start) / 60000 (§2)
  std::string status;             ///< run_stop metadata.status ("success", "aborted"), when final
};

/// The view of one run, fed event by event.
class FollowState {
 public:
  /// `ruleset`: the rules to judge by (quality target, RCP); nullopt: guessed from the
  /// benchmark's rounds and run_start's date (guess_ruleset), else the newest round.
  FollowState(const DataContext& data, std::optional<Ruleset> ruleset);
  /// Takes one event; true when what the view shows changed (an update to print).
  bool on_event(const Event& e);
  /// Forgets everything (the log was truncated or replaced).
  void reset();
  const FollowUpdate& view() const { return view_; }

 private:
  void resolve();  // quality target and RCP mean once benchmark, ruleset and batch size are known

  const DataContext& data_;
  std::optional<Ruleset> given_ruleset_;
  FollowUpdate view_;
  std::optional<double> run_start_ms_;
  std::optional<long long> batch_size_;
  const BenchmarkFacts* facts_ = nullptr;
  std::optional<Ruleset> ruleset_;
};

/// Reads a file that grows: each poll reads what was appended, at most one block, and hands
/// on the complete lines; a partial last line waits for its end. The file is kept open
/// between polls, so that:
///  - a file rotated away (another file now has its name, or the name is gone) is first read
///    to its end, as `tail -F` does, before the new one is read from its start;
///  - a file truncated (size below the offset) or truncated and written again within one
///    polling interval (the last bytes before the offset no longer match: a fingerprint of
///    up to kFingerprint bytes is kept) is read again from its start.
class LogTail {
 public:
  /// kRestarted: the lines read so far belong to an earlier version or file (its remaining
  /// lines were delivered first, in this call); the next poll reads the new one from its
  /// start. kMissing: nothing has the name now (reported on every poll while so).
  /// kNotRegular: the name is a FIFO, socket, device or folder, never followed.
  enum class Change { kNone, kRead, kRestarted, kMissing, kNotRegular };
  static constexpr std::size_t kBlock = 256 * 1024;  ///< bytes read per poll at most
  static constexpr std::size_t kFingerprint = 64;    ///< bytes before the offset compared each poll

  explicit LogTail(std::filesystem::path file) : file_(std::move(file)) {}
  ~LogTail();
  LogTail(const LogTail&) = delete;
  LogTail& operator=(const LogTail&) = delete;
  /// Reads up to kBlock new bytes, calling `on_line` (1-based line number, text without its
  /// terminator) for each complete line. Never throws for the file's state.
  Change poll(const std::function<void(std::uint64_t, std::string_view)>& on_line);

 private:
  // Reads from fd_ at offset_ up to `limit` bytes, handing on complete lines; the bytes read.
  std::size_t read_lines(std::size_t limit, const std::function<void(std::uint64_t, std::string_view)>& on_line);
  void close_file();
  void start_over();  // offset, line count, partial line and fingerprint back to a file's start

  std::filesystem::path file_;
  int fd_ = -1;
  std::uint64_t offset_ = 0;
  std::uint64_t line_ = 0;
  std::string partial_;
  std::string fingerprint_;  // the last bytes before offset_ (at most kFingerprint)
  std::optional<std::pair<dev_t, ino_t>> identity_;
};

/// The log `follow PATH` watches: PATH itself, or for a folder its most recently modified
/// *.log / *.txt file; nullopt when the folder holds none (yet).
std::optional<std::filesystem::path> newest_log(const std::filesystem::path& path);

}  // namespace mlperf
