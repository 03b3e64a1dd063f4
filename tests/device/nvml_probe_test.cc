// The NVIDIA side of the device probe (issue #27): NVML through the stand-in libnvidia-ml.so.1
// (tests/device/fake_nvml, loaded with dlopen exactly as the real one), NVML's errors named with
// nvmlErrorString, the sysfs PCI fallback on fake trees made here, configs/nvidia_gpus.json and
// the MLPerf-style names, mixed AMD + NVIDIA nodes, and `probe` / `score --probe` run as a user
// runs them.

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "mlperf/device/device_probe.h"
#include "mlperf/training/score.h"
#include "../test_support.h"
#include "scoped_env.h"

namespace mlperf {
namespace {

using testing::placeholder_copy;
using testing::q;
using testing::read_file;
using testing::run_command;
using testing::snapshot;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;

const char* kFakeNvml = MLPERF_SCORE_FAKE_NVML;
const char* kFakeHip = MLPERF_SCORE_FAKE_HIP;
const char* kNoNvml = "/nonexistent/libnvidia-ml.so.1";
const char* kNoHip = "/nonexistent/libamdhip64.so";
const std::uint64_t kMiB = 1024ull * 1024;

using testing::ScopedEnv;

// A counter exported by the stand-in (fake_nvml_init_calls, fake_nvml_shutdown_calls).
int fake_counter(const char* name) {
  void* h = ::dlopen(kFakeNvml, RTLD_NOW | RTLD_LOCAL);
  if (!h) return -1;
  auto fn = reinterpret_cast<int (*)()>(::dlsym(h, name));
  return fn ? fn() : -1;
}

// One PCI function of a fake sysfs tree: <root>/bus/pci/devices/<bus id>/{vendor,device,class}.
void add_pci(const std::filesystem::path& root, const std::string& bus_id, const char* vendor, const char* device,
             const char* pci_class) {
  auto dir = root / "bus/pci/devices" / bus_id;
  write_file(dir / "vendor", std::string(vendor) + "\n");
  write_file(dir / "device", std::string(device) + "\n");
  write_file(dir / "class", std::string(pci_class) + "\n");
}

// A node with an H100 SXM5 and an H200 SXM, an RTX 6000 Ada (not a known platform), an NVSwitch
// bridge and a Mellanox NIC, as sysfs lists them.
void make_nvidia_tree(const std::filesystem::path& root) {
  add_pci(root, "0000:18:00.0", "0x10de", "0x2330", "0x030200");
  add_pci(root, "0000:2a:00.0", "0x10de", "0x2335", "0x030200");
  add_pci(root, "0000:3b:00.0", "0x10de", "0x26b1", "0x030000");
  add_pci(root, "0000:05:00.0", "0x10de", "0x22a3", "0x068000");  // NVSwitch: a bridge, not a GPU
  add_pci(root, "0000:0c:00.0", "0x15b3", "0x1021", "0x020700");  // ConnectX-7
}

class NvmlProbeTest : public ::testing::Test {
 protected:
  PlatformTable table = PlatformTable::load(source_dir() / "configs/platforms.json");

