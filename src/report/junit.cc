#include "mlperf/report/junit.h"

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

std::string location(const Finding& f) {
  return f.line > 0 ? fmt::format("{}:{}", f.file, f.line) : f.file;
}

std::string attr(std::string_view name, std::string_view value) {
  return fmt::format(" {}=\"{}\"", name, xml_escape(value));
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
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
          if (c < 0x20) {
            out += kReplacement;  // XML 1.0 forbids the other C0 controls, even as references
          } else {
            out += static_cast<char>(c);
          }
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
  return out;
}

std::string junit_xml(const std::vector<CheckReport>& reports) {
  std::size_t tests = 0, failures = 0, errors = 0;
  std::string suites;
  for (const auto& r : reports) {
    std::size_t suite_failures = 0, suite_errors = 0;
    std::string cases;
    for (const auto& c : r.checks) {
      cases += "    <testcase" + attr("name", c.check) + attr("classname", r.directory) + ">\n";
      if (!c.passed()) {
        const bool input = c.check == "input_readable";
        (input ? suite_errors : suite_failures) += 1;
        const char* element = input ? "error" : "failure";
        std::string first, body;
        std::size_t n = 0;
        for (const auto& f : c.findings) {
          if (f.severity != Finding::kError) continue;
          std::string line = fmt::format("{}: {}", location(f), f.message);
          if (n++ == 0) first = line;
          body += line + "\n";
        }
        if (n > 1) first += fmt::format(" (and {} more)", n - 1);
        cases += fmt::format("      <{}{}{}>{}</{}>\n", element, attr("message", first), attr("type", c.check),
                             xml_escape(body), element);
      }
      std::string warnings;
      for (const auto& f : c.findings) {
        if (f.severity == Finding::kWarning) warnings += fmt::format("warning: {}: {}\n", location(f), f.message);
      }
      if (!warnings.empty()) cases += "      <system-out>" + xml_escape(warnings) + "</system-out>\n";
      cases += "    </testcase>\n";
    }
    tests += r.checks.size();
    failures += suite_failures;
    errors += suite_errors;
    suites += "  <testsuite" + attr("name", r.directory) + fmt::format(" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\">\n",
                                                                    r.checks.size(), suite_failures, suite_errors);
    suites += "    <properties>\n";
    for (const auto& [name, value] : {std::pair<const char*, std::string>{"benchmark", r.benchmark},
                                      {"division", r.division},
                                      {"ruleset", r.ruleset.str()},
                                      {"ruleset_source", r.ruleset_source},
                                      {"submitter", r.submitter},
                                      {"system", r.system}}) {
      suites += "      <property" + attr("name", name) + attr("value", value) + "/>\n";
    }
    suites += "    </properties>\n";
    suites += cases;
    suites += "  </testsuite>\n";
  }
  std::string doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  doc += fmt::format("<testsuites name=\"mlperf-score check\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n", tests,
                     failures, errors);
  doc += suites;
  doc += "</testsuites>\n";
  return doc;
}

}  // namespace mlperf
