// Every example of README.md is run and its output compared, so the README cannot go stale.
//
// An example is a fenced code block (```) whose first line is a shell prompt, "$ " (the README's
// examples start "$ mlperf-score "; a block may first prepare its input). In it:
//   - a line starting with "$ " is a command (a line ending with " \" continues on the next);
//   - the lines after a command, up to the next command or the end of the block, are what the
//     command prints on standard output (standard error is not compared: an example that shows
//     it says 2>&1);
//   - a line that is "..." (indentation allowed) stands for any number of output lines, none
//     included: the README's way of leaving lines out;
//   - a command must exit 0, unless the next command is "echo $?", whose output then shows the
//     status.
// Trailing spaces and blank lines at the end of an output are not compared.
//
// The commands of one block run in order in one /bin/sh, in a fresh temporary folder holding a
// copy of the shipped data/examples and tests/data/hpc (so the README's relative paths work and an example may
// write files), with `mlperf-score` on PATH: a link to the binary under test. Each
// example is its own test case, named after its README line; a failure names that line and
// shows the expected and the actual output.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../test_support.h"

namespace {

namespace fs = std::filesystem;

using mlperf::testing::binary;
using mlperf::testing::read_file;
using mlperf::testing::source_dir;
using mlperf::testing::TempDir;

struct Command {
  int line = 0;                       // README line of the "$ " line
  std::string text;                   // the shell command, without "$ "
  std::vector<std::string> expected;  // its output as the README shows it
  int expected_line = 0;              // README line of the first output line
};

struct Example {
  int line = 0;  // README line of the first command
  std::vector<Command> commands;
};

// How gtest names an example in its messages.
void PrintTo(const Example& ex, std::ostream* os) { *os << "README.md:" << ex.line; }

std::string rstrip(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

bool is_elision(const std::string& line) {
  auto first = line.find_first_not_of(" \t");
  return first != std::string::npos && rstrip(line.substr(first)) == "...";
}

bool is_fence(const std::string& line) {
  auto first = line.find_first_not_of(' ');
  return first != std::string::npos && first < 4 && line.compare(first, 3, "```") == 0;
}

std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The examples of the README, in order.
std::vector<Example> readme_examples() {
  std::vector<std::string> lines = read_lines(source_dir() / "README.md");
  std::vector<Example> examples;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!is_fence(lines[i])) continue;
    std::size_t end = i + 1;
    while (end < lines.size() && !is_fence(lines[end])) ++end;
    if (i + 1 < end && lines[i + 1].rfind("$ ", 0) == 0) {
      Example ex;
      ex.line = static_cast<int>(i + 2);
      for (std::size_t j = i + 1; j < end; ++j) {
        if (lines[j].rfind("$ ", 0) == 0) {
          Command c;
          c.line = static_cast<int>(j + 1);
          c.text = lines[j].substr(2);
          while (!c.text.empty() && c.text.back() == '\\' && j + 1 < end) c.text += "\n" + lines[++j];
          c.expected_line = static_cast<int>(j + 2);
          ex.commands.push_back(c);
        } else {
          ex.commands.back().expected.push_back(rstrip(lines[j]));
        }
      }
      examples.push_back(ex);
    }
    i = end;
  }
  return examples;
}

// Whether `actual` matches `expected`, where an elision line matches zero or more lines.
bool matches(const std::vector<std::string>& expected, const std::vector<std::string>& actual) {
  // ok[i][j]: expected[i..] matches actual[j..]
  std::vector<std::vector<char>> ok(expected.size() + 1, std::vector<char>(actual.size() + 1, 0));
  ok[expected.size()][actual.size()] = 1;
  for (std::size_t i = expected.size(); i-- > 0;) {
    for (std::size_t j = actual.size() + 1; j-- > 0;) {
      if (is_elision(expected[i])) {
        ok[i][j] = ok[i + 1][j] || (j < actual.size() && ok[i][j + 1]);
      } else {
        ok[i][j] = j < actual.size() && expected[i] == actual[j] && ok[i + 1][j + 1];
      }
    }
  }
  return ok[0][0];
}

