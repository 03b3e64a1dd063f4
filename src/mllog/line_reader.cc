#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/cpu_features.h"
#include "mlperf/mllog/folder_cache.h"
#include "mlperf/mllog/folder_listing.h"
#include "mlperf/mllog/thread_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>
#include <system_error>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <fmt/format.h>

namespace mlperf {

ByteSource string_source(std::string text, std::size_t chunk) {
  auto data = std::make_shared<std::string>(std::move(text));
  auto offset = std::make_shared<std::size_t>(0);
  return [data, offset, chunk](char* buffer, std::size_t capacity) -> std::size_t {
    std::size_t n = std::min({capacity, chunk, data->size() - *offset});
    std::memcpy(buffer, data->data() + *offset, n);
    *offset += n;
    return n;
  };
}

namespace {
// Owns a file descriptor; closed when the last copy of the source goes away.
struct FileHandle {
  int fd = -1;
  std::string path;
  FileLocation location;  // relative to its held folder (name set), or by `path` (no folder)
  // A regular file: what fstat said at open, and the bytes read since, to tell at EOF
  // whether the file changed while it was read.
  bool regular = false;
  struct stat opened {};
  std::uint64_t bytes_read = 0;
  ~FileHandle() {
    if (fd >= 0) ::close(fd);
  }
};

// At the end of a regular file: the file must be the one opened, as it was. A log rewritten
// in place while it was read (truncated and written again, appended to, or replaced by
// another file) would give a run made of two versions; that is an error naming the file.
void check_unchanged(const FileHandle& h) {
  struct stat now {};
  if (::fstat(h.fd, &now) != 0) return;
  const auto& was = h.opened;
  std::string what;
  if (static_cast<std::uint64_t>(now.st_size) != h.bytes_read) {
    what = fmt::format("its size is {} bytes, {} were read", now.st_size, h.bytes_read);
  } else if (now.st_size != was.st_size || now.st_mtim.tv_sec != was.st_mtim.tv_sec ||
             now.st_mtim.tv_nsec != was.st_mtim.tv_nsec) {
    what = "it was modified";
  } else {
    struct stat at_path {};
    if (::fstatat(h.location.dirfd(), h.location.name_or(h.path), &at_path, 0) == 0 &&
        (at_path.st_ino != now.st_ino || at_path.st_dev != now.st_dev)) {
      what = "another file took its name";
    }
  }
  if (!what.empty()) {
    throw std::runtime_error(fmt::format("{}: changed while it was read ({}); not scored from a mix of two versions",
                                         h.path, what));
  }
}

// Reads the open file of `handle` with read(2), retrying on EINTR. `bytes`: its size when
// known (a regular file), else -1.
ByteSource reading(std::shared_ptr<FileHandle> handle, off_t bytes) {
#ifdef POSIX_FADV_SEQUENTIAL
  // A bigger read-ahead pays for a file read from disk; a file of a few blocks is read in
  // one or two calls anyway (and a round has thousands of them: one system call each).
  if (bytes < 0 || bytes > (1 << 20)) ::posix_fadvise(handle->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  return [handle](char* buffer, std::size_t capacity) -> std::size_t {
    // A regular file read up to the size fstat gave at open ends there when it is still the
    // file opened, as it was (check_unchanged): the read that would return 0 is not made (one
    // system call a log). A file that grew meanwhile fails the check, as it would at its EOF.
    if (handle->regular && handle->opened.st_size > 0 &&
        handle->bytes_read == static_cast<std::uint64_t>(handle->opened.st_size)) {
      check_unchanged(*handle);
      return 0;
    }
    for (;;) {
      ssize_t n = ::read(handle->fd, buffer, capacity);
      if (n > 0) handle->bytes_read += static_cast<std::uint64_t>(n);
      if (n == 0 && handle->regular) check_unchanged(*handle);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("{}: read error: {}", handle->path, std::strerror(errno)));
    }
  };
}

// Opens `path` for reading (relative to its folder when `folders` holds it); O_NONBLOCK so
// that opening a FIFO without a writer returns at once instead of blocking forever. fd stays
// -1 on failure, errno set.
std::shared_ptr<FileHandle> open_for_reading(const std::filesystem::path& path, FolderCache* folders) {
  auto handle = std::make_shared<FileHandle>();
  handle->path = path.string();
  if (folders) handle->location = folders->locate(path);
  handle->fd = ::openat(handle->location.dirfd(), handle->location.name_or(handle->path),
                        O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  return handle;
}

}  // namespace

void throw_if_out_of_memory(int error) {
  if (error == ENOMEM) throw std::bad_alloc();
}

bool is_out_of_memory(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e)) return true;
  const auto* system = dynamic_cast<const std::system_error*>(&e);
  return system && system->code() == std::errc::not_enough_memory;
}

