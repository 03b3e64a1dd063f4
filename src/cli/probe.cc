// `mlperf-score probe`: list this node's AMD and NVIDIA GPUs and the submission platform they map to
// (spec/devices.md; the library side is include/mlperf/device/device_probe.h). Always exits 0 once
// the options parse: finding no GPU, or no HIP runtime, is an answer, not an error.

#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "common.h"
#include "mlperf/device/device_probe.h"

namespace mlperf::cli {

namespace {

struct ProbeArgs {
  std::string format = "table";
  std::string sysfs_root = "/sys";
  std::string data_dir;
};

const char* state_name(HipState s) {
  switch (s) {
    case HipState::kNotTried: return "not tried";
    case HipState::kNotInstalled: return "not installed";
    case HipState::kUnusable: return "unusable";
    case HipState::kLoaded: return "loaded";
  }
  return "?";
}

std::string hip_line(const HipStatus& hip) {
  switch (hip.state) {
    case HipState::kNotTried: return "not used";
    case HipState::kNotInstalled: return fmt::format("not installed ({})", hip.message);
    case HipState::kUnusable: return fmt::format("unusable: {} ({})", hip.message, hip.library);
    case HipState::kLoaded: {
      std::string version = hip.runtime_version ? ", HIP " + hip_version_text(*hip.runtime_version) : "";
      if (hip.device_count == 0) return fmt::format("loaded {}{}: no device ({})", hip.library, version, hip.message);
      return fmt::format("loaded {}{}: {} device{}", hip.library, version, hip.device_count,
                         hip.device_count == 1 ? "" : "s");
    }
  }
  return "";
}

const char* state_name(NvmlState s) {
  switch (s) {
    case NvmlState::kNotTried: return "not tried";
    case NvmlState::kNotInstalled: return "not installed";
    case NvmlState::kUnusable: return "unusable";
    case NvmlState::kLoaded: return "loaded";
  }
  return "?";
}

std::string nvml_line(const NvmlStatus& nvml) {
  switch (nvml.state) {
    case NvmlState::kNotTried: return "not used";
    case NvmlState::kNotInstalled: return fmt::format("not installed ({})", nvml.message);
    case NvmlState::kUnusable: return fmt::format("unusable: {} ({})", nvml.message, nvml.library);
    case NvmlState::kLoaded: {
      std::string versions;
      if (!nvml.driver_version.empty()) versions += ", driver " + nvml.driver_version;
      if (nvml.cuda_driver_version) versions += ", CUDA " + cuda_version_text(*nvml.cuda_driver_version);
      if (nvml.device_count == 0) return fmt::format("loaded {}{}: no device", nvml.library, versions);
      return fmt::format("loaded {}{}: {} device{}", nvml.library, versions, nvml.device_count,
                         nvml.device_count == 1 ? "" : "s");
    }
  }
  return "";
}

std::string sysfs_line(const ProbeResult& r) {
  if (!r.sysfs_read) return "not read";
  std::string root = r.sysfs_root.string();
  std::string nvidia = r.nvidia_pci_devices > 0 ? fmt::format("; {} NVIDIA PCI GPU{}", r.nvidia_pci_devices,
                                                              r.nvidia_pci_devices == 1 ? "" : "s")
                                                : std::string();
  if (!r.kfd_present) {
    return r.drm_amd_devices > 0 ? fmt::format("{}: no KFD topology; {} AMD DRM device{}{}", root, r.drm_amd_devices,
                                               r.drm_amd_devices == 1 ? "" : "s", nvidia)
                                 : fmt::format("{}: no KFD topology{}", root, nvidia);
  }
  return fmt::format("{}: {} KFD node{}, {} GPU{}{}", root, r.kfd_nodes, r.kfd_nodes == 1 ? "" : "s", r.kfd_gpu_nodes,
                     r.kfd_gpu_nodes == 1 ? "" : "s", nvidia);
}

std::string power_text(unsigned milliwatts) {
  if (milliwatts == 0) return "-";
  return milliwatts % 1000 == 0 ? fmt::format("{} W", milliwatts / 1000) : fmt::format("{:.1f} W", milliwatts / 1000.0);
}

std::string device_id_text(const ProbedDevice& d) {
  return d.pci_device_id ? fmt::format("{:#06x}", *d.pci_device_id) : std::string("-");
}

std::string memory_text(const ProbedDevice& d) {
  if (d.memory_bytes == 0) return "-";
  return fmt::format("{:.1f} GiB", static_cast<double>(d.memory_bytes) / (1024.0 * 1024.0 * 1024.0));
}

std::string gpu_text(const ProbedDevice& d) {
  return d.partitions > 1 ? fmt::format("{}.{}", d.physical_gpu, d.partition) : std::to_string(d.physical_gpu);
}

// Rows as aligned columns, two-space indented.
void write_rows(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += fmt::format(" {:<{}}", row[i], i + 1 < row.size() ? width[i] + 1 : 0);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
}

void write_probe_table(std::ostream& out, const ProbeResult& r) {
  fmt::print(out, "HIP runtime  {}\n", hip_line(r.hip));
  fmt::print(out, "NVML         {}\n", nvml_line(r.nvml));
  fmt::print(out, "sysfs        {}\n", sysfs_line(r));
  if (!r.devices.empty()) {
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"index", "gpu", "vendor", "name", "gfx", "device id", "CUs", "memory", "platform", "source"});
    for (const auto& d : r.devices) {
      rows.push_back({std::to_string(d.index), gpu_text(d), d.vendor, d.marketing_name.empty() ? "-" : d.marketing_name,
                      d.gfx_target.empty() ? "-" : d.gfx_target, device_id_text(d),
                      d.compute_units > 0 ? std::to_string(d.compute_units) : "-", memory_text(d),
                      d.platform.empty() ? "unknown" : fmt::format("{} (by {})", d.platform, d.platform_basis),
                      d.source});
    }
    out << '\n';
    write_rows(out, rows);
    out << '\n';
    // NVIDIA devices: what NVML adds (bus id, UUID, clock, power limit).
    std::vector<std::vector<std::string>> nvidia = {{"index", "NVIDIA bus id", "UUID", "SM clock max", "power limit"}};
    for (const auto& d : r.devices) {
      if (d.vendor != "NVIDIA") continue;
      nvidia.push_back({std::to_string(d.index), d.pci_bus_id.empty() ? "-" : d.pci_bus_id,
                        d.uuid.empty() ? "-" : d.uuid,
                        d.sm_clock_max_mhz > 0 ? fmt::format("{} MHz", d.sm_clock_max_mhz) : "-",
                        power_text(d.power_limit_mw)});
    }
    if (nvidia.size() > 1) {
      write_rows(out, nvidia);
      out << '\n';
    }
  }
  fmt::print(out, "{}\n", r.summary());
  for (const auto& w : r.warnings) fmt::print(out, "warning: {}\n", w);
}

