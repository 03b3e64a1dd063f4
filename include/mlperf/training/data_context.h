#pragma once
// The shipped data (configs/ and data/rcps/ of the source tree or the install), loaded once
// and shared by every directory a command scores.

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mlperf/device/platform.h"
#include "mlperf/mllog/ruleset.h"
#include "mlperf/training/facts.h"
#include "mlperf/training/rcp.h"

namespace mlperf {

struct PackageRules;  // training/package.h

namespace inference {
struct InferenceData;  // inference/score.h: read on first use, by the inference stage
}  // namespace inference

/// The shipped data, loaded once: facts, RCP tables, platforms, expected results.
class DataContext {
 public:
  /// Loads `<root>/configs/{benchmarks,platforms,expected_results}.json` and reads RCP
  /// tables from `<root>/data/rcps/<usage>_<ruleset>/rcps_<benchmark>.json` on demand.
  /// Throws std::runtime_error naming the file that is missing or malformed.
  explicit DataContext(const std::filesystem::path& root);

  const Facts& facts() const { return facts_; }
  const PlatformTable& platforms() const { return platforms_; }
  const ExpectedResults& expected() const { return expected_; }
  const std::filesystem::path& root() const { return root_; }
  /// Publication date (YYYY-MM-DD) of each round, from configs/round_dates.json (empty map
  /// when the file is absent). Used to guess a directory's ruleset from its logs' dates.
  const std::map<Ruleset, std::string>& round_dates() const { return round_dates_; }

  /// The RCP records of `benchmark` under `ruleset`, sorted by batch size; empty when no
  /// table is shipped. Thread-safe; each table is read once. Throws std::runtime_error
  /// when a table exists but is malformed.
  std::shared_ptr<const std::vector<RcpRecord>> rcps(const BenchmarkFacts& benchmark,
                                                     const Ruleset& ruleset) const;
  /// The rulesets with an RCP folder shipped for `usage` ("training"/"hpc").
  std::vector<Ruleset> rcp_rulesets(const std::string& usage) const;
  /// configs/inference_rules.json and the "inference" figures of expected_results.json, read
  /// on first use (src/inference/score.cc). Thread-safe. Throws std::runtime_error naming
  /// the file when either is malformed (again on each call).
  const inference::InferenceData& inference() const;
  /// configs/package_checker.json (training/package.h), read on first use. Thread-safe.
  /// Throws std::runtime_error naming the file when it is missing or malformed.
  const PackageRules& package_rules() const;

 private:
  std::filesystem::path root_;
  Facts facts_;
  PlatformTable platforms_;
  ExpectedResults expected_;
  std::map<Ruleset, std::string> round_dates_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::shared_ptr<const std::vector<RcpRecord>>> rcp_cache_;
  mutable std::shared_ptr<const inference::InferenceData> inference_;
  mutable std::shared_ptr<const PackageRules> package_rules_;
};

/// Finds the data root: `explicit_dir` when given; else $MLPERF_SCORE_DATA_DIR; else the
/// first of <exe dir>, <exe dir>/.., <exe dir>/../share/mlperf-score, the install prefix's
/// share/mlperf-score and the source tree that holds configs/benchmarks.json.
/// Throws std::runtime_error listing the places tried.
std::filesystem::path find_data_root(const std::optional<std::filesystem::path>& explicit_dir);

}  // namespace mlperf
