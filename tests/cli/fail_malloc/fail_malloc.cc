// A preload library for the out-of-memory tests (tests/cli/cli_robustness_test.cc): makes
// exactly one allocation of the process fail, as a limit on memory can fail any one of them.
//
//   MLPERF_FAIL_ALLOCATION=N   the Nth call (from 0) of malloc, calloc or realloc returns
//                              null with errno ENOMEM; every other call succeeds
//   MLPERF_FAIL_MIN_BYTES=S    only calls asking for S bytes or more are counted (and can
//                              fail): a sweep of the larger allocations, a text's growth
//                              among them, takes fewer runs
//   MLPERF_COUNT_ALLOCATIONS=F at exit, the number of calls counted is written to file F
//   MLPERF_COUNT_TLS_DESTRUCTORS=F  at exit, the number of destructors of C++ thread_local
//                              objects registered with glibc (__cxa_thread_atexit_impl) is
//                              written to file F: glibc aborts the process when such a
//                              registration cannot allocate, so the tool must make none
//
// Loaded with LD_PRELOAD into the tool alone; never linked. Calls glibc's own allocator
// (__libc_malloc …), which is what malloc would have called.

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
}

namespace {

std::atomic<long> g_calls{0};
std::atomic<long> g_tls_destructors{0};

// getenv allocates nothing; read on every call (static initialisers of other libraries
// allocate before this library's would run).
long failing_call() {
  const char* text = std::getenv("MLPERF_FAIL_ALLOCATION");
  return text ? std::atol(text) : -1;
}

std::size_t least_bytes() {
  const char* text = std::getenv("MLPERF_FAIL_MIN_BYTES");
  return text ? static_cast<std::size_t>(std::atol(text)) : 0;
}

bool this_call_fails(std::size_t bytes) {
  if (bytes < least_bytes()) return false;
  const long call = g_calls.fetch_add(1);
  if (call != failing_call()) return false;
  errno = ENOMEM;
  return true;
}

// Writes `value` in decimal to the file named by the environment variable `variable`, when it
// is set, with write(2) alone: the heap is not touched at exit.
void write_count(const char* variable, long value) {
  const char* file = std::getenv(variable);
  if (!file) return;
  const int fd = ::open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char digits[32];
  int n = 0;
  do {
    digits[sizeof digits - 1 - n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  [[maybe_unused]] const ssize_t written = ::write(fd, digits + sizeof digits - n, static_cast<std::size_t>(n));
  ::close(fd);
}

struct CountAtExit {
  ~CountAtExit() {
    write_count("MLPERF_COUNT_ALLOCATIONS", g_calls.load());
    write_count("MLPERF_COUNT_TLS_DESTRUCTORS", g_tls_destructors.load());
  }
} g_count_at_exit;

}  // namespace

extern "C" {

void* malloc(std::size_t size) { return this_call_fails(size) ? nullptr : __libc_malloc(size); }

void* calloc(std::size_t count, std::size_t size) {
  // count * size as calloc asks it (an overflow is calloc's own failure, left to it).
  return this_call_fails(count * size) ? nullptr : __libc_calloc(count, size);
}

void* realloc(void* pointer, std::size_t size) { return this_call_fails(size) ? nullptr : __libc_realloc(pointer, size); }

// libstdc++ registers each C++ thread_local object's destructor through glibc's
// __cxa_thread_atexit_impl on the object's first use in a thread; counted, then passed on.
int __cxa_thread_atexit_impl(void (*destructor)(void*), void* object, void* dso_symbol) {
  g_tls_destructors.fetch_add(1);
  using Register = int (*)(void (*)(void*), void*, void*);
  static const Register next = reinterpret_cast<Register>(::dlsym(RTLD_NEXT, "__cxa_thread_atexit_impl"));
  return next ? next(destructor, object, dso_symbol) : -1;
}

}  // extern "C"