nlohmann::json to_json(const ProbeResult& r) {
  auto opt_string = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : r.devices) {
    nlohmann::json device = {
        {"index", d.index},
        {"vendor", d.vendor},
        {"physical_gpu", d.physical_gpu},
        {"partition", d.partition},
        {"partitions", d.partitions},
        {"name", opt_string(d.marketing_name)},
        {"gfx_target", opt_string(d.gfx_target)},
        {"pci_device_id", d.pci_device_id ? nlohmann::json(fmt::format("{:#06x}", *d.pci_device_id)) : nlohmann::json()},
        {"pci_bus_id", opt_string(d.pci_bus_id)},
        {"compute_units", d.compute_units > 0 ? nlohmann::json(d.compute_units) : nlohmann::json()},
        {"memory_bytes", d.memory_bytes > 0 ? nlohmann::json(d.memory_bytes) : nlohmann::json()},
        {"kfd_node", d.kfd_node >= 0 ? nlohmann::json(d.kfd_node) : nlohmann::json()},
        {"platform", opt_string(d.platform)},
        {"platform_basis", opt_string(d.platform_basis)},
        {"source", d.source},
        {"sources", d.field_sources},
    };
    if (d.vendor == "NVIDIA") {
      device["uuid"] = opt_string(d.uuid);
      device["sm_clock_max_mhz"] = d.sm_clock_max_mhz > 0 ? nlohmann::json(d.sm_clock_max_mhz) : nlohmann::json();
      device["power_limit_watts"] = d.power_limit_mw > 0 ? nlohmann::json(d.power_limit_mw / 1000.0) : nlohmann::json();
    }
    devices.push_back(std::move(device));
  }
  return {
      {"hip",
       {{"state", state_name(r.hip.state)},
        {"library", opt_string(r.hip.library)},
        {"message", opt_string(r.hip.message)},
        {"runtime_version", r.hip.runtime_version ? nlohmann::json(*r.hip.runtime_version) : nlohmann::json()},
        {"runtime_version_text",
         r.hip.runtime_version ? nlohmann::json(hip_version_text(*r.hip.runtime_version)) : nlohmann::json()},
        {"device_count", r.hip.device_count}}},
      {"nvml",
       {{"state", state_name(r.nvml.state)},
        {"library", opt_string(r.nvml.library)},
        {"message", opt_string(r.nvml.message)},
        {"driver_version", opt_string(r.nvml.driver_version)},
        {"cuda_driver_version", r.nvml.cuda_driver_version ? nlohmann::json(*r.nvml.cuda_driver_version) : nlohmann::json()},
        {"cuda_driver_version_text",
         r.nvml.cuda_driver_version ? nlohmann::json(cuda_version_text(*r.nvml.cuda_driver_version)) : nlohmann::json()},
        {"device_count", r.nvml.device_count}}},
      {"sysfs",
       {{"root", r.sysfs_root.string()},
        {"read", r.sysfs_read},
        {"kfd_present", r.kfd_present},
        {"kfd_nodes", r.kfd_nodes},
        {"kfd_gpu_nodes", r.kfd_gpu_nodes},
        {"drm_amd_devices", r.drm_amd_devices},
        {"nvidia_pci_devices", r.nvidia_pci_devices}}},
      {"source", opt_string(r.source)},
      {"devices", devices},
      {"physical_gpus", r.physical_gpus},
      {"platform", opt_string(r.platform())},
      {"summary", r.summary()},
      {"warnings", r.warnings},
  };
}

