#include "mlperf/training/olympic.h"

#include <algorithm>

namespace mlperf {

std::optional<double> olympic_mean(std::vector<double> counted_minutes, int dropped, int drop) {
  if (dropped > drop || dropped < 0 || drop < 0) return std::nullopt;
  std::sort(counted_minutes.begin(), counted_minutes.end());
  const long n = static_cast<long>(counted_minutes.size());
  const long begin = drop;
  const long end = n - (drop - dropped);
  if (end <= begin) return std::nullopt;
  double sum = 0;
  for (long i = begin; i < end; ++i) sum += counted_minutes[i];
  return sum / static_cast<double>(end - begin);
}

}  // namespace mlperf
