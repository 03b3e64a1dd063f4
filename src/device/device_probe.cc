// The device probe (spec/devices.md; see include/mlperf/device/device_probe.h).
//
// Why these HIP entry points, and no others
// -----------------------------------------
// The binary never links against ROCm: libamdhip64.so is dlopen()ed and only the entry points
// below are resolved with dlsym. Each is optional except hipGetDeviceCount; a missing one
// leaves its answer empty and nothing crashes. The prototypes are declared here (the build
// must not need libamdhip64-dev); they are the same in every HIP release since ROCm 4:
//   hipError_t hipGetDeviceCount(int*)                       (hipErrorNoDevice = 100 when none)
//   hipError_t hipRuntimeGetVersion(int*)                    (HIP_VERSION encoding)
//   hipError_t hipDeviceGetName(char*, int len, int device)
//   hipError_t hipDeviceGetPCIBusId(char*, int len, int device)
//   hipError_t hipDeviceTotalMem(size_t*, int device)
//   hipError_t hipDeviceGetAttribute(int*, hipDeviceAttribute_t, int device)
//   const char* hipGetErrorName(hipError_t)
// hipError_t and hipDeviceAttribute_t are C enums, passed as int.
//
// Not used: hipGetDeviceProperties. hipDeviceProp_t changed layout across releases (ROCm 6
// exports the new layout as hipGetDevicePropertiesR0600 and keeps the old one behind the
// unversioned name; fields such as gcnArchName moved), so reading it needs a per-version
// offset table we could not verify on hardware. The only thing it would add is gcnArchName;
// the gfx target comes instead from KFD's gfx_target_version (matched by PCI bus id) or, when
// sysfs has no node for the device, from configs/platforms.json once the platform is known
// (reported with source "platform table").
//
// hipDeviceAttribute_t values: the enum was reordered into the CUDA-compatible layout
// (hipDeviceAttributeCudaCompatibleBegin = 0) in ROCm 4.x; older HIP numbered it differently.
// ROCm 6 then renamed some members (hipDeviceAttributeName → Unused1, GcnArchName → Unused5)
// but kept every value. The two we read are MultiprocessorCount = 63 and PciDeviceId = 68 in
// Debian's libamdhip64-dev 5.2.3 header (checked by compiling against it), in HIP's 2021
// header, and in ROCm 6.x/7.x bindings. We only call hipDeviceGetAttribute when
// hipRuntimeGetVersion reports 5.0 or newer; otherwise compute units and the device id come
// from sysfs (or stay unknown) and a warning says so.
//
// The library is never dlclose()d: ROCm's runtime starts threads and registers exit handlers.
//
// NVML
// ----
// libnvidia-ml.so.1 is dlopen()ed the same way (no build-time dependency; the prototypes are
// declared here from NVML's nvml.h). Entry points, all returning nvmlReturn_t (a C enum, int):
//   nvmlInit_v2(void), nvmlShutdown(void)                     (required)
//   nvmlDeviceGetCount_v2(unsigned*)                          (required)
//   nvmlDeviceGetHandleByIndex_v2(unsigned, nvmlDevice_t*)    (required; nvmlDevice_t is opaque)
//   nvmlErrorString(nvmlReturn_t) -> const char*              (required: names every error)
//   nvmlDeviceGetName(nvmlDevice_t, char*, unsigned)          (96-byte buffer, NAME_V2 size)
//   nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t*)      ({total, free, used} bytes)
//   nvmlDeviceGetPciInfo_v3(nvmlDevice_t, nvmlPciInfo_t*)
//   nvmlDeviceGetUUID(nvmlDevice_t, char*, unsigned)          (96-byte buffer, UUID_V2 size)
//   nvmlSystemGetDriverVersion(char*, unsigned)               (80-byte buffer)
//   nvmlSystemGetCudaDriverVersion_v2(int*)                   (1000 x major + 10 x minor)
//   nvmlDeviceGetMaxClockInfo(nvmlDevice_t, nvmlClockType_t, unsigned*)  (NVML_CLOCK_SM = 1; MHz)
//   nvmlDeviceGetPowerManagementLimit(nvmlDevice_t, unsigned*)           (milliwatts)
// nvmlPciInfo_t (nvml.h since the 2.285 API; the layout _v2 and _v3 fill):
//   char busIdLegacy[16]; unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
//   char busId[32];
// pciDeviceId holds the device id in its high 16 bits and the vendor id (0x10de) in its low 16.
// The optional entry points may be missing from an old driver: their answers stay empty.

#include "mlperf/device/device_probe.h"
#include "mlperf/mllog/line_reader.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include <boost/algorithm/string/case_conv.hpp>
#include <fmt/format.h>

namespace mlperf {

namespace fs = std::filesystem;
using boost::algorithm::to_lower_copy;  // ASCII lower case (the C locale): PCI bus ids, GPU names

namespace {

// --- HIP runtime -----------------------------------------------------------------------

constexpr int kHipSuccess = 0;
constexpr int kHipErrorNoDevice = 100;
constexpr int kHipAttributeMultiprocessorCount = 63;  // hipDeviceAttributeMultiprocessorCount
constexpr int kHipAttributePciDeviceId = 68;          // hipDeviceAttributePciDeviceId
constexpr int kFirstVersionWithKnownAttributes = 50000000;  // HIP 5.0

using HipGetDeviceCount = int (*)(int*);
using HipRuntimeGetVersion = int (*)(int*);
using HipDeviceGetName = int (*)(char*, int, int);
using HipDeviceGetPciBusId = int (*)(char*, int, int);
using HipDeviceTotalMem = int (*)(std::size_t*, int);
using HipDeviceGetAttribute = int (*)(int*, int, int);
using HipGetErrorName = const char* (*)(int);

template <typename Fn>
Fn resolve(void* handle, const char* name) {
  ::dlerror();
  void* symbol = ::dlsym(handle, name);
  return reinterpret_cast<Fn>(symbol);
}

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && (std::isspace(static_cast<unsigned char>(s[e - 1])) || s[e - 1] == '\0')) --e;
  return std::string(s.substr(b, e - b));
}

// Calls `each(line)` for every line of `text`, split at '\n' as std::getline reads it (no
// line after a last '\n'). Not through a std::istringstream: getline takes a std::bad_alloc
// for the end of the stream.
template <class Each>
void for_each_line(std::string_view text, Each each) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    each(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
}