  // NVML from the stand-in only: no HIP runtime, sysfs from `root`.
  static ProbeOptions fake_nvml(const std::filesystem::path& root) {
    ProbeOptions o;
    o.sysfs_root = root;
    o.use_hip = false;
    o.nvml_library = kFakeNvml;
    return o;
  }
};

// --- small rules ---------------------------------------------------------------------------

TEST(NvmlText, CudaVersionBusIdAndErrors) {
  EXPECT_EQ(cuda_version_text(12040), "12.4");
  EXPECT_EQ(cuda_version_text(12080), "12.8");
  EXPECT_EQ(cuda_version_text(11000), "11.0");
  EXPECT_EQ(normalize_pci_bus_id("00000000:18:00.0"), "0000:18:00.0");
  EXPECT_EQ(normalize_pci_bus_id("00000001:AB:00.0"), "0001:ab:00.0");
  EXPECT_EQ(normalize_pci_bus_id("00010000:AB:00.0"), "00010000:ab:00.0");  // a domain over 16 bits stays whole
  EXPECT_EQ(normalize_pci_bus_id("0000:C8:00.0"), "0000:c8:00.0");
  auto names = [](int code) -> const char* { return code == 9 ? "Driver Not Loaded" : nullptr; };
  EXPECT_EQ(nvml_error_text(names, 9), "Driver Not Loaded (NVML error 9)");
  EXPECT_EQ(nvml_error_text(names, 3), "NVML error 3");
  EXPECT_EQ(nvml_error_text(nullptr, 999), "NVML error 999");
}

// --- configs/nvidia_gpus.json --------------------------------------------------------------

TEST_F(NvmlProbeTest, TheShippedTableNamesPlatformsAsMlperfDoes) {
  ASSERT_EQ(table.nvidia_gpus_file, source_dir() / "configs/nvidia_gpus.json");
  ASSERT_GE(table.nvidia_gpus.size(), 13u);
  EXPECT_EQ(table.platforms.size(), 6u);  // the AMD platforms are unchanged
  struct Row {
    unsigned id;
    const char* name;
    double memory_gb;
  };
  for (const Row& row : {Row{0x20B0, "NVIDIA A100-SXM4-40GB", 40}, Row{0x20B2, "NVIDIA A100-SXM4-80GB", 80},
                         Row{0x20F1, "NVIDIA A100-PCIe-40GB", 40}, Row{0x20B5, "NVIDIA A100-PCIe-80GB", 80},
                         Row{0x2330, "NVIDIA H100-SXM5-80GB", 80}, Row{0x2331, "NVIDIA H100-PCIe-80GB", 80},
                         Row{0x2321, "NVIDIA H100-NVL-94GB", 94}, Row{0x2335, "NVIDIA H200-SXM-141GB", 141},
                         Row{0x233B, "NVIDIA H200-NVL-141GB", 141}, Row{0x2901, "NVIDIA B200-SXM-180GB", 180},
                         Row{0x2941, "NVIDIA GB200-186GB", 186}, Row{0x26B9, "NVIDIA L40S", 48},
                         Row{0x27B8, "NVIDIA L4", 24}}) {
    NvidiaMatch m = match_nvidia_gpu(table, row.id, "", 0);
    ASSERT_NE(m.gpu, nullptr) << row.name;
    EXPECT_EQ(m.gpu->platform.name, row.name);
    EXPECT_EQ(m.gpu->platform.vendor, "NVIDIA");
    EXPECT_DOUBLE_EQ(m.gpu->platform.memory_gb, row.memory_gb) << row.name;
    EXPECT_EQ(m.basis, "PCI device id");
    // Every platform name is one tag_platform knows.
    const PlatformInfo* p = table.match(row.name);
    ASSERT_NE(p, nullptr) << row.name;
    EXPECT_EQ(p->name, row.name);
  }
  EXPECT_EQ(match_nvidia_gpu(table, 0x2330, "", 0).gpu->pci_ids_name, "GH100 [H100 SXM5 80GB]");
}

TEST_F(NvmlProbeTest, SystemDescriptionSpellingsMatchWholeNamesOnly) {
  struct Case {
    const char* text;
    const char* platform;  // nullptr: no known platform
  };
  for (const Case& c : {Case{"NVIDIA H100-SXM5-80GB", "NVIDIA H100-SXM5-80GB"},
                        Case{"NVIDIA H100 80GB HBM3", "NVIDIA H100-SXM5-80GB"},
                        Case{"nvidia h100-sxm-80gb", "NVIDIA H100-SXM5-80GB"},
                        Case{"NVIDIA H200-SXM-141GB", "NVIDIA H200-SXM-141GB"},
                        Case{"NVIDIA B200-SXM-180GB", "NVIDIA B200-SXM-180GB"},
                        Case{"NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"}, Case{"NVIDIA L40S", "NVIDIA L40S"},
                        Case{"NVIDIA L4", "NVIDIA L4"}, Case{"NVIDIA L40", nullptr}, Case{"NVIDIA B200", nullptr},
                        Case{"NVIDIA H100", nullptr}, Case{"AMD Instinct MI355X", "MI355X"}}) {
    const PlatformInfo* p = table.match(c.text);
    if (c.platform == nullptr) {
      EXPECT_EQ(p, nullptr) << c.text << " -> " << p->name;
    } else {
      ASSERT_NE(p, nullptr) << c.text;
      EXPECT_EQ(p->name, c.platform) << c.text;
    }
  }
  PlatformTag tag = tag_platform(table, "NVIDIA H100 80GB HBM3", {});
  EXPECT_EQ(tag.name, "NVIDIA H100-SXM5-80GB");
  EXPECT_TRUE(tag.known);
}

TEST_F(NvmlProbeTest, NvmlNameThenNothing) {
  const std::uint64_t h100_bytes = 81559 * kMiB;
  NvidiaMatch m = match_nvidia_gpu(table, std::nullopt, "NVIDIA H100 80GB HBM3", h100_bytes);
  ASSERT_NE(m.gpu, nullptr);
  EXPECT_EQ(m.gpu->platform.name, "NVIDIA H100-SXM5-80GB");
  EXPECT_EQ(m.basis, "marketing name");
  m = match_nvidia_gpu(table, std::nullopt, "  nvidia h200 nvl ", 0);
  ASSERT_NE(m.gpu, nullptr);
  EXPECT_EQ(m.gpu->platform.name, "NVIDIA H200-NVL-141GB");
  // The id wins over the name; an unknown id falls back to the name.
  EXPECT_EQ(match_nvidia_gpu(table, 0x2335u, "NVIDIA H100 80GB HBM3", 0).gpu->platform.name, "NVIDIA H200-SXM-141GB");
  EXPECT_EQ(match_nvidia_gpu(table, 0x9999u, "NVIDIA B200", 0).gpu->platform.name, "NVIDIA B200-SXM-180GB");
  // Unknown GPUs and memory alone map to nothing.
  EXPECT_EQ(match_nvidia_gpu(table, 0x26B1u, "NVIDIA RTX 6000 Ada Generation", 49140 * kMiB).gpu, nullptr);
  EXPECT_EQ(match_nvidia_gpu(table, std::nullopt, "", h100_bytes).gpu, nullptr);
  PlatformTable no_nvidia;
  EXPECT_EQ(match_nvidia_gpu(no_nvidia, 0x2330u, "NVIDIA H100 80GB HBM3", h100_bytes).gpu, nullptr);
}

TEST(NvidiaGpuTableLoad, BadFilesThrowNamingTheFile) {
  TempDir dir;
  struct Case {
    const char* json;
    const char* says;
  };
  for (const Case& c : {Case{R"({"gpus": [{"name": "NVIDIA X", )", "parse error"},
                        Case{R"({"gpus": [{"name": "H100", "memory_gb": 80, "pci_device_ids": ["0x2330"]}]})",
                             "does not start \"NVIDIA \""},
                        Case{R"({"gpus": [{"name": "NVIDIA X", "memory_gb": 80, "pci_device_ids": ["zz"]}]})", "stoul"},
                        Case{R"({"gpus": [{"name": "NVIDIA X", "memory_gb": 80, "pci_device_ids": ["0x12345"]}]})",
                             "bad PCI device id \"0x12345\""},
                        Case{R"({"gpus": [{"name": "NVIDIA X", "memory_gb": 80, "pci_device_ids": ["0x2330"]},
                                          {"name": "NVIDIA Y", "memory_gb": 80, "pci_device_ids": ["0x2330"]}]})",
                             "PCI device id 0x2330 is listed for both NVIDIA X and NVIDIA Y"},
                        Case{R"({"gpus": [{"name": "NVIDIA X", "pci_device_ids": []}]})", "memory_gb"}}) {
    auto file = dir.path() / "nvidia_gpus.json";
    write_file(file, c.json);
    try {
      PlatformTable::load_nvidia_gpus(file);
      ADD_FAILURE() << "no exception for " << c.json;
    } catch (const std::runtime_error& e) {
      std::string what = e.what();
      EXPECT_EQ(what.rfind(file.string() + ": ", 0), 0u) << what;
      EXPECT_NE(what.find(c.says), std::string::npos) << what;
    }
  }
  // A bad nvidia_gpus.json beside platforms.json fails PlatformTable::load, naming it.
  write_file(dir.path() / "platforms.json", R"({"platforms": []})");
  write_file(dir.path() / "nvidia_gpus.json", R"({"gpus": 3})");
  try {
    PlatformTable::load(dir.path() / "platforms.json");
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir.path() / "nvidia_gpus.json").string()), std::string::npos) << e.what();
  }
  // Without the file the table simply has no NVIDIA GPUs.
  std::filesystem::remove(dir.path() / "nvidia_gpus.json");
  PlatformTable t = PlatformTable::load(dir.path() / "platforms.json");
  EXPECT_TRUE(t.nvidia_gpus.empty());
  EXPECT_TRUE(t.nvidia_gpus_file.empty());
}

