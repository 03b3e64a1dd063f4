#include "mlperf/mllog/folder_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <string_view>

namespace mlperf {

OpenFolder::~OpenFolder() {
  if (fd >= 0) ::close(fd);
}

int FileLocation::dirfd() const { return folder ? folder->fd : AT_FDCWD; }

FileLocation FolderCache::locate(const std::filesystem::path& path) {
  const std::string& text = path.native();
  const std::size_t slash = text.rfind('/');
  if (slash == std::string::npos) return {nullptr, text};
  const std::string_view name = std::string_view(text).substr(slash + 1);
  if (name.empty() || name == "." || name == "..") return {nullptr, text};
  // "/name" is in "/"; "a//name" in "a/" (the same folder as "a").
  const std::string_view folder = std::string_view(text).substr(0, slash == 0 ? 1 : slash);

  auto held = std::find_if(folders_.rbegin(), folders_.rend(),
                           [&](const std::shared_ptr<const OpenFolder>& f) { return f->path == folder; });
  if (held != folders_.rend()) {
    std::shared_ptr<const OpenFolder> found = *held;
    if (held != folders_.rbegin()) {  // now the most recently used
      folders_.erase(std::next(held).base());
      folders_.push_back(found);
    }
    return {std::move(found), std::string(name)};
  }
  auto opened = std::make_shared<OpenFolder>();
  opened->path.assign(folder);
  opened->fd = ::open(opened->path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (opened->fd < 0) return {nullptr, text};  // not cached: the whole path says why
  if (folders_.size() >= kFolders) folders_.erase(folders_.begin());
  folders_.push_back(opened);
  return {std::move(opened), std::string(name)};
}

}  // namespace mlperf
