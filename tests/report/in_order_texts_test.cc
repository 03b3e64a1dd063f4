// Tests of InOrderTexts (report/in_order_texts.h): texts given in any order, from many
// threads, are written once each, in index order, one thread at a time, as soon as each
// one's turn comes; add() of a report writer writes the rest.

#include "mlperf/report/in_order_texts.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace mlperf {
namespace {

TEST(InOrderTexts, TextsGivenInAnyOrderFromManyThreadsAreWrittenInOrderOneThreadAtATime) {
  for (unsigned seed : {1u, 2u, 3u, 4u}) {
    InOrderTexts texts;
    std::string report;
    std::vector<std::size_t> counts;  // `written` as each text was written
    std::atomic<int> writers{0};
    bool overlapped = false;
    const InOrderTexts::Write write = [&](std::string_view text, std::size_t written) {
      if (writers.fetch_add(1) != 0) overlapped = true;
      report.append(text).append(";");
      counts.push_back(written);
      std::this_thread::yield();
      writers.fetch_sub(1);
    };
    for (std::size_t batch = 0; batch < 2; ++batch) {
      std::vector<std::size_t> order(200);
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), std::mt19937(seed + batch));
      std::vector<std::thread> threads;
      for (std::size_t t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
          for (std::size_t i = t; i < order.size(); i += 4) {
            texts.give(order[i], std::to_string(batch) + "." + std::to_string(order[i]), write);
          }
        });
      }
      for (auto& t : threads) t.join();
      EXPECT_EQ(texts.next(), 200u);  // all given: all written
      texts.end_batch();
    }
    EXPECT_FALSE(overlapped) << seed;
    std::string want;
    for (std::size_t batch = 0; batch < 2; ++batch) {
      for (std::size_t i = 0; i < 200; ++i) want += std::to_string(batch) + "." + std::to_string(i) + ";";
    }
    EXPECT_EQ(report, want) << seed;
    ASSERT_EQ(counts.size(), 400u);
    for (std::size_t i = 0; i < counts.size(); ++i) EXPECT_EQ(counts[i], i);  // across batches
    EXPECT_EQ(texts.written(), 400u);
  }
}

// A text given before its turn waits; the caller takes what is left, counting each it writes.
TEST(InOrderTexts, WhatIsNotWrittenWaitsForTheCaller) {
  InOrderTexts texts;
  std::string report;
  const InOrderTexts::Write write = [&](std::string_view text, std::size_t) { report.append(text); };
  texts.give(0, "a", write);
  texts.give(2, "c", write);
  EXPECT_EQ(report, "a");  // c waits for b
  EXPECT_EQ(texts.next(), 1u);
  EXPECT_EQ(texts.take(1), std::nullopt);  // b was never given (add() writes it itself)
  EXPECT_EQ(texts.count_written(), 1u);
  report += "b";
  EXPECT_EQ(texts.next(), 2u);
  EXPECT_EQ(texts.take(2), "c");
  EXPECT_EQ(texts.take(2), std::nullopt);  // taken once
  EXPECT_EQ(texts.count_written(), 2u);
  report += "c";
  EXPECT_EQ(report, "abc");
  texts.give(5, "f", write);  // left when the batch ends
  texts.end_batch();
  EXPECT_EQ(texts.next(), 0u);
  EXPECT_EQ(texts.take(5), std::nullopt);
  texts.give(0, "x", write);  // the next batch's first
  EXPECT_EQ(report, "abcx");
  EXPECT_EQ(texts.written(), 4u);
}

// What the writing throws reaches the thread that wrote; the next text is then written by
// the thread that gives it (none is left waiting on a writer that is gone).
TEST(InOrderTexts, AWriteThatThrowsLeavesTheNextToBeWritten) {
  InOrderTexts texts;
  std::string report;
  bool fail = true;
  const InOrderTexts::Write write = [&](std::string_view text, std::size_t) {
    if (fail) {
      fail = false;
      throw std::runtime_error("no space left");
    }
    report.append(text);
  };
  EXPECT_THROW(texts.give(0, "a", write), std::runtime_error);
  texts.give(1, "b", write);
  EXPECT_EQ(report, "b");
  EXPECT_EQ(texts.next(), 2u);
}

}  // namespace
}  // namespace mlperf
