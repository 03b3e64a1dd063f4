// The submission checker's submission-level rules (configs/inference_submission.json): the system
// description, the measurements of a scenario and the required scenarios, judged on temp folders
// built from AMD's real v5.1 system description (data/examples) and measurement files, and on
// the real v5.1 submission corpus when ../shared is present.

#include "mlperf/inference/submission.h"

#include <dirent.h>

#include <gtest/gtest.h>

#include <functional>

#include "mlperf/mllog/discovery.h"
#include "mlperf/mllog/folder_listing.h"
#include "../test_support.h"

namespace mlperf::inference {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::read_file;
using testing::run_command;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;

const SubmissionRules& rules() {
  static const SubmissionRules r = SubmissionRules::load(source_dir() / "configs/inference_submission.json");
  return r;
}

const std::string kSystem = "8xMI300X_2xEPYC_9575F";
const fs::path kAmdSystemJson = "data/examples/inference_results_v5.1/closed/AMD/systems/8xMI300X_2xEPYC_9575F.json";
// AMD's measurements/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline files in inference_results_v5.1.
const char* kAmdMeasurementJson = R"({
    "input_data_types": "int32",
    "retraining": "No",
    "starting_weights_filename": "Original Huggingface model weights",
    "weight_data_types": "fp8",
    "weight_transformations": "quantization"
}
)";
const char* kAmdUserConf =
    "llama2-70b.*.performance_sample_count_override = 24576\n"
    "llama2-70b.Offline.min_duration = 2400000\n"
    "llama2-70b.Offline.target_qps = 93\n";
const char* kAmdReadme = "# MLPerf Inference 5.1\n\n## Setup\n\n### Model and Dataset\n";

