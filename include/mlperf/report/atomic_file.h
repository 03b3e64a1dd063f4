#pragma once
// Writing output files atomically: readers see the old file or the whole new one, never a
// partial write (project standard: "write output files atomically").

#include <filesystem>
#include <string>
#include <string_view>

namespace mlperf {

/// Replaces `path` with `contents` (bytes, written as given) atomically: writes a temporary
/// file in the same folder (so the rename never crosses file systems), fsyncs it, renames
/// it over `path`, then fsyncs the folder. A new file gets mode 0666 minus the umask; an
/// existing file keeps its mode. Never follows or writes anything but `path` and its
/// temporary, and never renames over an existing path that is not a regular file (a
/// symlink, device, FIFO or socket: the write fails instead; write_output_file in
/// mlperf/output.h resolves such paths first).
/// Throws std::runtime_error naming `path` (and the system's reason) when the folder is
/// missing or not writable, the disk is full, or the rename fails; the temporary file is
/// removed first, so a failed write leaves `path` untouched and no stray file behind.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

/// write_file_atomically piece by piece, for an output too big to hold in memory (a report
/// streamed directory by directory): the constructor creates the temporary file in `path`'s
/// folder, write() appends to it, commit() sets the mode, fsyncs and renames it over `path`
/// by the rules above. Destroyed without commit() (an error, an exception on the way), it
/// removes the temporary and leaves `path` untouched.
/// Every member throws std::runtime_error "PATH: cannot write: <what>: <reason>" on failure,
/// after removing the temporary.
/// While it exists uncommitted, its temporary is also one that remove_unfinished_temporaries
/// removes, so a process ended without unwinding (std::terminate, a signal) leaves none behind.
class AtomicFile {
 public:
  explicit AtomicFile(const std::filesystem::path& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends `data` (bytes) to the temporary file.
  void write(std::string_view data);
  /// Makes the written bytes `path`'s contents. Called at most once.
  void commit();

 private:
  [[noreturn]] void abandon(const char* what);
  std::filesystem::path path_;
  std::filesystem::path folder_;
  std::string temp_;
  int fd_ = -1;
  bool done_ = false;
  int slot_ = -1;  ///< its place among the unfinished temporaries; -1 when not listed
};

/// Removes (unlink(2)) the temporary file of every AtomicFile neither committed nor destroyed
/// yet. Only async-signal-safe calls: for a terminate or signal handler about to end the
/// process without unwinding (README "Robustness": no temporary left behind). Up to 64
/// unfinished files are tracked at once; never throws.
void remove_unfinished_temporaries() noexcept;

}  // namespace mlperf
