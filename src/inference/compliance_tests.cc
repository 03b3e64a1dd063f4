// The compliance tests of a scenario folder, judged as the submission checker of its round
// judges them (compliance_tests.h).

#include "mlperf/inference/compliance_tests.h"
#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"

#include <new>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <system_error>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "mlperf/inference/accuracy.h"
#include "mlperf/inference/folder_files.h"
#include "mlperf/inference/loadgen_log.h"
#include "mlperf/mllog/folder_listing.h"
#include "mlperf/mllog/path_text.h"

namespace mlperf::inference {

namespace fs = std::filesystem;

double RoundComplianceRules::delta_percent_of(const std::string& model, const std::string& metric) const {
  if (auto m = delta_percent.find(model); m != delta_percent.end()) {
    if (auto d = m->second.find(metric); d != m->second.end()) return d->second;
  }
  return model.find("99.9") == std::string::npos ? 1.0 : 0.1;
}

ComplianceRules ComplianceRules::load(const fs::path& file) {
  std::ifstream in = open_input_file(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the compliance test rules", file.string()));
  ComplianceRules rules;
  try {
    const nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& [round, r] : doc.at("rounds").items()) {
      RoundComplianceRules rr;
      rr.checker = r.value("checker", "check_compliance_dir");
      rr.location = r.value("location", "compliance");
      if (rr.checker != "check_compliance_dir" && rr.checker != "ComplianceCheck") {
        throw std::runtime_error(fmt::format("round {}: unknown checker \"{}\"", round, rr.checker));
      }
      for (const auto& [model, tests] : r.at("tests").items()) rr.tests[model] = tests.get<std::vector<std::string>>();
      for (const auto& [model, metrics] : r.at("delta_percent").items()) {
        rr.delta_percent[model] = metrics.get<std::map<std::string, double>>();
      }
      rules.rounds.emplace(round, std::move(rr));
    }
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("{}: {}", file.string(), e.what()));
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never a finding: main.cc says so, exit 2
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: malformed compliance test rules: {}", file.string(), e.what()));
  }
  return rules;
}

fs::path compliance_folder(const fs::path& scenario_dir, const RoundComplianceRules& rules) {
  if (rules.location != "compliance") return scenario_dir;
  // <division>/<org>/results/<system>/<model>/<scenario> → <division>/<org>/compliance/<system>/<model>/<scenario>
  // Cut and joined as text (path_ancestor_text, path_join), as parent_path() and operator/ do.
  const std::string& scenario = scenario_dir.native();
  const std::string model = path_ancestor_text(scenario, 1);
  const std::string system = path_ancestor_text(model, 1);
  const std::string org = path_ancestor_text(system, 2);
  return fs::path(path_join(path_join(path_join(path_join(org, "compliance"), path_filename(system)), path_filename(model)),
                            path_filename(scenario)));
}

namespace {

// 1-based line of the first line holding `text` (0: none).
std::uint64_t line_containing(const std::vector<std::string>& lines, const std::string& text) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find(text) != std::string::npos) return i + 1;
  }
  return 0;
}

// 1-based line of the first line that is `text` once stripped (0: none).
std::uint64_t line_equal(const std::vector<std::string>& lines, const std::string& text) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (strip_whitespace(lines[i]) == text) return i + 1;
  }
  return 0;
}

class TestJudge {
 public:
  TestJudge(ComplianceTestResult& out) : out_(out) {}

  void add(std::string name, bool passed, nlohmann::json value, nlohmann::json limit, std::uint64_t line,
           std::string message, const std::string& file = {}) {
    out_.checks.push_back({std::move(name), passed, std::move(value), std::move(limit), line,
                           passed ? std::string() : std::move(message), file});
    out_.valid = out_.valid && passed;
  }
  void add(ValidityCheck check) {
    out_.valid = out_.valid && check.passed;
    out_.checks.push_back(std::move(check));
  }

  // The test's folder exists.
  bool folder(const fs::path& compliance) {
    const bool ok = listed_exists(out_.dir);
    add("test_folder", ok, out_.dir, "exists", 0, fmt::format("{} is missing in {}", out_.test, compliance.string()));
    return ok;
  }

