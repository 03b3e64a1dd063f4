#pragma once
// Pieces every subcommand of the mlperf-score CLI shares: exit statuses, data loading,
// finding benchmark directories. The CLI only wires library stages together and formats.

#include <CLI/CLI.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mlperf/report/output.h"
#include "mlperf/training/score.h"

namespace mlperf::cli {

/// Exit statuses CI can rely on.
enum ExitStatus : int {
  kExitPassed = 0,      ///< every directory scored and passed
  kExitRuleFailed = 1,  ///< some directory failed a rule (RCP, too many dropped runs)
  kExitInputError = 2,  ///< usage error, unreadable input, or no result files found
};

// The out-of-memory policy (README "Robustness"), in out_of_memory.cc: installed by a static
// initializer before any other static object of the tool is built, it sets a new-handler and
// a terminate handler and sets aside 16 MiB of address space (allocated, never written). The
// first allocation that fails releases the reserve and records that memory ran out, then
// throws std::bad_alloc as usual, so the unwinding that follows (destructors that allocate,
// such as nlohmann::json's) has room to finish. Should anything still end in std::terminate
// (a noexcept std::filesystem call that allocates), the terminate handler removes the
// unfinished --output temporary and, after memory ran out, prints the out-of-memory message
// and exits 2 instead of aborting.

/// Handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT (those not ignored when the process
/// started) that remove every unfinished temporary --output file (AtomicFile) and then let the
/// signal end the process as it would have. Call once, early in main.
void install_interrupt_cleanup();

/// True once an allocation has failed anywhere in the process, even where the failure was
/// caught (a nothrow new, a catch that judged it): main turns a command's status into exit 2
/// then, so no answer made while memory ran out is given with status 0 or 1.
bool memory_ran_out();

/// Prints `line` (print_stderr_line) as the process's message about running out of memory, and
/// records that one was given; out_of_memory_said() tells whether one was.
void say_out_of_memory(std::string_view line);
bool out_of_memory_said();

/// The message for running out of memory, ending in a newline.
inline constexpr const char* kOutOfMemoryMessage =
    "mlperf-score: out of memory (std::bad_alloc); nothing more was written\n";

/// Prints `line` and a newline to standard error, made safe by terminal_text (control bytes,
/// newlines and bytes that are not UTF-8 escaped as `ls -b` shows them), so a name from the
/// file system or a log can neither forge a FILE:LINE line nor drive the terminal.
void print_stderr_line(std::string_view line);

/// A registered subcommand: its CLI11 node and what runs when it is chosen.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

/// The options every scoring command (score, check, compare, summarize) takes.
struct ScoringArgs {
  std::string ruleset;              ///< --ruleset X.Y.Z; empty: from the path, else the newest
  std::string usage;                ///< --usage training|hpc; empty: from the path or layout
  std::string rcp_pass = "pruned";  ///< --rcp-pass pruned|full (scoring.md §5)
  bool bert_train_samples = false;  ///< --bert-train-samples
  std::string data_dir;             ///< --data-dir: folder holding configs/ and data/rcps/
  std::string format = "table";     ///< --format, one of the command's choices
  bool probe = false;               ///< --probe (only where add_probe_options was called)
  std::string sysfs_root = "/sys";  ///< --sysfs-root for --probe
  std::string output = "-";         ///< --output FILE (README, "Output rules"); "-": standard output
  std::string glob;                 ///< --glob PATTERN: the files taken as runs (discovery)
};

/// Declares --ruleset, --format (one of `formats`, described by `format_help`), --rcp-pass,
/// --bert-train-samples and --data-dir on `cmd`, bound to `args`.
void add_scoring_options(CLI::App* cmd, ScoringArgs& args, const std::vector<std::string>& formats,
                         const std::string& format_help = "Output format");

/// Completes `output` (OutputWriter::finish: a file put in place) unless an allocation has
/// failed anywhere in the process (memory_ran_out): then says so, naming `path`, and returns
/// false with nothing put in place; the temporary goes when `output` is destroyed. A report
/// made while memory ran out may lack part, so it is never given as the file.
bool finish_unless_memory_ran_out(OutputWriter& output, const std::string& path);

/// Writes the report `write` produces to --output (`args.output`) by the output rules
/// (write_output_file): "-" streams it to standard output. Returns false, the error printed
/// as `mlperf-score: <what>`, when the file cannot be written.
bool emit_report(const ScoringArgs& args, const std::function<void(std::ostream&)>& write);

/// Declares --probe (described by `help`) and --sysfs-root on `cmd`, bound to `args`.
void add_probe_options(CLI::App* cmd, ScoringArgs& args, const std::string& help);

/// The ScoreOptions `args` ask for; nullopt (the error printed) when --ruleset is malformed.
std::optional<ScoreOptions> score_options(const ScoringArgs& args);

/// Folds scored directories into `status`: kExitInputError when any had unreadable files or
/// parse errors, else kExitRuleFailed when any failed, else `status` unchanged.
int exit_status(const std::vector<DirectoryResult>& results, int status);

/// Loads the shipped data from `data_dir` (or the default places, see find_data_root).
/// Prints the error to stderr and returns nullptr when it cannot. The context lives until the
/// process exits and is never destroyed (held by a global, so leak checkers do not report
/// it): destroying its parsed JSON allocates (nlohmann::json's destructor), and an allocation
/// failing after the report was put in place would turn a complete answer into exit 2.
DataContext* load_data(const std::string& data_dir);

/// Parses --ruleset; nullopt (no override) when empty. Prints an error and sets `ok` false
/// when it is not X.Y.Z.
std::optional<Ruleset> parse_ruleset_option(const std::string& text, bool& ok);

/// Every benchmark directory below `paths`, in the order given (sorted below each path).
/// Missing paths, unreadable folders and paths without result files are printed to stderr
/// and make `status` kExitInputError.
/// With `glob` (--glob), only files matching it are taken (find_benchmark_dirs).
std::vector<BenchmarkDir> collect_benchmark_dirs(const std::vector<std::string>& paths, int& status,
                                                const std::string& glob = "");

/// How many of `paths` from index `at` on are logs of one folder given one after another:
/// 0 when paths[at] is not a regular file (a folder, a FIFO, a missing path); else it and the
/// regular files of the same folder (parent_path() as written, "." for a bare name) right
/// after it, loadgen logs (is_loadgen_log_name) with loadgen logs only, other logs with other
/// logs only.
std::size_t logs_given_in_a_row(const std::vector<std::string>& paths, std::size_t at);

/// collect_benchmark_dirs as a feed (report/directories.h BenchmarkDirFeed): the directories
/// below each path in turn, a few at a time as the walk finds them (BenchmarkDirWalk), so a
/// tree of any number of folders is never held whole; the same errors, printed as they are
/// met, and the same `status`. A path naming a loadgen log (mlperf_log_detail.txt or
/// mlperf_log_summary.txt) stands for its folder, walked as if that were given. A folder that
/// is part of an inference scenario folder (its accuracy run, performance run or a compliance
/// test, scenario_folder_part) stands for that scenario folder, with a note on stderr. A path naming
/// another regular file is a result log: with `single_logs` judged alone (single_log_dir),
/// as `check LOG` takes it; without, it and the logs of the same folder given right after
/// it are that folder's runs (given_logs_dir), as `score LOG...` takes them.
class BenchmarkDirSource {
 public:
  BenchmarkDirSource(std::vector<std::string> paths, int& status, std::string glob, bool single_logs = false);
  /// Appends the next directories to `out`; false when every path is done.
  bool operator()(std::vector<BenchmarkDir>& out);

