#pragma once
// What the inference submission checker asks of a folder's files, shared by the accuracy and
// compliance-test checks: files_diff and text read as Python reads it.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mlperf/inference/result.h"

namespace mlperf::inference {

/// The submission checker's files_diff(list_files(dir), required, optional): the regular files
/// of a folder against the ones required. mlperf_log_trace.json, results.json and .gitkeep are
/// always allowed (submission_checker.py files_diff).
struct FilesDiff {
  std::vector<std::string> missing;  ///< required, not there
  std::vector<std::string> extra;    ///< there, neither required nor allowed
  bool empty() const { return missing.empty() && extra.empty(); }
};

/// Compares the regular files of `dir` with `required` (+ `optional`). A folder that cannot be
/// read holds no files.
FilesDiff files_diff(const std::filesystem::path& dir, const std::vector<std::string>& required,
                     std::vector<std::string> optional = {});

/// files_diff of `dir` as a check named `name`: passed when nothing is missing or extra, value
/// {"missing", "extra"}, limit `required`, the message the checker logs ("<dir> has file list
/// mismatch (missing: …; unexpected: …)", empty when passed), file `dir`.
ValidityCheck files_check(std::string name, const std::string& dir, const std::vector<std::string>& required,
                          std::vector<std::string> optional = {});

/// A text file's lines as Python reads them in text mode (universal newlines: \n, \r\n and a
/// lone \r end a line), without their ends; nullopt when it cannot be opened (a folder opens
/// and reads nothing: no lines).
std::optional<std::vector<std::string>> read_text_lines(const std::filesystem::path& file);

/// Python's str.strip() for the whitespace a text file holds (space, \t, \n, \r, \v, \f).
std::string strip_whitespace(const std::string& text);

/// Python's float() of a text: surrounding whitespace allowed, an optional sign, a decimal
/// number, "inf", "infinity" or "nan" (any case); nullopt where float() raises (hexadecimal,
/// empty, trailing text; digit-group underscores are not read).
std::optional<double> python_float(std::string_view text);

}  // namespace mlperf::inference
