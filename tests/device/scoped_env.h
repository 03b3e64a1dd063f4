#pragma once
// ScopedEnv: an environment variable set (or unset) for one scope, as the probe tests point
// the HIP and NVML loaders at their stand-in libraries.

#include <cstdlib>
#include <optional>
#include <string>

namespace mlperf::testing {

/// Sets `name` to `value` (unsets it for nullptr) until the end of the scope, then restores
/// what it was.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace mlperf::testing
