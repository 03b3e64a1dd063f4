// Tests of the RCP check (scoring.md §4): statistics, bisection, pruning, record choice,
// evaluation and table loading.

#include "mlperf/training/rcp.h"

#include <unistd.h>

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <bit>
#include <random>
#include <cstdint>

#include <gtest/gtest.h>

namespace mlperf {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// "Epochs to converge" of llama31_8b_ref_32 in training_5.1.0/rcps_llama31_8b.json.
const std::vector<double> kLlama8bBs32 = {
    196608, 172032, 184320, 184320, 172032, 172032, 184320, 184320, 184320, 172032,
    172032, 172032, 184320, 184320, 184320, 172032, 172032, 172032, 184320, 184320};

// Samples to converge of AMD's MI355X llama31_8b runs (v5.1), result_0 … result_9.
const std::vector<double> kAmdMi355x = {172000, 184288, 172000, 196576, 184288,
                                        184288, 184288, 172000, 172000, 172000};

RcpRecord llama8b_bs32() {
  return make_rcp_record("llama31_8b_ref_32", "llama31_8b", 32, kLlama8bBs32, 1, 10);
}

RcpSubmission submission(const std::string& benchmark, std::optional<long long> bs,
                         std::vector<double> samples, int required_runs = 10,
                         const char* ruleset = "5.1.0") {
  RcpSubmission s;
  s.benchmark = benchmark;
  s.ruleset = *Ruleset::parse(ruleset);
  s.batch_size = bs;
  s.samples_to_converge = std::move(samples);
  s.olympic_drop = 1;
  s.required_runs = required_runs;
  return s;
}

// Ten runs whose olympic mean (drop 1) is exactly `mean`.
std::vector<double> runs_with_mean(double mean) {
  return {mean - 10, mean - 1, mean + 1, mean - 2, mean + 2,
          mean - 3,  mean + 3, mean,     mean,     mean + 10};
}

// A record with a given batch size and mean (pruning only looks at those).
RcpRecord bare(const std::string& name, long long bs, double mean) {
  RcpRecord r;
  r.name = name;
  r.benchmark = "x";
  r.batch_size = bs;
  r.mean = mean;
  return r;
}

std::vector<long long> batch_sizes(const std::vector<RcpRecord>& records) {
  std::vector<long long> out;
  for (const auto& r : records) out.push_back(r.batch_size);
  return out;
}

// Two small records for the case tests: BS 16 (mean 100, stdev √40) and BS 64 (mean 200,
// stdev √160).
RcpRecord small16() { return make_rcp_record("x_16", "x", 16, {90, 100, 100, 100, 110}, 1, 10); }
RcpRecord small64() { return make_rcp_record("x_64", "x", 64, {180, 200, 200, 200, 220}, 1, 10); }

// ---------------------------------------------------------------- statistics (§4.2, §4.3)

TEST(RcpStats, Llama8bBs32MatchesSeedFigures) {
  const RcpRecord r = llama8b_bs32();
  EXPECT_EQ(r.name, "llama31_8b_ref_32");
  EXPECT_EQ(r.batch_size, 32);
  ASSERT_EQ(r.samples_to_converge.size(), 20u);
  EXPECT_TRUE(std::is_sorted(r.samples_to_converge.begin(), r.samples_to_converge.end()));
  EXPECT_DOUBLE_EQ(r.mean, 178858.66666666666);
  EXPECT_NEAR(r.stdev, 7165.0736883859045, 7165.0736883859045 * 1e-12);
  EXPECT_NEAR(r.min_epochs, 173649.76494948068, 173649.76494948068 * 1e-9);
  EXPECT_NEAR(r.max_speedup, 1.0299965952657717, 1e-9);
  EXPECT_DOUBLE_EQ(r.max_speedup, r.mean / r.min_epochs);
}

TEST(RcpStats, OlympicMeanDropsEndsButStdevUsesWholeList) {
  // Sorted {1, 2, 3, 4, 100}: olympic mean of {2, 3, 4} is 3; population stdev of all five.
  const RcpRecord r = make_rcp_record("r", "x", 8, {100, 3, 1, 4, 2}, 1, 10);
  EXPECT_DOUBLE_EQ(r.mean, 3.0);
  const double m = 110.0 / 5;
  const double var = ((1 - m) * (1 - m) + (2 - m) * (2 - m) + (3 - m) * (3 - m) +
                      (4 - m) * (4 - m) + (100 - m) * (100 - m)) / 5;
  EXPECT_NEAR(r.stdev, std::sqrt(var), 1e-12);
  EXPECT_EQ(r.samples_to_converge, (std::vector<double>{1, 2, 3, 4, 100}));
}

TEST(RcpStats, MeanSumsInNumpyPairwiseOrder) {
  // np.sum([0.1] * 10) is exactly 1.0 (pairwise, 8 accumulators), while a left-to-right sum
  // gives 0.9999999999999999. The olympic slice here is ten 0.1s.
  const RcpRecord r = make_rcp_record("r", "x", 8, std::vector<double>(12, 0.1), 1, 10);
  EXPECT_EQ(r.mean, 1.0 / 10);
  EXPECT_NE(r.mean, 0.9999999999999999 / 10);
}

TEST(RcpStats, TooShortListThrows) {
  EXPECT_THROW(make_rcp_record("r", "x", 8, {1, 2}, 1, 10), std::invalid_argument);
  EXPECT_THROW(make_rcp_record("r", "x", 8, {1, 2, 3, 4, 5, 6, 7, 8}, 4, 40),
               std::invalid_argument);
}

TEST(MinAcceptableMean, ZeroStdevReturnsMean) {
  EXPECT_EQ(min_acceptable_mean(4.0, 0.0, 18, 8), 4.0);
  EXPECT_EQ(min_acceptable_mean(178858.5, 0.0, 18, 8), 178858.5);
}

TEST(MinAcceptableMean, StopsWhereOneSidedPCrossesAlpha) {
  const double mean = 1000, stdev = 50;
  const int n_ref = 18, n_sub = 8;
  const double m = min_acceptable_mean(mean, stdev, n_ref, n_sub);
  EXPECT_LT(m, mean);
  EXPECT_GT(m, mean - 3 * stdev);
  // At the answer the one-sided p of the pooled t-test is 0.05 (to the bisection tolerance).
  const double df = n_ref + n_sub - 2;
  const double denom = std::sqrt(stdev * stdev * (1.0 / n_ref + 1.0 / n_sub));
  const boost::math::students_t_distribution<double> t(df);
  EXPECT_LT(boost::math::cdf(t, (m - 1e-3 - mean) / denom), 0.05);
  EXPECT_GT(boost::math::cdf(t, (m + 1e-3 - mean) / denom), 0.05);
  // More submission runs give a tighter bound.
  EXPECT_GT(min_acceptable_mean(mean, stdev, n_ref, 38), m);
}

// Answers are kept (min_acceptable_mean is pure): asked again it gives the same bits; asked
// with any one argument changed, another answer.
TEST(MinAcceptableMean, KeptAnswersAreThoseOfTheirArguments) {
  const double first = min_acceptable_mean(2000, 80, 18, 8);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(min_acceptable_mean(2000, 80, 18, 8)), std::bit_cast<std::uint64_t>(first));
  EXPECT_NE(min_acceptable_mean(2001, 80, 18, 8), first);
  EXPECT_NE(min_acceptable_mean(2000, 80, 18, 9), first);
  EXPECT_NE(min_acceptable_mean(2000, 80, 19, 8), first);
  EXPECT_NE(min_acceptable_mean(2000, 81, 18, 8), first);
  // A throw is not kept: it throws again.
  EXPECT_THROW(min_acceptable_mean(100, 5, 1, 1), std::domain_error);
  EXPECT_THROW(min_acceptable_mean(100, 5, 1, 1), std::domain_error);
}

