// The official seed checker's rules (seeds.h; mlperf_logging/package_checker/seed_checker.py):
// Python's int() on each seed, the (file, lineno, seed) identity, and the findings per run.

#include "mlperf/training/seeds.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace mlperf {
namespace {

using nlohmann::json;

std::optional<std::string> int_of(const std::string& json_text) {
  return python_int_text(json::parse(json_text), json_text);
}

TEST(PythonInt, NumbersAsIntReadsThem) {
  EXPECT_EQ(int_of("4242"), "4242");
  EXPECT_EQ(int_of("-17"), "-17");
  EXPECT_EQ(int_of("4242.0"), "4242");
  EXPECT_EQ(int_of("4242.7"), "4242");   // truncation toward zero
  EXPECT_EQ(int_of("-3.9"), "-3");
  EXPECT_EQ(int_of("-0.5"), "0");
  EXPECT_EQ(int_of("1e20"), "100000000000000000000");
  EXPECT_EQ(int_of("true"), "1");
  EXPECT_EQ(int_of("false"), "0");
  // Beyond 64 bits nlohmann keeps a double; the JSON text keeps every digit, as Python does.
  EXPECT_EQ(int_of("123456789012345678901234567890"), "123456789012345678901234567890");
  EXPECT_EQ(python_int_text(json::parse("18446744073709551615")), "18446744073709551615");
}

TEST(PythonInt, StringsFollowIntOfStr) {
  EXPECT_EQ(int_of("\"42\""), "42");
  EXPECT_EQ(int_of("\"  42\\n\""), "42");
  EXPECT_EQ(int_of("\"+42\""), "42");
  EXPECT_EQ(int_of("\"-0042\""), "-42");
  EXPECT_EQ(int_of("\"4_242\""), "4242");
  EXPECT_EQ(int_of("\"-0\""), "0");
  EXPECT_EQ(int_of("\"4__242\""), std::nullopt);
  EXPECT_EQ(int_of("\"_42\""), std::nullopt);
  EXPECT_EQ(int_of("\"42_\""), std::nullopt);
  EXPECT_EQ(int_of("\"4.0\""), std::nullopt);
  EXPECT_EQ(int_of("\"0x10\""), std::nullopt);
  EXPECT_EQ(int_of("\"abc\""), std::nullopt);
  EXPECT_EQ(int_of("\"\""), std::nullopt);
  EXPECT_EQ(int_of("\"-\""), std::nullopt);
}

TEST(PythonInt, WhatIntRaisesOnIsNone) {
  EXPECT_EQ(int_of("null"), std::nullopt);
  EXPECT_EQ(int_of("[1]"), std::nullopt);
  EXPECT_EQ(int_of("{\"a\": 1}"), std::nullopt);
}

SeedRecord record(const std::string& value, const std::string& metadata, std::uint64_t line = 7) {
  return read_seed_record(json::parse(value), json::parse(metadata), line, value);
}

TEST(SeedRecord, ReadsFileLinenoAndSeed) {
  SeedRecord r = record("406", R"({"file": "/workspace/llm/pretrain.py", "lineno": 601})");
  EXPECT_EQ(r.line, 7u);
  EXPECT_EQ(r.source, "/workspace/llm/pretrain.py");
  EXPECT_EQ(r.lineno, "601");
  EXPECT_EQ(r.seed, "406");
  EXPECT_EQ(r.problem, "");
}

// The unparsed reading (read_plain_seed_record) gives read_seed_record's record for the
// plain form and declines everything else: each text here is one the scanner accepts.
TEST(SeedRecord, PlainFormReadWithoutParsingEqualsTheParsedReading) {
  struct Case {
    std::string value, metadata;
    bool plain;
  };
  const std::vector<Case> cases = {
      {"406", R"({"file": "/workspace/llm/pretrain.py", "lineno": 601})", true},
      {"0", R"({"lineno": 0, "file": ""})", true},
      {"-0", R"({"file": "a", "lineno": 1})", true},
      {"-42", R"({"file": "a", "lineno": 10})", true},
      {"123456789012345678901234567890", R"({"file": "a b", "lineno": 123456789012345678})", true},
      {"7", R"({"file": "x", "lineno": 2, "file": "y"})", true},  // the last "file" counts
      {"7", R"({"file": "x", "lineno": 1234567890123456789})", false},
      {"7", R"({"file": "x", "lineno": -1})", false},
      {"7", R"({"file": "x", "lineno": 1.0})", false},
      {"7", R"({"file": "x", "lineno": "1"})", false},
      {"7", R"({"file": "x\"y", "lineno": 1})", false},
      {"7", R"({"file": "x\\y", "lineno": 1})", false},
      {"7", R"({"file": 3, "lineno": 1})", false},
      {"7", R"({"lineno": 1})", false},
      {"7", R"({"file": "x"})", false},
      {"7", "{}", false},
      {"7.5", R"({"file": "x", "lineno": 1})", false},
      {"\"7\"", R"({"file": "x", "lineno": 1})", false},
      {"true", R"({"file": "x", "lineno": 1})", false},
      {"null", R"({"file": "x", "lineno": 1})", false},
  };
  for (const auto& c : cases) {
    const std::optional<SeedRecord> plain = read_plain_seed_record(c.value, c.metadata, 9);
    ASSERT_EQ(plain.has_value(), c.plain) << c.value << " " << c.metadata;
    if (!plain) continue;
    const SeedRecord parsed = record(c.value, c.metadata, 9);
    EXPECT_EQ(plain->line, parsed.line);
    EXPECT_EQ(plain->source, parsed.source) << c.metadata;
    EXPECT_EQ(plain->lineno, parsed.lineno) << c.metadata;
    EXPECT_EQ(plain->seed, parsed.seed) << c.value;
    EXPECT_EQ(plain->identity, parsed.identity) << c.value << " " << c.metadata;
    EXPECT_EQ(plain->problem, "");
  }
  EXPECT_EQ(read_plain_seed_record("406", R"({"file": "f.py", "lineno": 601})", 1)->identity, "sf.py\x1fn601\x1f" "406");
}

