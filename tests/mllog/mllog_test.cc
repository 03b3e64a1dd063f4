// Tests of the MLLOG line parser (scoring.md §1).

#include "mlperf/mllog/mllog.h"

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

namespace mlperf {
namespace {

const std::string kRunStartPayload =
    R"({"namespace": "", "time_ms": 1760028253484, "event_type": "INTERVAL_START", "key": "run_start", "value": null, "metadata": {"file": "callbacks.py", "lineno": 344}})";
const std::string kRunStartLine = ":::MLLOG " + kRunStartPayload;

void expect_run_start(const Event& e) {
  EXPECT_EQ(e.time_ms, 1760028253484.0);
  EXPECT_EQ(e.key, "run_start");
  EXPECT_EQ(e.event_type, "INTERVAL_START");
  EXPECT_EQ(e.name_space, "");
  EXPECT_TRUE(e.value.is_null());
  ASSERT_TRUE(e.metadata.is_object());
  EXPECT_EQ(e.metadata.size(), 2u);
  EXPECT_EQ(e.metadata.at("file"), "callbacks.py");
  EXPECT_EQ(e.metadata.at("lineno"), 344);
}

TEST(ParseMllogLine, PlainRealLine) {
  Event e;
  std::string error;
  ASSERT_EQ(parse_mllog_line(kRunStartLine, e, error), LineKind::kEvent) << error;
  expect_run_start(e);
}

TEST(ParseMllogLine, AllFieldsOfAPointInTimeEvent) {
  Event e;
  std::string error;
  std::string line =
      R"(:::MLLOG {"namespace": "worker", "time_ms": 1760028999000, "event_type": "POINT_IN_TIME", "key": "eval_accuracy", "value": 0.9213, "metadata": {"file": "x.py", "lineno": 7, "samples_count": 3072, "epoch_num": 1.5}})";
  ASSERT_EQ(parse_mllog_line(line, e, error), LineKind::kEvent) << error;
  EXPECT_EQ(e.time_ms, 1760028999000.0);
  EXPECT_EQ(e.key, "eval_accuracy");
  EXPECT_EQ(e.event_type, "POINT_IN_TIME");
  EXPECT_EQ(e.name_space, "worker");
  EXPECT_EQ(e.value.get<double>(), 0.9213);
  EXPECT_EQ(e.metadata.at("samples_count"), 3072);
  EXPECT_EQ(e.metadata.at("epoch_num").get<double>(), 1.5);
}

TEST(ParseMllogLine, PrefixNoiseIsIgnored) {
  for (const std::string prefix :
       {"0: ", "[1,0]<stdout>:", "2025-10-09 17:24:13,484 INFO  ", "12: [rank 3] ", "   "}) {
    SCOPED_TRACE(prefix);
    Event e;
    std::string error;
    ASSERT_EQ(parse_mllog_line(prefix + kRunStartLine, e, error), LineKind::kEvent) << error;
    expect_run_start(e);
  }
}

TEST(ParseMllogLine, JsonStartsAfterTheLastToken) {
  // Two ranks' output interleaved on one line: the first JSON is cut off.
  std::string line =
      R"(0: :::MLLOG {"namespace": "", "time_ms": 1, "key": "first", 1: )" + kRunStartLine;
  Event e;
  std::string error;
  ASSERT_EQ(parse_mllog_line(line, e, error), LineKind::kEvent) << error;
  expect_run_start(e);

  // Even when the first one is complete JSON, the last one wins.
  std::string two =
      R"(:::MLLOG {"time_ms": 5, "key": "first"} :::MLLOG {"time_ms": 6, "key": "second"})";
  ASSERT_EQ(parse_mllog_line(two, e, error), LineKind::kEvent) << error;
  EXPECT_EQ(e.key, "second");
  EXPECT_EQ(e.time_ms, 6.0);
}

TEST(ParseMllogLine, LinesWithoutTheTokenAreNotMllog) {
  Event e;
  std::string error;
  EXPECT_EQ(parse_mllog_line("", e, error), LineKind::kNotMllog);
  EXPECT_EQ(parse_mllog_line("Epoch 3: loss 0.123", e, error), LineKind::kNotMllog);
  EXPECT_EQ(parse_mllog_line(kRunStartPayload, e, error), LineKind::kNotMllog);
  // The token includes its trailing space.
  EXPECT_EQ(parse_mllog_line(":::MLLOG" + kRunStartPayload, e, error), LineKind::kNotMllog);
  EXPECT_EQ(parse_mllog_line("::MLLOG " + kRunStartPayload, e, error), LineKind::kNotMllog);
}

TEST(ParseMllogLine, TrailingWhitespaceAfterPayload) {
  Event e;
  std::string error;
  ASSERT_EQ(parse_mllog_line(kRunStartLine + "   ", e, error), LineKind::kEvent) << error;
  expect_run_start(e);
  ASSERT_EQ(parse_mllog_line(kRunStartLine + " \t\r", e, error), LineKind::kEvent) << error;
  expect_run_start(e);
}

TEST(ParseMllogLine, InvalidJsonIsAnErrorWithMessage) {
  Event e;
  std::string error;
  EXPECT_EQ(parse_mllog_line(R"(0: :::MLLOG {"time_ms": 1, "key": )", e, error), LineKind::kError);
  EXPECT_EQ(error.rfind("invalid MLLOG JSON", 0), 0u) << error;

  // The column is given in the whole line: ']' is the 11th character of ":::MLLOG {]".
  error.clear();
  EXPECT_EQ(parse_mllog_line(":::MLLOG {]", e, error), LineKind::kError);
  EXPECT_NE(error.find("column 11"), std::string::npos) << error;
  // With a 3-byte prefix it is the 14th.
  error.clear();
  EXPECT_EQ(parse_mllog_line("0: :::MLLOG {]", e, error), LineKind::kError);
  EXPECT_NE(error.find("column 14"), std::string::npos) << error;

  // Trailing garbage after the object, an empty payload, and a non-object.
  for (const std::string& bad : {":::MLLOG " + kRunStartPayload + " x", std::string(":::MLLOG "),
                                std::string(":::MLLOG [1, 2]"), std::string(":::MLLOG 42")}) {
    SCOPED_TRACE(bad);
    error.clear();
    EXPECT_EQ(parse_mllog_line(bad, e, error), LineKind::kError);
    EXPECT_FALSE(error.empty());
  }
}

TEST(ParseMllogLine, MissingTimeOrKeyIsAnErrorNamingTheField) {
  Event e;
  std::string error;
  EXPECT_EQ(parse_mllog_line(R"(:::MLLOG {"key": "run_start", "value": null})", e, error),
            LineKind::kError);
  EXPECT_NE(error.find("time_ms"), std::string::npos) << error;

  error.clear();
  EXPECT_EQ(parse_mllog_line(R"(:::MLLOG {"time_ms": 17, "value": null})", e, error),
            LineKind::kError);
  EXPECT_NE(error.find("key"), std::string::npos) << error;
  EXPECT_EQ(error.find("time_ms"), std::string::npos) << error;

  // Wrong types count as missing.
  error.clear();
  EXPECT_EQ(parse_mllog_line(R"(:::MLLOG {"time_ms": "17", "key": "k"})", e, error), LineKind::kError);
  EXPECT_NE(error.find("time_ms"), std::string::npos) << error;
  error.clear();
  EXPECT_EQ(parse_mllog_line(R"(:::MLLOG {"time_ms": 17, "key": 3})", e, error), LineKind::kError);
  EXPECT_NE(error.find("key"), std::string::npos) << error;
}

TEST(ParseMllogLine, FloatTimeMs) {
  Event e;
  std::string error;
  ASSERT_EQ(parse_mllog_line(R"(:::MLLOG {"time_ms": 1760028253484.5, "key": "run_stop"})", e, error),
            LineKind::kEvent)
      << error;
  EXPECT_EQ(e.time_ms, 1760028253484.5);
  EXPECT_EQ(e.key, "run_stop");
  ASSERT_EQ(parse_mllog_line(R"(:::MLLOG {"time_ms": 1.7600282534845e12, "key": "x"})", e, error),
            LineKind::kEvent)
      << error;
  EXPECT_EQ(e.time_ms, 1760028253484.5);
}

TEST(ParseMllogLine, AbsentOptionalFieldsGetDefaults) {
  Event e;
  std::string error;
  // First fill the event, then reuse it: nothing of the first line may survive.
  ASSERT_EQ(parse_mllog_line(kRunStartLine, e, error), LineKind::kEvent);
  ASSERT_EQ(parse_mllog_line(R"(:::MLLOG {"time_ms": 2, "key": "k"})", e, error), LineKind::kEvent);
  EXPECT_EQ(e.time_ms, 2.0);
  EXPECT_EQ(e.key, "k");
  EXPECT_EQ(e.event_type, "");
  EXPECT_EQ(e.name_space, "");
  EXPECT_TRUE(e.value.is_null());
  EXPECT_TRUE(e.metadata.is_object());
  EXPECT_TRUE(e.metadata.empty());
  // A metadata that is not an object becomes an empty object.
  ASSERT_EQ(parse_mllog_line(R"(:::MLLOG {"time_ms": 3, "key": "k", "metadata": 5})", e, error),
            LineKind::kEvent);
  EXPECT_TRUE(e.metadata.is_object());
  EXPECT_TRUE(e.metadata.empty());
}

TEST(ParseMllogLine, Latin1BytesAreDecodedAsLatin1) {
  Event e;
  std::string error;
  std::string line = ":::MLLOG {\"time_ms\": 1, \"key\": \"submission_org\", \"value\": \"Caf\xe9\", "
                     "\"metadata\": {\"note\": \"\xb5s \xff\"}}";
  ASSERT_EQ(parse_mllog_line(line, e, error), LineKind::kEvent) << error;
  EXPECT_EQ(e.value.get<std::string>(), "Caf\xc3\xa9");
  EXPECT_EQ(e.metadata.at("note").get<std::string>(), "\xc2\xb5s \xc3\xbf");
  // Noise before the token does not decide the decoding: it is not part of the payload.
  std::string noisy = "\xe9\xe9 :::MLLOG {\"time_ms\": 1, \"key\": \"k\", \"value\": \"\xc3\xa9\"}";
  ASSERT_EQ(parse_mllog_line(noisy, e, error), LineKind::kEvent) << error;
  EXPECT_EQ(e.value.get<std::string>(), "\xc3\xa9");
}

TEST(ParseMllogLine, ValidUtf8IsKept) {
  Event e;
  std::string error;
  std::string line =
      ":::MLLOG {\"time_ms\": 1, \"key\": \"submission_org\", \"value\": \"Caf\xc3\xa9 \xe2\x82\xac\"}";
  ASSERT_EQ(parse_mllog_line(line, e, error), LineKind::kEvent) << error;
  EXPECT_EQ(e.value.get<std::string>(), "Caf\xc3\xa9 \xe2\x82\xac");
}

TEST(Utf8, IsValidUtf8) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("\xc3\xa9"));              // é
  EXPECT_TRUE(is_valid_utf8("\xe2\x82\xac"));          // €
  EXPECT_TRUE(is_valid_utf8("\xf0\x9f\x98\x80"));      // U+1F600
  EXPECT_TRUE(is_valid_utf8("\xf4\x8f\xbf\xbf"));      // U+10FFFF, the last code point
  EXPECT_FALSE(is_valid_utf8("Caf\xe9"));              // Latin-1 é
  EXPECT_FALSE(is_valid_utf8("\xc3"));                 // cut short
  EXPECT_FALSE(is_valid_utf8("\xe2\x82"));             // cut short
  EXPECT_FALSE(is_valid_utf8("\x80"));                 // lone continuation byte
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));             // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xe0\x80\xaf"));         // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));         // surrogate U+D800
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));     // U+110000
  EXPECT_FALSE(is_valid_utf8("\xf8\x88\x80\x80\x80")); // 5-byte form
  EXPECT_FALSE(is_valid_utf8("\xc3\x28"));             // bad continuation
}