const ValidityCheck* check(const std::vector<ValidityCheck>& checks, const std::string& name) {
  for (const auto& c : checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::vector<std::string> names(const std::vector<ValidityCheck>& checks) {
  std::vector<std::string> out;
  for (const auto& c : checks) out.push_back(c.name);
  return out;
}

std::vector<std::string> failed(const std::vector<ValidityCheck>& checks) {
  std::vector<std::string> out;
  for (const auto& c : checks) {
    if (!c.passed) out.push_back(c.name);
  }
  return out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// AMD's real v5.1 system description copied to <tmp>/<division>/AMD/systems/, with `edit`
// applied (written back with the original's sorted keys and 4-space indent, so that every
// field keeps its line).
fs::path system_copy(const TempDir& tmp, const std::string& division, const std::function<void(json&)>& edit = {}) {
  json j = json::parse(read_file(source_dir() / kAmdSystemJson));
  if (edit) edit(j);
  const fs::path p = tmp.path() / division / "AMD/systems" / (kSystem + ".json");
  write_file(p, j.dump(4) + "\n");
  return p;
}

// <tmp>/closed/AMD with AMD's real llama2-70b-99 Offline measurements in the layout of the
// script rounds (measurements/<system>/<model>/<scenario>, code/<model>/).
fs::path script_submission(const TempDir& tmp, const std::string& division = "closed",
                           const std::string& model = "llama2-70b-99") {
  const fs::path org = tmp.path() / division / "AMD";
  const fs::path m = org / "measurements" / kSystem / model / "Offline";
  write_file(m / (kSystem + ".json"), kAmdMeasurementJson);
  write_file(m / "user.conf", kAmdUserConf);
  write_file(m / "README.md", kAmdReadme);
  write_file(m / "mlperf.conf", "# The mlperf.conf of the loadgen\n*.Offline.min_duration = 600000\n");
  write_file(org / "code" / model / "README.md", kAmdReadme);
  return org;
}

// The same in the layout of the package rounds: the files in results/<system>/<model>/<scenario>
// next to the run, measurements.json, and src/.
fs::path package_submission(const TempDir& tmp) {
  const fs::path org = tmp.path() / "closed/AMD";
  const fs::path s = org / "results" / kSystem / "llama2-70b-99/Offline";
  write_file(s / "measurements.json", kAmdMeasurementJson);
  write_file(s / "user.conf", kAmdUserConf);
  write_file(s / "README.md", kAmdReadme);
  write_file(s / "performance/run_1/mlperf_log_detail.txt", ":::MLLOG {}\n");
  write_file(org / "src/README.md", kAmdReadme);
  return org;
}

// ---------------------------------------------------------------------------------------------
// The rules file.

TEST(InferenceSubmission, RulesHoldTheCheckersListsPerRound) {
  const RoundSubmissionRules& v51 = rules().at("v5.1");
  EXPECT_EQ(v51.system_desc_required_fields.size(), 35u);
  EXPECT_EQ(v51.system_desc_required_fields.front(), "division");
  EXPECT_EQ(v51.system_desc_meaningful_fields.size(), 26u);
  EXPECT_EQ(v51.valid_availabilities, (std::vector<std::string>{"available", "preview", "rdi"}));
  EXPECT_EQ(v51.valid_divisions, (std::vector<std::string>{"open", "closed", "network"}));
  EXPECT_EQ(v51.network_mode_required_fields.size(), 13u);
  EXPECT_EQ(v51.measurements.required_files, (std::vector<std::string>{"user.conf", "README.md"}));
  EXPECT_EQ(v51.measurements.required_fields.size(), 5u);
  EXPECT_EQ(v51.system_types.at("edge,datacenter"), "datacenter,edge");
  const ScenarioRequirements* dc = v51.scenarios_of("datacenter");
  ASSERT_NE(dc, nullptr);
  EXPECT_EQ(dc->required.at("llama2-70b-99"), (std::vector<std::string>{"Offline"}));
  EXPECT_EQ(dc->optional.at("llama2-70b-99"), (std::vector<std::string>{"Interactive", "Server"}));
  EXPECT_FALSE(dc->required.count("resnet"));  // v5.1 has no datacenter resnet
  EXPECT_EQ(v51.scenarios_of("cloud"), nullptr);
  EXPECT_TRUE(v51.one_of_server_interactive);
  EXPECT_FALSE(v51.scenarios_counted_by_folder);

  // v4.1 still requires mlperf.conf, and reads equal-issue mode from the .conf files for a list
  // in which two missing commas glued model names together.
  const RoundSubmissionRules& v41 = rules().at("v4.1");
  EXPECT_EQ(v41.measurements.required_files, (std::vector<std::string>{"mlperf.conf", "user.conf", "README.md"}));
  EXPECT_TRUE(v41.measurements.equal_issue_conf_models.count("3d-unet-99.9gptj-99"));
  EXPECT_TRUE(v41.measurements.equal_issue_conf_models.count("llama2-70b-99.9"));
  EXPECT_FALSE(v41.measurements.equal_issue_conf_models.count("llama2-70b-99"));
  EXPECT_FALSE(v41.one_of_server_interactive);
  EXPECT_FALSE(rules().at("v5.0").one_of_server_interactive);
  EXPECT_TRUE(rules().at("v5.0").measurements.weight_data_types_read);
  EXPECT_FALSE(v41.measurements.weight_data_types_read);

  // v6.0 and v6.1: the package's layout and behaviour.
  for (const char* round : {"v6.0", "v6.1"}) {
    const RoundSubmissionRules& r = rules().at(round);
    EXPECT_EQ(r.measurements.dir, "results/{system}/{benchmark}/{scenario}") << round;
    EXPECT_EQ(r.measurements.json, "measurements.json") << round;
    EXPECT_EQ(r.measurements.code, "src") << round;
    EXPECT_TRUE(r.scenarios_counted_by_folder && r.division_case_insensitive && r.network_fields_when_truthy) << round;
    EXPECT_FALSE(r.exceptions_stop_checker) << round;
  }
  EXPECT_EQ(rules().at("v6.1").scenarios_of("edge")->required.at("qwen3.6-27b"), (std::vector<std::string>{"SingleStream"}));
}

TEST(InferenceSubmission, LoadNamesTheFileAndAnUnknownRoundThrows) {
  TempDir tmp;
  try {
    SubmissionRules::load(tmp.path() / "absent.json");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(has(e.what(), "absent.json")) << e.what();
  }
  write_file(tmp.path() / "bad.json", R"({"rounds": {"v5.1": {"models": []}}})");
  try {
    SubmissionRules::load(tmp.path() / "bad.json");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(has(e.what(), "bad.json")) << e.what();
  }
  EXPECT_THROW(rules().at("v3.0"), std::invalid_argument);
  EXPECT_THROW(judge_system_description(tmp.path() / "x.json", rules(), "v3.0", "closed"), std::invalid_argument);
}

TEST(InferenceSubmission, ModelFoldersAreMappedAsGetMlperfModelMapsThem) {
  const RoundSubmissionRules& v51 = rules().at("v5.1");
  EXPECT_EQ(v51.mlperf_model("llama2-70b-99"), "llama2-70b-99");
  EXPECT_EQ(v51.mlperf_model("resnet50"), "resnet");                               // model_mapping
  EXPECT_EQ(v51.mlperf_model("mobilenet-v2-precision_float-0.35-128"), "resnet");  // a guess
  EXPECT_EQ(v51.mlperf_model("my-bert-99.9-int8"), "bert-99.9");                   // bert-99.9 tried before bert-99
  const std::map<std::string, std::string> extra{{"llama3_1-70b-fp8_dyn", "llama2-70b-99.9"}};
  EXPECT_EQ(v51.mlperf_model("llama3_1-70b-fp8_dyn", &extra), "llama2-70b-99.9");
  // Only the package guesses llama3_1-405b.
  EXPECT_EQ(v51.mlperf_model("llama3_1-405b-fp4"), "llama3_1-405b-fp4");
  EXPECT_EQ(rules().at("v6.0").mlperf_model("llama3_1-405b-fp4"), "llama3.1-405b");
}

// ---------------------------------------------------------------------------------------------
// System description.

TEST(InferenceSubmission, AmdsRealSystemDescriptionPassesEveryRound) {
  for (const char* round : {"v4.1", "v5.0", "v5.1", "v6.0", "v6.1"}) {
    auto checks = judge_system_description(source_dir() / kAmdSystemJson, rules(), round, "closed");
    EXPECT_TRUE(failed(checks).empty()) << round << ": " << ::testing::PrintToString(failed(checks));
  }
  auto v51 = judge_system_description(source_dir() / kAmdSystemJson, rules(), "v5.1", "closed");
  EXPECT_EQ(names(v51),
            (std::vector<std::string>{"system_description", "division_folder", "availability", "system_type", "network_mode",
                                      "system_description_fields", "system_description_meaningful_fields",
                                      "system_description_unknown_fields", "submitter", "division"}));
  EXPECT_EQ(check(v51, "availability")->value, "available");
  EXPECT_EQ(check(v51, "availability")->line, 45u);
  EXPECT_EQ(check(v51, "system_description_unknown_fields")->value, json::array());
  // The package does not warn about unknown fields.
  EXPECT_EQ(check(judge_system_description(source_dir() / kAmdSystemJson, rules(), "v6.0", "closed"),
                  "system_description_unknown_fields"),
            nullptr);
}

TEST(InferenceSubmission, AMissingOrMalformedSystemDescriptionIsTheOnlyCheck) {
  TempDir tmp;
  const fs::path absent = tmp.path() / "closed/AMD/systems/none.json";
  auto checks = judge_system_description(absent, rules(), "v5.1", "closed");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_EQ(checks[0].name, "system_description");
  EXPECT_TRUE(has(checks[0].message, absent.string())) << checks[0].message;
  EXPECT_TRUE(has(checks[0].message, "no system_desc")) << checks[0].message;
  EXPECT_TRUE(has(judge_system_description(absent, rules(), "v6.0", "closed")[0].message, "the checker stops"));

  write_file(absent, "{\"division\": \"closed\",}");
  checks = judge_system_description(absent, rules(), "v5.1", "closed");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_TRUE(has(checks[0].message, "not JSON")) << checks[0].message;
  EXPECT_TRUE(has(checks[0].message, "the checker stops")) << checks[0].message;
}

TEST(InferenceSubmission, AnAvailabilityOutsideTheListFails) {
  TempDir tmp;
  fs::path p = system_copy(tmp, "closed", [](json& j) { j["status"] = "Deprecated"; });
  auto checks = judge_system_description(p, rules(), "v5.1", "closed");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"availability"}));
  const ValidityCheck* a = check(checks, "availability");
  EXPECT_EQ(a->value, "Deprecated");
  EXPECT_EQ(a->line, 45u);
  EXPECT_TRUE(has(a->message, p.string())) << a->message;
  EXPECT_TRUE(has(a->message, "\"status\"")) << a->message;
  // The status is lower-cased first.
  p = system_copy(tmp, "closed", [](json& j) { j["status"] = "Preview"; });
  EXPECT_TRUE(check(judge_system_description(p, rules(), "v5.1", "closed"), "availability")->passed);
  // A missing status: the script's .lower() raises and stops; the package's check fails.
  p = system_copy(tmp, "closed", [](json& j) { j.erase("status"); });
  EXPECT_TRUE(has(check(judge_system_description(p, rules(), "v5.1", "closed"), "availability")->message,
                  "the checker stops (AttributeError)"));
  const auto v6_checks = judge_system_description(p, rules(), "v6.0", "closed");
  const ValidityCheck* v6 = check(v6_checks, "availability");
  EXPECT_FALSE(v6->passed);
  EXPECT_TRUE(has(v6->message, "fails")) << v6->message;
}

