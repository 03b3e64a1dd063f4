// Tests of the platform table (configs/platforms.json, spec/devices.md), platform tagging,
// expected results (configs/expected_results.json) and the expected-result comparison.

#include "mlperf/device/platform.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../test_support.h"

namespace mlperf {
namespace {

using testing::source_dir;
using testing::TempDir;
using testing::write_file;

using testing::rs;

class PlatformTableFile : public ::testing::Test {
 protected:
  PlatformTable table = PlatformTable::load(source_dir() / "configs/platforms.json");

  const PlatformInfo& info(const std::string& name) const {
    for (const auto& p : table.platforms) {
      if (p.name == name) return p;
    }
    throw std::logic_error("platform missing: " + name);
  }
};

// ---------------------------------------------------------------------------------------------
// PlatformTable::load

TEST_F(PlatformTableFile, HasTheSixPlatformsOfDevicesMd) {
  ASSERT_EQ(table.platforms.size(), 6u);
  struct Row {
    const char* name;
    const char* gfx;
    unsigned physical;
    unsigned virtual_function;
    double memory_gb;
    int compute_units;
  };
  const std::vector<Row> rows = {
      {"MI300A", "gfx942", 0x74A0, 0x74B4, 128, 228}, {"MI300X", "gfx942", 0x74A1, 0x74B5, 192, 304},
      {"MI308X", "gfx942", 0x74A2, 0x74B6, 192, 80},  {"MI325X", "gfx942", 0x74A5, 0x74B9, 256, 304},
      {"MI350X", "gfx950", 0x75A0, 0x75B0, 288, 256}, {"MI355X", "gfx950", 0x75A3, 0x75B3, 288, 256},
  };
  for (const auto& row : rows) {
    const PlatformInfo& p = info(row.name);
    EXPECT_EQ(p.vendor, "AMD") << row.name;
    EXPECT_EQ(p.gfx_target, row.gfx) << row.name;
    ASSERT_EQ(p.pci_device_ids.size(), 2u) << row.name;
    EXPECT_EQ(p.pci_device_ids[0], row.physical) << row.name;
    EXPECT_EQ(p.pci_device_ids[1], row.virtual_function) << row.name;
    EXPECT_DOUBLE_EQ(p.memory_gb, row.memory_gb) << row.name;
    EXPECT_EQ(p.compute_units, row.compute_units) << row.name;
  }
}

TEST_F(PlatformTableFile, MI355XDetails) {
  const PlatformInfo& p = info("MI355X");
  EXPECT_EQ(p.gfx_target, "gfx950");
  EXPECT_EQ(p.pci_device_ids, (std::vector<unsigned>{0x75A3u, 0x75B3u}));
  EXPECT_DOUBLE_EQ(p.memory_gb, 288.0);
  EXPECT_EQ(p.compute_units, 256);
}

TEST(PlatformTableLoad, MissingFileThrowsNamingIt) {
  TempDir dir;
  auto file = dir.path() / "no_platforms.json";
  try {
    PlatformTable::load(file);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST(PlatformTableLoad, MalformedJsonThrowsNamingFile) {
  TempDir dir;
  auto file = dir.path() / "platforms.json";
  write_file(file, R"({"platforms": [{"name": "MI355X", )");
  try {
    PlatformTable::load(file);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST(PlatformTableLoad, BadDeviceIdThrowsNamingFile) {
  TempDir dir;
  auto file = dir.path() / "platforms.json";
  write_file(file, R"({"platforms": [{"name": "MI355X", "pci_device_ids": ["zzz"]}]})");
  try {
    PlatformTable::load(file);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// PlatformTable::match

TEST_F(PlatformTableFile, MatchesNamesAsLogged) {
  struct Case {
    const char* text;
    const char* platform;
  };
  for (const Case& c : {Case{"AMD Instinct MI355X", "MI355X"}, Case{"8xMI325X_2xEPYC_9755", "MI325X"},
                        Case{"MI300X_EPYC_9575F_pytorch", "MI300X"}, Case{"mi350x", "MI350X"},
                        Case{"MI300A", "MI300A"}, Case{"1xMI355X", "MI355X"}, Case{"MI355X", "MI355X"},
                        Case{"amd instinct mi308x", "MI308X"}}) {
    const PlatformInfo* p = table.match(c.text);
    ASSERT_NE(p, nullptr) << c.text;
    EXPECT_EQ(p->name, c.platform) << c.text;
  }
}

TEST_F(PlatformTableFile, UnknownNamesDoNotMatch) {
  for (const char* text : {"8xSUBMISSION_PLATFORM_PLACEHOLDER", "NVIDIA B200", "", "MI300", "MI250X", "gfx950"}) {
    EXPECT_EQ(table.match(text), nullptr) << '"' << text << '"';
  }
}

TEST(PlatformMatch, LongestNameWins) {
  PlatformTable t;
  PlatformInfo short_one;
  short_one.name = "MI300";
  PlatformInfo long_one;
  long_one.name = "MI300X";
  t.platforms = {short_one, long_one};
  const PlatformInfo* p = t.match("8xMI300X_2xEPYC");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name, "MI300X");
  // Order in the table does not matter.
  t.platforms = {long_one, short_one};
  p = t.match("8xMI300X_2xEPYC");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name, "MI300X");
  p = t.match("MI300A");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name, "MI300");
}

// ---------------------------------------------------------------------------------------------
// tag_platform: system description known > log known > raw accelerator name > raw logged > empty

TEST_F(PlatformTableFile, TagPrefersKnownSystemDescription) {
  PlatformTag tag = tag_platform(table, "AMD Instinct MI355X", {"8xMI325X_2xEPYC_9755"});
  EXPECT_EQ(tag.name, "MI355X");
  EXPECT_EQ(tag.source, "system description");
  EXPECT_TRUE(tag.known);
}

TEST_F(PlatformTableFile, TagFallsBackToKnownLoggedPlatform) {
  PlatformTag tag = tag_platform(table, "Some Custom Accelerator", {"", "SUBMISSION_PLATFORM_PLACEHOLDER",
                                                                    "8xMI325X_2xEPYC_9755", "1xMI355X"});
  EXPECT_EQ(tag.name, "MI325X");  // the first known one
  EXPECT_EQ(tag.source, "log");
  EXPECT_TRUE(tag.known);

  PlatformTag no_description = tag_platform(table, "", {"MI300X_EPYC_9575F_pytorch"});
  EXPECT_EQ(no_description.name, "MI300X");
  EXPECT_EQ(no_description.source, "log");
  EXPECT_TRUE(no_description.known);
}

TEST_F(PlatformTableFile, TagFallsBackToRawAcceleratorName) {
  PlatformTag tag = tag_platform(table, "Some Custom Accelerator", {"8xSUBMISSION_PLATFORM_PLACEHOLDER"});
  EXPECT_EQ(tag.name, "Some Custom Accelerator");
  EXPECT_EQ(tag.source, "system description");
  EXPECT_FALSE(tag.known);
}

TEST_F(PlatformTableFile, TagFallsBackToRawLoggedValue) {
  PlatformTag tag = tag_platform(table, "", {"", "8xSUBMISSION_PLATFORM_PLACEHOLDER", "NVIDIA B200"});
  EXPECT_EQ(tag.name, "8xSUBMISSION_PLATFORM_PLACEHOLDER");  // first non-empty
  EXPECT_EQ(tag.source, "log");
  EXPECT_FALSE(tag.known);
}

TEST_F(PlatformTableFile, TagEmptyWhenNothingNamesOne) {
  PlatformTag none = tag_platform(table, "", {});
  EXPECT_EQ(none.name, "");
  EXPECT_EQ(none.source, "");
  EXPECT_FALSE(none.known);

  PlatformTag blanks = tag_platform(table, "", {"", ""});
  EXPECT_EQ(blanks.name, "");
  EXPECT_EQ(blanks.source, "");
  EXPECT_FALSE(blanks.known);
}

// ---------------------------------------------------------------------------------------------
// ExpectedResults

class ExpectedResultsFile : public ::testing::Test {
 protected:
  ExpectedResults expected = ExpectedResults::load(source_dir() / "configs/expected_results.json");
};

// The six figures of AMD's v5.1 guide, each with its "about" figure, then the five of the
// v6.0 round (the official summarizer's scores of AMD's published logs; no "about" figure).
TEST_F(ExpectedResultsFile, LoadsThePublishedFiguresOfEachRound) {
  ASSERT_EQ(expected.results.size(), 11u);
  for (std::size_t i = 0; i < expected.results.size(); ++i) {
    const ExpectedResult& r = expected.results[i];
    EXPECT_EQ(r.ruleset, rs(i < 6 ? "5.1.0" : "6.0.0")) << r.benchmark << " " << r.platform;
    EXPECT_FALSE(r.source.empty());
    EXPECT_EQ(r.about_minutes.has_value(), i < 6) << r.benchmark << " " << r.platform;
  }
  const ExpectedResult* v60 = expected.find(rs("6.0.0"), "llama31_8b", "MI355X");
  ASSERT_NE(v60, nullptr);
  EXPECT_DOUBLE_EQ(v60->published_minutes, 86.84);
  EXPECT_NE(v60->source.find("data/oracles/training_v6.0.jsonl"), std::string::npos);
}

TEST_F(ExpectedResultsFile, FindsLlama2OnMI300X) {
  const ExpectedResult* r = expected.find(rs("5.1.0"), "llama2_70b_lora", "MI300X");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->benchmark, "llama2_70b_lora");
  EXPECT_EQ(r->platform, "MI300X");
  EXPECT_DOUBLE_EQ(r->published_minutes, 27.95);
  ASSERT_TRUE(r->about_minutes.has_value());
  EXPECT_DOUBLE_EQ(*r->about_minutes, 28.0);
}

TEST_F(ExpectedResultsFile, FindsEachPublishedFigure) {
  struct Case {
    const char* benchmark;
    const char* platform;
    double published;
    double about;
  };
  for (const Case& c : {Case{"llama2_70b_lora", "MI355X", 10.18, 10}, Case{"llama2_70b_lora", "MI350X", 12.23, 12},
                        Case{"llama2_70b_lora", "MI325X", 21.05, 21}, Case{"llama31_8b", "MI355X", 99.71, 100},
                        Case{"llama31_8b", "MI350X", 122.93, 123}}) {
    const ExpectedResult* r = expected.find(rs("5.1.0"), c.benchmark, c.platform);
    ASSERT_NE(r, nullptr) << c.benchmark << " " << c.platform;
    EXPECT_DOUBLE_EQ(r->published_minutes, c.published) << c.benchmark << " " << c.platform;
    ASSERT_TRUE(r->about_minutes.has_value());
    EXPECT_DOUBLE_EQ(*r->about_minutes, c.about) << c.benchmark << " " << c.platform;
  }
}

TEST_F(ExpectedResultsFile, NothingOutsideThePublishedFigures) {
  EXPECT_EQ(expected.find(rs("6.0.0"), "llama2_70b_lora", "MI325X"), nullptr);
  EXPECT_EQ(expected.find(rs("6.0.0"), "llama31_8b", "MI325X"), nullptr);
  EXPECT_EQ(expected.find(rs("6.1.0"), "llama2_70b_lora", "MI355X"), nullptr);
  EXPECT_EQ(expected.find(rs("5.1.0"), "llama31_8b", "MI300X"), nullptr);
  EXPECT_EQ(expected.find(rs("5.1.0"), "flux1", "MI355X"), nullptr);
  EXPECT_EQ(expected.find(rs("5.1.0"), "llama2_70b_lora", "mi355x"), nullptr);  // exact names
}

TEST(ExpectedResultsLoad, MissingFileThrowsNamingIt) {
  TempDir dir;
  auto file = dir.path() / "no_expected.json";
  try {
    ExpectedResults::load(file);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST(ExpectedResultsLoad, BadRulesetThrowsNamingFile) {
  TempDir dir;
  auto file = dir.path() / "expected.json";
  write_file(file, R"({"results": [{"ruleset": "v5", "benchmark": "x", "platform": "MI355X",
                       "published_minutes": 1}]})");
  try {
    ExpectedResults::load(file);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST(ExpectedResultsLoad, AboutMinutesIsOptional) {
  TempDir dir;
  auto file = dir.path() / "expected.json";
  write_file(file, R"({"results": [{"ruleset": "5.1", "benchmark": "flux1", "platform": "MI355X",
                       "published_minutes": 42.5, "about_minutes": null}]})");
  ExpectedResults e = ExpectedResults::load(file);
  const ExpectedResult* r = e.find(rs("5.1.0"), "flux1", "MI355X");
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(r->published_minutes, 42.5);
  EXPECT_FALSE(r->about_minutes.has_value());
  EXPECT_EQ(r->source, "");
}

// ---------------------------------------------------------------------------------------------
// compare_expected

ExpectedResult published(double minutes) {
  ExpectedResult r;
  r.ruleset = rs("5.1.0");
  r.benchmark = "llama2_70b_lora";
  r.platform = "MI355X";
  r.published_minutes = minutes;
  r.about_minutes = 10;
  return r;
}

TEST(CompareExpected, DeltaPercentAboveThePublishedFigure) {
  const double measured = 10.18474574915825;
  ExpectedComparison c = compare_expected(published(10.18), measured, 5.0);
  EXPECT_DOUBLE_EQ(c.measured_minutes, measured);
  EXPECT_DOUBLE_EQ(c.expected.published_minutes, 10.18);
  EXPECT_EQ(c.expected.platform, "MI355X");
  EXPECT_DOUBLE_EQ(c.tolerance_percent, 5.0);
  EXPECT_NEAR(c.delta_percent, 0.0466183610, 1e-9);
  EXPECT_DOUBLE_EQ(c.delta_percent, (measured - 10.18) / 10.18 * 100.0);
  EXPECT_TRUE(c.within_tolerance);

  ExpectedComparison tight = compare_expected(published(10.18), measured, 0.01);
  EXPECT_NEAR(tight.delta_percent, 0.0466183610, 1e-9);
  EXPECT_FALSE(tight.within_tolerance);
}

TEST(CompareExpected, DeltaPercentBelowThePublishedFigure) {
  ExpectedComparison c = compare_expected(published(10.0), 9.0, 5.0);
  EXPECT_DOUBLE_EQ(c.delta_percent, -10.0);
  EXPECT_FALSE(c.within_tolerance);  // |−10| > 5

  ExpectedComparison loose = compare_expected(published(10.0), 9.0, 10.5);
  EXPECT_TRUE(loose.within_tolerance);

  ExpectedComparison close = compare_expected(published(10.0), 9.8, 5.0);
  EXPECT_NEAR(close.delta_percent, -2.0, 1e-12);
  EXPECT_TRUE(close.within_tolerance);
}

TEST(CompareExpected, ToleranceBoundaryIsInclusive) {
  // 12.5 → 10 is exactly +25 % in binary floating point.
  ExpectedComparison above = compare_expected(published(10.0), 12.5, 25.0);
  EXPECT_DOUBLE_EQ(above.delta_percent, 25.0);
  EXPECT_TRUE(above.within_tolerance);
  ExpectedComparison below = compare_expected(published(10.0), 7.5, 25.0);
  EXPECT_DOUBLE_EQ(below.delta_percent, -25.0);
  EXPECT_TRUE(below.within_tolerance);
  EXPECT_FALSE(compare_expected(published(10.0), 12.5, 24.99).within_tolerance);
  EXPECT_FALSE(compare_expected(published(10.0), 7.5, 24.99).within_tolerance);
}

TEST(CompareExpected, ExactMatchIsZero) {
  ExpectedComparison c = compare_expected(published(27.95), 27.95, 0.0);
  EXPECT_EQ(c.delta_percent, 0.0);
  EXPECT_TRUE(c.within_tolerance);
}

}  // namespace
}  // namespace mlperf
