#include "mlperf/report/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <ostream>
#include <stdexcept>

#include <fmt/format.h>

#include "mlperf/report/atomic_file.h"

namespace mlperf {

namespace {

[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& why) {
  throw std::runtime_error(fmt::format("{}: cannot write: {}", path.string(), why));
}

bool same_file(const struct stat& a, int fd) {
  struct stat b {};
  return ::fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// The end of `path`'s symlink chain (the path itself when it is no link); the end may not
// exist yet. Relative link targets are taken from the link's folder, as the kernel does.
std::filesystem::path follow_links(const std::filesystem::path& path) {
  std::filesystem::path at = path;
  for (int hops = 0; hops <= 40; ++hops) {
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return at;
    std::error_code ec;
    std::filesystem::path target = std::filesystem::read_symlink(at, ec);
    if (ec) refuse(path, fmt::format("cannot read the symbolic link {}: {}", at.string(), ec.message()));
    at = target.is_absolute() ? target : at.parent_path() / target;
  }
  refuse(path, std::strerror(ELOOP));
}

bool write_all_or_errno(int fd, const char* data, std::size_t size, int& error) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = errno;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Opens a character device or FIFO for writing in place. O_NONBLOCK: opening a FIFO nobody
// reads fails with ENXIO instead of waiting forever; then it is written as a blocking stream.
int open_in_place(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    refuse(path, error == ENXIO ? std::string("no process reads this FIFO")
                                : fmt::format("cannot open: {}", std::strerror(error)));
  }
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

void write_in_place(const std::filesystem::path& path, std::string_view contents) {
  int fd = open_in_place(path);
  int error = 0;
  bool ok = write_all_or_errno(fd, contents.data(), contents.size(), error);
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (!ok) refuse(path, fmt::format("write failed: {}", std::strerror(error)));
}

}  // namespace

OutputTarget resolve_output_target(const std::filesystem::path& path) {
  if (path == "-") return {OutputRoute::kStandardOutput, {}};
  if (path.empty()) refuse(path, "empty path");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    int error = errno;
    if (error != ENOENT) refuse(path, std::strerror(error));
    // New: a plain new name, or a symlink whose target does not exist yet (the target is made).
    return {OutputRoute::kAtomicReplace, follow_links(path)};
  }
  if (same_file(st, STDOUT_FILENO)) return {OutputRoute::kStandardOutput, {}};
  if (same_file(st, STDERR_FILENO)) return {OutputRoute::kStandardError, {}};
  if (S_ISREG(st.st_mode)) return {OutputRoute::kAtomicReplace, follow_links(path)};
  if (S_ISDIR(st.st_mode)) refuse(path, "is a directory");
  if (S_ISSOCK(st.st_mode)) refuse(path, "is a socket");
  if (S_ISBLK(st.st_mode)) refuse(path, "is a block device; a report never overwrites a disk");
  return {OutputRoute::kDirect, path};  // character device or FIFO
}

void write_output_file(const std::filesystem::path& path, std::string_view contents, std::ostream& standard_output) {
  OutputTarget target = resolve_output_target(path);
  switch (target.route) {
    case OutputRoute::kStandardOutput:
      standard_output.write(contents.data(), static_cast<std::streamsize>(contents.size()));
      standard_output.flush();
      return;
    case OutputRoute::kStandardError:
      std::fflush(stderr);
      if (std::fwrite(contents.data(), 1, contents.size(), stderr) != contents.size() || std::fflush(stderr) != 0) {
        refuse(path, fmt::format("write failed: {}", std::strerror(errno)));
      }
      return;
    case OutputRoute::kAtomicReplace:
      write_file_atomically(target.path, contents);
      return;
    case OutputRoute::kDirect:
      write_in_place(target.path, contents);
      return;
  }
}

BlockBuffer::BlockBuffer() : block_(new char[kBlockBytes]) { setp(block_.get(), block_.get() + kBlockBytes); }

BlockBuffer::~BlockBuffer() = default;

BlockBuffer::int_type BlockBuffer::overflow(int_type ch) {
  if (sync() != 0) return traits_type::eof();
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  *pptr() = traits_type::to_char_type(ch);
  pbump(1);
  return ch;
}

std::streamsize BlockBuffer::xsputn(const char* data, std::streamsize count) {
  const auto size = static_cast<std::size_t>(count);
  if (size > static_cast<std::size_t>(epptr() - pptr())) {
    if (sync() != 0) return 0;
    // A big block goes out as it is, after what was gathered (no copy into the block).
    if (size >= kBlockBytes) return write_block(data, size) ? count : 0;
  }
  std::memcpy(pptr(), data, size);
  pbump(static_cast<int>(size));
  return count;
}

int BlockBuffer::sync() {
  const auto size = static_cast<std::size_t>(pptr() - pbase());
  setp(block_.get(), block_.get() + kBlockBytes);
  return write_block(block_.get(), size) ? 0 : -1;
}

CheckedFdBuffer::CheckedFdBuffer(int fd) : fd_(fd) {}

CheckedFdBuffer::~CheckedFdBuffer() { sync(); }

bool CheckedFdBuffer::write_block(const char* data, std::size_t size) {
  if (broken_pipe_ || error_ != 0) return false;  // discard after the first failure
  if (size == 0) return true;
  int error = 0;
  if (write_all_or_errno(fd_, data, size, error)) return true;
  if (error == EPIPE) {
    broken_pipe_ = true;
  } else {
    error_ = error;
  }
  return false;
}

// A buffered stream whose bytes go to `write` in blocks of 64 KiB. A failed write (the
// callback throws std::runtime_error) is remembered with its message and every later byte
// is dropped; OutputWriter::finish() throws it. std::bad_alloc passes on.
struct OutputWriter::Sink : BlockBuffer {
  explicit Sink(std::function<void(std::string_view)> write) : write_(std::move(write)), stream_(this) {}
  bool write_block(const char* data, std::size_t size) override {
    if (!error_.empty()) return false;
    if (size == 0) return true;
    try {
      write_(std::string_view(data, size));
    } catch (const std::runtime_error& e) {
      error_ = e.what();
    }
    return error_.empty();
  }