std::vector<std::string> split_output(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(rstrip(line));
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

std::vector<std::string> trimmed(std::vector<std::string> lines) {
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// A readable account of a mismatch: the first line that differs (matching greedily, an
// elision skipping to the next expected line's first occurrence), then both texts in full.
std::string explain(const Command& c, const std::vector<std::string>& expected, const std::vector<std::string>& actual) {
  std::ostringstream out;
  std::size_t i = 0, j = 0;
  while (i < expected.size()) {
    if (is_elision(expected[i])) {
      if (i + 1 == expected.size()) { j = actual.size(); ++i; break; }
      auto next = std::find(actual.begin() + static_cast<long>(j), actual.end(), expected[i + 1]);
      if (next == actual.end()) break;
      j = static_cast<std::size_t>(next - actual.begin());
      ++i;
      continue;
    }
    if (j >= actual.size() || expected[i] != actual[j]) break;
    ++i, ++j;
  }
  if (i < expected.size() && !is_elision(expected[i])) {
    out << "first difference: README.md:" << c.expected_line + static_cast<int>(i) << " expects\n  |" << expected[i]
        << "\n";
  } else if (i < expected.size()) {
    out << "first difference: README.md:" << c.expected_line + static_cast<int>(i) << " (...) then\n  |"
        << (i + 1 < expected.size() ? expected[i + 1] : std::string()) << "\n";
  } else {
    out << "first difference: the README's output ends at README.md:" << c.expected_line + static_cast<int>(i)
        << "\n";
  }
  if (j < actual.size()) {
    out << "output line " << j + 1 << " is\n  |" << actual[j] << "\n";
  } else {
    out << "the output has only " << actual.size() << " lines\n";
  }
  out << "--- expected (README.md:" << c.expected_line << ")\n";
  for (const auto& l : expected) out << "  |" << l << "\n";
  out << "--- actual\n";
  for (const auto& l : actual) out << "  |" << l << "\n";
  return out.str();
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// Separates the commands' outputs in one shell's standard output: a byte that no report holds,
// followed by the command's exit status.
constexpr char kMark = '\x1e';

class ReadmeExample : public ::testing::TestWithParam<Example> {};

TEST_P(ReadmeExample, PrintsWhatTheReadmeShows) {
  const Example& ex = GetParam();
  TempDir tmp;
  fs::path work = tmp.path() / "work";
  fs::create_directories(work / "data");
  fs::copy(source_dir() / "data/examples", work / "data/examples", fs::copy_options::recursive);
  // The MLPerf HPC example reads real HPC folders kept with the tests.
  fs::create_directories(work / "tests/data");
  fs::copy(source_dir() / "tests/data/hpc", work / "tests/data/hpc", fs::copy_options::recursive);
  fs::create_directories(tmp.path() / "bin");
  // A link, not a script: it runs where the temporary folder is mounted noexec, and the
  // binary sees "mlperf-score" as its name, as after an install.
  fs::create_symlink(fs::absolute(binary()), tmp.path() / "bin/mlperf-score");

  // One shell for the block: each command, then the mark and its status, $? kept for "echo $?".
  std::ostringstream script;
  script << "cd " << quoted(work.string()) << " || exit 99\n"
         << "PATH=" << quoted((tmp.path() / "bin").string()) << ":$PATH; export PATH\n"
         << "MLPERF_SCORE_DATA_DIR=" << quoted(source_dir().string()) << "; export MLPERF_SCORE_DATA_DIR\n";
  for (const auto& c : ex.commands) {
    script << c.text << "\n"
           << "__s=$?; printf '\\036%d\\n' \"$__s\"; (exit \"$__s\")\n";
  }
  fs::path script_file = tmp.path() / "example.sh";
  fs::path err_file = tmp.path() / "stderr.txt";
  std::ofstream(script_file) << script.str();

  std::string command = "/bin/sh " + quoted(script_file.string()) + " 2>" + quoted(err_file.string()) + " </dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  int shell_status = ::pclose(pipe);
  std::string err = read_file(err_file);

  // Per command: its output and its exit status.
  std::vector<std::pair<std::string, int>> results;
  std::size_t from = 0;
  for (std::size_t at; (at = out.find(kMark, from)) != std::string::npos;) {
    std::size_t eol = out.find('\n', at);
    if (eol == std::string::npos) eol = out.size();
    results.emplace_back(out.substr(from, at - from), std::atoi(out.substr(at + 1, eol - at - 1).c_str()));
    from = eol + 1;
  }
  ASSERT_EQ(results.size(), ex.commands.size())
      << "README.md:" << ex.line << ": the shell stopped early (status " << shell_status << ")\nstderr:\n"
      << err;

  for (std::size_t k = 0; k < ex.commands.size(); ++k) {
    const Command& c = ex.commands[k];
    bool status_shown = k + 1 < ex.commands.size() && ex.commands[k + 1].text == "echo $?";
    if (!status_shown) {
      EXPECT_EQ(results[k].second, 0) << "README.md:" << c.line << ": $ " << c.text
                                      << "\nexited " << results[k].second
                                      << " (show a non-zero status with \"$ echo $?\" after it)\nstderr:\n"
                                      << err;
    }
    std::vector<std::string> expected = trimmed(c.expected);
    std::vector<std::string> actual = split_output(results[k].first);
    EXPECT_TRUE(matches(expected, actual)) << "README.md:" << c.line << ": $ " << c.text << "\n"
                                           << explain(c, expected, actual) << "stderr:\n"
                                           << err;
  }
}

std::string example_name(const ::testing::TestParamInfo<Example>& info) {
  return "README_line_" + std::to_string(info.param.line);
}

INSTANTIATE_TEST_SUITE_P(Readme, ReadmeExample, ::testing::ValuesIn(readme_examples()), example_name);

// The README has examples and the parser finds them: an empty list would pass vacuously.
TEST(ReadmeExamples, AreFound) {
  auto examples = readme_examples();
  EXPECT_GE(examples.size(), 5u);
  for (const auto& ex : examples) {
    for (const auto& c : ex.commands) EXPECT_FALSE(c.text.empty()) << "README.md:" << c.line;
  }
}

// The matcher itself: "..." stands for zero or more lines, every other line for itself.
TEST(ReadmeExamples, ElisionMatchesZeroOrMoreLines) {
  EXPECT_TRUE(matches({"a", "...", "d"}, {"a", "b", "c", "d"}));
  EXPECT_TRUE(matches({"a", "  ...", "b"}, {"a", "b"}));
  EXPECT_TRUE(matches({"..."}, {}));
  EXPECT_TRUE(matches({"a", "..."}, {"a", "x", "y"}));
  EXPECT_FALSE(matches({"a", "...", "d"}, {"a", "b", "c"}));
  EXPECT_FALSE(matches({"a", "b"}, {"a", "b", "c"}));
  EXPECT_FALSE(matches({"a", "c"}, {"a", "b"}));
  EXPECT_FALSE(matches({}, {"a"}));
}

}  // namespace