std::ifstream open_input_file(const std::filesystem::path& path, std::ios::openmode mode) {
  errno = 0;
  std::ifstream in(path, mode | std::ios::in);
  if (!in.is_open()) throw_if_out_of_memory(errno);
  return in;
}

std::optional<std::string> read_whole_file(const std::filesystem::path& path, bool* read_failed) {
  if (read_failed) *read_failed = false;
  FileHandle file;  // closes the descriptor
  do {
    file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (file.fd < 0 && errno == EINTR);
  if (file.fd < 0) {
    throw_if_out_of_memory(errno);
    return std::nullopt;
  }
  file.regular = ::fstat(file.fd, &file.opened) == 0 && S_ISREG(file.opened.st_mode);
  // A regular file is asked for one byte more than its size: a read that returns less is at
  // its end (the read that would return 0 is not made).
  const bool sized = file.regular && file.opened.st_size > 0;
  std::size_t want = sized ? static_cast<std::size_t>(file.opened.st_size) + 1 : 4096;
  std::string text;
  for (;;) {
    const std::size_t had = text.size();
    text.resize(had + want);
    const ssize_t n = ::read(file.fd, text.data() + had, want);
    if (n < 0 && errno == EINTR) {
      text.resize(had);
      continue;
    }
    text.resize(had + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0 && read_failed) *read_failed = true;
    if (n <= 0 || (file.regular && static_cast<std::size_t>(n) < want)) break;
    want = std::max<std::size_t>(4096, text.size());
  }
  return text;
}

ByteSource file_source(const std::filesystem::path& path, FolderCache* folders) {
  auto handle = open_for_reading(path, folders);
  if (handle->fd < 0) {
    throw_if_out_of_memory(errno);
    throw std::runtime_error(fmt::format("{}: cannot open: {}", handle->path, std::strerror(errno)));
  }
  struct stat info {};
  const bool known = ::fstat(handle->fd, &info) == 0;
  if (known && S_ISDIR(info.st_mode)) {
    throw std::runtime_error(fmt::format("{}: cannot open: {}", handle->path, std::strerror(EISDIR)));
  }
  // Reads of a pipe or a device block as usual (standard input may be a pipe); O_NONBLOCK
  // means nothing to a regular file, which is left as it is (two system calls per log).
  const bool regular = known && S_ISREG(info.st_mode);
  if (!regular) ::fcntl(handle->fd, F_SETFL, ::fcntl(handle->fd, F_GETFL) & ~O_NONBLOCK);
  handle->regular = regular;
  handle->opened = info;
  return reading(std::move(handle), regular ? info.st_size : -1);
}

std::optional<ByteSource> regular_file_source(const std::filesystem::path& path) {
  if (listed_absent(path)) return std::nullopt;  // a kept listing has no such entry
  auto handle = open_for_reading(path, nullptr);
  if (handle->fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    throw std::runtime_error(fmt::format("{}: cannot open: {}", handle->path, std::strerror(errno)));
  }
  struct stat info {};
  if (::fstat(handle->fd, &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  handle->regular = true;
  handle->opened = info;
  return reading(std::move(handle), info.st_size);
}

namespace {

// How rare a byte is in log text: spaces, lowercase letters and digits are everywhere,
// punctuation is common, uppercase letters and everything else are rare.
int rarity(unsigned char c) {
  if (c == ' ' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return 0;
  if (std::strchr(":\"',./_-=[]{}()\t", c) != nullptr && c != 0) return 1;
  if (c >= 'A' && c <= 'Z') return 2;
  return 3;
}

// n bytes at a and b are equal; short runs without a call.
inline bool bytes_equal(const char* a, const char* b, std::size_t n) {
  if (n >= 8 && n <= 16) {
    std::uint64_t a0, b0, a1, b1;
    std::memcpy(&a0, a, 8), std::memcpy(&b0, b, 8);
    std::memcpy(&a1, a + n - 8, 8), std::memcpy(&b1, b + n - 8, 8);
    return a0 == b0 && a1 == b1;
  }
  return std::memcmp(a, b, n) == 0;
}

#if defined(MLPERF_HAVE_AVX2_PATH)
// The AVX2 form of the search below (32 bytes a step), for CPUs that have it (checked at
// run time). Returns the needle or nullptr, having searched [p, *stop) where *stop is where
// the blocks ended (the caller searches the rest).
__attribute__((target("avx2,popcnt,bmi"))) const char* find_counting_newlines_avx2(
    const char* p, const char* end, std::string_view needle, const std::size_t rare[2],
    std::uint64_t& newlines, const char** stop) {
  const std::size_t n = needle.size();
  const __m256i nl = _mm256_set1_epi8('\n');
  const __m256i ci = _mm256_set1_epi8(needle[rare[0]]);
  const __m256i cj = _mm256_set1_epi8(needle[rare[1]]);
  const std::size_t i = rare[0];
  const std::size_t j = rare[1];
  std::uint64_t count = 0;
  while (static_cast<std::size_t>(end - p) >= n + 31) {
    const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const auto is_nl = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(bytes, nl)));
    const __m256i at_i = _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)), ci);
    const __m256i at_j = _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + j)), cj);
    auto candidates = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_and_si256(at_i, at_j)));
    while (candidates != 0) {
      unsigned b = static_cast<unsigned>(__builtin_ctz(candidates));
      if (bytes_equal(p + b, needle.data(), n)) {
        newlines += count + static_cast<std::uint64_t>(__builtin_popcount(is_nl & ((1u << b) - 1)));
        return p + b;
      }
      candidates &= candidates - 1;
    }
    count += static_cast<std::uint64_t>(__builtin_popcount(is_nl));
    p += 32;
  }
  newlines += count;
  *stop = p;
  return nullptr;
}

