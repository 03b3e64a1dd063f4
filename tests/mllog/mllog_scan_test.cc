// Tests of the scoring fast path of the MLLOG parser (scan_mllog_line, MllogScanner and the
// JSON text helpers): wherever it answers kEvent, parse_mllog_line gives the same event
// (scoring.md §1); everything else is left to parse_mllog_line (kUnsure), so a malformed
// line is never accepted.

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"
#include "../test_support.h"

namespace mlperf {
namespace {

nlohmann::json parse_text(std::string_view raw, bool metadata) {
  if (raw.empty()) return metadata ? nlohmann::json::object() : nlohmann::json();
  return nlohmann::json::parse(raw.begin(), raw.end());
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The view agrees with parse_mllog_line's event of the same line, field by field (time_ms
// to the bit), and json_member / json_number agree with nlohmann for every metadata member.
::testing::AssertionResult same_event(const std::string& line, const EventView& v) {
  Event e;
  std::string error;
  if (parse_mllog_line(line, e, error) != LineKind::kEvent) {
    return ::testing::AssertionFailure() << "the full parser rejects it (" << error << "): " << line;
  }
  if (!same_bits(v.time_ms, e.time_ms)) return ::testing::AssertionFailure() << "time_ms " << v.time_ms << " vs " << e.time_ms;
  if (v.key != e.key) return ::testing::AssertionFailure() << "key " << v.key << " vs " << e.key;
  if (v.event_type != e.event_type) return ::testing::AssertionFailure() << "event_type " << v.event_type;
  if (v.name_space != e.name_space) return ::testing::AssertionFailure() << "namespace " << v.name_space;
  if (parse_text(v.value, false) != e.value) return ::testing::AssertionFailure() << "value " << v.value;
  if (parse_text(v.metadata, true) != e.metadata) return ::testing::AssertionFailure() << "metadata " << v.metadata;
  const ObjectMembers members(v.metadata);
  for (const auto& [name, member] : e.metadata.items()) {
    std::string_view raw = json_member(v.metadata, name);
    if (members.find(name) != raw) return ::testing::AssertionFailure() << "ObjectMembers of " << name << ": " << members.find(name);
    if (parse_text(raw, false) != member) return ::testing::AssertionFailure() << "member " << name << ": " << raw;
    std::optional<double> number = json_number(raw);
    if (number.has_value() != member.is_number() || (number && !same_bits(*number, member.get<double>()))) {
      return ::testing::AssertionFailure() << "number of member " << name << ": " << raw;
    }
    std::optional<std::string> text = json_string(raw);
    if (text.has_value() != member.is_string() || (text && *text != member.get<std::string>())) {
      return ::testing::AssertionFailure() << "string of member " << name << ": " << raw;
    }
  }
  return ::testing::AssertionSuccess();
}

// Both fast paths (stateless, and a scanner that has seen `teach` first) on one line.
void expect_event(const std::string& line, const std::vector<std::string>& teach = {}) {
  SCOPED_TRACE(line);
  EventView v;
  ASSERT_EQ(scan_mllog_line(line, v), ScanKind::kEvent);
  EXPECT_TRUE(same_event(line, v));
  MllogScanner scanner;
  for (const auto& t : teach) scanner.scan(t, v);
  ASSERT_EQ(scanner.scan(line, v), ScanKind::kEvent);
  EXPECT_TRUE(same_event(line, v));
}

void expect_unsure(const std::string& line, const std::vector<std::string>& teach = {}) {
  SCOPED_TRACE(line);
  EventView v;
  EXPECT_EQ(scan_mllog_line(line, v), ScanKind::kUnsure);
  MllogScanner scanner;
  for (const auto& t : teach) scanner.scan(t, v);
  EXPECT_EQ(scanner.scan(line, v), ScanKind::kUnsure);
}

const std::string kTracked =
    R"(:::MLLOG {"namespace": "", "time_ms": 1728681266309, "event_type": "POINT_IN_TIME", "key": "tracked_stats", "value": {"throughput": 14297944.07146129}, "metadata": {"file": "/workspace/dlrm/mlperf_logger/callbacks.py", "lineno": 81, "step": 0.7498978502418643}})";

TEST(ScanMllogLine, RealLineGivesTheParsedEvent) {
  EventView v;
  ASSERT_EQ(scan_mllog_line(kTracked, v), ScanKind::kEvent);
  EXPECT_EQ(v.time_ms, 1728681266309.0);
  EXPECT_EQ(v.key, "tracked_stats");
  EXPECT_EQ(v.event_type, "POINT_IN_TIME");
  EXPECT_EQ(v.name_space, "");
  EXPECT_EQ(v.value, R"({"throughput": 14297944.07146129})");
  EXPECT_EQ(json_number(json_member(v.value, "throughput")), 14297944.07146129);
  EXPECT_EQ(json_number(json_member(v.metadata, "lineno")), 81.0);
  EXPECT_EQ(json_string(json_member(v.metadata, "file")), "/workspace/dlrm/mlperf_logger/callbacks.py");
  EXPECT_TRUE(same_event(kTracked, v));
}

TEST(ScanMllogLine, NoTokenIsNotMllog) {
  EventView v;
  MllogScanner scanner;
  for (const std::string line : {"", "step 3 loss 1", ":::MLLOG{}", "::MLLOG {}"}) {
    EXPECT_EQ(scan_mllog_line(line, v), ScanKind::kNotMllog) << line;
    EXPECT_EQ(scanner.scan(line, v), ScanKind::kNotMllog) << line;
  }
}

TEST(ScanMllogLine, ValidLinesOfEveryKind) {
  for (const std::string line : {
           // Prefix noise, whitespace everywhere JSON allows it, members in any order.
           std::string("[1,0]<stdout>: :::MLLOG {\"key\":\"run_start\",\"time_ms\":1,\"value\":null}"),
           std::string(":::MLLOG  \t{ \"time_ms\" : 5 , \"key\" : \"k\" , \"metadata\" : { } }\t\r "),
           // Escapes in strings (not in key, event_type or namespace: those are left to the full parser).
           std::string(R"(:::MLLOG {"time_ms": 2, "key": "k", "value": "a\"b\\c\/d\b\f\n\r\t", "metadata": {"file": "C:\\x"}})"),
           // Numbers: negative zero, exponents, big integers (double in nlohmann), underflow.
           std::string(R"(:::MLLOG {"time_ms": -0, "key": "k", "value": [1E5, -2.5e-3, 0.0, 1e-99]})"),
           std::string(R"(:::MLLOG {"time_ms": 1.76e12, "key": "k", "value": 123456789012345678901234567890})"),
           std::string(R"(:::MLLOG {"time_ms": 18446744073709551615, "key": "k", "value": -9223372036854775809})"),
           std::string(R"(:::MLLOG {"time_ms": 1760028253484.5, "key": "k", "metadata": {"x": 0.1e-99}})"),
           // Nesting, empty containers, literals.
           std::string(R"(:::MLLOG {"time_ms": 3, "key": "k", "value": {"a": [[], {}, [true, false, null]], "b": {"c": {"d": []}}}})"),
           // Duplicate names: the last wins, at the top and in metadata.
           std::string(R"(:::MLLOG {"time_ms": 1, "key": "a", "time_ms": 2, "key": "b", "metadata": {"status": "x", "status": "success"}})"),
           // metadata not an object, event_type not a string, value absent.
           std::string(R"(:::MLLOG {"time_ms": 4, "key": "k", "metadata": [1], "event_type": 7, "namespace": null})"),
           // 0x7F and colons in strings are fine.
           std::string(":::MLLOG {\"time_ms\": 4, \"key\": \"a:b::c\", \"value\": \"x\x7Fy\"}"),
       }) {
    expect_event(line);
  }
}

TEST(ScanMllogLine, LeavesAnythingUnusualToTheFullParser) {
  for (const std::string line : {
           // Malformed: must never be an event.
           std::string(":::MLLOG {\"time_ms\": 1, \"key\": "),
           std::string(":::MLLOG {]"),
           std::string(":::MLLOG "),
           std::string(":::MLLOG [1, 2]"),
           std::string(":::MLLOG 42"),
           std::string(R"(:::MLLOG {"time_ms": 1, "key": "k"} x)"),
           std::string(R"(:::MLLOG {"key": "k"})"),
           std::string(R"(:::MLLOG {"time_ms": 1})"),
           std::string(R"(:::MLLOG {"time_ms": "1", "key": "k"})"),
           std::string(R"(:::MLLOG {"time_ms": 1, "key": 3})"),
           std::string(R"(:::MLLOG {"time_ms": 01, "key": "k"})"),
           std::string(R"(:::MLLOG {"time_ms": 1., "key": "k"})"),
           std::string(R"(:::MLLOG {"time_ms": .5, "key": "k"})"),
           std::string(R"(:::MLLOG {"time_ms": 1, "key": "k", "value": 1e400})"),  // nlohmann: overflow
           std::string(R"(:::MLLOG {"time_ms": 1, "key": "k", "value": [1,]})"),
           std::string(R"(:::MLLOG {"time_ms": 1, "key": "k", "value": tru})"),
           std::string(":::MLLOG {\"time_ms\": 1, \"key\": \"a\tb\"}"),  // control byte in a string
           std::string(R"(:::MLLOG {"time_ms": 1, "key": "k", "value": "\ud800"})"),
           // Valid, but not for the fast path: \u escapes, escaped key, non-ASCII bytes, a
           // second token (the JSON starts after the last one), a 3-digit exponent.
           std::string(R"(:::MLLOG {"time_ms": 1, "key": "k", "value": "\u00e9"})"),
           std::string(R"(:::MLLOG {"time_ms": 1, "key": "run\_start"})"),
           std::string(R"(:::MLLOG {"time_ms": 1, "key": "k\"q"})"),
           std::string(":::MLLOG {\"time_ms\": 1, \"key\": \"k\", \"value\": \"caf\xC3\xA9\"}"),
           std::string(":::MLLOG {\"time_ms\": 1, \"key\": \"k\", \"value\": \"\xE9\"}"),
           std::string(R"(:::MLLOG {"time_ms": 1, "key": "k", "value": ":::MLLOG {\"time_ms\": 2, \"key\": \"j\"}"})"),
           std::string(R"(:::MLLOG {"time_ms": 1e100, "key": "k"})"),
       }) {
    expect_unsure(line);
  }
}

TEST(MllogScanner, LinesOfAKnownShapeAreMatchedAndReadRight) {
  MllogScanner scanner;
  EventView v;
  ASSERT_EQ(scanner.scan(kTracked, v), ScanKind::kEvent);
  EXPECT_EQ(scanner.shape_matches(), 0u);
  // Other numbers, of other lengths and forms.
  const std::string same_shape =
      R"(:::MLLOG {"namespace": "", "time_ms": 1728681266310, "event_type": "POINT_IN_TIME", "key": "tracked_stats", "value": {"throughput": -1.5e-7}, "metadata": {"file": "/workspace/dlrm/mlperf_logger/callbacks.py", "lineno": 0, "step": 12345678901234567890123}})";
  ASSERT_EQ(scanner.scan(same_shape, v), ScanKind::kEvent);
  EXPECT_EQ(scanner.shape_matches(), 1u);
  EXPECT_TRUE(same_event(same_shape, v));
  EXPECT_EQ(v.time_ms, 1728681266310.0);
  EXPECT_EQ(json_number(json_member(v.value, "throughput")), -1.5e-7);
}

// time_ms of every length, through a shape and alone: the double the full parser gives, to
// the bit (up to 16 digits are read as two groups of 8, longer ones another way).
TEST(MllogScanner, TimesOfEveryLengthAreReadToTheBit) {
  MllogScanner scanner;
  EventView v;
  std::string digits = "98765432109876543210123";
  for (std::size_t n = 1; n <= digits.size(); ++n) {
    for (const std::string time : {digits.substr(0, n), "1" + std::string(n - 1, '0'), std::string(n, '9')}) {
      const std::string line = ":::MLLOG {\"time_ms\": " + time + ", \"key\": \"k\", \"value\": 1}";
      for (int pass = 0; pass < 2; ++pass) {  // the second pass matches the shape
        ASSERT_EQ(scanner.scan(line, v), ScanKind::kEvent) << line;
        EXPECT_TRUE(same_event(line, v)) << line;
      }
      ASSERT_EQ(scan_mllog_line(line, v), ScanKind::kEvent) << line;
      EXPECT_TRUE(same_event(line, v)) << line;
    }
  }
  EXPECT_GT(scanner.shape_matches(), digits.size());
}

// EventView::time_ms keeps the digits until read: a plain double assigned reads back as
// itself; digits read as the full parser reads them, each time they are read; a copy reads
// the same while the line lives.
TEST(LazyTimeMs, ReadsAsTheDoubleAssignedOrTheDigitsGiven) {
  LazyTimeMs assigned = 1760028253484.5;
  EXPECT_EQ(static_cast<double>(assigned), 1760028253484.5);
  EXPECT_EQ(static_cast<double>(LazyTimeMs()), 0.0);
  const std::string digits = "1728681266309";
  LazyTimeMs lazy;
  lazy.set_text(digits, true);
  EXPECT_EQ(static_cast<double>(lazy), 1728681266309.0);
  const LazyTimeMs copy = lazy;
  EXPECT_EQ(static_cast<double>(copy), 1728681266309.0);
  const std::string fraction = "1728681266309.25";
  lazy.set_text(fraction, false);
  EXPECT_EQ(static_cast<double>(lazy), 1728681266309.25);
  const std::string exponent = "1.5e3";
  lazy.set_text(exponent, false);
  EXPECT_EQ(static_cast<double>(lazy), 1500.0);
  lazy = 7.0;  // a double assigned replaces the digits
  EXPECT_EQ(static_cast<double>(lazy), 7.0);
}

TEST(MllogScanner, ABadNumberInAKnownShapeIsNotAccepted) {
  auto with_step = [](const std::string& step) {
    return R"(:::MLLOG {"namespace": "", "time_ms": 1728681266309, "event_type": "POINT_IN_TIME", "key": "tracked_stats", "value": {"throughput": 1}, "metadata": {"file": "f.py", "lineno": 81, "step": )" +
           step + "}}";
  };
  const std::vector<std::string> teach = {with_step("0.5"), with_step("7")};
  for (const std::string bad : {"01", "1.", ".5", "-", "--1", "1e", "1e+", "1e400", "1.5.5", "1x", "", "+1", "0x10", "1e1e1",
                                "1.e5", "-01", "1e123", "-.5", "1e-", "0.5e+123"}) {
    expect_unsure(with_step(bad), teach);
  }
  // And the good ones are matched.
  for (const std::string good : {"0", "-0", "10", "1.25", "-3e5", "2E-07", "99999999999999999999999", "1E+05", "-0.0e-0",
                                 "12345678901234567.125", "0.000000000000000001"}) {
    expect_event(with_step(good), teach);
  }
}

// After two lines of a shape, a line of the same length is first tried against the layout
// of the last ones (their numbers' digits free, every other byte fixed): whatever it
// accepts is the event the full parser reads, numbers of another layout of the same length
// and bad numbers that fit the digit places ("01" where "12" was) are left to the shape
// match, and members the shape lacks stay absent views (no data) as the full match gives them.
TEST(MllogScanner, LinesOfAKnownNumberLayoutAreReadRightAndBadOnesAreNot) {
  auto line_of = [](const std::string& time, const std::string& step, const std::string& loss) {
    return ":::MLLOG {\"time_ms\": " + time + ", \"key\": \"tracked_stats\", \"value\": {\"loss\": " + loss +
           "}, \"metadata\": {\"step\": " + step + "}}";
  };
  const std::vector<std::string> teach = {line_of("1728681266309", "12", "0.25"), line_of("1728681266310", "34", "0.75")};
  // The layout taught: 13 digits, 2 digits, 0.dd.
  for (const auto& [time, step, loss] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"9999999999999", "99", "9.99"}, {"1000000000000", "10", "0.00"}, {"1728681266311", "56", "3.14"}}) {
    expect_event(line_of(time, step, loss), teach);
  }
  // The same length in another layout: still read right, through the shape.
  for (const auto& [time, step, loss] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"1728681266.311", "56", "3.14"}, {"1728681266311", "-5", "3.14"}, {"1728681266311", "56", "31.4"},
           {"1728681266311", "56", "-314"}, {"1728681266311", "56", "3e14"}, {"-728681266311", "56", "3.14"}}) {
    expect_event(line_of(time, step, loss), teach);
  }
  // Digits where the layout has them, but no JSON number: a leading zero of an integer part
  // of two or more digits, at every place.
  for (const auto& [time, step, loss] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"0728681266311", "56", "3.14"}, {"1728681266311", "05", "3.14"}, {"0000000000000", "00", "0.00"}}) {
    expect_unsure(line_of(time, step, loss), teach);
  }
  // Other bytes where the digits were, and changed literal bytes.
  for (const auto& [time, step, loss] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"17286812663 1", "56", "3.14"}, {"1728681266311", "5x", "3.14"}, {"1728681266311", "56", "3..4"},
           {"1728681266311", "56", "3.1:"}, {"1728681266311", "5\"", "3.14"}}) {
    expect_unsure(line_of(time, step, loss), teach);
  }
  // A line that ends at the token after lines of a shape (the shape is the one expected
  // next): an unused layout slot holds no bytes and must not stand for an empty payload.
  expect_unsure(":::MLLOG ", teach);
  expect_unsure("0: :::MLLOG ", teach);
  // Absent members come back as views without data, through the layout as through the shape.
  const std::string bare = R"(:::MLLOG {"time_ms": 1728681266309, "key": "k", "event_type": 7})";
  const std::string bare_next = R"(:::MLLOG {"time_ms": 1728681266310, "key": "k", "event_type": 8})";
  const std::string bare_layout = R"(:::MLLOG {"time_ms": 1728681266399, "key": "k", "event_type": 9})";
  MllogScanner scanner;
  EventView v;
  // The views point into the lines: each is read while its line lives.
  for (const std::string* line : {&bare, &bare_next, &bare_layout}) {
    ASSERT_EQ(scanner.scan(*line, v), ScanKind::kEvent) << *line;
    EXPECT_TRUE(same_event(*line, v)) << *line;
    EXPECT_EQ(v.value.data(), nullptr) << *line;
    EXPECT_EQ(v.metadata.data(), nullptr) << *line;
    EXPECT_EQ(v.event_type.data(), nullptr) << *line;
    EXPECT_EQ(v.name_space.data(), nullptr) << *line;
  }
  EXPECT_EQ(v.time_ms, 1728681266399.0);  // bare_layout's, read through the layout
  EXPECT_EQ(scanner.shape_matches(), 2u);
}