  std::function<void(std::string_view)> write_;
  std::string error_;  // the first failed write's message
  std::ostream stream_;
  std::unique_ptr<AtomicFile> atomic;  // kAtomicReplace
  int fd = -1;                         // kDirect
};

OutputWriter::OutputWriter(const std::filesystem::path& path, std::ostream& standard_output)
    : path_(path), standard_output_(standard_output), target_(resolve_output_target(path)) {
  switch (target_.route) {
    case OutputRoute::kStandardOutput:
      return;
    case OutputRoute::kStandardError:
      std::fflush(stderr);
      sink_ = std::make_unique<Sink>([this](std::string_view data) {
        if (std::fwrite(data.data(), 1, data.size(), stderr) != data.size() || std::fflush(stderr) != 0) {
          refuse(path_, fmt::format("write failed: {}", std::strerror(errno)));
        }
      });
      return;
    case OutputRoute::kAtomicReplace: {
      auto file = std::make_unique<AtomicFile>(target_.path);
      AtomicFile* raw = file.get();
      sink_ = std::make_unique<Sink>([raw](std::string_view data) { raw->write(data); });
      sink_->atomic = std::move(file);
      return;
    }
    case OutputRoute::kDirect: {
      int fd = open_in_place(target_.path);
      sink_ = std::make_unique<Sink>([this](std::string_view data) {
        int error = 0;
        if (!write_all_or_errno(sink_->fd, data.data(), data.size(), error)) {
          refuse(target_.path, fmt::format("write failed: {}", std::strerror(error)));
        }
      });
      sink_->fd = fd;
      return;
    }
  }
}

OutputWriter::~OutputWriter() {
  if (sink_ && sink_->fd >= 0) ::close(sink_->fd);
}

std::ostream& OutputWriter::stream() { return sink_ ? sink_->stream_ : standard_output_; }

void OutputWriter::finish() {
  if (!sink_) {
    standard_output_.flush();
    return;
  }
  sink_->pubsync();
  if (!sink_->error_.empty()) throw std::runtime_error(sink_->error_);
  if (sink_->atomic) sink_->atomic->commit();
  if (sink_->fd >= 0) {
    int fd = sink_->fd;
    sink_->fd = -1;
    if (::close(fd) != 0) refuse(target_.path, fmt::format("write failed: {}", std::strerror(errno)));
  }
}

}  // namespace mlperf
