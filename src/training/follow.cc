#include "mlperf/training/follow.h"
#include "mlperf/mllog/line_reader.h"
#include "mlperf/training/run.h"

#include <new>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace mlperf {

namespace fs = std::filesystem;

namespace {

std::optional<double> number(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  return std::nullopt;
}

std::optional<double> member_number(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return std::nullopt;
  auto it = object.find(name);
  return it == object.end() ? std::nullopt : number(*it);
}

}  // namespace

FollowState::FollowState(const DataContext& data, std::optional<Ruleset> ruleset)
    : data_(data), given_ruleset_(ruleset) {}

void FollowState::reset() {
  view_ = FollowUpdate{};
  run_start_ms_.reset();
  batch_size_.reset();
  facts_ = nullptr;
  ruleset_.reset();
}

void FollowState::resolve() {
  if (!facts_ && !view_.benchmark.empty()) facts_ = data_.facts().find(view_.benchmark);
  if (!facts_) return;
  if (!ruleset_) {
    if (given_ruleset_) {
      ruleset_ = given_ruleset_;
    } else if (run_start_ms_) {
      Run probe;  // guess_ruleset reads only the run_start of its runs
      probe.run_start = EventMark{*run_start_ms_, 0};
      std::string reason;
      ruleset_ = guess_ruleset(view_.benchmark, {probe}, data_, &reason);
    }
    if (!ruleset_) return;
  }
  if (!view_.rcp_mean_samples && batch_size_) {
    try {
      auto records = data_.rcps(*facts_, *ruleset_);
      // The record of this batch size, else the nearest one (the RCP check interpolates;
      // the live view only needs the order of magnitude of the samples to expect).
      const RcpRecord* best = nullptr;
      for (const auto& r : *records) {
        if (!best || std::llabs(r.batch_size - *batch_size_) < std::llabs(best->batch_size - *batch_size_)) best = &r;
      }
      if (best) view_.rcp_mean_samples = best->mean;
    } catch (const std::bad_alloc&) {
      throw;  // out of memory is never a finding: main.cc says so, exit 2
    } catch (const std::exception&) {
      // A malformed table: the view goes without an expectation; `score` reports the error.
    }
  }
}

bool FollowState::on_event(const Event& e) {
  view_.time_ms = e.time_ms;
  const std::string& key = e.key;
  bool changed = false;
  if (key == "submission_benchmark" && e.value.is_string()) {
    view_.benchmark = e.value.get<std::string>();
    resolve();
  } else if (key == "global_batch_size") {
    if (auto v = number(e.value)) batch_size_ = static_cast<long long>(*v);
    resolve();
  } else if (key == "run_start") {
    if (!run_start_ms_) run_start_ms_ = e.time_ms;
    resolve();
    changed = true;
  } else if (key == "tracked_stats") {
    if (auto t = member_number(e.value, "throughput")) view_.throughput = t;
  } else if (key == "eval_accuracy") {
    if (auto v = number(e.value)) {
      view_.eval_accuracy = v;
      if (facts_ && ruleset_) {
        if (const QualityTarget* target = facts_->quality_target(*ruleset_)) {
          auto it = target->metrics.find("");
          if (it != target->metrics.end() && it->second.contains(*v)) view_.quality_target_reached = true;
        }
      }
      changed = true;
    }
  } else if (key == "run_stop") {
    view_.final = true;
    if (run_start_ms_) view_.minutes = (e.time_ms - *run_start_ms_) / kMillisecondsPerMinute;
    if (e.metadata.is_object() && e.metadata.contains("status") && e.metadata["status"].is_string()) {
      view_.status = e.metadata["status"].get<std::string>();
    } else {
      view_.status = "no status";
    }
    changed = true;
  }
  for (const char* field : {"samples_count", "epoch_num"}) {
    if (auto s = member_number(e.metadata, field)) {
      if (!view_.samples || *s != *view_.samples) changed = changed || key == "block_stop" || key == "eval_accuracy";
      view_.samples = s;
      break;
    }
  }
  if (run_start_ms_) view_.elapsed_minutes = (e.time_ms - *run_start_ms_) / kMillisecondsPerMinute;
  if (view_.elapsed_minutes && view_.samples && *view_.samples > 0 && view_.rcp_mean_samples) {
    view_.projected_minutes = *view_.elapsed_minutes * *view_.rcp_mean_samples / *view_.samples;
  }
  return changed;
}

LogTail::~LogTail() { close_file(); }

