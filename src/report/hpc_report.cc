#include "mlperf/report/hpc_report.h"

#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace mlperf {

namespace {

template <class T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

std::string ruleset_label(const Ruleset& ruleset) {
  return ruleset.usage == Usage::kHpc ? "hpc " + ruleset.str() : ruleset.str();
}

void add_hpc_json_fields(nlohmann::json& object, const DirectoryResult& result) {
  object["usage"] = to_string(result.ruleset.usage);
  object["scaling"] = result.scaling;
  if (!result.weak) return;
  const WeakScalingScore& w = *result.weak;
  object["number_of_models"] = or_null(w.number_of_models);
  object["instance_scale"] = or_null(w.instance_scale);
  object["time_to_train_all_minutes"] = or_null(w.time_to_train_all_minutes);
  object["throughput"] = or_null(w.throughput);
  object["models_converged"] = w.models_converged;
  object["models_required"] = w.models_required;
  object["enough_models"] = w.enough_models;
}

void write_weak_scaling_block(std::ostream& out, const DirectoryResult& result) {
  if (!result.weak) return;
  const WeakScalingScore& w = *result.weak;
  fmt::print(out, "\n  models trained      {} of {} logs (at least {} needed)\n", w.models_converged, result.runs.size(),
             w.models_required);
  fmt::print(out, "  instance scale      {}\n",
             w.instance_scale ? fmt::format("{} accelerators per model", *w.instance_scale) : std::string("-"));
  fmt::print(out, "  time to train all   {}\n",
             w.time_to_train_all_minutes ? fmt::format("{:.4f} minutes", *w.time_to_train_all_minutes)
                                         : std::string("-"));
  const char* verdict = result.verdict == "passed" ? "PASSED" : result.verdict == "incomplete" ? "incomplete" : "FAILED";
  fmt::print(out, "  throughput          {}   {}\n",
             w.throughput ? fmt::format("{:.4f} models/minute", *w.throughput) : std::string("none"), verdict);
}

std::array<std::string, 4> weak_scaling_columns(const std::string& benchmark) {
  return {benchmark + ":number_of_models", benchmark + ":instance_scale", benchmark + ":time_to_train_all",
          benchmark + ":throughput"};
}

std::array<std::optional<double>, 4> weak_scaling_cells(const WeakScalingScore& weak) {
  auto as_double = [](const auto& v) { return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt; };
  return {as_double(weak.number_of_models), as_double(weak.instance_scale), weak.time_to_train_all_minutes,
          weak.throughput};
}

const char* weak_scaling_cell_format(const std::string& column) {
  if (column.ends_with(":number_of_models") || column.ends_with(":instance_scale")) return "{:.0f}";
  if (column.ends_with(":time_to_train_all")) return "{:.2f}";
  if (column.ends_with(":throughput")) return "{:.4f}";
  return nullptr;
}

}  // namespace mlperf
