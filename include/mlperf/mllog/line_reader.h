#pragma once
// Streaming line reader: yields the lines of a byte stream in constant memory.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mlperf/mllog/folder_cache.h"

namespace mlperf {

/// A byte source: fills `buffer` with up to `capacity` bytes and returns how many were
/// written; 0 means end of input. Throws std::runtime_error on a read error. Injected so
/// tests can feed strings (see string_source) and files are read in blocks (file_source).
using ByteSource = std::function<std::size_t(char* buffer, std::size_t capacity)>;

/// A source that hands out the bytes of `text` (copied), in pieces of at most `chunk` bytes
/// so tests can exercise lines split across reads.
ByteSource string_source(std::string text, std::size_t chunk = SIZE_MAX);

/// A source reading the file at `path` with read(2). Throws std::runtime_error naming the
/// file when it cannot be opened (missing, permission denied, a directory), and, for a regular
/// file, at its end when it changed while it was read: its size is not the bytes read, its
/// size or mtime differ from those at open, or another file took its name (a log rewritten in
/// place during the read would otherwise give a run made of two versions). With `folders`,
/// the file is opened and checked relative to its folder, held open there (FolderCache:
/// one path look-up a folder for a pass over many files); errors are the same.
ByteSource file_source(const std::filesystem::path& path, FolderCache* folders = nullptr);

/// As file_source, for a file that may be absent: nullopt when `path` does not exist (ENOENT,
/// ENOTDIR) or is not a regular file once opened (symbolic links followed), where asking
/// first would cost a path look-up of its own; nullopt without a system call where the
/// listing of its folder kept on this thread (FolderListings::Use) has no such entry. Throws
/// std::runtime_error naming the file for other failures to open (permission denied).
std::optional<ByteSource> regular_file_source(const std::filesystem::path& path);

/// Throws std::bad_alloc when `error` (an errno value) is ENOMEM: a call that failed for want
/// of memory (open(2), or fopen and opendir, whose malloc failed) comes under the
/// out-of-memory policy (README "Robustness": exit 2, no --output file), never under "this
/// file is missing or unreadable", which would be a finding made while memory ran out.
void throw_if_out_of_memory(int error);

/// Whether `e` means the process ran out of memory: std::bad_alloc, or a std::system_error
/// (std::filesystem::filesystem_error included) whose code is ENOMEM, as when getcwd's own
/// malloc fails inside std::filesystem::absolute. Such a failure is never a finding.
bool is_out_of_memory(const std::exception& e);

/// std::ifstream(path, mode): a stream that is not open when the file cannot be opened, as
/// there; except that an open that failed for want of memory (the FILE that libstdc++'s
/// filebuf gets from fopen) throws std::bad_alloc (throw_if_out_of_memory).
std::ifstream open_input_file(const std::filesystem::path& path, std::ios::openmode mode = std::ios::in);

/// The whole of the file at `path`, read with read(2) as `std::ifstream(path, binary)` and
/// `<< rdbuf()` read it: nullopt when it cannot be opened; else the bytes read up to the end
/// or a read error (a folder gives none), and `read_failed`, where given, says whether a read
/// failed (where an ifstream would be bad()). For the small files a judgment reads whole
/// (system descriptions, measurement JSON, .conf files, accuracy.txt, the compliance tests'
/// verification files): no stream or locale set up per file.
std::optional<std::string> read_whole_file(const std::filesystem::path& path, bool* read_failed = nullptr);

/// One line: its bytes without the line terminator ("\n" or "\r\n") and its 1-based number.
/// `text` is valid until the next call to LineReader::next.
struct Line {
  std::string_view text;
  std::uint64_t number = 0;
  bool truncated = false;  ///< longer than the reader's limit: `text` holds its first bytes
  /// Set by LineReader::next_with: offset in `text` of the first occurrence of the needle
  /// (std::string_view::npos after LineReader::next).
  std::size_t needle_at = std::string_view::npos;
};

/// Splits a ByteSource into lines. Memory is bounded by the block size plus the longest
/// line kept (at most `max_line_bytes`; longer lines are returned with `truncated` set and
/// the rest of the line skipped). A last line without a newline is still returned. The
/// buffer (a block, or more after a long line, up to 16 MiB) is kept per thread for the next
/// reader of the same block size (one reader per file).
class LineReader {
 public:
  static constexpr std::size_t kDefaultBlockBytes = 256 << 10;
  static constexpr std::size_t kDefaultMaxLineBytes = 16 << 20;

  explicit LineReader(ByteSource source, std::size_t block_bytes = kDefaultBlockBytes,
                      std::size_t max_line_bytes = kDefaultMaxLineBytes);
  ~LineReader();
  LineReader(LineReader&&) noexcept = default;
  LineReader& operator=(LineReader&&) noexcept = default;

  /// Advances to the next line; false at end of input. Propagates the source's exceptions.
  bool next(Line& line);

  /// Advances to the next line that contains `needle` (1 to 64 bytes, no '\n'); the lines
  /// in between are skipped but still numbered. Yields exactly the lines `next` would yield
  /// whose `text` holds `needle` (an over-long line only when its kept head holds it), with
  /// `needle_at` set, so `while (next_with(n, l))` equals filtering `next` by `find(n)`.
  /// The blocks are searched, not the lines: one pass finds the needle and counts the
  /// newlines (AVX2 or SSE2 where the CPU has them). Throws std::invalid_argument on a bad
  /// needle; propagates the source's exceptions.
  bool next_with(std::string_view needle, Line& line);

  /// The longest line kept whole, in bytes; longer ones come out `truncated`.
  std::size_t max_line_bytes() const { return max_line_bytes_; }

 private:
  // The needle `at` bytes into the line starting at `line`, when it is that line's first
  // occurrence (no newline and no earlier occurrence before it); else nullptr. `at` up to 32.
  const char* needle_at_line_prefix(const char* line, const char* end, std::size_t at) const;
  bool fill();  // read more bytes into the buffer; false at end of input
  void skip_rest_of_line();  // drop bytes up to and including the next newline
  Line take_last_line(std::size_t needle_at);  // the rest of the buffer: the last line, no newline

  ByteSource source_;
  std::size_t max_line_bytes_;
  std::size_t block_bytes_ = 0;
  // The bytes read and not yet consumed are [begin_, end_); allocated without zero-filling
  // (a reader per file: clearing a block each time costs more than reading it).
  struct Buffer {
    std::unique_ptr<char[]> bytes;
    std::size_t capacity = 0;
    char* data() const { return bytes.get(); }
    std::size_t size() const { return capacity; }
  };
  Buffer buffer_;
  std::size_t begin_ = 0;  // start of unconsumed bytes
  std::size_t end_ = 0;    // end of valid bytes
  bool eof_ = false;
  std::uint64_t line_number_ = 0;
  std::vector<char> truncated_line_;  // head of the last over-long line
  std::string needle_;                // the needle of next_with, and where its rarest
  std::size_t needle_rare_[2] = {};   // two bytes are (searched for first)
  // Where the needle was in the last line next_with gave (npos: none yet): the lines of a
  // log repeat their prefix ("0: ", "[1,0]<stdout>:"), so the next one is tried there first.
  std::size_t last_needle_at_ = std::string_view::npos;
};

}  // namespace mlperf
