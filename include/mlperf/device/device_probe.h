#pragma once
// The device probe (spec/devices.md): which AMD Instinct and NVIDIA GPUs this node holds, and the
// submission platform they map to, so that `score --probe` can tag result directories whose
// logs name no known platform (e.g. "8xSUBMISSION_PLATFORM_PLACEHOLDER") and warn when the
// logs name a different one.
//
// Two sources, in order:
//  1. The HIP runtime (libamdhip64.so), loaded at run time with dlopen so that the binary
//     starts and scores on machines without ROCm. $MLPERF_SCORE_HIP_LIBRARY (or
//     ProbeOptions::hip_library) names the file; otherwise libamdhip64.so, .so.7, .so.6,
//     .so.5 and /opt/rocm/lib/libamdhip64.so are tried. Only entry points whose ABI is the
//     same in ROCm 5 and 6+ are used (see src/device/device_probe.cc for the list and the reasons).
//  2. sysfs, without any ROCm library: the kernel's KFD topology
//     (<root>/class/kfd/kfd/topology/nodes/<n>/properties and mem_banks/*/properties) and the
//     DRM PCI ids (<root>/class/drm/renderD<minor>/device/{vendor,device,product_name}, and
//     <root>/class/drm/card<n>/device/... when KFD is absent). The root is injectable
//     (ProbeOptions::sysfs_root, `--sysfs-root`) so tests run against fake trees.
// When HIP finds devices, sysfs only completes them (gfx target, PCI device id) by PCI bus id.
//
// NVIDIA GPUs, independently of the AMD ones (a node may hold both), from:
//  1. NVML (libnvidia-ml.so.1), loaded at run time with dlopen like HIP: no build-time
//     dependency. $MLPERF_SCORE_NVML_LIBRARY (or ProbeOptions::nvml_library) names another
//     file. nvmlInit_v2 and nvmlShutdown bracket the queries; every NVML error is named with
//     nvmlErrorString.
//  2. sysfs, without NVML: <root>/bus/pci/devices/*/{vendor,device,class} with vendor 0x10de and
//     a display-controller class (0x03xxxx; NVSwitch bridges and audio functions are skipped).
// NVIDIA devices map to platforms through configs/nvidia_gpus.json (PlatformTable::nvidia_gpus).
// Probe problems never throw: they end up in ProbeResult::warnings and the summary.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mlperf/device/platform.h"

