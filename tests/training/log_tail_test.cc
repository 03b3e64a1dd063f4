// LogTail (`follow`): a log that grows, is truncated and written again within one polling
// interval, rotated right after its last lines, deleted and recreated, or is a FIFO.

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../test_support.h"
#include "mlperf/training/follow.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::write_file;

struct Polled {
  LogTail::Change change;
  std::vector<std::string> lines;
};

Polled poll(LogTail& tail) {
  Polled p;
  p.change = tail.poll([&](std::uint64_t line, std::string_view text) {
    p.lines.push_back(std::to_string(line) + ":" + std::string(text));
  });
  return p;
}

void append(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::app) << text; }

TEST(LogTail, ReadsWhatIsAppendedLineByLine) {
  TempDir tmp;
  const fs::path log = tmp.path() / "run.log";
  LogTail tail(log);
  EXPECT_EQ(poll(tail).change, LogTail::Change::kMissing);
  write_file(log, "a\nb\npartial");
  Polled p = poll(tail);
  EXPECT_EQ(p.change, LogTail::Change::kRead);
  EXPECT_EQ(p.lines, (std::vector<std::string>{"1:a", "2:b"}));
  append(log, " line\nc\n");
  EXPECT_EQ(poll(tail).lines, (std::vector<std::string>{"3:partial line", "4:c"}));
  EXPECT_EQ(poll(tail).change, LogTail::Change::kNone);
}

TEST(LogTail, ATruncateAndRegrowWithinOneIntervalIsReadFromTheStart) {
  TempDir tmp;
  const fs::path log = tmp.path() / "run.log";
  write_file(log, "run_start of the first run\n");
  LogTail tail(log);
  EXPECT_EQ(poll(tail).lines.size(), 1u);
  // O_TRUNC and a longer rewrite before the next poll: the size alone does not show it.
  write_file(log, "run_start of the second run\nrun_stop of the second run\n");
  EXPECT_EQ(poll(tail).change, LogTail::Change::kRestarted);
  EXPECT_EQ(poll(tail).lines,
            (std::vector<std::string>{"1:run_start of the second run", "2:run_stop of the second run"}));
}

TEST(LogTail, ARotatedLogIsReadToItsEndBeforeTheNewOne) {
  TempDir tmp;
  const fs::path log = tmp.path() / "run.log";
  write_file(log, "run_start\n");
  LogTail tail(log);
  EXPECT_EQ(poll(tail).lines, (std::vector<std::string>{"1:run_start"}));
  append(log, "run_stop\nlast words");  // written, then rotated before the next poll
  fs::rename(log, tmp.path() / "run.log.1");
  write_file(log, "next run_start\n");
  Polled p = poll(tail);
  EXPECT_EQ(p.change, LogTail::Change::kRestarted);
  EXPECT_EQ(p.lines, (std::vector<std::string>{"2:run_stop", "3:last words"}));
  EXPECT_EQ(poll(tail).lines, (std::vector<std::string>{"1:next run_start"}));
}

TEST(LogTail, EachDeletionIsReportedAndARecreatedLogReadFromItsStart) {
  TempDir tmp;
  const fs::path log = tmp.path() / "run.log";
  write_file(log, "one\n");
  LogTail tail(log);
  EXPECT_EQ(poll(tail).lines.size(), 1u);
  append(log, "two\n");
  fs::remove(log);
  Polled gone = poll(tail);
  EXPECT_EQ(gone.change, LogTail::Change::kMissing);
  EXPECT_EQ(gone.lines, (std::vector<std::string>{"2:two"}));  // what it held is not lost
  EXPECT_EQ(poll(tail).change, LogTail::Change::kMissing);
  write_file(log, "again\n");
  EXPECT_EQ(poll(tail).lines, (std::vector<std::string>{"1:again"}));
  fs::remove(log);
  EXPECT_EQ(poll(tail).change, LogTail::Change::kMissing);  // the second deletion too
}

TEST(LogTail, AFifoIsNotARegularFile) {
  TempDir tmp;
  const fs::path fifo = tmp.path() / "run.log";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  LogTail tail(fifo);
  EXPECT_EQ(poll(tail).change, LogTail::Change::kNotRegular);
}

}  // namespace
}  // namespace mlperf
