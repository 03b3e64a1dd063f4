// files_diff and text lines as the submission checker reads them (folder_files.h).

#include "mlperf/inference/folder_files.h"
#include "mlperf/mllog/folder_listing.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

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

std::optional<std::vector<std::string>> read_text_lines(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  const std::string s = text.str();
  std::vector<std::string> lines;
  std::string line;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' || s[i] == '\r') {
      lines.push_back(line);
      line.clear();
      if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
    } else {
      line += s[i];
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string strip_whitespace(const std::string& s) {
  const char* ws = " \t\n\r\v\f";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

}  // namespace mlperf::inference
