#pragma once
// The texts of a batch of results, made on the threads that score them, in whatever order
// they finish, and written in the batch's order as soon as each one's turn comes: the report
// is written while the rest of the batch is scored, not after it (issue #25).
// ReportWriter::prepare uses it.

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace mlperf {

/// Texts given by index in the batch (0, 1, ...), any order, from any thread; each written
/// once, in index order, by one thread at a time. Texts given before their turn wait here.
class InOrderTexts {
 public:
  /// What writes one text in its turn: `written` is how many texts of the report (every
  /// batch) were written before it, for the separator. Called one thread at a time.
  using Write = std::function<void(std::string_view text, std::size_t written)>;

  /// Gives the text of result `index` of the batch. When its turn has come and no other
  /// thread is writing, this thread writes it, and each following one already given, with
  /// `write`; else the thread writing takes it in its turn. Throws what `write` throws and
  /// std::bad_alloc; what was written before is then the start of the report.
  void give(std::size_t index, std::string text, const Write& write);

  /// The first index of the batch not written yet. Only while no give() is under way.
  std::size_t next() const { return next_; }
  /// How many texts were written, every batch. Only while no give() is under way.
  std::size_t written() const { return written_; }
  /// The text given for `index` and not written yet, taken out; nullopt when none was given.
  /// Only while no give() is under way.
  std::optional<std::string> take(std::size_t index);
  /// Counts a text written by the caller in its turn (next() moves on). Only while no give()
  /// is under way; returns how many were written before it.
  std::size_t count_written() {
    ++next_;
    return written_++;
  }
  /// Ends the batch: the texts not written are dropped and the next give() is of a new
  /// batch's index 0. The count of texts written goes on.
  void end_batch();

 private:
  std::mutex mutex_;
  std::map<std::size_t, std::string> ready_;  // given, not written, by index
  std::size_t next_ = 0;                       // the batch's first index not written
  std::size_t written_ = 0;                    // texts written, every batch
  bool writing_ = false;                       // a thread is writing
};

}  // namespace mlperf
