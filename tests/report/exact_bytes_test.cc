// Names that are not UTF-8 in JSON reports: the "<key>_bytes" siblings (exact_bytes.h).

#include "mlperf/report/exact_bytes.h"

#include <gtest/gtest.h>

namespace mlperf {
namespace {

TEST(ExactBytes, HexIsTwoLowercaseDigitsAByte) {
  EXPECT_EQ(hex_bytes(""), "");
  EXPECT_EQ(hex_bytes(std::string("a\xff\n\0/", 5)), "61ff0a002f");
}

TEST(ExactBytes, OnlyStringsThatAreNotUtf8GetASibling) {
  EXPECT_FALSE(exact_bytes_sibling(nlohmann::json("caf\xc3\xa9 \x1b[2J")));  // UTF-8, control or not
  EXPECT_FALSE(exact_bytes_sibling(nlohmann::json(1.5)));
  EXPECT_FALSE(exact_bytes_sibling(nlohmann::json::object({{"k", "\xff"}})));  // its members get theirs
  EXPECT_EQ(exact_bytes_sibling(nlohmann::json("sys\xff")).value(), nlohmann::json("737973ff"));
  // An overlong encoding and a lone continuation byte are not UTF-8 either.
  EXPECT_EQ(exact_bytes_sibling(nlohmann::json("\xc0\xaf")).value(), nlohmann::json("c0af"));
  EXPECT_EQ(exact_bytes_sibling(nlohmann::json("\x80")).value(), nlohmann::json("80"));
  const nlohmann::json list = {"ok", "\xfe", 3};
  EXPECT_EQ(exact_bytes_sibling(list).value(), nlohmann::json::parse(R"([null, "fe", null])"));
  EXPECT_FALSE(exact_bytes_sibling(nlohmann::json({"ok", "fine"})));
}

TEST(ExactBytes, AddsSiblingsAtEveryDepthAndDecodesToTheBytes) {
  const std::string name = "/tmp/r\xff\xfe/result_0.txt";
  nlohmann::json doc = {{"results",
                         {{{"directory", "/tmp/r\xff\xfe"},
                           {"runs", {{{"file", name}, {"minutes", 1.0}}, {{"file", "/tmp/ok.txt"}}}},
                           {"warnings", {"fine", "bad \xff"}},
                           {"system", "MI355X"}}}}};
  add_exact_bytes(doc);
  const auto& r = doc["results"][0];
  EXPECT_EQ(r["directory_bytes"], "2f746d702f72fffe");
  EXPECT_EQ(r["runs"][0]["file_bytes"], hex_bytes(name));
  EXPECT_FALSE(r["runs"][1].contains("file_bytes"));
  EXPECT_EQ(r["warnings_bytes"], nlohmann::json::parse(R"([null, "62616420ff"])"));
  EXPECT_FALSE(r.contains("system_bytes"));
  // The display string is what the dump writes (U+FFFD for each bad byte); the sibling gives
  // the exact name back.
  const auto reread = nlohmann::json::parse(doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  EXPECT_EQ(reread["results"][0]["directory"], "/tmp/r\xef\xbf\xbd\xef\xbf\xbd");
  std::string decoded;
  const std::string hex = reread["results"][0]["runs"][0]["file_bytes"];
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) decoded.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  EXPECT_EQ(decoded, name);
}

TEST(ExactBytes, ATakenSiblingNameIsKeptAndAUtf8DocumentIsUnchanged) {
  nlohmann::json doc = {{"file", "\xff"}, {"file_bytes", "mine"}};
  add_exact_bytes(doc);
  EXPECT_EQ(doc["file_bytes"], "mine");
  nlohmann::json clean = {{"a", {{"b", "caf\xc3\xa9"}, {"c", {1, "x"}}}}};
  const nlohmann::json before = clean;
  add_exact_bytes(clean);
  EXPECT_EQ(clean, before);
}

}  // namespace
}  // namespace mlperf
