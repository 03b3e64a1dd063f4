#pragma once
// The olympic mean of a directory's run times (scoring.md §3).

#include <optional>
#include <vector>

namespace mlperf {

/// Olympic mean of the counted runs' minutes (§3). `dropped` runs did not count; they stand
/// in for the slowest. Sorts ascending and averages the slice [drop, n − (drop − dropped))
/// of the n counted values. Returns nullopt when dropped > drop (too many non-converging
/// runs) or when the slice is empty.
std::optional<double> olympic_mean(std::vector<double> counted_minutes, int dropped, int drop);

}  // namespace mlperf
