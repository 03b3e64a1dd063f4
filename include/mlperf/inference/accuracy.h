#pragma once
// The accuracy run of an MLPerf Inference scenario folder: accuracy/accuracy.txt read into its
// metrics and judged against the round's targets, as the official submission checker does
// (mlcommons/inference tools/submission/submission_checker.py check_accuracy_dir at tags v4.1,
// v5.0, v5.1.1; submission_checker/checks/accuracy_check.py at HEAD for v6.0 and v6.1). The
// targets, upper limits and patterns are data: configs/inference_accuracy.json, written from the
// checker's MODEL_CONFIG and ACC_PATTERN by scripts/extract-inference-accuracy.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "mlperf/inference/result.h"

namespace mlperf::inference {

/// One bound on one metric: a target (the value must be >= `value`) or an upper limit (<=).
struct AccuracyBound {
  std::string metric;  ///< as the results table names it: ROUGE1, FID_SCORE, acc, mAP, …
  double value = 0;    ///< the bound as the checker computes it (e.g. 44.4312 * 0.99)
};

/// A pattern `.*R` (most ACC_PATTERNs) split for a faster match of the same result: R
/// without a trailing `.*`, and the literal text R starts with. re.match(".*R", line) takes
/// the rightmost place where R matches (the greedy `.*` gives back one character at a
/// time), and a trailing `.*` decides nothing, so R tried where that text occurs, rightmost
/// first, gives the same group. Nothing where R could depend on what precedes it or the split
/// is not exact: no leading `.*` (or a lazy one), a top-level `|`, flags, `^`, `\b`, `\B`,
/// back references, lookarounds, or no leading literal text.
struct LeadingAnySplit {
  std::string rest;    ///< R (Python), its trailing `.*` removed
  std::string prefix;  ///< the plain text every match of R starts with (not empty)
};
std::optional<LeadingAnySplit> split_leading_any(const std::string& python_pattern);

/// A metric's pattern (ACC_PATTERN): the checker's Python text, its ECMAScript form, and a
/// text every line it matches holds (required_literal), to pass over the other lines without
/// running the regular expression. The expression is compiled when first used (once, by any
/// thread): a round's file has some hundred patterns and a run reads a few, and compiling
/// them all cost more than scoring a scenario folder.
struct AccuracyPattern {
  /// `python`: the checker's text; `ecmascript`: python_regex_to_ecmascript of it.
  AccuracyPattern(std::string python, std::string ecmascript, std::string required);

  std::string python;
  std::string ecmascript;
  std::string required;  ///< "" where the pattern has no such text
  std::optional<LeadingAnySplit> split;  ///< split_leading_any(python)

  /// The compiled expression. Throws std::runtime_error when it does not compile.
  const std::regex& regex() const;
  /// re.match(python, line): the first group's text where the pattern matches at the start
  /// of `line` and the group took part; nullopt otherwise. Throws as regex().
  std::optional<std::string> first_group(const std::string& line) const;

 private:
  const std::regex& rest_regex() const;  // the split's R, compiled on its own
  struct Compiled;
  std::shared_ptr<Compiled> compiled_;  // shared by copies: compiled once for all
};

/// The accuracy rules of one round.
struct RoundAccuracyRules {
  /// metric → the checker's pattern (ACC_PATTERN).
  std::map<std::string, AccuracyPattern> patterns;
  /// model → scenario ("" for every scenario) → targets, in the checker's order.
  std::map<std::string, std::map<std::string, std::vector<AccuracyBound>>> targets;
  std::map<std::string, std::vector<AccuracyBound>> upper_limits;  ///< model → upper limits
  /// How the results table shows the values: "metrics" (NAME: value pairs) or "first_value"
  /// (v4.1: the first target's value alone).
  std::string accuracy_column = "metrics";
  std::uint64_t max_accuracy_log_size = 10240;  ///< MAX_ACCURACY_LOG_SIZE, bytes
  std::vector<std::string> required_files;      ///< REQUIRED_ACC_FILES: the accuracy folder holds these
  /// REQUIRED_ACC_BENCHMARK: model → subfolder of accuracy/ → the file stems it must hold.
  std::map<std::string, std::map<std::string, std::vector<std::string>>> extra_files;
  /// model → scenario ("" for every scenario) → the samples the accuracy run must cover.
  std::map<std::string, std::map<std::string, std::uint64_t>> accuracy_sample_count;
  /// Whether the checker fails a run that covers another count (v6.0 on) or only logs it.
  bool accuracy_sample_count_fails = false;
  /// What the open division accepts failing: every check of the accuracy folder but its file
  /// list (check_accuracy_dir's "accuracy not valid but taken for open", up to v5.1), or only
  /// accuracy.txt's values and hash (v6.x's accuracy_result_check; its checks of the accuracy
  /// log's size, loadgen errors, dataset count and extra files drop an open row too).
  bool open_accepts_accuracy_files = true;

