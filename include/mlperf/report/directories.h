#pragma once
// The directories a command was given, scored and checked whatever their kind: training
// benchmark directories (training/score.h, training/check.h) and inference scenario folders
// (inference/score.h, inference/check.h), side by side in the order given. Every report
// (table, JSON, CSV, markdown, JUnit, HTML, summary, compare) starts from these results.

#include <functional>
#include <vector>

#include "mlperf/mllog/discovery.h"
#include "mlperf/training/check.h"
#include "mlperf/training/data_context.h"
#include "mlperf/training/score.h"

namespace mlperf {

/// Scores one directory: score_inference_directory when `dir.loadgen` is set, else
/// score_training_directory. Reads only; never writes into the directory; unreadable files
/// are reported in the result's `errors`.
DirectoryResult score_directory(const BenchmarkDir& dir, const DataContext& data, const ScoreOptions& options);

/// Work on a result done on the thread that scored it, as soon as it is scored, with its
/// index among the directories scored together (a report writer writes it there:
/// ReportWriter::prepare). Called for inference scenario folders, from many threads at once,
/// each result once; what it throws stops the scoring and is rethrown.
using ScoredHook = std::function<void(std::size_t index, const DirectoryResult& result)>;

/// Scores many directories of either kind: the training directories through
/// score_training_directories (one pool reading every result file), the inference scenario
/// folders on a small thread pool, each handed to `scored` (when set) as it is done; results
/// in the order given. The training directories are moved into their results (pass an rvalue
/// to spare the copy).
std::vector<DirectoryResult> score_directories(std::vector<BenchmarkDir> dirs, const DataContext& data,
                                               const ScoreOptions& options, const ScoredHook& scored = {});

/// How many result files score_directories_in_batches scores at once, at most (a directory
/// of more files is a batch of its own).
inline constexpr std::size_t kBatchFiles = 4096;

/// Where score_directories_in_batches takes its directories from: appends the next ones, in
/// order, to its argument and returns true, or returns false when there are no more (e.g.
/// BenchmarkDirWalk::next, so that the tree is never listed whole).
using BenchmarkDirFeed = std::function<bool(std::vector<BenchmarkDir>&)>;

/// What to do when the official compliance rules a batch needs cannot be loaded.
enum class MissingRules {
  kScoreWithout,  ///< score: §2's own conditions, a warning in each result (score_directories)
  kThrow,         ///< check: throw the std::runtime_error naming the config (an input error)
};

/// score_directories (with `scored`) a batch at a time: consecutive directories of at most `batch_files`
/// result files in all (a bigger directory is a batch of its own) are scored together
/// (every file on the pool, biggest first), then `consume` gets their results, in the order
/// given, and they are let go before the next batch is read. Peak memory is one batch's runs
/// (or the largest single directory's), not every directory's (issue #25). The compliance
/// rules are loaded when a batch first needs them (ComplianceNeeds) and kept for the next,
/// unless `options` brings its own. Returns the last batch's results after `consume` had them
/// (none when there were no directories), rather than freeing them: a command about to exit
/// may leave them to the process exit (freeing an inference round's results string by string
/// costs about a tenth of its one-core time).
std::vector<DirectoryResult> score_directories_in_batches(const BenchmarkDirFeed& feed, const DataContext& data,
                                                          const ScoreOptions& options,
                                                          const std::function<void(std::vector<DirectoryResult>&)>& consume,
                                                          std::size_t batch_files = kBatchFiles,
                                                          MissingRules missing_rules = MissingRules::kScoreWithout,
                                                          const ScoredHook& scored = {});

/// As above, for directories already found (moved into their batches: pass them with
/// std::move where they are not needed after).
std::vector<DirectoryResult> score_directories_in_batches(std::vector<BenchmarkDir> dirs, const DataContext& data,
                                                          const ScoreOptions& options,
                                                          const std::function<void(std::vector<DirectoryResult>&)>& consume,
                                                          std::size_t batch_files = kBatchFiles);

/// The checks of one scored directory: check_inference_directory for an inference scenario
/// folder (`result.dir.loadgen` set), else check_training_directory with `facts` and
/// `options`. Never throws for bad input.
CheckReport check_directory(const DirectoryResult& result, const Facts& facts, const CheckOptions& options = {});

}  // namespace mlperf
