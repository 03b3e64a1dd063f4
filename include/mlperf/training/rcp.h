#pragma once
// Reference Convergence Points: the RCP check and the normalization factor (scoring.md §4).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "mlperf/mllog/ruleset.h"

namespace mlperf {

/// One RCP record with its statistics (scoring.md §4.2). Samples are in the benchmark's
/// convergence unit (samples, or epochs for epoch_num benchmarks).
struct RcpRecord {
  std::string name;       ///< the record's key in the table, e.g. "llama31_8b_ref_32"
  std::string benchmark;  ///< "Benchmark"
  long long batch_size = 0;                 ///< "BS": global batch size (samples)
  std::vector<double> samples_to_converge;  ///< sorted ascending
  double mean = 0;         ///< olympic mean of the sorted list (drop `olympic_drop` each end)
  double stdev = 0;        ///< population standard deviation of the whole list
  double min_epochs = 0;   ///< smallest acceptable submission mean (§4.3)
  double max_speedup = 0;  ///< mean / min_epochs
};

/// Smallest acceptable submission mean (scoring.md §4.3): bisection on [0, mean] with a
/// pooled-variance one-sided Student t-test (Boost.Math), stopping when hi − lo ≤ 1e-4.
/// Sample A has mean `mid`, size `n_ref`; sample B mean `mean`, size `n_sub`; both `stdev`.
/// Returns `mean` when stdev == 0. Throws std::domain_error when n_ref + n_sub − 2 < 1.
double min_acceptable_mean(double mean, double stdev, int n_ref, int n_sub);

/// Builds a record's statistics from its raw list (§4.2): sorts, olympic mean with `drop`,
/// population stdev, min_epochs with n_ref = N − 2·drop and n_sub = required_runs − 2.
/// Throws std::invalid_argument when the list has no more than 2·drop entries.
RcpRecord make_rcp_record(std::string name, std::string benchmark, long long batch_size,
                          std::vector<double> samples, int drop, int required_runs);

/// Loads one table `rcps_<benchmark>.json`: every record of the file, as the official RCP
/// checker reads the file it names after the benchmark (rcp_checker.py RCP_Checker.__init__;
/// the 3.1.0 stable_diffusion records say "sd"), each with its own "Benchmark".
/// The list is read from `samples_key` ("Epochs to converge" or "samples to converge").
/// Records are returned sorted by batch size.
/// Throws std::runtime_error naming the file when it cannot be read or parsed.
std::vector<RcpRecord> load_rcp_table(const std::filesystem::path& file, const std::string& samples_key, int drop,
                                      int required_runs);

/// The pruned set (§4.4): sorted by BS, records with a smaller BS than the record of the
/// smallest mean removed, then records above the line between their neighbours removed.
std::vector<RcpRecord> prune_rcps(std::vector<RcpRecord> records);

/// How the submission's batch size was matched against the RCP records (§4.5, §4.1).
enum class RcpCase {
  kExact,
  kInterpolated,
  kSmallerBatchFallback,
  kMissing,
  kNoRcps,
  kInsufficientConvergence,
  kNoBatchSize,
  /// The official RCP checker cannot check this benchmark (BenchmarkFacts::official_rcp_check
  /// false): no verdict, no normalization factor (NaN), and the score stands unscaled (× 1.0).
  kNotChecked,
};

/// "exact", "interpolated", "smaller_batch_fallback", "missing", "no_rcps",
/// "insufficient_convergence", "no_batch_size", "not_checked".
const char* to_string(RcpCase c);

/// What the RCP check needs to know about one directory's runs.
struct RcpSubmission {
  std::string benchmark;
  Ruleset ruleset;
  /// The global batch size all runs agree on; nullopt when absent or runs disagree.
  std::optional<long long> batch_size;
  /// Per run: samples to converge, +infinity for a run that did not converge (§4.1; the
  /// check takes such a run as 1e9, as the official checker does).
  std::vector<double> samples_to_converge;
  int olympic_drop = 1;   ///< 4 for unet3d, else 1
  int required_runs = 0;  ///< §6
};

/// The verdict of the RCP check (§4.5–§4.6).
struct RcpVerdict {
  bool passed = false;
  RcpCase rcp_case = RcpCase::kNoRcps;
  double normalization_factor = 1.0;     ///< max(1, rcp mean / submission mean) (§4.6); NaN when the runs are too few for an olympic mean (as the official checker gives it)
  std::optional<RcpRecord> record;       ///< the record (or interpolation) compared with
  std::optional<double> rcp_mean;        ///< record mean
  std::optional<double> min_mean;        ///< rcp mean / max speedup: smallest passing mean
  std::optional<double> max_speedup;     ///< after the llama31_405b rule where it applies
  std::optional<double> submission_mean; ///< olympic mean of samples to converge
  std::string message;                   ///< one sentence for people, e.g. why it failed
};

/// Runs the RCP check of one directory against `records` (pruned or full set, sorted by BS):
/// batch-size agreement, convergence count (more than `olympic_drop` non-converged runs
/// fails as kInsufficientConvergence), record choice (§4.5), the llama31_405b rule for
/// ruleset ≥ 5.0.0, pass/fail and normalization factor (§4.6). Never throws.
RcpVerdict check_rcp(const std::vector<RcpRecord>& records, const RcpSubmission& submission);

}  // namespace mlperf