  /// The targets of `model` in `scenario` (the scenario's own where the round has them per
  /// scenario, v6.1), or nullptr when the round has none for the model.
  const std::vector<AccuracyBound>* targets_of(const std::string& model, const std::string& scenario) const;
};

/// configs/inference_accuracy.json.
struct AccuracyRules {
  std::map<std::string, RoundAccuracyRules> rounds;  ///< "v5.1" → rules
  /// Loads the file. Throws std::runtime_error naming the file when it is missing or
  /// malformed, or a pattern does not compile.
  static AccuracyRules load(const std::filesystem::path& file);
};

/// A Python regular expression (the subset ACC_PATTERN uses) as std::regex ECMAScript reads it:
/// a `{` or `}` that does not form a quantifier ({n}, {n,}, {n,m}) is a literal, as in Python.
std::string python_regex_to_ecmascript(const std::string& pattern);

/// The longest run of plain characters a Python regular expression holds outside groups,
/// classes and quantified atoms: every string the pattern matches contains it. "" when there
/// is none, or where flags ((?i) ...) or a top-level alternation could change that. E.g.
/// ".*'rouge1':\\s+'?([\\d.]+)'?.*" gives "'rouge1':".
std::string required_literal(const std::string& python_pattern);


/// The accuracy run of one scenario folder, as the checker judges it.
struct AccuracyResult {
  std::string file;  ///< the accuracy.txt read ("" when there is none)
  /// Target metrics found, in the table's order, with their text as accuracy.txt writes it.
  std::vector<std::pair<std::string, std::string>> metrics;
  std::optional<std::string> hash;  ///< the hash= line's value
  bool valid = false;               ///< the checker's accuracy verdict (see judge_accuracy)
  std::vector<ValidityCheck> checks;  ///< accuracy_txt, one per target and upper limit, hash
  std::vector<std::string> warnings;  ///< open division: targets missed, accepted
  /// The results table's Accuracy cell: "ROUGE1: 44.5302  ROUGE2: 22.1844" (two spaces), or the
  /// first value alone where the round's column is "first_value".
  std::string column;
  /// The accuracy folder's files (judge_accuracy_files): accuracy_files, accuracy_log,
  /// accuracy_log_errors, accuracy_sample_count. Kept apart from `checks`:
  /// `valid` is the verdict on the values, `files_valid` on the files; the checker's verdict on
  /// the accuracy run is both.
  std::vector<ValidityCheck> file_checks;
  bool files_valid = true;
};

/// The warning for a failed accuracy check the open division accepts ("accuracy not valid but
/// taken for open"): "open division, accepted: <message>".
std::string accepted_in_open(const std::string& message);

/// Reads `accuracy_dir`/accuracy.txt for the mlperf model `model` (the checker's name, after
/// any open-division model mapping) in `scenario` under `rules`, line by line as
/// check_accuracy_dir does: each target's pattern is matched at the start of every line (the
/// last match before the checker stops counts, and a value below its target anywhere fails);
/// upper limits likewise; reading stops once every target was met and a hash= line seen.
/// Closed division: valid when every target was seen and met, no upper limit exceeded and the
/// hash is there. Open division: as the checker takes an accuracy that misses its targets
/// "for open", only a missing file, missing values or hash fail it; a missed target is a
/// warning. Never throws: a file that cannot be read is a failed accuracy_txt check.
AccuracyResult judge_accuracy(const std::filesystem::path& accuracy_dir, const RoundAccuracyRules& rules,
                              const std::string& model, const std::string& scenario, const std::string& division);

/// The files of `accuracy_dir` as the round's checker judges them (check_results_dir and
/// check_accuracy_dir at tags v4.1–v5.1.1, AccuracyCheck at HEAD for v6.x), appended to
/// `result.file_checks` (files_valid false on any failure):
/// accuracy_files — exactly `required_files` (mlperf_log_trace.json, results.json, .gitkeep
/// allowed; the checker drops the row on a mismatch, open division too);
/// accuracy_log — mlperf_log_accuracy.json there and at most max_accuracy_log_size bytes;
/// accuracy_log_errors — the accuracy-mode mlperf_log_detail.txt there, without loadgen errors
/// (the first is named with its line);
/// accuracy_sample_count — effective_accuracy_sample_count (v6.x, when logged) or
/// qsl_reported_total_count equal to the model's count; where the round's checker only logs a
/// mismatch (v5.1) it becomes a warning in `result.warnings`, not a failed check;
/// REQUIRED_ACC_BENCHMARK's subfolders and file stems (e.g. SDXL's images/) missing are a
/// warning: the official results were checked with --skip-extra-accuracy-files-check (no v5.1
/// SDXL submission holds them, every one is published).
/// `packaging` false (a run of one's own, outside the submission layout): accuracy_files and
/// accuracy_log, what packing a submission makes of the folder, are not judged.
/// Never throws.
void judge_accuracy_files(const std::filesystem::path& accuracy_dir, const RoundAccuracyRules& rules,
                          const std::string& model, const std::string& scenario, AccuracyResult& result,
                          bool packaging = true);

/// The accuracy run of an MLPerf endpoints run (endpoints_log.h; `accuracy_log` read from
/// `accuracy_dir`/accuracy_results.json) as AccuracyCheck judges it with is_endpoints:
/// checks: accuracy_score — the first accuracy_scores[].score is there and, for a model of
/// endpoints.accuracy_target_models outside the open division, its number (the score, numeric
/// text, or the dict member named by a target's metric, its lower case, its last _-part, then
/// f1, score, accuracy) is at least the scenario's first target;
/// file_checks: accuracy_log_errors — no failed samples (num_errors); accuracy_sample_count —
/// effective_accuracy_sample_count (else qsl_reported_total_count) equal to the model's count;
/// REQUIRED_ACC_BENCHMARK's files missing are a warning, as for a loadgen run.
/// `column` is the results table's Accuracy cell: json.dumps of the score without quotes,
/// braces and commas ("81.35824977210574"). Never throws except std::bad_alloc.
AccuracyResult judge_endpoints_accuracy(const std::filesystem::path& accuracy_dir, const LoadgenLog& accuracy_log,
                                        const RoundAccuracyRules& rules, const EndpointsRules& endpoints,
                                        const std::string& model, const std::string& scenario,
                                        const std::string& division);

/// The mlperf model an open-division folder stands for: `<division>/<org>/model_mapping.json`
/// maps folder names to mlperf models (the checker's model mapping); `model` itself when the
/// file is absent, does not map it or cannot be read.
std::string mapped_model(const std::filesystem::path& scenario_dir, const std::string& model);

/// The folder names `org_dir`/model_mapping.json maps to mlperf models (its string members);
/// empty when the file is absent, not an object or cannot be read. mapped_model looks `model`
/// up in this. Never throws except std::bad_alloc.
std::map<std::string, std::string> read_model_mapping(const std::filesystem::path& org_dir);

/// The folder of the submitter (`<division>/<org>`) a scenario folder
/// `<division>/<org>/results/<system>/<model>/<scenario>` lies in.
std::filesystem::path submitter_of_scenario(const std::filesystem::path& scenario_dir);

}  // namespace mlperf::inference
