// The inference report's JSON (report/inference_report.h): the text written without a JSON
// tree is exactly the tree's dump, on AMD's real scenario folders (data/examples) and on
// hostile values.
#include <gtest/gtest.h>

#include <cmath>

#include "../test_support.h"
#include "mlperf/inference/accuracy.h"
#include "mlperf/inference/compliance_tests.h"
#include "mlperf/inference/score.h"
#include "mlperf/report/inference_report.h"

namespace mlperf {
namespace {

using inference::InferenceResult;
using inference::score_inference_directory;
using testing::source_dir;

const DataContext& data() { return testing::source_data(); }

// The report writes inference objects as text directly; it must be byte for byte what
// nlohmann gives for the same object (key order, indentation, numbers, escapes).
TEST(InferenceJson, TextIsExactlyTheDumpOfTheObject) {
  std::vector<DiscoveryError> errors;
  std::vector<DirectoryResult> results;
  for (const auto& d : find_benchmark_dirs(source_dir() / "data/examples", errors)) {
    if (d.loadgen) results.push_back(score_inference_directory(d, data(), ScoreOptions{}));
  }
  ASSERT_EQ(results.size(), 9u);
  // Hostile text and values: quotes, backslashes, control bytes, non-ASCII and invalid UTF-8,
  // NaN, structured check values, an empty result.
  DirectoryResult odd = results[0];
  auto inf = std::make_shared<InferenceResult>(*odd.inference);
  inf->model = "m\"o\\del\t\x01\xc3\xa9\xff";
  inf->performance_result = std::nan("");
  inf->checks.push_back({"odd", false, nlohmann::json::parse(R"({"b": [1, 2.5, "x"], "a": {}})"),
                         nlohmann::json::array(), 0, "line\nbreak"});
  inf->checks.push_back({"big", true, nlohmann::json(18209322760996052031ULL), nlohmann::json(1e-05), 7, ""});
  inf->checks.push_back({"scalars", false, nlohmann::json(-9223372036854775807LL - 1), nlohmann::json(true), 0, ""});
  inf->checks.push_back({"more", true, nlohmann::json(), nlohmann::json("caf\u00e9 \"q\"\n"), 1, "m"});
  // Long strings (written 16 bytes at a time) with one byte to escape at various places.
  for (const char* odd_byte : {"\"", "\\", "\x7f", "\x1f", "\x80", "\xe9", "~", " "}) {
    for (std::size_t at : {0u, 15u, 16u, 31u, 40u}) {
      std::string text(41, 'a');
      text.replace(at, 1, odd_byte);
      inf->checks.push_back({"long", false, nlohmann::json(text), nlohmann::json::array({text}), 0, text});
    }
  }
  // Names that are not UTF-8: "<key>_bytes" siblings, in a string, a list and a structure.
  inf->checks.push_back({"bytes", false, nlohmann::json("v\xfe"), nlohmann::json::parse(R"({"k": ["a"]})"), 2, ""});
  inf->checks.back().limit["k"].push_back("b\xff");
  // The nested parts (submission, compliance tests, accuracy) are written member by member
  // too: the same hostile values there, and a sibling that sorts after another member ("k-").
  nlohmann::json sorted_sibling = nlohmann::json::parse(R"({"k-": 1, "q\"k\u00e9": [], "z": {"y": null}})");
  sorted_sibling["k"] = "x\xff";
  inf->submission_checks = inf->checks;
  inf->submission_checks.push_back({"sorted", false, sorted_sibling, nlohmann::json::array({"a\xfe", 1}), 3, "",
                                    "/tmp/s\xff/systems/x.json"});
  inf->submission_valid = false;
  auto tests = std::make_shared<std::vector<inference::ComplianceTestResult>>();
  tests->push_back({"TEST01", "/tmp/c\xff/TEST01", false, inf->checks});
  tests->push_back({"TEST04", "/tmp/c/TEST04", true, {}});
  inf->compliance_tests = tests;
  auto accuracy = std::make_shared<inference::AccuracyResult>();
  accuracy->file = "/tmp/a\xff/accuracy.txt";
  accuracy->metrics = {{"ROUGE1", "44.5302"}, {"odd metric \"q\"", "n/a\xff"}, {"A", "1e3"}};
  accuracy->hash = "h\xfe";
  accuracy->checks = inf->checks;
  accuracy->warnings = {"\xff"};
  accuracy->column = "ROUGE1: 44.5302\xff";
  accuracy->file_checks = {{"accuracy_files", true, nlohmann::json::array(), nullptr, 0, ""}};
  inf->accuracy = accuracy;
  inf->log_file = "/tmp/d\xff/mlperf_log_detail.txt";
  inf->expected.reset();
  odd.inference = inf;
  odd.warnings = {"w\u00e9", "", "\xc0"};
  odd.dir.path = "/tmp/d\xff";
  odd.errors = {"e1"};
  odd.dir.submitter.clear();
  results.push_back(odd);
  const std::string odd_text = inference_to_json_text(odd);
  EXPECT_NE(odd_text.find("\"directory_bytes\": \"2f746d702f64ff\""), std::string::npos) << odd_text;
  EXPECT_NE(odd_text.find("\"warnings_bytes\": [\n    null,\n    null,\n    \"c0\"\n  ]"), std::string::npos);
  // add_exact_bytes sorts "k_bytes" in among the members: after "k-", before "q\"ké".
  const std::size_t k_dash = odd_text.find("\"k-\": 1,"), k_bytes = odd_text.find("\"k_bytes\": \"78ff\"");
  ASSERT_NE(k_bytes, std::string::npos) << odd_text;
  EXPECT_LT(k_dash, k_bytes);
  EXPECT_LT(k_bytes, odd_text.find("\"q\\\"k\u00e9\": []"));
  EXPECT_NE(odd_text.find("\"file_bytes\": \"2f746d702f73ff2f73797374656d732f782e6a736f6e\""), std::string::npos);
  DirectoryResult empty;
  empty.dir.path = "x";
  empty.dir.loadgen = LoadgenRun{};
  results.push_back(empty);
  for (const auto& r : results) {
    const std::string dumped = inference_to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    EXPECT_EQ(inference_to_json_text(r), dumped) << r.dir.path;
    // Placed inside a document: four more spaces after every newline.
    std::string indented;
    for (char c : dumped) indented += c == '\n' ? std::string("\n    ") : std::string(1, c);
    EXPECT_EQ(inference_to_json_text(r, 4), indented) << r.dir.path;
  }
}

// The submission checks' shared parts (a submitter's tree, a system) are written once per
// part and indent and then copied into every folder's report: the copies must be what
// writing each folder's checks gives, at any indent, whatever folder came before, with
// hostile values ("_bytes" siblings) inside the part and with or without checks of its own.
TEST(InferenceJson, SharedSubmissionChecksAreWrittenAsTheDumpInEveryFolder) {
  std::vector<DiscoveryError> errors;
  std::vector<DirectoryResult> found;
  for (const auto& d : find_benchmark_dirs(source_dir() / "data/examples", errors)) {
    if (d.loadgen) found.push_back(score_inference_directory(d, data(), ScoreOptions{}));
  }
  ASSERT_FALSE(found.empty());
  auto tree = std::make_shared<std::vector<inference::ValidityCheck>>();
  tree->push_back({"root_files", true, nlohmann::json::array({"a", "b\xff"}), nullptr, 0, "", "/tmp/t\xff"});
  tree->push_back({"file_size", false, nlohmann::json(12), nlohmann::json("<= 10 bytes"), 3, "too \"big\"", ""});
  auto system = std::make_shared<std::vector<inference::ValidityCheck>>();
  system->push_back({"system_type", true, nlohmann::json("datacenter"), nlohmann::json::array({"datacenter", "edge"}), 0,
                     "", "/tmp/systems/x.json"});
  std::vector<DirectoryResult> results;
  for (int k = 0; k < 4; ++k) {
    DirectoryResult r = found[static_cast<std::size_t>(k) % found.size()];
    auto inf = std::make_shared<InferenceResult>(*r.inference);
    inf->submission_checks = std::vector<inference::ValidityCheck>{};
    inf->submission_checks.append_shared(tree);
    if (k != 1) inf->submission_checks.append_shared(system);
    if (k % 2 == 0) inf->submission_checks.push_back({"model", k == 0, nlohmann::json("m" + std::to_string(k)), nullptr, 0, ""});
    r.inference = inf;
    results.push_back(r);
  }
  for (int round = 0; round < 2; ++round) {  // the second round reads the kept texts
    for (const auto& r : results) {
      const std::string dumped = inference_to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
      EXPECT_EQ(inference_to_json_text(r), dumped) << r.dir.path;
      std::string indented;
      for (char c : dumped) indented += c == '\n' ? std::string("\n      ") : std::string(1, c);
      EXPECT_EQ(inference_to_json_text(r, 6), indented) << r.dir.path;
    }
  }
  const std::string text = inference_to_json_text(results[0]);
  EXPECT_NE(text.find("\"file_bytes\": \"2f746d702f74ff\""), std::string::npos) << text;
  ASSERT_NE(text.find("\"system_type\""), std::string::npos) << text;
  EXPECT_EQ(text.find("\"system_type\""), text.rfind("\"system_type\"")) << "the system part once";
}

}  // namespace
}  // namespace mlperf
