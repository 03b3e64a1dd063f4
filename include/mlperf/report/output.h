#pragma once
// Output safety (issue #11): every byte the tool writes is checked, and an output path is
// never clobbered. Reports go to standard output through a CheckedFdBuffer, which remembers
// the first write error; file outputs (`check --junit FILE`) go through write_output_file,
// which chooses how to write by what the path names (README, "Output rules"):
//   "-"                                  → standard output
//   a regular file, or a new path        → atomically: temporary file in its folder, fsync, rename
//   a symlink                            → followed; its final target is treated as above, so the
//                                          link stays a link and its target is replaced
//   a character device or FIFO           → opened and written in place, never renamed over
//   the file standard output writes to   → standard output (so `--junit /dev/stdout` prints it)
//   a directory, socket or block device  → refused with a clear error

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <iosfwd>
#include <sstream>
#include <streambuf>
#include <string>
#include <string_view>

namespace mlperf {

/// How write_output_file writes one output path.
enum class OutputRoute {
  kStandardOutput,  ///< "-", or the very file (same device and inode) standard output writes to
  kStandardError,   ///< the very file standard error writes to (e.g. `/dev/stderr`)
  kAtomicReplace,   ///< a regular file or a new path: temporary file, fsync, rename
  kDirect,          ///< a character device or FIFO: opened and written in place
};

/// Where and how an output path is written.
struct OutputTarget {
  OutputRoute route = OutputRoute::kAtomicReplace;
  /// The file written: for kAtomicReplace the end of the symlink chain (the file that is
  /// replaced, possibly new); for kDirect the path as given (open follows links, including
  /// /proc/self/fd magic links); empty for the standard streams.
  std::filesystem::path path;
};

/// Decides how `path` is written, by the rules at the top of this header. Follows at most 40
/// symbolic links. Never creates, writes or removes anything.
/// Throws std::runtime_error "PATH: cannot write: <why>" for a directory, a socket, a block
/// device, a symlink loop, or a path that cannot be looked at (permission denied).
OutputTarget resolve_output_target(const std::filesystem::path& path);

/// Writes `contents` (bytes, as given) to `path` by resolve_output_target's route: "-" and the
/// file standard output writes to go to `standard_output` (flushed; its failure is found by
/// the caller's check of that stream); a regular or new file is replaced atomically
/// (write_file_atomically); a character device or FIFO is opened without blocking (a FIFO
/// nobody reads is an error, not a hang) and written in place.
/// Throws std::runtime_error "PATH: cannot write: <what>: <reason>" on any failure, e.g. a full
/// disk or `/dev/full` ("No space left on device"); nothing is renamed over a non-regular file.
void write_output_file(const std::filesystem::path& path, std::string_view contents, std::ostream& standard_output);

/// write_output_file for an output written piece by piece (a report streamed directory by
/// directory, so that its size never has to fit in memory): the same routes, the same
/// errors. The constructor resolves `path` and opens what it writes (the temporary file of
/// an atomic replace, a FIFO or device in place); the caller writes to stream(); finish()
/// flushes and, for an atomic replace, renames the complete file into place. Destroyed
/// without finish() (an error or an exception on the way), an atomic replace removes its
/// temporary and leaves `path` as it was.
/// The constructor and finish() throw std::runtime_error "PATH: cannot write: <what>: <reason>";
/// a write that fails on the way is remembered and thrown by finish().
class OutputWriter {
 public:
  OutputWriter(const std::filesystem::path& path, std::ostream& standard_output);
  ~OutputWriter();
  OutputWriter(const OutputWriter&) = delete;
  OutputWriter& operator=(const OutputWriter&) = delete;

  /// Where the output is written: standard output itself for "-", else a buffered stream.
  std::ostream& stream();
  /// Completes the output (see above). Called at most once.
  void finish();

 private:
  struct Sink;
  std::filesystem::path path_;
  std::ostream& standard_output_;
  OutputTarget target_;
  std::unique_ptr<Sink> sink_;
};

/// A text made through a std::ostream (fmt::print, write_table) to be written later: a
/// std::ostringstream that throws what its buffer throws. A plain one takes the
/// std::bad_alloc of a string that cannot grow for a bad state and drops the rest of the text
/// in silence (README, Robustness).
class TextStream : public std::ostringstream {
 public:
  TextStream() { exceptions(std::ios::badbit); }
};

/// A stream buffer that gathers bytes in one block of 64 KiB, allocated when it is made, and
/// hands each full block to write_block(); a write of a block or more goes out as it is,
/// after what is gathered. Nothing is allocated after construction, so writing never runs
/// out of memory: a std::ostream would take that std::bad_alloc for a bad state, and every
/// later byte would be dropped in silence (README, Robustness).
class BlockBuffer : public std::streambuf {
 public:
  static constexpr std::size_t kBlockBytes = 64 * 1024;
  BlockBuffer();
  ~BlockBuffer() override;
  BlockBuffer(const BlockBuffer&) = delete;
  BlockBuffer& operator=(const BlockBuffer&) = delete;

 protected:
  /// Writes `size` bytes (0: none, only the state is asked); false once a write has failed,
  /// after which the bytes are dropped. Must not throw except std::bad_alloc.
  virtual bool write_block(const char* data, std::size_t size) = 0;
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* data, std::streamsize count) override;
  /// Writes what is gathered: 0, or -1 when a write has failed.
  int sync() override;

 private:
  std::unique_ptr<char[]> block_;
};

/// A stream buffer writing to a file descriptor (standard output) in 64 KiB blocks with
/// write(2), remembering the first failure instead of losing it the way std::cout does.
/// After a failure every later byte is discarded; the command goes on and its end checks
/// error(). A closed pipe (EPIPE, when SIGPIPE is ignored) counts as broken_pipe(), not as an
/// error: the reader has gone, as with `| head`.
class CheckedFdBuffer : public BlockBuffer {
 public:
  /// Writes to `fd`, which stays open and owned by the caller.
  explicit CheckedFdBuffer(int fd);
  ~CheckedFdBuffer() override;

  /// The errno of the first failed write other than EPIPE; 0 when none failed.
  int error() const { return error_; }
  /// True when a write met a closed pipe.
  bool broken_pipe() const { return broken_pipe_; }

 protected:
  bool write_block(const char* data, std::size_t size) override;

 private:
  int fd_;
  bool broken_pipe_ = false;
  int error_ = 0;
};

}  // namespace mlperf