// Random numbers of a few layouts, good and bad, in lines of one shape: the scanner accepts
// exactly what the full parser accepts, with its event, whichever way it reads a line.
TEST(MllogScanner, RandomNumbersInOneShapeAreReadAsTheFullParserReadsThem) {
  std::mt19937 rng(11);
  const std::string digits = "0123456789";
  auto number = [&] {
    static const std::vector<std::string> layouts = {"d", "dd", "ddd", "d.d", "d.dd", "dd.d", "-d", "-dd", "de-d", "d.de+dd", "0.dd"};
    std::string out;
    for (char c : layouts[rng() % layouts.size()]) out += c == 'd' ? digits[rng() % 10] : c;
    return out;
  };
  MllogScanner scanner;
  EventView v;
  int accepted = 0, refused = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string line = ":::MLLOG {\"time_ms\": 17286812" + std::to_string(10000 + i % 90000) +
                             ", \"key\": \"eval_accuracy\", \"value\": " + number() + ", \"metadata\": {\"epoch_num\": " + number() +
                             ", \"samples_count\": " + number() + "}}";
    Event e;
    std::string error;
    const LineKind full = parse_mllog_line(line, e, error);
    const ScanKind fast = scanner.scan(line, v);
    if (full == LineKind::kEvent) {
      ASSERT_EQ(fast, ScanKind::kEvent) << line;
      ASSERT_TRUE(same_event(line, v)) << line;
      ++accepted;
    } else {
      ASSERT_NE(fast, ScanKind::kEvent) << line;
      ++refused;
    }
  }
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(refused, 300);  // leading zeros: "0d", "0dd", "-0d" ...
  EXPECT_GT(scanner.shape_matches(), 500u);
}

