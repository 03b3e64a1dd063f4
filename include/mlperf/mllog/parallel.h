#pragma once
// A small fork-join helper: independent jobs over an index range on the machine's cores.

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace mlperf {

/// The CPUs this process may run on: those of its affinity mask (`taskset`, a cgroup's
/// cpuset), else the machine's hardware threads; at least 1. Asked anew on every call.
inline unsigned cpus_allowed() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

/// The number of threads parallel_for uses by default: cpus_allowed(), asked once. (Not
/// std::thread::hardware_concurrency: under `taskset -c 0` on 16 cores it gave 16 threads
/// taking turns on one core, twice the CPU time of one.)
inline unsigned default_threads() {
  static const unsigned threads = cpus_allowed();
  return threads;
}

/// Calls job(i) once for every i in [0, count), on up to `threads` threads (the calling
/// thread included); jobs start in index order, each thread taking the next index when it
/// is free, and all have finished when this returns. Jobs should catch what they can judge
/// and must write only to their own slot of any shared output, which keeps results in index
/// order whatever the scheduling (issue #5: files scored in parallel, deterministic order).
/// An exception escaping a job (std::bad_alloc when memory runs out) never escapes its
/// thread: no further job starts, and the first such exception is rethrown here once every
/// thread has finished. Threads that cannot be started (std::system_error: no resources)
/// leave their share to the others; memory running out while they are started (std::bad_alloc)
/// is rethrown as a job's would be, never taken for a slower answer (README, Robustness).
template <class Job>
void parallel_for(std::size_t count, unsigned threads, const Job& job) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto worker = [&]() noexcept {
    try {
      for (std::size_t i = next++; i < count && !failed.load(std::memory_order_relaxed); i = next++) job(i);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
      failed = true;
    }
  };
  const unsigned n = std::max(1u, static_cast<unsigned>(std::min<std::size_t>(threads, count)));
  std::vector<std::thread> pool;
  try {
    pool.reserve(n - 1);
    for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  } catch (const std::bad_alloc&) {
    // Out of memory: the threads that started stop after their job, and it is rethrown below.
    std::lock_guard lock(error_mutex);
    if (!first_error) first_error = std::current_exception();
    failed = true;
  } catch (const std::exception&) {
    // No thread to start: the threads that started and this one do the rest.
  }
  worker();
  for (auto& t : pool) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

/// Calls make(i) for every i in [0, count) on up to `threads` threads, a window of
/// `threads` × 8 at a time, then use(i, made) in index order on the calling thread, and
/// lets the window's Results go before the next window is made: a report's texts made on
/// every core and written in order, without holding them all. What make or use throws is
/// rethrown (make's as parallel_for rethrows it); the uses before it have happened.
template <class Result, class Make, class Use>
void parallel_in_order(std::size_t count, unsigned threads, const Make& make, const Use& use) {
  const std::size_t window = std::max<std::size_t>(1, std::size_t{std::max(1u, threads)} * 8);
  std::vector<Result> made(std::min(window, count));
  for (std::size_t first = 0; first < count; first += window) {
    const std::size_t n = std::min(window, count - first);
    parallel_for(n, threads, [&](std::size_t k) { made[k] = make(first + k); });
    for (std::size_t k = 0; k < n; ++k) {
      use(first + k, made[k]);
      made[k] = Result();
    }
  }
}

}  // namespace mlperf