TEST(InferenceSubmission, ASystemTypeOutsideTheListFails) {
  TempDir tmp;
  fs::path p = system_copy(tmp, "closed", [](json& j) { j["system_type"] = "cloud"; });
  auto checks = judge_system_description(p, rules(), "v5.1", "closed");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"system_type"}));
  EXPECT_TRUE(has(check(checks, "system_type")->message, p.string()));
  EXPECT_EQ(check(checks, "system_type")->line, 49u);
  p = system_copy(tmp, "closed", [](json& j) { j["system_type"] = "edge,datacenter"; });
  EXPECT_TRUE(failed(judge_system_description(p, rules(), "v5.1", "closed")).empty());
}

TEST(InferenceSubmission, NetworkModeMustMatchTheDivision) {
  TempDir tmp;
  // A closed system that says it is a network one: wrong division, and the network fields missing.
  fs::path p = system_copy(tmp, "closed", [](json& j) { j["is_network"] = "True"; });
  auto checks = judge_system_description(p, rules(), "v5.1", "closed");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"network_mode", "system_description_fields"}));
  EXPECT_TRUE(has(check(checks, "network_mode")->message, p.string() + ": field \"is_network\" \"True\""))
      << check(checks, "network_mode")->message;
  EXPECT_TRUE(has(check(checks, "network_mode")->message, "closed division")) << check(checks, "network_mode")->message;
  EXPECT_EQ(check(checks, "system_description_fields")->value.size(), 12u);  // all but is_network
  EXPECT_EQ(check(checks, "system_description_fields")->value[0], "network_type");
  // Open takes either, but the network fields are still required.
  p = system_copy(tmp, "open", [](json& j) {
    j["is_network"] = "true";
    j["division"] = "open";
  });
  checks = judge_system_description(p, rules(), "v5.1", "open");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"system_description_fields"}));
  // The network division needs a network system.
  p = system_copy(tmp, "network", [](json& j) { j["division"] = "network"; });
  checks = judge_system_description(p, rules(), "v5.1", "network");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"network_mode"}));
  // A JSON true is no string: the script stops, the package fails the check.
  p = system_copy(tmp, "closed", [](json& j) { j["is_network"] = true; });
  EXPECT_TRUE(has(check(judge_system_description(p, rules(), "v5.1", "closed"), "network_mode")->message,
                  "the checker stops (AttributeError)"));
}

TEST(InferenceSubmission, ThePackageAsksForTheNetworkFieldsWhenIsNetworkSaysFalse) {
  TempDir tmp;
  fs::path p = system_copy(tmp, "closed", [](json& j) { j["is_network"] = "false"; });
  EXPECT_TRUE(failed(judge_system_description(p, rules(), "v5.1", "closed")).empty());
  auto v60 = judge_system_description(p, rules(), "v6.0", "closed");
  EXPECT_EQ(failed(v60), (std::vector<std::string>{"system_description_fields"}));
  EXPECT_TRUE(check(v60, "network_mode")->passed);
  EXPECT_TRUE(has(check(v60, "system_description_fields")->message, "network_type"))
      << check(v60, "system_description_fields")->message;
}

TEST(InferenceSubmission, MissingAndEmptyFieldsAreListed) {
  TempDir tmp;
  fs::path p = system_copy(tmp, "closed", [](json& j) {
    j.erase("cooling");
    j.erase("hw_notes");
    j["framework"] = "";
    j["number_of_nodes"] = 0;
    j["accelerator_frequency"] = "";  // required, but not among the meaningful ones
  });
  for (const char* round : {"v5.1", "v6.1"}) {
    auto checks = judge_system_description(p, rules(), round, "closed");
    EXPECT_EQ(failed(checks), (std::vector<std::string>{"system_description_fields", "system_description_meaningful_fields"}))
        << round;
    const ValidityCheck* fields = check(checks, "system_description_fields");
    EXPECT_EQ(fields->value, json({"cooling", "hw_notes"}));
    EXPECT_TRUE(has(fields->message, p.string() + ": field(s) cooling, hw_notes missing")) << fields->message;
    const ValidityCheck* empty = check(checks, "system_description_meaningful_fields");
    EXPECT_EQ(empty->value, json({"number_of_nodes", "framework"}));  // in the checker's order
    EXPECT_TRUE(has(empty->message, p.string() + ": field(s) number_of_nodes, framework")) << empty->message;
    EXPECT_EQ(empty->line, 35u);  // number_of_nodes: two lines up, cooling and hw_notes are gone
  }
}

TEST(InferenceSubmission, UnknownFieldsAreWarningsOfTheScriptOnly) {
  TempDir tmp;
  fs::path p = system_copy(tmp, "closed", [](json& j) { j["host_processor_vcpu_count"] = "128"; });
  auto checks = judge_system_description(p, rules(), "v5.1", "closed");
  EXPECT_TRUE(failed(checks).empty());
  const ValidityCheck* unknown = check(checks, "system_description_unknown_fields");
  EXPECT_EQ(unknown->value, json({"host_processor_vcpu_count"}));
  EXPECT_TRUE(has(unknown->message, "logged as warnings")) << unknown->message;
  // The power fields are known.
  EXPECT_FALSE(has(unknown->message, "power_management"));
}

TEST(InferenceSubmission, SubmitterAndDivisionMustMatchTheFolders) {
  TempDir tmp;
  fs::path p = system_copy(tmp, "closed", [](json& j) { j["submitter"] = "amd"; });
  EXPECT_TRUE(check(judge_system_description(p, rules(), "v5.1", "closed"), "submitter")->passed);  // ignoring case
  p = system_copy(tmp, "closed", [](json& j) { j["submitter"] = "Dell"; });
  auto checks = judge_system_description(p, rules(), "v5.1", "closed");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"submitter"}));
  EXPECT_EQ(check(checks, "submitter")->limit, "AMD");
  EXPECT_TRUE(has(check(checks, "submitter")->message, p.string())) << check(checks, "submitter")->message;
  p = system_copy(tmp, "closed", [](json& j) { j.erase("submitter"); });
  EXPECT_TRUE(has(check(judge_system_description(p, rules(), "v5.1", "closed"), "submitter")->message, "the checker stops"));

  // "Closed": the script compares exactly, the package ignores case.
  p = system_copy(tmp, "closed", [](json& j) { j["division"] = "Closed"; });
  checks = judge_system_description(p, rules(), "v5.1", "closed");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"division"}));
  EXPECT_EQ(check(checks, "division")->line, 15u);
  EXPECT_TRUE(has(check(checks, "division")->message, p.string() + ": field \"division\" \"Closed\""));
  EXPECT_TRUE(has(check(checks, "division")->message, "compared exactly")) << check(checks, "division")->message;
  EXPECT_TRUE(failed(judge_system_description(p, rules(), "v6.0", "closed")).empty());
  // A closed description in the open folder.
  p = system_copy(tmp, "open");
  EXPECT_EQ(failed(judge_system_description(p, rules(), "v6.0", "open")), (std::vector<std::string>{"division"}));
}