// EventView::layout names the number layout a line fit: lines whose numbers have the same
// digit layout share it, and metadata_members answers for them from its memo of the layout
// exactly as reading each line's metadata does (members of other lengths, repeated names, a
// text member, more members than ObjectMembers keeps, layouts meeting in one memo slot).
TEST(MllogScanner, MetadataMembersOfALayoutAreReadAsEachLinesOwn) {
  std::mt19937 rng(5);
  const std::string digits = "0123456789";
  auto number = [&] {
    static const std::vector<std::string> layouts = {"d", "dd", "d.d", "d.dd", "-d", "de-d"};
    std::string out;
    for (char c : layouts[rng() % layouts.size()]) out += c == 'd' ? digits[1 + rng() % 9] : c;
    return out;
  };
  std::string wide = "{";  // more members than ObjectMembers keeps
  for (int k = 0; k < 20; ++k) wide += "\"m" + std::to_string(k) + "\": " + std::to_string(k % 10) + (k < 19 ? ", " : "}");
  const std::vector<std::string> names = {"epoch_num", "samples_count", "file", "m3", "m19", "absent", "e"};
  MllogScanner scanner;
  EventView v;
  std::set<std::uint64_t> layouts;
  int from_memo = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string metadata;
    switch (i % 3) {
      case 0: metadata = "{\"epoch_num\": " + number() + ", \"samples_count\": " + number() + "}"; break;
      case 1: metadata = "{\"file\": \"a.py\", \"e\": " + number() + ", \"e\": " + number() + "}"; break;
      default: metadata = wide; break;
    }
    const std::string line = ":::MLLOG {\"time_ms\": 17286812" + std::to_string(10000 + i % 90000) +
                             ", \"key\": \"eval_accuracy\", \"value\": " + number() + ", \"metadata\": " + metadata + "}";
    ASSERT_EQ(scanner.scan(line, v), ScanKind::kEvent) << line;
    const bool seen = v.layout != 0 && !layouts.insert(v.layout).second;  // a line of a layout met before
    const ObjectMembers read(v.metadata);
    const ObjectMembers memo = metadata_members(v.metadata, v.layout);
    for (const auto& name : names) ASSERT_EQ(memo.find(name), read.find(name)) << name << " in " << line;
    from_memo += seen ? 1 : 0;
  }
  EXPECT_GT(layouts.size(), 64u);  // more layouts than the memo has slots: they meet in slots
  EXPECT_GT(from_memo, 500);  // lines of a layout met before
  // A table for one layout never answers for a text of another length: it is read.
  const ObjectMembers one(R"({"a": 1, "b": 2})");
  EXPECT_EQ(ObjectMembers(one, R"({"a": 10, "b": 2})").find("b"), "2");
  EXPECT_EQ(ObjectMembers(one, R"({"a": 5, "b": 7})").find("b"), "7");
  // Without a layout (0), or without metadata, the text is read.
  EXPECT_EQ(metadata_members(R"({"x": "y"})", 0).find("x"), "\"y\"");
  EXPECT_EQ(metadata_members("", 12345).find("x"), "");
}

