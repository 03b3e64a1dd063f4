#include <algorithm>
#include <cctype>
#include <regex>

#include "mlperf/score.h"

namespace mlperf {

namespace fs = std::filesystem;

namespace {

// result_<N>.txt with N digits; natural order by N.
std::optional<long long> result_index(const std::string& name) {
  static const std::regex pattern(R"(result_(\d+)\.txt)");
  std::smatch m;
  if (!std::regex_match(name, m, pattern)) return std::nullopt;
  try {
    return std::stoll(m[1].str());
  } catch (...) {
    return std::nullopt;
  }
}

bool is_result_name(const std::string& name) {
  return name.size() > 11 && name.rfind("result_", 0) == 0 && name.ends_with(".txt");
}

std::optional<Ruleset> ruleset_from_path(const fs::path& path) {
  static const std::regex pattern(R"(training(?:_results)?_v(\d+)\.(\d+)(?:\.(\d+))?)");
  std::optional<Ruleset> found;
  for (const auto& part : fs::absolute(path).lexically_normal()) {
    std::smatch m;
    std::string s = part.string();
    if (std::regex_match(s, m, pattern)) found = Ruleset::parse(m[1].str() + "." + m[2].str());
  }
  return found;
}

// Reads one directory's result files; nullopt when it holds none.
std::optional<BenchmarkDir> as_benchmark_dir(const fs::path& path, std::vector<DiscoveryError>& errors) {
  std::vector<fs::path> files;
  std::error_code ec;
  fs::directory_iterator it(path, ec), end;
  if (ec) {
    errors.push_back({path.string(), "cannot read directory: " + ec.message()});
    return std::nullopt;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) {
      errors.push_back({path.string(), "cannot read directory: " + ec.message()});
      break;
    }
    std::string name = it->path().filename().string();
    // Everything named result_N.txt is a result file: one that is a directory or a FIFO is
    // reported when it is read, not left out in silence.
    if (is_result_name(name)) files.push_back(it->path());
  }
  if (files.empty()) return std::nullopt;
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    auto ia = result_index(a.filename().string()), ib = result_index(b.filename().string());
    if (ia && ib && *ia != *ib) return *ia < *ib;
    if (ia.has_value() != ib.has_value()) return ia.has_value();
    return a.filename() < b.filename();
  });
  BenchmarkDir dir;
  dir.path = path;
  dir.result_files = std::move(files);
  fs::path norm = fs::absolute(path).lexically_normal();
  if (!norm.has_filename()) norm = norm.parent_path();
  dir.benchmark_name = norm.filename().string();
  fs::path system_dir = norm.parent_path();
  dir.system = system_dir.filename().string();
  if (system_dir.parent_path().filename() == "results") {
    fs::path org_dir = system_dir.parent_path().parent_path();
    dir.submitter = org_dir.filename().string();
    fs::path description = org_dir / "systems" / (dir.system + ".json");
    std::error_code exists_ec;
    if (fs::is_regular_file(description, exists_ec)) dir.system_description = description;
  }
  dir.path_ruleset = ruleset_from_path(path);
  return dir;
}

void walk(const fs::path& path, std::vector<BenchmarkDir>& out, std::vector<DiscoveryError>& errors, int depth) {
  if (depth > 64) {
    errors.push_back({path.string(), "directory tree too deep; not descending further"});
    return;
  }
  if (auto dir = as_benchmark_dir(path, errors)) {
    out.push_back(std::move(*dir));
    return;  // a benchmark directory is a leaf
  }
  std::vector<fs::path> children;
  std::error_code ec;
  fs::directory_iterator it(path, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    // Never follow symbolic links to directories: a link loop would never end.
    if (it->is_directory(type_ec) && !it->is_symlink(type_ec)) children.push_back(it->path());
  }
  std::sort(children.begin(), children.end());
  for (const auto& child : children) walk(child, out, errors, depth + 1);
}

}  // namespace

std::vector<BenchmarkDir> find_benchmark_dirs(const fs::path& root, std::vector<DiscoveryError>& errors) {
  std::vector<BenchmarkDir> out;
  std::error_code ec;
  auto status = fs::status(root, ec);
  if (ec || !fs::exists(status)) {
    bool missing = !ec || ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory;
    errors.push_back({root.string(), missing ? "no such file or directory" : "cannot access: " + ec.message()});
    return out;
  }
  if (!fs::is_directory(status)) {
    errors.push_back({root.string(), "not a directory (give a benchmark directory or a folder above one)"});
    return out;
  }
  walk(root, out, errors, 0);
  return out;
}

}  // namespace mlperf
