#include "mlperf/report/check_report.h"
#include "mlperf/mllog/parallel.h"
#include "mlperf/mllog/path_text.h"
#include "mlperf/report/table_text.h"
#include "mlperf/report/exact_bytes.h"
#include "mlperf/report/json_text.h"

#include <algorithm>
#include <iterator>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace mlperf {

namespace {

// "1 error", "2 errors", appended to `out`.
void append_plural(std::string& out, std::size_t n, const char* word) {
  out.append(fmt::format_int(n).str());
  out += ' ';
  out.append(word);
  if (n != 1) out += 's';
}

std::string plural(std::size_t n, const char* word) {
  std::string out;
  append_plural(out, n, word);
  return out;
}

// The file as shown under its directory: relative to it when inside, "." for the directory.
std::string shown_file(const std::string& file, const std::string& dir) {
  if (file == dir) return ".";
  return path_at_or_below(file, dir) ? file.substr(dir.size() + 1) : file;
}

std::string file_and_line(const std::string& file, std::uint64_t line) {
  return line > 0 ? fmt::format("{}:{}", file, line) : file;
}

}  // namespace

nlohmann::json check_to_json(const CheckReport& report) {
  // Members assigned one by one (an initializer list copies each value twice; a round has a
  // log entry per run); the keys sort the same either way.
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : report.checks) {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : c.findings) {
      nlohmann::json& finding = findings.emplace_back(nlohmann::json::object());
      finding["check"] = f.check;
      finding["severity"] = to_string(f.severity);
      finding["file"] = f.file;
      finding["line"] = f.line > 0 ? nlohmann::json(f.line) : nlohmann::json();
      finding["message"] = f.message;
    }
    nlohmann::json& check = checks.emplace_back(nlohmann::json::object());
    check["check"] = c.check;
    check["description"] = c.description;
    check["passed"] = c.passed();
    check["findings"] = std::move(findings);
  }
  nlohmann::json logs = nlohmann::json::array();
  for (const auto& l : report.logs) {
    nlohmann::json& log = logs.emplace_back(nlohmann::json::object());
    log["file"] = l.file;
    log["compliant"] = l.compliant;
    log["errors"] = l.errors;
    log["warnings"] = l.warnings;
  }
  nlohmann::json out = nlohmann::json::object();
  out["directory"] = report.directory;
  out["submitter"] = report.submitter;
  out["system"] = report.system;
  out["benchmark"] = report.benchmark;
  out["division"] = report.division;
  out["ruleset"] = report.ruleset.str();
  out["ruleset_source"] = report.ruleset_source;
  out["passed"] = report.passed();
  out["errors"] = report.count(Finding::kError);
  out["warnings"] = report.count(Finding::kWarning);
  out["checks"] = std::move(checks);
  out["logs"] = std::move(logs);
  return out;
}

namespace {

// One report's object in {"results": [...]}, byte for byte as check_to_json(r) with its
// exact bytes added dumps it (indent 2, four more spaces for its place; a test compares them),
// written member by member in the keys' sorted order without building the tree. Invalid
// UTF-8 (a path, a logged value) is replaced, its exact bytes beside it (exact_bytes.h).
std::string check_json_entry(const CheckReport& r) {
  std::string text;
  text.reserve(4096 + 160 * r.logs.size());
  JsonText j(text, 4);
  j.begin_object();
  j.key("benchmark");
  j.string(r.benchmark);
  j.key("checks");
  j.begin_array();
  for (const auto& c : r.checks) {
    j.begin_object();
    j.key("check");
    j.string(c.check);
    j.key("description");
    j.string(c.description);
    j.key("findings");
    j.begin_array();
    for (const auto& f : c.findings) {
      j.begin_object();
      j.key("check");
      j.string(f.check);
      j.key("file");
      j.string(f.file);
      j.key("line");
      f.line > 0 ? j.integer(f.line) : j.literal("null");
      j.key("message");
      j.string(f.message);
      j.key("severity");
      j.string(to_string(f.severity));
      j.end_object();
    }
    j.end_array();
    j.key("passed");
    j.boolean(c.passed());
    j.end_object();
  }
  j.end_array();
  j.key("directory");
  j.string(r.directory);
  j.key("division");
  j.string(r.division);
  j.key("errors");
  j.integer(r.count(Finding::kError));
  j.key("logs");
  j.begin_array();
  for (const auto& l : r.logs) {
    j.begin_object();
    j.key("compliant");
    j.boolean(l.compliant);
    j.key("errors");
    j.integer(l.errors);
    j.key("file");
    j.string(l.file);
    j.key("warnings");
    j.integer(l.warnings);
    j.end_object();
  }
  j.end_array();
  j.key("passed");
  j.boolean(r.passed());
  j.key("ruleset");
  j.string(r.ruleset.str());
  j.key("ruleset_source");
  j.string(r.ruleset_source);
  j.key("submitter");
  j.string(r.submitter);
  j.key("system");
  j.string(r.system);
  j.key("warnings");
  j.integer(r.count(Finding::kWarning));
  j.end_object();
  return text;
}

// `text` left-aligned in `width` columns, as fmt's "{:<width}" writes it: spaces after
// ASCII text to make up the width; other text through fmt (its own width of wide
// characters).
void append_left_aligned(std::string& out, std::string_view text, std::size_t width) {
  const bool ascii = std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (!ascii) {
    fmt::format_to(std::back_inserter(out), "{:<{}}", text, width);
    return;
  }
  out.append(text);
  if (text.size() < width) out.append(width - text.size(), ' ');
}

// One report's block of the human table, built in one string (a folder's ~25 check rows;
// CI checks thousands of one-log folders).
std::string check_table_entry(const CheckReport& r) {
  std::string text, line;
  std::size_t parts = 0;
  for (const auto* part : {&r.submitter, &r.system, &r.benchmark}) {
    if (part->empty()) continue;
    if (parts++ > 0) line += " / ";
    line += *part;
  }
  std::size_t errors = r.count(Finding::kError), warnings = r.count(Finding::kWarning);
  line += ": ";
  if (r.passed()) {
    line += "PASSED";
  } else {
    line += "FAILED (";
    append_plural(line, errors, "error");
    line += ')';
  }
  if (warnings > 0) {
    line += " (";
    append_plural(line, warnings, "warning");
    line += ')';
  }
  append_terminal_text(text, line);
  text += "\n  directory  ";
  append_terminal_text(text, r.directory);
  line.assign("  division ").append(r.division).append("   ruleset ").append(r.ruleset.str()).append(" (");
  line.append(r.ruleset_source).append(")");
  text += '\n';
  append_terminal_text(text, line);
  text += "\n\n";
  for (const auto& c : r.checks) {
    text += "  ";
    append_left_aligned(text, c.check, 18);
    text += ' ';
    std::size_t e = c.count(Finding::kError), w = c.count(Finding::kWarning);
    if (c.passed()) {
      text += "pass";
    } else {
      text += "FAIL, ";
      append_plural(text, e, "error");
    }
    if (w > 0) {
      text += ", ";
      append_plural(text, w, "warning");
    }
    text += '\n';
    for (const auto& f : c.findings) {
      line.assign("    ");
      append_left_aligned(line, to_string(f.severity), 8);
      line += ' ';
      line += file_and_line(shown_file(f.file, r.directory), f.line);
      line += ": ";
      line += f.message;
      append_terminal_text(text, line);
      text += '\n';
    }
  }
  return text;
}

// One report's workflow commands, a line per finding.
std::string github_entry(const CheckReport& r) {
  std::string text;
  for (const auto& c : r.checks) {
    for (const auto& f : c.findings) {
      text.append("::").append(to_string(f.severity)).append(" file=").append(github_escape_property(f.file));
      if (f.line > 0) text.append(fmt::format(",line={}", f.line));
      text.append(",title=").append(github_escape_property(f.check));
      text.append("::").append(github_escape_data(f.message)).append("\n");
    }
  }
  return text;
}

std::string summary_text(std::size_t directories, std::size_t passed, std::size_t errors, std::size_t warnings) {
  return fmt::format("check: {} {}, {} passed, {} failed; {}, {}", directories,
                     directories == 1 ? "directory" : "directories", passed, directories - passed,
                     plural(errors, "error"), plural(warnings, "warning"));
}

}  // namespace

