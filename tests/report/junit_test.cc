// JUnit XML of check reports: escaping for XML 1.0 and the suite/case structure.

#include "mlperf/report/junit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "../test_support.h"

namespace mlperf {
namespace {

using testing::rs;

std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

TEST(XmlEscape, EscapesMarkupAndKeepsWhitespaceAsReferences) {
  EXPECT_EQ(xml_escape("a & b < c > d \" e ' f"), "a &amp; b &lt; c &gt; d &quot; e &apos; f");
  EXPECT_EQ(xml_escape("tab\tlf\ncr\r"), "tab&#9;lf&#10;cr&#13;");
  EXPECT_EQ(xml_escape(""), "");
}

TEST(XmlEscape, ReplacesWhatXml10Forbids) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(xml_escape(std::string("a\0b", 3)), "a" + fffd + "b");
  EXPECT_EQ(xml_escape("\x01\x08\x0B\x0C\x1F"), fffd + fffd + fffd + fffd + fffd);
  EXPECT_EQ(xml_escape("\x7F"), "\x7F");                          // DEL is allowed
  EXPECT_EQ(xml_escape("\xEF\xBF\xBE\xEF\xBF\xBF"), fffd + fffd);  // U+FFFE, U+FFFF
}

TEST(XmlEscape, KeepsValidUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(xml_escape("µs ≤ 3.3 😀"), "µs ≤ 3.3 😀");
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(xml_escape("caf\xE9"), "caf" + fffd);                   // Latin-1 é
  EXPECT_EQ(xml_escape("\xC0\xAF"), fffd + fffd);                   // overlong '/'
  EXPECT_EQ(xml_escape("\xED\xA0\x80"), fffd + fffd + fffd);        // UTF-16 surrogate
  EXPECT_EQ(xml_escape("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd);  // above U+10FFFF
  EXPECT_EQ(xml_escape("\xE2\x89"), fffd + fffd);                   // truncated sequence
}

CheckReport report(const std::string& dir, bool failing) {
  CheckReport r;
  r.directory = dir;
  r.benchmark = "llama31_8b";
  r.division = "closed";
  r.ruleset = rs("5.1.0");
  r.ruleset_source = "path";
  for (auto id : kCheckIds) r.checks.push_back({std::string(id), "", {}});
  if (failing) {
    r.checks[1].findings.push_back({"compliance", Finding::kError, dir + "/result_2.txt", 41, "run_start <early> & \"bad\""});
    r.checks[1].findings.push_back({"compliance", Finding::kError, dir + "/result_6.txt", 41, "second"});
    r.checks[0].findings.push_back({"input_readable", Finding::kError, dir + "/result_9.txt", 0, "cannot open"});
  }
  r.checks[2].findings.push_back({"run_stop_status", Finding::kWarning, dir + "/result_0.txt", 7, "repeated"});
  return r;
}

TEST(JunitXml, OneSuitePerDirectoryOneCasePerCheck) {
  std::string xml = junit_xml({report("/r/a&b", false), report("/r/c", true)});
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mlperf-score check\" tests=\"16\" "
                      "failures=\"1\" errors=\"1\">\n",
                      0),
            0u)
      << xml;
  EXPECT_EQ(occurrences(xml, "<testsuite "), 2u);
  EXPECT_EQ(occurrences(xml, "</testsuite>"), 2u);
  EXPECT_EQ(occurrences(xml, "<testcase "), 2 * kCheckIds.size());
  EXPECT_EQ(occurrences(xml, "</testcase>"), 2 * kCheckIds.size());
  EXPECT_NE(xml.find("<testsuite name=\"/r/a&amp;b\" tests=\"8\" failures=\"0\" errors=\"0\" skipped=\"0\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"/r/c\" tests=\"8\" failures=\"1\" errors=\"1\" skipped=\"0\">"), std::string::npos);
  EXPECT_NE(xml.find("<failure message=\"/r/c/result_2.txt:41: run_start &lt;early&gt; &amp; &quot;bad&quot; (and 1 "
                     "more)\" type=\"compliance\">/r/c/result_2.txt:41: run_start &lt;early&gt; &amp; "
                     "&quot;bad&quot;&#10;/r/c/result_6.txt:41: second&#10;</failure>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<error message=\"/r/c/result_9.txt: cannot open\" type=\"input_readable\">"), std::string::npos);
  EXPECT_EQ(occurrences(xml, "<system-out>warning: /r/c/result_0.txt:7: repeated&#10;</system-out>"), 1u);
  EXPECT_NE(xml.find("<property name=\"ruleset\" value=\"5.1.0\"/>"), std::string::npos);
  EXPECT_EQ(xml.substr(xml.size() - 14), "</testsuites>\n");
}

TEST(JunitXml, NoReportsIsAnEmptyButValidDocument) {
  EXPECT_EQ(junit_xml({}),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"mlperf-score check\" tests=\"0\" failures=\"0\" errors=\"0\">\n"
            "</testsuites>\n");
}

// Streamed (issue #25): the suites wait in a temporary file; any split into batches gives the
// bytes of junit_xml over all reports.
TEST(JunitWriter, BatchesGiveTheBytesOfOneWholeDocument) {
  std::vector<CheckReport> reports;
  for (int i = 0; i < 7; ++i) reports.push_back(report("/r/d" + std::to_string(i), i % 3 == 1));
  for (std::size_t batch : {1u, 3u, 7u}) {
    JUnitWriter writer;
    for (std::size_t i = 0; i < reports.size(); i += batch) {
      writer.add(std::vector<CheckReport>(reports.begin() + static_cast<std::ptrdiff_t>(i),
                                          reports.begin() + static_cast<std::ptrdiff_t>(std::min(i + batch, reports.size()))));
    }
    std::ostringstream out;
    writer.finish(out);
    EXPECT_EQ(out.str(), junit_xml(reports)) << "batches of " << batch;
  }
  JUnitWriter none;
  std::ostringstream out;
  none.finish(out);
  EXPECT_EQ(out.str(), junit_xml({}));
}

// A batch of more reports than are made at once (threads x 8): the suites are made on many
// threads and kept in order, and the head counts them all.
TEST(JunitWriter, ManyReportsInOneBatchAreTheSuitesInOrder) {
  std::vector<CheckReport> reports;
  for (int i = 0; i < 150; ++i) reports.push_back(report("/r/d" + std::to_string(i), i % 3 == 1));
  JUnitWriter whole;
  whole.add(reports);
  std::ostringstream all;
  whole.finish(all);
  JUnitWriter single;
  for (const auto& r : reports) single.add({r});
  std::ostringstream one_by_one;
  single.finish(one_by_one);
  EXPECT_EQ(all.str(), one_by_one.str());
  EXPECT_EQ(all.str(), junit_xml(reports));
  EXPECT_EQ(all.str().rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mlperf-score check\" tests=\"" +
                                std::to_string(150 * kCheckIds.size()) + "\" failures=\"50\" errors=\"50\">\n",
                            0),
            0u);
  std::size_t at = 0;
  for (int i = 0; i < 150; ++i) {
    at = all.str().find("<testsuite name=\"/r/d" + std::to_string(i) + "\"", at);
    ASSERT_NE(at, std::string::npos) << i;  // each suite, after the one before it
  }
}

}  // namespace
}  // namespace mlperf