// The bisection decides most steps from the alpha quantile and evaluates the CDF only near
// it; every step must still go as the reference's (the CDF at every step, scipy's order of
// operations), so the answers are the same bits. Compared on random arguments over the
// ranges RCPs have (epochs to millions of samples, 1 to 100 runs a side).
TEST(MinAcceptableMean, SameBitsAsTheBisectionThatEvaluatesTheCdfAtEveryStep) {
  auto reference = [](double mean, double stdev, int n_ref, int n_sub) {
    const double df = static_cast<double>(n_ref) + static_cast<double>(n_sub) - 2.0;
    const double var = stdev * stdev;
    const double svar = ((n_ref - 1) * var + (n_sub - 1) * var) / df;
    const double denom = std::sqrt(svar * (1.0 / n_ref + 1.0 / n_sub));
    const boost::math::students_t_distribution<double> dist(df);
    double lo = 0.0, hi = mean, mid = (lo + hi) / 2;
    while (hi - lo > 1e-4) {
      if (boost::math::cdf(dist, (mid - mean) / denom) > 0.05) {
        hi = mid;
      } else {
        lo = mid;
      }
      const double next = (lo + hi) / 2;
      if (next == mid) break;
      mid = next;
    }
    return mid;
  };
  std::mt19937_64 rng(20261126);
  std::uniform_real_distribution<double> exponent(-1.0, 7.5), spread(0.001, 0.4);
  for (int i = 0; i < 600; ++i) {
    const double mean = std::pow(10.0, exponent(rng));
    const double stdev = mean * spread(rng);
    const int n_ref = 1 + static_cast<int>(rng() % 100);
    const int n_sub = 1 + static_cast<int>(rng() % 100);
    if (n_ref + n_sub - 2 < 1) continue;
    SCOPED_TRACE(::testing::Message() << mean << " " << stdev << " " << n_ref << " " << n_sub);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(min_acceptable_mean(mean, stdev, n_ref, n_sub)),
              std::bit_cast<std::uint64_t>(reference(mean, stdev, n_ref, n_sub)));
  }
}