TEST(MllogScanner, AKnownShapeWithOtherTextIsNotMatched) {
  const std::string base = R"(:::MLLOG {"time_ms": 1, "key": "eval_accuracy", "value": 0.5, "metadata": {"epoch_num": 1}})";
  MllogScanner scanner;
  EventView v;
  ASSERT_EQ(scanner.scan(base, v), ScanKind::kEvent);
  // Same numbers' places, different text: a new shape (still correct), never a wrong match.
  const std::string other = R"(:::MLLOG {"time_ms": 2, "key": "eval_error", "value": 0.5, "metadata": {"epoch_num": 1}})";
  ASSERT_EQ(scanner.scan(other, v), ScanKind::kEvent);
  EXPECT_EQ(scanner.shape_matches(), 0u);
  EXPECT_EQ(v.key, "eval_error");
  // Trailing bytes after the known shape.
  expect_unsure(base + " x", {base});
  expect_unsure(base + "}", {base});
  // A line cut short.
  expect_unsure(base.substr(0, base.size() - 1), {base});
}

// EventView::shape names the remembered shape a line matched: lines that differ only in
// their numbers share it, another text never does, and a line no shape matched has none.
TEST(MllogScanner, LinesOfOneShapeShareItsIdAndOthersDoNot) {
  const std::string first = R"(:::MLLOG {"time_ms": 1, "key": "block_start", "value": null, "metadata": {"first_epoch_num": 0, "epoch_count": 1}})";
  const std::string numbers = R"(:::MLLOG {"time_ms": 25, "key": "block_start", "value": null, "metadata": {"first_epoch_num": 3.5, "epoch_count": -2}})";
  const std::string members = R"(:::MLLOG {"time_ms": 1, "key": "block_start", "value": null, "metadata": {"samples_count": 0, "epoch_count": 1}})";
  MllogScanner scanner;
  EventView v;
  ASSERT_EQ(scanner.scan(first, v), ScanKind::kEvent);
  EXPECT_EQ(v.shape, 0u);  // read by the full scan; its shape is remembered now
  ASSERT_EQ(scanner.scan(numbers, v), ScanKind::kEvent);
  const std::uint64_t shape = v.shape;
  EXPECT_NE(shape, 0u);
  ASSERT_EQ(scanner.scan(first, v), ScanKind::kEvent);
  EXPECT_EQ(v.shape, shape);
  ASSERT_EQ(scanner.scan(members, v), ScanKind::kEvent);
  EXPECT_EQ(v.shape, 0u);
  ASSERT_EQ(scanner.scan(members, v), ScanKind::kEvent);
  EXPECT_NE(v.shape, 0u);
  EXPECT_NE(v.shape, shape);
  // The one-line scan remembers nothing.
  ASSERT_EQ(scan_mllog_line(numbers, v), ScanKind::kEvent);
  EXPECT_EQ(v.shape, 0u);
}

