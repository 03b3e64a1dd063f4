#pragma once
// Ruleset versions ("5.1.0") and their ordering.

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace mlperf {

/// A ruleset version such as 5.1.0 (MLPerf Training rounds are named by it).
struct Ruleset {
  std::array<int, 3> parts{0, 0, 0};

  /// Parses "X.Y.Z", "X.Y" (→ X.Y.0) or "X" (→ X.0.0). Returns nullopt on anything else.
  static std::optional<Ruleset> parse(std::string_view text);
  /// "X.Y.Z".
  std::string str() const;
  auto operator<=>(const Ruleset&) const = default;
};

}  // namespace mlperf
