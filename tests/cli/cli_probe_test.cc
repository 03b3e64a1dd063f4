// `mlperf-score probe` and `score --probe`: outcomes without ROCm, the stand-in HIP runtime
// through MLPERF_SCORE_HIP_LIBRARY (the binary's real dlopen path), the fake sysfs trees, and
// tagging a placeholder-platform directory.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../test_support.h"

namespace mlperf {
namespace {

using testing::q;
using testing::example_system;
using testing::placeholder_copy;
using testing::read_file;
using testing::run_command;
using testing::snapshot;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;


std::string sysfs(const char* tree) { return q(source_dir() / "tests/data/sysfs" / tree); }

// The binary with a chosen HIP library ("/nonexistent" = none), no NVML (whatever the host has)
// and the fake knobs cleared.
std::string mlperf_score(const std::string& hip_library) {
  return "env -u FAKE_HIP_NO_DEVICE -u FAKE_HIP_RUNTIME_VERSION MLPERF_SCORE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "
         "MLPERF_SCORE_HIP_LIBRARY=" +
         q(hip_library) + " " + MLPERF_SCORE_BINARY;
}

const std::string kNoHip = "/nonexistent/libamdhip64.so";

TEST(CliProbe, WithoutHipLibraryOrKfdSaysSoAndExitsZero) {
  TempDir empty;
  auto r = run_command(mlperf_score(kNoHip) + " probe --sysfs-root " + q(empty.path()) + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("HIP runtime  not installed (/nonexistent/libamdhip64.so: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NVML         not installed (/nonexistent/libnvidia-ml.so.1: "), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("no GPU found (HIP runtime not installed; no KFD nodes; NVML not installed; no NVIDIA PCI device)"),
      std::string::npos)
      << r.out;
}

TEST(CliProbe, FakeHipLibraryThroughTheEnvironment) {
  TempDir empty;
  auto r = run_command(mlperf_score(MLPERF_SCORE_FAKE_HIP) + " probe --format json --sysfs-root " + q(empty.path()));
  ASSERT_EQ(r.status, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["hip"]["state"], "loaded");
  EXPECT_EQ(doc["hip"]["runtime_version_text"], "6.4.43483");
  EXPECT_EQ(doc["source"], "HIP runtime");
  ASSERT_EQ(doc["devices"].size(), 2u);
  EXPECT_EQ(doc["devices"][0]["name"], "AMD Instinct MI300X");
  EXPECT_EQ(doc["devices"][0]["vendor"], "AMD");
  EXPECT_FALSE(doc["devices"][0].contains("uuid"));  // NVIDIA's fields only on NVIDIA devices
  EXPECT_EQ(doc["nvml"]["state"], "not installed");
  EXPECT_EQ(doc["devices"][0]["platform"], "MI300X");
  EXPECT_EQ(doc["devices"][0]["pci_device_id"], "0x74a1");
  EXPECT_EQ(doc["devices"][0]["compute_units"], 304);
  EXPECT_EQ(doc["devices"][0]["sources"]["name"], "HIP runtime");
  EXPECT_EQ(doc["devices"][1]["platform"], "MI355X");
  EXPECT_EQ(doc["devices"][1]["gfx_target"], "gfx950");
  EXPECT_EQ(doc["physical_gpus"], 2);
  EXPECT_TRUE(doc["platform"].is_null());  // two platforms
}

TEST(CliProbe, FakeHipWithoutDeviceSaysTheRuntimeLoaded) {
  TempDir empty;
  auto r = run_command("FAKE_HIP_NO_DEVICE=1 MLPERF_SCORE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "
                       "MLPERF_SCORE_HIP_LIBRARY=" +
                       q(MLPERF_SCORE_FAKE_HIP) + " " + MLPERF_SCORE_BINARY + " probe --sysfs-root " + q(empty.path()) +
                       " 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("no device (hipErrorNoDevice = 100)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no GPU found (HIP runtime 6.4.43483 loaded, no device; no KFD nodes; NVML not installed; no "
                       "NVIDIA PCI device)"),
            std::string::npos)
      << r.out;
}

TEST(CliProbe, InstalledHipRuntime) {
  bool installed = false;
  for (const char* p : {"/usr/lib/x86_64-linux-gnu/libamdhip64.so", "/usr/lib/aarch64-linux-gnu/libamdhip64.so",
                        "/usr/lib/libamdhip64.so", "/opt/rocm/lib/libamdhip64.so"}) {
    installed |= std::filesystem::exists(p);
  }
  if (!installed) GTEST_SKIP() << "libamdhip64.so is not installed (Debian: libamdhip64-dev)";
  auto r = run_command("env -u MLPERF_SCORE_HIP_LIBRARY " + std::string(MLPERF_SCORE_BINARY) + " probe 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("HIP runtime  loaded ", 0), 0u) << r.out;
}

TEST(CliProbe, SysfsTreesTableAndJson) {
  auto table = run_command(mlperf_score(kNoHip) + " probe --sysfs-root " + sysfs("mi355x") + " 2>&1");
  EXPECT_EQ(table.status, 0);
  EXPECT_NE(table.out.find("AMD Instinct MI355X  gfx950  0x75a3     256  288.0 GiB  MI355X (by PCI device id)  sysfs"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("\n8 AMD GPUs from sysfs: MI355X\n"), std::string::npos) << table.out;

  auto cpx = run_command(mlperf_score(kNoHip) + " probe --format json --sysfs-root " + sysfs("mi300x_cpx"));
  ASSERT_EQ(cpx.status, 0);
  auto doc = nlohmann::json::parse(cpx.out);
  EXPECT_EQ(doc["platform"], "MI300X");
  EXPECT_EQ(doc["physical_gpus"], 1);
  ASSERT_EQ(doc["devices"].size(), 8u);
  for (const auto& d : doc["devices"]) {
    EXPECT_EQ(d["compute_units"], 38);
    EXPECT_EQ(d["partitions"], 8);
  }
  EXPECT_EQ(doc["sysfs"]["kfd_gpu_nodes"], 8);
  EXPECT_EQ(doc["hip"]["state"], "not installed");
}

TEST(CliProbe, UsageErrorsExitTwo) {
  EXPECT_EQ(run_command(mlperf_score(kNoHip) + " probe --format yaml 2>/dev/null").status, 2);
  // --sysfs-root without --probe would be silently ignored by score.
  EXPECT_EQ(run_command(mlperf_score(kNoHip) + " score --sysfs-root " + sysfs("mi355x") + " " +
                        q(example_system() / "llama31_8b") + " 2>/dev/null")
                .status,
            2);
}

TEST(CliScoreProbe, PlaceholderDirectoryIsTaggedFromTheProbe) {
  TempDir tmp;
  auto dir = placeholder_copy(tmp.path());
  auto before = snapshot(tmp.path());
  auto r = run_command(mlperf_score(kNoHip) + " score --probe --sysfs-root " + sysfs("mi355x") + " " + q(dir) +
                       " 2>/dev/null");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("platform   MI355X (from probe)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("expected       MI355X llama31_8b: published 99.71 minutes (about 100); measured 99.71"),
            std::string::npos)
      << r.out;
  auto json = run_command(mlperf_score(kNoHip) + " score --format json --probe --sysfs-root " + sysfs("mi355x") +
                          " " + q(dir) + " 2>/dev/null");
  auto doc = nlohmann::json::parse(json.out);
  const auto& res = doc["results"][0];
  EXPECT_EQ(res["platform"], "MI355X");
  EXPECT_EQ(res["platform_source"], "probe");
  EXPECT_DOUBLE_EQ(res["expected"]["published_minutes"].get<double>(), 99.71);
  EXPECT_EQ(snapshot(tmp.path()), before);

  // Without --probe the placeholder stays unknown and nothing is compared.
  auto plain = run_command(mlperf_score(kNoHip) + " score --format json " + q(dir) + " 2>/dev/null");
  auto plain_doc = nlohmann::json::parse(plain.out);
  EXPECT_EQ(plain_doc["results"][0]["platform_source"], "log");
  EXPECT_TRUE(plain_doc["results"][0]["expected"].is_null());
}

TEST(CliScoreProbe, DifferentPlatformWarnsAndNoGpuNeverAborts) {
  auto r = run_command(mlperf_score(kNoHip) + " score --format json --probe --sysfs-root " + sysfs("mi300x") + " " +
                       q(example_system() / "llama31_8b") + " 2>/dev/null");
  ASSERT_EQ(r.status, 0);
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["results"][0]["platform"], "MI355X");
  EXPECT_EQ(doc["results"][0]["platform_source"], "system description");
  bool warned = false;
  for (const auto& w : doc["results"][0]["warnings"]) {
    warned |= w == "the system description says MI355X but this node holds MI300X (probe)";
  }
  EXPECT_TRUE(warned) << r.out;

  TempDir empty;
  auto none = run_command(mlperf_score(kNoHip) + " score --probe --sysfs-root " + q(empty.path()) + " " +
                          q(example_system() / "llama31_8b") + " 2>&1 >/dev/null");
  EXPECT_EQ(none.status, 0);
  EXPECT_NE(none.out.find("warning: probe: no GPU found (HIP runtime not installed; no KFD nodes; NVML not installed; "
                           "no NVIDIA PCI device)"),
            std::string::npos)
      << none.out;
}

TEST(CliCheckProbe, PlaceholderIsTaggedAndAMismatchIsAPlatformWarning) {
  TempDir tmp;
  auto dir = placeholder_copy(tmp.path());
  auto r = run_command(mlperf_score(kNoHip) + " check --format json --probe --sysfs-root " + sysfs("mi355x") + " " +
                       q(dir) + " 2>/dev/null");
  // The copy has no <org>/systems/MY_NODE.json (so the platform is the probe's): the package
  // checker stops without it, the one failing check; the probe adds its own check.
  EXPECT_EQ(r.status, 1) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  std::vector<std::string> failing;
  for (const auto& c : doc["results"][0]["checks"]) {
    if (c["passed"] == false) failing.push_back(c["check"]);
  }
  EXPECT_EQ(failing, std::vector<std::string>{"system_description"}) << r.out;
  EXPECT_NE(r.out.find("\"platform\""), std::string::npos) << r.out;  // the extra check is listed

  // The shipped example names MI355X; on an MI300X node check warns but still passes.
  auto mismatch = run_command(mlperf_score(kNoHip) + " check --format github --probe --sysfs-root " +
                              sysfs("mi300x") + " " + q(example_system() / "llama31_8b") + " 2>/dev/null");
  EXPECT_EQ(mismatch.status, 0) << mismatch.out;
  EXPECT_NE(mismatch.out.find("::warning file=" + (example_system() / "llama31_8b").string() +
                              ",title=platform::the system description says MI355X but this node holds MI300X (probe)"),
            std::string::npos)
      << mismatch.out;
}

TEST(CliScoreProbe, AnotherVendorsAcceleratorKeepsItsTag) {
  // A system description naming an NVIDIA GPU is a platform too: the probe does not replace it.
  TempDir tmp;
  auto dir = placeholder_copy(tmp.path());
  write_file(tmp.path() / "training_results_v5.1/AMD/systems/MY_NODE.json",
             R"({"accelerator_model_name": "NVIDIA H100-SXM5-80GB"})");
  auto r = run_command(mlperf_score(kNoHip) + " score --format json --probe --sysfs-root " + sysfs("mi355x") + " " +
                       q(dir) + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  auto doc = nlohmann::json::parse(r.out);
  const auto& res = doc["results"][0];
  EXPECT_EQ(res["platform"], "NVIDIA H100-SXM5-80GB");
  EXPECT_EQ(res["platform_source"], "system description");
  EXPECT_TRUE(res["expected"].is_null());
  bool warned = false;
  for (const auto& w : res["warnings"]) {
    warned |= w == "the system description says NVIDIA H100-SXM5-80GB but this node holds MI355X (probe)";
  }
  EXPECT_TRUE(warned) << r.out;
}

}  // namespace
}  // namespace mlperf