namespace mlperf {

/// Where the probe looks.
struct ProbeOptions {
  /// Root of the sysfs tree: holds class/kfd/kfd/topology/nodes and class/drm ("/sys" on a
  /// real node, a fake tree in tests).
  std::filesystem::path sysfs_root = "/sys";
  /// The HIP runtime library to dlopen. Unset: $MLPERF_SCORE_HIP_LIBRARY when set and not
  /// empty, else the default names (see the file comment).
  std::optional<std::filesystem::path> hip_library;
  /// The NVML library to dlopen. Unset: $MLPERF_SCORE_NVML_LIBRARY when set and not empty,
  /// else "libnvidia-ml.so.1".
  std::optional<std::filesystem::path> nvml_library;
  bool use_hip = true;    ///< false: do not load the HIP runtime at all
  bool use_nvml = true;   ///< false: do not load NVML at all
  bool use_sysfs = true;  ///< false: do not read sysfs
};

/// What loading the HIP runtime gave.
enum class HipState {
  kNotTried,      ///< ProbeOptions::use_hip was false
  kNotInstalled,  ///< no library could be opened
  kUnusable,      ///< opened, but hipGetDeviceCount is missing or failed with an error
  kLoaded,        ///< opened and hipGetDeviceCount answered (maybe with no device)
};

/// The HIP runtime's answer, before any mapping.
struct HipStatus {
  HipState state = HipState::kNotTried;
  std::string library;  ///< the file opened (full path when known) or the names tried
  std::string message;  ///< dlerror() text, the missing symbol, or the HIP error name
  /// hipRuntimeGetVersion: HIP_VERSION encoding major×10'000'000 + minor×100'000 + patch
  /// (e.g. 50221153 for 5.2.21153); nullopt when the entry point is missing or fails.
  std::optional<int> runtime_version;
  int device_count = 0;  ///< devices hipGetDeviceCount reported (0 on hipErrorNoDevice)
};

/// "5.2.21153" from a HIP_VERSION-encoded number (major×10^7 + minor×10^5 + patch).
std::string hip_version_text(int hip_version);

/// One device as the HIP runtime reports it (raw facts; 0/"" when an entry point is missing).
struct HipDevice {
  int ordinal = 0;              ///< HIP device index
  std::string name;             ///< hipDeviceGetName, e.g. "AMD Instinct MI300X"
  std::string pci_bus_id;       ///< hipDeviceGetPCIBusId, e.g. "0000:0c:00.0" (lower case)
  std::uint64_t memory_bytes = 0;            ///< hipDeviceTotalMem (bytes)
  int compute_units = 0;                     ///< hipDeviceAttributeMultiprocessorCount
  std::optional<unsigned> pci_device_id;     ///< hipDeviceAttributePciDeviceId
};

/// Loads the HIP runtime (see ProbeOptions::hip_library) and lists its devices. Never
/// throws and never unloads the library (ROCm's runtime keeps threads and atexit handlers).
/// Problems with single devices are appended to `warnings`.
HipStatus query_hip_runtime(const ProbeOptions& options, std::vector<HipDevice>& devices,
                            std::vector<std::string>& warnings);

/// What loading NVML gave.
enum class NvmlState {
  kNotTried,      ///< ProbeOptions::use_nvml was false
  kNotInstalled,  ///< the library could not be opened
  kUnusable,      ///< opened, but an entry point is missing, or nvmlInit_v2 / nvmlDeviceGetCount_v2 failed
  kLoaded,        ///< initialized and nvmlDeviceGetCount_v2 answered (maybe with no device)
};

/// NVML's answer, before any mapping.
struct NvmlStatus {
  NvmlState state = NvmlState::kNotTried;
  std::string library;  ///< the file opened (full path when known) or the name tried
  /// dlerror() text, the missing entry point, or the failing call and its error as
  /// "<nvmlErrorString text> (NVML error <code>)", e.g. "Driver Not Loaded (NVML error 9)".
  std::string message;
  std::string driver_version;  ///< nvmlSystemGetDriverVersion, e.g. "550.54.15"; "" when unknown
  /// nvmlSystemGetCudaDriverVersion_v2: 1000×major + 10×minor (12040 = CUDA 12.4).
  std::optional<int> cuda_driver_version;
  int device_count = 0;  ///< what nvmlDeviceGetCount_v2 reported
};

/// "12.4" from NVML's CUDA driver version encoding (1000×major + 10×minor).
std::string cuda_version_text(int cuda_driver_version);

/// An NVML error as the probe names it: "<nvmlErrorString(code)> (NVML error <code>)", or
/// "NVML error <code>" when `error_string` is null or returns null.
std::string nvml_error_text(const char* (*error_string)(int), int code);

/// A PCI bus id in sysfs form "dddd:bb:dd.f", lower case: NVML's "00000000:18:00.0" (eight
/// domain digits) becomes "0000:18:00.0". Text that is not a bus id is returned lower-cased.
std::string normalize_pci_bus_id(std::string_view bus_id);

/// One device as NVML reports it (raw facts; 0/"" where a query failed).
struct NvmlDevice {
  int index = 0;                          ///< NVML index (nvmlDeviceGetHandleByIndex_v2)
  std::string name;                       ///< nvmlDeviceGetName, e.g. "NVIDIA H100 80GB HBM3"
  std::string pci_bus_id;                 ///< nvmlPciInfo_t::busId, normalized (normalize_pci_bus_id)
  std::optional<unsigned> pci_device_id;  ///< high 16 bits of nvmlPciInfo_t::pciDeviceId, e.g. 0x2330
  std::string uuid;                       ///< nvmlDeviceGetUUID, e.g. "GPU-5c8f…"
  std::uint64_t memory_bytes = 0;         ///< nvmlMemory_t::total (bytes)
  unsigned sm_clock_max_mhz = 0;          ///< nvmlDeviceGetMaxClockInfo(NVML_CLOCK_SM) (MHz)
  unsigned power_limit_mw = 0;            ///< nvmlDeviceGetPowerManagementLimit (milliwatts)
};

/// Loads NVML (see ProbeOptions::nvml_library), calls nvmlInit_v2, lists its devices, calls
/// nvmlShutdown. Never throws and never unloads the library. A failed per-device query is
/// appended to `warnings` as "NVML device <i>: <function> failed: <error>" and leaves that
/// answer empty; a device whose handle cannot be had is left out.
NvmlStatus query_nvml(const ProbeOptions& options, std::vector<NvmlDevice>& devices,
                      std::vector<std::string>& warnings);

/// One NVIDIA PCI function from sysfs (<root>/bus/pci/devices/<bus id>).
struct NvidiaPciDevice {
  std::string pci_bus_id;  ///< the folder name, lower case, e.g. "0000:18:00.0"
  unsigned device_id = 0;  ///< `device`, e.g. 0x2330
  unsigned pci_class = 0;  ///< `class`, e.g. 0x030200 (3D controller)
};

/// The NVIDIA GPUs under <sysfs_root>/bus/pci/devices: vendor 0x10de and class 0x03xxxx
/// (display controllers), sorted by bus id. Folders without readable vendor/device/class are
/// skipped; a missing bus/pci/devices folder gives an empty list.
std::vector<NvidiaPciDevice> read_nvidia_pci_devices(const std::filesystem::path& sysfs_root);

/// The NVIDIA GPU model a device is (configs/nvidia_gpus.json), in this order: the PCI device id
/// (vendor 0x10de) listed for one model; else an NVML name equal (case-insensitive, spaces
/// trimmed) to one of a model's nvml_names, the model whose memory_gb is nearest the device's
/// memory (read as GiB) when several share the name. Memory alone never decides (80 GB is
/// both an A100 and an H100). basis: "PCI device id" or "marketing name"; nullptr: unknown.
struct NvidiaMatch {
  const NvidiaGpu* gpu = nullptr;
  std::string basis;
};
NvidiaMatch match_nvidia_gpu(const PlatformTable& table, std::optional<unsigned> pci_device_id,
                             const std::string& nvml_name, std::uint64_t memory_bytes);

/// Parses a KFD `properties` file: one "key value" pair per line, value a decimal unsigned
/// integer. Lines that do not have that shape are skipped.
std::map<std::string, std::uint64_t> parse_kfd_properties(std::string_view text);

/// The gfx target named by KFD's gfx_target_version (major×10000 + minor×100 + stepping):
/// 90402 → "gfx942", 90500 → "gfx950", 90010 → "gfx90a", 110000 → "gfx1100"; "" for 0.
std::string gfx_target_from_version(std::uint64_t gfx_target_version);

/// The PCI bus id "DDDD:BB:DD.F" of a KFD node from its `domain` and `location_id`
/// (bus << 8 | device << 3 | function), lower-case hex as HIP and sysfs print it.
std::string pci_bus_id_from_location(std::uint64_t domain, std::uint64_t location_id);

/// One node of the KFD topology.
struct KfdNode {
  int node = -1;  ///< the number of its nodes/<n> folder
  std::map<std::string, std::uint64_t> properties;  ///< its `properties` file
  std::uint64_t memory_bytes = 0;  ///< sum of size_in_bytes over mem_banks/*/properties

