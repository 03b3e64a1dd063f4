#include "mlperf/report/junit.h"
#include "mlperf/mllog/parallel.h"

#include <cstdio>
#include <iterator>
#include <memory>
#include <ostream>
#include <stdexcept>

#include <fmt/format.h>

namespace mlperf {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the well-formed UTF-8 sequence at `s[i]` (Unicode table 3-7), 0 when ill-formed.
std::size_t sequence_length(std::string_view s, std::size_t i) {
  auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b = at(i);
  std::size_t left = s.size() - i;
  if (b >= 0xC2 && b <= 0xDF) return left >= 2 && continuation(at(i + 1)) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    if (left < 3 || !continuation(at(i + 1)) || !continuation(at(i + 2))) return 0;
    if (b == 0xE0 && at(i + 1) < 0xA0) return 0;  // overlong
    if (b == 0xED && at(i + 1) > 0x9F) return 0;  // UTF-16 surrogate
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (left < 4 || !continuation(at(i + 1)) || !continuation(at(i + 2)) || !continuation(at(i + 3))) return 0;
    if (b == 0xF0 && at(i + 1) < 0x90) return 0;  // overlong
    if (b == 0xF4 && at(i + 1) > 0x8F) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

std::string finding_location(const Finding& f) {
  return f.line > 0 ? fmt::format("{}:{}", f.file, f.line) : f.file;
}

// A byte xml_escape copies as it is: printable ASCII but the five markup characters.
bool plain_xml_byte(unsigned char c) {
  return c >= 0x20 && c < 0x80 && c != '&' && c != '<' && c != '>' && c != '"' && c != '\'';
}

// xml_escape(text), appended to `out`.
void append_escaped(std::string& out, std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (plain_xml_byte(c)) {
      // A run of plain bytes in one piece (most of any text).
      std::size_t j = i + 1;
      while (j < text.size() && plain_xml_byte(static_cast<unsigned char>(text[j]))) ++j;
      out.append(text.data() + i, j - i);
      i = j;
      continue;
    }
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        case '\t': out += "&#9;"; break;
        case '\n': out += "&#10;"; break;
        case '\r': out += "&#13;"; break;
        default:
          out += kReplacement;  // XML 1.0 forbids the other C0 controls, even as references
      }
      ++i;
      continue;
    }
    std::size_t n = sequence_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    std::string_view seq = text.substr(i, n);
    if (seq == "\xEF\xBF\xBE" || seq == "\xEF\xBF\xBF") {
      out += kReplacement;  // U+FFFE and U+FFFF are not XML characters
    } else {
      out += seq;
    }
    i += n;
  }
}

// Appends ` name="value"`, the value escaped.
void append_attr(std::string& out, std::string_view name, std::string_view value) {
  out += ' ';
  out += name;
  out += "=\"";
  append_escaped(out, value);
  out += '"';
}

std::string attr(std::string_view name, std::string_view value) {
  std::string out;
  append_attr(out, name, value);
  return out;
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text);
  return out;
}