TEST(MllogScanner, CyclesOfManyShapesAllMatch) {
  // 12 keys repeating in a cycle (as eval and block lines do): after the first round every
  // line is read through its shape, and every event is right.
  std::vector<std::string> keys;
  for (int k = 0; k < 12; ++k) keys.push_back("key_" + std::to_string(k));
  MllogScanner scanner;
  EventView v;
  int lines = 0;
  for (int round = 0; round < 20; ++round) {
    for (const auto& key : keys) {
      std::string line = ":::MLLOG {\"time_ms\": " + std::to_string(1000 + lines) + ", \"key\": \"" + key +
                         "\", \"value\": " + std::to_string(round * 0.5) + ", \"metadata\": {\"step\": " +
                         std::to_string(round) + "}}";
      ASSERT_EQ(scanner.scan(line, v), ScanKind::kEvent);
      ASSERT_TRUE(same_event(line, v));
      ++lines;
    }
  }
  EXPECT_EQ(scanner.shape_matches(), static_cast<std::uint64_t>(lines) - keys.size());
}

// A round's logs: each run logs the same hyperparameter lines (one of each key), so a
// second run of a benchmark reads all of them through shapes, however many keys there are.
TEST(MllogScanner, ASecondRunOfManyKeysIsReadThroughShapes) {
  auto run = [](int seed) {
    std::vector<std::string> out;
    for (int k = 0; k < 200; ++k) {
      out.push_back(":::MLLOG {\"namespace\": \"\", \"time_ms\": " + std::to_string(1000 + seed + k) +
                    ", \"event_type\": \"POINT_IN_TIME\", \"key\": \"param_" + std::to_string(k) +
                    "\", \"value\": " + std::to_string(seed * 3 + k) + ", \"metadata\": {\"file\": \"train.py\", \"lineno\": " +
                    std::to_string(k) + "}}");
    }
    return out;
  };
  MllogScanner scanner;
  EventView v;
  for (const std::string& line : run(1)) ASSERT_EQ(scanner.scan(line, v), ScanKind::kEvent);
  EXPECT_EQ(scanner.shape_matches(), 0u);
  const std::vector<std::string> second = run(2);
  for (const std::string& line : second) {
    ASSERT_EQ(scanner.scan(line, v), ScanKind::kEvent);
    ASSERT_TRUE(same_event(line, v));
  }
  EXPECT_EQ(scanner.shape_matches(), second.size());
}