TEST(SeedRecord, IdentityComparesAsPythonTuples) {
  const std::string base = record("406", R"({"file": "a.py", "lineno": 601})").identity;
  EXPECT_EQ(record("406.9", R"({"file": "a.py", "lineno": 601})").identity, base);    // int(406.9) == 406
  EXPECT_EQ(record("\"406\"", R"({"file": "a.py", "lineno": 601})").identity, base);  // int("406") == 406
  EXPECT_EQ(record("406", R"({"file": "a.py", "lineno": 601.0})").identity, base);    // 601.0 == 601
  EXPECT_NE(record("406", R"({"file": "a.py", "lineno": "601"})").identity, base);    // "601" != 601
  EXPECT_NE(record("406", R"({"file": "b.py", "lineno": 601})").identity, base);
  EXPECT_NE(record("407", R"({"file": "a.py", "lineno": 601})").identity, base);
  EXPECT_EQ(record("406", R"({"file": "a.py", "lineno": 601.5})").lineno, "601.5");
  EXPECT_EQ(record("1", R"({"file": "a.py", "lineno": true})").identity,
            record("1", R"({"file": "a.py", "lineno": 1})").identity);  // True == 1
}

TEST(SeedRecord, WhatTheOfficialCheckerRaisesOnIsAProblem) {
  EXPECT_EQ(record("406", R"({"lineno": 601})").problem, "metadata has no 'file' (KeyError)");
  EXPECT_EQ(record("406", R"({"file": "a.py"})").problem, "metadata has no 'lineno' (KeyError)");
  EXPECT_EQ(record("\"abc\"", R"({"file": "a.py", "lineno": 1})").problem, "int() cannot read the seed \"abc\"");
  EXPECT_EQ(record("null", R"({"file": "a.py", "lineno": 1})").problem, "int() cannot read the seed null");
  EXPECT_EQ(record("1", R"({"file": ["a.py"], "lineno": 1})").problem,
            "metadata file or lineno is a list or an object (unhashable)");
  EXPECT_EQ(record("1", "\"text\"").problem, "metadata is not an object");
}

