// libFuzzer target: one MLLOG line → parse_mllog_line (scoring.md §1). Any input must give
// kNotMllog, kEvent with a key and a number time_ms, or kError with a message — never a
// crash, a leak or undefined behaviour. Differential check: whenever the scoring fast path
// (scan_mllog_line, MllogScanner) accepts a line, the full parser must read the same event.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "mlperf/mllog/mllog.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  mlperf::Event event;
  std::string error;
  mlperf::LineKind kind = mlperf::parse_mllog_line(line, event, error);

  mlperf::EventView view;
  static mlperf::MllogScanner scanner;  // remembers shapes across inputs, as across lines
  for (int pass = 0; pass < 2; ++pass) {
    mlperf::ScanKind scanned = pass == 0 ? mlperf::scan_mllog_line(line, view) : scanner.scan(line, view);
    if (scanned == mlperf::ScanKind::kNotMllog && kind != mlperf::LineKind::kNotMllog) std::abort();
    if (scanned != mlperf::ScanKind::kEvent) continue;
    if (kind != mlperf::LineKind::kEvent) std::abort();  // fast path accepted a bad line
    if (view.key != event.key || view.event_type != event.event_type || view.name_space != event.name_space) std::abort();
    if (!(view.time_ms == event.time_ms)) std::abort();
    nlohmann::json value = view.value.empty() ? nlohmann::json() : nlohmann::json::parse(view.value);
    if (value != event.value) std::abort();
    nlohmann::json metadata = view.metadata.empty() ? nlohmann::json::object() : nlohmann::json::parse(view.metadata);
    if (metadata != event.metadata) std::abort();
  }

  switch (kind) {
    case mlperf::LineKind::kNotMllog:
      if (line.find(mlperf::kMllogToken) != std::string_view::npos) std::abort();
      break;
    case mlperf::LineKind::kEvent:
      if (!event.metadata.is_object()) std::abort();
      // Reports dump events: that must work for anything the parser accepts.
      (void)event.value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      break;
    case mlperf::LineKind::kError:
      if (error.empty()) std::abort();
      break;
  }
  return 0;
}