// One key with many texts (weights_initialization names a tensor per line): a sequence of
// them seen before is read through shapes (each shape leads to the one that followed it),
// and in a new order every line is still read right.
TEST(MllogScanner, OneKeyOfManyShapesInSequenceAndOutOfOrder) {
  auto line_for = [](int tensor, int time) {
    return ":::MLLOG {\"time_ms\": " + std::to_string(time) +
           ", \"key\": \"weights_initialization\", \"value\": null, \"metadata\": {\"tensor\": \"layer_" +
           std::to_string(tensor) + "\"}}";
  };
  const std::string run_start = R"(:::MLLOG {"time_ms": 1, "key": "run_start", "value": null})";
  MllogScanner scanner;
  EventView v;
  ASSERT_EQ(scanner.scan(run_start, v), ScanKind::kEvent);
  for (int t = 0; t < 100; ++t) ASSERT_EQ(scanner.scan(line_for(t, t), v), ScanKind::kEvent);
  EXPECT_EQ(scanner.shape_matches(), 0u);
  // The next run: its first line is its key's only shape, then each shape leads to the next.
  ASSERT_EQ(scanner.scan(run_start, v), ScanKind::kEvent);
  for (int t = 0; t < 100; ++t) {
    const std::string line = line_for(t, 500 + t);
    ASSERT_EQ(scanner.scan(line, v), ScanKind::kEvent);
    ASSERT_TRUE(same_event(line, v));
  }
  EXPECT_EQ(scanner.shape_matches(), 101u);
  std::mt19937 rng(3);
  for (int i = 0; i < 300; ++i) {
    const std::string line = line_for(static_cast<int>(rng() % 100), 1000 + i);
    ASSERT_EQ(scanner.scan(line, v), ScanKind::kEvent);
    ASSERT_TRUE(same_event(line, v)) << line;
  }
}

