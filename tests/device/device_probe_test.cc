// The device probe: KFD/DRM parsing, the platform mapping (spec/devices.md), the fake sysfs
// trees of tests/data/sysfs, the HIP runtime through the stand-in libamdhip64.so
// (tests/device/fake_hip, loaded with dlopen exactly as the real one), and `--probe` tagging in
// score_training_directory.

#include "mlperf/device/device_probe.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "mlperf/training/score.h"
#include "../test_support.h"
#include "scoped_env.h"

namespace mlperf {
namespace {

using testing::example_system;
using testing::placeholder_copy;
using testing::read_file;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;

std::filesystem::path sysfs(const char* tree) { return source_dir() / "tests/data/sysfs" / tree; }

const char* kFakeHip = MLPERF_SCORE_FAKE_HIP;
// The AMD tests run as on a node without NVIDIA's library, even where one is installed.
const char* kNoNvml = "/nonexistent/libnvidia-ml.so.1";

using testing::ScopedEnv;

// How many times the stand-in's hipDeviceGetAttribute has been called in this process.
int fake_attribute_calls() {
  void* h = ::dlopen(kFakeHip, RTLD_NOW | RTLD_LOCAL);
  if (!h) return -1;
  auto fn = reinterpret_cast<int (*)()>(::dlsym(h, "fake_hip_attribute_calls"));
  return fn ? fn() : -1;
}

class DeviceProbeTest : public ::testing::Test {
 protected:
  PlatformTable table = PlatformTable::load(source_dir() / "configs/platforms.json");

