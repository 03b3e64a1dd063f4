#pragma once
// Discovery of result folders: which folders below the paths a command is given are training
// benchmark directories (result logs) or inference scenario folders (loadgen runs), and what
// their place in a submission tree tells (submitter, system, round). Reads directory listings
// only, never a log's content beyond its first 64 KiB.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mlperf/mllog/folder_listing.h"
#include "mlperf/mllog/ruleset.h"

namespace mlperf {

/// The file names loadgen writes into a run folder.
inline constexpr const char* kDetailLogName = "mlperf_log_detail.txt";
inline constexpr const char* kSummaryLogName = "mlperf_log_summary.txt";

/// BenchmarkDir::file_rule of logs given by their paths (given_logs_dir).
inline constexpr const char* kGivenLogsRule = "the paths given";

/// An MLPerf Inference scenario folder's loadgen run (scored by inference/score.h).
struct LoadgenRun {
  std::filesystem::path run_dir;  ///< folder holding mlperf_log_detail.txt and/or mlperf_log_summary.txt
  std::filesystem::path scenario_dir;  ///< the <model>/<scenario> folder; the run folder when bare
  std::string scenario;           ///< the scenario folder name; "" for a bare folder (from the log)
  bool bare = false;              ///< the logs lie in the folder itself, outside the submission layout
  /// "TEST01" where the run is a compliance test's own (scenario_dir is that TEST0x folder),
  /// given where no scenario folder holds it (scenario_folder_part found none): read as a
  /// bare run, the scenario from its log; its test verdict needs the scenario's run.
  std::string compliance_test;
  /// A scenario folder of the submission layout (<org>/results/<system>/<model>/<scenario>)
  /// whose performance/run_1 holds no loadgen log: an MLPerf endpoints run (config.yaml,
  /// performance/result_summary.json, which the checker's package reads; endpoints_log.h) or a
  /// run not copied in; or, anywhere, a folder holding an endpoints run's config.yaml (or
  /// config.yml) and performance/result_summary.json. Handed out so that it is scored as an
  /// endpoints run or fails instead of going unseen; it has no loadgen log to read.
  bool no_loadgen_log = false;
};

/// A folder holding result_*.txt files (training) or a loadgen run (inference, `loadgen`
/// set: benchmark_name is then the model folder), and what its place in a submission tree tells.
struct BenchmarkDir {
  std::filesystem::path path;     ///< as given or found below a given path
  std::string benchmark_name;     ///< the folder name (the benchmark, in MLPerf layout)
  std::string submitter;          ///< <org> of <org>/results/<system>/<benchmark>, or ""
  std::string system;             ///< <system> of that layout, else the parent folder name
  std::optional<std::filesystem::path> system_description;  ///< <org>/systems/<system>.json
  std::vector<std::filesystem::path> result_files;          ///< result_*.txt, natural order
  /// How result_files were chosen: "result_*.txt", "run-script names" (<DATESTAMP>_<N>.log),
  /// "MLLOG content" (*.log/*.txt holding :::MLLOG lines), "--glob <PATTERN>" or
  /// kGivenLogsRule (given_logs_dir).
  std::string file_rule = "result_*.txt";
  /// Files of the folder left out by that rule (*.log, *.txt), natural order.
  std::vector<std::filesystem::path> ignored_files;
  /// From a training_results_vX.Y (MLCommons repository) or training_vX.Y (reference
  /// archive) path component: X.Y.0; from hpc_results_vX.Y or hpc_vX.Y: X.Y.0 of usage hpc.
  std::optional<Ruleset> path_ruleset;
  /// MLPerf HPC layout <org>/results/<system>/<strong|weak>/<benchmark>: "strong" or "weak"
  /// (submitter and system are then read above that folder); "" elsewhere.
  std::string scaling;
  std::optional<LoadgenRun> loadgen;  ///< set for an inference scenario folder
  /// `path` made absolute and normal, as discovery found it ("" when not known): what the
  /// path says (division, round) is read from it without asking for the current directory.
  std::string absolute_path;
  /// Made by single_log_dir: one log given on its own, judged alone (no directory checks).
  bool single_log = false;
  /// The folder's entries as the walk listed them, hidden ones (a leading '.') left out, in
  /// byte order: what the package check and scoring look for in it (scaling.json, power,
  /// package_checker_params) without listing or stat-ing it again. nullopt where the walk
  /// did not list it (a log given on its own, an inference scenario folder).
  std::optional<std::vector<std::string>> entries;
  /// For an inference scenario folder the walk found at <submitter>/results/<system>/<model>/
  /// <scenario> below a submitter's folder: what the walk listed of that submitter's results/
  /// tree (entries with sizes, as list_folder_with_sizes gives them), keyed by path below the
  /// submitter's folder (FolderListings). The submission checks walk that whole tree and read
  /// these instead of listing the folders again. Shared by the submitter's scenario folders;
  /// null elsewhere.
  std::shared_ptr<const FolderListings> submitter_listings;
};

/// False only where the walk listed `dir` (BenchmarkDir::entries) and `name` was not in it:
/// the entry is then known to be absent and needs no stat; true otherwise (it may be there).
bool may_hold(const BenchmarkDir& dir, std::string_view name);

/// Problems met while walking the input paths (unreadable folders, missing paths).
struct DiscoveryError {
  std::string path;
  std::string message;
  /// A note, not an error (a symbolic link to a folder inside a tree, not followed): it does
  /// not change the exit status.
  bool warning = false;
};

/// Every benchmark directory at or below `root`, in sorted path order. Never follows
/// symbolic links to directories below `root` (no loops): each one is reported as a warning
/// entry in `errors` ("not followed inside a tree; give it as PATH to score it"); `root`
/// itself may be one. Never writes. Errors are appended to `errors`.
/// A folder is a benchmark directory when it holds result_*.txt files; else, when it holds
/// files named as run scripts name them (<DATESTAMP>_<N>.log, NVIDIA style); else *.log or
/// *.txt files whose first 64 KiB hold an MLLOG line (issue #14). With `glob` (fnmatch
/// pattern on file names, --glob) only the files it matches are taken, in any folder.
/// In an MLPerf Inference submitter's folder (<closed|open|network>/<submitter> holding
/// results/ and measurements/) only results/ is walked, as the submission checker finds
/// scenario folders there alone.
std::vector<BenchmarkDir> find_benchmark_dirs(const std::filesystem::path& root,
                                              std::vector<DiscoveryError>& errors,
                                              const std::string& glob = "");

/// find_benchmark_dirs a few directories at a time, so that a tree of any number of folders
/// is never held whole (issue #25): the same directories and errors in the same order,
/// handed out as they are found. Folders are listed many at once on a pool of threads.
class BenchmarkDirWalk {
 public:
  BenchmarkDirWalk(const std::filesystem::path& root, const std::string& glob = "");
  ~BenchmarkDirWalk();
  BenchmarkDirWalk(BenchmarkDirWalk&&) noexcept;