  // A file the checker requires exists.
  void required_file(const std::string& name, const std::string& file) {
    add(name, listed_exists(file), path_filename(file), "exists", 0, fmt::format("{} is missing", file), file);
  }

  // verify_performance.txt holds "TEST PASS" in a line (check_compliance_perf_dir).
  void verify_performance() {
    const std::string file = path_join(out_.dir, "verify_performance.txt");
    auto lines = read_text_lines(file);
    if (!lines) {
      add("verify_performance", false, nullptr, "TEST PASS", 0, fmt::format("{} is missing", file), file);
      return;
    }
    const std::uint64_t pass = line_containing(*lines, "TEST PASS");
    const std::uint64_t fail = line_containing(*lines, "TEST FAIL");
    add("verify_performance", pass != 0, pass ? "TEST PASS" : (fail ? "TEST FAIL" : ""), "TEST PASS", pass ? pass : fail,
        fail ? fmt::format("{}:{}: the compliance test's performance check failed (TEST FAIL)", file, fail)
             : fmt::format("{}: no \"TEST PASS\" line; the compliance test's performance check failed", file),
        file);
  }

  // performance/run_1 holds the loadgen logs and nothing else.
  void performance_files() {
    const std::string run = path_join(out_.dir, "performance/run_1");
    if (!listed_is_directory(run)) {
      add("performance_files", false, nullptr, "performance/run_1", 0,
          fmt::format("{} has no performance/run_1 folder", out_.dir));
      return;
    }
    add(files_check("performance_files", run, {std::string(kSummaryLogName), std::string(kDetailLogName)},
                    {"mlperf_log_accuracy.json"}));
  }

  // The test's own performance run, judged as a performance run of the scenario.
  void performance_run(const CompliancePerformanceContext& ctx) {
    const std::string log_file = path_join(path_join(out_.dir, "performance/run_1"), kDetailLogName);
    if (!ctx.rules || !ctx.keys) return;
    try {
      std::optional<LoadgenLog> log = read_detail_log_if_present(log_file, *ctx.keys);
      if (!log) {
        add("performance_run", false, nullptr, "a valid run", 0, fmt::format("{} is missing", log_file), log_file);
        return;
      }
      InferenceResult r = score_loadgen_run(*log, *ctx.rules, ctx.round, ctx.model_folder, ctx.scenario, ctx.division);
      std::vector<std::string> failed, messages;
      std::uint64_t line = 0;
      for (const auto& c : r.checks) {
        if (c.passed) continue;
        failed.push_back(c.name);
        messages.push_back(c.message);
        if (!line) line = c.line;
      }
      if (!log->parse_errors.empty()) {
        failed.push_back("parse_errors");
        messages.push_back(fmt::format("line {}: {}", log->parse_errors.front().line, log->parse_errors.front().message));
        if (!line) line = log->parse_errors.front().line;
      }
      const bool ok = r.valid && log->parse_errors.empty();
      add("performance_run", ok, failed.empty() ? nlohmann::json("valid") : nlohmann::json(failed), "a valid run", line,
          fmt::format("{}{}: the test's performance run is invalid: {}", log_file,
                      line ? fmt::format(":{}", line) : std::string(), fmt::join(messages, "; ")),
          log_file);
    } catch (const std::bad_alloc&) {
      throw;  // out of memory is never a finding: main.cc says so, exit 2
    } catch (const std::exception& e) {
      add("performance_run", false, nullptr, "a valid run", 0, e.what());
    }
  }

