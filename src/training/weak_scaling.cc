#include "mlperf/training/weak_scaling.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace mlperf {

namespace {

// Python's int() of a logged number: truncation toward zero.
long long python_int(double v) { return static_cast<long long>(std::trunc(v)); }

}  // namespace

WeakScalingScore score_weak_scaling(const std::vector<Run>& runs, int models_required) {
  WeakScalingScore out;
  out.models_required = models_required;
  double first_start = std::numeric_limits<double>::infinity();
  double last_stop = -std::numeric_limits<double>::infinity();
  std::optional<long long> scale;
  for (const Run& run : runs) {
    if (!run.counted()) continue;
    // counted() implies the summarizer's run_start and run_stop are both known.
    first_start = std::min(first_start, run.summarizer_run_start->time_ms);
    last_stop = std::max(last_stop, run.summarizer_run_stop->time_ms);
    ++out.models_converged;
    // The summarizer counts the model before it reads the instance scale; a log without
    // number_of_nodes or accelerators_per_node raises a ValueError it catches, still counted.
    if (!run.number_of_nodes || !run.accelerators_per_node) continue;
    const long long this_scale = python_int(*run.number_of_nodes) * std::max(python_int(*run.accelerators_per_node), 1LL);
    if (!scale) {
      scale = this_scale;
    } else if (*scale != this_scale && out.problems.empty()) {
      out.problems.push_back(fmt::format(
          "{}: instance scale {} differs from the first run's {} (the official summarizer stops on its assert)",
          run.file, this_scale, *scale));
    }
  }
  out.enough_models = out.models_converged >= models_required;
  if (!out.enough_models) return out;
  out.number_of_models = out.models_converged;
  out.instance_scale = scale;
  out.time_to_train_all_minutes = (last_stop - first_start) / kMillisecondsPerMinute;
  if (*out.time_to_train_all_minutes > 0) out.throughput = out.models_converged / *out.time_to_train_all_minutes;
  return out;
}

}  // namespace mlperf