#endif

// First occurrence of `needle` in [p, end), or nullptr; adds the number of '\n' bytes before
// it (before `end` when not found) to `newlines`. `rare` holds two positions in the needle
// (the rarest bytes): a block is only compared with the needle where both match.
const char* find_counting_newlines(const char* p, const char* end, std::string_view needle,
                                   const std::size_t rare[2], std::uint64_t& newlines) {
  const std::size_t n = needle.size();
#if defined(MLPERF_HAVE_AVX2_PATH)
  if (cpu_has_avx2()) {
    const char* stop = p;
    if (const char* hit = find_counting_newlines_avx2(p, end, needle, rare, newlines, &stop)) return hit;
    p = stop;
  }
#endif
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i zero = _mm_setzero_si128();
  const __m128i ci = _mm_set1_epi8(needle[rare[0]]);
  const __m128i cj = _mm_set1_epi8(needle[rare[1]]);
  const std::size_t i = rare[0];
  const std::size_t j = rare[1];
  // A block at p is searched while the needle fits after each of its 16 positions.
  while (static_cast<std::size_t>(end - p) >= n + 15) {
    // Per-byte newline counters overflow after 255 blocks: sum them up at least that often.
    std::size_t blocks = std::min<std::size_t>(255, (static_cast<std::size_t>(end - p) - n - 15) / 16 + 1);
    __m128i counts = zero;
    for (std::size_t k = 0; k < blocks; ++k, p += 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const __m128i is_nl = _mm_cmpeq_epi8(bytes, nl);
      const __m128i at_i = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)), ci);
      const __m128i at_j = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + j)), cj);
      unsigned candidates = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(at_i, at_j)));
      while (candidates != 0) {
        unsigned b = static_cast<unsigned>(__builtin_ctz(candidates));
        if (bytes_equal(p + b, needle.data(), n)) {
          // The needle holds no newline: the newlines before it are those before bit b.
          const __m128i sums = _mm_sad_epu8(counts, zero);
          newlines += static_cast<std::uint64_t>(_mm_cvtsi128_si64(sums)) +
                      static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
          unsigned below = static_cast<unsigned>(_mm_movemask_epi8(is_nl)) & ((1u << b) - 1);
          newlines += static_cast<std::uint64_t>(__builtin_popcount(below));
          return p + b;
        }
        candidates &= candidates - 1;
      }
      counts = _mm_sub_epi8(counts, is_nl);  // is_nl is -1 where a newline is
    }
    const __m128i sums = _mm_sad_epu8(counts, zero);
    newlines += static_cast<std::uint64_t>(_mm_cvtsi128_si64(sums)) +
                static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#else
  (void)rare;
  {
    const void* hit = ::memmem(p, static_cast<std::size_t>(end - p), needle.data(), n);
    const char* stop = hit != nullptr ? static_cast<const char*>(hit) : end;
    newlines += static_cast<std::uint64_t>(std::count(p, stop, '\n'));
    return static_cast<const char*>(hit);
  }
