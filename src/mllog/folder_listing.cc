#include "mlperf/mllog/folder_listing.h"
#include "mlperf/mllog/line_reader.h"

#include "mlperf/mllog/path_text.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

namespace mlperf {

namespace {

// The entry's own type: the listed one, else an lstat (DT_UNKNOWN). 0 when that fails.
mode_t own_type(const FolderEntry& e, const std::string& folder) {
  switch (e.type) {
    case DT_REG: return S_IFREG;
    case DT_DIR: return S_IFDIR;
    case DT_LNK: return S_IFLNK;
    case DT_UNKNOWN: break;
    default: return S_IFIFO;  // a device, FIFO or socket: neither folder, file nor link
  }
  struct stat info {};
  return ::lstat(path_join(folder, e.name).c_str(), &info) == 0 ? (info.st_mode & S_IFMT) : 0;
}

// The type with symbolic links followed; 0 when that fails.
mode_t followed_type(const FolderEntry& e, const std::string& folder) {
  const mode_t own = own_type(e, folder);
  if (own != S_IFLNK) return own;
  struct stat info {};
  return ::stat(path_join(folder, e.name).c_str(), &info) == 0 ? (info.st_mode & S_IFMT) : 0;
}

}  // namespace

bool FolderEntry::is_directory(const std::string& folder) const { return followed_type(*this, folder) == S_IFDIR; }

bool FolderEntry::is_regular_file(const std::string& folder) const { return followed_type(*this, folder) == S_IFREG; }

bool FolderEntry::is_symlink(const std::string& folder) const { return own_type(*this, folder) == S_IFLNK; }

namespace {
thread_local const FolderListings::Use* use_in_effect = nullptr;

// The listing of `folder` kept by the Use in effect on this thread; nullptr when none is.
const std::vector<FolderEntry>* kept_listing(std::string_view folder) {
  return use_in_effect == nullptr ? nullptr : use_in_effect->find_text(folder);
}
}  // namespace

void FolderListings::add(std::string below, std::vector<FolderEntry> entries) {
  by_folder_.insert_or_assign(std::move(below), std::move(entries));
}

const std::vector<FolderEntry>* FolderListings::find(std::string_view below) const {
  auto it = by_folder_.find(below);
  return it == by_folder_.end() ? nullptr : &it->second;
}

FolderListings::Use::Use(const FolderListings* listings, std::vector<std::filesystem::path> tops,
                         const FolderListings* also)
    : listings_(listings), also_(listings ? also : nullptr), tops_(std::move(tops)), previous_(use_in_effect) {
  use_in_effect = this;
}

FolderListings::Use::~Use() { use_in_effect = previous_; }

const std::vector<FolderEntry>* FolderListings::Use::find_text(std::string_view path) const {
  if (listings_ == nullptr) return nullptr;
  for (const auto& top : tops_) {
    const std::string_view t = top.native();
    if (t.empty() || !path.starts_with(t) || (path.size() > t.size() && path[t.size()] != '/')) continue;
    const std::string_view below = path.substr(t.size());
    if (const auto* known = listings_->find(below)) return known;
    if (also_ != nullptr) {
      if (const auto* known = also_->find(below)) return known;
    }
  }
  return nullptr;
}

FolderEntry listed_entry(int folder_fd, std::string_view name, unsigned char type, bool sizes) {
  FolderEntry e{std::string(name), type, -1};
  if (sizes && (type == DT_REG || type == DT_LNK || type == DT_UNKNOWN)) {
    struct stat info {};
    if (::fstatat(folder_fd, e.name.c_str(), &info, 0) == 0 && S_ISREG(info.st_mode)) e.size = info.st_size;
  }
  return e;
}

namespace {

// One getdents64 pass over `name` below the folder open at `dirfd` (AT_FDCWD: a path); with
// `sizes`, an fstatat (links followed) of each entry that may be a regular file. With
// `kept_fd`, the folder stays open there (-1 when it could not be opened), else it is closed.
bool read_folder(int dirfd, const char* name, std::vector<FolderEntry>& entries, std::error_code& error, bool sizes,
                 int* kept_fd = nullptr) {
  if (kept_fd) *kept_fd = -1;
  const int fd = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    throw_if_out_of_memory(errno);  // the kernel's ENOMEM: out of memory, not an unreadable folder
    error = std::error_code(errno, std::generic_category());
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() {
      if (fd >= 0) ::close(fd);
    }
  } closer{fd};  // closed also when an entry cannot be stored (std::bad_alloc)
  alignas(8) char buffer[32 * 1024];
  bool ok = true;
  for (;;) {
    const ssize_t n = ::getdents64(fd, buffer, sizeof buffer);
    if (n < 0) {
      error = std::error_code(errno, std::generic_category());
      ok = false;
      break;
    }
    if (n == 0) break;
    for (ssize_t at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + at);
      at += entry->d_reclen;
      const std::string_view entry_name(entry->d_name);
      if (entry_name == "." || entry_name == "..") continue;
      entries.push_back(listed_entry(fd, entry_name, entry->d_type, sizes));
    }
  }
  if (!ok) throw_if_out_of_memory(error.value());
  if (ok && kept_fd) {
    *kept_fd = fd;
    closer.fd = -1;
  }
  return ok;
}

}  // namespace

