#include <new>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mlperf/training/score.h"
#include "mlperf/mllog/line_reader.h"

namespace mlperf {

namespace fs = std::filesystem;

DataContext::DataContext(const fs::path& root)
    : root_(root),
      facts_(Facts::load(root / "configs" / "benchmarks.json")),
      platforms_(PlatformTable::load(root / "configs" / "platforms.json")),
      expected_(ExpectedResults::load(root / "configs" / "expected_results.json")) {
  fs::path dates = root / "configs" / "round_dates.json";
  std::error_code ec;
  if (!fs::exists(dates, ec)) return;
  try {
    std::ifstream in = open_input_file(dates);
    nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& [key, value] : doc.at("published").items()) {
      auto r = Ruleset::parse(key);
      if (!r) throw std::runtime_error("\"" + key + "\" is no ruleset X.Y.Z");
      round_dates_[*r] = value.get<std::string>();
    }
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", dates.string(), e.what()));
  }
}

std::shared_ptr<const std::vector<RcpRecord>> DataContext::rcps(const BenchmarkFacts& benchmark,
                                                               const Ruleset& ruleset) const {
  // Looked up by "usage_X.Y.Z/name" (every directory asks; a path is built only to load).
  std::string key = benchmark.usage;
  key.append("_").append(ruleset.str()).append("/").append(benchmark.name);
  {
    std::lock_guard lock(mutex_);
    auto it = rcp_cache_.find(key);
    if (it != rcp_cache_.end()) return it->second;
  }
  const fs::path file = root_ / "data" / "rcps" / (benchmark.usage + "_" + ruleset.str()) /
                        ("rcps_" + benchmark.name + ".json");
  std::vector<RcpRecord> records;
  std::error_code ec;
  if (fs::exists(file, ec)) {
    records = load_rcp_table(file, benchmark.rcp_samples_key, benchmark.olympic_drop, benchmark.required_runs);
  }
  auto shared = std::make_shared<const std::vector<RcpRecord>>(std::move(records));
  std::lock_guard lock(mutex_);
  return rcp_cache_.emplace(key, shared).first->second;
}

std::vector<Ruleset> DataContext::rcp_rulesets(const std::string& usage) const {
  std::vector<Ruleset> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root_ / "data" / "rcps", ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(usage + "_", 0) != 0) continue;
    if (auto r = Ruleset::parse(name.substr(usage.size() + 1))) out.push_back(*r);
  }
  throw_if_out_of_memory(ec.value());  // opendir's malloc: not a folder without RCPs
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

bool is_data_root(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "configs" / "benchmarks.json", ec) && fs::is_directory(dir / "data" / "rcps", ec);
}

}  // namespace

fs::path find_data_root(const std::optional<fs::path>& explicit_dir) {
  if (explicit_dir) {
    if (!is_data_root(*explicit_dir)) {
      throw std::runtime_error(fmt::format("{}: not a data directory (needs configs/benchmarks.json and data/rcps/)",
                                           explicit_dir->string()));
    }
    return *explicit_dir;
  }
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("MLPERF_SCORE_DATA_DIR"); env && *env) candidates.emplace_back(env);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path dir = exe.parent_path();
    candidates.push_back(dir);
    candidates.push_back(dir.parent_path());
    candidates.push_back(dir.parent_path() / "share" / "mlperf-score");
  }
#ifdef MLPERF_SCORE_INSTALL_DATADIR
  candidates.emplace_back(MLPERF_SCORE_INSTALL_DATADIR);
#endif
#ifdef MLPERF_SCORE_SOURCE_DIR
  candidates.emplace_back(MLPERF_SCORE_SOURCE_DIR);
#endif
  std::string tried;
  for (const auto& c : candidates) {
    if (is_data_root(c)) return c;
    tried += "\n  " + c.string();
  }
  throw std::runtime_error("cannot find the data directory (configs/benchmarks.json, data/rcps/); tried:" + tried +
                           "\nuse --data-dir DIR or MLPERF_SCORE_DATA_DIR");
}

}  // namespace mlperf