// --- NVML through the stand-in --------------------------------------------------------------

TEST_F(NvmlProbeTest, FakeNvmlTwoH100s) {
  TempDir empty;
  ScopedEnv gpus("FAKE_NVML_GPUS", nullptr);  // the stand-in's default: two H100 SXM5
  ScopedEnv init("FAKE_NVML_INIT_ERROR", nullptr);
  ScopedEnv fail("FAKE_NVML_FAIL", nullptr);
  ScopedEnv driver("FAKE_NVML_DRIVER", nullptr);
  int inits = fake_counter("fake_nvml_init_calls");
  int shutdowns = fake_counter("fake_nvml_shutdown_calls");
  ProbeResult r = probe_devices(fake_nvml(empty.path()), table);
  EXPECT_EQ(fake_counter("fake_nvml_init_calls") - inits, 1);
  EXPECT_EQ(fake_counter("fake_nvml_shutdown_calls") - shutdowns, 1);
  EXPECT_EQ(r.hip.state, HipState::kNotTried);
  EXPECT_EQ(r.nvml.state, NvmlState::kLoaded);
  EXPECT_NE(r.nvml.library.find("fake_nvidia_ml"), std::string::npos) << r.nvml.library;
  EXPECT_EQ(r.nvml.driver_version, "550.54.15");
  EXPECT_EQ(r.nvml.cuda_driver_version, 12040);
  EXPECT_EQ(r.nvml.device_count, 2);
  EXPECT_EQ(r.source, "NVML");
  ASSERT_EQ(r.devices.size(), 2u);
  const auto& d = r.devices[0];
  EXPECT_EQ(d.vendor, "NVIDIA");
  EXPECT_EQ(d.index, 0);
  EXPECT_EQ(d.source, "NVML");
  EXPECT_EQ(d.marketing_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.pci_bus_id, "0000:18:00.0");  // from NVML's "00000000:18:00.0"
  EXPECT_EQ(d.pci_device_id, 0x2330u);
  EXPECT_EQ(d.memory_bytes, 81559 * kMiB);
  EXPECT_EQ(d.uuid, "GPU-00000000-fake-4e56-4d4c-000000000000");
  EXPECT_EQ(d.sm_clock_max_mhz, 1980u);
  EXPECT_EQ(d.power_limit_mw, 700000u);
  EXPECT_EQ(d.platform, "NVIDIA H100-SXM5-80GB");
  EXPECT_EQ(d.platform_basis, "PCI device id");
  EXPECT_EQ(d.field_sources.at("platform"), "configs/nvidia_gpus.json (PCI device id)");
  EXPECT_EQ(d.field_sources.at("memory"), "NVML");
  EXPECT_EQ(d.gfx_target, "");
  EXPECT_EQ(d.compute_units, 0);
  EXPECT_EQ(r.devices[1].index, 1);
  EXPECT_EQ(r.devices[1].pci_bus_id, "0000:28:00.0");
  EXPECT_EQ(r.devices[1].uuid, "GPU-00000000-fake-4e56-4d4c-000000000001");
  EXPECT_EQ(r.physical_gpus, 2);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.summary(), "2 NVIDIA GPUs from NVML: NVIDIA H100-SXM5-80GB");
  std::vector<std::string> warnings;
  auto tag = probe_platform_tag(r, warnings);
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ(tag->name, "NVIDIA H100-SXM5-80GB");
  EXPECT_EQ(tag->source, "probe");
  EXPECT_TRUE(tag->known);
  EXPECT_TRUE(warnings.empty());
}