// Past the most shapes it keeps (4,096), the scanner forgets them and starts over: lines are
// still read right, and a new shape never takes the id of a forgotten one.
TEST(MllogScanner, BeyondTheShapesItKeepsLinesAreStillReadRight) {
  auto line_for = [](int k, int time) {
    return ":::MLLOG {\"time_ms\": " + std::to_string(time) + ", \"key\": \"k" + std::to_string(k) + "\", \"value\": 1}";
  };
  MllogScanner scanner;
  EventView v;
  std::vector<std::uint64_t> ids;
  for (int k = 0; k < 5000; ++k) {
    for (int i = 0; i < 5; ++i) {  // one new shape, then four lines of it: shapes stay in use
      const std::string line = line_for(k, i);
      ASSERT_EQ(scanner.scan(line, v), ScanKind::kEvent);
      ASSERT_TRUE(same_event(line, v));
    }
    ids.push_back(v.shape);
  }
  EXPECT_EQ(scanner.shape_matches(), 5000u * 4);
  EXPECT_EQ(std::set<std::uint64_t>(ids.begin(), ids.end()).size(), ids.size());
  // The first shape was forgotten: its line is scanned in full, then matched under a new id.
  ASSERT_EQ(scanner.scan(line_for(0, 7), v), ScanKind::kEvent);
  EXPECT_EQ(v.shape, 0u);
  ASSERT_EQ(scanner.scan(line_for(0, 8), v), ScanKind::kEvent);
  EXPECT_NE(v.shape, 0u);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), v.shape), 0);
  // A recent one is still known.
  ASSERT_EQ(scanner.scan(line_for(4999, 9), v), ScanKind::kEvent);
  EXPECT_EQ(v.shape, ids.back());
}

std::vector<std::string> example_mllog_lines() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::source_dir() / "data/examples")) {
    if (!entry.is_regular_file() || entry.path().filename().string().rfind("result_", 0) != 0) continue;
    LineReader reader(file_source(entry.path()));
    Line line;
    while (reader.next_with(kMllogToken, line)) out.emplace_back(line.text);
  }
  return out;
}

TEST(MllogScanner, ExampleLogsAllTakeTheFastPathWithTheParsedEvents) {
  std::vector<std::string> lines = example_mllog_lines();
  ASSERT_GT(lines.size(), 1500u);
  MllogScanner scanner;
  EventView v;
  for (const auto& line : lines) {
    ASSERT_EQ(scanner.scan(line, v), ScanKind::kEvent) << line;
    ASSERT_TRUE(same_event(line, v));
  }
  EXPECT_GT(scanner.shape_matches(), lines.size() / 2);
}

// Real lines with random damage (bytes changed, inserted, removed; the alphabet of JSON and
// of bad input): whatever the fast path accepts, the full parser accepts with the same
// event; whatever the full parser rejects, the fast path does not accept.
TEST(MllogScanner, DamagedLinesAreNeverMisread) {
  std::vector<std::string> lines = example_mllog_lines();
  ASSERT_FALSE(lines.empty());
  const std::string alphabet = std::string("{}[]\":,\\ 0123456789.eE-+tfnul/\t\r\x7f") + '\x80' + '\xff' + '\0';
  std::mt19937 rng(5);
  MllogScanner scanner;  // learns shapes from the clean lines, then meets damaged ones
  EventView v;
  int accepted = 0;
  for (int round = 0; round < 6000; ++round) {
    const std::string& clean = lines[rng() % lines.size()];
    scanner.scan(clean, v);
    std::string line = clean;
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits && !line.empty(); ++k) {
      std::size_t at = rng() % line.size();
      char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0: line[at] = c; break;
        case 1: line.insert(line.begin() + static_cast<std::ptrdiff_t>(at), c); break;
        default: line.erase(at, 1); break;
      }
    }
    Event e;
    std::string error;
    LineKind full = parse_mllog_line(line, e, error);
    for (bool stateless : {true, false}) {
      ScanKind fast = stateless ? scan_mllog_line(line, v) : scanner.scan(line, v);
      if (fast == ScanKind::kEvent) {
        ++accepted;
        ASSERT_TRUE(same_event(line, v)) << "round " << round;
      } else if (fast == ScanKind::kNotMllog) {
        ASSERT_EQ(full, LineKind::kNotMllog) << line;
      }
      if (full == LineKind::kError) ASSERT_NE(fast, ScanKind::kEvent) << line;
    }
  }
  EXPECT_GT(accepted, 1000);  // damage inside strings and numbers is often still valid
}

