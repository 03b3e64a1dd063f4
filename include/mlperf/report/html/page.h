#pragma once
// The page every HTML report is built in (issue #15): one self-contained file, Chart.js 3.9.1
// (Debian libjs-chart.js) and the chart data inlined, light and dark, readable on a phone.
// Charts are created lazily (IntersectionObserver, then the rest in the background); the page
// records script errors in <html data-errors> and counts charts made in <body data-charts>
// (of data-charts-expected), and first-paint time in <body data-first-paint-ms>.

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mlperf::html {

/// `text` with &, <, >, " and ' replaced by character references (for element text and
/// attribute values).
std::string escape(std::string_view text);

/// `value` as JSON safe inside a <script> element: every '<' written as \u003c (so no
/// "</script>" or "<!--" can end it); invalid UTF-8 replaced.
std::string script_json(const nlohmann::json& value);

/// `v` rounded to 6 significant digits, so the page's data stays compact (a chart needs no
/// more), a whole number as an integer; non-finite values become null.
nlohmann::json compact(double v);

/// Chart.js 3.9.1 (chart.min.js), read from libjs-chart.js at build time.
std::string_view chart_js();

/// Builds one report page: HTML text and chart specifications, in order.
///
/// A chart specification is a JSON object the page's script turns into a Chart.js chart:
///  - bar: {"k":"bar", "l":[labels], "v":[values or null], "c":[colour codes per bar: "c"
///    counted, "t" trimmed, "d" dropped/failed, "p" published], "h":[[name, value], ...]
///    horizontal reference lines, "y": axis title, "hz": true for horizontal bars};
///  - eval: {"k":"eval", "r":[{"n": run, "p":[x0, y0, x1, y1, ...]}], "q": quality target or
///    null, "x": x-axis title, "y": y-axis title}; its numbers are also shown as a table the
///    script fills when the reader opens it.
class Page {
 public:
  /// `title` is plain text (escaped here).
  explicit Page(std::string title);

  /// Appends raw HTML (the caller escapes any text in it).
  Page& raw(std::string_view html);
  /// Appends a chart (`spec` as above) titled `caption` (plain text) in a <figure>, with the
  /// numbers behind it: `numbers_html` (a <table>, escaped by the caller) in a <details>
  /// below it; eval charts get a table the script fills from the spec. Returns its index.
  std::size_t chart(const std::string& caption, nlohmann::json spec, std::string_view numbers_html = {});
  /// The charts added so far.
  std::size_t chart_count() const { return charts_.size(); }

  /// The whole document.
  std::string str() const;

 private:
  std::string title_;
  std::string body_;
  nlohmann::json charts_ = nlohmann::json::array();
};

}  // namespace mlperf::html