CheckReportWriter::CheckReportWriter(std::ostream& out, Format format) : out_(out), format_(format) {}

std::string CheckReportWriter::entry(const CheckReport& report) const {
  switch (format_) {
    case Format::kJson:
      return check_json_entry(report);
    case Format::kTable:
      return check_table_entry(report);
    case Format::kGithub:
      return github_entry(report);
  }
  return {};
}

void CheckReportWriter::add(const std::vector<CheckReport>& reports) {
  // Each entry made on its own thread, then written in order, a window at a time (an
  // inference round's JSON is 16 MB; making it took a fifth of `check`'s time, on one thread).
  parallel_in_order<std::string>(
      reports.size(), default_threads(), [&](std::size_t k) { return entry(reports[k]); },
      [&](std::size_t k, const std::string& text) {
        const CheckReport& r = reports[k];
        if (format_ == Format::kJson) out_ << json_results_separator(directories_);
        if (format_ == Format::kTable && directories_ > 0) out_ << '\n';
        out_ << text;
        ++directories_;
        passed_ += r.passed() ? 1 : 0;
        errors_ += r.count(Finding::kError);
        warnings_ += r.count(Finding::kWarning);
      });
}

void CheckReportWriter::finish() {
  switch (format_) {
    case Format::kJson:
      out_ << json_results_end(directories_);
      break;
    case Format::kTable:
      if (directories_ > 0) out_ << '\n';
      out_ << summary_text(directories_, passed_, errors_, warnings_) << '\n';
      break;
    case Format::kGithub:
      out_ << summary_text(directories_, passed_, errors_, warnings_) << '\n';
      break;
  }
}

void write_check_json(std::ostream& out, const std::vector<CheckReport>& reports) {
  CheckReportWriter writer(out, CheckReportWriter::Format::kJson);
  writer.add(reports);
  writer.finish();
}

std::string check_summary(const std::vector<CheckReport>& reports) {
  std::size_t passed = 0, errors = 0, warnings = 0;
  for (const auto& r : reports) {
    passed += r.passed() ? 1 : 0;
    errors += r.count(Finding::kError);
    warnings += r.count(Finding::kWarning);
  }
  return summary_text(reports.size(), passed, errors, warnings);
}

void write_check_table(std::ostream& out, const std::vector<CheckReport>& reports) {
  CheckReportWriter writer(out, CheckReportWriter::Format::kTable);
  writer.add(reports);
  writer.finish();
}

std::string github_escape_data(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      default: out += c;
    }
  }
  return out;
}

std::string github_escape_property(std::string_view text) {
  std::string out;
  for (char c : github_escape_data(text)) {
    switch (c) {
      case ':': out += "%3A"; break;
      case ',': out += "%2C"; break;
      default: out += c;
    }
  }
  return out;
}

void write_github_annotations(std::ostream& out, const std::vector<CheckReport>& reports) {
  CheckReportWriter writer(out, CheckReportWriter::Format::kGithub);
  writer.add(reports);
  writer.finish();
}

}  // namespace mlperf
