#include "mlperf/training/rcp.h"
#include "mlperf/mllog/line_reader.h"

#include <new>
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <exception>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <boost/math/distributions/students_t.hpp>
#include <nlohmann/json.hpp>

namespace mlperf {
namespace {

constexpr double kAlpha = 0.05;       // one-sided significance level (§4.3)
constexpr double kTolerance = 1e-4;   // bisection stops when hi − lo ≤ this (§4.3)
constexpr double kLlama405bOffset = 46080;  // §4.6
// Samples (epochs) to converge the official checker gives a run that did not converge.
constexpr double kOfficialNotConverged = 1e9;

// A run that did not converge, as RcpSubmission holds it: kNotConverged (+inf), or NaN.
bool did_not_converge(double samples) {
  return std::isnan(samples) || samples == std::numeric_limits<double>::infinity();
}

// numpy's pairwise summation (pairwise_sum_DOUBLE), which np.mean and np.std use. The
// reference computes every mean with numpy, so summing in the same order keeps the last
// bits identical for non-integer data (epochs rounded to 3 decimals); for integer sample
// counts every order gives the same exact sum.
double pairwise_sum(const double* a, std::size_t n) {
  if (n < 8) {
    double res = 0.0;
    for (std::size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

// np.sum's reduction adds the pairwise sum to the identity 0.0.
double numpy_sum(const double* a, std::size_t n) { return 0.0 + pairwise_sum(a, n); }

double numpy_mean(const double* a, std::size_t n) {
  return numpy_sum(a, n) / static_cast<double>(n);
}

// np.std (ddof = 0): mean, squared deviations, pairwise sum, divide, sqrt.
double numpy_pstdev(const std::vector<double>& v) {
  const std::size_t n = v.size();
  const double mean = numpy_mean(v.data(), n);
  std::vector<double> sq(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double d = v[i] - mean;
    sq[i] = d * d;
  }
  return std::sqrt(numpy_sum(sq.data(), n) / static_cast<double>(n));
}

// np.interp(x, [x0, x1], [y0, y1]) for x0 ≤ x1, with numpy's exact formula and end cases,
// so interpolated means compare (pruning) and evaluate bit for bit like the reference.
double numpy_interp(double x, double x0, double x1, double y0, double y1) {
  if (x < x0) return y0;
  if (x >= x1) return y1;  // also x0 == x1
  if (x == x0) return y0;
  const double slope = (y1 - y0) / (x1 - x0);
  double r = slope * (x - x0) + y0;
  if (std::isnan(r)) {
    r = slope * (x - x1) + y1;
    if (std::isnan(r) && y0 == y1) r = y0;
  }
  return r;
}

// Olympic mean of an ascending list: the slice [drop, n − drop). nullopt when empty.
std::optional<double> sorted_olympic_mean(const std::vector<double>& sorted, int drop) {
  const auto d = static_cast<std::size_t>(drop);
  if (drop < 0 || sorted.size() <= 2 * d) return std::nullopt;
  return numpy_mean(sorted.data() + d, sorted.size() - 2 * d);
}

// Shortest text that reads back as the same double (Python's repr), for exact figures.
std::string exact(double x) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  if (ec != std::errc()) return "?";
  return std::string(buf, end);
}

// At most two decimals, trailing zeros removed: 178144, 178858.67, 1.03.
std::string rounded(double x) {
  if (!std::isfinite(x)) return exact(x);
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, 2);
  if (ec != std::errc()) return exact(x);
  std::string s(buf, end);
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

bool by_batch_size(const RcpRecord& a, const RcpRecord& b) {
  return a.batch_size < b.batch_size;
}

[[noreturn]] void file_error(const std::filesystem::path& file, const std::string& what) {
  throw std::runtime_error("RCP table " + file.string() + ": " + what);
}

// Compares one submission with one record (§4.6) and fills the verdict's figures and a
// message that check_rcp prefixes with how the record was chosen.
void evaluate(const RcpRecord& record, const RcpSubmission& sub, RcpVerdict& v) {
  v.record = record;
  v.rcp_mean = record.mean;

  double max_speedup = record.max_speedup;
  // From ruleset 5.0.0 on, llama31_405b gets a wider margin: the reference divides by
  // min_epochs − 46080 instead of min_epochs (§4.6).
  static const Ruleset k500{{5, 0, 0}};
  if (sub.benchmark == "llama31_405b" && sub.ruleset >= k500) {
    max_speedup = record.mean / (record.min_epochs - kLlama405bOffset);
  }
  v.max_speedup = max_speedup;
  const double min_mean = record.mean / max_speedup;
  v.min_mean = min_mean;

  // A run that did not converge counts as 1e9 samples (epochs), the official checker's
  // marker (rcp_checker.py read_submission_file), not +inf: it sorts to the top and falls off
  // the olympic slice only where converged runs need fewer. gpt3's runs need more (some
  // 1.2e9), so there it sorts to the bottom and the slowest converged run is dropped instead.
  std::vector<double> runs = sub.samples_to_converge;
  for (double& x : runs) {
    if (did_not_converge(x)) x = kOfficialNotConverged;
  }
  std::sort(runs.begin(), runs.end());
  const std::optional<double> sub_mean = sorted_olympic_mean(runs, sub.olympic_drop);
  if (!sub_mean) {
    // The official checker takes the mean of an empty slice: NaN, and the check fails.
    v.passed = false;
    v.normalization_factor = std::numeric_limits<double>::quiet_NaN();
    v.message = "too few runs (" + std::to_string(runs.size()) +
                ") for an olympic mean that drops " + std::to_string(sub.olympic_drop) +
                " at each end";
    return;
  }
  v.submission_mean = *sub_mean;

  v.passed = *sub_mean >= min_mean;
  // max(1, RCP mean / submission mean), reported whether or not the check passes, as the
  // official checker returns it (rcp_checker.py _find_norm_factor); the score uses it only
  // when the check passes (§5).
  v.normalization_factor = *sub_mean < record.mean ? record.mean / *sub_mean : 1.0;
  if (v.passed && *sub_mean < record.mean) {
    v.message = "submission mean " + rounded(*sub_mean) + " is faster than the RCP mean " +
                rounded(record.mean) + " but within the max speedup " + rounded(max_speedup) +
                "; normalization factor " + exact(v.normalization_factor);
  } else if (v.passed) {
    v.message = "submission mean " + rounded(*sub_mean) + " is not faster than the RCP mean " +
                rounded(record.mean) + "; no normalization";
  } else {
    v.message = "submission mean " + rounded(*sub_mean) + " converges faster than the RCP mean " +
                rounded(record.mean) + " allows: the minimum is " + rounded(min_mean) +
                " (max speedup " + rounded(max_speedup) + ")";
  }
}

// min_acceptable_mean's bisection, without the memo.
double min_acceptable_mean_uncached(double mean, double stdev, int n_ref, int n_sub) {
  if (stdev == 0) return mean;  // checked first, as the reference does
  const double df = static_cast<double>(n_ref) + static_cast<double>(n_sub) - 2.0;
  if (df < 1 || n_ref < 1 || n_sub < 1) {
    throw std::domain_error(
        "t-test needs n_ref >= 1, n_sub >= 1 and n_ref + n_sub - 2 >= 1 (got n_ref " +
        std::to_string(n_ref) + ", n_sub " + std::to_string(n_sub) + ")");
  }
  // scipy.stats.ttest_ind_from_stats(mid, stdev, n_ref, mean, stdev, n_sub, equal_var=True),
  // same operation order; the denominator does not depend on mid.
  const double var = stdev * stdev;
  const double svar = ((n_ref - 1) * var + (n_sub - 1) * var) / df;
  const double denom = std::sqrt(svar * (1.0 / n_ref + 1.0 / n_sub));
  const boost::math::students_t_distribution<double> dist(df);
  // The CDF is increasing: P(T <= t) > alpha exactly when t lies above the alpha quantile t*.
  // Far from t* that comparison decides each step; within a relative 1e-9 of it (the
  // quantile's error is some 1e-15, the CDF's slope there above 0.007) the CDF itself is
  // evaluated, as the reference does at every step. So each step goes the same way and the
  // answer has the same bits, with one quantile and a CDF or two instead of some 40 CDFs
  // (long double special functions: 1% of a round's one-core time).
  const double t_star = boost::math::quantile(dist, kAlpha);
  const double window = 1e-9 * std::max(1.0, std::fabs(t_star));
  auto p_above_alpha = [&](double t) {
    if (t > t_star + window) return true;
    if (t < t_star - window) return false;
    return boost::math::cdf(dist, t) > kAlpha;  // one-sided: P(T ≤ t)
  };

  double lo = 0.0;
  double hi = mean;
  double mid = (lo + hi) / 2;
  while (hi - lo > kTolerance) {
    const double t = (mid - mean) / denom;
    if (p_above_alpha(t)) {
      hi = mid;
    } else {
      lo = mid;
    }
    const double next = (lo + hi) / 2;
    // For means above ~1e12 adjacent doubles are more than 1e-4 apart and the interval can
    // stop shrinking; stop there instead of looping for ever.
    if (next == mid) break;
    mid = next;
  }
  return mid;
}

}  // namespace

double min_acceptable_mean(double mean, double stdev, int n_ref, int n_sub) {
  // A pure function of its arguments: each bisection evaluates the t distribution's CDF some
  // 40 times in long double, and a round's directories of one benchmark and batch size ask
  // for the same interpolated record again. The answers are kept, keyed by the arguments'
  // bits (a few hundred at most: one per RCP record and interpolated batch size).
  using Key = std::tuple<std::uint64_t, std::uint64_t, int, int>;
  static std::mutex mutex;
  static std::map<Key, double> answers;
  constexpr std::size_t kMaxAnswers = 4096;
  const Key key{std::bit_cast<std::uint64_t>(mean), std::bit_cast<std::uint64_t>(stdev), n_ref, n_sub};
  {
    std::lock_guard lock(mutex);
    if (auto it = answers.find(key); it != answers.end()) return it->second;
  }
  const double answer = min_acceptable_mean_uncached(mean, stdev, n_ref, n_sub);
  std::lock_guard lock(mutex);
  if (answers.size() < kMaxAnswers) answers.emplace(key, answer);
  return answer;
}

RcpRecord make_rcp_record(std::string name, std::string benchmark, long long batch_size,
                          std::vector<double> samples, int drop, int required_runs) {
  if (drop < 0) throw std::invalid_argument("RCP record " + name + ": negative olympic drop");
  if (samples.size() <= 2 * static_cast<std::size_t>(drop)) {
    throw std::invalid_argument("RCP record " + name + " has " + std::to_string(samples.size()) +
                                " values; the olympic mean drops " + std::to_string(drop) +
                                " at each end");
  }
  for (double x : samples) {
    if (std::isnan(x)) throw std::invalid_argument("RCP record " + name + " holds NaN");
  }
  std::sort(samples.begin(), samples.end());

  RcpRecord r;
  r.name = std::move(name);
  r.benchmark = std::move(benchmark);
  r.batch_size = batch_size;
  r.mean = *sorted_olympic_mean(samples, drop);
  r.stdev = numpy_pstdev(samples);  // the whole list, not the olympic slice
  const int n_ref = static_cast<int>(samples.size()) - 2 * drop;
  r.min_epochs = min_acceptable_mean(r.mean, r.stdev, n_ref, required_runs - 2);
  r.max_speedup = r.mean / r.min_epochs;
  r.samples_to_converge = std::move(samples);
  return r;
}

std::vector<RcpRecord> load_rcp_table(const std::filesystem::path& file, const std::string& samples_key, int drop,
                                      int required_runs) {
  bool read_failed = false;
  const std::optional<std::string> text = read_whole_file(file, &read_failed);
  if (!text) file_error(file, "cannot be opened");
  if (read_failed) file_error(file, "cannot be read");

  // ordered_json keeps the file's record order, which decides ties (same BS, same mean)
  // exactly as Python's dict order does in the reference.
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(*text);
  } catch (const nlohmann::json::exception& e) {
    file_error(file, std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_object()) file_error(file, "the top level is not an object of records");

  std::vector<RcpRecord> records;
  for (const auto& [name, rec] : doc.items()) {
    if (!rec.is_object()) file_error(file, "record " + name + " is not an object");
    const auto bench = rec.find("Benchmark");
    if (bench == rec.end() || !bench->is_string()) {
      file_error(file, "record " + name + " has no string \"Benchmark\"");
    }

    const auto bs = rec.find("BS");
    long long batch_size = 0;
    if (bs != rec.end() && bs->is_number_integer()) {
      batch_size = bs->get<long long>();
    } else if (bs != rec.end() && bs->is_number_float() &&
               std::trunc(bs->get<double>()) == bs->get<double>()) {
      batch_size = static_cast<long long>(bs->get<double>());
    } else {
      file_error(file, "record " + name + " has no integer \"BS\"");
    }

    const auto list = rec.find(samples_key);
    if (list == rec.end() || !list->is_array()) {
      file_error(file, "record " + name + " has no list \"" + samples_key + "\"");
    }
    std::vector<double> samples;
    samples.reserve(list->size());
    for (const auto& x : *list) {
      if (!x.is_number()) file_error(file, "record " + name + ": \"" + samples_key +
                                               "\" holds a value that is not a number");
      samples.push_back(x.get<double>());
    }
    try {
      records.push_back(make_rcp_record(name, bench->get<std::string>(), batch_size,
                                        std::move(samples), drop, required_runs));
    } catch (const std::bad_alloc&) {
      throw;  // out of memory is never a finding: main.cc says so, exit 2
    } catch (const std::exception& e) {
      file_error(file, e.what());
    }
  }
  // Stable, so records of equal BS keep the file order (Python's sorted is stable too).
  std::stable_sort(records.begin(), records.end(),
                   by_batch_size);
  return records;
}

std::vector<RcpRecord> prune_rcps(std::vector<RcpRecord> records) {
  std::stable_sort(records.begin(), records.end(),
                   by_batch_size);
  if (records.empty()) return records;

  // Step 1: the fastest-converging record (first on ties, like Python's min) becomes the
  // smallest batch size; every smaller batch size is dropped.
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < records.size(); ++i) {
    if (records[i].mean < records[fastest].mean) fastest = i;
  }
  const long long min_bs = records[fastest].batch_size;
  std::erase_if(records, [min_bs](const RcpRecord& r) { return r.batch_size < min_bs; });

  // Step 2: drop a record that converges slower than the line between its neighbours,
  // then look at whatever moved into its place. Not a full convex hull, by design.
  std::size_t i = 1;
  while (i + 1 < records.size()) {
    const RcpRecord& lo = records[i - 1];
    const RcpRecord& hi = records[i + 1];
    const double line = numpy_interp(static_cast<double>(records[i].batch_size),
                                     static_cast<double>(lo.batch_size),
                                     static_cast<double>(hi.batch_size), lo.mean, hi.mean);
    if (records[i].mean > line) {
      records.erase(records.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  return records;
}

const char* to_string(RcpCase c) {
  switch (c) {
    case RcpCase::kExact: return "exact";
    case RcpCase::kInterpolated: return "interpolated";
    case RcpCase::kSmallerBatchFallback: return "smaller_batch_fallback";
    case RcpCase::kMissing: return "missing";
    case RcpCase::kNoRcps: return "no_rcps";
    case RcpCase::kInsufficientConvergence: return "insufficient_convergence";
    case RcpCase::kNoBatchSize: return "no_batch_size";
    case RcpCase::kNotChecked: return "not_checked";
  }
  return "unknown";
}

namespace {

// The verdicts given before any record is looked at (§4.2): no batch size, more runs that did
// not converge than the olympic mean drops, no RCPs for the benchmark. True when `v` is final.
bool judged_without_records(const std::vector<RcpRecord>& records, const RcpSubmission& submission, RcpVerdict& v) {
  if (!submission.batch_size) {
    v.rcp_case = RcpCase::kNoBatchSize;
    v.message = "batch size could not be determined";
    return true;
  }
  std::size_t not_converged = 0;
  for (double x : submission.samples_to_converge) {
    if (did_not_converge(x)) ++not_converged;
  }
  if (submission.olympic_drop < 0) {
    v.rcp_case = RcpCase::kInsufficientConvergence;
    v.message = "invalid olympic drop " + std::to_string(submission.olympic_drop);
    return true;
  }
  if (not_converged > static_cast<std::size_t>(submission.olympic_drop)) {
    v.rcp_case = RcpCase::kInsufficientConvergence;
    v.message = "insufficient convergence: " + std::to_string(not_converged) + " of " +
                std::to_string(submission.samples_to_converge.size()) + " runs did not converge (at most " +
                std::to_string(submission.olympic_drop) + " may)";
    return true;
  }
  if (records.empty()) {
    v.rcp_case = RcpCase::kNoRcps;
    v.message = "no RCPs found for benchmark " + submission.benchmark;
    return true;
  }
  return false;
}

// The RCP at batch size `bs` interpolated between the records `below` and `above` (§4.3, as
// numpy.interp); the reference sizes an interpolated reference as 2 × the required runs.
RcpRecord interpolated_record(const RcpRecord& below, const RcpRecord& above, long long bs, int required_runs) {
  RcpRecord interp;
  interp.name = "interpolated_" + std::to_string(bs);
  interp.benchmark = below.benchmark;
  interp.batch_size = bs;
  const double x = static_cast<double>(bs);
  const double x0 = static_cast<double>(below.batch_size);
  const double x1 = static_cast<double>(above.batch_size);
  interp.mean = numpy_interp(x, x0, x1, below.mean, above.mean);
  interp.stdev = numpy_interp(x, x0, x1, below.stdev, above.stdev);
  interp.min_epochs = min_acceptable_mean(interp.mean, interp.stdev, 2 * required_runs, required_runs - 2);
  interp.max_speedup = interp.mean / interp.min_epochs;
  return interp;
}

// The record the submission is judged against and the verdict (§4.3): the RCP at its batch
// size, else one interpolated between the nearest below and above, else the smallest batch
// size's (passing only as a fallback), else missing.
void judge_against_records(const std::vector<RcpRecord>& records, const RcpSubmission& submission, RcpVerdict& v) {
  const long long bs = *submission.batch_size;
  // Record choice as in the reference: first exact match; nearest below = the first record
  // of the largest BS under bs; nearest above = the first of the smallest BS over bs.
  const RcpRecord* exact_rec = nullptr;
  const RcpRecord* below = nullptr;
  const RcpRecord* above = nullptr;
  const RcpRecord* smallest = nullptr;
  for (const RcpRecord& r : records) {
    if (r.batch_size == bs && !exact_rec) exact_rec = &r;
    if (r.batch_size < bs && (!below || r.batch_size > below->batch_size)) below = &r;
    if (r.batch_size > bs && (!above || r.batch_size < above->batch_size)) above = &r;
    if (!smallest || r.batch_size < smallest->batch_size) smallest = &r;
  }
  const std::string bs_text = std::to_string(bs);
  if (exact_rec) {
    v.rcp_case = RcpCase::kExact;
    evaluate(*exact_rec, submission, v);
    v.message = "RCP " + exact_rec->name + " (batch size " + bs_text + "): " + v.message;
  } else if (below && above) {
    v.rcp_case = RcpCase::kInterpolated;
    evaluate(interpolated_record(*below, *above, bs, submission.required_runs), submission, v);
    v.message = "RCP interpolated at batch size " + bs_text + " between " + below->name + " and " + above->name +
                ": " + v.message;
  } else if (above) {
    evaluate(*smallest, submission, v);
    if (v.passed) {
      v.rcp_case = RcpCase::kSmallerBatchFallback;
      v.message = "no RCP at batch size " + bs_text + "; evaluated against the RCP of the " + "smallest batch size, " +
                  smallest->name + " (batch size " + std::to_string(smallest->batch_size) + "): " + v.message;
    } else {
      v.rcp_case = RcpCase::kMissing;
      v.message = "missing RCP, please submit an RCP with batch size " + bs_text + " (against the smallest, " +
                  smallest->name + ": " + v.message + ")";
    }
  } else {
    v.rcp_case = RcpCase::kMissing;
    v.passed = false;
    v.message = "missing RCP, please submit an RCP with batch size " + bs_text + " (every RCP has a smaller batch size)";
  }
}

}  // namespace

RcpVerdict check_rcp(const std::vector<RcpRecord>& records, const RcpSubmission& submission) {
  RcpVerdict v;
  try {
    if (!judged_without_records(records, submission, v)) judge_against_records(records, submission, v);
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    v.passed = false;
    v.normalization_factor = 1.0;
    v.message = std::string("RCP check could not be completed: ") + e.what();
  }
  return v;
}

}  // namespace mlperf