TEST_F(NvmlProbeTest, UnknownNvidiaGpuAndOtherKinds) {
  TempDir empty;
  ScopedEnv gpus("FAKE_NVML_GPUS", "b200,rtx6000,a100");
  ScopedEnv init("FAKE_NVML_INIT_ERROR", nullptr);
  ScopedEnv fail("FAKE_NVML_FAIL", nullptr);
  ProbeResult r = probe_devices(fake_nvml(empty.path()), table);
  ASSERT_EQ(r.devices.size(), 3u);
  EXPECT_EQ(r.devices[0].platform, "NVIDIA B200-SXM-180GB");
  EXPECT_EQ(r.devices[0].power_limit_mw, 1000000u);
  EXPECT_EQ(r.devices[1].platform, "");
  EXPECT_EQ(r.devices[1].marketing_name, "NVIDIA RTX 6000 Ada Generation");
  EXPECT_EQ(r.devices[1].pci_device_id, 0x26B1u);
  EXPECT_EQ(r.devices[2].platform, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(r.summary(), "3 NVIDIA GPUs from NVML: NVIDIA A100-SXM4-80GB, NVIDIA B200-SXM-180GB and 1 unknown");
  std::vector<std::string> warnings;
  EXPECT_FALSE(probe_platform_tag(r, warnings).has_value());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "probe: this node holds several platforms (NVIDIA A100-SXM4-80GB, NVIDIA B200-SXM-180GB); not tagging by probe");

  ScopedEnv only_unknown("FAKE_NVML_GPUS", "rtx6000");
  warnings.clear();
  EXPECT_FALSE(probe_platform_tag(probe_devices(fake_nvml(empty.path()), table), warnings).has_value());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "probe: 1 NVIDIA GPU device(s) found, none of a known platform");
}

TEST_F(NvmlProbeTest, InitFailureIsNamedWithNvmlErrorString) {
  TempDir empty;
  ScopedEnv init("FAKE_NVML_INIT_ERROR", "9");
  ProbeResult r = probe_devices(fake_nvml(empty.path()), table);
  EXPECT_EQ(r.nvml.state, NvmlState::kUnusable);
  EXPECT_EQ(r.nvml.message, "nvmlInit_v2 failed: Driver Not Loaded (NVML error 9)");
  EXPECT_TRUE(r.devices.empty());
  EXPECT_EQ(r.summary(),
            "no GPU found (HIP runtime not used; no KFD nodes; NVML unusable: nvmlInit_v2 failed: Driver Not Loaded "
            "(NVML error 9); no NVIDIA PCI device)");
}

