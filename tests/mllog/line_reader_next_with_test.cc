// Tests of LineReader::next_with (the scoring path of the line reader): it yields exactly the
// lines `next` yields whose text holds the needle, with the same numbers, whatever the block
// size, read size and line limit; memory stays bounded as with `next`.

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"
#include "../test_support.h"

namespace mlperf {
namespace {

struct Got {
  std::string text;
  std::uint64_t number;
  bool truncated;
  std::size_t needle_at;
  bool operator==(const Got&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Got& g) {
  return os << "{\"" << g.text.substr(0, 40) << "\" (" << g.text.size() << " bytes), " << g.number
            << (g.truncated ? ", truncated" : "") << ", at " << g.needle_at << "}";
}

struct Shape {
  std::size_t chunk;  // bytes per source read
  std::size_t block;  // reader block size
  std::size_t max_line;
};

// What filtering `next` by `find(needle)` gives.
std::vector<Got> filtered_next(const std::string& text, std::string_view needle, Shape s) {
  LineReader reader(string_source(text, s.chunk), s.block, s.max_line);
  std::vector<Got> out;
  Line line;
  while (reader.next(line)) {
    std::size_t at = line.text.find(needle);
    if (at != std::string_view::npos) out.push_back({std::string(line.text), line.number, line.truncated, at});
  }
  return out;
}

std::vector<Got> with_needle(const std::string& text, std::string_view needle, Shape s) {
  LineReader reader(string_source(text, s.chunk), s.block, s.max_line);
  std::vector<Got> out;
  Line line;
  while (reader.next_with(needle, line)) {
    EXPECT_EQ(line.text.substr(line.needle_at, needle.size()), needle);
    out.push_back({std::string(line.text), line.number, line.truncated, line.needle_at});
  }
  EXPECT_FALSE(reader.next_with(needle, line));  // stays at the end
  return out;
}

const std::string kToken(kMllogToken);

TEST(LineReaderNextWith, YieldsTheLinesHoldingTheNeedleWithTheirNumbers) {
  std::string text = "noise\n" + kToken + "{\"a\": 1}\r\n\nmore noise\n0: " + kToken + "{}\n" + kToken + "last";
  std::vector<Got> want = {{kToken + "{\"a\": 1}", 2, false, 0}, {"0: " + kToken + "{}", 5, false, 3},
                           {kToken + "last", 6, false, 0}};
  EXPECT_EQ(with_needle(text, kToken, {SIZE_MAX, 1 << 20, 1 << 20}), want);
}

TEST(LineReaderNextWith, NoMatchAndEmptyInput) {
  EXPECT_TRUE(with_needle("", kToken, {SIZE_MAX, 64, 64}).empty());
  EXPECT_TRUE(with_needle("a\nb\nc", kToken, {SIZE_MAX, 64, 64}).empty());
  // A token cut by a newline is no token.
  EXPECT_TRUE(with_needle(":::MLL\nOG x\n", kToken, {SIZE_MAX, 64, 64}).empty());
  // Without the trailing space it is not the token either.
  EXPECT_TRUE(with_needle(":::MLLOG{}\n", kToken, {SIZE_MAX, 64, 64}).empty());
}

TEST(LineReaderNextWith, FirstOccurrenceIsReported) {
  std::string line = "x " + kToken + "{} " + kToken + "{}";
  std::vector<Got> got = with_needle(line + "\n", kToken, {SIZE_MAX, 64, 1024});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].needle_at, 2u);
  EXPECT_EQ(got[0].text, line);
}

TEST(LineReaderNextWith, OverLongLinesAsNextGivesThem) {
  // Limit 32 bytes: a token in the kept head, one past it, one across its end.
  std::string head_token = kToken + std::string(60, 'x');
  std::string late_token = std::string(40, 'y') + kToken;
  std::string across = std::string(28, 'z') + kToken + "tail";
  std::string text = head_token + "\n" + late_token + "\n" + across + "\n" + kToken + "ok\n";
  for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{64}, SIZE_MAX}) {
    Shape s{chunk, 16, 32};
    SCOPED_TRACE(chunk);
    std::vector<Got> want = filtered_next(text, kToken, s);
    ASSERT_EQ(want.size(), 2u);  // the head with the token (truncated) and the last line
    EXPECT_TRUE(want[0].truncated);
    EXPECT_EQ(want[1].number, 4u);
    EXPECT_EQ(with_needle(text, kToken, s), want);
  }
}