  // Options reading only the given sysfs tree (no HIP runtime; NVML absent, whatever the host has).
  static ProbeOptions sysfs_only(const std::filesystem::path& root) {
    ProbeOptions o;
    o.sysfs_root = root;
    o.use_hip = false;
    o.nvml_library = kNoNvml;
    return o;
  }
  // Options loading the stand-in HIP runtime; sysfs from `root`; NVML absent.
  static ProbeOptions fake_hip(const std::filesystem::path& root) {
    ProbeOptions o;
    o.sysfs_root = root;
    o.hip_library = kFakeHip;
    o.nvml_library = kNoNvml;
    return o;
  }
};

TEST(KfdProperties, ParsesKeyValueLinesAndSkipsOthers) {
  auto p = parse_kfd_properties("simd_count 1216\ngfx_target_version 90402\nname gfx942\nbad\na 1 2\n"
                                "device_id 29857\nunique_id 18446744073709551615\n");
  EXPECT_EQ(p.size(), 4u);
  EXPECT_EQ(p.at("simd_count"), 1216u);
  EXPECT_EQ(p.at("gfx_target_version"), 90402u);
  EXPECT_EQ(p.at("device_id"), 0x74A1u);
  EXPECT_EQ(p.at("unique_id"), 18446744073709551615ull);
  EXPECT_EQ(p.count("name"), 0u);
  // Words split at any white space, as `>>` splits them; a last line without its newline.
  auto q = parse_kfd_properties("  spaced\t 7  \n\none\nlast 9");
  EXPECT_EQ(q, (std::map<std::string, std::uint64_t>{{"spaced", 7}, {"last", 9}}));
}

TEST(KfdProperties, GfxTargetFromVersion) {
  EXPECT_EQ(gfx_target_from_version(90402), "gfx942");
  EXPECT_EQ(gfx_target_from_version(90500), "gfx950");
  EXPECT_EQ(gfx_target_from_version(90010), "gfx90a");
  EXPECT_EQ(gfx_target_from_version(110000), "gfx1100");
  EXPECT_EQ(gfx_target_from_version(0), "");
}

TEST(KfdProperties, PciBusIdFromLocation) {
  EXPECT_EQ(pci_bus_id_from_location(0, 3072), "0000:0c:00.0");
  EXPECT_EQ(pci_bus_id_from_location(1, (0x8a << 8) | (1 << 3) | 3), "0001:8a:01.3");
}

TEST(HipVersion, Text) {
  EXPECT_EQ(hip_version_text(50221153), "5.2.21153");
  EXPECT_EQ(hip_version_text(60443483), "6.4.43483");
}

TEST_F(DeviceProbeTest, DeviceIdThenMarketingNameThenMemory) {
  auto m = match_device_platform(table, 0x74A1u, "", 0, "");
  ASSERT_NE(m.platform, nullptr);
  EXPECT_EQ(m.platform->name, "MI300X");
  EXPECT_EQ(m.basis, "PCI device id");
  m = match_device_platform(table, 0x75B3u, "", 0, "");  // MI355X virtual function
  ASSERT_NE(m.platform, nullptr);
  EXPECT_EQ(m.platform->name, "MI355X");
  // The device id wins over the name.
  m = match_device_platform(table, 0x74A1u, "AMD Instinct MI355X", 0, "");
  EXPECT_EQ(m.platform->name, "MI300X");
  m = match_device_platform(table, std::nullopt, "AMD Instinct MI325X", 0, "gfx942");
  ASSERT_NE(m.platform, nullptr);
  EXPECT_EQ(m.platform->name, "MI325X");
  EXPECT_EQ(m.basis, "marketing name");
  // 256 GiB on gfx942 is only MI325X; 192 GiB is MI300X or MI308X; 288 GiB MI350X or MI355X.
  const std::uint64_t gib = 1024ull * 1024 * 1024;
  m = match_device_platform(table, std::nullopt, "", 274861129728ull, "gfx942");
  ASSERT_NE(m.platform, nullptr);
  EXPECT_EQ(m.platform->name, "MI325X");
  EXPECT_EQ(m.basis, "memory size");
  EXPECT_EQ(match_device_platform(table, std::nullopt, "", 192 * gib, "gfx942").platform, nullptr);
  EXPECT_EQ(match_device_platform(table, std::nullopt, "", 288 * gib, "gfx950").platform, nullptr);
  // A gfx target rules out platforms of another: 128 GiB gfx950 is nothing.
  EXPECT_EQ(match_device_platform(table, std::nullopt, "", 128 * gib, "gfx950").platform, nullptr);
  EXPECT_EQ(match_device_platform(table, 0x7448u, "AMD Radeon PRO W7900", 48 * gib, "gfx1100").platform, nullptr);
}

TEST(KfdNodes, ReadsTheMI300XTree) {
  bool present = false;
  std::vector<std::string> warnings;
  auto nodes = read_kfd_nodes(sysfs("mi300x"), present, warnings);
  EXPECT_TRUE(present);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_FALSE(nodes[0].is_gpu());  // the CPU
  ASSERT_TRUE(nodes[1].is_gpu());
  EXPECT_EQ(nodes[1].node, 1);
  EXPECT_EQ(nodes[1].compute_units(), 304);
  EXPECT_EQ(nodes[1].memory_bytes, 206141652992ull);
  EXPECT_EQ(nodes[1].pci_bus_id(), "0000:0c:00.0");
  EXPECT_EQ(nodes[2].pci_bus_id(), "0000:22:00.0");
  EXPECT_EQ(nodes[2].get("device_id"), 0x74A1u);
}

TEST(KfdNodes, MissingTopologyIsNotAnError) {
  TempDir tmp;
  bool present = true;
  std::vector<std::string> warnings;
  EXPECT_TRUE(read_kfd_nodes(tmp.path(), present, warnings).empty());
  EXPECT_FALSE(present);
  EXPECT_TRUE(warnings.empty());
}

TEST_F(DeviceProbeTest, SysfsMI300X) {
  ProbeResult r = probe_devices(sysfs_only(sysfs("mi300x")), table);
  EXPECT_EQ(r.hip.state, HipState::kNotTried);
  EXPECT_EQ(r.source, "sysfs");
  EXPECT_EQ(r.kfd_nodes, 3);
  EXPECT_EQ(r.kfd_gpu_nodes, 2);
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.physical_gpus, 2);
  for (const auto& d : r.devices) {
    EXPECT_EQ(d.platform, "MI300X");
    EXPECT_EQ(d.platform_basis, "PCI device id");
    EXPECT_EQ(d.gfx_target, "gfx942");
    EXPECT_EQ(d.compute_units, 304);
    EXPECT_EQ(d.pci_device_id, 0x74A1u);
    EXPECT_EQ(d.field_sources.at("pci_device_id"), "sysfs (DRM)");
    EXPECT_EQ(d.marketing_name, "");  // this tree's DRM devices have no product_name
    EXPECT_EQ(d.partitions, 1);
  }
  EXPECT_EQ(r.devices[1].kfd_node, 2);
  EXPECT_EQ(r.devices[1].pci_bus_id, "0000:22:00.0");
  EXPECT_EQ(r.devices[1].vendor, "AMD");
  EXPECT_EQ(r.platform(), "MI300X");
  EXPECT_EQ(r.summary(), "2 AMD GPUs from sysfs: MI300X");
}

TEST_F(DeviceProbeTest, SysfsMI325X) {
  ProbeResult r = probe_devices(sysfs_only(sysfs("mi325x")), table);
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[0].platform, "MI325X");
  EXPECT_EQ(r.devices[0].marketing_name, "AMD Instinct MI325X");
  EXPECT_EQ(r.devices[0].memory_bytes, 274861129728ull);
  EXPECT_EQ(r.platform(), "MI325X");
  EXPECT_EQ(r.physical_gpus, 2);
}