TEST(MinAcceptableMean, TooFewDegreesOfFreedomThrow) {
  EXPECT_THROW(min_acceptable_mean(100, 5, 1, 1), std::domain_error);
  EXPECT_NO_THROW(min_acceptable_mean(100, 5, 2, 1));
}

// ---------------------------------------------------------------- pruning (§4.4)

TEST(PruneRcps, DropsSmallerBatchSizesThanTheFastestRecord) {
  const auto out = prune_rcps({bare("a", 32, 150), bare("b", 8, 120), bare("c", 16, 100)});
  EXPECT_EQ(batch_sizes(out), (std::vector<long long>{16, 32}));
}

TEST(PruneRcps, DropsRecordAboveTheLineBetweenNeighbours) {
  // At BS 32 the line 16→64 gives 100 + 120·(16/48) = 140 < 200.
  const auto out = prune_rcps({bare("a", 16, 100), bare("b", 32, 200), bare("c", 64, 220)});
  EXPECT_EQ(batch_sizes(out), (std::vector<long long>{16, 64}));
}

TEST(PruneRcps, StaysAtTheSameIndexAfterDeleting) {
  // 32 lies above 16→48 (145); then 48 lies above 16→64 (166.67) and goes too.
  const auto out = prune_rcps(
      {bare("a", 16, 100), bare("b", 32, 160), bare("c", 48, 190), bare("d", 64, 200)});
  EXPECT_EQ(batch_sizes(out), (std::vector<long long>{16, 64}));
}

TEST(PruneRcps, KeepsRecordOnOrBelowTheLine) {
  const auto out = prune_rcps({bare("a", 16, 100), bare("b", 32, 150), bare("c", 48, 200),
                               bare("d", 64, 240)});
  // 32 lies exactly on the line 16→48 (150) and stays; 48 lies above 32→64 (195) and goes.
  EXPECT_EQ(batch_sizes(out), (std::vector<long long>{16, 32, 64}));
}

