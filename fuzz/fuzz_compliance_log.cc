// libFuzzer target: a whole result log judged by the official compliance rules (configs/
// compliance, the official checker's configs) both ways, and the two verdicts compared:
//  - as `score` and `check` judge it: read_run with RunOptions::compliance_rules, where the
//    fast scanner reads most lines and a line's value reaches the rules as text (LineText,
//    its metadata members taken from the scanner's number layout);
//  - every line through the full parser (parse_mllog_line) and LogReader's payload path,
//    which parses the line's JSON again.
// Aborts when the verdicts differ in any field (compliant, each finding, the configs applied,
// the blocks run) — never a crash, a leak or undefined behaviour either.
//
// Input: byte 0 picks the ruleset (ruleset_of, modulo their number) and whether the log is
// read in tiny blocks (bit 7); the rest is the log. `-write_seeds=DIR` writes the seeds: each
// log of fuzz/corpus/run_builder under 5.1.0 read whole and under 5.0.0 in tiny blocks.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mlperf/compliance/rules.h"
#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"
#include "mlperf/training/facts.h"
#include "mlperf/training/run.h"
#include "fuzz_support.h"

namespace {

namespace fs = std::filesystem;
using mlperf::fuzz::source_dir;

const mlperf::Facts& facts() {
  static const mlperf::Facts f = mlperf::Facts::load(source_dir() / "configs" / "benchmarks.json");
  return f;
}

const mlperf::compliance::RuleLibrary& rules() {
  static const mlperf::compliance::RuleLibrary library =
      mlperf::compliance::RuleLibrary::load(source_dir() / "configs" / "compliance");
  return library;
}

mlperf::Ruleset ruleset_of(unsigned selector) {
  static const char* const kRulesets[] = {"5.1.0", "5.0.0", "4.1.0", "4.0.0", "3.1.0", "6.0.0", "2.1.0", "1.0.0"};
  constexpr unsigned kTraining = sizeof kRulesets / sizeof kRulesets[0];
  static const char* const kHpc[] = {"3.0.0", "2.0.0", "1.0.0"};
  const unsigned k = selector % (kTraining + 3);
  if (k < kTraining) return *mlperf::Ruleset::parse(kRulesets[k]);
  return mlperf::Ruleset::parse(kHpc[k - kTraining])->with_usage(mlperf::Usage::kHpc);
}

// Every field of a verdict, as text.
std::string describe(const mlperf::compliance::LogVerdict& v) {
  std::string out = fmt::format("compliant {}\n", v.compliant);
  for (const auto& f : v.findings) out += fmt::format("finding {} {} {} {}\n", f.error, f.line, f.rule, f.message);
  for (const auto& c : v.configs) out += "config " + c + "\n";
  for (const auto& b : v.blocks_run) out += "block " + b + "\n";
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  mlperf::fuzz::write_seeds_if_asked(*argc, *argv, [] {
    std::vector<std::pair<std::string, std::string>> seeds;
    for (const auto& entry : fs::directory_iterator(source_dir() / "fuzz/corpus/run_builder")) {
      const std::string log = mlperf::fuzz::read_seed_source(entry.path());
      const std::string name = entry.path().stem().string();
      seeds.emplace_back(name + "_5.1.0", std::string(1, '\x00') + log);
      seeds.emplace_back(name + "_5.0.0_tiny", std::string(1, '\x81') + log);
    }
    return seeds;
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const unsigned selector = size > 0 ? data[0] : 0;
  const mlperf::Ruleset ruleset = ruleset_of(selector & 0x7f);
  const bool tiny_reads = (selector & 0x80) != 0;
  const std::string text(reinterpret_cast<const char*>(data) + (size > 0 ? 1 : 0), size > 0 ? size - 1 : 0);
  auto reader = [&] {
    return mlperf::LineReader(mlperf::string_source(text, tiny_reads ? 7 : SIZE_MAX), tiny_reads ? 16 : 65536, 4096);
  };

  // As `score` and `check` judge it.
  mlperf::RunOptions options{ruleset, false};
  options.compliance_rules = &rules();
  options.record_compliance_blocks = true;
  mlperf::LineReader scored_reader = reader();
  const mlperf::Run run = mlperf::read_run(scored_reader, "fuzz.txt", "", facts(), options);
  if (!rules().has_ruleset(ruleset)) {
    if (run.compliance) std::abort();
    return 0;
  }
  if (!run.compliance) std::abort();

  // Every line through the full parser and the payload path.
  mlperf::compliance::LogReader judged(rules(), ruleset, true);
  mlperf::LineReader full_reader = reader();
  mlperf::Line line;
  mlperf::Event event;
  std::string error;
  while (full_reader.next_with(mlperf::kMllogToken, line)) {
    if (line.truncated) {
      judged.add_parse_error(line.number, "line too long");
      continue;
    }
    switch (mlperf::parse_mllog_line(line.text, event, error)) {
      case mlperf::LineKind::kEvent: {
        const std::size_t at = line.text.rfind(mlperf::kMllogToken);
        judged.add_event(event.key, event.time_ms, line.number, line.text.substr(at + mlperf::kMllogToken.size()));
        break;
      }
      case mlperf::LineKind::kError:
        judged.add_parse_error(line.number, error);
        break;
      case mlperf::LineKind::kNotMllog:
        break;
    }
  }
  const mlperf::compliance::LogVerdict reference = judged.finish();
  if (describe(*run.compliance) != describe(reference)) {
    std::fprintf(stderr, "verdicts differ\n-- read_run:\n%s-- full parser:\n%s", describe(*run.compliance).c_str(),
                 describe(reference).c_str());
    std::abort();
  }
  return 0;
}