bool list_folder(PathRef folder, std::vector<FolderEntry>& entries, std::error_code& error) {
  error.clear();
  if (const std::vector<FolderEntry>* known = kept_listing(folder.text())) {
    entries.insert(entries.end(), known->begin(), known->end());
    return true;
  }
  return read_folder(AT_FDCWD, folder.text().c_str(), entries, error, false);
}

bool list_folder_with_sizes(const std::string& folder, std::vector<FolderEntry>& entries, std::error_code& error) {
  error.clear();
  return read_folder(AT_FDCWD, folder.c_str(), entries, error, true);
}

bool list_folder_with_sizes_at(int dirfd, const char* name, std::vector<FolderEntry>& entries, std::error_code& error,
                               int& fd) {
  error.clear();
  return read_folder(dirfd, name, entries, error, true, &fd);
}

namespace {

// Where `path` stands in the listings in use on this thread: `held` when the listing of the
// folder holding it is kept (its last part a plain name), `entry` then its entry (null when
// the folder does not hold it).
struct Listed {
  bool held = false;
  const FolderEntry* entry = nullptr;
  std::string_view folder;  // the text of the folder in the path looked up

  // The entry's type with links followed (0: none, or the stat failed): the listed type, a
  // stat only for a link or an unknown type.
  mode_t type() const {
    if (entry == nullptr) return 0;
    const bool stat = entry->type == DT_LNK || entry->type == DT_UNKNOWN;
    return followed_type(*entry, stat ? std::string(folder) : std::string());
  }
};

Listed look_up(std::string_view text) {
  Listed l;
  if (use_in_effect == nullptr) return l;
  const std::size_t slash = text.rfind('/');
  if (slash == std::string::npos || slash == 0) return l;
  const std::string_view name = text.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") return l;
  const std::vector<FolderEntry>* entries = kept_listing(text.substr(0, slash));
  if (entries == nullptr) return l;
  l.held = true;
  l.folder = text.substr(0, slash);
  for (const auto& e : *entries) {
    if (e.name == name) {
      l.entry = &e;
      break;
    }
  }
  return l;
}

// A path ending in separators names a folder (or a link to one) only: the listed type of the
// path without them, where its folder's listing is kept (`held` false otherwise).
bool listed_folder_with_separator(PathRef path, bool& held) {
  held = false;
  std::string_view text = path.text();
  if (!text.ends_with('/')) return false;
  while (text.size() > 1 && text.back() == '/') text.remove_suffix(1);
  if (text.ends_with('/')) return false;  // the root
  const Listed l = look_up(text);
  held = l.held;
  return l.held && l.type() == S_IFDIR;
}

}  // namespace

bool listed_exists(PathRef path) {
  bool held = false;
  if (const bool folder = listed_folder_with_separator(path, held); held) return folder;
  const Listed l = look_up(path.text());
  if (!l.held) {
    std::error_code ec;
    return std::filesystem::exists(path.path(), ec);
  }
  return l.type() != 0;
}

namespace {

// Whether `path` is of `type` (links followed): from the kept listing of its folder, else
// what `on_disk` (a std::filesystem query) answers.
template <class OnDisk>
bool listed_type_is(PathRef path, mode_t type, OnDisk on_disk) {
  const Listed l = look_up(path.text());
  if (!l.held) {
    std::error_code ec;
    return on_disk(path.path(), ec);
  }
  return l.type() == type;
}

}  // namespace

bool listed_is_directory(PathRef path) {
  bool held = false;
  if (const bool folder = listed_folder_with_separator(path, held); held) return folder;
  return listed_type_is(path, S_IFDIR, [](const std::filesystem::path& p, std::error_code& ec) {
    return std::filesystem::is_directory(p, ec);
  });
}

bool listed_is_regular_file(PathRef path) {
  return listed_type_is(path, S_IFREG, [](const std::filesystem::path& p, std::error_code& ec) {
    return std::filesystem::is_regular_file(p, ec);
  });
}

std::optional<std::uintmax_t> listed_file_size(PathRef path) {
  const Listed l = look_up(path.text());
  if (l.held) {
    if (l.entry == nullptr) return std::nullopt;
    if (l.entry->size >= 0) return static_cast<std::uintmax_t>(l.entry->size);
    if (l.type() != S_IFREG) return std::nullopt;  // else listed without sizes: a stat
  }
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path.path(), ec);
  if (ec) return std::nullopt;
  return size;
}

bool listed_absent(PathRef path) noexcept {
  const Listed l = look_up(path.text());
  return l.held && l.entry == nullptr;
}

namespace {

// Calls `each(entry)` for every entry of `folder` as list_folder gives them: from the kept
// listing in place where there is one (no copy of its names), else listed anew.
template <class Each>
void for_each_listed(const std::string& folder, Each each) {
  if (const std::vector<FolderEntry>* known = kept_listing(folder)) {
    for (const auto& e : *known) each(e);
    return;
  }
  std::vector<FolderEntry> entries;
  std::error_code error;
  read_folder(AT_FDCWD, folder.c_str(), entries, error, false);
  for (const auto& e : entries) each(e);
}

}  // namespace

std::set<std::string> folders_in(PathRef folder) {
  std::set<std::string> out;
  for_each_listed(folder.text(), [&](const FolderEntry& e) {
    if (e.is_directory(folder.text())) out.insert(e.name);
  });
  return out;
}

std::vector<std::string> regular_files_in(PathRef folder) {
  std::vector<std::string> out;
  for_each_listed(folder.text(), [&](const FolderEntry& e) {
    if (e.is_regular_file(folder.text())) out.push_back(e.name);
  });
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace mlperf
