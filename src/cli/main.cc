// mlperf-score: score MLPerf Training and Inference results exactly as the official tooling does.
// Each subcommand lives in its own file under src/cli/; this file only dispatches.

#include <CLI/CLI.hpp>
#include <malloc.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <vector>

#include <fmt/format.h>

#include "common.h"
#include "mlperf/mllog/line_reader.h"
#include "mlperf/report/output.h"

namespace {

// Issue #11: a report that could not be written is an error, never a silent success. Called
// once the command has finished: flushes standard output and standard error and turns a
// failed write into exit status 2 with one message; a closed pipe (`| head`) ends quietly.
int finish_output(mlperf::CheckedFdBuffer& out, int status) {
  std::cout.flush();
  if (out.broken_pipe()) return 128 + SIGPIPE;  // as if SIGPIPE had ended us, which it does when not ignored
  if (out.error() != 0) {
    std::fprintf(stderr, "mlperf-score: cannot write the report: %s\n", std::strerror(out.error()));
    return mlperf::cli::kExitInputError;
  }
  if (std::fflush(stderr) != 0 || std::ferror(stderr)) return mlperf::cli::kExitInputError;
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mlperf::cli;
  // Grow the heaps (the main one and each thread's arena) 32 MiB at a time: scoring a round
  // makes many small allocations on every core, and growing 128 KiB at a time cost a system
  // call (brk, mprotect) and a lock every few thousand of them (4 ms of a 95 ms round).
  // Pages are only backed once written, so resident memory does not change.
  ::mallopt(M_TOP_PAD, 32 << 20);
  // Running out of memory: one message and exit 2, never an abort, a crash or a status 0
  // (common.h); out_of_memory.cc installs that policy before main.
  // Ctrl-C or kill while a report is written: no temporary file left beside --output.
  install_interrupt_cleanup();
  // A file size limit (ulimit -f) makes a write fail with EFBIG, a write error like any
  // other (exit 2, the temporary file removed), instead of killing the process silently.
  std::signal(SIGXFSZ, SIG_IGN);
  // Every report goes through std::cout; this buffer writes with write(2) and keeps the first
  // error (std::cout's own buffer would lose the reason and the status). The old buffer is
  // put back before `standard_output` goes away.
  mlperf::CheckedFdBuffer standard_output(STDOUT_FILENO);
  struct Restore {
    std::streambuf* old;
    ~Restore() { std::cout.rdbuf(old); }
  } restore{std::cout.rdbuf(&standard_output)};

  CLI::App app{"mlperf-score: MLPerf Training and Inference result logs → time to train, RCP check, score; "
                "inference figures, accuracy, compliance tests (TEST01/04/06…) and validity, as the official "
                "MLCommons tooling (compliance checker, package checker, submission checker) judges them"};
  // The version is CMake's project(VERSION), passed in by CMakeLists.txt (one place for the
  // binary, the man page and the Debian package).
  app.set_version_flag("--version", "mlperf-score " MLPERF_SCORE_VERSION);
  app.require_subcommand(1);

  std::vector<Command> commands;
  for (const auto& [name, factory] : registered_commands()) commands.push_back(factory(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return finish_output(standard_output, code == 0 ? 0 : kExitInputError);
  }
  for (const auto& c : commands) {
    if (!*c.app) continue;
    int status = kExitInputError;
    bool said_out_of_memory = false;
    try {
      status = c.run();
    } catch (const std::bad_alloc&) {
      // One policy for running out of memory: say so, exit 2, no partial --output file (the
      // atomic writer removes its temporary as the exception passes).
      std::fputs(kOutOfMemoryMessage, stderr);
      said_out_of_memory = true;
      status = kExitInputError;
    } catch (const std::exception& e) {
      if (mlperf::is_out_of_memory(e)) {
        // A call that failed for want of memory (getcwd's malloc in std::filesystem::absolute:
        // "cannot make absolute path: Cannot allocate memory") is running out of memory too.
        say_out_of_memory(fmt::format("mlperf-score: out of memory ({}); nothing more was written", e.what()));
      } else {
        // fmt::print throws when standard error cannot be written (`2>/dev/full`); anything
        // else escaping a command is a bug, still reported as a message and status 2.
        std::fprintf(stderr, "mlperf-score: %s\n", e.what());
      }
      status = kExitInputError;
    }
    if (memory_ran_out() && !said_out_of_memory && !out_of_memory_said()) {
      // An allocation failed and something judged the failure instead of passing it on: what
      // was answered may be short of what the logs say, so it is not given as an answer (and a
      // finding made of the failure, such as a file that "cannot be read", is not the reason).
      say_out_of_memory("mlperf-score: out of memory while this ran (an allocation failed); what was written may be "
                        "incomplete");
      status = kExitInputError;
    }
    return finish_output(standard_output, status);
  }
  return finish_output(standard_output, kExitInputError);
}
