#include "mlperf/report/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace mlperf {

namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const char* what, int error) {
  throw std::runtime_error(fmt::format("{}: cannot write: {}: {}", path.string(), what, std::strerror(error)));
}

// The mode a new file gets from open(…, 0666): 0666 minus the process umask. Read from
// /proc (Linux ≥ 4.7) so no other thread ever sees a temporarily cleared umask.
mode_t default_file_mode() {
  mode_t mask = 022;
  bool found = false;
  if (std::FILE* status = std::fopen("/proc/self/status", "re")) {
    char line[256];
    while (std::fgets(line, sizeof line, status)) {
      unsigned value = 0;
      if (std::sscanf(line, "Umask: %o", &value) == 1) {
        mask = static_cast<mode_t>(value);
        found = true;
        break;
      }
    }
    std::fclose(status);
  }
  if (!found) {
    mask = ::umask(0);
    ::umask(mask);
  }
  return 0666 & ~mask;
}

// The temporary files not yet committed or removed, for remove_unfinished_temporaries: each
// slot holds an AtomicFile's temp_.c_str() (the string never changes while listed) or null.
std::array<std::atomic<const char*>, 64> g_unfinished{};

int list_unfinished(const char* temp) {
  for (std::size_t i = 0; i < g_unfinished.size(); ++i) {
    const char* empty = nullptr;
    if (g_unfinished[i].compare_exchange_strong(empty, temp)) return static_cast<int>(i);
  }
  return -1;  // more than 64 at once: this one is removed by unwinding alone
}

void unlist_unfinished(int& slot) {
  if (slot >= 0) g_unfinished[static_cast<std::size_t>(slot)].store(nullptr);
  slot = -1;
}

bool write_all_of(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

AtomicFile::AtomicFile(const std::filesystem::path& path) : path_(path) {
  if (path.filename().empty()) fail(path, "not a file name", EISDIR);
  folder_ = path.parent_path();
  if (folder_.empty()) folder_ = ".";
  std::string temp_name = ".";  // built by appends: GCC 12 warns falsely (-Wrestrict) on "." + name
  temp_name.append(path.filename().string()).append(".tmp-XXXXXX");
  temp_ = (folder_ / temp_name).string();
  // Listed before it exists, so no moment passes with the file there and unlisted; a handler
  // that runs before mkostemp has filled in the name unlinks the pattern, which is no file.
  slot_ = list_unfinished(temp_.c_str());
  fd_ = ::mkostemp(temp_.data(), O_CLOEXEC);
  if (fd_ < 0) {
    const int error = errno;
    unlist_unfinished(slot_);
    fail(path, "cannot create a temporary file in its folder", error);
  }
}

AtomicFile::~AtomicFile() {
  if (done_) return;
  if (fd_ >= 0) ::close(fd_);
  ::unlink(temp_.c_str());
  unlist_unfinished(slot_);  // after the unlink: a signal between the two finds it gone
}

void AtomicFile::abandon(const char* what) {
  int error = errno;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temp_.c_str());
  unlist_unfinished(slot_);
  done_ = true;
  fail(path_, what, error);
}

void AtomicFile::write(std::string_view data) {
  if (done_) fail(path_, "write failed", EBADF);
  if (!write_all_of(fd_, data)) abandon("write failed");
}

void AtomicFile::commit() {
  if (done_) fail(path_, "write failed", EBADF);
  struct stat existing {};
  mode_t mode = ::stat(path_.c_str(), &existing) == 0 && S_ISREG(existing.st_mode) ? (existing.st_mode & 07777)
                                                                                    : default_file_mode();
  if (::fchmod(fd_, mode) != 0) abandon("cannot set the file mode");
  if (::fsync(fd_) != 0) abandon("fsync failed");
  int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) abandon("close failed");
  // Never rename over anything but a regular file (a device, FIFO or symlink would be
  // replaced for every other user of it: issue #11); callers resolve links beforehand.
  struct stat now {};
  if (::lstat(path_.c_str(), &now) == 0 && !S_ISREG(now.st_mode)) {
    errno = S_ISDIR(now.st_mode) ? EISDIR : EEXIST;
    abandon(S_ISDIR(now.st_mode) ? "cannot rename the temporary file into place"
                                 : "not a regular file; it is never replaced");
  }
  if (::rename(temp_.c_str(), path_.c_str()) != 0) abandon("cannot rename the temporary file into place");
  unlist_unfinished(slot_);  // renamed: a handler's unlink of the old name now finds nothing
  done_ = true;

  // Make the rename itself durable; a failure here does not undo a complete write.
  int dir_fd = ::open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void remove_unfinished_temporaries() noexcept {
  for (auto& slot : g_unfinished) {
    if (const char* temp = slot.load()) ::unlink(temp);
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  AtomicFile file(path);
  file.write(contents);
  file.commit();
}

}  // namespace mlperf