 private:
  std::vector<std::string> paths_;
  int& status_;
  std::string glob_;
  bool single_logs_;
  std::size_t at_ = 0;                    // the path being walked
  std::optional<BenchmarkDirWalk> walk_;  // its walk, once started
  bool found_ = false;                    // the walk found a directory
  bool real_errors_ = false;              // the walk met an error (not a warning)
};

/// `--probe`: probes this node's GPUs (HIP runtime and NVML, else sysfs under `sysfs_root`) and puts
/// the platform they map to in `options.probed_platform`. Probe problems are printed to
/// stderr as warnings; they never stop scoring (issue #4).
void apply_probe(const std::string& sysfs_root, const DataContext& data, ScoreOptions& options);

/// Prints each directory's unreadable files and parse errors to stderr as FILE:LINE: msg.
void print_input_errors(const std::vector<DirectoryResult>& results);

/// Keeps `value` alive until the process exits, never destroyed: the system takes its memory
/// back at exit at once, where destructors would return a round's results (millions of
/// small strings and paths, some milliseconds on one core) block by block. For what a
/// command holds at its end only. The object stays reachable from a global, so leak
/// checkers do not report it.
template <class T>
void keep_until_exit(T&& value) {
  static auto* kept = new std::vector<const void*>();
  kept->push_back(new std::decay_t<T>(std::forward<T>(value)));
}

/// Adds one subcommand to `app`.
using CommandFactory = Command (*)(CLI::App& app);

/// Registers a subcommand; each command file calls it from a namespace-scope initializer
/// (`const bool registered = register_command(&add_x_command);`), so main.cc never changes.
bool register_command(const char* name, CommandFactory factory);

/// The registered subcommands, sorted by name.
std::vector<std::pair<std::string, CommandFactory>> registered_commands();

}  // namespace mlperf::cli