int run_probe(const ProbeArgs& args) {
  // The platform table maps devices to platforms; without it the raw facts are still listed.
  PlatformTable table;
  try {
    table = PlatformTable::load(find_data_root(args.data_dir.empty() ? std::nullopt
                                                                     : std::optional<std::filesystem::path>(args.data_dir)) /
                                "configs/platforms.json");
  } catch (const std::exception& e) {
    print_stderr_line(fmt::format("mlperf-score: warning: {}; devices are listed without platforms", e.what()));
  }
  ProbeOptions options;
  options.sysfs_root = args.sysfs_root;
  ProbeResult result = probe_devices(options, table);
  if (args.format == "json") {
    std::cout << to_json(result).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  } else {
    write_probe_table(std::cout, result);
  }
  std::cout.flush();
  return kExitPassed;
}

Command add_probe_command(CLI::App& app) {
  auto args = std::make_shared<ProbeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "probe",
      "List this node's AMD GPUs (HIP runtime, else sysfs) and NVIDIA GPUs (NVML, else sysfs) and the submission "
      "platform they map to");
  cmd->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--sysfs-root", args->sysfs_root, "sysfs root (KFD topology, DRM and PCI device ids)")
      ->capture_default_str();
  cmd->add_option("--data-dir", args->data_dir, "Folder holding configs/ (platforms.json, nvidia_gpus.json)");
  cmd->footer(
      "The HIP runtime (libamdhip64.so) and NVML (libnvidia-ml.so.1) are loaded at run time when present; "
      "MLPERF_SCORE_HIP_LIBRARY and MLPERF_SCORE_NVML_LIBRARY name other files. Exit status 0 whenever the "
      "options parse, GPUs found or not.");
  return {cmd, [args] { return run_probe(*args); }};
}

const bool probe_registered = register_command("probe", &add_probe_command);

}  // namespace

}  // namespace mlperf::cli