TEST(InferenceSubmission, AFolderThatIsNoDivisionFails) {
  TempDir tmp;
  fs::path p = system_copy(tmp, "preview", [](json& j) { j["division"] = "preview"; });
  auto checks = judge_system_description(p, rules(), "v5.1", "preview");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"division_folder"}));
  EXPECT_TRUE(has(check(checks, "division_folder")->message, p.string() + ": the division folder \"preview\""));
  EXPECT_TRUE(has(check(checks, "division_folder")->message, "skips it"));
}

// ---------------------------------------------------------------------------------------------
// Measurements.

TEST(InferenceSubmission, AmdsRealMeasurementsPass) {
  TempDir tmp;
  const fs::path org = script_submission(tmp);
  auto checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v5.1");
  EXPECT_EQ(names(checks), (std::vector<std::string>{"measurements_dir", "measurements_files", "measurements_json",
                                                     "measurements_json_fields", "code_dir"}));
  EXPECT_TRUE(failed(checks).empty()) << ::testing::PrintToString(failed(checks));
  EXPECT_EQ(check(checks, "measurements_json")->value, kSystem + ".json");
  // <impl> is empty: the code folder is code/llama2-70b-99/.
  EXPECT_EQ(check(checks, "code_dir")->value, (org / "code/llama2-70b-99/").string());
  for (const char* round : {"v4.1", "v5.0"}) {
    EXPECT_TRUE(failed(judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), round)).empty()) << round;
  }
}

TEST(InferenceSubmission, AMissingMeasurementsFolderIsTheOnlyCheck) {
  TempDir tmp;
  const fs::path org = script_submission(tmp);
  auto checks = judge_measurements(org, kSystem, "llama2-70b-99", "Server", rules(), "v5.1");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_EQ(checks[0].name, "measurements_dir");
  EXPECT_TRUE(has(checks[0].message, (org / "measurements" / kSystem / "llama2-70b-99/Server").string())) << checks[0].message;
  EXPECT_TRUE(has(checks[0].message, "no measurement_dir")) << checks[0].message;
}

TEST(InferenceSubmission, RequiredMeasurementFilesMustBeThereAndNotEmpty) {
  TempDir tmp;
  const fs::path org = script_submission(tmp);
  const fs::path dir = org / "measurements" / kSystem / "llama2-70b-99/Offline";
  fs::remove(dir / "user.conf");
  write_file(dir / "README.md", "");
  auto checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v5.1");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"measurements_files"}));
  const ValidityCheck* files = check(checks, "measurements_files");
  EXPECT_EQ(files->value, json({"user.conf missing", "README.md empty"}));
  EXPECT_TRUE(has(files->message, dir.string())) << files->message;
  // v4.1 also wants mlperf.conf.
  fs::remove(dir / "mlperf.conf");
  write_file(dir / "user.conf", kAmdUserConf);
  write_file(dir / "README.md", kAmdReadme);
  EXPECT_TRUE(failed(judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v5.1")).empty());
  EXPECT_EQ(check(judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v4.1"), "measurements_files")->value,
            json({"mlperf.conf missing"}));
}

TEST(InferenceSubmission, TheSystemJsonIsSearchedAsTheCheckerSearchesIt) {
  TempDir tmp;
  const fs::path org = script_submission(tmp);
  const fs::path dir = org / "measurements" / kSystem / "llama2-70b-99/Offline";
  fs::remove(dir / (kSystem + ".json"));
  auto checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v5.1");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"measurements_json"}));
  EXPECT_TRUE(has(check(checks, "measurements_json")->message, dir.string() + ": no " + kSystem + "*.json"));
  EXPECT_EQ(check(checks, "code_dir"), nullptr);  // the checker does not get there
  EXPECT_FALSE(has(check(checks, "measurements_json")->message, "stops"));
  // v4.1 returns a variable only the found-json branch sets: the checker stops.
  checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v4.1");
  EXPECT_TRUE(has(check(checks, "measurements_json")->message, "the checker stops (UnboundLocalError)"));

  // <system>_<impl>_<scenario>.json: the code folder is code/<model>/<impl>, and a missing
  // <impl> folder is accepted while code/<model> exists.
  write_file(dir / (kSystem + "_vllm_Offline.json"), kAmdMeasurementJson);
  checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v5.1");
  EXPECT_TRUE(failed(checks).empty());
  EXPECT_EQ(check(checks, "code_dir")->value, (org / "code/llama2-70b-99/vllm").string());

  // Several candidates: the first in name order is judged, and the message says so.
  write_file(dir / (kSystem + ".json"), kAmdMeasurementJson);
  checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v5.1");
  EXPECT_EQ(check(checks, "measurements_json")->value, kSystem + ".json");
  EXPECT_TRUE(has(check(checks, "measurements_json")->message, "2 candidates")) << check(checks, "measurements_json")->message;

  // Unparseable JSON stops the checker.
  write_file(dir / (kSystem + ".json"), "{\"retraining\": No}");
  checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v5.1");
  EXPECT_FALSE(check(checks, "measurements_json")->passed);
  EXPECT_TRUE(has(check(checks, "measurements_json")->message, "the checker stops"));
}

TEST(InferenceSubmission, TheSystemJsonNeedsItsFieldsWithValues) {
  TempDir tmp;
  const fs::path org = script_submission(tmp);
  const fs::path file = org / "measurements" / kSystem / "llama2-70b-99/Offline" / (kSystem + ".json");
  json j = json::parse(kAmdMeasurementJson);
  j["retraining"] = "";
  j.erase("weight_transformations");
  write_file(file, j.dump(4));
  auto checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v5.1");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"measurements_json_fields"}));
  const ValidityCheck* fields = check(checks, "measurements_json_fields");
  EXPECT_EQ(fields->value, json({"weight_transformations missing", "retraining empty"}));
  EXPECT_EQ(fields->line, 3u);
  EXPECT_TRUE(has(fields->message, file.string())) << fields->message;

  // v5.0 and v5.1 read weight_data_types before the loop: without it the checker stops.
  j = json::parse(kAmdMeasurementJson);
  j.erase("weight_data_types");
  write_file(file, j.dump(4));
  EXPECT_TRUE(has(
      check(judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v5.1"), "measurements_json_fields")->message,
      "the checker stops (KeyError)"));
  const auto v41_checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v4.1");
  const ValidityCheck* v41 = check(v41_checks, "measurements_json_fields");
  EXPECT_FALSE(v41->passed);
  EXPECT_FALSE(has(v41->message, "stops"));
}

TEST(InferenceSubmission, TheCodeFolderMayBeRedirectedByAFile) {
  TempDir tmp;
  const fs::path org = script_submission(tmp, "closed", "llama2-70b-99.9");
  fs::remove_all(org / "code/llama2-70b-99.9");
  auto checks = judge_measurements(org, kSystem, "llama2-70b-99.9", "Offline", rules(), "v5.1");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"code_dir"}));
  EXPECT_TRUE(has(check(checks, "code_dir")->message, (org / "code/llama2-70b-99.9/").string()));
  EXPECT_TRUE(has(check(checks, "code_dir")->message, "is missing code_dir"));

  // code/llama2-70b-99.9 is a file naming the folder that holds the code.
  write_file(org / "code/llama2-70b-99.9", "llama2-70b-99\n");
  checks = judge_measurements(org, kSystem, "llama2-70b-99.9", "Offline", rules(), "v5.1");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"code_dir"}));
  EXPECT_TRUE(has(check(checks, "code_dir")->message, "redirects to llama2-70b-99")) << check(checks, "code_dir")->message;
  write_file(org / "code/llama2-70b-99/README.md", kAmdReadme);
  checks = judge_measurements(org, kSystem, "llama2-70b-99.9", "Offline", rules(), "v5.1");
  EXPECT_TRUE(failed(checks).empty());
  EXPECT_EQ(check(checks, "code_dir")->value, (org / "code/llama2-70b-99/").string());
}