TEST_F(NvmlProbeTest, FailedQueriesAreWarningsNamingTheError) {
  TempDir empty;
  ScopedEnv gpus("FAKE_NVML_GPUS", "h200");
  ScopedEnv init("FAKE_NVML_INIT_ERROR", nullptr);
  {
    ScopedEnv fail("FAKE_NVML_FAIL", "nvmlDeviceGetPowerManagementLimit=3");
    ProbeResult r = probe_devices(fake_nvml(empty.path()), table);
    ASSERT_EQ(r.devices.size(), 1u);
    EXPECT_EQ(r.devices[0].power_limit_mw, 0u);
    EXPECT_EQ(r.devices[0].sm_clock_max_mhz, 1980u);
    EXPECT_EQ(r.devices[0].platform, "NVIDIA H200-SXM-141GB");
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0], "NVML device 0: nvmlDeviceGetPowerManagementLimit failed: Not Supported (NVML error 3)");
  }
  {
    // Without PCI info the NVML name still finds the platform.
    ScopedEnv fail("FAKE_NVML_FAIL", "nvmlDeviceGetPciInfo_v3=4");
    ProbeResult r = probe_devices(fake_nvml(empty.path()), table);
    ASSERT_EQ(r.devices.size(), 1u);
    EXPECT_FALSE(r.devices[0].pci_device_id.has_value());
    EXPECT_EQ(r.devices[0].pci_bus_id, "");
    EXPECT_EQ(r.devices[0].platform, "NVIDIA H200-SXM-141GB");
    EXPECT_EQ(r.devices[0].platform_basis, "marketing name");
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0], "NVML device 0: nvmlDeviceGetPciInfo_v3 failed: Insufficient Permissions (NVML error 4)");
  }
  {
    ScopedEnv fail("FAKE_NVML_FAIL", "nvmlDeviceGetHandleByIndex_v2=999");
    ProbeResult r = probe_devices(fake_nvml(empty.path()), table);
    EXPECT_EQ(r.nvml.device_count, 1);
    EXPECT_TRUE(r.devices.empty());
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0], "NVML device 0: nvmlDeviceGetHandleByIndex_v2 failed: Unknown Error (NVML error 999); left out");
  }
  {
    ScopedEnv fail("FAKE_NVML_FAIL", "nvmlDeviceGetCount_v2=2");
    ProbeResult r = probe_devices(fake_nvml(empty.path()), table);
    EXPECT_EQ(r.nvml.state, NvmlState::kUnusable);
    EXPECT_EQ(r.nvml.message, "nvmlDeviceGetCount_v2 failed: Invalid Argument (NVML error 2)");
  }
}

TEST_F(NvmlProbeTest, NoDeviceAndMissingLibraries) {
  TempDir empty;
  ScopedEnv gpus("FAKE_NVML_GPUS", "");
  ScopedEnv init("FAKE_NVML_INIT_ERROR", nullptr);
  ScopedEnv fail("FAKE_NVML_FAIL", nullptr);
  ScopedEnv driver("FAKE_NVML_DRIVER", "570.124.06");
  ProbeResult r = probe_devices(fake_nvml(empty.path()), table);
  EXPECT_EQ(r.nvml.state, NvmlState::kLoaded);
  EXPECT_EQ(r.nvml.device_count, 0);
  EXPECT_EQ(r.summary(),
            "no GPU found (HIP runtime not used; no KFD nodes; NVML (driver 570.124.06) loaded, no device; no NVIDIA PCI "
            "device)");

  ProbeOptions absent = fake_nvml(empty.path());
  absent.nvml_library = kNoNvml;
  r = probe_devices(absent, table);
  EXPECT_EQ(r.nvml.state, NvmlState::kNotInstalled);
  EXPECT_NE(r.nvml.message.find(kNoNvml), std::string::npos) << r.nvml.message;
  EXPECT_EQ(r.summary(), "no GPU found (HIP runtime not used; no KFD nodes; NVML not installed; no NVIDIA PCI device)");

  ProbeOptions not_nvml = fake_nvml(empty.path());
  not_nvml.nvml_library = "libm.so.6";  // opens fine, exports no nvml* symbol
  r = probe_devices(not_nvml, table);
  EXPECT_EQ(r.nvml.state, NvmlState::kUnusable);
  EXPECT_EQ(r.nvml.message,
            "entry points nvmlInit_v2, nvmlShutdown, nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2, "
            "nvmlErrorString not found");

  // The environment variable names the library when the options do not.
  ScopedEnv lib("MLPERF_SCORE_NVML_LIBRARY", kFakeNvml);
  ScopedEnv one("FAKE_NVML_GPUS", "h100");
  ProbeOptions env;
  env.sysfs_root = empty.path();
  env.use_hip = false;
  r = probe_devices(env, table);
  EXPECT_NE(r.nvml.library.find("fake_nvidia_ml"), std::string::npos) << r.nvml.library;
  EXPECT_EQ(r.summary(), "1 NVIDIA GPU from NVML: NVIDIA H100-SXM5-80GB");
}

