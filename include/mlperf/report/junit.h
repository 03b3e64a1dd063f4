#pragma once
// JUnit XML for `mlperf-score check --junit FILE`: CI systems (GitLab, Jenkins, GitHub test
// reporters) show one test suite per benchmark directory and one test case per check.

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mlperf/training/check.h"

namespace mlperf {

/// Escapes text for XML 1.0 character data and attribute values: & < > " ' become entity
/// references; tab, LF and CR become character references (so attribute values keep them);
/// characters XML 1.0 forbids (other C0 controls, U+FFFE, U+FFFF) and bytes that are not
/// well-formed UTF-8 become U+FFFD. Never throws.
std::string xml_escape(std::string_view text);

/// The JUnit XML document (UTF-8) for `reports`:
/// <testsuites name="mlperf-score check" tests failures errors> holding, per report,
/// <testsuite name="DIRECTORY" tests failures errors skipped="0"> with <properties>
/// (benchmark, division, ruleset, submitter, system) and one <testcase name="CHECK"
/// classname="DIRECTORY"> per check. A failing check holds <failure message="FIRST ERROR"
/// type="CHECK"> listing every error as `file:line: message` (`file: message` when no line
/// applies); input_readable errors use <error> instead. Warnings go to <system-out>.
std::string junit_xml(const std::vector<CheckReport>& reports);

/// junit_xml written a batch of directories at a time (issue #25: 100,000 directories in
/// constant memory). The head carries the totals, so the suites wait in an unnamed temporary
/// file (tmpfile(3), removed by the system however the process ends; in memory when none
/// can be made) until finish() writes the document. The bytes equal junit_xml over all
/// reports.
class JUnitWriter {
 public:
  JUnitWriter();
  ~JUnitWriter();
  JUnitWriter(const JUnitWriter&) = delete;
  JUnitWriter& operator=(const JUnitWriter&) = delete;

  /// Adds the suites of `reports` after those added before.
  void add(const std::vector<CheckReport>& reports);
  /// Writes the whole document to `out`. Throws std::runtime_error when the temporary file
  /// cannot be read back.
  void finish(std::ostream& out);

 private:
  std::string spooled();
  // Appends one suite after those kept: to the spool file, else (none, or it failed) to memory.
  void keep(const std::string& suite);
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace mlperf
