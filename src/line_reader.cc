#include "mlperf/line_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace mlperf {

ByteSource string_source(std::string text, std::size_t chunk) {
  auto data = std::make_shared<std::string>(std::move(text));
  auto offset = std::make_shared<std::size_t>(0);
  return [data, offset, chunk](char* buffer, std::size_t capacity) -> std::size_t {
    std::size_t n = std::min({capacity, chunk, data->size() - *offset});
    std::memcpy(buffer, data->data() + *offset, n);
    *offset += n;
    return n;
  };
}

namespace {
// Owns a file descriptor; closed when the last copy of the source goes away.
struct FileHandle {
  int fd = -1;
  std::string path;
  ~FileHandle() {
    if (fd >= 0) ::close(fd);
  }
};
}  // namespace

ByteSource file_source(const std::filesystem::path& path) {
  auto handle = std::make_shared<FileHandle>();
  handle->path = path.string();
  handle->fd = ::open(handle->path.c_str(), O_RDONLY | O_CLOEXEC);
  if (handle->fd < 0) {
    throw std::runtime_error(fmt::format("{}: cannot open: {}", handle->path, std::strerror(errno)));
  }
  struct stat info {};
  if (::fstat(handle->fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    throw std::runtime_error(fmt::format("{}: cannot open: {}", handle->path, std::strerror(EISDIR)));
  }
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(handle->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  return [handle](char* buffer, std::size_t capacity) -> std::size_t {
    for (;;) {
      ssize_t n = ::read(handle->fd, buffer, capacity);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("{}: read error: {}", handle->path, std::strerror(errno)));
    }
  };
}

LineReader::LineReader(ByteSource source, std::size_t block_bytes, std::size_t max_line_bytes)
    : source_(std::move(source)), max_line_bytes_(max_line_bytes), buffer_(block_bytes) {}

bool LineReader::fill() {
  if (eof_) return false;
  // Move the unconsumed tail to the front, and grow only when a line fills the buffer.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
  std::size_t n = source_(buffer_.data() + end_, buffer_.size() - end_);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += n;
  return true;
}

bool LineReader::next(Line& line) {
  std::size_t scanned = 0;  // bytes after begin_ known to hold no newline
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const void* nl = std::memchr(start + scanned, '\n', end_ - begin_ - scanned);
    if (nl != nullptr) {
      std::size_t len = static_cast<const char*>(nl) - start;
      begin_ += len + 1;
      ++line_number_;
      if (len > 0 && start[len - 1] == '\r') --len;
      bool truncated = len > max_line_bytes_;
      line = Line{std::string_view(start, truncated ? max_line_bytes_ : len), line_number_, truncated};
      return true;
    }
    scanned = end_ - begin_;
    // Only a line strictly longer than the limit (plus a possible '\r') is cut.
    if (scanned > max_line_bytes_ + 1) {
      // Too long to keep: hand out its first bytes, then skip to the end of the line.
      ++line_number_;
      std::string_view head(buffer_.data() + begin_, max_line_bytes_);
      // Keep the head readable for the caller: copy it to the front of a fresh buffer.
      std::vector<char> kept(head.begin(), head.end());
      begin_ = end_ = 0;
      for (;;) {
        if (!fill()) break;
        const void* skip_nl = std::memchr(buffer_.data(), '\n', end_);
        if (skip_nl != nullptr) {
          begin_ = static_cast<const char*>(skip_nl) - buffer_.data() + 1;
          break;
        }
        begin_ = end_ = 0;
      }
      truncated_line_ = std::move(kept);
      line = Line{std::string_view(truncated_line_.data(), truncated_line_.size()), line_number_, true};
      return true;
    }
    if (!fill()) {
      if (end_ == begin_) return false;
      // Last line without a newline.
      const char* s = buffer_.data() + begin_;
      std::size_t len = end_ - begin_;
      begin_ = end_;
      ++line_number_;
      if (len > 0 && s[len - 1] == '\r') --len;
      bool truncated = len > max_line_bytes_;
      line = Line{std::string_view(s, truncated ? max_line_bytes_ : len), line_number_, truncated};
      return true;
    }
  }
}

}  // namespace mlperf