TEST_F(DeviceProbeTest, SysfsMI355XInSpxMode) {
  ProbeResult r = probe_devices(sysfs_only(sysfs("mi355x")), table);
  ASSERT_EQ(r.devices.size(), 8u);
  EXPECT_EQ(r.physical_gpus, 8);
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    const auto& d = r.devices[i];
    EXPECT_EQ(d.index, static_cast<int>(i));
    EXPECT_EQ(d.platform, "MI355X");
    EXPECT_EQ(d.gfx_target, "gfx950");
    EXPECT_EQ(d.compute_units, 256);
    EXPECT_EQ(d.memory_bytes, 309220868096ull);
    EXPECT_EQ(d.physical_gpu, static_cast<int>(i));
    EXPECT_EQ(d.partitions, 1);
  }
  EXPECT_EQ(r.summary(), "8 AMD GPUs from sysfs: MI355X");
  std::vector<std::string> warnings;
  auto tag = probe_platform_tag(r, warnings);
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ(tag->name, "MI355X");
  EXPECT_EQ(tag->source, "probe");
  EXPECT_TRUE(tag->known);
  EXPECT_TRUE(warnings.empty());
}

TEST_F(DeviceProbeTest, SysfsMI300XSplitIntoCpxPartitions) {
  ProbeResult r = probe_devices(sysfs_only(sysfs("mi300x_cpx")), table);
  ASSERT_EQ(r.devices.size(), 8u);
  EXPECT_EQ(r.physical_gpus, 1);
  int total_cus = 0;
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    const auto& d = r.devices[i];
    EXPECT_EQ(d.platform, "MI300X");
    EXPECT_EQ(d.compute_units, 38);
    EXPECT_EQ(d.physical_gpu, 0);
    EXPECT_EQ(d.partition, static_cast<int>(i));
    EXPECT_EQ(d.partitions, 8);
    EXPECT_EQ(d.pci_device_id, 0x74A1u);
    total_cus += d.compute_units;
  }
  EXPECT_EQ(total_cus, 304);
  // The first partition is the PCI device; the others' ids come from KFD.
  EXPECT_EQ(r.devices[0].field_sources.at("pci_device_id"), "sysfs (DRM)");
  EXPECT_EQ(r.devices[0].marketing_name, "AMD Instinct MI300X");
  EXPECT_EQ(r.devices[7].field_sources.at("pci_device_id"), "sysfs (KFD)");
  EXPECT_EQ(r.summary(), "8 AMD GPU devices on 1 physical GPU, CPX mode from sysfs: MI300X");
  std::vector<std::string> warnings;
  auto tag = probe_platform_tag(r, warnings);
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ(tag->name, "MI300X");
}

TEST_F(DeviceProbeTest, UnknownDeviceIsListedWithItsRawFacts) {
  ProbeResult r = probe_devices(sysfs_only(sysfs("mixed")), table);
  ASSERT_EQ(r.devices.size(), 2u);
  const auto& radeon = r.devices[1];
  EXPECT_EQ(radeon.platform, "");
  EXPECT_EQ(radeon.gfx_target, "gfx1100");
  EXPECT_EQ(radeon.pci_device_id, 0x7448u);
  EXPECT_EQ(radeon.compute_units, 96);  // simd_count 192 / simd_per_cu 2
  EXPECT_EQ(radeon.marketing_name, "AMD Radeon PRO W7900");
  EXPECT_EQ(r.summary(), "2 AMD GPUs from sysfs: MI300X and 1 unknown");
  std::vector<std::string> warnings;
  auto tag = probe_platform_tag(r, warnings);
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ(tag->name, "MI300X");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("1 device(s) map to no known platform"), std::string::npos) << warnings[0];
}

