#pragma once
// A folder's entries as one getdents64 pass gives them: names and the type readdir knows,
// no stat per entry. std::filesystem::directory_iterator costs three more system calls a
// folder (fdopendir's fcntl twice and fstat); the inference stage lists every folder of a
// submission, 12,000 on the v5.1 round.

#include "mlperf/mllog/path_text.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

namespace mlperf {

/// One entry of a folder: its name and d_type (DT_REG, DT_DIR, DT_LNK, ... or DT_UNKNOWN
/// where the file system does not say).
struct FolderEntry {
  std::string name;
  unsigned char type = 0;
  /// The size in bytes of a regular file (symbolic links followed), where list_folder was
  /// asked for sizes; -1 otherwise (not asked, not a regular file, or its stat failed).
  std::int64_t size = -1;

  /// What std::filesystem::directory_entry answers for it below `folder`, symbolic links
  /// followed: the listed type where it is not a link nor unknown, else a stat of the path
  /// (false when that fails, as for a broken link).
  bool is_directory(const std::filesystem::path& folder) const { return is_directory(folder.native()); }
  bool is_regular_file(const std::filesystem::path& folder) const { return is_regular_file(folder.native()); }
  /// Whether the entry itself is a symbolic link (an lstat where the type is unknown).
  bool is_symlink(const std::filesystem::path& folder) const { return is_symlink(folder.native()); }
  /// The same for a folder given as its path's text (no std::filesystem::path made: one per
  /// folder of a submission's walk cost more than listing it).
  bool is_directory(const std::string& folder) const;
  bool is_regular_file(const std::string& folder) const;
  bool is_symlink(const std::string& folder) const;
};

/// The entry `name` of type `type` (d_type) that getdents64 gave for the folder open at
/// `folder_fd`; with `sizes`, the size of a regular file (symbolic links followed), taken with
/// one fstatat relative to the folder (FolderEntry::size, -1 where it is not one). Never
/// throws except std::bad_alloc.
FolderEntry listed_entry(int folder_fd, std::string_view name, unsigned char type, bool sizes);

/// Listings made once and read again: the inference stage walks a submitter's whole tree
/// first (judge_submission_tree), then each scenario folder's checks list its run, accuracy
/// and measurement folders, which that walk listed already. The listings are kept by their
/// path below one folder (the submitter's); while a FolderListings::Use is alive on a thread,
/// list_folder answers a folder below one of the Use's spellings of that folder from them,
/// and lists other folders anew.
class FolderListings {
 public:
  /// Keeps the entries of the folder at `below` under the top folder: "" for the top itself,
  /// "/results/sys" for <top>/results/sys. A listing that failed is not to be kept.
  void add(std::string below, std::vector<FolderEntry> entries);
  /// The entries kept for `below`, or nullptr.
  const std::vector<FolderEntry>* find(std::string_view below) const;
  std::size_t size() const { return by_folder_.size(); }

  /// Makes `listings` the ones list_folder reads on this thread, for folders below `tops`
  /// (spellings of the top folder: as a path was given, its absolute normal form), until the
  /// Use is destroyed; `listings` must outlive it. Uses nest; a Use of nullptr hides them.
  /// `also` (may be null, must outlive the Use too): more listings below the same tops, read
  /// where `listings` lacks a folder.
  class Use {
   public:
    Use(const FolderListings* listings, std::vector<std::filesystem::path> tops, const FolderListings* also = nullptr);
    ~Use();
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;

    /// The listing of `folder` when it lies below one of the tops and is kept, else nullptr.
    const std::vector<FolderEntry>* find(const std::filesystem::path& folder) const { return find_text(folder.native()); }
    /// The same for a folder given as its path's text.
    const std::vector<FolderEntry>* find_text(std::string_view folder) const;

   private:
    const FolderListings* listings_;
    const FolderListings* also_;
    std::vector<std::filesystem::path> tops_;
    const Use* previous_;
  };

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::vector<FolderEntry>, Hash, std::equal_to<>> by_folder_;
};

/// Lists `folder`: every entry but "." and "..", in the order the kernel gives them (the
/// order of std::filesystem::directory_iterator); from the FolderListings in use on this
/// thread where they hold it. Returns false with `error` set when the folder cannot be
/// opened or read; `entries` then holds what was read before the error. Never throws except
/// std::bad_alloc.
bool list_folder(PathRef folder, std::vector<FolderEntry>& entries, std::error_code& error);

/// As list_folder, with each regular file's size (FolderEntry::size), taken with one fstatat
/// relative to the open folder rather than a look-up of its whole path. Always lists anew.
bool list_folder_with_sizes(const std::string& folder, std::vector<FolderEntry>& entries, std::error_code& error);
inline bool list_folder_with_sizes(const std::filesystem::path& folder, std::vector<FolderEntry>& entries,
                                   std::error_code& error) {
  return list_folder_with_sizes(folder.native(), entries, error);
}

/// As list_folder_with_sizes, of `name` below the folder open at `dirfd` (AT_FDCWD: `name` is
/// a path), which the kernel then looks up from that folder, not along a whole path (a walk
/// down a tree opens each folder from its parent's descriptor). On success `fd` is the
/// folder, left open for its own subfolders: the caller closes it. On failure `fd` is -1.
bool list_folder_with_sizes_at(int dirfd, const char* name, std::vector<FolderEntry>& entries, std::error_code& error,
                               int& fd);

/// What std::filesystem answers of `path` with symbolic links followed (exists, is_directory,
/// is_regular_file; file_size of a regular file, nullopt for anything else or an error),
/// read from the listing of the folder holding it where the FolderListings in use on this
/// thread keep that listing: a stat only for a link or an entry of unknown type. A path
/// ending in separators is a folder there when the name before them is listed as one (links
/// followed), as the kernel reads it. Elsewhere (no listing kept, "." or "..") the path
/// itself is stat-ed.
/// Errors read as false. Never throws except std::bad_alloc.
bool listed_exists(PathRef path);
bool listed_is_directory(PathRef path);
bool listed_is_regular_file(PathRef path);
std::optional<std::uintmax_t> listed_file_size(PathRef path);

/// Whether the FolderListings in use on this thread keep the listing of the folder holding
/// `path` and it has no entry of that name: the file is known to be absent without a system
/// call (an optional file, opened where present, costs a failed open otherwise). False where
/// no such listing is kept. Never throws.
bool listed_absent(PathRef path) noexcept;

/// The names of the folders in `folder` (links to folders counted, as os.path.isdir does),
/// sorted; those listed before an error when it cannot be read whole. Never throws except
/// std::bad_alloc.
std::set<std::string> folders_in(PathRef folder);

/// The names of the regular files in `folder` (links to them counted, as os.path.isfile
/// does), sorted; as folders_in for errors.
std::vector<std::string> regular_files_in(PathRef folder);

}  // namespace mlperf
