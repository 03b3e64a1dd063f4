// The out-of-memory policy of every subcommand (common.h, README "Robustness"): one message,
// exit 2, never a crash or an answer with status 0 made while memory ran out.

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <new>

#include "common.h"
#include "mlperf/report/atomic_file.h"

namespace mlperf::cli {
namespace {

std::atomic<void*> g_reserve{nullptr};
std::atomic<bool> g_ran_out{false};
std::atomic<bool> g_said{false};  // say_out_of_memory has printed a message

// operator new calls this when malloc fails. Releasing the reserve (munmap: the address space
// comes back, which is what an RLIMIT_AS limit counts) gives the unwinding room; throwing keeps
// the failure a failure (the allocation is not retried).
void on_allocation_failure() {
  g_ran_out.store(true);
  if (void* reserve = g_reserve.exchange(nullptr)) std::free(reserve);
  throw std::bad_alloc();
}

[[noreturn]] void on_terminate() {
  // No unwinding follows: the temporary --output file an AtomicFile would have removed on
  // the way out is removed here (a std::filesystem call that is noexcept but allocates ends
  // here when memory runs out).
  remove_unfinished_temporaries();
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

// 16 MiB of address space set aside for the unwinding after a failure. Large enough for
// malloc to map it on its own (above the mmap threshold), so free returns the whole of it to
// the kernel.
constexpr std::size_t kReserveBytes = 16 << 20;

// Installed before any other static object of the tool is built (CLI11's validators allocate
// then): memory running out that early is the message and exit 2 too, never an abort.
struct OutOfMemoryPolicy {
  OutOfMemoryPolicy() {
    g_reserve.store(std::malloc(kReserveBytes));
    std::set_new_handler(on_allocation_failure);
    std::set_terminate(on_terminate);
  }
};
__attribute__((init_priority(101))) const OutOfMemoryPolicy g_policy;

}  // namespace

bool memory_ran_out() { return g_ran_out.load(); }

void say_out_of_memory(std::string_view line) {
  g_said.store(true);
  print_stderr_line(line);
}

bool out_of_memory_said() { return g_said.load(); }

}  // namespace mlperf::cli

#if !defined(__SANITIZE_ADDRESS__)
// A nothrow allocation's failure is handled by its caller: std::stable_sort's buffer comes
// from std::get_temporary_buffer, and without it the sort runs in place with the same
// answer. libstdc++'s nothrow operator new calls the new handler first, which would count
// that as memory running out (exit 2 although the answer is exact); these replacements
// return null at once. (Not under AddressSanitizer, which keeps its own operator new and
// would take a malloc freed by its operator delete for a mismatch.)
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return std::malloc(size == 0 ? 1 : size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return std::malloc(size == 0 ? 1 : size); }
#endif
