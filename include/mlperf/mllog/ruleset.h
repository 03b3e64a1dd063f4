#pragma once
// Ruleset versions ("5.1.0") and their ordering; a ruleset belongs to a usage (MLPerf Training
// or MLPerf HPC), whose rounds are versioned apart (hpc 3.0.0 is not training 3.0.0).

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace mlperf {

/// Which MLPerf benchmark suite a ruleset belongs to: the official tooling's `usage`
/// argument ("training", "hpc"), which picks its compliance configs (<usage>_X.Y.Z/) and RCP
/// tables (rcp_checker/<usage>_X.Y.Z/).
enum class Usage : unsigned char { kTraining, kHpc };

/// "training" or "hpc".
const char* to_string(Usage usage);
/// The usage named "training" or "hpc"; nullopt for anything else.
std::optional<Usage> parse_usage(std::string_view text);

/// A ruleset version such as 5.1.0 (MLPerf Training rounds are named by it), of a usage
/// (training unless set: MLPerf HPC rounds are hpc 1.0.0 … 3.0.0).
struct Ruleset {
  std::array<int, 3> parts{0, 0, 0};
  Usage usage = Usage::kTraining;

  /// Parses "X.Y.Z", "X.Y" (→ X.Y.0) or "X" (→ X.0.0). Returns nullopt on anything else.
  static std::optional<Ruleset> parse(std::string_view text);
  /// "X.Y.Z" (whatever the usage).
  std::string str() const;
  /// The official tooling's folder of this ruleset: "training_X.Y.Z" or "hpc_X.Y.Z".
  std::string folder() const;
  /// This version under `u`.
  Ruleset with_usage(Usage u) const {
    Ruleset r = *this;
    r.usage = u;
    return r;
  }
  auto operator<=>(const Ruleset&) const = default;
};

}  // namespace mlperf
