#pragma once
// Every field of a Run as text, doubles to the bit: the tests (run_event_view_test) and the
// fuzzer (fuzz_run_builder) compare the fast path's Run with the full parser's through it.

#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "mlperf/training/run.h"

namespace mlperf::testing {

/// A double exactly: hexadecimal floating point, or the bit pattern of a NaN.
inline std::string hex(double x) {
  return std::isnan(x) ? fmt::format("nan:{:016x}", std::bit_cast<std::uint64_t>(x)) : fmt::format("{:a}", x);
}

/// An event mark as time@line, "-" when absent.
inline std::string mark(const std::optional<EventMark>& m) {
  return m ? fmt::format("{}@{}", hex(m->time_ms), m->line) : "-";
}

/// Every field of `r`, one group per line; two Runs are equal when their texts are.
inline std::string describe(const Run& r) {
  std::string s = fmt::format("file={} benchmark={} division={} org={} platform={} gbs={}\n", r.file, r.benchmark,
                              r.division, r.org, r.platform,
                              r.global_batch_size ? std::to_string(*r.global_batch_size) : "-");
  s += fmt::format("run_start={} run_stop={} init_start={} init_stop={} late_init_start={}\n", mark(r.run_start),
                   mark(r.run_stop), mark(r.init_start), mark(r.init_stop), mark(r.late_init_start));
  s += fmt::format("counts={} {} {} {} status={} minutes={}\n", r.run_start_count, r.run_stop_count,
                   r.init_start_count, r.init_stop_count, r.status ? "\"" + *r.status + "\"" : "-",
                   r.minutes ? hex(*r.minutes) : "-");
  s += fmt::format("target known={} reached={} converged={} samples={} throughput={}\n", r.quality_target_known,
                   r.quality_target_reached, r.converged, hex(r.samples_to_converge),
                   r.last_throughput ? hex(*r.last_throughput) : "-");
  for (const auto& [key, c] : r.key_census) {
    s += fmt::format("census {} {} {}@{} last@{}\n", key, c.count, hex(c.first.time_ms), c.first.line, c.last_line);
  }
  s += fmt::format("mllog_lines={} parse_errors={}\n", r.mllog_lines, r.parse_error_count);
  for (const auto& e : r.parse_errors) s += fmt::format("error {}:{}: {}\n", e.file, e.line, e.message);
  for (const auto& d : r.drop_reasons) s += "drop " + d + "\n";
  for (const auto& n : r.notes) s += "note " + n + "\n";
  return s;
}

}  // namespace mlperf::testing