RunSeeds run(const std::string& file, std::vector<SeedRecord> records) { return {file, std::move(records), {}}; }

SeedRecord seed(const std::string& value, std::uint64_t line = 9, const std::string& lineno = "601") {
  return record(value, R"({"file": "/w/pretrain.py", "lineno": )" + lineno + "}", line);
}

TEST(CheckSeeds, DistinctSeedsPass) {
  EXPECT_TRUE(check_seeds({run("d/result_0.txt", {seed("1")}), run("d/result_1.txt", {seed("2")})}).empty());
}

TEST(CheckSeeds, ASeedRepeatedOnTheSameLineIsAnErrorAtTheLaterRun) {
  auto f = check_seeds({run("d/result_0.txt", {seed("4242")}), run("d/result_1.txt", {seed("4242", 12)}),
                        run("d/result_2.txt", {seed("4242", 13)})});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_TRUE(f[0].error);
  EXPECT_EQ(f[0].file, "d/result_1.txt");
  EXPECT_EQ(f[0].line, 12u);
  EXPECT_EQ(f[0].message,
            "logs seed 4242 on /w/pretrain.py:601, as result_0.txt already does: each run needs its own seed");
  EXPECT_EQ(f[1].file, "d/result_2.txt");
  EXPECT_EQ(f[1].message,
            "logs seed 4242 on /w/pretrain.py:601, as result_0.txt already does: each run needs its own seed");
}

TEST(CheckSeeds, TheSameSeedOnAnotherLineDoesNotClash) {
  EXPECT_TRUE(check_seeds({run("d/result_0.txt", {seed("5")}), run("d/result_1.txt", {seed("5", 9, "602")})}).empty());
}

TEST(CheckSeeds, FloatsThatTruncateToOneSeedClash) {
  auto f = check_seeds({run("d/result_0.txt", {seed("4242.2")}), run("d/result_1.txt", {seed("4242.9")})});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].file, "d/result_1.txt");
}

TEST(CheckSeeds, NoSeedIsAnErrorTwoSeedsAWarning) {
  auto f = check_seeds({run("d/result_0.txt", {}), run("d/result_1.txt", {seed("1", 9), seed("2", 30, "700")})});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_TRUE(f[0].error);
  EXPECT_EQ(f[0].message, "logs no seed (an MLLOG `seed` event is required)");
  EXPECT_FALSE(f[1].error);
  EXPECT_EQ(f[1].line, 30u);
  EXPECT_EQ(f[1].message, "logs more than one seed: 1 (line 9), 2 (line 30)");
}

TEST(CheckSeeds, OneRunLoggingItsSeedTwiceOnOneLineClashesWithItself) {
  auto f = check_seeds({run("d/result_0.txt", {seed("3", 9), seed("3", 10)})});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_FALSE(f[0].error);  // more than one seed
  EXPECT_TRUE(f[1].error);
  EXPECT_EQ(f[1].line, 10u);
}

TEST(CheckSeeds, AnUnreadableSeedSkipsTheRunWithAnError) {
  auto f = check_seeds({run("d/result_0.txt", {seed("\"x\"", 9)}), run("d/result_1.txt", {seed("1")})});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].file, "d/result_0.txt");
  EXPECT_EQ(f[0].line, 9u);
  EXPECT_EQ(f[0].message, "the seed cannot be read: int() cannot read the seed \"x\"");

  RunSeeds cut{"d/result_2.txt", {seed("1")}, "line 129 does not parse as MLLOG"};
  auto g = check_seeds({cut});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].message, "the seeds cannot be read: line 129 does not parse as MLLOG");
}

}  // namespace
}  // namespace mlperf