TEST_F(DeviceProbeTest, DrmOnlyWhenKfdIsAbsent) {
  ProbeResult r = probe_devices(sysfs_only(sysfs("drm_only")), table);
  EXPECT_FALSE(r.kfd_present);
  EXPECT_EQ(r.drm_amd_devices, 1);  // the ASPEED BMC display is not AMD
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].platform, "MI355X");
  EXPECT_EQ(r.devices[0].pci_bus_id, "0000:05:00.0");
  EXPECT_EQ(r.devices[0].gfx_target, "gfx950");
  EXPECT_EQ(r.devices[0].field_sources.at("gfx_target"), "platform table");
  EXPECT_EQ(r.devices[0].compute_units, 0);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("DRM PCI ids only"), std::string::npos);
}

TEST_F(DeviceProbeTest, NoGpuOutcomesSayWhy) {
  TempDir empty;
  EXPECT_EQ(probe_devices(sysfs_only(sysfs("cpu_only")), table).summary(),
            "no GPU found (HIP runtime not used; KFD lists 1 node, no GPU; NVML not installed; no NVIDIA PCI device)");
  ProbeOptions absent = sysfs_only(empty.path());
  absent.use_hip = true;
  absent.hip_library = "/nonexistent/libamdhip64.so";
  ProbeResult r = probe_devices(absent, table);
  EXPECT_EQ(r.hip.state, HipState::kNotInstalled);
  EXPECT_NE(r.hip.message.find("/nonexistent/libamdhip64.so"), std::string::npos) << r.hip.message;
  EXPECT_EQ(r.summary(), "no GPU found (HIP runtime not installed; no KFD nodes; NVML not installed; no NVIDIA PCI device)");
  std::vector<std::string> warnings;
  EXPECT_FALSE(probe_platform_tag(r, warnings).has_value());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "probe: no GPU found (HIP runtime not installed; no KFD nodes; NVML not installed; no NVIDIA PCI device)");
}

TEST_F(DeviceProbeTest, LibraryWithoutHipEntryPointsIsUnusableNotFatal) {
  TempDir empty;
  ProbeOptions o = fake_hip(empty.path());
  o.hip_library = "libm.so.6";  // opens fine, exports no hip* symbol
  ProbeResult r = probe_devices(o, table);
  EXPECT_EQ(r.hip.state, HipState::kUnusable);
  EXPECT_NE(r.hip.message.find("hipGetDeviceCount"), std::string::npos);
  EXPECT_TRUE(r.devices.empty());
  EXPECT_EQ(r.summary(),
            "no GPU found (HIP runtime unusable: entry point hipGetDeviceCount not found; no KFD nodes; NVML not "
            "installed; no NVIDIA PCI device)");
}

