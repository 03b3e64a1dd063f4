// A stand-in libnvidia-ml.so.1 for the device probe tests (C linkage; a .cc file because the
// project builds C++ only): exactly the NVML entry points the probe resolves
// (src/device/device_probe.cc), with NVML's C ABI (nvmlReturn_t and nvmlClockType_t are int-sized
// enums, nvmlDevice_t an opaque pointer, nvmlPciInfo_t and nvmlMemory_t as in nvml.h).
// Environment knobs, read at every call, let one loaded copy play several machines:
//   FAKE_NVML_GPUS=k1,k2,...    the devices, in NVML index order; each kind is one of
//       h100     "NVIDIA H100 80GB HBM3",   0x2330, 81559 MiB,  1980 MHz, 700 W
//       h200     "NVIDIA H200",             0x2335, 143771 MiB, 1980 MHz, 700 W
//       b200     "NVIDIA B200",             0x2901, 183359 MiB, 1965 MHz, 1000 W
//       a100     "NVIDIA A100-SXM4-80GB",   0x20B2, 81920 MiB,  1410 MHz, 400 W
//       rtx6000  "NVIDIA RTX 6000 Ada Generation", 0x26B1, 49140 MiB, 2505 MHz, 300 W (unknown)
//     unset: two h100; empty: no device. Device i sits on bus 0x18 + 0x10 × i
//     ("00000000:18:00.0", NVML's eight-digit upper-case form) with UUID
//     "GPU-00000000-fake-4e56-4d4c-00000000000<i>".
//   FAKE_NVML_INIT_ERROR=N      nvmlInit_v2 returns N (e.g. 9, NVML_ERROR_DRIVER_NOT_LOADED)
//   FAKE_NVML_FAIL=function=N   that entry point (e.g. nvmlDeviceGetPowerManagementLimit)
//                               returns N for every device
//   FAKE_NVML_DRIVER=text       nvmlSystemGetDriverVersion's answer (default "550.54.15")
// nvmlSystemGetCudaDriverVersion_v2 reports 12040 (CUDA 12.4). fake_nvml_init_calls() and
// fake_nvml_shutdown_calls() count the calls, so tests can check the probe shut NVML down.

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {

enum {
  kSuccess = 0,
  kErrorUninitialized = 1,
  kErrorInvalidArgument = 2,
  kErrorNotSupported = 3,
  kErrorNoPermission = 4,
  kErrorDriverNotLoaded = 9,
  kErrorInsufficientSize = 7,
  kErrorUnknown = 999,
};

struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct Kind {
  const char* key;
  const char* name;
  unsigned device_id;
  unsigned long long memory_mib;
  unsigned sm_clock_mhz;
  unsigned power_mw;
};

static const Kind kKinds[] = {
    {"h100", "NVIDIA H100 80GB HBM3", 0x2330, 81559, 1980, 700000},
    {"h200", "NVIDIA H200", 0x2335, 143771, 1980, 700000},
    {"b200", "NVIDIA B200", 0x2901, 183359, 1965, 1000000},
    {"a100", "NVIDIA A100-SXM4-80GB", 0x20B2, 81920, 1410, 400000},
    {"rtx6000", "NVIDIA RTX 6000 Ada Generation", 0x26B1, 49140, 2505, 300000},
};

// A device handle points at one of these.
struct FakeDevice {
  const Kind* kind;
  unsigned index;
};

static FakeDevice devices[16];
static unsigned device_count = 0;
static int initialized = 0;
static int init_calls = 0;
static int shutdown_calls = 0;

static const Kind* find_kind(const char* key, std::size_t length) {
  for (const Kind& k : kKinds) {
    if (std::strlen(k.key) == length && std::strncmp(k.key, key, length) == 0) return &k;
  }
  return NULL;
}

// Reads FAKE_NVML_GPUS into `devices`.
static void load_devices(void) {
  device_count = 0;
  const char* spec = getenv("FAKE_NVML_GPUS");
  if (spec == NULL) spec = "h100,h100";
  const char* p = spec;
  while (*p != '\0' && device_count < sizeof devices / sizeof devices[0]) {
    const char* end = std::strchr(p, ',');
    std::size_t length = end ? static_cast<std::size_t>(end - p) : std::strlen(p);
    if (const Kind* k = find_kind(p, length)) {
      devices[device_count].kind = k;
      devices[device_count].index = device_count;
      ++device_count;
    }
    p += length;
    if (*p == ',') ++p;
  }
}

// The error FAKE_NVML_FAIL asks `function` to return, or kSuccess.
static int forced(const char* function) {
  const char* v = getenv("FAKE_NVML_FAIL");
  if (v == NULL) return kSuccess;
  std::size_t n = std::strlen(function);
  if (std::strncmp(v, function, n) != 0 || v[n] != '=') return kSuccess;
  return atoi(v + n + 1);
}

static FakeDevice* device_of(void* handle) {
  for (unsigned i = 0; i < device_count; ++i) {
    if (handle == &devices[i]) return &devices[i];
  }
  return NULL;
}

static int copy_string(char* out, unsigned length, const char* text) {
  if (out == NULL) return kErrorInvalidArgument;
  if (std::strlen(text) + 1 > length) return kErrorInsufficientSize;
  std::strcpy(out, text);
  return kSuccess;
}

int nvmlInit_v2(void) {
  ++init_calls;
  const char* e = getenv("FAKE_NVML_INIT_ERROR");
  if (e != NULL && *e != '\0') return atoi(e);
  load_devices();
  initialized = 1;
  return kSuccess;
}

int nvmlShutdown(void) {
  ++shutdown_calls;
  if (!initialized) return kErrorUninitialized;
  initialized = 0;
  return kSuccess;
}

const char* nvmlErrorString(int result) {
  switch (result) {
    case kSuccess: return "Success";
    case kErrorUninitialized: return "Uninitialized";
    case kErrorInvalidArgument: return "Invalid Argument";
    case kErrorNotSupported: return "Not Supported";
    case kErrorNoPermission: return "Insufficient Permissions";
    case kErrorInsufficientSize: return "Insufficient Size";
    case kErrorDriverNotLoaded: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}

int nvmlDeviceGetCount_v2(unsigned int* count) {
  if (!initialized) return kErrorUninitialized;
  if (count == NULL) return kErrorInvalidArgument;
  if (int e = forced("nvmlDeviceGetCount_v2")) return e;
  *count = device_count;
  return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (!initialized) return kErrorUninitialized;
  if (device == NULL || index >= device_count) return kErrorInvalidArgument;
  if (int e = forced("nvmlDeviceGetHandleByIndex_v2")) return e;
  *device = &devices[index];
  return kSuccess;
}

int nvmlDeviceGetName(void* handle, char* name, unsigned int length) {
  FakeDevice* d = device_of(handle);
  if (!initialized || d == NULL) return kErrorInvalidArgument;
  if (int e = forced("nvmlDeviceGetName")) return e;
  return copy_string(name, length, d->kind->name);
}

int nvmlDeviceGetMemoryInfo(void* handle, nvmlMemory_t* memory) {
  FakeDevice* d = device_of(handle);
  if (!initialized || d == NULL || memory == NULL) return kErrorInvalidArgument;
  if (int e = forced("nvmlDeviceGetMemoryInfo")) return e;
  memory->total = d->kind->memory_mib * 1024ULL * 1024ULL;
  memory->used = 512ULL * 1024ULL * 1024ULL;
  memory->free = memory->total - memory->used;
  return kSuccess;
}

int nvmlDeviceGetPciInfo_v3(void* handle, nvmlPciInfo_t* pci) {
  FakeDevice* d = device_of(handle);
  if (!initialized || d == NULL || pci == NULL) return kErrorInvalidArgument;
  if (int e = forced("nvmlDeviceGetPciInfo_v3")) return e;
  std::memset(pci, 0, sizeof *pci);
  pci->domain = 0;
  pci->bus = 0x18 + 0x10 * d->index;
  pci->device = 0;
  pci->pciDeviceId = (d->kind->device_id << 16) | 0x10DE;
  pci->pciSubSystemId = 0x16C110DE;
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02X:00.0", pci->bus);
  std::snprintf(pci->busId, sizeof pci->busId, "00000000:%02X:00.0", pci->bus);
  return kSuccess;
}

int nvmlDeviceGetUUID(void* handle, char* uuid, unsigned int length) {
  FakeDevice* d = device_of(handle);
  if (!initialized || d == NULL) return kErrorInvalidArgument;
  if (int e = forced("nvmlDeviceGetUUID")) return e;
  char text[64];
  std::snprintf(text, sizeof text, "GPU-00000000-fake-4e56-4d4c-%012u", d->index);
  return copy_string(uuid, length, text);
}

int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  if (!initialized) return kErrorUninitialized;
  if (int e = forced("nvmlSystemGetDriverVersion")) return e;
  const char* v = getenv("FAKE_NVML_DRIVER");
  return copy_string(version, length, v != NULL ? v : "550.54.15");
}

int nvmlSystemGetCudaDriverVersion_v2(int* version) {
  if (version == NULL) return kErrorInvalidArgument;
  if (int e = forced("nvmlSystemGetCudaDriverVersion_v2")) return e;
  *version = 12040;
  return kSuccess;
}

int nvmlDeviceGetMaxClockInfo(void* handle, int type, unsigned int* clock) {
  FakeDevice* d = device_of(handle);
  if (!initialized || d == NULL || clock == NULL) return kErrorInvalidArgument;
  if (int e = forced("nvmlDeviceGetMaxClockInfo")) return e;
  if (type != 1) return kErrorInvalidArgument;  // only NVML_CLOCK_SM is modelled
  *clock = d->kind->sm_clock_mhz;
  return kSuccess;
}

int nvmlDeviceGetPowerManagementLimit(void* handle, unsigned int* limit) {
  FakeDevice* d = device_of(handle);
  if (!initialized || d == NULL || limit == NULL) return kErrorInvalidArgument;
  if (int e = forced("nvmlDeviceGetPowerManagementLimit")) return e;
  *limit = d->kind->power_mw;
  return kSuccess;
}

// Not NVML entry points: how many times nvmlInit_v2 / nvmlShutdown were called (for the tests).
int fake_nvml_init_calls(void) { return init_calls; }
int fake_nvml_shutdown_calls(void) { return shutdown_calls; }

}  // extern "C"