// --- sysfs without NVML --------------------------------------------------------------------

TEST_F(NvmlProbeTest, SysfsPciFallback) {
  TempDir tree;
  make_nvidia_tree(tree.path());
  auto pci = read_nvidia_pci_devices(tree.path());
  ASSERT_EQ(pci.size(), 3u);  // the NVSwitch bridge and the NIC are not GPUs
  EXPECT_EQ(pci[0].pci_bus_id, "0000:18:00.0");
  EXPECT_EQ(pci[0].device_id, 0x2330u);
  EXPECT_EQ(pci[0].pci_class, 0x030200u);
  EXPECT_EQ(pci[2].pci_bus_id, "0000:3b:00.0");
  EXPECT_TRUE(read_nvidia_pci_devices(tree.path() / "nothing").empty());

  ProbeOptions o = fake_nvml(tree.path());
  o.nvml_library = kNoNvml;
  ProbeResult r = probe_devices(o, table);
  EXPECT_EQ(r.nvml.state, NvmlState::kNotInstalled);
  EXPECT_EQ(r.nvidia_pci_devices, 3);
  EXPECT_EQ(r.source, "sysfs");
  ASSERT_EQ(r.devices.size(), 3u);
  EXPECT_EQ(r.devices[0].vendor, "NVIDIA");
  EXPECT_EQ(r.devices[0].platform, "NVIDIA H100-SXM5-80GB");
  EXPECT_EQ(r.devices[0].marketing_name, "GH100 [H100 SXM5 80GB]");
  EXPECT_EQ(r.devices[0].field_sources.at("name"), "configs/nvidia_gpus.json (pci.ids)");
  EXPECT_EQ(r.devices[0].field_sources.at("pci_device_id"), "sysfs (PCI)");
  EXPECT_EQ(r.devices[0].memory_bytes, 0u);  // sysfs does not tell
  EXPECT_EQ(r.devices[1].platform, "NVIDIA H200-SXM-141GB");
  EXPECT_EQ(r.devices[1].pci_bus_id, "0000:2a:00.0");
  EXPECT_EQ(r.devices[2].platform, "");
  EXPECT_EQ(r.devices[2].marketing_name, "");
  EXPECT_EQ(r.summary(), "3 NVIDIA GPUs from sysfs: NVIDIA H100-SXM5-80GB, NVIDIA H200-SXM-141GB and 1 unknown");

  // NVML, when it answers, wins over sysfs.
  ScopedEnv gpus("FAKE_NVML_GPUS", "h100");
  ScopedEnv init("FAKE_NVML_INIT_ERROR", nullptr);
  ScopedEnv fail("FAKE_NVML_FAIL", nullptr);
  r = probe_devices(fake_nvml(tree.path()), table);
  EXPECT_EQ(r.source, "NVML");
  EXPECT_EQ(r.nvidia_pci_devices, 3);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].source, "NVML");
}

// --- mixed AMD + NVIDIA nodes ---------------------------------------------------------------

TEST_F(NvmlProbeTest, MixedNodeListsBothVendors) {
  TempDir empty;
  ScopedEnv gpus("FAKE_NVML_GPUS", "h100");
  ScopedEnv init("FAKE_NVML_INIT_ERROR", nullptr);
  ScopedEnv fail("FAKE_NVML_FAIL", nullptr);
  ScopedEnv hip_none("FAKE_HIP_NO_DEVICE", nullptr);
  ScopedEnv hip_version("FAKE_HIP_RUNTIME_VERSION", nullptr);
  ProbeOptions o = fake_nvml(empty.path());
  o.use_hip = true;
  o.hip_library = kFakeHip;
  ProbeResult r = probe_devices(o, table);
  EXPECT_EQ(r.source, "HIP runtime, NVML");
  ASSERT_EQ(r.devices.size(), 3u);
  EXPECT_EQ(r.devices[0].vendor, "AMD");
  EXPECT_EQ(r.devices[0].platform, "MI300X");
  EXPECT_EQ(r.devices[1].vendor, "AMD");
  EXPECT_EQ(r.devices[1].platform, "MI355X");
  EXPECT_EQ(r.devices[2].vendor, "NVIDIA");
  EXPECT_EQ(r.devices[2].index, 0);
  EXPECT_EQ(r.devices[2].platform, "NVIDIA H100-SXM5-80GB");
  EXPECT_EQ(r.devices[2].physical_gpu, 2);
  EXPECT_EQ(r.physical_gpus, 3);
  EXPECT_EQ(r.summary(), "2 AMD GPUs from the HIP runtime: MI300X, MI355X; 1 NVIDIA GPU from NVML: NVIDIA H100-SXM5-80GB");
  std::vector<std::string> warnings;
  EXPECT_FALSE(probe_platform_tag(r, warnings).has_value());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "probe: this node holds several platforms (MI300X, MI355X, NVIDIA H100-SXM5-80GB); not tagging by probe");
}

