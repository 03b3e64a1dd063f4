#pragma once
// Writing output files atomically: readers see the old file or the whole new one, never a
// partial write (project standard: "write output files atomically").

#include <filesystem>
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

}  // namespace mlperf
