#pragma once
// Submission platforms and the expected results per platform (configs/platforms.json,
// configs/expected_results.json; spec/devices.md).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mlperf/mllog/ruleset.h"

namespace mlperf {

/// One known accelerator platform (spec/devices.md).
struct PlatformInfo {
  std::string name;                     ///< canonical name, e.g. "MI355X"
  std::string vendor;                   ///< "AMD"
  std::string gfx_target;               ///< HIP gcnArchName prefix, e.g. "gfx950"
  std::vector<unsigned> pci_device_ids; ///< physical and virtual-function ids
  double memory_gb = 0;                 ///< HBM per device (GB)
  int compute_units = 0;
};

/// The table of known platforms.
struct PlatformTable {
  std::vector<PlatformInfo> platforms;

  /// The known platform named in `text` (case-insensitive; "AMD Instinct MI355X",
  /// "8xMI325X_2xEPYC_9755", "MI300X_EPYC_9575F_pytorch"), longest name first so MI300X is
  /// not read as MI300A. nullptr when none is named.
  const PlatformInfo* match(std::string_view text) const;

  /// Loads configs/platforms.json. Throws std::runtime_error naming the file.
  static PlatformTable load(const std::filesystem::path& file);
};

/// The platform a directory's runs were made on, and where that came from.
struct PlatformTag {
  std::string name;    ///< canonical platform name when known, else the raw text ("" if none)
  std::string source;  ///< "system description", "log" or "" when nothing names one
  bool known = false;  ///< name is a PlatformTable entry
};

/// Tags a directory (spec/devices.md): the system description's accelerator_model_name
/// when it names a known platform, else the first known platform named by a run's
/// submission_platform, else the raw accelerator_model_name, else the raw logged value.
PlatformTag tag_platform(const PlatformTable& table, const std::string& accelerator_model_name,
                         const std::vector<std::string>& logged_platforms);

/// A published result for one platform (from the seed documents).
struct ExpectedResult {
  Ruleset ruleset;
  std::string benchmark;
  std::string platform;
  double published_minutes = 0;        ///< the submission's published score (minutes)
  std::optional<double> about_minutes; ///< "the score should be about" figure (minutes)
  std::string source;                  ///< document it comes from
};

/// Expected results, looked up by ruleset, benchmark and platform.
struct ExpectedResults {
  std::vector<ExpectedResult> results;

  /// The entry for (ruleset, benchmark, platform), or nullptr.
  const ExpectedResult* find(const Ruleset& ruleset, const std::string& benchmark,
                             const std::string& platform) const;

  /// Loads configs/expected_results.json. Throws std::runtime_error naming the file.
  static ExpectedResults load(const std::filesystem::path& file);
};

/// A measured score compared with the expected figure.
struct ExpectedComparison {
  ExpectedResult expected;
  double measured_minutes = 0;
  double delta_percent = 0;      ///< (measured − published) / published × 100
  double tolerance_percent = 0;
  bool within_tolerance = false; ///< |delta_percent| ≤ tolerance_percent
};

/// Compares `measured_minutes` with `expected` under a tolerance in percent.
ExpectedComparison compare_expected(const ExpectedResult& expected, double measured_minutes,
                                    double tolerance_percent);

}  // namespace mlperf