TEST_F(NvmlProbeTest, MixedNodeFromSysfsAlone) {
  TempDir tree;
  std::filesystem::copy(source_dir() / "tests/data/sysfs/mi300x", tree.path(), std::filesystem::copy_options::recursive);
  add_pci(tree.path(), "0000:9a:00.0", "0x10de", "0x2330", "0x030200");
  ProbeOptions o = fake_nvml(tree.path());
  o.nvml_library = kNoNvml;
  ProbeResult r = probe_devices(o, table);
  EXPECT_EQ(r.source, "sysfs");
  ASSERT_EQ(r.devices.size(), 3u);
  EXPECT_EQ(r.devices[0].platform, "MI300X");
  EXPECT_EQ(r.devices[1].platform, "MI300X");
  EXPECT_EQ(r.devices[2].platform, "NVIDIA H100-SXM5-80GB");
  EXPECT_EQ(r.summary(), "2 AMD GPUs from sysfs: MI300X; 1 NVIDIA GPU from sysfs: NVIDIA H100-SXM5-80GB");
}

// --- `score --probe` and `probe` --------------------------------------------------------------

TEST_F(NvmlProbeTest, ScoreTagsAnUntaggedDirectoryWithTheNvidiaPlatform) {
  TempDir tmp;
  auto dir = placeholder_copy(tmp.path());
  ScopedEnv gpus("FAKE_NVML_GPUS", "h200,h200");
  ScopedEnv init("FAKE_NVML_INIT_ERROR", nullptr);
  ScopedEnv fail("FAKE_NVML_FAIL", nullptr);
  std::vector<std::string> warnings;
  auto probed = probe_platform_tag(fake_nvml(tmp.path() / "no-sysfs"), table, warnings);
  ASSERT_TRUE(probed.has_value());
  EXPECT_EQ(probed->name, "NVIDIA H200-SXM-141GB");

  DataContext data{source_dir()};
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(dir, errors);
  ASSERT_EQ(dirs.size(), 1u);
  ScoreOptions options;
  options.probed_platform = probed;
  DirectoryResult r = score_training_directory(dirs[0], data, options);
  EXPECT_EQ(r.platform.name, "NVIDIA H200-SXM-141GB");
  EXPECT_EQ(r.platform.source, "probe");
  EXPECT_TRUE(r.platform.known);
  EXPECT_FALSE(r.expected.has_value());  // no published NVIDIA figure is shipped
  EXPECT_NE(std::find(r.warnings.begin(), r.warnings.end(),
                      "the logs say \"8xSUBMISSION_PLATFORM_PLACEHOLDER\", not a known platform; tagged NVIDIA "
                      "H200-SXM-141GB from this node (probe)"),
            r.warnings.end());
}

// The binary with the stand-in NVML (or none) and no HIP runtime, the fake knobs set as given.
std::string mlperf_score(const std::string& nvml_library, const std::string& gpus) {
  return "env -u FAKE_NVML_INIT_ERROR -u FAKE_NVML_FAIL -u FAKE_NVML_DRIVER FAKE_NVML_GPUS=" + q(gpus) +
         " MLPERF_SCORE_HIP_LIBRARY=" + q(kNoHip) + " MLPERF_SCORE_NVML_LIBRARY=" + q(nvml_library) + " " +
         MLPERF_SCORE_BINARY;
}

