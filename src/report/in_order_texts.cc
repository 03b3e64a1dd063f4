#include "mlperf/report/in_order_texts.h"

namespace mlperf {

void InOrderTexts::give(std::size_t index, std::string text, const Write& write) {
  {
    std::lock_guard lock(mutex_);
    ready_.emplace(index, std::move(text));
    if (writing_) return;  // the thread writing takes it in its turn
    writing_ = true;
  }
  // This thread writes every text whose turn has come, in order, while the others go on (and
  // give theirs). It stops, under the same lock, when the next one is not given yet.
  struct Stop {
    InOrderTexts& texts;
    bool done = false;
    ~Stop() {
      if (done) return;
      std::lock_guard lock(texts.mutex_);  // an exception on the way: another may write
      texts.writing_ = false;
    }
  } stop{*this};
  for (;;) {
    std::string turn;
    std::size_t written = 0;
    {
      std::lock_guard lock(mutex_);
      auto it = ready_.find(next_);
      if (it == ready_.end()) {
        writing_ = false;
        stop.done = true;
        return;
      }
      turn = std::move(it->second);
      ready_.erase(it);
      ++next_;
      written = written_++;
    }
    write(turn, written);
  }
}

std::optional<std::string> InOrderTexts::take(std::size_t index) {
  auto it = ready_.find(index);
  if (it == ready_.end()) return std::nullopt;
  std::string text = std::move(it->second);
  ready_.erase(it);
  return text;
}

void InOrderTexts::end_batch() {
  ready_.clear();
  next_ = 0;
}

}  // namespace mlperf