  /// Appends the next directories found to `out` (at least one) and the errors met on the way
  /// to `errors`. Returns false, having appended only errors, when the walk is over.
  bool next(std::vector<BenchmarkDir>& out, std::vector<DiscoveryError>& errors);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Natural order of file names: runs of digits compare by value ("x_2.log" < "x_10.log").
bool natural_less(const std::string& a, const std::string& b);

/// A result log given on its own (`check LOG`): its folder as the benchmark directory, the
/// log its only result file (any file name), single_log set. Never reads the file.
BenchmarkDir single_log_dir(const std::filesystem::path& file);

/// Result logs given by their paths (`score FILE...`), all in one folder: that folder (of
/// the first path) as the benchmark directory, the logs its result files in natural order
/// of their names (any names; a path given twice taken once), file_rule kGivenLogsRule.
/// As a folder holding only those logs is scored: a lone run is a first single run
/// (incomplete, with its projection). Never reads the files.
BenchmarkDir given_logs_dir(std::vector<std::filesystem::path> files);

/// True for the loadgen logs' names (mlperf_log_detail.txt, mlperf_log_summary.txt): a folder
/// holding one is a loadgen run, and a path naming one stands for that folder.
inline bool is_loadgen_log_name(std::string_view name) { return name == kDetailLogName || name == kSummaryLogName; }

/// The loadgen log of the run `folder` holds: its own mlperf_log_detail.txt (else
/// mlperf_log_summary.txt), as a harness writes them, else that of performance/run_1 (a
/// scenario folder of a submission). nullopt when it holds none, or `folder` is no folder.
std::optional<std::filesystem::path> loadgen_log_of(const std::filesystem::path& folder);

/// The folder holding `file` as its path is written: its parent path, "." for a bare name.
std::filesystem::path folder_of_file(const std::filesystem::path& file);

/// The loadgen run of the folder `path` if it is one: a scenario folder holding
/// performance/run_1 with a detail or summary log (submission layout: `performance_logs`,
/// which the caller found), or a folder holding the logs itself (`has_logs`: bare, as a
/// harness writes them). nullopt otherwise. Touches the file system only to make a path
/// absolute (the current directory). A run whose scenario folder would be a compliance test's
/// folder (TEST0x) is that test's own run: bare, LoadgenRun::compliance_test set.
std::optional<LoadgenRun> find_loadgen_run(const std::filesystem::path& path, bool has_logs, bool performance_logs);

/// True for folders discovery does not descend into below a given path: compliance test
/// runs (TEST01…, "compliance") whose logs are not results of their own. Below a path that
/// lies in a compliance/ tree itself it descends into them: each test is then its own run
/// (find_loadgen_run).
bool is_compliance_folder(const std::string& name);

/// A folder given on the command line that is part of an MLPerf Inference scenario folder,
/// not a result of its own, and the folder read in its place.
struct ScenarioFolderPart {
  std::filesystem::path folder;  ///< the scenario folder (or results/ folder above some) read instead
  /// What the given folder is to it, for the note that says so: "is the accuracy run of",
  /// "is the performance run of", "is compliance test TEST01 of", "holds the compliance tests of".
  std::string what;
};

/// What a folder given by a user stands for when it is a part of an inference scenario folder:
///  - <org>/compliance/<system>/<model>/<scenario>[/TEST0x[/...]] (the submission checker's
///    layout up to v5.1, where a scenario's compliance tests lie beside results/):
///    <org>/results/<system>/<model>/<scenario>, when it holds a loadgen run. A scenario
///    folder is judged with its compliance tests (inference/compliance_tests.h), so its
///    report holds the verdict of the test given. (A folder above the scenario level of a
///    compliance tree is walked; the walk maps each scenario folder in it the same way.)
///  - <scenario>/accuracy, <scenario>/performance[/run_N], <scenario>/TEST0x[/accuracy],
///    <scenario>/TEST0x/performance[/run_N] of a scenario folder that holds a loadgen run
///    (performance/run_1 with a detail or summary log, or the logs themselves as a harness
///    writes them): that scenario folder, whose accuracy run and compliance tests these are.
/// nullopt for any other folder. The path keeps the given spelling (relative stays relative)
/// where the given path names the folders it climbs, else it is absolute. Reads only whether
/// those folders and logs exist.
std::optional<ScenarioFolderPart> scenario_folder_part(const std::filesystem::path& given);

}  // namespace mlperf