TEST(CliNvmlProbe, TableAndJson) {
  TempDir empty;
  auto table = run_command(mlperf_score(kFakeNvml, "h100,h100") + " probe --sysfs-root " + q(empty.path()) + " 2>&1");
  EXPECT_EQ(table.status, 0) << table.out;
  EXPECT_NE(table.out.find("NVML         loaded "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(", driver 550.54.15, CUDA 12.4: 2 devices\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("0      0    NVIDIA  NVIDIA H100 80GB HBM3  -    0x2330     -    79.6 GiB  NVIDIA "
                           "H100-SXM5-80GB (by PCI device id)  NVML"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("0      0000:18:00.0   GPU-00000000-fake-4e56-4d4c-000000000000  1980 MHz      700 W"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("\n2 NVIDIA GPUs from NVML: NVIDIA H100-SXM5-80GB\n"), std::string::npos) << table.out;

  auto json = run_command(mlperf_score(kFakeNvml, "h100,b200") + " probe --format json --sysfs-root " + q(empty.path()));
  ASSERT_EQ(json.status, 0) << json.out;
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["nvml"]["state"], "loaded");
  EXPECT_EQ(doc["nvml"]["driver_version"], "550.54.15");
  EXPECT_EQ(doc["nvml"]["cuda_driver_version"], 12040);
  EXPECT_EQ(doc["nvml"]["cuda_driver_version_text"], "12.4");
  EXPECT_EQ(doc["nvml"]["device_count"], 2);
  EXPECT_EQ(doc["hip"]["state"], "not installed");
  EXPECT_EQ(doc["source"], "NVML");
  ASSERT_EQ(doc["devices"].size(), 2u);
  const auto& b200 = doc["devices"][1];
  EXPECT_EQ(b200["vendor"], "NVIDIA");
  EXPECT_EQ(b200["name"], "NVIDIA B200");
  EXPECT_EQ(b200["pci_bus_id"], "0000:28:00.0");
  EXPECT_EQ(b200["pci_device_id"], "0x2901");
  EXPECT_EQ(b200["memory_bytes"], 183359 * kMiB);
  EXPECT_EQ(b200["uuid"], "GPU-00000000-fake-4e56-4d4c-000000000001");
  EXPECT_EQ(b200["sm_clock_max_mhz"], 1965);
  EXPECT_DOUBLE_EQ(b200["power_limit_watts"].get<double>(), 1000.0);
  EXPECT_EQ(b200["platform"], "NVIDIA B200-SXM-180GB");
  EXPECT_TRUE(b200["compute_units"].is_null());
  EXPECT_TRUE(doc["platform"].is_null());  // two platforms
  EXPECT_EQ(doc["summary"], "2 NVIDIA GPUs from NVML: NVIDIA B200-SXM-180GB, NVIDIA H100-SXM5-80GB");

  auto error = run_command("FAKE_NVML_INIT_ERROR=9 MLPERF_SCORE_HIP_LIBRARY=" + q(kNoHip) +
                           " MLPERF_SCORE_NVML_LIBRARY=" + q(kFakeNvml) + " " + MLPERF_SCORE_BINARY +
                           " probe --sysfs-root " + q(empty.path()) + " 2>&1");
  EXPECT_EQ(error.status, 0) << error.out;
  EXPECT_NE(error.out.find("NVML         unusable: nvmlInit_v2 failed: Driver Not Loaded (NVML error 9) ("),
            std::string::npos)
      << error.out;
}

TEST(CliNvmlProbe, ScoreProbeTagsAPlaceholderDirectoryAndWritesNothingThere) {
  TempDir tmp;
  auto dir = placeholder_copy(tmp.path());
  auto before = snapshot(tmp.path());
  auto r = run_command(mlperf_score(kFakeNvml, "h100,h100") + " score --probe --sysfs-root " +
                       q(tmp.path() / "no-sysfs") + " " + q(dir) + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("platform   NVIDIA H100-SXM5-80GB (from probe)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mlperf-score: probe: 2 NVIDIA GPUs from NVML: NVIDIA H100-SXM5-80GB"), std::string::npos)
      << r.out;
  auto json = run_command(mlperf_score(kFakeNvml, "h100,h100") + " score --format json --probe --sysfs-root " +
                          q(tmp.path() / "no-sysfs") + " " + q(dir) + " 2>/dev/null");
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["results"][0]["platform"], "NVIDIA H100-SXM5-80GB");
  EXPECT_EQ(doc["results"][0]["platform_source"], "probe");
  EXPECT_EQ(snapshot(tmp.path()), before);

  // A system description naming another NVIDIA platform keeps it and gets a warning.
  write_file(tmp.path() / "training_results_v5.1/AMD/systems/MY_NODE.json",
             R"({"accelerator_model_name": "NVIDIA B200-SXM-180GB"})");
  auto other = run_command(mlperf_score(kFakeNvml, "h100") + " score --format json --probe --sysfs-root " +
                           q(tmp.path() / "no-sysfs") + " " + q(dir) + " 2>/dev/null");
  auto other_doc = nlohmann::json::parse(other.out);
  EXPECT_EQ(other_doc["results"][0]["platform"], "NVIDIA B200-SXM-180GB");
  EXPECT_EQ(other_doc["results"][0]["platform_source"], "system description");
  bool warned = false;
  for (const auto& w : other_doc["results"][0]["warnings"]) {
    warned |= w == "the system description says NVIDIA B200-SXM-180GB but this node holds NVIDIA H100-SXM5-80GB (probe)";
  }
  EXPECT_TRUE(warned) << other.out;
}

}  // namespace
}  // namespace mlperf