TEST(InferenceSubmission, V41ReadsEqualIssueModeFromTheConfFiles) {
  TempDir tmp;
  const fs::path org = script_submission(tmp, "closed", "llama2-70b-99.9");
  const fs::path dir = org / "measurements" / kSystem / "llama2-70b-99.9/Offline";
  auto checks = judge_measurements(org, kSystem, "llama2-70b-99.9", "Offline", rules(), "v4.1");
  const ValidityCheck* conf = check(checks, "equal_issue_conf");
  ASSERT_NE(conf, nullptr);
  EXPECT_TRUE(conf->passed);
  EXPECT_EQ(conf->value, false);
  EXPECT_TRUE(has(conf->message, "the run's log must show it")) << conf->message;

  write_file(dir / "user.conf", std::string(kAmdUserConf) + "llama2-70b.*.sample_concatenate_permutation = 1\n");
  checks = judge_measurements(org, kSystem, "llama2-70b-99.9", "Offline", rules(), "v4.1");
  conf = check(checks, "equal_issue_conf");
  EXPECT_EQ(conf->value, true);
  EXPECT_TRUE(has(conf->message, (dir / "user.conf").string() + ":4 declares")) << conf->message;

  // A line the checker's parser cannot split stops it.
  write_file(dir / "user.conf", "llama2-70b.Offline.target_qps = 93 = 94\n");
  checks = judge_measurements(org, kSystem, "llama2-70b-99.9", "Offline", rules(), "v4.1");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"equal_issue_conf"}));
  EXPECT_TRUE(has(check(checks, "equal_issue_conf")->message, (dir / "user.conf").string() + ":1:"));
  EXPECT_TRUE(has(check(checks, "equal_issue_conf")->message, "the checker stops (ValueError)"));

  // Not for llama2-70b-99 (glued to gptj-99.9 in the checker's list), nor open, nor v5.x.
  const fs::path other = script_submission(tmp, "closed", "llama2-70b-99");
  EXPECT_EQ(check(judge_measurements(other, kSystem, "llama2-70b-99", "Offline", rules(), "v4.1"), "equal_issue_conf"), nullptr);
  const fs::path open = script_submission(tmp, "open", "llama2-70b-99.9");
  EXPECT_EQ(check(judge_measurements(open, kSystem, "llama2-70b-99.9", "Offline", rules(), "v4.1"), "equal_issue_conf"), nullptr);
  EXPECT_EQ(check(judge_measurements(org, kSystem, "llama2-70b-99.9", "Offline", rules(), "v5.1"), "equal_issue_conf"), nullptr);
}