std::vector<std::string> default_hip_libraries() {
  return {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
          "/opt/rocm/lib/libamdhip64.so"};
}

// --- NVML ------------------------------------------------------------------------------------

constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM
constexpr unsigned kNvidiaVendorId = 0x10DE;

struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct NvmlPciInfo {
  char bus_id_legacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pci_device_id;
  unsigned pci_subsystem_id;
  char bus_id[32];
};
static_assert(sizeof(NvmlPciInfo) == 68, "nvmlPciInfo_t is 68 bytes");

using NvmlDeviceHandle = void*;  // nvmlDevice_t: an opaque pointer
using NvmlVoid = int (*)();
using NvmlGetCount = int (*)(unsigned*);
using NvmlGetHandle = int (*)(unsigned, NvmlDeviceHandle*);
using NvmlErrorString = const char* (*)(int);
using NvmlGetText = int (*)(NvmlDeviceHandle, char*, unsigned);
using NvmlGetMemory = int (*)(NvmlDeviceHandle, NvmlMemory*);
using NvmlGetPci = int (*)(NvmlDeviceHandle, NvmlPciInfo*);
using NvmlSystemText = int (*)(char*, unsigned);
using NvmlSystemInt = int (*)(int*);
using NvmlGetClock = int (*)(NvmlDeviceHandle, int, unsigned*);
using NvmlGetUnsigned = int (*)(NvmlDeviceHandle, unsigned*);

// --- sysfs ---------------------------------------------------------------------------------

std::optional<std::string> read_sysfs_text(const fs::path& file) {
  bool read_failed = false;
  std::optional<std::string> text = read_whole_file(file, &read_failed);
  if (read_failed) return std::nullopt;
  return text;
}