void LogTail::start_over() {
  offset_ = 0;
  line_ = 0;
  partial_.clear();
  fingerprint_.clear();
}

void LogTail::close_file() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::size_t LogTail::read_lines(std::size_t limit,
                                const std::function<void(std::uint64_t, std::string_view)>& on_line) {
  std::string block(limit, '\0');
  ssize_t n = ::pread(fd_, block.data(), block.size(), static_cast<off_t>(offset_));
  if (n <= 0) return 0;
  offset_ += static_cast<std::uint64_t>(n);
  block.resize(static_cast<std::size_t>(n));
  // The fingerprint: the last bytes before the new offset.
  if (block.size() >= kFingerprint) {
    fingerprint_.assign(block, block.size() - kFingerprint, kFingerprint);
  } else {
    fingerprint_ += block;
    if (fingerprint_.size() > kFingerprint) fingerprint_.erase(0, fingerprint_.size() - kFingerprint);
  }
  std::size_t start = 0;
  for (std::size_t nl = block.find('\n'); nl != std::string::npos; nl = block.find('\n', start)) {
    std::string_view piece(block.data() + start, nl - start);
    ++line_;
    if (partial_.empty()) {
      if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
      on_line(line_, piece);
    } else {
      partial_.append(piece);
      if (!partial_.empty() && partial_.back() == '\r') partial_.pop_back();
      on_line(line_, partial_);
      partial_.clear();
    }
    start = nl + 1;
  }
  // A partial last line waits for the rest; one longer than any MLLOG line is cut short.
  if (partial_.size() < 64 * kBlock) partial_.append(block, start, std::string::npos);
  return static_cast<std::size_t>(n);
}

LogTail::Change LogTail::poll(const std::function<void(std::uint64_t, std::string_view)>& on_line) {
  struct stat at_path {};
  const bool exists = ::stat(file_.c_str(), &at_path) == 0;
  if (exists && !S_ISREG(at_path.st_mode)) {
    close_file();
    return Change::kNotRegular;
  }
  const bool renamed = fd_ >= 0 && (!exists || std::pair<dev_t, ino_t>{at_path.st_dev, at_path.st_ino} != *identity_);
  if (renamed) {
    // Rotated or deleted: what the old file still holds is read first (its last lines, a
    // run_stop among them, belong to this run), then the new one from its start.
    while (read_lines(kBlock, on_line) > 0) {
    }
    if (!partial_.empty()) {
      ++line_;
      on_line(line_, partial_);  // its last line, without a newline: the file is complete
      partial_.clear();
    }
    close_file();
    start_over();
    identity_.reset();
    return exists ? Change::kRestarted : Change::kMissing;
  }
  if (!exists) return Change::kMissing;
  if (fd_ < 0) {
    fd_ = ::open(file_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) return Change::kMissing;
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      close_file();
      return Change::kNotRegular;
    }
    const bool another = identity_ && *identity_ != std::pair<dev_t, ino_t>{st.st_dev, st.st_ino};
    identity_ = std::pair<dev_t, ino_t>{st.st_dev, st.st_ino};
    if (another) {
      start_over();
      return Change::kRestarted;
    }
  }
  struct stat st {};
  bool rewritten = ::fstat(fd_, &st) != 0 || static_cast<std::uint64_t>(st.st_size) < offset_;
  if (!rewritten && !fingerprint_.empty()) {
    // Truncated and written again since the last poll: the bytes before the offset differ.
    std::string now(fingerprint_.size(), '\0');
    const off_t at = static_cast<off_t>(offset_ - fingerprint_.size());
    rewritten = ::pread(fd_, now.data(), now.size(), at) != static_cast<ssize_t>(now.size()) || now != fingerprint_;
  }
  if (rewritten) {
    start_over();
    return Change::kRestarted;
  }
  return read_lines(kBlock, on_line) > 0 ? Change::kRead : Change::kNone;
}

std::optional<fs::path> newest_log(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return path;
  std::optional<fs::path> best;
  fs::file_time_type best_time;
  for (const auto& e : fs::directory_iterator(path, ec)) {
    std::string name = e.path().filename().string();
    if (!(name.ends_with(".log") || name.ends_with(".txt")) || !e.is_regular_file(ec)) continue;
    auto t = e.last_write_time(ec);
    if (ec) continue;
    if (!best || t > best_time || (t == best_time && name > best->filename().string())) best = e.path(), best_time = t;
  }
  throw_if_out_of_memory(ec.value());  // opendir's malloc: not a folder without logs
  return best;
}

}  // namespace mlperf