  // TEST01's accuracy check in the checker's two modes (deterministic: a TEST PASS line;
  // else the baseline and compliance accuracies within the delta allowed).
  void test01_accuracy(bool exact_line, const RoundComplianceRules& rules, const std::string& model,
                       const std::string& scenario, const RoundAccuracyRules* accuracy) {
    const std::string file = path_join(out_.dir, "verify_accuracy.txt");
    auto lines = read_text_lines(file);
    if (!lines) {
      add("verify_accuracy", false, nullptr, "exists", 0, fmt::format("{} is missing", file), file);
      return;
    }
    const std::uint64_t pass = exact_line ? line_equal(*lines, "TEST PASS") : line_containing(*lines, "TEST PASS");
    // Deterministic mode passed or not, the file is there: the checker goes on to the folder.
    add("verify_accuracy", true, pass ? "TEST PASS" : "no TEST PASS (non-deterministic mode)", "exists", pass, "");
    if (pass && exact_line) return;  // ComplianceCheck stops here
    const std::string acc = path_join(out_.dir, "accuracy");
    if (!listed_is_directory(acc)) {
      add("accuracy_folder", false, nullptr, "accuracy/", 0, fmt::format("{} has no accuracy folder", out_.dir));
      return;
    }
    std::vector<std::string> required{"mlperf_log_accuracy.json", "accuracy.txt"};
    if (!pass) required.insert(required.end(), {"baseline_accuracy.txt", "compliance_accuracy.txt"});
    ValidityCheck files = files_check("accuracy_files", acc, required);
    const bool listed = files.passed;
    add(std::move(files));
    if (!listed || pass) return;
    delta(acc, rules, model, scenario, accuracy);
  }

  // |1 − baseline/compliance| × 100 within the delta allowed for each target metric; the last
  // value a pattern matches in each file counts, and a metric missing from either fails.
  void delta(const std::string& acc, const RoundComplianceRules& rules, const std::string& model,
             const std::string& scenario, const RoundAccuracyRules* accuracy) {
    const std::vector<AccuracyBound>* targets = accuracy ? accuracy->targets_of(model, scenario) : nullptr;
    if (!targets) {
      add("accuracy_delta", false, model, nullptr, 0, fmt::format("the round's checker has no accuracy target for {}", model));
      return;
    }
    auto read_values = [&](const std::string& file, std::map<std::string, double>& values) -> bool {
      auto lines = read_text_lines(file);
      if (!lines) return false;
      for (const auto& line : *lines) {
        for (const auto& t : *targets) {
          auto p = accuracy->patterns.find(t.metric);
          if (p == accuracy->patterns.end()) continue;
          if (std::optional<std::string> group = p->second.first_group(line)) {
            char* end = nullptr;
            const std::string text = std::move(*group);
            const double v = std::strtod(text.c_str(), &end);
            if (!text.empty() && end == text.c_str() + text.size()) values[t.metric] = v;
          }
        }
      }
      return true;
    };
    std::map<std::string, double> baseline, compliance;
    const std::string bfile = path_join(acc, "baseline_accuracy.txt"), cfile = path_join(acc, "compliance_accuracy.txt");
    if (!read_values(bfile, baseline) || !read_values(cfile, compliance)) {
      add("accuracy_delta", false, nullptr, nullptr, 0, fmt::format("{}: cannot read the baseline or compliance accuracy", acc));
      return;
    }
    for (const auto& t : *targets) {
      const double b = baseline.count(t.metric) ? baseline[t.metric] : 0.0;
      const double c = compliance.count(t.metric) ? compliance[t.metric] : 0.0;
      const double allowed = rules.delta_percent_of(model, t.metric);
      if (b == 0 || c == 0) {
        add("accuracy_delta", false, nlohmann::json{{"metric", t.metric}, {"baseline", b}, {"compliance", c}},
            fmt::format("<= {}%", allowed), 0,
            fmt::format("{}: {} is missing (or 0) in {}", acc, t.metric,
                        b == 0 ? path_filename(bfile) : path_filename(cfile)));
        return;
      }
      const double delta = std::abs(1 - b / c) * 100;
      add("accuracy_delta", delta <= allowed,
          nlohmann::json{{"metric", t.metric}, {"baseline", b}, {"compliance", c}, {"delta_percent", delta}},
          fmt::format("<= {}%", allowed), 0,
          fmt::format("{}: {} differs by {:.4g}% between baseline ({}) and compliance ({}) accuracy; at most {}% allowed",
                      acc, t.metric, delta, b, c, allowed));
      if (delta > allowed) return;
    }
  }

