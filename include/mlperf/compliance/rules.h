#pragma once
// The official compliance rules (mlperf_logging/compliance_checker/training_X.Y.Z/ and, for
// MLPerf HPC, hpc_X.Y.Z/ *.yaml, shipped unchanged under configs/compliance/; the ruleset's
// usage picks the folder) and their reader: one result log's
// MLLOG events → the official verdict with findings in words (issue #12).
//
// How the official checker (mlp_compliance.py) applies them, and so how LogReader does:
// - configs are a queue: training_X.Y.Z/common.yaml first; code in a rule may
//   enqueue_config(name) another (common.yaml's submission_division POST enqueues
//   <division>_common.yaml, whose submission_benchmark POST enqueues <division>_<benchmark>);
// - each config runs over every MLLOG line with a fresh state `s` (its BEGIN code first);
//   a line whose key has a rule runs PRE, each CHECK, POST (submission_* keys only on their
//   first line), FIRST_CHECK on the key's first line and ATLEAST_ONE_CHECK on every line;
// - then the occurrence requirements (REQ): EXACTLY_ONE (a repeat with equal values is only a
//   warning), AT_LEAST_ONE, AT_LEAST(n), AT_LEAST_ONE_OR(alternatives), OPTIONAL;
// - a config that has a rule for a key withdraws the findings earlier configs made about
//   that key (not those of AT_LEAST_ONE_OR, ATLEAST_ONE_CHECK or parse errors);
// - a log is compliant when no error finding remains. MLLOG lines that do not parse make it
//   non-compliant; lines without the token are ignored; lines are never de-duplicated.
// Where the official checker stops with a Python exception (an ATLEAST_ONE_CHECK that
// raises, an MLLOG line without value or metadata, a config that does not exist) the log is
// non-compliant and the finding says so.

#include <bitset>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mlperf/compliance/pyexpr.h"
#include "mlperf/mllog/mllog.h"
#include "mlperf/mllog/ruleset.h"

namespace mlperf::compliance {

/// REQ of a KEY record.
struct Requirement {
  enum Kind { kNone, kOptional, kExactlyOne, kAtLeastOne, kAtLeast, kAtLeastOneOr };
  Kind kind = kNone;
  int at_least = 0;                       ///< kAtLeast: AT_LEAST(n)
  std::vector<std::string> alternatives;  ///< kAtLeastOneOr: the keys inside the parentheses
};

/// One KEY record of a config file.
struct KeyRule {
  std::string name;  ///< the MLLOG key
  Requirement req;
  std::optional<Code> pre, post;
  std::vector<Expr> checks;        ///< CHECK: each must hold on every (first, for submission_*) line
  std::vector<Expr> first_checks;  ///< FIRST_CHECK: on the key's first line
  std::optional<Expr> atleast_one_check;  ///< ATLEAST_ONE_CHECK: on at least one line
  /// The name holds "submission_": PRE, CHECK and POST run on its first line only (the
  /// official checker's submission_* keys). Set by parse_config.
  bool first_line_only = false;
};

/// One config file, e.g. training_5.1.0/closed_llama31_8b.yaml.
struct ConfigFile {
  std::string name;  ///< relative to the rules root, as enqueue_config names it
  std::optional<Code> begin;  ///< BEGIN CODE
  /// `s` after the BEGIN code, run once when the config is parsed (it reads nothing of the
  /// log): a reader starts each log from a deep copy of it instead of running the code.
  /// None when the code failed, enqueued a config or set v (then it runs per log).
  std::optional<PyValue> begin_state;
  /// The BEGIN code of the 3.1.0 – 5.0.0 stable_diffusion configs, which appends to the log one
  /// line per eval step: key "aggregated_eval_accuracy", timestamp the latest of that step's
  /// eval_accuracy lines, value {<aggregation_field>: N, <metric>: <value>…} gathered from the
  /// eval_accuracy lines carrying metadata.metric. Recognized by what it mentions
  /// (loglines, aggregated_eval_accuracy); evaluated natively.
  bool aggregates_eval_accuracy = false;
  /// The metadata field that groups the eval_accuracy lines into one aggregated line (its
  /// value is the key of the code's dict): "step_num" in 3.1.0, "samples_count" after.
  /// Read from the code: the first `line.value['metadata']['<field>']` it names.
  std::string aggregation_field = "samples_count";
  std::vector<KeyRule> keys;  ///< in file order; a repeated NAME replaces the earlier record
  /// END record (rulesets 1.0.0–2.1.0): PRE code run once after every line and the occurrence
  /// requirements, then its CHECK expressions on the final state (mlp_compliance.py
  /// configured_checks, run_check_end). A failing END check cannot be withdrawn by a later
  /// config (it names no key).
  std::optional<Code> end_pre;
  std::vector<Expr> end_checks;
  /// "closed", "open" or "" (common.yaml): the division the file's rules bind.
  std::string division;
  /// Positions in `keys` of the rules whose code or checks may call enqueue_config, and
  /// whether the END record may: while one can still run, the reader keeps the lines for the
  /// configs it would enqueue. Found by parse_config.
  std::vector<std::size_t> enqueue_rules;
  bool enqueue_at_end = false;