// "0x74a1\n" → 0x74A1.
std::optional<unsigned> parse_hex_id(const std::string& text) {
  std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    unsigned long v = std::stoul(t, &used, 16);
    if (used != t.size() || v > 0xFFFFu) return std::nullopt;
    return static_cast<unsigned>(v);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::uint64_t> parse_u64(const std::string& text) {
  std::string t = trim(text);
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0]))) return std::nullopt;
  try {
    std::size_t used = 0;
    unsigned long long v = std::stoull(t, &used, 10);
    if (used != t.size()) return std::nullopt;
    return static_cast<std::uint64_t>(v);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The PCI facts of one DRM device folder (<root>/class/drm/<name>/device).
struct DrmDevice {
  fs::path dir;
  std::optional<unsigned> vendor;
  std::optional<unsigned> device;
  std::string product_name;  // amdgpu's FRU product name, when the board has one
  std::string pci_bus_id;    // from uevent PCI_SLOT_NAME, else the resolved folder name
  std::uint64_t vram_bytes = 0;  // mem_info_vram_total
};

bool looks_like_bus_id(const std::string& s) {
  // DDDD:BB:DD.F
  return s.size() == 12 && s[4] == ':' && s[7] == ':' && s[10] == '.';
}

std::optional<DrmDevice> read_drm_device(const fs::path& device_dir) {
  std::error_code ec;
  if (!fs::is_directory(device_dir, ec)) return std::nullopt;
  DrmDevice d;
  d.dir = device_dir;
  if (auto t = read_sysfs_text(device_dir / "vendor")) d.vendor = parse_hex_id(*t);
  if (auto t = read_sysfs_text(device_dir / "device")) d.device = parse_hex_id(*t);
  if (auto t = read_sysfs_text(device_dir / "product_name")) d.product_name = trim(*t);
  if (auto t = read_sysfs_text(device_dir / "mem_info_vram_total")) d.vram_bytes = parse_u64(*t).value_or(0);
  if (auto t = read_sysfs_text(device_dir / "uevent")) {
    for_each_line(*t, [&](std::string_view line) {
      if (line.starts_with("PCI_SLOT_NAME=")) d.pci_bus_id = to_lower_copy(trim(line.substr(14)));
    });
  }
  if (d.pci_bus_id.empty()) {
    std::string name = to_lower_copy(fs::weakly_canonical(device_dir, ec).filename().string());
    if (!ec && looks_like_bus_id(name)) d.pci_bus_id = name;
  }
  if (!d.vendor && !d.device) return std::nullopt;
  return d;
}

constexpr unsigned kAmdVendorId = 0x1002;

bool numeric_name(const std::string& s, std::size_t from = 0) {
  if (s.size() <= from) return false;
  return std::all_of(s.begin() + static_cast<long>(from), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// AMD DRM cards (<root>/class/drm/card<n>), in card order: the fallback when KFD lists no GPU.
std::vector<DrmDevice> read_drm_cards(const fs::path& root) {
  std::vector<std::pair<int, DrmDevice>> cards;
  std::error_code ec;
  fs::path drm = root / "class/drm";
  for (fs::directory_iterator it(drm, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind("card", 0) != 0 || !numeric_name(name, 4)) continue;
    auto d = read_drm_device(it->path() / "device");
    if (d && d->vendor == kAmdVendorId) cards.emplace_back(std::stoi(name.substr(4)), std::move(*d));
  }
  std::sort(cards.begin(), cards.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<DrmDevice> out;
  for (auto& c : cards) out.push_back(std::move(c.second));
  return out;
}

// The DRM device behind a KFD node (renderD<drm_render_minor>/device). Partitions other than
// the first are platform devices (amdgpu_xcp.N) without PCI ids: nullopt then.
std::optional<DrmDevice> drm_for_node(const fs::path& root, const KfdNode& node) {
  if (node.properties.count("drm_render_minor") == 0) return std::nullopt;
  auto d = read_drm_device(root / "class/drm" / fmt::format("renderD{}", node.get("drm_render_minor")) / "device");
  if (d && d->vendor == kAmdVendorId) return d;
  return std::nullopt;
}

const char* kHip = "HIP runtime";
const char* kKfd = "sysfs (KFD)";
const char* kDrm = "sysfs (DRM)";
const char* kNvml = "NVML";
const char* kPci = "sysfs (PCI)";

std::string partition_mode(int partitions) {
  switch (partitions) {
    case 1: return "SPX";
    case 2: return "DPX";
    case 3: return "TPX";
    case 4: return "QPX";
    case 8: return "CPX";
    default: return fmt::format("{} partitions", partitions);
  }
}

double gib(std::uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0); }

}  // namespace

std::string hip_version_text(int v) {
  if (v <= 0) return std::to_string(v);
  return fmt::format("{}.{}.{}", v / 10000000, (v / 100000) % 100, v % 100000);
}

std::string cuda_version_text(int v) {
  if (v <= 0) return std::to_string(v);
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

std::string nvml_error_text(const char* (*error_string)(int), int code) {
  const char* text = error_string ? error_string(code) : nullptr;
  return text ? fmt::format("{} (NVML error {})", text, code) : fmt::format("NVML error {}", code);
}

std::string normalize_pci_bus_id(std::string_view bus_id) {
  std::string s = to_lower_copy(trim(bus_id));
  // "00000000:18:00.0": keep the last four domain digits when the others are zeros.
  if (s.size() == 16 && s[8] == ':' && s[11] == ':' && s[14] == '.' && s.compare(0, 4, "0000") == 0) {
    s = s.substr(4);
  }
  return s;
}

NvmlStatus query_nvml(const ProbeOptions& options, std::vector<NvmlDevice>& devices,
                      std::vector<std::string>& warnings) {
  NvmlStatus status;
  devices.clear();
  if (!options.use_nvml) return status;

  std::string name = "libnvidia-ml.so.1";
  if (options.nvml_library) {
    name = options.nvml_library->string();
  } else if (const char* env = std::getenv("MLPERF_SCORE_NVML_LIBRARY"); env != nullptr && *env != '\0') {
    name = env;
  }
  status.library = name;
  ::dlerror();
  void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = ::dlerror();
    status.state = NvmlState::kNotInstalled;
    status.message = err ? err : name + ": cannot open";
    return status;
  }

  auto init = resolve<NvmlVoid>(handle, "nvmlInit_v2");
  auto shutdown = resolve<NvmlVoid>(handle, "nvmlShutdown");
  auto get_count = resolve<NvmlGetCount>(handle, "nvmlDeviceGetCount_v2");
  auto get_handle = resolve<NvmlGetHandle>(handle, "nvmlDeviceGetHandleByIndex_v2");
  auto error_string = resolve<NvmlErrorString>(handle, "nvmlErrorString");
  auto get_name = resolve<NvmlGetText>(handle, "nvmlDeviceGetName");
  auto get_memory = resolve<NvmlGetMemory>(handle, "nvmlDeviceGetMemoryInfo");
  auto get_pci = resolve<NvmlGetPci>(handle, "nvmlDeviceGetPciInfo_v3");
  auto get_uuid = resolve<NvmlGetText>(handle, "nvmlDeviceGetUUID");
  auto driver_version = resolve<NvmlSystemText>(handle, "nvmlSystemGetDriverVersion");
  auto cuda_version = resolve<NvmlSystemInt>(handle, "nvmlSystemGetCudaDriverVersion_v2");
  auto max_clock = resolve<NvmlGetClock>(handle, "nvmlDeviceGetMaxClockInfo");
  auto power_limit = resolve<NvmlGetUnsigned>(handle, "nvmlDeviceGetPowerManagementLimit");

  if (init) {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(init), &info) != 0 && info.dli_fname != nullptr) {
      status.library = info.dli_fname;
    }
  }
  std::vector<std::string> missing;
  if (!init) missing.emplace_back("nvmlInit_v2");
  if (!shutdown) missing.emplace_back("nvmlShutdown");
  if (!get_count) missing.emplace_back("nvmlDeviceGetCount_v2");
  if (!get_handle) missing.emplace_back("nvmlDeviceGetHandleByIndex_v2");
  if (!error_string) missing.emplace_back("nvmlErrorString");
  if (!missing.empty()) {
    status.state = NvmlState::kUnusable;
    status.message = fmt::format("entry point{} {} not found", missing.size() == 1 ? "" : "s", fmt::join(missing, ", "));
    return status;
  }
  auto nvml_error = [&](int code) { return nvml_error_text(error_string, code); };

  if (int rc = init(); rc != kNvmlSuccess) {
    status.state = NvmlState::kUnusable;
    status.message = "nvmlInit_v2 failed: " + nvml_error(rc);
    return status;
  }
  if (driver_version) {
    char buf[81] = {};
    if (int e = driver_version(buf, 80); e == kNvmlSuccess) {
      status.driver_version = trim(buf);
    } else {
      warnings.push_back("NVML: nvmlSystemGetDriverVersion failed: " + nvml_error(e));
    }
  }
  if (cuda_version) {
    int v = 0;
    if (int e = cuda_version(&v); e == kNvmlSuccess && v > 0) {
      status.cuda_driver_version = v;
    } else if (e != kNvmlSuccess) {
      warnings.push_back("NVML: nvmlSystemGetCudaDriverVersion_v2 failed: " + nvml_error(e));
    }
  }
  unsigned count = 0;
  if (int rc = get_count(&count); rc != kNvmlSuccess) {
    status.state = NvmlState::kUnusable;
    status.message = "nvmlDeviceGetCount_v2 failed: " + nvml_error(rc);
    if (int e = shutdown(); e != kNvmlSuccess) warnings.push_back("NVML: nvmlShutdown failed: " + nvml_error(e));
    return status;
  }
  status.state = NvmlState::kLoaded;
  status.device_count = static_cast<int>(count);
  if (count == 0) status.message = "no device";

  for (unsigned i = 0; i < count; ++i) {
    NvmlDeviceHandle device = nullptr;
    if (int e = get_handle(i, &device); e != kNvmlSuccess) {
      warnings.push_back(fmt::format("NVML device {}: nvmlDeviceGetHandleByIndex_v2 failed: {}; left out", i, nvml_error(e)));
      continue;
    }
    NvmlDevice d;
    d.index = static_cast<int>(i);
    auto failed = [&](const char* function, int e) {
      warnings.push_back(fmt::format("NVML device {}: {} failed: {}", i, function, nvml_error(e)));
    };
    if (get_name) {
      char buf[97] = {};
      if (int e = get_name(device, buf, 96); e == kNvmlSuccess) {
        d.name = trim(buf);
      } else {
        failed("nvmlDeviceGetName", e);
      }
    }
    if (get_pci) {
      NvmlPciInfo pci{};
      if (int e = get_pci(device, &pci); e == kNvmlSuccess) {
        pci.bus_id[sizeof pci.bus_id - 1] = '\0';
        d.pci_bus_id = normalize_pci_bus_id(pci.bus_id);
        if ((pci.pci_device_id & 0xFFFFu) == kNvidiaVendorId) d.pci_device_id = pci.pci_device_id >> 16;
      } else {
        failed("nvmlDeviceGetPciInfo_v3", e);
      }
    }
    if (get_memory) {
      NvmlMemory memory{};
      if (int e = get_memory(device, &memory); e == kNvmlSuccess) {
        d.memory_bytes = memory.total;
      } else {
        failed("nvmlDeviceGetMemoryInfo", e);
      }
    }
    if (get_uuid) {
      char buf[97] = {};
      if (int e = get_uuid(device, buf, 96); e == kNvmlSuccess) {
        d.uuid = trim(buf);
      } else {
        failed("nvmlDeviceGetUUID", e);
      }
    }
    if (max_clock) {
      unsigned mhz = 0;
      if (int e = max_clock(device, kNvmlClockSm, &mhz); e == kNvmlSuccess) {
        d.sm_clock_max_mhz = mhz;
      } else {
        failed("nvmlDeviceGetMaxClockInfo(NVML_CLOCK_SM)", e);
      }
    }
    if (power_limit) {
      unsigned mw = 0;
      if (int e = power_limit(device, &mw); e == kNvmlSuccess) {
        d.power_limit_mw = mw;
      } else {
        failed("nvmlDeviceGetPowerManagementLimit", e);
      }
    }
    devices.push_back(std::move(d));
  }
  if (int e = shutdown(); e != kNvmlSuccess) warnings.push_back("NVML: nvmlShutdown failed: " + nvml_error(e));
  return status;
}