  // TEST06's first-token, EOS and sample-length lines.
  void test06_accuracy() {
    const std::string file = path_join(out_.dir, "verify_accuracy.txt");
    auto lines = read_text_lines(file);
    if (!lines) {
      add("verify_accuracy", false, nullptr, "exists", 0, fmt::format("{} is missing", file), file);
      return;
    }
    auto expect = [&](const std::string& name, std::vector<std::string> accepted, const std::string& label) {
      std::uint64_t at = 0;
      for (const auto& a : accepted) {
        if (!at) at = line_equal(*lines, a);
      }
      const std::uint64_t seen = line_containing(*lines, label);
      add(name, at != 0, seen ? nlohmann::json(strip_whitespace((*lines)[seen - 1])) : nlohmann::json(), accepted.front(), at ? at : seen,
          seen ? fmt::format("{}:{}: \"{}\"; TEST06 needs \"{}\"", file, seen, strip_whitespace((*lines)[seen - 1]),
                             accepted.front())
               : fmt::format("{}: no \"{}\" line; TEST06 needs \"{}\"", file, label, accepted.front()),
          file);
    };
    expect("first_token", {"First token check pass: True", "First token check pass: Skipped"}, "First token check pass:");
    expect("eos", {"EOS check pass: True"}, "EOS check pass:");
    expect("sample_length", {"Sample length check pass: True"}, "Sample length check pass:");
  }

  // A verification file that must say TEST PASS (TEST07, TEST08, TEST09 of ComplianceCheck).
  void verify_pass(const std::string& name, const std::string& file_name, bool exact_line) {
    const std::string file = path_join(out_.dir, file_name);
    auto lines = read_text_lines(file);
    if (!lines) {
      add(name, false, nullptr, "TEST PASS", 0, fmt::format("{} is missing", file), file);
      return;
    }
    const std::uint64_t pass = exact_line ? line_equal(*lines, "TEST PASS") : line_containing(*lines, "TEST PASS");
    const std::uint64_t fail = line_containing(*lines, "TEST FAIL");
    add(name, pass != 0, pass ? "TEST PASS" : (fail ? "TEST FAIL" : ""), "TEST PASS", pass ? pass : fail,
        fail ? fmt::format("{}:{}: {} failed (TEST FAIL)", file, fail, out_.test)
             : fmt::format("{}: no \"TEST PASS\" line; {} failed", file, out_.test),
        file);
  }

 private:
  ComplianceTestResult& out_;
};

}  // namespace

