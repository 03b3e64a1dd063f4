#pragma once
// Folders held open so that the files read one after another in them are opened and
// stat'ed relative to the folder: one path look-up a folder, not one per system call.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace mlperf {

/// A folder held open: `fd` stands for the folder `path` named when it was opened (O_PATH in
/// a FolderCache: no read permission needed, nothing read; O_RDONLY where it was listed).
/// Closed when the last owner lets it go (-1: nothing to close).
struct OpenFolder {
  int fd = -1;
  std::string path;
  OpenFolder() = default;
  OpenFolder(const OpenFolder&) = delete;
  OpenFolder& operator=(const OpenFolder&) = delete;
  ~OpenFolder();
};

/// Where a file is reached: by `name` relative to an open folder, or (folder == nullptr) by
/// its whole path, relative to the working directory (FolderCache::locate puts that path in
/// `name`; a default FileLocation leaves it to the caller, who has the path). dirfd() and
/// name_or(path) are the arguments of openat/fstatat for the file.
struct FileLocation {
  std::shared_ptr<const OpenFolder> folder;
  std::string name;
  /// The descriptor `name` is relative to: the folder's, or AT_FDCWD.
  int dirfd() const;
  /// `name` when a folder is held, else `path` (the file's whole path).
  const char* name_or(const std::string& path) const { return folder ? name.c_str() : path.c_str(); }
};

/// The last few folders whose files were located through it, held open. A file in one of
/// them is located by its last path component; a file in another folder opens its folder
/// first (the least recently used one is let go). The folder is looked up by the text of
/// the path before the last '/', so a folder renamed or replaced while it is held is still
/// the one opened before: keep a cache only for one pass over files (a scoring run), and
/// clear() it after. Not thread-safe: one thread uses it.
class FolderCache {
 public:
  static constexpr std::size_t kFolders = 8;

  /// The location of `path`: relative to its folder, held open, when `path` has a folder
  /// part and a plain last component (not "", "." or ".."); else the whole path (also when
  /// the folder cannot be opened: the caller's openat/fstatat then fails as open/stat would,
  /// with the same errno). Never throws other than std::bad_alloc.
  FileLocation locate(const std::filesystem::path& path);

  /// Lets every held folder go (their descriptors close once no FileLocation holds them).
  void clear() { folders_.clear(); }

  /// How many folders are held (at most kFolders).
  std::size_t size() const { return folders_.size(); }

 private:
  std::vector<std::shared_ptr<const OpenFolder>> folders_;  // the most recently used last
};

}  // namespace mlperf