  /// The rule for `key` (the last record of that NAME), or nullptr.
  const KeyRule* find(std::string_view key) const;
  /// Its position in `keys`, or -1.
  int index_of(std::string_view key) const;
  /// The same for a key given by its RuleLibrary id (RuleKeys::id; -1 gives -1).
  int index_of(int key_id) const {
    return key_id >= 0 && static_cast<std::size_t>(key_id) < index_by_id_.size() ? index_by_id_[key_id] : -1;
  }

  /// True when keys[i] is the record in force for its NAME (no later record replaces it):
  /// find(keys[i].name) == &keys[i], answered without a look-up.
  bool in_force(std::size_t i) const { return i < in_force_.size() && in_force_[i] != 0; }

  /// Builds the lookup find/index_of/in_force use; parse_config calls it.
  void build_index();

  /// The code blocks of this file the official checker can run, in file order: "BEGIN"
  /// (its CODE, the aggregating one included), "END PRE", "END CHECK", and per KEY record
  /// still in force (not replaced by a later one of the same NAME) "KEY <name> <field>" for
  /// each of its fields PRE, CHECK, FIRST_CHECK, ATLEAST_ONE_CHECK, POST that is present.
  /// The names LogVerdict::blocks_run uses (issue #22: every block runs on a real log).
  std::vector<std::string> blocks() const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, int, Hash, std::equal_to<>> index_;
  std::vector<int> index_by_id_;  // index_of by key id, filled by RuleLibrary
  std::vector<char> in_force_;    // in_force by position
  friend class RuleLibrary;
};

/// The MLLOG keys some config of a rule folder has a rule for, with a quick first test
/// (most lines, tracked_stats, have none).
class RuleKeys {
 public:
  /// Adds `key` with its id in the library (every config's rule for the key has that id).
  void insert(const std::string& key, int id);
  void insert(const RuleKeys& other);
  /// The library's id of `key` when it is one of them, else -1.
  int id(std::string_view key) const {
    if (key.empty() || !maybe_[slot(key)]) return -1;
    auto it = keys_.find(key);
    return it == keys_.end() ? -1 : it->second;
  }
  /// True when `key` is one of them.
  bool contains(std::string_view key) const { return id(key) >= 0; }
  /// A number that changes whenever keys are added and is never given to other contents in
  /// the process (copies share it): what id() answers may be kept under it.
  std::uint64_t generation() const { return generation_; }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  static std::size_t slot(std::string_view key) {
    return (key.size() * 31 + static_cast<unsigned char>(key[0]) + 7u * static_cast<unsigned char>(key[key.size() / 2]) +
            13u * static_cast<unsigned char>(key.back())) & 1023u;
  }
  std::unordered_map<std::string, int, Hash, std::equal_to<>> keys_;
  std::bitset<1024> maybe_;
  std::uint64_t generation_ = 0;  // 0: no key (every empty RuleKeys answers alike)
};

/// Every config file of the shipped rule folders (configs/compliance/training_X.Y.Z/ and
/// hpc_X.Y.Z/).
class RuleLibrary {
 public:
  /// Reads every training_*/ and hpc_*/ *.yaml below `root`. Throws std::runtime_error naming the file
  /// (and its line for YAML errors) when one is malformed or uses Python outside the
  /// supported subset.
  static RuleLibrary load(const std::filesystem::path& root);
  /// As load, for the given rulesets only (their folders, and the folders their configs
  /// name, e.g. training_3.1.0 for 4.0.0): what `check` needs, read faster.
  static RuleLibrary load(const std::filesystem::path& root, const std::set<Ruleset>& rulesets);

  /// The config named as enqueue_config names it ("training_5.1.0/common.yaml"), or nullptr.
  const ConfigFile* config(std::string_view name) const;
  /// True when <usage>_<ruleset>/common.yaml is shipped (Ruleset::folder()).
  bool has_ruleset(const Ruleset& ruleset) const;
  /// Every MLLOG key some config that a ruleset can reach has a rule for (a log's lines of
  /// other keys need no value).
  const RuleKeys& keys_with_rules(const Ruleset& ruleset) const;
  /// The folders found, e.g. {"training_4.0.0", …}.
  std::vector<std::string> folders() const;
  /// All config files, by name.
  const std::map<std::string, ConfigFile, std::less<>>& configs() const { return configs_; }