TEST(LineReaderNextWith, BadNeedleThrows) {
  LineReader reader(string_source("a\n"));
  Line line;
  EXPECT_THROW(reader.next_with("", line), std::invalid_argument);
  EXPECT_THROW(reader.next_with("a\nb", line), std::invalid_argument);
  EXPECT_THROW(reader.next_with(std::string(65, 'a'), line), std::invalid_argument);
}

// A needle of the same length but other bytes is a new needle (next_with compares the
// needle it is given with the last one without a call for 8 to 16 bytes).
TEST(LineReaderNextWith, ANeedleOfTheSameLengthWithOtherBytesIsANewNeedle) {
  for (const std::string& stem : {std::string("abcdefg"), std::string("abcdefghijklmno")}) {
    SCOPED_TRACE(stem);
    const std::string one = stem + "1", two = stem + "2", three = "X" + stem.substr(1) + "1";
    const std::string text = one + " a\n" + two + " b\n" + three + " c\n" + one + " d\n" + two + " e\n";
    LineReader reader(string_source(text), 8, 64);
    Line line;
    ASSERT_TRUE(reader.next_with(three, line));
    EXPECT_EQ(line.text, three + " c");
    ASSERT_TRUE(reader.next_with(two, line));
    EXPECT_EQ(line.text, two + " e");
    reader = LineReader(string_source(text), 8, 64);
    ASSERT_TRUE(reader.next_with(two, line));
    EXPECT_EQ(line.text, two + " b");
    ASSERT_TRUE(reader.next_with(one, line));  // only its last byte differs from `two`
    EXPECT_EQ(line.text, one + " d");
    EXPECT_EQ(line.number, 4u);
    EXPECT_FALSE(reader.next_with(three, line));
  }
}

TEST(LineReaderNextWith, MixesWithNext) {
  std::string text = "a\n" + kToken + "1\nb\n" + kToken + "2\nc\n";
  LineReader reader(string_source(text), 8, 64);
  Line line;
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line.text, "a");
  ASSERT_TRUE(reader.next_with(kToken, line));
  EXPECT_EQ(line.number, 2u);
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line.text, "b");
  EXPECT_EQ(line.number, 3u);
  EXPECT_EQ(line.needle_at, std::string_view::npos);
  ASSERT_TRUE(reader.next_with(kToken, line));
  EXPECT_EQ(line.text, kToken + "2");
  EXPECT_EQ(line.number, 4u);
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line.text, "c");
  EXPECT_FALSE(reader.next(line));
}

// Random logs (noise, tokens, CRs, long lines, lines cut anywhere) read with random block,
// read and limit sizes: next_with always equals filtered next. Covers the vector search's
// block edges (the token split across 16- and 32-byte steps and across reads).
TEST(LineReaderNextWith, EqualsFilteredNextOnRandomLogs) {
  std::mt19937 rng(20251021);
  const std::vector<std::string> pieces = {kToken, ":::MLLOG", "::", "M", "G", "LOG ", "\n", "\r\n", "\r",
                                           "0: ", "{\"key\": \"run_start\"}", "noise noise ", "\t", " "};
  for (int round = 0; round < 400; ++round) {
    std::string text;
    int parts = static_cast<int>(rng() % 120);
    for (int k = 0; k < parts; ++k) {
      if (rng() % 17 == 0) {
        text += std::string(rng() % 300, static_cast<char>('a' + rng() % 3));
      } else {
        text += pieces[rng() % pieces.size()];
      }
    }
    Shape s{1 + rng() % 97, 1 + rng() % 200, 1 + rng() % 150};
    if (round % 5 == 0) s.chunk = SIZE_MAX;
    SCOPED_TRACE(::testing::Message() << "round " << round << " chunk " << s.chunk << " block " << s.block
                                      << " max " << s.max_line);
    ASSERT_EQ(with_needle(text, kToken, s), filtered_next(text, kToken, s));
    // A one-byte needle and one made of common bytes work the same way.
    ASSERT_EQ(with_needle(text, "G", s), filtered_next(text, "G", s));
    ASSERT_EQ(with_needle(text, "o: ", s), filtered_next(text, "o: ", s));
  }
}

