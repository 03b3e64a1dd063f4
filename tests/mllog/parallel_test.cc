// parallel.h: the threads parallel_for takes by default follow the CPUs the process may use.
#include "mlperf/mllog/parallel.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <stdexcept>

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

}  // namespace
}  // namespace mlperf