TEST(PruneRcps, TieOnSmallestMeanPicksTheFirstRecord) {
  // BS 16 and BS 32 share the smallest mean; the first (BS 16) wins, so only BS 8 goes.
  const auto out = prune_rcps({bare("c", 32, 100), bare("a", 8, 130), bare("b", 16, 100)});
  EXPECT_EQ(batch_sizes(out), (std::vector<long long>{16, 32}));
}

TEST(PruneRcps, RealLlama8bTableKeepsEveryRecordAtBs32) {
  std::vector<RcpRecord> in = {bare("a", 16, 161109.33333333334), llama8b_bs32(),
                               bare("c", 64, 226645.33333333334)};
  const auto out = prune_rcps(in);
  EXPECT_EQ(batch_sizes(out), (std::vector<long long>{16, 32, 64}));
}

// ---------------------------------------------------------------- check_rcp (§4.5, §4.6)

TEST(CheckRcp, AmdMi355xLlama8bExactMatchNormalizes) {
  const RcpVerdict v = check_rcp({llama8b_bs32()}, submission("llama31_8b", 32, kAmdMi355x));
  EXPECT_EQ(v.rcp_case, RcpCase::kExact);
  EXPECT_TRUE(v.passed);
  ASSERT_TRUE(v.submission_mean.has_value());
  // Sorted: 5 × 172000, 4 × 184288, 196576; the slice [1, 9) averages to exactly 178144.
  EXPECT_EQ(*v.submission_mean, 178144.0);
  ASSERT_TRUE(v.rcp_mean.has_value());
  EXPECT_DOUBLE_EQ(*v.rcp_mean, 178858.66666666666);
  EXPECT_DOUBLE_EQ(v.normalization_factor, 1.004011735824202);
  EXPECT_EQ(v.normalization_factor, 178858.66666666666 / 178144.0);
  ASSERT_TRUE(v.max_speedup.has_value());
  EXPECT_NEAR(*v.max_speedup, 1.0299965952657717, 1e-9);
  ASSERT_TRUE(v.min_mean.has_value());
  EXPECT_NEAR(*v.min_mean, 173649.76494948068, 1e-3);
  ASSERT_TRUE(v.record.has_value());
  EXPECT_EQ(v.record->name, "llama31_8b_ref_32");
  EXPECT_NE(v.message.find("178144"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("178858.67"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("1.004011735824202"), std::string::npos) << v.message;
}

TEST(CheckRcp, ExactSlowerThanRcpPassesWithFactorOne) {
  const RcpVerdict v =
      check_rcp({llama8b_bs32()}, submission("llama31_8b", 32, runs_with_mean(190000)));
  EXPECT_EQ(v.rcp_case, RcpCase::kExact);
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(*v.submission_mean, 190000.0);
  EXPECT_EQ(v.normalization_factor, 1.0);
}

TEST(CheckRcp, ExactTooFastFails) {
  const RcpVerdict v =
      check_rcp({llama8b_bs32()}, submission("llama31_8b", 32, runs_with_mean(170000)));
  EXPECT_EQ(v.rcp_case, RcpCase::kExact);
  EXPECT_FALSE(v.passed);
  // The factor is reported on a fail too, as rcp_checker.py returns it; the score ignores it.
  EXPECT_DOUBLE_EQ(v.normalization_factor, *v.rcp_mean / *v.submission_mean);
  EXPECT_GT(v.normalization_factor, 1.0);
  EXPECT_LT(*v.submission_mean, *v.min_mean);
}

TEST(CheckRcp, InterpolatedBetweenNearestRecords) {
  const RcpRecord lo = small16(), hi = small64();
  ASSERT_DOUBLE_EQ(lo.mean, 100.0);
  ASSERT_DOUBLE_EQ(hi.mean, 200.0);
  ASSERT_NEAR(lo.stdev, std::sqrt(40.0), 1e-12);
  ASSERT_NEAR(hi.stdev, std::sqrt(160.0), 1e-12);
  // A farther record below and above must not be used.
  const RcpRecord far_lo = make_rcp_record("x_8", "x", 8, {40, 50, 50, 50, 60}, 1, 10);
  const RcpRecord far_hi = make_rcp_record("x_128", "x", 128, {380, 400, 400, 400, 420}, 1, 10);

  const RcpVerdict v =
      check_rcp({far_lo, lo, hi, far_hi}, submission("x", 48, runs_with_mean(165)));
  EXPECT_EQ(v.rcp_case, RcpCase::kInterpolated);
  ASSERT_TRUE(v.record.has_value());
  const RcpRecord& r = *v.record;
  EXPECT_EQ(r.name, "interpolated_48");
  EXPECT_EQ(r.batch_size, 48);
  // 48 is 2/3 of the way from 16 to 64.
  EXPECT_NEAR(r.mean, 500.0 / 3, 1e-12);
  EXPECT_NEAR(r.stdev, std::sqrt(40.0) * 5 / 3, 1e-12);
  // n_ref = 2 × required runs = 20, n_sub = 8.
  EXPECT_EQ(r.min_epochs, min_acceptable_mean(r.mean, r.stdev, 20, 8));
  EXPECT_NE(r.min_epochs, min_acceptable_mean(r.mean, r.stdev, 3, 8));
  EXPECT_DOUBLE_EQ(r.max_speedup, r.mean / r.min_epochs);
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(*v.submission_mean, 165.0);
  EXPECT_DOUBLE_EQ(v.normalization_factor, r.mean / 165.0);
  EXPECT_DOUBLE_EQ(*v.rcp_mean, r.mean);
}

TEST(CheckRcp, OnlyRecordsAboveSlowerSubmissionIsSmallerBatchFallback) {
  const RcpRecord big = make_rcp_record("x_128", "x", 128, {380, 400, 400, 400, 420}, 1, 10);
  const RcpVerdict v = check_rcp({small64(), big}, submission("x", 32, runs_with_mean(210)));
  EXPECT_EQ(v.rcp_case, RcpCase::kSmallerBatchFallback);
  EXPECT_TRUE(v.passed);
  ASSERT_TRUE(v.record.has_value());
  EXPECT_EQ(v.record->name, "x_64");  // the smallest batch size
  EXPECT_EQ(v.normalization_factor, 1.0);
  EXPECT_EQ(*v.submission_mean, 210.0);
}

TEST(CheckRcp, OnlyRecordsAboveFasterThanAllowedIsMissing) {
  const RcpVerdict v = check_rcp({small64()}, submission("x", 32, runs_with_mean(150)));
  EXPECT_EQ(v.rcp_case, RcpCase::kMissing);
  EXPECT_FALSE(v.passed);
  EXPECT_DOUBLE_EQ(v.normalization_factor, *v.rcp_mean / 150.0);  // against the smallest record
  EXPECT_LT(150.0, *v.min_mean);
}

TEST(CheckRcp, OnlyRecordsBelowIsMissing) {
  const RcpVerdict v = check_rcp({small16()}, submission("x", 32, runs_with_mean(300)));
  EXPECT_EQ(v.rcp_case, RcpCase::kMissing);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.normalization_factor, 1.0);
  EXPECT_FALSE(v.record.has_value());
}

TEST(CheckRcp, NoRecordsIsNoRcps) {
  const RcpVerdict v = check_rcp({}, submission("x", 32, runs_with_mean(300)));
  EXPECT_EQ(v.rcp_case, RcpCase::kNoRcps);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.normalization_factor, 1.0);
}