TEST(Utf8, Latin1ToUtf8) {
  EXPECT_EQ(latin1_to_utf8(""), "");
  EXPECT_EQ(latin1_to_utf8("abc"), "abc");
  EXPECT_EQ(latin1_to_utf8("Caf\xe9"), "Caf\xc3\xa9");
  EXPECT_EQ(latin1_to_utf8("\x80"), "\xc2\x80");
  EXPECT_EQ(latin1_to_utf8("\xff"), "\xc3\xbf");
  // Valid UTF-8 read as Latin-1 is two code points.
  EXPECT_EQ(latin1_to_utf8("\xc3\xa9"), "\xc3\x83\xc2\xa9");
  EXPECT_EQ(latin1_to_utf8(std::string("a\0b", 3)), std::string("a\0b", 3));
}


// Python's json (the official parser) reads NaN, Infinity and -Infinity, which json.dumps
// writes for non-finite floats: a diverged eval_accuracy is an event, not a parse error.
TEST(Mllog, NonFiniteTokensAreNumbersAsPythonsJsonReadsThem) {
  Event e;
  std::string error;
  ASSERT_EQ(parse_mllog_line(R"(:::MLLOG {"namespace": "", "time_ms": 5, "event_type": "POINT_IN_TIME", "key": "eval_accuracy", "value": NaN, "metadata": {"lo": -Infinity, "hi": Infinity, "note": "NaN stays text"}})",
                             e, error),
            LineKind::kEvent)
      << error;
  ASSERT_TRUE(e.value.is_number_float());
  EXPECT_TRUE(std::isnan(e.value.get<double>()));
  EXPECT_EQ(e.metadata.at("lo").get<double>(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(e.metadata.at("hi").get<double>(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(e.metadata.at("note"), "NaN stays text");
  // Anything else Python rejects stays an error, worded from the text as given.
  EXPECT_EQ(parse_mllog_line(R"(:::MLLOG {"time_ms": 5, "key": "x", "value": nan})", e, error), LineKind::kError);
  EXPECT_NE(error.find("invalid MLLOG JSON at column"), std::string::npos) << error;
  EXPECT_TRUE(std::isnan(parse_json_like_python("[NaN]")[0].get<double>()));
  // Beyond the double range: Python's float() gives inf; an integer literal stays an error.
  const nlohmann::json big = parse_json_like_python("[1e400, -2.5e999, 1.5]");
  EXPECT_EQ(big[0].get<double>(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(big[1].get<double>(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(big[2].get<double>(), 1.5);
  EXPECT_TRUE(parse_json_like_python_or_discarded("[1" + std::string(400, '0') + "]").is_discarded());
  EXPECT_TRUE(parse_json_like_python_or_discarded("[NaNx]").is_discarded());
}

}  // namespace
}  // namespace mlperf
