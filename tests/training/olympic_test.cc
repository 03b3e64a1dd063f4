// Tests of the olympic mean of run times (scoring.md §3).

#include "mlperf/training/olympic.h"

#include <algorithm>
#include <optional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace mlperf {
namespace {

// Ten run times, unsorted. Sorted: 9 10 10.5 11 11.5 12 12.5 13 14 20.
const std::vector<double> kTen = {12.5, 10.0, 11.0, 13.0, 9.0, 14.0, 10.5, 11.5, 20.0, 12.0};

TEST(OlympicMean, TenCountedNoneDropped) {
  // Drop 9 (fastest) and 20 (slowest): (10+10.5+11+11.5+12+12.5+13+14)/8 = 94.5/8.
  std::optional<double> mean = olympic_mean(kTen, 0, 1);
  ASSERT_TRUE(mean.has_value());
  EXPECT_EQ(*mean, 11.8125);
}

TEST(OlympicMean, NineCountedOneDropped) {
  // The dropped run stands in for the slowest: slice [1, 9) of the 9 counted ones.
  // Counted sorted: 10 10.5 11 11.5 12 12.5 13 14 20 → without 10: 104.5/8.
  std::vector<double> nine = {12.5, 10.0, 11.0, 13.0, 14.0, 10.5, 11.5, 20.0, 12.0};
  std::optional<double> mean = olympic_mean(nine, 1, 1);
  ASSERT_TRUE(mean.has_value());
  EXPECT_EQ(*mean, 13.0625);
}

TEST(OlympicMean, EightCountedTwoDroppedHasNoScore) {
  std::vector<double> eight = {12.5, 10.0, 11.0, 13.0, 14.0, 10.5, 11.5, 12.0};
  EXPECT_EQ(olympic_mean(eight, 2, 1), std::nullopt);
}

TEST(OlympicMean, SmallCounts) {
  // Three runs: only the middle one is left.
  EXPECT_EQ(olympic_mean({3.0, 1.0, 2.0}, 0, 1), std::optional<double>(2.0));
  // Two counted, one dropped: the fastest goes, the slower stays.
  EXPECT_EQ(olympic_mean({7.0, 5.0}, 1, 1), std::optional<double>(7.0));
  // Two counted, none dropped: nothing left between the ends.
  EXPECT_EQ(olympic_mean({7.0, 5.0}, 0, 1), std::nullopt);
}

TEST(OlympicMean, EmptyHasNoScore) {
  EXPECT_EQ(olympic_mean({}, 0, 1), std::nullopt);
  EXPECT_EQ(olympic_mean({}, 1, 1), std::nullopt);
  EXPECT_EQ(olympic_mean({}, 0, 4), std::nullopt);
}

std::vector<double> shuffled_range(int first, int last, int step) {
  std::vector<double> v;
  for (int x = first; x <= last; x += step) v.push_back(x);
  std::mt19937 rng(12345);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

TEST(OlympicMean, Unet3dDropsFourEachSide) {
  // 40 runs 1 … 40, none dropped: slice [4, 36) is 5 … 36, mean (5+36)/2.
  std::vector<double> forty = shuffled_range(1, 40, 1);
  ASSERT_EQ(forty.size(), 40u);
  EXPECT_EQ(olympic_mean(forty, 0, 4), std::optional<double>(20.5));
}

TEST(OlympicMean, Unet3dWithFourDropped) {
  // 36 counted 2, 4, … 72 and 4 dropped: slice [4, 36) is 10 … 72, mean (10+72)/2.
  std::vector<double> counted = shuffled_range(2, 72, 2);
  ASSERT_EQ(counted.size(), 36u);
  EXPECT_EQ(olympic_mean(counted, 4, 4), std::optional<double>(41.0));
  // 37 counted 1 … 37 and 3 dropped: slice [4, 36) is 5 … 36.
  std::vector<double> thirty_seven = shuffled_range(1, 37, 1);
  EXPECT_EQ(olympic_mean(thirty_seven, 3, 4), std::optional<double>(20.5));
}

TEST(OlympicMean, Unet3dWithFiveDroppedHasNoScore) {
  std::vector<double> counted = shuffled_range(1, 35, 1);
  EXPECT_EQ(olympic_mean(counted, 5, 4), std::nullopt);
}

}  // namespace
}  // namespace mlperf