TEST(CheckRcp, TwoNonConvergedRunsWithDropOneIsInsufficientConvergence) {
  std::vector<double> runs = kAmdMi355x;
  runs[0] = kInf;
  runs[5] = kInf;
  const RcpVerdict v = check_rcp({llama8b_bs32()}, submission("llama31_8b", 32, runs));
  EXPECT_EQ(v.rcp_case, RcpCase::kInsufficientConvergence);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.normalization_factor, 1.0);
}

TEST(CheckRcp, OneNonConvergedRunFallsOffTheTop) {
  // Replace the slowest run (196576) by a failure: the olympic slice is unchanged.
  std::vector<double> runs = kAmdMi355x;
  runs[3] = kInf;
  const RcpVerdict v = check_rcp({llama8b_bs32()}, submission("llama31_8b", 32, runs));
  EXPECT_EQ(v.rcp_case, RcpCase::kExact);
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(*v.submission_mean, 178144.0);
}

TEST(CheckRcp, UnknownBatchSizeFailsFirst) {
  std::vector<double> runs = kAmdMi355x;
  runs[0] = runs[1] = kInf;  // would also be insufficient convergence
  const RcpVerdict v = check_rcp({llama8b_bs32()}, submission("llama31_8b", std::nullopt, runs));
  EXPECT_EQ(v.rcp_case, RcpCase::kNoBatchSize);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.message, "batch size could not be determined");
}

