// Ending by a signal (Ctrl-C, kill, a closed terminal) leaves no temporary --output file
// behind (README "Robustness"): the handler removes the unfinished ones, then the signal ends
// the process as it would have without the handler (same status for the shell).

#include <signal.h>

#include "common.h"
#include "mlperf/report/atomic_file.h"

namespace mlperf::cli {
namespace {

void on_ending_signal(int signal_number) {
  remove_unfinished_temporaries();  // unlink(2) alone: async-signal-safe
  // SA_RESETHAND has put back the default action and SA_NODEFER leaves the signal unblocked:
  // raising it again ends the process now, by this signal.
  ::raise(signal_number);
}

}  // namespace

void install_interrupt_cleanup() {
  struct sigaction action {};
  action.sa_handler = on_ending_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_NODEFER;
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    struct sigaction old {};
    // A signal the caller set to be ignored (nohup's SIGHUP) stays ignored.
    if (::sigaction(signal_number, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(signal_number, &action, nullptr);
  }
}

}  // namespace mlperf::cli