#endif
  // The last bytes, one at a time.
  for (; p < end; ++p) {
    if (*p == needle[0] && static_cast<std::size_t>(end - p) >= n && std::memcmp(p, needle.data(), n) == 0) return p;
    if (*p == '\n') ++newlines;
  }
  return nullptr;
}

}  // namespace

namespace {
// One spare buffer per thread: a reader per file takes it instead of allocating (and the
// kernel clearing fresh pages for) a new block each time, and gives it back when done. A
// buffer grown for a long line is kept too (up to kSpareLimit): the next file of the same
// kind has lines as long (loadgen's loaded_qsl_set runs to megabytes), and a fresh mapping
// per file cost a page fault per 4 KiB.
constexpr std::size_t kSpareLimit = 16 << 20;
struct SpareBuffer {
  std::unique_ptr<char[]> bytes;
  std::size_t capacity = 0;
  std::size_t block = 0;  // the block size of the reader that kept it
};
}  // namespace

LineReader::LineReader(ByteSource source, std::size_t block_bytes, std::size_t max_line_bytes)
    : source_(std::move(source)), max_line_bytes_(max_line_bytes) {
  block_bytes = std::max<std::size_t>(block_bytes, 1);
  // Only a spare of a reader with the same block size (tests read in tiny blocks on purpose).
  SpareBuffer& spare = ThreadCache<SpareBuffer>::get();
  if (spare.bytes && spare.block == block_bytes) {
    buffer_ = Buffer{std::move(spare.bytes), spare.capacity};
    spare.capacity = 0;
  } else {
    buffer_ = Buffer{std::unique_ptr<char[]>(new char[block_bytes]), block_bytes};
  }
  block_bytes_ = block_bytes;
}

LineReader::~LineReader() {
  // The bigger of this buffer and the spare is kept, within kSpareLimit (the constructor
  // made this thread's spare slot; nothing is allocated here).
  SpareBuffer* spare = ThreadCache<SpareBuffer>::if_made();
  if (spare && buffer_.bytes && buffer_.capacity <= std::max(kSpareLimit, block_bytes_) &&
      (!spare->bytes || buffer_.capacity >= spare->capacity)) {
    spare->bytes = std::move(buffer_.bytes);
    spare->capacity = buffer_.capacity;
    spare->block = block_bytes_;
  }
}

