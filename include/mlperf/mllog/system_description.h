#pragma once
// A system description, <org>/systems/<system>.json of an MLPerf submission: the fields the
// results table and the submission checkers read.

#include <filesystem>
#include <optional>
#include <string>

namespace mlperf {

/// The fields of a system description `<org>/systems/<system>.json` (MLPerf submission
/// rules, system description JSON) that the results table shows.
struct SystemDescription {
  std::string system_name;                ///< "system_name"
  std::string division;                   ///< "division"
  std::string availability;               ///< "status", e.g. "Available on-premise"
  std::string accelerator_model_name;     ///< e.g. "AMD Instinct MI355X"
  std::optional<long long> accelerators_per_node;
  std::optional<long long> number_of_nodes;
  std::string host_processor_model_name;  ///< e.g. "AMD EPYC 9575F"
  std::string framework;                  ///< "framework", the software stack
  /// "is_network" as written: the JSON text of the field ("\"True\"", "true", …); empty when
  /// absent. The inference submission checker reads it as a string (is_system_over_network).
  std::string is_network_json;
  /// "system_power_capacity" as written (its JSON text, any value); nullopt when absent. From
  /// MLPerf Inference v6.1 a power submission's design power, in place of the nameplate file's.
  std::optional<std::string> system_power_capacity_json;
};

/// Reads a system description. Counts may be JSON numbers or digit strings ("8"). Throws
/// std::runtime_error naming the file when it cannot be read or is not a JSON object.
SystemDescription read_system_description(const std::filesystem::path& file);

}  // namespace mlperf