TEST_F(DeviceProbeTest, FakeHipRuntimeThroughTheEnvironmentVariable) {
  TempDir empty;
  ScopedEnv lib("MLPERF_SCORE_HIP_LIBRARY", kFakeHip);
  ScopedEnv version("FAKE_HIP_RUNTIME_VERSION", nullptr);
  ScopedEnv none("FAKE_HIP_NO_DEVICE", nullptr);
  ProbeOptions o;
  o.sysfs_root = empty.path();  // HIP only: nothing in sysfs
  o.nvml_library = kNoNvml;
  int calls_before = fake_attribute_calls();
  ProbeResult r = probe_devices(o, table);
  EXPECT_EQ(fake_attribute_calls() - calls_before, 4);  // 2 devices × (CUs, device id)
  EXPECT_EQ(r.hip.state, HipState::kLoaded);
  EXPECT_NE(r.hip.library.find("fake_amdhip64"), std::string::npos) << r.hip.library;
  EXPECT_EQ(r.hip.runtime_version, 60443483);
  EXPECT_EQ(r.hip.device_count, 2);
  EXPECT_EQ(r.source, "HIP runtime");
  ASSERT_EQ(r.devices.size(), 2u);
  const auto& mi300x = r.devices[0];
  EXPECT_EQ(mi300x.marketing_name, "AMD Instinct MI300X");
  EXPECT_EQ(mi300x.pci_bus_id, "0000:0c:00.0");  // lower-cased from the runtime's "0000:0C:00.0"
  EXPECT_EQ(mi300x.compute_units, 304);
  EXPECT_EQ(mi300x.pci_device_id, 0x74A1u);
  EXPECT_EQ(mi300x.memory_bytes, 205822885888ull);
  EXPECT_EQ(mi300x.platform, "MI300X");
  EXPECT_EQ(mi300x.platform_basis, "PCI device id");
  EXPECT_EQ(mi300x.gfx_target, "gfx942");
  EXPECT_EQ(mi300x.field_sources.at("gfx_target"), "platform table");
  EXPECT_EQ(mi300x.field_sources.at("compute_units"), "HIP runtime");
  const auto& mi355x = r.devices[1];
  EXPECT_EQ(mi355x.platform, "MI355X");
  EXPECT_EQ(mi355x.compute_units, 256);
  EXPECT_EQ(mi355x.pci_device_id, 0x75A3u);
  EXPECT_EQ(r.physical_gpus, 2);
  EXPECT_EQ(r.summary(), "2 AMD GPUs from the HIP runtime: MI300X, MI355X");
  // Two platforms on one node: no tag.
  std::vector<std::string> warnings;
  EXPECT_FALSE(probe_platform_tag(r, warnings).has_value());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "probe: this node holds several platforms (MI300X, MI355X); not tagging by probe");
}

TEST_F(DeviceProbeTest, FakeHipDevicesAreCompletedFromSysfsByBusId) {
  ScopedEnv version("FAKE_HIP_RUNTIME_VERSION", nullptr);
  ScopedEnv none("FAKE_HIP_NO_DEVICE", nullptr);
  ProbeResult r = probe_devices(fake_hip(sysfs("mi300x")), table);
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[0].kfd_node, 1);  // 0000:0c:00.0
  EXPECT_EQ(r.devices[0].gfx_target, "gfx942");
  EXPECT_EQ(r.devices[0].field_sources.at("gfx_target"), "sysfs (KFD)");
  EXPECT_EQ(r.devices[1].kfd_node, -1);  // 0000:85:00.0 is not in that tree
  EXPECT_EQ(r.devices[1].field_sources.at("gfx_target"), "platform table");
}

TEST_F(DeviceProbeTest, OldHipRuntimeIsNotAskedForAttributes) {
  ScopedEnv version("FAKE_HIP_RUNTIME_VERSION", "40500000");
  ScopedEnv none("FAKE_HIP_NO_DEVICE", nullptr);
  int calls_before = fake_attribute_calls();
  ProbeResult r = probe_devices(fake_hip(sysfs("mi300x")), table);
  EXPECT_EQ(fake_attribute_calls(), calls_before);
  ASSERT_EQ(r.devices.size(), 2u);
  // MI300X: CUs and device id from its KFD node; MI355X: nothing but name and memory.
  EXPECT_EQ(r.devices[0].compute_units, 304);
  EXPECT_EQ(r.devices[0].field_sources.at("compute_units"), "sysfs (KFD)");
  EXPECT_EQ(r.devices[0].pci_device_id, 0x74A1u);
  EXPECT_EQ(r.devices[1].compute_units, 0);
  EXPECT_FALSE(r.devices[1].pci_device_id.has_value());
  EXPECT_EQ(r.devices[1].platform, "MI355X");
  EXPECT_EQ(r.devices[1].platform_basis, "marketing name");
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("HIP runtime 4.5.0"), std::string::npos) << r.warnings[0];
}

