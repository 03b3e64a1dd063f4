// The out-of-memory policy of every subcommand (common.h, README "Robustness"): one message,
// exit 2, never a crash or an answer with status 0 made while memory ran out.

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <new>

#include "common.h"

namespace mlperf::cli {
namespace {

std::atomic<void*> g_reserve{nullptr};
std::atomic<bool> g_ran_out{false};

// operator new calls this when malloc fails. Releasing the reserve (munmap: the address space
// comes back, which is what an RLIMIT_AS limit counts) gives the unwinding room; throwing keeps
// the failure a failure (the allocation is not retried).
void on_allocation_failure() {
  g_ran_out.store(true);
  if (void* reserve = g_reserve.exchange(nullptr)) std::free(reserve);
  throw std::bad_alloc();
}

[[noreturn]] void on_terminate() {
  if (g_ran_out.load()) {
    // Only async-signal-safe calls: the heap may be exhausted or locked.
    const char* m = kOutOfMemoryMessage;
    std::size_t n = 0;
    while (m[n] != '\0') ++n;
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, m, n);
    ::_exit(kExitInputError);
  }
  std::abort();
}

}  // namespace

void install_out_of_memory_policy(std::size_t reserve_bytes) {
  // Large enough for malloc to map it on its own (above the mmap threshold), so free returns
  // the whole of it to the kernel.
  g_reserve.store(std::malloc(reserve_bytes));
  std::set_new_handler(on_allocation_failure);
  std::set_terminate(on_terminate);
}

bool memory_ran_out() { return g_ran_out.load(); }

}  // namespace mlperf::cli