  /// The value of a property, or 0 when it is absent.
  std::uint64_t get(const std::string& key) const;
  /// A GPU node: non-zero gfx_target_version and simd_count (node 0 is usually the CPU).
  bool is_gpu() const;
  /// Compute units: simd_count / simd_per_cu (4 on CDNA when simd_per_cu is absent).
  int compute_units() const;
  /// pci_bus_id_from_location(domain, location_id); "" when location_id is absent.
  std::string pci_bus_id() const;
};

/// Reads every <sysfs_root>/class/kfd/kfd/topology/nodes/<n> in numeric order. `present` is
/// set when the nodes folder exists. Unreadable nodes are reported in `warnings`.
std::vector<KfdNode> read_kfd_nodes(const std::filesystem::path& sysfs_root, bool& present,
                                    std::vector<std::string>& warnings);

/// A device the probe found, with the platform it maps to.
struct ProbedDevice {
  /// Position among the devices of its vendor: the HIP ordinal for HIP, the NVML index for
  /// NVML, the order of the list otherwise (each vendor counts from 0).
  int index = 0;
  std::string vendor = "AMD";  ///< "AMD" or "NVIDIA"
  std::string source;          ///< "HIP runtime", "NVML" or "sysfs": where the device was found
  std::string marketing_name;  ///< e.g. "AMD Instinct MI355X"; "" when unknown
  std::string gfx_target;      ///< e.g. "gfx950"; "" when unknown
  std::optional<unsigned> pci_device_id;  ///< e.g. 0x75A3
  std::string pci_bus_id;      ///< "DDDD:BB:DD.F"; "" when unknown
  int compute_units = 0;       ///< CUs of this device (of the partition when partitioned); 0 = unknown
  std::uint64_t memory_bytes = 0;  ///< device memory in bytes; 0 = unknown
  int kfd_node = -1;           ///< the KFD node it was read from or matched to; −1 = none
  std::string uuid;            ///< NVIDIA: nvmlDeviceGetUUID; "" otherwise or unknown
  unsigned sm_clock_max_mhz = 0;  ///< NVIDIA: maximum SM clock (MHz); 0 = unknown
  unsigned power_limit_mw = 0;    ///< NVIDIA: power management limit (milliwatts); 0 = unknown
  std::string platform;        ///< canonical platform name (PlatformTable), "" when unknown
  std::string platform_basis;  ///< "PCI device id", "marketing name" or "memory size"
  /// Where each answer came from, by field ("name", "gfx_target", "pci_device_id",
  /// "compute_units", "memory", "platform"): "HIP runtime", "NVML", "sysfs (KFD)", "sysfs (DRM)",
  /// "sysfs (PCI)", "platform table" (gfx target derived from the platform),
  /// "configs/platforms.json" or "configs/nvidia_gpus.json".
  std::map<std::string, std::string> field_sources;
  int physical_gpu = 0;  ///< index of the physical GPU it belongs to (see ProbeResult)
  int partition = 0;     ///< its place among that GPU's partitions (0 when not partitioned)
  int partitions = 1;    ///< how many devices that physical GPU shows (8 in CPX mode on MI300X)
};

/// The platform a device maps to and on what basis.
struct PlatformMatch {
  const PlatformInfo* platform = nullptr;  ///< nullptr: unknown device
  std::string basis;  ///< "PCI device id", "marketing name" or "memory size"
};

/// Maps a device to a platform (spec/devices.md), in this order: the PCI device id (physical
/// or virtual function) from configs/platforms.json; else a platform named in the marketing
/// name (PlatformTable::match); else the memory size, when exactly one platform (of the same
/// gfx target, when known) has that much HBM within 3 % (memory_gb read as GiB). gfx942 and
/// gfx950 alone never decide: they are shared by several platforms.
PlatformMatch match_device_platform(const PlatformTable& table, std::optional<unsigned> pci_device_id,
                                    const std::string& marketing_name, std::uint64_t memory_bytes,
                                    const std::string& gfx_target);

/// Everything the probe found.
struct ProbeResult {
  HipStatus hip;
  NvmlStatus nvml;
  std::filesystem::path sysfs_root;
  bool sysfs_read = false;    ///< ProbeOptions::use_sysfs
  bool kfd_present = false;   ///< <root>/class/kfd/kfd/topology/nodes exists
  int kfd_nodes = 0;          ///< KFD nodes (CPU and GPU)
  int kfd_gpu_nodes = 0;      ///< KFD nodes that are GPUs
  int drm_amd_devices = 0;    ///< AMD (vendor 0x1002) DRM cards, read when KFD lists no GPU
  int nvidia_pci_devices = 0; ///< NVIDIA GPUs under <root>/bus/pci/devices (read_nvidia_pci_devices)
  /// Where the devices came from: the AMD source ("HIP runtime" or "sysfs") then the NVIDIA
  /// one ("NVML" or "sysfs"), those that found devices, distinct, joined by ", "; "" when none.
  std::string source;
  std::vector<ProbedDevice> devices;
  /// Physical GPUs: devices grouped by PCI bus id (partitions of one GPU share it, as KFD
  /// reports the parent device's location for each partition); a device without a bus id
  /// counts as its own GPU.
  int physical_gpus = 0;
  std::vector<std::string> warnings;  ///< probe problems (never fatal)

