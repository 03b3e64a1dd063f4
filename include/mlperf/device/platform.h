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

/// One NVIDIA data-centre GPU model (configs/nvidia_gpus.json): how the probe recognizes it
/// and the MLPerf-style platform name it maps to.
struct NvidiaGpu {
  /// The platform: name as MLPerf system descriptions write accelerator_model_name
  /// ("NVIDIA H100-SXM5-80GB"), vendor "NVIDIA", memory_gb (GB per device, as in the name),
  /// pci_device_ids (vendor 0x10de), no gfx target or compute units.
  PlatformInfo platform;
  std::vector<std::string> nvml_names;  ///< nvmlDeviceGetName answers, e.g. "NVIDIA H100 80GB HBM3"
  std::vector<std::string> aliases;     ///< other spellings in system descriptions (matched like names)
  std::string pci_ids_name;             ///< the PCI ID database's name, e.g. "GH100 [H100 SXM5 80GB]"
};

/// The table of known platforms.
struct PlatformTable {
  std::vector<PlatformInfo> platforms;  ///< AMD Instinct platforms (configs/platforms.json)
  /// NVIDIA GPUs (configs/nvidia_gpus.json beside platforms.json; empty when that file is absent).
  std::vector<NvidiaGpu> nvidia_gpus;
  std::filesystem::path nvidia_gpus_file;  ///< the file nvidia_gpus came from; empty when none

  /// The known platform named in `text` (case-insensitive; "AMD Instinct MI355X",
  /// "8xMI325X_2xEPYC_9755", "MI300X_EPYC_9575F_pytorch", "NVIDIA H100-SXM5-80GB"), longest
  /// name first so MI300X is not read as MI300A. NVIDIA platforms match by name or alias and
  /// only where the name ends a word (the next character is not a letter or digit), so that
  /// "NVIDIA L4" is not read in "NVIDIA L40S". nullptr when none is named.
  const PlatformInfo* match(std::string_view text) const;

  /// Loads configs/platforms.json and, when it exists, configs/nvidia_gpus.json in the same
  /// folder (see load_nvidia_gpus). Throws std::runtime_error naming the file at fault.
  static PlatformTable load(const std::filesystem::path& file);

  /// Loads an NVIDIA GPU table ({"gpus": [{"name", "memory_gb", "pci_device_ids": ["0x2330"],
  /// "nvml_names", "aliases", "pci_ids_name"}]}). Every name must start "NVIDIA " and every
  /// PCI device id must be 16-bit hex and belong to one GPU only. Throws std::runtime_error
  /// naming the file on a missing file, bad JSON or a rule broken.
  static std::vector<NvidiaGpu> load_nvidia_gpus(const std::filesystem::path& file);
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