TEST_F(DeviceProbeTest, HipWithoutDeviceFallsBackToSysfs) {
  ScopedEnv none("FAKE_HIP_NO_DEVICE", "1");
  ScopedEnv version("FAKE_HIP_RUNTIME_VERSION", nullptr);
  ProbeResult r = probe_devices(fake_hip(sysfs("mi355x")), table);
  EXPECT_EQ(r.hip.state, HipState::kLoaded);
  EXPECT_EQ(r.hip.device_count, 0);
  EXPECT_EQ(r.hip.message, "hipErrorNoDevice = 100");
  EXPECT_EQ(r.source, "sysfs");
  EXPECT_EQ(r.devices.size(), 8u);
  EXPECT_EQ(r.platform(), "MI355X");
  TempDir empty;
  EXPECT_EQ(probe_devices(fake_hip(empty.path()), table).summary(),
            "no GPU found (HIP runtime 6.4.43483 loaded, no device; no KFD nodes; NVML not installed; no NVIDIA PCI "
            "device)");
}

// --- `--probe` in score_training_directory -------------------------------------------

class ScoreWithProbeTest : public DeviceProbeTest {
 protected:
  DataContext data{source_dir()};

  DirectoryResult score(const std::filesystem::path& dir, std::optional<PlatformTag> probed) {
    std::vector<DiscoveryError> errors;
    auto dirs = find_benchmark_dirs(dir, errors);
    EXPECT_EQ(dirs.size(), 1u);
    ScoreOptions options;
    options.probed_platform = std::move(probed);
    return score_training_directory(dirs.at(0), data, options);
  }
};

TEST_F(ScoreWithProbeTest, PlaceholderPlatformIsTaggedFromTheProbe) {
  TempDir tmp;
  auto dir = placeholder_copy(tmp.path());
  ASSERT_NE(read_file(dir / "result_0.txt").find("8xSUBMISSION_PLATFORM_PLACEHOLDER"), std::string::npos);

  DirectoryResult plain = score(dir, std::nullopt);
  EXPECT_FALSE(plain.platform.known);
  EXPECT_EQ(plain.platform.name, "8xSUBMISSION_PLATFORM_PLACEHOLDER");
  EXPECT_FALSE(plain.expected.has_value());

  std::vector<std::string> warnings;
  auto probed = probe_platform_tag(sysfs_only(sysfs("mi355x")), table, warnings);
  ASSERT_TRUE(probed.has_value());
  DirectoryResult r = score(dir, probed);
  EXPECT_EQ(r.platform.name, "MI355X");
  EXPECT_EQ(r.platform.source, "probe");
  EXPECT_TRUE(r.platform.known);
  ASSERT_TRUE(r.expected.has_value());
  EXPECT_DOUBLE_EQ(r.expected->expected.published_minutes, 99.71);
  EXPECT_NEAR(r.expected->measured_minutes, 99.70854353631518, 1e-9);
  EXPECT_TRUE(r.expected->within_tolerance);
  bool told = false;
  for (const auto& w : r.warnings) {
    told |= w == "the logs say \"8xSUBMISSION_PLATFORM_PLACEHOLDER\", not a known platform; tagged MI355X from this node (probe)";
  }
  EXPECT_TRUE(told);
}

TEST_F(ScoreWithProbeTest, DifferentKnownPlatformKeepsItsTagAndWarns) {
  std::vector<std::string> warnings;
  auto probed = probe_platform_tag(sysfs_only(sysfs("mi300x")), table, warnings);
  ASSERT_TRUE(probed.has_value());
  DirectoryResult r = score(example_system() / "llama31_8b", probed);
  EXPECT_EQ(r.platform.name, "MI355X");
  EXPECT_EQ(r.platform.source, "system description");
  ASSERT_TRUE(r.expected.has_value());
  EXPECT_EQ(r.expected->expected.platform, "MI355X");
  EXPECT_NE(std::find(r.warnings.begin(), r.warnings.end(),
                      "the system description says MI355X but this node holds MI300X (probe)"),
            r.warnings.end());
}

TEST_F(ScoreWithProbeTest, SamePlatformIsQuiet) {
  std::vector<std::string> warnings;
  auto probed = probe_platform_tag(sysfs_only(sysfs("mi355x")), table, warnings);
  DirectoryResult r = score(example_system() / "llama31_8b", probed);
  EXPECT_EQ(r.platform.source, "system description");
  for (const auto& w : r.warnings) EXPECT_EQ(w.find("probe"), std::string::npos) << w;
}

}  // namespace
}  // namespace mlperf