  /// The one platform every mapped device shares; "" when there is no mapped device or
  /// devices map to different platforms.
  std::string platform() const;
  /// One line for people: per vendor with devices, e.g. "8 AMD GPUs from sysfs: MI355X",
  /// "8 NVIDIA GPUs from NVML: NVIDIA H100-SXM5-80GB", joined by "; " on a mixed node; with no
  /// device, why: "no GPU found (HIP runtime not installed; no KFD nodes; NVML not installed;
  /// no NVIDIA PCI device)".
  std::string summary() const;
};

/// Runs the probe: for AMD the HIP runtime first, sysfs when it is missing, unusable or finds no
/// device; for NVIDIA likewise NVML, then sysfs. AMD devices come first in the list. Maps each
/// device to a platform with `table` (NVIDIA ones through table.nvidia_gpus). Never throws.
ProbeResult probe_devices(const ProbeOptions& options, const PlatformTable& table);

/// The platform tag for `score --probe` / `check --probe`: {platform, "probe", known=true}
/// when the probe's devices map to one platform (of either vendor), else nullopt. Explains
/// itself in `warnings` (prefixed "probe: "): no device found, unknown devices, several
/// platforms (a mixed AMD and NVIDIA node is several), and the probe's own warnings.
std::optional<PlatformTag> probe_platform_tag(const ProbeResult& result, std::vector<std::string>& warnings);

/// probe_devices then probe_platform_tag: the one call a subcommand needs. Never throws.
std::optional<PlatformTag> probe_platform_tag(const ProbeOptions& options, const PlatformTable& table,
                                              std::vector<std::string>& warnings);

}  // namespace mlperf