bool LineReader::fill() {
  if (eof_) return false;
  // Move the unconsumed tail to the front, and grow only when a line fills the buffer.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) {
    // A line fills the buffer: double it.
    Buffer bigger{std::unique_ptr<char[]>(new char[buffer_.size() * 2]), buffer_.size() * 2};
    std::memcpy(bigger.data(), buffer_.data(), end_);
    buffer_ = std::move(bigger);
  }
  std::size_t n = source_(buffer_.data() + end_, buffer_.size() - end_);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += n;
  return true;
}

Line LineReader::take_last_line(std::size_t needle_at) {
  const char* s = buffer_.data() + begin_;
  std::size_t len = end_ - begin_;
  begin_ = end_;
  ++line_number_;
  if (len > 0 && s[len - 1] == '\r') --len;
  const bool truncated = len > max_line_bytes_;
  return Line{std::string_view(s, truncated ? max_line_bytes_ : len), line_number_, truncated, needle_at};
}

void LineReader::skip_rest_of_line() {
  for (;;) {
    const void* nl = std::memchr(buffer_.data() + begin_, '\n', end_ - begin_);
    if (nl != nullptr) {
      begin_ = static_cast<const char*>(nl) - buffer_.data() + 1;
      return;
    }
    begin_ = end_ = 0;
    if (!fill()) return;
  }
}

namespace {

// a == b, without a call for the 8 to 16 bytes of a usual needle (next_with asks once a line).
inline bool same_needle(std::string_view a, const std::string& b) {
  if (a.size() != b.size()) return false;
  if (a.size() >= 8 && a.size() <= 16) {
    std::uint64_t x0, y0, x1, y1;
    std::memcpy(&x0, a.data(), 8), std::memcpy(&y0, b.data(), 8);
    std::memcpy(&x1, a.data() + a.size() - 8, 8), std::memcpy(&y1, b.data() + b.size() - 8, 8);
    return x0 == y0 && x1 == y1;
  }
  return a == b;
}

}  // namespace

inline const char* LineReader::needle_at_line_prefix(const char* line, const char* end, std::size_t at) const {
  constexpr std::size_t kLongestPrefix = 32;
  const std::size_t n = needle_.size();
  if (at > kLongestPrefix || static_cast<std::size_t>(end - line) < at + n) return nullptr;
  if (!bytes_equal(line + at, needle_.data(), n)) return nullptr;
  // The first occurrence in the line: no newline before it, and no occurrence starting
  // earlier (one may overlap the prefix and the needle found).
  for (std::size_t k = 0; k < at; ++k) {
    if (line[k] == '\n') return nullptr;
    if (line[k] == needle_[0] && bytes_equal(line + k, needle_.data(), n)) return nullptr;
  }
  return line + at;
}