namespace {

struct Totals {
  std::size_t tests = 0, failures = 0, errors = 0;
};

// One report's <testsuite> element, its counts added to `totals`.
std::string junit_suite(const CheckReport& r, Totals& totals) {
  // The counts first (the element's attributes), then the element in one string, each
  // escaped text appended in place: no string per case, attribute or escaped body copied in.
  std::size_t suite_failures = 0, suite_errors = 0;
  for (const auto& c : r.checks) {
    if (!c.passed()) (c.check == "input_readable" ? suite_errors : suite_failures) += 1;
  }
  totals.tests += r.checks.size();
  totals.failures += suite_failures;
  totals.errors += suite_errors;
  std::string out = "  <testsuite";
  append_attr(out, "name", r.directory);
  fmt::format_to(std::back_inserter(out), " tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\">\n", r.checks.size(),
                 suite_failures, suite_errors);
  out += "    <properties>\n";
  for (const auto& [name, value] : {std::pair<const char*, std::string>{"benchmark", r.benchmark},
                                    {"division", r.division},
                                    {"ruleset", r.ruleset.str()},
                                    {"ruleset_source", r.ruleset_source},
                                    {"submitter", r.submitter},
                                    {"system", r.system}}) {
    out += "      <property";
    append_attr(out, "name", name);
    append_attr(out, "value", value);
    out += "/>\n";
  }
  out += "    </properties>\n";
  const std::string classname = attr("classname", r.directory);  // the same in every case
  for (const auto& c : r.checks) {
    out += "    <testcase";
    append_attr(out, "name", c.check);
    out += classname;
    out += ">\n";
    if (!c.passed()) {
      const char* element = c.check == "input_readable" ? "error" : "failure";
      std::string first, body;
      std::size_t n = 0;
      for (const auto& f : c.findings) {
        if (f.severity != Finding::kError) continue;
        std::string line = fmt::format("{}: {}", finding_location(f), f.message);
        if (n++ == 0) first = line;
        body += line + "\n";
      }
      if (n > 1) first += fmt::format(" (and {} more)", n - 1);
      out += "      <";
      out += element;
      append_attr(out, "message", first);
      append_attr(out, "type", c.check);
      out += '>';
      append_escaped(out, body);
      out += "</";
      out += element;
      out += ">\n";
    }
    // Each warning a line of <system-out>, escaped as it is appended (a line ends in '\n',
    // so no UTF-8 sequence spans two: the same text as escaping them all at once).
    bool warned = false;
    for (const auto& f : c.findings) {
      if (f.severity != Finding::kWarning) continue;
      if (!warned) out += "      <system-out>";
      warned = true;
      append_escaped(out, fmt::format("warning: {}: {}\n", finding_location(f), f.message));
    }
    if (warned) out += "</system-out>\n";
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n";
  return out;
}

std::string junit_head(const Totals& totals) {
  std::string doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  doc += fmt::format("<testsuites name=\"mlperf-score check\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n",
                     totals.tests, totals.failures, totals.errors);
  return doc;
}

constexpr std::string_view kTail = "</testsuites>\n";

}  // namespace

std::string junit_xml(const std::vector<CheckReport>& reports) {
  Totals totals;
  std::string suites;
  for (const auto& r : reports) suites += junit_suite(r, totals);
  return junit_head(totals) + suites + std::string(kTail);
}

struct JUnitWriter::State {
  Totals totals;
  std::FILE* spool = nullptr;  // the suites so far; null: kept in `suites`
  std::string suites;
  ~State() {
    if (spool) std::fclose(spool);
  }
};

JUnitWriter::JUnitWriter() : state_(std::make_unique<State>()) { state_->spool = std::tmpfile(); }

JUnitWriter::~JUnitWriter() = default;

void JUnitWriter::add(const std::vector<CheckReport>& reports) {
  // Each suite made on its own thread with its own counts, then kept in order, a window at
  // a time (the suites of an inference round took a tenth of `check --junit`'s time, on one
  // thread).
  struct Suite {
    std::string text;
    Totals counts;
  };
  parallel_in_order<Suite>(
      reports.size(), default_threads(),
      [&](std::size_t k) {
        Suite suite;
        suite.text = junit_suite(reports[k], suite.counts);
        return suite;
      },
      [&](std::size_t, const Suite& suite) {
        state_->totals.tests += suite.counts.tests;
        state_->totals.failures += suite.counts.failures;
        state_->totals.errors += suite.counts.errors;
        keep(suite.text);
      });
}

void JUnitWriter::keep(const std::string& suite) {
  if (state_->spool && std::fwrite(suite.data(), 1, suite.size(), state_->spool) == suite.size()) return;
  if (state_->spool) {
    // The spool failed (a full /tmp): what it holds moves to memory, and the rest with it.
    std::string held = spooled();
    std::fclose(state_->spool);
    state_->spool = nullptr;
    state_->suites = std::move(held) + state_->suites;
  }
  state_->suites += suite;
}

std::string JUnitWriter::spooled() {
  std::string out;
  if (!state_->spool) return out;
  std::fflush(state_->spool);
  std::rewind(state_->spool);
  char block[1 << 16];
  for (std::size_t n; (n = std::fread(block, 1, sizeof block, state_->spool)) > 0;) out.append(block, n);
  std::fseek(state_->spool, 0, SEEK_END);
  return out;
}

void JUnitWriter::finish(std::ostream& out) {
  out << junit_head(state_->totals);
  if (state_->spool) {
    if (std::fflush(state_->spool) != 0) throw std::runtime_error("cannot write the JUnit report's temporary file");
    std::rewind(state_->spool);
    char block[1 << 16];
    for (std::size_t n; (n = std::fread(block, 1, sizeof block, state_->spool)) > 0;) {
      out.write(block, static_cast<std::streamsize>(n));
    }
    if (std::ferror(state_->spool)) throw std::runtime_error("cannot read the JUnit report's temporary file back");
  }
  out << state_->suites << kTail;
}

}  // namespace mlperf