TEST(InferenceSubmission, V6KeepsMeasurementsNextToTheRunAndTheCodeInSrc) {
  TempDir tmp;
  const fs::path org = package_submission(tmp);
  const fs::path dir = org / "results" / kSystem / "llama2-70b-99/Offline";
  for (const char* round : {"v6.0", "v6.1"}) {
    auto checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), round);
    EXPECT_TRUE(failed(checks).empty()) << round << ": " << ::testing::PrintToString(failed(checks));
    EXPECT_EQ(check(checks, "measurements_json")->value, "measurements.json");
    EXPECT_EQ(check(checks, "code_dir")->value, (org / "src").string());
  }
  // The script's layout does not count at v6.0, and v5.1 does not read the v6 layout.
  EXPECT_FALSE(failed(judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v5.1")).empty());

  fs::remove_all(org / "src");
  fs::remove(dir / "user.conf");
  auto checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v6.0");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"measurements_files", "code_dir"}));
  EXPECT_TRUE(has(check(checks, "code_dir")->message, (org / "src").string()));
  // An endpoints run (no loadgen log) needs no user.conf.
  fs::remove_all(dir / "performance");
  checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v6.0");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"code_dir"}));

  fs::remove(dir / "measurements.json");
  checks = judge_measurements(org, kSystem, "llama2-70b-99", "Offline", rules(), "v6.0");
  EXPECT_FALSE(check(checks, "measurements_json")->passed);
  EXPECT_TRUE(has(check(checks, "measurements_json")->message, dir.string() + ": no measurements.json"));
}

// ---------------------------------------------------------------------------------------------
// Required scenarios.

TEST(InferenceSubmission, AMissingRequiredScenarioFailsClosedAndIsInformationalInOpen) {
  auto closed = judge_required_scenarios("datacenter", "llama2-70b-99", {"Server"}, rules(), "v5.1", "closed");
  EXPECT_EQ(names(closed),
            (std::vector<std::string>{"system_type", "model", "scenarios_known", "required_scenarios", "server_or_interactive"}));
  EXPECT_EQ(failed(closed), (std::vector<std::string>{"required_scenarios"}));
  const ValidityCheck* req = check(closed, "required_scenarios");
  EXPECT_EQ(req->value, json({"Offline"}));
  EXPECT_EQ(req->limit, json({"Offline"}));
  EXPECT_TRUE(has(req->message, "llama2-70b-99 on a datacenter system: missing required scenario(s) Offline")) << req->message;

  auto open = judge_required_scenarios("datacenter", "llama2-70b-99", {"Server"}, rules(), "v5.1", "open");
  EXPECT_TRUE(failed(open).empty());
  EXPECT_TRUE(has(check(open, "required_scenarios")->message, "ignores them in the open division"));
  EXPECT_EQ(check(open, "scenarios_known"), nullptr);

  // Folder spellings are mapped (SCENARIO_MAPPING) and edge systems need their own scenarios.
  EXPECT_TRUE(
      failed(judge_required_scenarios("edge", "resnet", {"singlestream", "multistream", "offline"}, rules(), "v5.1", "closed"))
          .empty());
  auto edge = judge_required_scenarios("edge", "resnet", {"Offline"}, rules(), "v5.1", "closed");
  EXPECT_EQ(check(edge, "required_scenarios")->value, json({"SingleStream", "MultiStream"}));
}

TEST(InferenceSubmission, V51WantsServerOrInteractiveWhereBothAreOptional) {
  auto none = judge_required_scenarios("datacenter", "llama2-70b-99", {"Offline"}, rules(), "v5.1", "closed");
  EXPECT_EQ(failed(none), (std::vector<std::string>{"server_or_interactive"}));
  EXPECT_TRUE(has(check(none, "server_or_interactive")->message, "one of Server and Interactive is required"));
  EXPECT_TRUE(
      failed(judge_required_scenarios("datacenter", "llama2-70b-99", {"Offline", "Interactive"}, rules(), "v5.1", "closed"))
          .empty());
  // Open: not checked.
  EXPECT_TRUE(failed(judge_required_scenarios("datacenter", "llama2-70b-99", {"Offline"}, rules(), "v5.1", "open")).empty());
  // v5.0 has no such rule, but requires Server itself.
  auto v50 = judge_required_scenarios("datacenter", "llama2-70b-99", {"Offline"}, rules(), "v5.0", "closed");
  EXPECT_EQ(check(v50, "server_or_interactive"), nullptr);
  EXPECT_EQ(check(v50, "required_scenarios")->value, json({"Server"}));
  // A model with Server required has no one-of rule.
  EXPECT_EQ(check(judge_required_scenarios("datacenter", "mixtral-8x7b", {"Offline", "Server"}, rules(), "v5.1", "closed"),
                  "server_or_interactive"),
            nullptr);
}

TEST(InferenceSubmission, AModelOutsideTheRoundOrTheSystemTypeFails) {
  // resnet has no datacenter scenarios in v5.1: the model is skipped in every division.
  for (const char* division : {"closed", "open"}) {
    auto checks = judge_required_scenarios("datacenter", "resnet", {"Offline", "Server"}, rules(), "v5.1", division);
    EXPECT_EQ(failed(checks), (std::vector<std::string>{"model"})) << division;
    EXPECT_TRUE(has(check(checks, "model")->message, "resnet has no required scenarios on a datacenter system"));
  }
  // An unknown model in closed.
  auto unknown = judge_required_scenarios("datacenter", "gpt-5", {"Offline"}, rules(), "v5.1", "closed");
  EXPECT_EQ(failed(unknown), (std::vector<std::string>{"model"}));
  EXPECT_TRUE(has(check(unknown, "model")->message, "not a model of round v5.1"));
  // The package stops on it in closed and does not look in open.
  EXPECT_TRUE(
      has(check(judge_required_scenarios("datacenter", "resnet", {"Offline"}, rules(), "v6.0", "closed"), "model")->message,
          "the checker stops"));
  auto open = judge_required_scenarios("datacenter", "resnet", {"Offline"}, rules(), "v6.0", "open");
  EXPECT_TRUE(failed(open).empty());
  EXPECT_TRUE(has(check(open, "required_scenarios")->message, "does not check"));
  // An invalid system type.
  auto type = judge_required_scenarios("cloud", "llama2-70b-99", {"Offline"}, rules(), "v5.1", "closed");
  ASSERT_EQ(type.size(), 1u);
  EXPECT_FALSE(type[0].passed);
  EXPECT_EQ(type[0].name, "system_type");
}

TEST(InferenceSubmission, AScenarioNeitherRequiredNorOptionalFailsClosed) {
  auto checks =
      judge_required_scenarios("datacenter", "retinanet", {"Offline", "Server", "SingleStream"}, rules(), "v5.1", "closed");
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"scenarios_known"}));
  EXPECT_EQ(check(checks, "scenarios_known")->value, json({"SingleStream"}));
}

TEST(InferenceSubmission, V6CountsScenarioFoldersNotValidRuns) {
  // Offline failed its run but its folder is there: the package is content.
  const std::set<std::string> folders{"offline", "server"};
  EXPECT_TRUE(
      failed(judge_required_scenarios("datacenter", "llama2-70b-99", {"Server"}, rules(), "v6.0", "closed", folders)).empty());
  // The script counts the valid runs only.
  EXPECT_EQ(failed(judge_required_scenarios("datacenter", "llama2-70b-99", {"Server"}, rules(), "v5.1", "closed", folders)),
            (std::vector<std::string>{"required_scenarios"}));
  auto missing =
      judge_required_scenarios("datacenter", "gpt-oss-120b", {}, rules(), "v6.1", "closed", std::set<std::string>{"Offline"});
  EXPECT_EQ(failed(missing), (std::vector<std::string>{"server_or_interactive"}));
  EXPECT_TRUE(has(check(missing, "server_or_interactive")->message, "scenario folders"));
}

// ---------------------------------------------------------------------------------------------
// The real v5.1 submissions.