TEST(CheckRcp, TooFewRunsForTheOlympicSliceFails) {
  const RcpVerdict v = check_rcp({llama8b_bs32()}, submission("llama31_8b", 32, {178000, 179000}));
  EXPECT_EQ(v.rcp_case, RcpCase::kExact);
  EXPECT_FALSE(v.passed);
  EXPECT_FALSE(v.submission_mean.has_value());
  EXPECT_FALSE(v.message.empty());
  // The official checker's mean of an empty slice: NaN.
  EXPECT_TRUE(std::isnan(v.normalization_factor));
}

TEST(CheckRcp, Llama405bRuleAppliesFromRuleset500) {
  const RcpRecord r = make_rcp_record("llama31_405b_ref_1152", "llama31_405b", 1152,
                                      {299520, 307200, 314880, 314880, 322560, 337920}, 1, 3);
  ASSERT_GT(r.stdev, 0);
  // Between the two minima: passes only with the 5.0.0 rule.
  const double sub = r.min_epochs - 20000;
  const std::vector<double> runs = {sub - 7680, sub, sub + 7680};

  const RcpVerdict v5 = check_rcp({r}, submission("llama31_405b", 1152, runs, 3, "5.0.0"));
  ASSERT_TRUE(v5.max_speedup.has_value());
  EXPECT_DOUBLE_EQ(*v5.max_speedup, r.mean / (r.min_epochs - 46080));
  EXPECT_NEAR(*v5.min_mean, r.min_epochs - 46080, 1e-6);
  EXPECT_TRUE(v5.passed);
  EXPECT_DOUBLE_EQ(v5.normalization_factor, r.mean / sub);

  const RcpVerdict v4 = check_rcp({r}, submission("llama31_405b", 1152, runs, 3, "4.1.0"));
  EXPECT_DOUBLE_EQ(*v4.max_speedup, r.max_speedup);
  EXPECT_FALSE(v4.passed);
  EXPECT_DOUBLE_EQ(v4.normalization_factor, r.mean / sub);  // reported, not applied
  EXPECT_GT(*v5.max_speedup, *v4.max_speedup);

  // Other benchmarks never get the offset.
  RcpRecord other = r;
  other.benchmark = "llama31_8b";
  const RcpVerdict v8 = check_rcp({other}, submission("llama31_8b", 1152, runs, 3, "5.1.0"));
  EXPECT_DOUBLE_EQ(*v8.max_speedup, r.max_speedup);
}

TEST(RcpCaseNames, AllCasesHaveTheirNames) {
  EXPECT_STREQ(to_string(RcpCase::kExact), "exact");
  EXPECT_STREQ(to_string(RcpCase::kInterpolated), "interpolated");
  EXPECT_STREQ(to_string(RcpCase::kSmallerBatchFallback), "smaller_batch_fallback");
  EXPECT_STREQ(to_string(RcpCase::kMissing), "missing");
  EXPECT_STREQ(to_string(RcpCase::kNoRcps), "no_rcps");
  EXPECT_STREQ(to_string(RcpCase::kInsufficientConvergence), "insufficient_convergence");
  EXPECT_STREQ(to_string(RcpCase::kNoBatchSize), "no_batch_size");
}