std::vector<ComplianceTestResult> judge_compliance_tests(const fs::path& scenario_dir, const RoundComplianceRules& rules,
                                                         const std::string& mlperf_model,
                                                         const RoundAccuracyRules* accuracy,
                                                         const CompliancePerformanceContext& performance) {
  std::vector<ComplianceTestResult> out;
  if (performance.division == "open") return out;
  auto it = rules.tests.find(mlperf_model);
  if (it == rules.tests.end()) return out;
  std::vector<std::string> tests;
  for (const auto& t : it->second) {
    if (std::find(tests.begin(), tests.end(), t) == tests.end()) tests.push_back(t);
  }
  if (tests.empty()) return out;
  const fs::path compliance = compliance_folder(scenario_dir, rules);
  const bool has_test06 = std::find(tests.begin(), tests.end(), "TEST06") != tests.end();
  const bool old = rules.checker == "check_compliance_dir";
  for (const auto& test : tests) {
    ComplianceTestResult r;
    r.test = test;
    r.dir = path_join(compliance.native(), test);
    r.valid = true;
    TestJudge j(r);
    if (old && !listed_exists(compliance)) {
      j.add("compliance_folder", false, compliance.string(), "exists", 0,
            fmt::format("no compliance folder for {}: {}", scenario_dir.string(), compliance.string()));
      out.push_back(std::move(r));
      continue;
    }
    const bool folder = j.folder(compliance);
    const bool perf_test = test == "TEST01" || test == "TEST04" || test == "TEST05";
    if (old) {
      // check_compliance_dir: the performance part (none at all when the model needs TEST06),
      // then the accuracy part of TEST01 and TEST06.
      if (folder && perf_test && !has_test06) {
        j.performance_run(performance);
        j.verify_performance();
        j.performance_files();
      }
      if (test == "TEST01") j.test01_accuracy(false, rules, mlperf_model, performance.scenario, accuracy);
      if (test == "TEST06") j.test06_accuracy();
    } else {
      if (test == "TEST01" || test == "TEST04") {
        j.required_file("verify_performance_file", path_join(r.dir, "verify_performance.txt"));
        j.performance_run(performance);
        j.verify_performance();
        j.performance_files();
      }
      if (test == "TEST01") j.test01_accuracy(true, rules, mlperf_model, performance.scenario, accuracy);
      if (test == "TEST06") j.test06_accuracy();
      if (test == "TEST07") j.verify_pass("verify_accuracy", "verify_accuracy.txt", false);
      if (test == "TEST08") j.verify_pass("verify_accuracy", "verify_accuracy.txt", true);
      if (test == "TEST09") j.verify_pass("verify_output_len", "verify_output_len.txt", false);
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ValidityCheck> judge_endpoints_audits(const fs::path& scenario_dir, const std::vector<std::string>& tests,
                                                  const EndpointsRules& rules, const std::string& mlperf_model,
                                                  const LoadgenLog& performance_log) {
  std::vector<ValidityCheck> out;
  std::set<std::string> judged;
  const fs::path audit_dir = scenario_dir / "audit";
  for (const auto& test : tests) {
    if (!judged.insert(test).second) continue;  // listed twice: judged twice, the same way
    if (auto audit = rules.compliance_audits.find(test); audit != rules.compliance_audits.end()) {
      const std::string name = audit->second;
      const std::string file = path_join(audit_dir.native(), "audit_" + name + ".json");
      std::error_code ec;
      if (!fs::exists(file, ec)) {
        auto required = rules.audit_required.find(test);
        if (required != rules.audit_required.end() && required->second.count(mlperf_model) &&
            rules.allowed_models.count(mlperf_model)) {
          out.push_back({"audit_" + test, false, nullptr, name, 0,
                         fmt::format("{} is missing in {}", file, audit_dir.string()), file});
        }
      } else {
        std::optional<std::string> text = read_whole_file(file);
        // Nested too deep for Python's json: RecursionError, caught as "can not be loaded".
        const nlohmann::json j = text && !json_nested_deeper_than(*text, kMaxMllogNesting)
                                     ? nlohmann::json::parse(*text, nullptr, false)
                                     : nlohmann::json(nlohmann::json::value_t::discarded);
        std::string problem;
        nlohmann::json value;
        if (j.is_discarded() || !j.is_object() || !j.contains("test") || !j.contains("passed")) {
          problem = fmt::format("{}: compliance test can not be loaded (not JSON with \"test\" and \"passed\")", file);
        } else if (j.at("test") != name) {
          value = j.at("test");
          problem = fmt::format("{}: compliance test is incorrect: expected name={}, actual name={}", file, name, j.at("test").dump());
        } else {
          value = j.at("passed");
          if (!python_truthy(value)) problem = fmt::format("{}: compliance test {} did not pass", file, name);
        }
        out.push_back({"audit_" + test, problem.empty(), value, name, 0, problem, file});
      }
    }
    if (test == "TEST09") {
      // Compared with numbers: a value that is not one fails the check (a TypeError).
      std::optional<double> mean;
      if (auto it = performance_log.values.find("mean_output_tokens"); it != performance_log.values.end()) {
        const nlohmann::json v = nlohmann::json::parse(it->second.json, nullptr, false);
        if (v.is_number() || v.is_boolean()) mean = v.get<double>();
      }
      out.push_back({"test09_output_tokens", mean && *mean <= rules.test09_high && *mean >= rules.test09_low,
                     mean ? nlohmann::json(*mean) : nlohmann::json(),
                     nlohmann::json::array({rules.test09_low, rules.test09_high}), 0,
                     mean ? fmt::format("TEST09 (output token length): the mean output tokens {} are outside [{}, {}]",
                                        *mean, rules.test09_low, rules.test09_high)
                          : std::string("TEST09: the mean output tokens are missing or not a number (the check fails on a TypeError)"),
                     performance_log.file.string()});
      if (out.back().passed) out.back().message.clear();
    }
  }
  return out;
}

}  // namespace mlperf::inference