std::vector<NvidiaPciDevice> read_nvidia_pci_devices(const fs::path& sysfs_root) {
  std::vector<NvidiaPciDevice> out;
  std::error_code ec;
  for (fs::directory_iterator it(sysfs_root / "bus/pci/devices", ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& dir = it->path();
    auto vendor_text = read_sysfs_text(dir / "vendor");
    auto device_text = read_sysfs_text(dir / "device");
    auto class_text = read_sysfs_text(dir / "class");
    if (!vendor_text || !device_text || !class_text) continue;
    auto vendor = parse_hex_id(*vendor_text);
    auto device = parse_hex_id(*device_text);
    std::string c = trim(*class_text);
    unsigned long pci_class = 0;
    try {
      std::size_t used = 0;
      pci_class = std::stoul(c, &used, 16);
      if (used != c.size()) continue;
    } catch (const std::exception&) {
      continue;
    }
    if (vendor != kNvidiaVendorId || !device || (pci_class >> 16) != 0x03) continue;
    out.push_back({to_lower_copy(dir.filename().string()), *device, static_cast<unsigned>(pci_class)});
  }
  std::sort(out.begin(), out.end(),
            [](const NvidiaPciDevice& a, const NvidiaPciDevice& b) { return a.pci_bus_id < b.pci_bus_id; });
  return out;
}

NvidiaMatch match_nvidia_gpu(const PlatformTable& table, std::optional<unsigned> pci_device_id,
                             const std::string& nvml_name, std::uint64_t memory_bytes) {
  if (pci_device_id) {
    for (const auto& g : table.nvidia_gpus) {
      const auto& ids = g.platform.pci_device_ids;
      if (std::find(ids.begin(), ids.end(), *pci_device_id) != ids.end()) return {&g, "PCI device id"};
    }
  }
  std::string wanted = to_lower_copy(trim(nvml_name));
  if (wanted.empty()) return {};
  const NvidiaGpu* best = nullptr;
  double best_distance = 0;
  for (const auto& g : table.nvidia_gpus) {
    for (const auto& n : g.nvml_names) {
      if (to_lower_copy(trim(n)) != wanted) continue;
      double distance = memory_bytes > 0 ? std::fabs(gib(memory_bytes) - g.platform.memory_gb) : 0;
      if (best == nullptr || distance < best_distance) {
        best = &g;
        best_distance = distance;
      }
    }
  }
  if (best) return {best, "marketing name"};
  return {};
}

HipStatus query_hip_runtime(const ProbeOptions& options, std::vector<HipDevice>& devices,
                            std::vector<std::string>& warnings) {
  HipStatus status;
  devices.clear();
  if (!options.use_hip) return status;

  std::vector<std::string> candidates;
  if (options.hip_library) {
    candidates.push_back(options.hip_library->string());
  } else if (const char* env = std::getenv("MLPERF_SCORE_HIP_LIBRARY"); env != nullptr && *env != '\0') {
    candidates.emplace_back(env);
  } else {
    candidates = default_hip_libraries();
  }

  void* handle = nullptr;
  std::string first_error;
  for (const auto& name : candidates) {
    ::dlerror();
    handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      status.library = name;
      break;
    }
    const char* err = ::dlerror();
    if (first_error.empty()) first_error = err ? err : name + ": cannot open";
  }
  if (!handle) {
    status.state = HipState::kNotInstalled;
    status.library = fmt::format("{}", fmt::join(candidates, ", "));
    status.message = first_error;
    return status;
  }

  auto get_count = resolve<HipGetDeviceCount>(handle, "hipGetDeviceCount");
  auto get_version = resolve<HipRuntimeGetVersion>(handle, "hipRuntimeGetVersion");
  auto get_name = resolve<HipDeviceGetName>(handle, "hipDeviceGetName");
  auto get_bus_id = resolve<HipDeviceGetPciBusId>(handle, "hipDeviceGetPCIBusId");
  auto total_mem = resolve<HipDeviceTotalMem>(handle, "hipDeviceTotalMem");
  auto get_attribute = resolve<HipDeviceGetAttribute>(handle, "hipDeviceGetAttribute");
  auto error_name = resolve<HipGetErrorName>(handle, "hipGetErrorName");

  if (get_count) {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(get_count), &info) != 0 && info.dli_fname != nullptr) {
      status.library = info.dli_fname;
    }
  }
  auto hip_error = [&](int code) -> std::string {
    const char* n = error_name ? error_name(code) : nullptr;
    return n ? fmt::format("{} = {}", n, code) : fmt::format("HIP error {}", code);
  };

  if (!get_count) {
    status.state = HipState::kUnusable;
    status.message = "entry point hipGetDeviceCount not found";
    return status;
  }
  if (get_version) {
    int v = 0;
    if (get_version(&v) == kHipSuccess && v > 0) status.runtime_version = v;
  }
  int count = 0;
  int rc = get_count(&count);
  if (rc == kHipErrorNoDevice || (rc == kHipSuccess && count <= 0)) {
    status.state = HipState::kLoaded;
    status.device_count = 0;
    status.message = rc == kHipSuccess ? "no device" : hip_error(rc);
    return status;
  }
  if (rc != kHipSuccess) {
    status.state = HipState::kUnusable;
    status.message = "hipGetDeviceCount failed: " + hip_error(rc);
    return status;
  }
  status.state = HipState::kLoaded;
  status.device_count = count;

  bool attributes_ok = get_attribute && status.runtime_version &&
                       *status.runtime_version >= kFirstVersionWithKnownAttributes;
  if (get_attribute && !attributes_ok) {
    warnings.push_back(fmt::format(
        "HIP runtime {}: device attribute numbers are only known for HIP 5.0 and newer; compute units and "
        "PCI device ids come from sysfs",
        status.runtime_version ? hip_version_text(*status.runtime_version) : std::string("of unknown version")));
  }
  for (int i = 0; i < count; ++i) {
    HipDevice d;
    d.ordinal = i;
    if (get_name) {
      char buf[257] = {};
      if (int e = get_name(buf, 256, i); e == kHipSuccess) {
        d.name = trim(buf);
      } else {
        warnings.push_back(fmt::format("HIP device {}: hipDeviceGetName failed: {}", i, hip_error(e)));
      }
    }
    if (get_bus_id) {
      char buf[65] = {};
      if (int e = get_bus_id(buf, 64, i); e == kHipSuccess) {
        d.pci_bus_id = to_lower_copy(trim(buf));
      } else {
        warnings.push_back(fmt::format("HIP device {}: hipDeviceGetPCIBusId failed: {}", i, hip_error(e)));
      }
    }
    if (total_mem) {
      std::size_t bytes = 0;
      if (int e = total_mem(&bytes, i); e == kHipSuccess) {
        d.memory_bytes = bytes;
      } else {
        warnings.push_back(fmt::format("HIP device {}: hipDeviceTotalMem failed: {}", i, hip_error(e)));
      }
    }
    if (attributes_ok) {
      int value = 0;
      if (get_attribute(&value, kHipAttributeMultiprocessorCount, i) == kHipSuccess && value > 0) {
        d.compute_units = value;
      }
      value = 0;
      if (get_attribute(&value, kHipAttributePciDeviceId, i) == kHipSuccess && value > 0 && value <= 0xFFFF) {
        d.pci_device_id = static_cast<unsigned>(value);
      }
    }
    devices.push_back(std::move(d));
  }
  return status;
}

