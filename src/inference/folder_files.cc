// files_diff and text lines as the submission checker reads them (folder_files.h).

#include "mlperf/inference/folder_files.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include "mlperf/mllog/folder_listing.h"
#include "mlperf/mllog/line_reader.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>
#include <string_view>
#include <system_error>

namespace mlperf::inference {

namespace fs = std::filesystem;

FilesDiff files_diff(const fs::path& dir, const std::vector<std::string>& required, std::vector<std::string> optional) {
  optional.insert(optional.end(), {"mlperf_log_trace.json", "results.json", ".gitkeep"});
  const std::vector<std::string> files = regular_files_in(dir);
  const std::set<std::string> present(files.begin(), files.end());
  const std::set<std::string> allowed(optional.begin(), optional.end());
  FilesDiff d;
  for (const auto& r : required) {
    if (!present.count(r) && !allowed.count(r)) d.missing.push_back(r);
  }
  for (const auto& p : present) {
    if (std::find(required.begin(), required.end(), p) == required.end() && !allowed.count(p)) d.extra.push_back(p);
  }
  return d;
}

ValidityCheck files_check(std::string name, const std::string& dir, const std::vector<std::string>& required,
                          std::vector<std::string> optional) {
  const FilesDiff d = files_diff(dir, required, std::move(optional));
  return {std::move(name), d.empty(), nlohmann::json{{"missing", d.missing}, {"extra", d.extra}}, required, 0,
          d.empty() ? std::string()
                    : fmt::format("{} has file list mismatch (missing: {}; unexpected: {})", dir,
                                  fmt::join(d.missing, ", "), fmt::join(d.extra, ", ")),
          dir};
}

std::optional<std::vector<std::string>> read_text_lines(const fs::path& file) {
  // Read as `<< rdbuf()` of an ifstream read it: a file that opens but cannot be read (a
  // folder) gives no lines.
  const std::optional<std::string> text = read_whole_file(file);
  if (!text) return std::nullopt;
  const std::string_view s = *text;
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t i = s.find_first_of("\r\n"); i != std::string_view::npos; i = s.find_first_of("\r\n", start)) {
    lines.emplace_back(s.substr(start, i - start));
    start = i + 1;
    if (s[i] == '\r' && start < s.size() && s[start] == '\n') ++start;
  }
  if (start < s.size()) lines.emplace_back(s.substr(start));
  return lines;
}

std::string strip_whitespace(const std::string& s) {
  const char* ws = " \t\n\r\v\f";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

std::optional<double> python_float(std::string_view text) {
  const char* ws = " \t\n\r\v\f";
  const auto b = text.find_first_not_of(ws);
  if (b == std::string_view::npos) return std::nullopt;
  text = text.substr(b, text.find_last_not_of(ws) - b + 1);
  // from_chars reads no leading '+' (float() does) and, unlike strtod, no hexadecimal (float()
  // neither).
  const bool negative = text.front() == '-';
  if (text.front() == '+' || negative) text.remove_prefix(1);
  if (text.empty() || text.front() == '+' || text.front() == '-') return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end != text.data() + text.size() || (ec != std::errc{} && ec != std::errc::result_out_of_range)) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // float() gives inf for an overflow and 0 for an underflow, as strtod does.
    value = std::strtod(std::string(text).c_str(), nullptr);
  }
  return negative ? -value : value;
}

}  // namespace mlperf::inference