bool LineReader::next_with(std::string_view needle, Line& line) {
  if (needle_.empty() || !same_needle(needle, needle_)) {
    if (needle.empty() || needle.size() > 64 || needle.find('\n') != std::string_view::npos) {
      throw std::invalid_argument("LineReader::next_with: the needle must be 1 to 64 bytes without a newline");
    }
    needle_.assign(needle);
    // The rarest byte (first of equals) and the rarest other one (last of equals).
    std::size_t a = 0;
    for (std::size_t k = 1; k < needle.size(); ++k) {
      if (rarity(needle[k]) > rarity(needle[a])) a = k;
    }
    std::size_t b = a;
    for (std::size_t k = 0; k < needle.size(); ++k) {
      if (k != a && (b == a || rarity(needle[k]) >= rarity(needle[b]))) b = k;
    }
    needle_rare_[0] = std::min(a, b);
    needle_rare_[1] = std::max(a, b);
  }
  const std::size_t n = needle_.size();
  for (;;) {
    const char* base = buffer_.data();
    const char* from = base + begin_;
    const char* end = base + end_;
    std::uint64_t newlines = 0;
    // `from` starts a line: where the last line held the needle, this one usually does too.
    const char* hit = needle_at_line_prefix(from, end, last_needle_at_);
    if (hit == nullptr) hit = find_counting_newlines(from, end, needle_, needle_rare_, newlines);
    if (hit == nullptr) {
      // Every whole line searched lacks the needle; keep the partial last line.
      if (newlines > 0) {
        line_number_ += newlines;
        begin_ = static_cast<const char*>(::memrchr(from, '\n', end - from)) - base + 1;
      }
      if (end_ - begin_ > max_line_bytes_ + 1) {
        // An over-long line whose kept head lacks the needle: skip it.
        ++line_number_;
        skip_rest_of_line();
        continue;
      }
      if (!fill()) {
        if (end_ > begin_) ++line_number_;  // a last line without newline, lacking the needle
        begin_ = end_;
        return false;
      }
      continue;
    }
    // The line holding the needle starts after the last newline before it.
    line_number_ += newlines;
    if (newlines > 0) begin_ = static_cast<const char*>(::memrchr(from, '\n', hit - from)) - base + 1;
    const char* start = base + begin_;
    const std::size_t at = hit - start;
    const bool head_holds_needle = at + n <= max_line_bytes_;
    const void* nl = std::memchr(hit + n, '\n', end - hit - n);
    if (nl == nullptr) {
      if (end_ - begin_ > max_line_bytes_ + 1) {
        // Too long to keep: hand out its first bytes (when they hold the needle).
        ++line_number_;
        if (!head_holds_needle) {
          skip_rest_of_line();
          continue;
        }
        truncated_line_.assign(start, start + max_line_bytes_);
        skip_rest_of_line();
        line = Line{std::string_view(truncated_line_.data(), truncated_line_.size()), line_number_, true, at};
        return true;
      }
      if (!fill()) {
        // The last line, without a newline.
        Line last = take_last_line(at);
        if (last.truncated && !head_holds_needle) return false;
        line = last;
        return true;
      }
      continue;  // search again from the start of this line, now complete or longer
    }
    std::size_t len = static_cast<const char*>(nl) - start;
    begin_ += len + 1;
    ++line_number_;
    if (len > 0 && start[len - 1] == '\r') --len;
    bool truncated = len > max_line_bytes_;
    if (truncated && !head_holds_needle) continue;
    last_needle_at_ = at;
    line = Line{std::string_view(start, truncated ? max_line_bytes_ : len), line_number_, truncated, at};
    return true;
  }
}

bool LineReader::next(Line& line) {
  std::size_t scanned = 0;  // bytes after begin_ known to hold no newline
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const void* nl = std::memchr(start + scanned, '\n', end_ - begin_ - scanned);
    if (nl != nullptr) {
      std::size_t len = static_cast<const char*>(nl) - start;
      begin_ += len + 1;
      ++line_number_;
      if (len > 0 && start[len - 1] == '\r') --len;
      bool truncated = len > max_line_bytes_;
      line = Line{std::string_view(start, truncated ? max_line_bytes_ : len), line_number_, truncated};
      return true;
    }
    scanned = end_ - begin_;
    // Only a line strictly longer than the limit (plus a possible '\r') is cut.
    if (scanned > max_line_bytes_ + 1) {
      // Too long to keep: hand out its first bytes, then skip to the end of the line.
      ++line_number_;
      std::string_view head(buffer_.data() + begin_, max_line_bytes_);
      // Keep the head readable for the caller: copy it to the front of a fresh buffer.
      std::vector<char> kept(head.begin(), head.end());
      begin_ = end_ = 0;
      for (;;) {
        if (!fill()) break;
        const void* skip_nl = std::memchr(buffer_.data(), '\n', end_);
        if (skip_nl != nullptr) {
          begin_ = static_cast<const char*>(skip_nl) - buffer_.data() + 1;
          break;
        }
        begin_ = end_ = 0;
      }
      truncated_line_ = std::move(kept);
      line = Line{std::string_view(truncated_line_.data(), truncated_line_.size()), line_number_, true};
      return true;
    }
    if (!fill()) {
      if (end_ == begin_) return false;
      line = take_last_line(std::string_view::npos);
      return true;
    }
  }
}

}  // namespace mlperf