std::map<std::string, std::uint64_t> parse_kfd_properties(std::string_view text) {
  std::map<std::string, std::uint64_t> out;
  for_each_line(text, [&](std::string_view line) {
    // Exactly two words, split at white space as `>>` reads them.
    std::string_view words[3];
    std::size_t count = 0;
    for (std::size_t at = 0; count < 3;) {
      while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at]))) ++at;
      if (at == line.size()) break;
      const std::size_t start = at;
      while (at < line.size() && !std::isspace(static_cast<unsigned char>(line[at]))) ++at;
      words[count++] = line.substr(start, at - start);
    }
    if (count != 2) return;
    if (auto v = parse_u64(std::string(words[1]))) out[std::string(words[0])] = *v;
  });
  return out;
}

std::string gfx_target_from_version(std::uint64_t v) {
  if (v == 0) return "";
  return fmt::format("gfx{}{:x}{:x}", v / 10000, (v / 100) % 100, v % 100);
}

std::string pci_bus_id_from_location(std::uint64_t domain, std::uint64_t location_id) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, (location_id >> 8) & 0xFF, (location_id >> 3) & 0x1F,
                     location_id & 0x7);
}

std::uint64_t KfdNode::get(const std::string& key) const {
  auto it = properties.find(key);
  return it == properties.end() ? 0 : it->second;
}

bool KfdNode::is_gpu() const { return get("gfx_target_version") != 0 && get("simd_count") != 0; }

int KfdNode::compute_units() const {
  std::uint64_t per_cu = get("simd_per_cu");
  if (per_cu == 0) per_cu = 4;
  return static_cast<int>(get("simd_count") / per_cu);
}

std::string KfdNode::pci_bus_id() const {
  if (properties.count("location_id") == 0) return "";
  return pci_bus_id_from_location(get("domain"), get("location_id"));
}

std::vector<KfdNode> read_kfd_nodes(const fs::path& sysfs_root, bool& present, std::vector<std::string>& warnings) {
  std::vector<KfdNode> nodes;
  fs::path dir = sysfs_root / "class/kfd/kfd/topology/nodes";
  std::error_code ec;
  present = fs::is_directory(dir, ec);
  if (!present) return nodes;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!numeric_name(name)) continue;
    KfdNode node;
    node.node = std::stoi(name);
    auto text = read_sysfs_text(it->path() / "properties");
    if (!text) {
      warnings.push_back(fmt::format("{}: cannot read", (it->path() / "properties").string()));
      continue;
    }
    node.properties = parse_kfd_properties(*text);
    std::error_code bank_ec;
    for (fs::directory_iterator b(it->path() / "mem_banks", bank_ec), bend; !bank_ec && b != bend;
         b.increment(bank_ec)) {
      if (auto bank = read_sysfs_text(b->path() / "properties")) {
        auto props = parse_kfd_properties(*bank);
        if (auto s = props.find("size_in_bytes"); s != props.end()) node.memory_bytes += s->second;
      }
    }
    nodes.push_back(std::move(node));
  }
  if (ec) warnings.push_back(fmt::format("{}: {}", dir.string(), ec.message()));
  std::sort(nodes.begin(), nodes.end(), [](const KfdNode& a, const KfdNode& b) { return a.node < b.node; });
  return nodes;
}

PlatformMatch match_device_platform(const PlatformTable& table, std::optional<unsigned> pci_device_id,
                                    const std::string& marketing_name, std::uint64_t memory_bytes,
                                    const std::string& gfx_target) {
  if (pci_device_id) {
    for (const auto& p : table.platforms) {
      if (std::find(p.pci_device_ids.begin(), p.pci_device_ids.end(), *pci_device_id) != p.pci_device_ids.end()) {
        return {&p, "PCI device id"};
      }
    }
  }
  if (!marketing_name.empty()) {
    if (const PlatformInfo* p = table.match(marketing_name)) return {p, "marketing name"};
  }
  if (memory_bytes > 0) {
    const PlatformInfo* found = nullptr;
    int matches = 0;
    double size = gib(memory_bytes);
    for (const auto& p : table.platforms) {
      if (p.memory_gb <= 0) continue;
      if (!gfx_target.empty() && !p.gfx_target.empty() && gfx_target.rfind(p.gfx_target, 0) != 0) continue;
      if (std::fabs(size - p.memory_gb) <= 0.03 * p.memory_gb) {
        found = &p;
        ++matches;
      }
    }
    if (matches == 1) return {found, "memory size"};
  }
  return {};
}