// ObjectMembers answers every name as json_member does: the last of a repeated name, ""
// for a nested or absent one, the members before an escaped name (where json_member's walk
// stops too), and an object of more members than it keeps.
TEST(JsonText, ObjectMembersAnswerAsJsonMember) {
  std::vector<std::string> objects = {
      R"({"a": 1, "b": {"c": [1, {"a": 2}]}, "s": "x\"y", "a": 3, "n": null})",
      R"({"a": 1, "b\u0041": 2, "c": 3})",
      "{}",
      "[1]",
      "",
      R"({ "a" : 1 , "b" : "two" })",
      // Brackets, commas and escaped quotes and backslashes inside strings; scalars ended by
      // blanks, a comma or the closing brace.
      R"({"s": "a\\", "b": "}{][,:", "c": [ "]", {"x": "}"}, [] ], "n": -1.5e3 , "a": true,"m": {}})",
      R"({"a":"\"{\"","b":null})",
  };
  const std::vector<std::pair<std::string, std::string>> expected = {{"s", R"("a\\")"}, {"b", R"("}{][,:")"},
                                                                     {"c", R"([ "]", {"x": "}"}, [] ])"}, {"n", "-1.5e3"},
                                                                     {"a", "true"}, {"m", "{}"}};
  for (const auto& [name, text] : expected) EXPECT_EQ(ObjectMembers(objects[6]).find(name), text) << name;
  EXPECT_EQ(ObjectMembers(objects[7]).find("a"), R"("\"{\"")");
  EXPECT_EQ(ObjectMembers(objects[7]).find("b"), "null");
  std::string many = "{";
  for (int i = 0; i < 40; ++i) many += (i ? ", " : "") + fmt::format("\"m{}\": {}", i % 23, i);
  objects.push_back(many + "}");
  const std::vector<std::string> names = {"a", "b", "c", "s", "n", "missing", "m0", "m5", "m22", "m39", "bA"};
  for (const auto& object : objects) {
    const ObjectMembers members(object);
    for (const auto& name : names) EXPECT_EQ(members.find(name), json_member(object, name)) << object << " " << name;
  }
  EXPECT_EQ(ObjectMembers(objects[0]).find("a"), "3");
  EXPECT_EQ(ObjectMembers(objects[1]).find("a"), "1");
  EXPECT_EQ(ObjectMembers(objects[1]).find("c"), "");  // after the escaped name: not reached
  EXPECT_EQ(ObjectMembers(objects.back()).find("m5"), "28");  // the last of m5 (i = 5, 28)
}

// is_plain_json: the subset the fast readers take, every text in it valid for nlohmann too.
TEST(JsonText, PlainJsonIsTheScannersSubsetOfValidJson) {
  for (const std::string text : {std::string(R"({"a": [1, 2.5e3, true, null, "x\"y"], "b": {}})"), std::string(" 1 "),
                                 std::string("\n[\"\\/\"]\t"), std::string(R"("s")"), std::string(std::string(63, '[') + std::string(63, ']'))}) {
    EXPECT_TRUE(is_plain_json(text)) << text;
    EXPECT_FALSE(nlohmann::json::parse(text, nullptr, false).is_discarded()) << text;
  }
  for (const std::string text : {std::string(""), std::string("  "), std::string("{"), std::string(R"({"a": 1}x)"),
                                 std::string(R"({"a": 1} {"b": 2})"), std::string(R"({"\u00e9": 1})"),
                                 std::string(R"({"a\"b": 1})"), std::string("\"caf\xC3\xA9\""), std::string("[1,]"),
                                 std::string("NaN"), std::string("1e400"), std::string(std::string(64, '[') + std::string(64, ']'))}) {
    EXPECT_FALSE(is_plain_json(text)) << text;
  }
}

TEST(JsonText, MemberNumberString) {
  std::string object = R"({"a": 1, "b": {"c": [1, {"a": 2}]}, "s": "x\"y", "a": 3, "n": null})";
  EXPECT_EQ(json_member(object, "a"), "3");  // the last one
  EXPECT_EQ(json_member(object, "b"), R"({"c": [1, {"a": 2}]})");
  EXPECT_EQ(json_member(object, "c"), "");  // not a member at this level
  EXPECT_EQ(json_member(object, "missing"), "");
  EXPECT_EQ(json_member("[1]", "a"), "");
  EXPECT_EQ(json_member("", "a"), "");
  EXPECT_EQ(json_member("{}", "a"), "");
  EXPECT_EQ(json_string(json_member(object, "s")), "x\"y");
  EXPECT_EQ(json_string(json_member(object, "a")), std::nullopt);
  EXPECT_EQ(json_number(json_member(object, "n")), std::nullopt);
  EXPECT_EQ(json_number("\"1\""), std::nullopt);
  EXPECT_EQ(json_number(""), std::nullopt);
  // As nlohmann's get<double>(): integers converted, -0 an integer zero, big ones as doubles.
  EXPECT_TRUE(same_bits(*json_number("-0"), 0.0));
  EXPECT_TRUE(same_bits(*json_number("-0.0"), -0.0));
  EXPECT_EQ(*json_number("9007199254740993"), 9007199254740992.0);
  EXPECT_EQ(*json_number("18446744073709551615"), 18446744073709551615.0);
  EXPECT_EQ(*json_number("-9223372036854775809"), -9223372036854775808.0);
  EXPECT_EQ(*json_number("0.1"), 0.1);
  EXPECT_EQ(*json_number("1e-400"), 0.0);
  EXPECT_EQ(*json_number("2.5E3"), 2500.0);
}

}  // namespace
}  // namespace mlperf
