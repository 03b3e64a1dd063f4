#pragma once
// Which vector instructions this CPU runs, for the hot loops that have an AVX2 form beside
// their SSE2 one (the line reader's needle search, the MLLOG scanner's line templates).

// Defined where an AVX2 form can be compiled (GCC or Clang on x86-64, through
// __attribute__((target("avx2,popcnt,bmi")))): the forms are chosen at run time.
#if defined(__x86_64__) && defined(__GNUC__)
#define MLPERF_HAVE_AVX2_PATH 1
#endif

namespace mlperf {

#if defined(MLPERF_HAVE_AVX2_PATH)
/// True when this CPU runs AVX2 with POPCNT and BMI1 (what the AVX2 forms use); asked of the
/// CPU once.
inline bool cpu_has_avx2() {
  static const bool has =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi");
  return has;
}
#endif

}  // namespace mlperf