 private:
  static RuleLibrary load_files(const std::vector<std::filesystem::path>& files);
  std::map<std::string, ConfigFile, std::less<>> configs_;
  std::map<std::string, RuleKeys, std::less<>> keys_by_folder_;
  std::unordered_map<std::string, int> key_ids_;  // every key some config rules on, numbered
  RuleKeys no_keys_;
};

/// Parses one config file's YAML text; `name` is how enqueue_config names it. Throws
/// std::runtime_error naming `name` when malformed.
ConfigFile parse_config(std::string_view yaml_text, const std::string& name);

/// One finding of the compliance rules in one log.
struct RuleFinding {
  bool error = true;        ///< false: a warning (the official checker warns, still accepts)
  std::uint64_t line = 0;   ///< 1-based line in the log; 0 when no single line applies
  std::string rule;         ///< "training_5.1.0/closed_llama31_8b.yaml: opt_name", "mlp_parser", …
  std::string message;      ///< what was expected and what was found, in words
};

/// The official verdict on one log.
struct LogVerdict {
  bool compliant = false;
  std::vector<RuleFinding> findings;  ///< in the order they were made
  std::vector<std::string> configs;   ///< the config files applied, in order
  /// Only when asked for (LogReader's `record_blocks`): each block of the applied configs
  /// that was evaluated at least once on this log, as "<config>: <block>" with the block
  /// named as ConfigFile::blocks() names it; evaluated means run, whether it held, failed
  /// or raised. Sorted.
  std::vector<std::string> blocks_run;
};

/// One MLLOG line as the rules see it.
struct LogLine {
  std::uint64_t line = 0;  ///< 1-based line in the file
  double timestamp = 0;    ///< float(time_ms)
  std::string key;
  PyValue v;               ///< {'value': …, 'metadata': …}; None while `pending` holds it
  /// Set while v is not converted yet: the line's JSON texts (LogReader sets it for the
  /// duration of one line; a kept line is converted first).
  LineText* pending = nullptr;
  /// EventView::shape of the line (0: none): lines of one shape differ only in numbers.
  std::uint64_t shape = 0;
  /// The key's id in the rule library (RuleKeys::id), -1 when not known: the configs then
  /// look the key up by name.
  int key_id = -1;
  /// v, converted first when `pending` is set.
  const PyValue& value_dict() const { return pending ? pending->converted() : v; }
};

class StreamJudge;  // the configs of the official queue reading one log (rules.cc)

/// Reads the MLLOG events of one log, in order, beside the run builder, and judges the log
/// at the end. Only the lines of keys with rules (RuleLibrary::keys_with_rules) are converted;
/// each is read at once by every config enqueued so far and then let go, so memory does not
/// grow with the log (lines are kept only until no config can enqueue another, normally up to
/// submission_benchmark; see rules.cc).
class LogReader {
 public:
  /// `library` must outlive the reader; `ruleset` picks <usage>_<X.Y.Z>/common.yaml;
  /// `record_blocks` fills LogVerdict::blocks_run.
  LogReader(const RuleLibrary& library, const Ruleset& ruleset, bool record_blocks = false);
  ~LogReader();
  LogReader(LogReader&&) noexcept;

  /// True when lines of `key` are kept (some config has a rule for the key).
  bool wants(std::string_view key) const { return keys_->contains(key); }
  /// A line the fast scanner read (scan_mllog_line gave kEvent, so `line_text` holds one
  /// MLLOG token, at `token_at`): only the lines of keys with rules are judged, from the
  /// view's JSON text (LineText). The views of one reader must all come from one
  /// MllogScanner or carry no shape (EventView::shape is that scanner's number).
  void add_event(const EventView& view, std::string_view line_text, std::size_t token_at);
  /// An MLLOG line the full parser read as an event. `payload` is the JSON text after the
  /// last ":::MLLOG " token; it is parsed again here (the Event does not say whether value
  /// and metadata were present, which the official parser requires).
  void add_event(std::string_view key, double time_ms, std::uint64_t line, std::string_view payload);
  /// An MLLOG line that does not parse (the official parser fails on it too).
  void add_parse_error(std::uint64_t line, const std::string& message);
  /// Applies the configs (see the file comment). Never throws.
  LogVerdict finish();

 private:
  const RuleLibrary& library_;
  Ruleset ruleset_;
  const RuleKeys* keys_;  // the library's, for the ruleset
  LogLine line_;          // the line being read (add_event)
  LineText text_;         // its texts (reused: the member table is not cleared per line)
  std::unique_ptr<StreamJudge> judge_;  // the configs, reading the kept lines as they come
  std::uint64_t events_ = 0;
  std::vector<RuleFinding> early_;  // parse errors and lines the official parser stops on
  bool stopped_ = false;
  ShapeMemo<int> key_ids_;  // RuleKeys::id of a scanner shape's key: most lines skip the look-up
  // keys_->id(view.key) for a shape key_ids_ lacks, kept per thread from log to log (rules.cc).
  int key_id_of(const EventView& view) const;
};

/// Judges lines already read (tests, and LogReader::finish): the configs from
/// <usage>_<X.Y.Z>/common.yaml (Ruleset::folder()) over `lines`. `parse_errors` adds the official
/// "Log lines had parsing errors" failure; `no_events` the official "No log lines detected".
LogVerdict judge_lines(const RuleLibrary& library, const Ruleset& ruleset, std::vector<LogLine> lines,
                       bool parse_errors, bool no_events = false, bool record_blocks = false);

}  // namespace mlperf::compliance
