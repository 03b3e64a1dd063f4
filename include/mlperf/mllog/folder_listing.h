#pragma once
// A folder's entries as one getdents64 pass gives them: names and the type readdir knows,
// no stat per entry. std::filesystem::directory_iterator costs three more system calls a
// folder (fdopendir's fcntl twice and fstat); the inference stage lists every folder of a
// submission, 12,000 on the v5.1 round.

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace mlperf {

/// One entry of a folder: its name and d_type (DT_REG, DT_DIR, DT_LNK, ... or DT_UNKNOWN
/// where the file system does not say).
struct FolderEntry {
  std::string name;
  unsigned char type = 0;

  /// What std::filesystem::directory_entry answers for it below `folder`, symbolic links
  /// followed: the listed type where it is not a link nor unknown, else a stat of the path
  /// (false when that fails, as for a broken link).
  bool is_directory(const std::filesystem::path& folder) const;
  bool is_regular_file(const std::filesystem::path& folder) const;
  /// Whether the entry itself is a symbolic link (an lstat where the type is unknown).
  bool is_symlink(const std::filesystem::path& folder) const;
};

/// Lists `folder`: every entry but "." and "..", in the order the kernel gives them (the
/// order of std::filesystem::directory_iterator). Returns false with `error` set when the
/// folder cannot be opened or read; `entries` then holds what was read before the error.
/// Never throws except std::bad_alloc.
bool list_folder(const std::filesystem::path& folder, std::vector<FolderEntry>& entries, std::error_code& error);

}  // namespace mlperf
