// The v6.1 nameplate power file (nameplate.h). Every expected value and verdict is what PyYAML
// 6.0 and the package's _sum_power_capacity_watts (b66003e1) give for the same text under Python
// 3.11 (the messages are the tool's, after Python's exceptions); the package's verdicts on whole
// submissions are in package_round_test.cc.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "../test_support.h"
#include "mlperf/inference/nameplate.h"

namespace mlperf::inference {
namespace {

NameplatePower of(const std::string& yaml) { return nameplate_power_of_text(yaml, "sys_power.yaml"); }

// One node's PSU group: capacities as written, and Min PSUs Needed as written.
std::string node(const std::string& capacities, const std::string& minimum) {
  return "N: {PSUs: [" + capacities + "], Min PSUs Needed: " + minimum + "}\n";
}

nlohmann::json design(const std::string& yaml) {
  const NameplatePower n = of(yaml);
  EXPECT_FALSE(n.load_error) << yaml << ": " << *n.load_error;
  EXPECT_EQ(n.sum_error, "") << yaml;
  return n.design_power_watts;
}

std::string sum_error(const std::string& yaml) {
  const NameplatePower n = of(yaml);
  EXPECT_FALSE(n.load_error) << yaml;
  EXPECT_TRUE(n.design_power_watts.is_null()) << yaml;
  return n.sum_error;
}

std::string load_error(const std::string& yaml) {
  const NameplatePower n = of(yaml);
  EXPECT_TRUE(n.design_power_watts.is_null()) << yaml;
  return n.load_error.value_or("(loaded)");
}

TEST(NameplatePower, TheLargestNeededPsusOfEachGroupAreSummed) {
  // Three PSUs, two needed: 3000 + 2700.
  const nlohmann::json w = design("Node:\n  PSUs:\n    - PowerCapacityWatts: 2700\n    - PowerCapacityWatts: 3000\n"
                                  "    - PowerCapacityWatts: 2700\n  Min PSUs Needed: 2\n");
  EXPECT_TRUE(w.is_number_integer());
  EXPECT_EQ(w, 5700);
  // Groups anywhere below mappings and lists add up; keys match in any case; a PSU without
  // PowerCapacityWatts counts 0; more needed than listed takes them all; 0x10 is 16.
  EXPECT_EQ(design("Rack:\n  Nodes:\n    - psus:\n        - PowerCapacityWatts: 1000\n        - {}\n"
                   "      MIN PSUS NEEDED: 2\n    - PSUs: [{PowerCapacityWatts: 500}]\n      Min PSUs Needed: 5\n"
                   "  Switch:\n    PSUs: [{PowerCapacityWatts: 0x10}]\n    Min PSUs Needed: 1\n"),
            1516);
  // The capacity key is matched exactly, the group keys in any case (the last spelling wins).
  EXPECT_EQ(design("N: {PSUs: [{powercapacitywatts: 5}], Min PSUs Needed: 1}\n"), 0);
  EXPECT_EQ(design("N: {psus: [{PowerCapacityWatts: 5}], PSUS: [{PowerCapacityWatts: 7}], Min PSUs Needed: 1}\n"), 7);
  // PSUs without Min PSUs Needed is no group: nothing below it counts.
  EXPECT_EQ(design("N: {PSUs: [{PowerCapacityWatts: 5}]}\n"), 0);
  // A bare scalar document has no group.
  EXPECT_EQ(design("hello\n"), 0);
}

TEST(NameplatePower, MinPsusNeededSlicesAsPythonDoes) {
  EXPECT_EQ(design(node("{PowerCapacityWatts: 2700}, {PowerCapacityWatts: 100}", "")), 2800);  // None: all
  EXPECT_EQ(design(node("{PowerCapacityWatts: 5}, {PowerCapacityWatts: 7}, {PowerCapacityWatts: 6}", "-1")), 13);
  EXPECT_EQ(design(node("{PowerCapacityWatts: 5}, {PowerCapacityWatts: 7}", "on")), 7);  // True: one
  EXPECT_EQ(design(node("", "3")), 0);
  EXPECT_EQ(design("N: {PSUs: \"\", Min PSUs Needed: 3}\n"), 0);  // an empty text iterates nothing
}

TEST(NameplatePower, ScalarsResolveAsYaml11) {
  // 45:00 is 2700 (base 60), 1_000 is 1000, 010 is octal 8.
  EXPECT_EQ(design(node("{PowerCapacityWatts: 45:00}, {PowerCapacityWatts: 1_000}, {PowerCapacityWatts: 010}", "3")),
            3708);
  EXPECT_EQ(design(node("{PowerCapacityWatts: yes}", "1")), 1);
  // A float needs a dot, and its exponent a sign: 2.7e+3 is 2700.0, 2.7e3 and 1.0e3 are text.
  const nlohmann::json f = design(node("{PowerCapacityWatts: 2.7e+3}", "1"));
  EXPECT_TRUE(f.is_number_float());
  EXPECT_EQ(f.get<double>(), 2700.0);
  EXPECT_EQ(sum_error(node("{PowerCapacityWatts: 2.7e3}", "1")),
            "TypeError: unsupported operand type(s) for +: 'int' and 'str'");
  EXPECT_NE(sum_error(node("{PowerCapacityWatts: 1.0e3}", "1")), "");
  EXPECT_EQ(design(node("{PowerCapacityWatts: 1:30.5}", "true")).get<double>(), 90.5);
  EXPECT_EQ(design(node("{PowerCapacityWatts: .inf}", "1")), "inf");
  // 0b101 + 2.5: the int becomes a float when a float comes.
  EXPECT_EQ(design(node("{PowerCapacityWatts: 0b101}, {PowerCapacityWatts: 2.5}", "2")).get<double>(), 7.5);
  // A quoted number is text.
  EXPECT_NE(sum_error(node("{PowerCapacityWatts: \"2700\"}", "1")), "");
}

TEST(NameplatePower, SumsKeepPythonsIntAndFloatArithmetic) {
  // An int and a float of one value: the stable sort keeps their order, so the first is taken.
  EXPECT_TRUE(design(node("{PowerCapacityWatts: 1}, {PowerCapacityWatts: 1.0}", "1")).is_number_integer());
  EXPECT_TRUE(design(node("{PowerCapacityWatts: 1.0}, {PowerCapacityWatts: 1}", "1")).is_number_float());
  // An exact int sum, then a float: 2^53 + 1 rounds to 2^53 before 1.0 is added.
  const nlohmann::json w = design(
      "a: {PSUs: [{PowerCapacityWatts: 9007199254740993}], Min PSUs Needed: 1}\n"
      "b: {PSUs: [{PowerCapacityWatts: 1.0}], Min PSUs Needed: 1}\n");
  EXPECT_EQ(w.get<double>(), 9007199254740992.0);
}

TEST(NameplatePower, AliasesMergesAndRepeatedKeysLoadAsPyYamlLoadsThem) {
  // a: 1300; b is a's group again; c merges a's and needs two: 2500.
  EXPECT_EQ(design("a: &node\n  PSUs:\n    - PowerCapacityWatts: 1200\n    - PowerCapacityWatts: 1300\n"
                   "  Min PSUs Needed: 1\nb: *node\nc:\n  <<: *node\n  Min PSUs Needed: 2\n"),
            5100);
  EXPECT_EQ(design("Node: {PSUs: [{PowerCapacityWatts: 5}], Min PSUs Needed: 1}\n"
                   "Node: {PSUs: [{PowerCapacityWatts: 9}], Min PSUs Needed: 1}\n"),
            9);
  // Keys 1, 1.0 and true are one key in Python; its value is the last, and it is no text.
  EXPECT_EQ(sum_error("1: a\n1.0: b\ntrue: {}\n"), "AttributeError: 'int' object has no attribute 'lower'");
}

TEST(NameplatePower, WhatTheSumRaisesFailsTheCheck) {
  EXPECT_EQ(sum_error(node("{PowerCapacityWatts: 2700}", "\"1\"")),
            "TypeError: slice indices must be integers or None or have an __index__ method");
  EXPECT_EQ(sum_error(node("3", "1")), "AttributeError: 'int' object has no attribute 'get'");
  EXPECT_EQ(sum_error("N: {PSUs: {a: 1}, Min PSUs Needed: 1}\n"), "AttributeError: 'str' object has no attribute 'get'");
  EXPECT_EQ(sum_error("N: {PSUs: null, Min PSUs Needed: 3}\n"), "TypeError: 'NoneType' object is not iterable");
  EXPECT_EQ(sum_error("1: {PSUs: [], Min PSUs Needed: 1}\n"), "AttributeError: 'int' object has no attribute 'lower'");
  // Sorting needs every pair comparable, even where none is taken.
  EXPECT_EQ(sum_error(node("{PowerCapacityWatts: 5}, {PowerCapacityWatts: \"7\"}", "0")).rfind("TypeError: '<'", 0), 0u);
  EXPECT_EQ(sum_error(node("{PowerCapacityWatts: 5}, {PowerCapacityWatts: null}", "1")).rfind("TypeError: '<'", 0), 0u);
  // Two dates compare; none is taken, so nothing is summed.
  EXPECT_EQ(design(node("{PowerCapacityWatts: 2026-01-01}, {PowerCapacityWatts: 2026-02-01}", "0")), 0);
  // Aliases nested 30 deep, each level naming the one below twice: 2^30 paths to one PSU
  // group, each counted (Python walks them all; the sum is the same).
  std::string laughs = "l0: &l0 {PSUs: [{PowerCapacityWatts: 1}], Min PSUs Needed: 1}\n";
  for (int k = 1; k <= 30; ++k) laughs += fmt::format("l{}: &l{} [*l{}, *l{}]\n", k, k, k - 1, k - 1);
  EXPECT_EQ(design(laughs), (1LL << 31) - 1);  // l0 once, l1 twice, ... l30 2^30 times
  // A list holding itself: the sum recurses without end.
  EXPECT_EQ(sum_error("- &a [*a]\n"), "RecursionError: maximum recursion depth exceeded");
}

TEST(NameplatePower, AnEmptyDocumentIsNone) {
  for (const char* yaml : {"", "null\n", "~\n", "# nothing yet\n"}) {
    const NameplatePower n = of(yaml);
    EXPECT_TRUE(n.null_document) << yaml;
    EXPECT_FALSE(n.load_error) << yaml;
    EXPECT_TRUE(n.design_power_watts.is_null()) << yaml;
  }
}

TEST(NameplatePower, WhatYamlSafeLoadRaisesOnIsALoadError) {
  EXPECT_NE(load_error("a: [\n"), "(loaded)");
  EXPECT_EQ(load_error("Node:\n\tPSUs: []\n").rfind("line 2", 0), 0u) << load_error("Node:\n\tPSUs: []\n");
  EXPECT_EQ(load_error("a: 1\n---\nb: 2\n"), "line 2: expected a single document in the stream, but found another document");
  EXPECT_EQ(load_error("Node: !psu 1\n"), "line 1: could not determine a constructor for the tag '!psu'");
  EXPECT_EQ(load_error("Node: *x\n"), "line 1: found undefined alias 'x'");
  EXPECT_EQ(load_error("a: &x 1\nb: &x 2\n"), "line 2: found duplicate anchor 'x'");
  EXPECT_EQ(load_error("Node: 2026-02-29\n"), "line 1: ValueError: day is out of range for month");
  EXPECT_EQ(load_error("Node: 0000-01-01\n"), "line 1: ValueError: year 0 is out of range");
  EXPECT_EQ(load_error("a: =\n"), "line 1: could not determine a constructor for the tag 'tag:yaml.org,2002:value'");
  EXPECT_EQ(load_error("a: <<\n"), "line 1: could not determine a constructor for the tag 'tag:yaml.org,2002:merge'");
  EXPECT_EQ(load_error("a: !!int abc\n"), "line 1: ValueError: invalid literal for int() with base 10: 'abc'");
  EXPECT_EQ(load_error("a: 0x_\n"), "line 1: ValueError: invalid literal for int() with base 16: ''");
  EXPECT_EQ(load_error("a: !!bool maybe\n"), "line 1: KeyError: 'maybe'");
  EXPECT_EQ(load_error("? [1]\n: 2\n"), "line 1: while constructing a mapping: found unhashable key");
  EXPECT_EQ(load_error("<<: 5\n"), "line 1: while constructing a mapping: expected a mapping or list of mappings for merging");
  EXPECT_EQ(load_error("Node: \xff\n").rfind("UnicodeDecodeError: byte 6", 0), 0u);
  // PyYAML's composer recurses: a document nested 100,000 deep raises RecursionError, and
  // one nested 400 deep loads.
  EXPECT_EQ(load_error(std::string(100000, '[') + std::string(100000, ']')),
            "line 1: RecursionError: maximum recursion depth exceeded (nested deeper than 480)");
  EXPECT_EQ(design(std::string(400, '[') + std::string(400, ']')), 0);
  // `=` as a key is text.
  EXPECT_EQ(design("=: 1\n"), 0);
}

TEST(NameplatePower, TheSystemsPowerCapacityComesFirst) {
  // system_power_capacity, whatever its value, is the design power; the file is not judged.
  NameplateJudgment j = judge_nameplate_power(of(""), std::string("\"12 kW\""));
  EXPECT_TRUE(j.check.passed);
  EXPECT_EQ(j.design_power_watts, "12 kW");
  EXPECT_EQ(j.warning, "");
  // Without it, an empty file fails the check, naming the file.
  j = judge_nameplate_power(of(""), std::nullopt);
  EXPECT_FALSE(j.check.passed);
  EXPECT_EQ(j.check.message.rfind("sys_power.yaml is empty", 0), 0u) << j.check.message;
  // A sum that raises fails it too.
  j = judge_nameplate_power(of(node("3", "1")), std::nullopt);
  EXPECT_FALSE(j.check.passed);
  EXPECT_NE(j.check.message.find("AttributeError"), std::string::npos);
  // A missing file only warns; there is no design power.
  testing::TempDir tmp;
  const NameplatePower missing = read_nameplate_power(tmp.path() / "none_power.yaml");
  EXPECT_FALSE(missing.exists);
  j = judge_nameplate_power(missing, std::nullopt);
  EXPECT_TRUE(j.check.passed);
  EXPECT_TRUE(j.design_power_watts.is_null());
  EXPECT_NE(j.warning.find("none_power.yaml: the nameplate power file is missing"), std::string::npos);
  // A file read from disk sums as its text does.
  testing::write_file(tmp.path() / "sys_power.yaml", node("{PowerCapacityWatts: 2700}, {PowerCapacityWatts: 3000}", "1"));
  j = judge_nameplate_power(read_nameplate_power(tmp.path() / "sys_power.yaml"), std::nullopt);
  EXPECT_TRUE(j.check.passed);
  EXPECT_EQ(j.design_power_watts, 3000);
  EXPECT_EQ(j.check.value, 3000);
}

}  // namespace
}  // namespace mlperf::inference
