#pragma once
// One object of a type per thread, kept from call to call (a scanner, a spare read buffer),
// without C++ `thread_local` objects that have destructors: glibc registers such a destructor
// with an allocation on the object's first use in each thread, and when that allocation fails
// it aborts the process ("failed to register TLS destructor: out of memory") instead of
// letting std::bad_alloc reach the out-of-memory policy (README "Robustness"). Here the
// destructor is a pthread key's, created once per process; first use in a thread allocates
// only the object itself, which throws std::bad_alloc like any allocation.

#include <pthread.h>

#include <memory>
#include <new>
#include <stdexcept>

namespace mlperf {

/// This thread's T: value-initialized on first use in the thread, destroyed when the thread
/// ends (the main thread's lives to the end of the process). T must be default-constructible.
template <class T>
class ThreadCache {
 public:
  /// This thread's T, made on first use. Throws std::bad_alloc when it cannot be allocated,
  /// std::runtime_error when the process has no thread-specific key left (1024 on Linux).
  static T& get() {
    if (object_ == nullptr) {
      const pthread_key_t k = key();
      auto fresh = std::make_unique<T>();
      if (::pthread_setspecific(k, fresh.get()) != 0) throw std::bad_alloc();
      object_ = fresh.release();
    }
    return *object_;
  }
  /// This thread's T when get() has made it, else nullptr. Never throws or allocates (for
  /// destructors).
  static T* if_made() noexcept { return object_; }

 private:
  static pthread_key_t key() {
    static const pthread_key_t k = [] {
      pthread_key_t made;
      if (::pthread_key_create(&made, [](void* object) {
            object_ = nullptr;
            delete static_cast<T*>(object);
          }) != 0) {
        throw std::runtime_error("no thread-specific key left for a per-thread cache");
      }
      return made;
    }();
    return k;
  }
  // A plain pointer: nothing is registered with glibc on first use.
  static inline thread_local T* object_ = nullptr;
};

}  // namespace mlperf
