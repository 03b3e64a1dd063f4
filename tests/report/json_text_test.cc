// Tests of JsonText (report/json_text.h): what it writes member by member is the text
// nlohmann::json::dump(2) (invalid UTF-8 replaced) writes for the same document, with the
// exact-bytes siblings add_exact_bytes would add.

#include "mlperf/report/json_text.h"
#include "mlperf/report/exact_bytes.h"
#include "mlperf/mllog/mllog.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace mlperf {
namespace {

std::string dumped(const nlohmann::json& document) {
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Every form a double takes in nlohmann's text: integral values with ".0", shortest
// round-trip digits, exponents both ways, signed zero, the extremes, and null for what is not
// finite.
TEST(JsonTextWriter, NumbersAreWrittenAsNlohmannWritesThem) {
  const std::vector<double> numbers = {0.0,
                                       -0.0,
                                       1.0,
                                       3168.0,
                                       27.968884483726146,
                                       0.1,
                                       1.0 / 3.0,
                                       1e21,
                                       1e-7,
                                       123456789012345678.0,
                                       -2.5e-300,
                                       std::numeric_limits<double>::max(),
                                       std::numeric_limits<double>::denorm_min(),
                                       std::numeric_limits<double>::quiet_NaN(),
                                       std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity()};
  for (const double d : numbers) {
    std::string text;
    JsonText j(text, 0);
    j.number(d);
    EXPECT_EQ(text, nlohmann::json(d).dump()) << d;
    // The same through value(), alone and inside a structured value.
    std::string from_value;
    JsonText v(from_value, 0);
    v.value(nlohmann::json(d));
    EXPECT_EQ(from_value, nlohmann::json(d).dump()) << d;
    const nlohmann::json nested = {{"a", nlohmann::json::array({d, 1})}, {"b", d}};
    std::string from_nested;
    JsonText n(from_nested, 0);
    n.value(nested);
    EXPECT_EQ(from_nested, dumped(nested)) << d;
  }
  std::string text;
  JsonText j(text, 0);
  j.begin_array();
  j.number_or_null(std::nullopt);
  j.number_or_null(2.5);
  j.integer(-7);
  j.integer(std::numeric_limits<std::uint64_t>::max());
  j.boolean(false);
  j.end_array();
  EXPECT_EQ(text, dumped(nlohmann::json::array({nullptr, 2.5, -7, std::numeric_limits<std::uint64_t>::max(), false})));
}

// Nesting, empty containers, escapes and the indent for text placed inside another document.
// Escaped by hand, well-formed UTF-8 reads as nlohmann writes it: every byte below 0x80 in a
// string, multi-byte characters of each length, and random strings of code points of every
// length class.
TEST(JsonTextWriter, Utf8StringsAreEscapedAsNlohmannEscapesThem) {
  auto nlohmann_text = [](const std::string& s) { return nlohmann::json(s).dump(); };
  auto ours = [](const std::string& s) {
    std::string out = "x";  // appended to what is there
    append_escaped_utf8(out, s);
    return out.substr(1);
  };
  std::vector<std::string> samples = {"", "plain", "a\"b", "back\\slash", "line\nbreak\r\n\ttab", "\x7f del",
                                      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e", "\xef\xbf\xbd"};
  for (int c = 0; c < 0x80; ++c) samples.push_back(std::string("<") + static_cast<char>(c) + ">");
  // A byte to escape (or not ASCII) at every place of strings around the 16-byte blocks the
  // plain-text check reads.
  for (std::size_t size : {15u, 16u, 17u, 31u, 32u, 33u, 47u}) {
    for (std::size_t at = 0; at < size; ++at) {
      for (const char* odd : {"\"", "\\", "\x01", "\x7f", "\xc3\xa9"}) {
        std::string s(size, 'a');
        s.replace(at, 1, odd);
        samples.push_back(s);
      }
    }
  }
  std::uint32_t state = 12345;
  auto next = [&] { return state = state * 1103515245u + 12345u; };
  // Random strings of code points of each UTF-8 length, encoded by nlohmann's parser from
  // \u escapes (a surrogate pair above U+FFFF).
  for (int n = 0; n < 500; ++n) {
    std::string escaped = "\"";
    for (int k = next() % 24; k > 0; --k) {
      std::uint32_t cp = 0;
      switch (next() % 4) {
        case 0: cp = next() % 0x80; break;
        case 1: cp = 0x80 + next() % (0x800 - 0x80); break;
        case 2: cp = 0x800 + next() % (0x10000 - 0x800); if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000; break;
        default: cp = 0x10000 + next() % (0x110000 - 0x10000); break;
      }
      if (cp < 0x10000) {
        escaped += fmt::format("\\u{:04x}", cp);
      } else {
        escaped += fmt::format("\\u{:04x}\\u{:04x}", 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF));
      }
    }
    samples.push_back(nlohmann::json::parse(escaped + "\"").get<std::string>());
  }
  for (const auto& s : samples) {
    ASSERT_TRUE(is_valid_utf8(s));
    EXPECT_EQ(ours(s), nlohmann_text(s)) << nlohmann_text(s);
  }
  // Through the writer, which writes plain printable ASCII as it is and escapes the rest.
  {
    std::string out;
    JsonText j(out, 0);
    j.begin_array();
    for (const auto& s : samples) j.string(s);
    for (std::size_t size = 1; size <= 40; ++size) j.string(std::string(size, 'p'));
    j.end_array();
    nlohmann::json want = samples;
    for (std::size_t size = 1; size <= 40; ++size) want.push_back(std::string(size, 'p'));
    EXPECT_EQ(out, dumped(want));
  }
  // In a document: members and list items, with and without bytes to escape.
  const nlohmann::json doc = {{"a", "tab\there"}, {"b", {"caf\xc3\xa9\n", "\x01", "plain"}}, {"c", "\xff bad"}};
  std::string out;
  JsonText j(out, 0);
  j.begin_object();
  j.key("a");
  j.string(doc["a"].get<std::string>());
  j.key("b");
  j.strings(doc["b"].get<std::vector<std::string>>());
  j.key("c");
  j.string(doc["c"].get<std::string>());
  j.end_object();
  nlohmann::json want = doc;
  add_exact_bytes(want);
  EXPECT_EQ(out, dumped(want));
}

TEST(JsonTextWriter, LayoutIsDumpTwoAtAnyIndent) {
  for (const std::size_t indent : {0u, 4u}) {
    std::string text;
    JsonText j(text, indent);
    j.begin_object();
    j.key("a");
    j.begin_array();
    j.string("x\"y\\z\n\t\x01");
    j.begin_object();
    j.end_object();
    j.begin_array();
    j.end_array();
    j.string_or_null("");
    j.end_array();
    j.key("b");
    j.begin_object();
    j.key("c");
    j.string("caf\xc3\xa9");
    j.end_object();
    j.key("d");
    j.strings({});
    j.end_object();
    const nlohmann::json document = {
        {"a", nlohmann::json::array({"x\"y\\z\n\t\x01", nlohmann::json::object(), nlohmann::json::array(), nullptr})},
        {"b", {{"c", "caf\xc3\xa9"}}},
        {"d", nlohmann::json::array()}};
    std::string want;
    for (const char c : dumped(document)) want += c == '\n' ? "\n" + std::string(indent, ' ') : std::string(1, c);
    EXPECT_EQ(text, want) << indent;
  }
}

// Elements rendered once (render_elements) and copied in (elements_text) read as if written
// in place: first, between and after elements written in place, at any depth and indent; an
// empty rendering adds nothing.
TEST(JsonTextWriter, ElementsRenderedOnceReadAsWrittenInPlace) {
  for (const std::size_t indent : {0u, 4u}) {
    auto write = [](JsonText& j, bool copied) {
      j.begin_object();
      j.key("list");
      j.begin_array();
      auto two = [](JsonText& r) {
        r.begin_object();
        r.key("k");
        r.string("v\xff");  // a "_bytes" sibling inside a rendered element
        r.end_object();
        r.integer(7);
      };
      if (copied) {
        j.elements_text(JsonText::render_elements(j.element_indent(), two));
        j.elements_text(JsonText::render_elements(j.element_indent(), [](JsonText&) {}));
      } else {
        two(j);
      }
      j.boolean(true);
      j.begin_array();
      if (copied) {
        j.elements_text(JsonText::render_elements(j.element_indent(), two));
      } else {
        two(j);
      }
      j.end_array();
      j.end_array();
      j.end_object();
    };
    std::string in_place, copied;
    JsonText a(in_place, indent), b(copied, indent);
    write(a, false);
    write(b, true);
    EXPECT_EQ(copied, in_place) << indent;
    EXPECT_NE(in_place.find("\"k_bytes\": \"76ff\""), std::string::npos) << in_place;
  }
}

// Indents wider than the writer's line of spaces (70 levels, 140 spaces and more) come out
// as dump writes them, for members written one by one and for a structured value.
TEST(JsonTextWriter, DeepIndentsAreWrittenInFull) {
  nlohmann::json inner = nlohmann::json::array({1, "x"});
  for (int level = 0; level < 70; ++level) inner = nlohmann::json{{"k", inner}, {"m", level}};
  std::string text;
  JsonText j(text, 0);
  j.begin_object();
  j.key("deep");
  j.value(inner);
  j.key("list");
  j.begin_array();
  for (int level = 0; level < 70; ++level) j.begin_array();
  j.integer(7);
  j.integer(8);
  for (int level = 0; level < 70; ++level) j.end_array();
  j.end_array();
  j.end_object();
  nlohmann::json list = nlohmann::json::array({7, 8});
  for (int level = 0; level < 70; ++level) list = nlohmann::json::array({list});
  const std::string want = dumped(nlohmann::json{{"deep", inner}, {"list", list}});
  EXPECT_EQ(text, want);
  EXPECT_NE(text.find("\n" + std::string(144, ' ') + "8"), std::string::npos);  // 72 levels deep
}

// Strings and lists of strings that are not UTF-8: replaced in place, their exact bytes in a
// "<key>_bytes" sibling right after them, as add_exact_bytes sorts it; none where all is UTF-8.
// value() of a structured document adds the siblings of its own members.
TEST(JsonTextWriter, NamesThatAreNotUtf8GetTheirExactBytesBeside) {
  std::string text;
  JsonText j(text, 0);
  j.begin_object();
  j.key("file");
  j.string("/d\xff/r.txt");
  j.key("files");
  j.strings({"ok", "b\xfe"});
  j.key("good");
  j.strings({"a", "b"});
  j.key("name");
  j.value(nlohmann::json("n\xfe"));
  j.key("plain");
  j.value(nlohmann::json("p"));
  j.key("tree");
  j.value(nlohmann::json{{"k", "v\xff"}, {"n", 1}});
  j.end_object();
  nlohmann::json document = {{"file", "/d\xff/r.txt"},
                             {"files", {"ok", "b\xfe"}},
                             {"good", {"a", "b"}},
                             {"name", "n\xfe"},
                             {"plain", "p"},
                             {"tree", {{"k", "v\xff"}, {"n", 1}}}};
  add_exact_bytes(document);
  EXPECT_EQ(text, dumped(document));
  EXPECT_NE(text.find("\"file_bytes\": \"2f64ff2f722e747874\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"k_bytes\": \"76ff\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"name_bytes\": \"6efe\""), std::string::npos) << text;
  EXPECT_EQ(text.find("plain_bytes"), std::string::npos);
  EXPECT_EQ(text.find("good_bytes"), std::string::npos);
  // An array element is no member: no sibling.
  std::string list;
  JsonText l(list, 0);
  l.begin_array();
  l.string("\xff");
  l.end_array();
  EXPECT_EQ(list, dumped(nlohmann::json::array({"\xff"})));
}

}  // namespace
}  // namespace mlperf