// next_with tries the next line at the offset where the last one held the needle: a line
// with the needle there but also earlier, one with a newline before that offset, and one
// whose needle moved still come out as filtered next gives them.
TEST(LineReaderNextWith, TheLastLinesOffsetIsOnlyAGuess) {
  const std::string text = "xx" + kToken + "{}\n" +         // at 2
                           "x\n" + kToken + "{}\n" +        // the token 2 bytes on, after a newline
                           kToken + kToken + "{}\n" +       // at 0 (and at 9)
                           "0: " + kToken + "{}\n" +         // at 3
                           "0: " + kToken + "{}\n" +         // at 3 again
                           ":" + kToken + "{}\n" +           // at 1: ':' then the token
                           "0::" + kToken + "{}\n";          // at 3, with ':' in the prefix
  for (std::size_t chunk : {std::size_t{1}, std::size_t{5}, SIZE_MAX}) {
    for (std::size_t block : {std::size_t{8}, std::size_t{64}, std::size_t{1} << 20}) {
      Shape s{chunk, block, 1 << 20};
      SCOPED_TRACE(::testing::Message() << "chunk " << chunk << " block " << block);
      const std::vector<Got> got = with_needle(text, kToken, s);
      ASSERT_EQ(got, filtered_next(text, kToken, s));
      std::vector<std::size_t> at;
      for (const Got& g : got) at.push_back(g.needle_at);
      EXPECT_EQ(at, (std::vector<std::size_t>{2, 0, 0, 3, 3, 1, 3}));
      EXPECT_EQ(got[1].number, 3u);
    }
  }
  // A needle that overlaps itself: "aa" found at 1 in "xaa", then at 0 in "aaa" (also at 1).
  const std::string overlapping = "xaa\naaa\nbaa\n";
  const std::vector<Got> got = with_needle(overlapping, "aa", {SIZE_MAX, 64, 64});
  ASSERT_EQ(got, filtered_next(overlapping, "aa", {SIZE_MAX, 64, 64}));
  EXPECT_EQ(got[1].needle_at, 0u);
}

// Lines of a few prefixes in random order (so the offset guessed is often right and often
// wrong), random blocks and reads: next_with equals filtered next.
TEST(LineReaderNextWith, EqualsFilteredNextWhenPrefixesRepeatAndChange) {
  std::mt19937 rng(20261126);
  const std::vector<std::string> prefixes = {"", "0: ", " 0: ", "[1,0]<stdout>:", ":", "::", ":::", ":::MLLOG",
                                             std::string(31, 'p'), std::string(33, 'q'), "x\n"};
  for (int round = 0; round < 200; ++round) {
    std::string text;
    const int lines = 1 + static_cast<int>(rng() % 60);
    for (int k = 0; k < lines; ++k) {
      text += prefixes[rng() % prefixes.size()];
      if (rng() % 6 != 0) text += kToken;
      text += "{\"k\": " + std::to_string(rng() % 1000) + "}" + (rng() % 9 == 0 ? "\r\n" : "\n");
    }
    Shape s{1 + rng() % 97, 1 + rng() % 200, 8 + rng() % 150};
    if (round % 4 == 0) s.chunk = SIZE_MAX;
    SCOPED_TRACE(::testing::Message() << "round " << round);
    ASSERT_EQ(with_needle(text, kToken, s), filtered_next(text, kToken, s));
  }
}

TEST(LineReaderNextWith, FileSourceWithLargeBlocks) {
  // Many lines across the default 1 MiB blocks: numbers stay right across refills.
  std::string text;
  std::vector<Got> want;
  std::uint64_t number = 0;
  for (int i = 0; i < 40000; ++i) {
    text += "[1,0]<stdout>: step " + std::to_string(i) + " loss 0.123\n";
    ++number;
    if (i % 7 == 0) {
      std::string line = "0: " + kToken + "{\"time_ms\": " + std::to_string(i) + "}";
      text += line + "\n";
      want.push_back({line, ++number, false, 3});
    }
  }
  testing::TempFile file(text);
  LineReader reader(file_source(file.path()));
  std::vector<Got> got;
  Line line;
  while (reader.next_with(kToken, line)) got.push_back({std::string(line.text), line.number, line.truncated, line.needle_at});
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace mlperf
