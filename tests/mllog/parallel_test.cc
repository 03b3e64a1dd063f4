// parallel.h: the threads parallel_for takes by default follow the CPUs the process may use.
#include "mlperf/mllog/parallel.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "../test_support.h"

namespace mlperf {
namespace {

using testing::AffinityGuard;

TEST(Parallel, TheCpusAllowedAreTheAffinityMasksNotTheMachines) {
  AffinityGuard guard;
  ASSERT_TRUE(guard.ok());
  EXPECT_EQ(cpus_allowed(), static_cast<unsigned>(CPU_COUNT(&guard.saved())));
  // As under `taskset -c N`: one CPU allowed, one thread, whatever the machine has.
  if (!guard.pin_to_first_cpu()) {
    GTEST_SKIP() << "this sandbox does not let a thread change its CPU affinity";
  }
  EXPECT_EQ(cpus_allowed(), 1u);
}

TEST(Parallel, EveryJobRunsOnceAndTheFirstErrorIsRethrown) {
  std::vector<int> runs(1000, 0);
  parallel_for(runs.size(), 4, [&](std::size_t i) { runs[i] += static_cast<int>(i % 7) + 1; });
  for (std::size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i], static_cast<int>(i % 7) + 1) << i;
  EXPECT_THROW(parallel_for(100, 3,
                            [&](std::size_t i) {
                              if (i == 50) throw std::runtime_error("job 50");
                            }),
               std::runtime_error);
}

// What is made on many threads is used once each, in index order, on the calling thread;
// what make throws stops the rest after the uses before its window.
TEST(Parallel, InOrderUsesWhatEachJobMadeInIndexOrder) {
  for (unsigned threads : {1u, 3u}) {
    std::vector<std::size_t> used;
    parallel_in_order<std::string>(
        100, threads, [](std::size_t i) { return std::to_string(i * i); },
        [&](std::size_t i, const std::string& made) {
          EXPECT_EQ(made, std::to_string(i * i));
          used.push_back(i);
        });
    ASSERT_EQ(used.size(), 100u) << threads;
    for (std::size_t i = 0; i < used.size(); ++i) EXPECT_EQ(used[i], i);
  }
  std::size_t uses = 0;
  EXPECT_THROW(parallel_in_order<int>(
                   100, 2,
                   [](std::size_t i) {
                     if (i == 50) throw std::runtime_error("job 50");
                     return static_cast<int>(i);
                   },
                   [&](std::size_t, int) { ++uses; }),
               std::runtime_error);
  EXPECT_EQ(uses, 48u);  // the windows of 16 before the one holding job 50
}

}  // namespace
}  // namespace mlperf
