#pragma once
// A small fork-join helper: independent jobs over an index range on the machine's cores.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace mlperf {

/// The number of threads parallel_for uses by default: the machine's hardware threads
/// (at least 1), asked once (glibc reads /sys/devices/system/cpu/online on every call).
inline unsigned default_threads() {
  static const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  return threads;
}

/// Calls job(i) once for every i in [0, count), on up to `threads` threads (the calling
/// thread included); jobs start in index order, each thread taking the next index when it
/// is free, and all have finished when this returns. Jobs must not throw (catch inside) and
/// must write only to their own slot of any shared output, which keeps results in index
/// order whatever the scheduling (issue #5: files scored in parallel, deterministic order).
template <class Job>
void parallel_for(std::size_t count, unsigned threads, const Job& job) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) job(i);
  };
  const unsigned n = std::max(1u, static_cast<unsigned>(std::min<std::size_t>(threads, count)));
  std::vector<std::thread> pool;
  pool.reserve(n - 1);
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

}  // namespace mlperf