std::string ProbeResult::platform() const {
  std::set<std::string> names;
  for (const auto& d : devices) {
    if (!d.platform.empty()) names.insert(d.platform);
  }
  return names.size() == 1 ? *names.begin() : std::string();
}

namespace {

// "8 AMD GPUs from sysfs: MI355X", "8 AMD GPU devices on 1 physical GPU, CPX mode from sysfs:
// MI300X", "2 NVIDIA GPUs from NVML: NVIDIA H100-SXM5-80GB": the devices of one vendor.
std::string vendor_summary(const std::vector<const ProbedDevice*>& devices, const std::string& vendor) {
  std::set<std::string> names;
  std::set<int> physical;
  int unknown = 0;
  for (const ProbedDevice* d : devices) {
    physical.insert(d->physical_gpu);
    if (d->platform.empty()) {
      ++unknown;
    } else {
      names.insert(d->platform);
    }
  }
  std::string platforms = names.empty() ? std::string("no known platform") : fmt::format("{}", fmt::join(names, ", "));
  if (!names.empty() && unknown > 0) platforms += fmt::format(" and {} unknown", unknown);
  const std::size_t n = devices.size();
  const int physical_gpus = static_cast<int>(physical.size());
  const std::string& source = devices.front()->source;
  std::string where = source == kHip ? "the HIP runtime" : source;
  if (physical_gpus == static_cast<int>(n)) {
    return fmt::format("{} {} GPU{} from {}: {}", n, vendor, n == 1 ? "" : "s", where, platforms);
  }
  std::set<int> counts;
  for (const ProbedDevice* d : devices) counts.insert(d->partitions);
  std::string mode = counts.size() == 1 ? fmt::format(", {} mode", partition_mode(*counts.begin())) : "";
  return fmt::format("{} {} GPU devices on {} physical GPU{}{} from {}: {}", n, vendor, physical_gpus,
                     physical_gpus == 1 ? "" : "s", mode, where, platforms);
}

}  // namespace