// ---------------------------------------------------------------- load_rcp_table

class LoadRcpTable : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("rcp_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path write(const std::string& name, const std::string& text) {
    const auto p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  std::filesystem::path dir_;
};

TEST_F(LoadRcpTable, ReadsSamplesKeyKeepsEveryRecordOfTheFileAndSortsByBatchSize) {
  // As the official checker reads rcps_<benchmark>.json: every record, whatever its
  // "Benchmark" says (the 3.1.0 stable_diffusion table names them "sd").
  const auto file = write("rcps_lora.json", R"({
    "lora_ref_64": {"Benchmark": "lora", "BS": 64, "Hyperparams": {"lr": 1e-4},
                    "samples to converge": [180, 220, 200, 200, 200]},
    "sd_ref_8": {"Benchmark": "sd", "BS": 8, "Hyperparams": {},
                    "samples to converge": [1, 2, 3]},
    "lora_ref_16": {"Benchmark": "lora", "BS": 16, "Hyperparams": {},
                    "samples to converge": [110, 90, 100, 100, 100]}
  })");
  const auto records = load_rcp_table(file, "samples to converge", 1, 10);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].name, "sd_ref_8");
  EXPECT_EQ(records[0].benchmark, "sd");
  EXPECT_EQ(records[0].batch_size, 8);
  EXPECT_DOUBLE_EQ(records[0].mean, 2.0);
  EXPECT_EQ(records[1].name, "lora_ref_16");
  EXPECT_EQ(records[1].benchmark, "lora");
  EXPECT_EQ(records[1].batch_size, 16);
  EXPECT_EQ(records[1].samples_to_converge, (std::vector<double>{90, 100, 100, 100, 110}));
  EXPECT_DOUBLE_EQ(records[1].mean, 100.0);
  EXPECT_NEAR(records[1].stdev, std::sqrt(40.0), 1e-12);
  EXPECT_EQ(records[1].min_epochs, min_acceptable_mean(100.0, records[1].stdev, 3, 8));
  EXPECT_EQ(records[2].name, "lora_ref_64");
  EXPECT_EQ(records[2].batch_size, 64);
  EXPECT_DOUBLE_EQ(records[2].mean, 200.0);
}

TEST_F(LoadRcpTable, EqualBatchSizesKeepFileOrder) {
  // Key order in the file is z then a: a map keyed by name would reverse them.
  const auto file = write("rcps_x.json", R"({
    "z": {"Benchmark": "x", "BS": 32, "Hyperparams": {}, "Epochs to converge": [1, 2, 3]},
    "a": {"Benchmark": "x", "BS": 32, "Hyperparams": {}, "Epochs to converge": [4, 5, 6]}
  })");
  const auto records = load_rcp_table(file, "Epochs to converge", 1, 10);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].name, "z");
  EXPECT_EQ(records[1].name, "a");
}

TEST_F(LoadRcpTable, MalformedJsonThrowsNamingTheFile) {
  const auto file = write("rcps_broken.json", "{ \"r\": {\"Benchmark\": ");
  try {
    load_rcp_table(file, "Epochs to converge", 1, 10);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rcps_broken.json"), std::string::npos) << e.what();
  }
}

TEST_F(LoadRcpTable, MissingListThrowsNamingTheFile) {
  const auto file = write("rcps_nolist.json", R"({
    "r": {"Benchmark": "x", "BS": 32, "Hyperparams": {}, "samples to converge": [1, 2, 3]}
  })");
  try {
    load_rcp_table(file, "Epochs to converge", 1, 10);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rcps_nolist.json"), std::string::npos) << e.what();
  }
}

TEST_F(LoadRcpTable, MissingFileThrowsNamingTheFile) {
  const auto file = dir_ / "rcps_absent.json";
  try {
    load_rcp_table(file, "Epochs to converge", 1, 10);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rcps_absent.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mlperf
