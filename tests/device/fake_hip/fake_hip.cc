// A stand-in libamdhip64.so for the device probe tests (C linkage; a .cc file because the
// project builds C++ only): exactly the HIP entry points the probe resolves
// (src/device/device_probe.cc), with HIP's C ABI (hipError_t and hipDeviceAttribute_t are int-sized
// enums), reporting two devices:
//   0: "AMD Instinct MI300X", PCI 0000:0c:00.0, device id 0x74A1, 304 CUs, 192 GiB
//   1: "AMD Instinct MI355X", PCI 0000:85:00.0, device id 0x75A3, 256 CUs, 288 GiB
// Environment knobs, read at every call, let one loaded copy play several runtimes:
//   FAKE_HIP_NO_DEVICE=1        hipGetDeviceCount returns hipErrorNoDevice (100), count 0
//   FAKE_HIP_RUNTIME_VERSION=N  hipRuntimeGetVersion reports N (default 60443483, HIP 6.4)
// hipDeviceGetAttribute answers hipDeviceAttributeMultiprocessorCount (63) and
// hipDeviceAttributePciDeviceId (68) only; any other attribute is hipErrorInvalidValue, and
// every call is counted (fake_hip_attribute_calls) so tests can check it was not called.

#include <cstddef>
#include <cstdlib>
#include <cstring>

extern "C" {

enum {
  kSuccess = 0,
  kErrorInvalidValue = 1,
  kErrorNoDevice = 100,
  kErrorInvalidDevice = 101,
};

struct FakeDevice {
  const char* name;
  const char* bus_id;
  int pci_device_id;
  int compute_units;
  size_t memory_bytes;
};

static const FakeDevice kDevices[] = {
    {"AMD Instinct MI300X", "0000:0C:00.0", 0x74A1, 304, static_cast<size_t>(205822885888ULL)},
    {"AMD Instinct MI355X", "0000:85:00.0", 0x75A3, 256, static_cast<size_t>(309220868096ULL)},
};
static const int kDeviceCount = static_cast<int>(sizeof kDevices / sizeof kDevices[0]);

static int attribute_calls = 0;

static int no_device(void) {
  const char* v = getenv("FAKE_HIP_NO_DEVICE");
  return v != NULL && std::strcmp(v, "1") == 0;
}

static int valid(int device) { return !no_device() && device >= 0 && device < kDeviceCount; }

static int copy_string(char* out, int len, const char* text) {
  if (out == NULL || len <= 0) return kErrorInvalidValue;
  std::strncpy(out, text, static_cast<size_t>(len) - 1);
  out[len - 1] = '\0';
  return kSuccess;
}

int hipGetDeviceCount(int* count) {
  if (count == NULL) return kErrorInvalidValue;
  if (no_device()) {
    *count = 0;
    return kErrorNoDevice;
  }
  *count = kDeviceCount;
  return kSuccess;
}

int hipRuntimeGetVersion(int* version) {
  if (version == NULL) return kErrorInvalidValue;
  const char* v = getenv("FAKE_HIP_RUNTIME_VERSION");
  *version = (v != NULL && *v != '\0') ? atoi(v) : 60443483;
  return kSuccess;
}

int hipDeviceGetName(char* name, int len, int device) {
  if (!valid(device)) return kErrorInvalidDevice;
  return copy_string(name, len, kDevices[device].name);
}

int hipDeviceGetPCIBusId(char* bus_id, int len, int device) {
  if (!valid(device)) return kErrorInvalidDevice;
  return copy_string(bus_id, len, kDevices[device].bus_id);
}

int hipDeviceTotalMem(size_t* bytes, int device) {
  if (bytes == NULL) return kErrorInvalidValue;
  if (!valid(device)) return kErrorInvalidDevice;
  *bytes = kDevices[device].memory_bytes;
  return kSuccess;
}

int hipDeviceGetAttribute(int* value, int attribute, int device) {
  ++attribute_calls;
  if (value == NULL) return kErrorInvalidValue;
  if (!valid(device)) return kErrorInvalidDevice;
  switch (attribute) {
    case 63: *value = kDevices[device].compute_units; return kSuccess;
    case 68: *value = kDevices[device].pci_device_id; return kSuccess;
    default: return kErrorInvalidValue;
  }
}

const char* hipGetErrorName(int error) {
  switch (error) {
    case kSuccess: return "hipSuccess";
    case kErrorInvalidValue: return "hipErrorInvalidValue";
    case kErrorNoDevice: return "hipErrorNoDevice";
    case kErrorInvalidDevice: return "hipErrorInvalidDevice";
    default: return "hipErrorUnknown";
  }
}

// Not a HIP entry point: how many times hipDeviceGetAttribute was called (for the tests).
int fake_hip_attribute_calls(void) { return attribute_calls; }

}  // extern "C"