TEST(InferenceSubmission, RealV51SystemsAndMeasurementsAgreeWithTheOfficialChecker) {
  const fs::path shared = source_dir().parent_path() / "shared";
  if (!fs::exists(shared / "tools/corpus")) GTEST_SKIP() << "../shared is absent: the v5.1 inference corpus check is skipped";
  auto corpus = run_command(fs::path(shared / "tools/corpus").string() + " inference_v5.1 2>/dev/null");
  ASSERT_EQ(corpus.status, 0);
  const fs::path root = corpus.out.substr(0, corpus.out.find('\n'));
  // The official v5.1.1 checker on this corpus (trimmed of most code/ folders) finds no fault in
  // any system description or measurements folder, except 458 closed and 823 open missing code
  // folders: "is missing code_dir".
  std::map<std::string, int> systems, scenarios, code_dir_failures;
  for (const char* division : {"closed", "open"}) {
    for (const auto& org : fs::directory_iterator(root / division)) {
      if (!fs::is_directory(org.path() / "results")) continue;
      for (const auto& system : fs::directory_iterator(org.path() / "results")) {
        if (!system.is_directory()) continue;
        const std::string name = system.path().filename().string();
        auto desc = judge_system_description(org.path() / "systems" / (name + ".json"), rules(), "v5.1", division);
        EXPECT_TRUE(failed(desc).empty()) << system.path() << ": " << ::testing::PrintToString(failed(desc));
        ++systems[division];
        for (const auto& model : fs::directory_iterator(system.path())) {
          if (!model.is_directory()) continue;
          for (const auto& scenario : fs::directory_iterator(model.path())) {
            if (!scenario.is_directory()) continue;
            auto m = judge_measurements(org.path(), name, model.path().filename().string(), scenario.path().filename().string(),
                                        rules(), "v5.1");
            ++scenarios[division];
            for (const auto& c : m) {
              if (c.passed) continue;
              if (c.name == "code_dir") {
                ++code_dir_failures[division];
              } else {
                ADD_FAILURE() << scenario.path() << ": " << c.name << ": " << c.message;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(scenarios["closed"], 609);
  EXPECT_EQ(scenarios["open"], 840);
  EXPECT_EQ(code_dir_failures["closed"], 458);
  EXPECT_EQ(code_dir_failures["open"], 823);
  EXPECT_EQ(systems["closed"], 97);
  EXPECT_EQ(systems["open"], 28);
  // AMD ships its code folders: every one of its closed scenarios passes whole.
  for (const auto& system : fs::directory_iterator(root / "closed/AMD/results")) {
    for (const auto& model : fs::directory_iterator(system.path())) {
      for (const auto& scenario : fs::directory_iterator(model.path())) {
        auto m = judge_measurements(root / "closed/AMD", system.path().filename().string(), model.path().filename().string(),
                                    scenario.path().filename().string(), rules(), "v5.1");
        EXPECT_TRUE(failed(m).empty()) << scenario.path();
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The folder tree (check_results_dir's checks before any result).

// <tmp>/closed/AMD as the script rounds want it: AMD's real measurements, code, system
// description, a results/<system> folder and calibration.md.
fs::path tree_submission(const TempDir& tmp) {
  const fs::path org = script_submission(tmp);
  system_copy(tmp, "closed");
  write_file(org / "results" / kSystem / "llama2-70b-99/Offline/performance/run_1/mlperf_log_summary.txt", "x\n");
  write_file(org / "calibration.md", "");
  return org;
}

TEST(InferenceSubmission, AWellFormedTreePassesEveryFolderCheck) {
  TempDir tmp;
  const fs::path org = tree_submission(tmp);
  std::vector<bool> drops;
  auto checks = judge_submission_tree(org, rules(), "v5.1", &drops);
  EXPECT_EQ(names(checks), (std::vector<std::string>{"root_files", "division_files", "broken_symlinks", "file_size",
                                                     "git_unfriendly_names", "space_names", "pycache", "empty_dirs",
                                                     "results_coverage", "calibration"}));
  EXPECT_TRUE(failed(checks).empty()) << ::testing::PrintToString(failed(checks));
  EXPECT_EQ(drops, (std::vector<bool>{true, true, true, true, true, true, true, true, false, false}));
  // v4.1 has neither the coverage nor the calibration rule; the v6.x package no folder check.
  EXPECT_EQ(judge_submission_tree(org, rules(), "v4.1").size(), 8u);
  EXPECT_TRUE(judge_submission_tree(org, rules(), "v6.0").empty());
  EXPECT_EQ(check(checks, "file_size")->limit, "files of at most 52428800 bytes");
}

// The walk keeps each folder's listing, by its path below the submitter folder, for the
// scenario folders' own checks to read (FolderListings).
TEST(InferenceSubmission, TheTreeWalkKeepsEveryFolderListingBelowTheSubmitter) {
  TempDir tmp;
  const fs::path org = tree_submission(tmp);
  FolderListings listings;
  judge_submission_tree(org, rules(), "v5.1", nullptr, &listings);
  std::size_t folders = 0;
  for (const auto& e : fs::recursive_directory_iterator(org)) folders += e.is_directory() && !e.is_symlink() ? 1 : 0;
  EXPECT_EQ(listings.size(), folders + 1);  // the submitter folder too
  const std::string run = "/results/" + std::string(kSystem) + "/llama2-70b-99/Offline/performance/run_1";
  ASSERT_NE(listings.find(run), nullptr);
  ASSERT_EQ(listings.find(run)->size(), 1u);
  EXPECT_EQ(listings.find(run)->front().name, "mlperf_log_summary.txt");
  ASSERT_NE(listings.find(""), nullptr);
  EXPECT_EQ(listings.find("/no/such"), nullptr);
  // A round without folder rules walks nothing.
  FolderListings none;
  judge_submission_tree(org, rules(), "v6.0", nullptr, &none);
  EXPECT_EQ(none.size(), 0u);
}

// Discovery's listings of the submitter's tree (BenchmarkDir::submitter_listings) stand in
// for listing those folders again: the same checks as a walk of the disk, the walk keeps only
// the listings it made itself, and what a listing holds is what the walk sees.
TEST(InferenceSubmission, TheTreeWalkReadsTheFoldersDiscoveryListed) {
  TempDir tmp;
  const fs::path org = tree_submission(tmp);
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(org, errors);
  ASSERT_EQ(dirs.size(), 1u);
  ASSERT_NE(dirs[0].submitter_listings, nullptr);
  FolderListings from_disk, from_discovery;
  auto walked = judge_submission_tree(org, rules(), "v5.1", nullptr, &from_disk);
  auto read = judge_submission_tree(org, rules(), "v5.1", nullptr, &from_discovery, dirs[0].submitter_listings.get());
  ASSERT_EQ(read.size(), walked.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(read[i].name, walked[i].name);
    EXPECT_EQ(read[i].passed, walked[i].passed);
    EXPECT_EQ(read[i].value, walked[i].value);
  }
  // Each folder's listing is kept once: by discovery (the whole tree but the submitter's own
  // folder), or else by the walk.
  const FolderListings& discovered = *dirs[0].submitter_listings;
  EXPECT_EQ(from_discovery.size(), 1u);
  EXPECT_NE(from_discovery.find(""), nullptr);
  EXPECT_EQ(discovered.find(""), nullptr);
  std::size_t folders = 1;
  for (const auto& e : fs::recursive_directory_iterator(org)) {
    if (!e.is_directory()) continue;
    ++folders;
    const std::string below = e.path().string().substr(org.string().size());
    EXPECT_NE(discovered.find(below), nullptr) << below;
    EXPECT_NE(from_disk.find(below), nullptr) << below;
  }
  EXPECT_EQ(folders, from_disk.size());
  EXPECT_EQ(folders, discovered.size() + 1);
  // A listing that names a file the disk does not hold: the walk judges the listing.
  const std::string system = "/results/" + std::string(kSystem);
  FolderListings fake;
  fake.add(system, {FolderEntry{"llama2-70b-99", DT_DIR, -1}, FolderEntry{"huge.bin", DT_REG, 60 << 20}});
  const auto judged = judge_submission_tree(org, rules(), "v5.1", nullptr, nullptr, &fake);
  const ValidityCheck* size = check(judged, "file_size");
  ASSERT_NE(size, nullptr);
  EXPECT_FALSE(size->passed);
  EXPECT_EQ(size->value, json::array({"closed/AMD/results/" + std::string(kSystem) + "/huge.bin"}));
}

// FILE_SIZE_LIMIT_MB: a file over 50 MiB (sparse here), or a link to one, rejects the
// submitter; one of exactly 50 MiB does not.
TEST(InferenceSubmission, AFileOverTheSizeLimitRejectsTheSubmitter) {
  TempDir tmp;
  const fs::path org = tree_submission(tmp);
  write_file(org / "code/llama2-70b-99/at_limit.bin", "");
  fs::resize_file(org / "code/llama2-70b-99/at_limit.bin", 52428800);
  EXPECT_TRUE(check(judge_submission_tree(org, rules(), "v5.1"), "file_size")->passed);
  write_file(org / "code/llama2-70b-99/big.bin", "");
  fs::resize_file(org / "code/llama2-70b-99/big.bin", 52428801);
  fs::create_symlink("big.bin", org / "code/llama2-70b-99/link_to_big");
  auto checks = judge_submission_tree(org, rules(), "v5.1");
  EXPECT_FALSE(check(checks, "file_size")->passed);
  auto value = check(checks, "file_size")->value;
  std::sort(value.begin(), value.end());
  EXPECT_EQ(value, json::array({"closed/AMD/code/llama2-70b-99/big.bin", "closed/AMD/code/llama2-70b-99/link_to_big"}));
}

TEST(InferenceSubmission, StrayFilesAndNamesRejectTheSubmitterAndNameTheirPaths) {
  TempDir tmp;
  const fs::path org = tree_submission(tmp);
  write_file(tmp.path() / "notes.txt", "x");  // root: only *.md and *.pdf
  write_file(tmp.path() / "README.md", "x");
  write_file(tmp.path() / "closed/list.txt", "x");
  write_file(org / "code/llama2-70b-99/.hidden", "x");
  write_file(org / "code/llama2-70b-99/my notes.txt", "x");
  write_file(org / "code/llama2-70b-99/__pycache__/x.pyc", "x");
  fs::create_directories(org / "code/llama2-70b-99/empty");
  fs::create_symlink("no/such/target", org / "code/llama2-70b-99/dangling");
  std::vector<bool> drops;
  auto checks = judge_submission_tree(org, rules(), "v5.1", &drops);
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"root_files", "division_files", "broken_symlinks",
                                                      "git_unfriendly_names", "space_names", "pycache", "empty_dirs"}));
  EXPECT_EQ(check(checks, "root_files")->value, json::array({"notes.txt"}));
  EXPECT_EQ(check(checks, "root_files")->file, (tmp.path() / "notes.txt").string());
  EXPECT_EQ(check(checks, "division_files")->value, json::array({"closed/list.txt"}));
  EXPECT_EQ(check(checks, "broken_symlinks")->value, json::array({"closed/AMD/code/llama2-70b-99/dangling"}));
  EXPECT_EQ(check(checks, "git_unfriendly_names")->value, json::array({"closed/AMD/code/llama2-70b-99/.hidden"}));
  EXPECT_EQ(check(checks, "space_names")->value, json::array({"closed/AMD/code/llama2-70b-99/my notes.txt"}));
  EXPECT_EQ(check(checks, "pycache")->value, json::array({"closed/AMD/code/llama2-70b-99/__pycache__"}));
  EXPECT_EQ(check(checks, "empty_dirs")->value, json::array({"closed/AMD/code/llama2-70b-99/empty"}));
  EXPECT_TRUE(has(check(checks, "empty_dirs")->message, "none of its rows is published")) << check(checks, "empty_dirs")->message;
}

TEST(InferenceSubmission, SystemsWithoutResultsAndAMissingCalibrationFailOnlyTheSubmission) {
  TempDir tmp;
  const fs::path org = tree_submission(tmp);
  fs::remove(org / "calibration.md");
  write_file(org / "systems/Extra.json", "{}");
  write_file(org / "measurements/Extra/README.md", "x");
  std::vector<bool> drops;
  auto checks = judge_submission_tree(org, rules(), "v5.1", &drops);
  EXPECT_EQ(failed(checks), (std::vector<std::string>{"results_coverage", "calibration"}));
  EXPECT_EQ(check(checks, "results_coverage")->value,
            json::array({"closed/AMD/measurements/Extra", "closed/AMD/systems/Extra.json"}));
  EXPECT_EQ(drops.back(), false);
  // documentation/calibration.md is the other place the checker accepts.
  write_file(org / "documentation/calibration.md", "");
  EXPECT_TRUE(check(judge_submission_tree(org, rules(), "v5.1"), "calibration")->passed);
  // The open division needs no calibration documentation.
  TempDir open;
  const fs::path open_org = script_submission(open, "open");
  write_file(open_org / "results" / kSystem / "llama2-70b-99/Offline/x.txt", "x");
  system_copy(open, "open");
  EXPECT_EQ(check(judge_submission_tree(open_org, rules(), "v5.1"), "calibration"), nullptr);
}

}  // namespace
}  // namespace mlperf::inference