std::string ProbeResult::summary() const {
  if (devices.empty()) {
    std::string hip_part;
    switch (hip.state) {
      case HipState::kNotTried: hip_part = "HIP runtime not used"; break;
      case HipState::kNotInstalled: hip_part = "HIP runtime not installed"; break;
      case HipState::kUnusable: hip_part = "HIP runtime unusable: " + hip.message; break;
      case HipState::kLoaded:
        hip_part = hip.runtime_version
                       ? fmt::format("HIP runtime {} loaded, no device", hip_version_text(*hip.runtime_version))
                       : std::string("HIP runtime loaded, no device");
        break;
    }
    std::string sysfs_part = !sysfs_read    ? "sysfs not read"
                             : !kfd_present ? "no KFD nodes"
                                            : fmt::format("KFD lists {} node{}, no GPU", kfd_nodes, kfd_nodes == 1 ? "" : "s");
    std::string nvml_part;
    switch (nvml.state) {
      case NvmlState::kNotTried: nvml_part = "NVML not used"; break;
      case NvmlState::kNotInstalled: nvml_part = "NVML not installed"; break;
      case NvmlState::kUnusable: nvml_part = "NVML unusable: " + nvml.message; break;
      case NvmlState::kLoaded:
        nvml_part = nvml.driver_version.empty() ? std::string("NVML loaded, no device")
                                                : fmt::format("NVML (driver {}) loaded, no device", nvml.driver_version);
        break;
    }
    std::string pci_part = sysfs_read ? "; no NVIDIA PCI device" : "";
    return fmt::format("no GPU found ({}; {}; {}{})", hip_part, sysfs_part, nvml_part, pci_part);
  }
  std::vector<std::string> parts;
  for (const char* vendor : {"AMD", "NVIDIA"}) {
    std::vector<const ProbedDevice*> of_vendor;
    for (const auto& d : devices) {
      if (d.vendor == vendor) of_vendor.push_back(&d);
    }
    if (!of_vendor.empty()) parts.push_back(vendor_summary(of_vendor, vendor));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

namespace {

// Fills platform, basis, derived gfx target, and checks the facts agree.
void map_platform(ProbedDevice& d, const PlatformTable& table, std::vector<std::string>& warnings) {
  PlatformMatch m = match_device_platform(table, d.pci_device_id, d.marketing_name, d.memory_bytes, d.gfx_target);
  if (!m.platform) return;
  d.platform = m.platform->name;
  d.platform_basis = m.basis;
  d.field_sources["platform"] = "configs/platforms.json (" + m.basis + ")";
  if (const PlatformInfo* named = table.match(d.marketing_name); named && named != m.platform) {
    warnings.push_back(fmt::format("device {}: PCI device id {:#06x} is {} but its name \"{}\" says {}", d.index,
                                   d.pci_device_id.value_or(0), m.platform->name, d.marketing_name, named->name));
  }
  if (d.gfx_target.empty() && !m.platform->gfx_target.empty()) {
    d.gfx_target = m.platform->gfx_target;
    d.field_sources["gfx_target"] = "platform table";
  } else if (!m.platform->gfx_target.empty() && d.gfx_target.rfind(m.platform->gfx_target, 0) != 0) {
    warnings.push_back(fmt::format("device {}: {} is {} but {} is expected", d.index, d.gfx_target,
                                   m.platform->name, m.platform->gfx_target));
  }
}

ProbedDevice device_from_kfd(const KfdNode& node, const std::optional<DrmDevice>& drm) {
  ProbedDevice d;
  d.source = "sysfs";
  d.kfd_node = node.node;
  d.gfx_target = gfx_target_from_version(node.get("gfx_target_version"));
  d.field_sources["gfx_target"] = kKfd;
  d.compute_units = node.compute_units();
  d.field_sources["compute_units"] = kKfd;
  d.pci_bus_id = node.pci_bus_id();
  if (drm && drm->device) {
    d.pci_device_id = drm->device;
    d.field_sources["pci_device_id"] = kDrm;
  } else if (node.get("device_id") != 0) {
    d.pci_device_id = static_cast<unsigned>(node.get("device_id"));
    d.field_sources["pci_device_id"] = kKfd;
  }
  if (drm && !drm->product_name.empty()) {
    d.marketing_name = drm->product_name;
    d.field_sources["name"] = kDrm;
  }
  if (node.memory_bytes > 0) {
    d.memory_bytes = node.memory_bytes;
    d.field_sources["memory"] = kKfd;
  } else if (drm && drm->vram_bytes > 0) {
    d.memory_bytes = drm->vram_bytes;
    d.field_sources["memory"] = kDrm;
  }
  if (d.pci_bus_id.empty() && drm) d.pci_bus_id = drm->pci_bus_id;
  return d;
}

// Numbers the physical GPUs (by PCI bus id, first appearance) and the partitions in each.
int group_partitions(std::vector<ProbedDevice>& devices) {
  std::map<std::string, int> gpu_of_bus;
  std::map<int, int> members;
  int next = 0;
  for (auto& d : devices) {
    if (d.pci_bus_id.empty()) {
      d.physical_gpu = next++;
    } else {
      auto [it, inserted] = gpu_of_bus.emplace(d.pci_bus_id, next);
      if (inserted) ++next;
      d.physical_gpu = it->second;
    }
    d.partition = members[d.physical_gpu]++;
  }
  for (auto& d : devices) d.partitions = members[d.physical_gpu];
  return next;
}

}  // namespace

ProbeResult probe_devices(const ProbeOptions& options, const PlatformTable& table) {
  ProbeResult r;
  r.sysfs_root = options.sysfs_root;
  r.sysfs_read = options.use_sysfs;

  std::vector<HipDevice> hip_devices;
  try {
    r.hip = query_hip_runtime(options, hip_devices, r.warnings);
  } catch (const std::exception& e) {  // allocation failures, fmt errors: never fatal
    r.hip.state = HipState::kUnusable;
    r.hip.message = e.what();
    hip_devices.clear();
  }

  std::vector<KfdNode> nodes;
  if (options.use_sysfs) {
    try {
      nodes = read_kfd_nodes(options.sysfs_root, r.kfd_present, r.warnings);
    } catch (const std::exception& e) {
      r.warnings.push_back(fmt::format("{}: {}", options.sysfs_root.string(), e.what()));
    }
  }
  std::vector<const KfdNode*> gpu_nodes;
  for (const auto& n : nodes) {
    if (n.is_gpu()) gpu_nodes.push_back(&n);
  }
  r.kfd_nodes = static_cast<int>(nodes.size());
  r.kfd_gpu_nodes = static_cast<int>(gpu_nodes.size());

  try {
    if (!hip_devices.empty()) {
      r.source = kHip;
      std::map<std::string, int> used_of_bus;  // partitions share a bus id: match them in order
      for (const auto& h : hip_devices) {
        ProbedDevice d;
        d.index = h.ordinal;
        d.source = kHip;
        d.marketing_name = h.name;
        if (!h.name.empty()) d.field_sources["name"] = kHip;
        d.pci_bus_id = h.pci_bus_id;
        d.memory_bytes = h.memory_bytes;
        if (h.memory_bytes > 0) d.field_sources["memory"] = kHip;
        d.compute_units = h.compute_units;
        if (h.compute_units > 0) d.field_sources["compute_units"] = kHip;
        d.pci_device_id = h.pci_device_id;
        if (h.pci_device_id) d.field_sources["pci_device_id"] = kHip;
        // Complete from sysfs by PCI bus id.
        const KfdNode* match = nullptr;
        if (!h.pci_bus_id.empty()) {
          int skip = used_of_bus[h.pci_bus_id]++;
          for (const KfdNode* n : gpu_nodes) {
            if (n->pci_bus_id() == h.pci_bus_id && skip-- == 0) {
              match = n;
              break;
            }
          }
        }
        if (match) {
          ProbedDevice k = device_from_kfd(*match, drm_for_node(options.sysfs_root, *match));
          d.kfd_node = match->node;
          d.gfx_target = k.gfx_target;
          d.field_sources["gfx_target"] = kKfd;
          if (!d.pci_device_id && k.pci_device_id) {
            d.pci_device_id = k.pci_device_id;
            d.field_sources["pci_device_id"] = k.field_sources["pci_device_id"];
          }
          if (d.compute_units == 0 && k.compute_units > 0) {
            d.compute_units = k.compute_units;
            d.field_sources["compute_units"] = kKfd;
          }
          if (d.memory_bytes == 0 && k.memory_bytes > 0) {
            d.memory_bytes = k.memory_bytes;
            d.field_sources["memory"] = k.field_sources["memory"];
          }
        } else if (options.use_sysfs && !d.pci_device_id && !h.pci_bus_id.empty()) {
          auto drm = read_drm_device(options.sysfs_root / "bus/pci/devices" / h.pci_bus_id);
          if (drm && drm->vendor == kAmdVendorId && drm->device) {
            d.pci_device_id = drm->device;
            d.field_sources["pci_device_id"] = "sysfs (PCI)";
          }
        }
        r.devices.push_back(std::move(d));
      }
    } else if (!gpu_nodes.empty()) {
      r.source = "sysfs";
      // HIP always sees the real node: a mismatch only means something with the real /sys.
      if (r.hip.state == HipState::kLoaded && options.sysfs_root == "/sys") {
        r.warnings.push_back(fmt::format(
            "the HIP runtime found no device but KFD lists {} GPU node(s) (no access to /dev/kfd? "
            "HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES set?); listing them from sysfs",
            gpu_nodes.size()));
      }
      for (const KfdNode* n : gpu_nodes) {
        ProbedDevice d = device_from_kfd(*n, drm_for_node(options.sysfs_root, *n));
        d.index = static_cast<int>(r.devices.size());
        r.devices.push_back(std::move(d));
      }
    } else if (options.use_sysfs) {
      std::vector<DrmDevice> cards = read_drm_cards(options.sysfs_root);
      r.drm_amd_devices = static_cast<int>(cards.size());
      for (const auto& c : cards) {
        ProbedDevice d;
        d.index = static_cast<int>(r.devices.size());
        d.source = "sysfs";
        d.pci_device_id = c.device;
        if (c.device) d.field_sources["pci_device_id"] = kDrm;
        d.marketing_name = c.product_name;
        if (!c.product_name.empty()) d.field_sources["name"] = kDrm;
        d.memory_bytes = c.vram_bytes;
        if (c.vram_bytes > 0) d.field_sources["memory"] = kDrm;
        d.pci_bus_id = c.pci_bus_id;
        r.devices.push_back(std::move(d));
      }
      if (!cards.empty()) {
        r.source = "sysfs";
        r.warnings.push_back("no KFD GPU node (amdgpu loaded without KFD?): devices from DRM PCI ids only");
      }
    }
    for (auto& d : r.devices) map_platform(d, table, r.warnings);
  } catch (const std::exception& e) {
    r.warnings.push_back(fmt::format("probe failed: {}", e.what()));
  }
  const std::string amd_source = r.source;

  // NVIDIA: NVML, else the PCI devices in sysfs.
  std::vector<NvmlDevice> nvml_devices;
  try {
    r.nvml = query_nvml(options, nvml_devices, r.warnings);
  } catch (const std::exception& e) {
    r.nvml.state = NvmlState::kUnusable;
    r.nvml.message = e.what();
    nvml_devices.clear();
  }
  std::string nvidia_source;
  try {
    std::vector<NvidiaPciDevice> pci;
    if (options.use_sysfs) pci = read_nvidia_pci_devices(options.sysfs_root);
    r.nvidia_pci_devices = static_cast<int>(pci.size());
    std::vector<ProbedDevice> nvidia;
    if (!nvml_devices.empty()) {
      nvidia_source = kNvml;
      for (const auto& n : nvml_devices) {
        ProbedDevice d;
        d.index = n.index;
        d.vendor = "NVIDIA";
        d.source = kNvml;
        d.marketing_name = n.name;
        if (!n.name.empty()) d.field_sources["name"] = kNvml;
        d.pci_bus_id = n.pci_bus_id;
        d.pci_device_id = n.pci_device_id;
        if (n.pci_device_id) d.field_sources["pci_device_id"] = kNvml;
        d.memory_bytes = n.memory_bytes;
        if (n.memory_bytes > 0) d.field_sources["memory"] = kNvml;
        d.uuid = n.uuid;
        d.sm_clock_max_mhz = n.sm_clock_max_mhz;
        d.power_limit_mw = n.power_limit_mw;
        if (!d.pci_device_id && !n.pci_bus_id.empty() && options.use_sysfs) {
          for (const auto& p : pci) {
            if (p.pci_bus_id == n.pci_bus_id) {
              d.pci_device_id = p.device_id;
              d.field_sources["pci_device_id"] = kPci;
            }
          }
        }
        nvidia.push_back(std::move(d));
      }
    } else if (!pci.empty()) {
      nvidia_source = "sysfs";
      if (r.nvml.state == NvmlState::kLoaded && options.sysfs_root == "/sys") {
        r.warnings.push_back(fmt::format(
            "NVML found no device but sysfs lists {} NVIDIA GPU(s) (driver not bound? CUDA_VISIBLE_DEVICES does not "
            "hide devices from NVML); listing them from sysfs",
            pci.size()));
      }
      for (const auto& p : pci) {
        ProbedDevice d;
        d.index = static_cast<int>(nvidia.size());
        d.vendor = "NVIDIA";
        d.source = "sysfs";
        d.pci_bus_id = p.pci_bus_id;
        d.pci_device_id = p.device_id;
        d.field_sources["pci_device_id"] = kPci;
        nvidia.push_back(std::move(d));
      }
    }
    if (!nvidia.empty() && table.nvidia_gpus.empty()) {
      r.warnings.push_back("no NVIDIA GPU table (configs/nvidia_gpus.json) loaded: NVIDIA devices map to no platform");
    }
    for (auto& d : nvidia) {
      NvidiaMatch m = match_nvidia_gpu(table, d.pci_device_id, d.marketing_name, d.memory_bytes);
      if (!m.gpu) continue;
      d.platform = m.gpu->platform.name;
      d.platform_basis = m.basis;
      d.field_sources["platform"] = "configs/nvidia_gpus.json (" + m.basis + ")";
      if (d.marketing_name.empty() && !m.gpu->pci_ids_name.empty()) {
        d.marketing_name = m.gpu->pci_ids_name;
        d.field_sources["name"] = "configs/nvidia_gpus.json (pci.ids)";
      }
    }
    for (auto& d : nvidia) r.devices.push_back(std::move(d));
  } catch (const std::exception& e) {
    r.warnings.push_back(fmt::format("probe failed: {}", e.what()));
  }
  r.physical_gpus = group_partitions(r.devices);
  if (!amd_source.empty() && !nvidia_source.empty() && amd_source != nvidia_source) {
    r.source = amd_source + ", " + nvidia_source;
  } else {
    r.source = amd_source.empty() ? nvidia_source : amd_source;
  }
  return r;
}

std::optional<PlatformTag> probe_platform_tag(const ProbeResult& result, std::vector<std::string>& warnings) {
  for (const auto& w : result.warnings) warnings.push_back("probe: " + w);
  if (result.devices.empty()) {
    warnings.push_back("probe: " + result.summary());
    return std::nullopt;
  }
  std::set<std::string> names;
  int unknown = 0;
  for (const auto& d : result.devices) {
    if (d.platform.empty()) {
      ++unknown;
    } else {
      names.insert(d.platform);
    }
  }
  if (names.empty()) {
    std::set<std::string> vendors;
    for (const auto& d : result.devices) vendors.insert(d.vendor);
    warnings.push_back(fmt::format("probe: {} {} GPU device(s) found, none of a known platform", result.devices.size(),
                                   fmt::join(vendors, " and ")));
    return std::nullopt;
  }
  if (names.size() > 1) {
    warnings.push_back(fmt::format("probe: this node holds several platforms ({}); not tagging by probe",
                                   fmt::join(names, ", ")));
    return std::nullopt;
  }
  if (unknown > 0) {
    warnings.push_back(fmt::format("probe: {} device(s) map to no known platform; the others are {}", unknown,
                                   *names.begin()));
  }
  return PlatformTag{*names.begin(), "probe", true};
}

std::optional<PlatformTag> probe_platform_tag(const ProbeOptions& options, const PlatformTable& table,
                                              std::vector<std::string>& warnings) {
  try {
    return probe_platform_tag(probe_devices(options, table), warnings);
  } catch (const std::exception& e) {
    warnings.push_back(fmt::format("probe: failed: {}", e.what()));
    return std::nullopt;
  }
}

}  // namespace mlperf
