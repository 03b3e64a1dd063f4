// accuracy/accuracy.txt judged as the submission checker's check_accuracy_dir judges it, with
// the shipped rules (configs/inference_accuracy.json) and AMD's real v4.1 and v5.1 files from
// data/examples (copied from mlcommons/inference_results_v4.1 and _v5.1).

#include "mlperf/inference/accuracy.h"

#include <gtest/gtest.h>

#include <regex>

#include "../test_support.h"
#include "mlperf/inference/score.h"
#include "mlperf/mllog/discovery.h"

namespace mlperf::inference {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::source_dir;
using testing::TempDir;
using testing::write_file;

const AccuracyRules& rules() {
  static const AccuracyRules r = AccuracyRules::load(source_dir() / "configs/inference_accuracy.json");
  return r;
}

const fs::path kLlama = "data/examples/inference_results_v5.1/closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99";
const fs::path kSdxl = "data/examples/inference_results_v5.1/closed/AMD/results/8xMI325x_2xEPYC-9655/stable-diffusion-xl";

const ValidityCheck* check(const AccuracyResult& a, const std::string& name) {
  for (const auto& c : a.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// A copy of a real accuracy folder's accuracy.txt with the first match of `from` (a regular
// expression) replaced by `to`.
fs::path mutant(const TempDir& tmp, const fs::path& folder, const std::string& from, const std::string& to) {
  const std::string original = read_file(source_dir() / folder / "accuracy/accuracy.txt");
  std::string text = std::regex_replace(original, std::regex(from), to, std::regex_constants::format_first_only);
  EXPECT_NE(text, original) << from;
  write_file(tmp.path() / "accuracy/accuracy.txt", text);
  return tmp.path() / "accuracy";
}

TEST(Accuracy, RulesHoldTheCheckersTargetsAsPythonComputesThem) {
  const RoundAccuracyRules& v51 = rules().rounds.at("v5.1");
  const auto* llama = v51.targets_of("llama2-70b-99", "Offline");
  ASSERT_NE(llama, nullptr);
  ASSERT_EQ(llama->size(), 4u);
  EXPECT_EQ((*llama)[0].metric, "ROUGE1");
  EXPECT_EQ((*llama)[0].value, 44.4312 * 0.99);
  EXPECT_EQ((*llama)[3].metric, "TOKENS_PER_SAMPLE");
  EXPECT_EQ((*llama)[3].value, 294.45 * 0.9);
  EXPECT_EQ(v51.upper_limits.at("stable-diffusion-xl")[1].value, 23.95007626);
  EXPECT_EQ(v51.max_accuracy_log_size, 10240u);
  EXPECT_EQ(rules().rounds.at("v4.1").accuracy_column, "first_value");
  // v6.1 has targets per scenario for some models.
  const RoundAccuracyRules& v61 = rules().rounds.at("v6.1");
  ASSERT_NE(v61.targets_of("qwen3-vl-235b-a22b", "Interactive"), nullptr);
  EXPECT_EQ(v61.targets_of("qwen3-vl-235b-a22b", "Interactive")->at(0).metric, "F1_HIERARCHICAL");
  EXPECT_EQ(v61.targets_of("no-such-model", "Offline"), nullptr);
}

TEST(Accuracy, PythonBracesThatAreNoQuantifierAreLiterals) {
  // ACC_PATTERN["F1"] starts with a literal `{`; std::regex would reject it as written.
  std::string f1 = R"(^{[\"\']exact_match[\"\']\:\s*[\d\.]+,\s*[\"\']f1[\"\']\:\s*([\d\.]+)})";
  std::regex re(python_regex_to_ecmascript(f1));
  std::smatch m;
  std::string line = R"({"exact_match": 83.6, "f1": 90.87})";
  ASSERT_TRUE(std::regex_search(line, m, re, std::regex_constants::match_continuous));
  EXPECT_EQ(m[1].str(), "90.87");
  EXPECT_EQ(python_regex_to_ecmascript("a{2,3}b{}"), "a{2,3}b\\{\\}");
  EXPECT_EQ(python_regex_to_ecmascript("[{}]x"), "[{}]x");
}

// A line without a pattern's required text is passed over without running the regular
// expression: the text must be in every match, and the answers stay re.match's.
TEST(Accuracy, APatternsRequiredTextIsInEveryLineItMatches) {
  EXPECT_EQ(required_literal(R"(.*'rouge1':\s+'?([\d.]+)'?.*)"), "'rouge1':");
  EXPECT_EQ(required_literal(R"(^AUC=([\d\.]+).*)"), "AUC=");
  EXPECT_EQ(required_literal(R"(Word Error Rate\:.*, accuracy=([0-9\.]+)%)"), "Word Error Rate:");
  EXPECT_EQ(required_literal(R"(^{[\"\']exact_match[\"\']\:\s*[\d\.]+,\s*[\"\']f1[\"\']\:\s*([\d\.]+)})"), "exact_match");
  EXPECT_EQ(required_literal(R"(.*(?:mAP=|'Total':)\s*([\d.]+))"), "");  // only inside a group
  EXPECT_EQ(required_literal("abc|abd"), "");                             // a top-level alternative
  EXPECT_EQ(required_literal("(?i)rouge1: (x)"), "");                      // a flag
  EXPECT_EQ(required_literal("(?:a)(?i)rouge1: (x)"), "");
  EXPECT_EQ(required_literal("abcd?e"), "abc");    // d is optional
  EXPECT_EQ(required_literal("xy{2,3}zzzz"), "zzzz");
  EXPECT_EQ(required_literal(R"([a\]bcdef]gh)"), "gh");  // a class with an escaped bracket
  EXPECT_EQ(required_literal(R"(\d\d\.)"), ".");

  // Every pattern of every round against lines that match, nearly match and do not.
  const std::vector<std::string> lines = {
      R"({'rouge1': 44.5302, 'rouge2': 22.1844, 'rougeL': 28.6, 'rougeLsum': 42.1, 'gen_len': 27615466, 'gen_num': 24576, 'gsm8k': 73.78, 'mbxp': 60.16, 'tokens_per_sample': 294.4, 'exact_match': 90.1})",
      "{'FID_SCORE': '23.01', 'CLIP_SCORE': '31.75'}", "AUC=80.31%", "mAP=37.55%", "'Total': 0.95", "BLEU: 26.3",
      R"({"exact_match": 83.6, "f1": 90.87})", "Word Error Rate: 2.03%, accuracy=97.96%", "Accuracy: mean = 0.8621",
      R"({"accuracy": 76.078, "good": 38039})", "accuracy=76.078%, good=38039, total=50000", "'mean-accuracy': '0.72'",
      "rouge1: 44.5", "'rouge1':", "", "hash=0123abcd",
      // Where a split pattern's text occurs more than once, R fails at the rightmost place, or
      // a carriage return stops the leading `.*`.
      "{'rouge1': 1.5, 'rouge1': 2.5, 'rougeL': 3, 'rougeL': x}", "'rouge1': 3\r'rouge1': 4", "'rouge1':  'x",
      "'mean-accuracy': '0.5' 'mean-accuracy': 0.7 'mean-accuracy':", "'gen_len': 5'gen_len': 6",
      "'tokens_per_sample': 12 'tokens_per_sample': 13.5 'tokens_per_sample':x", "mAP=1 'Total': 2 mAP=3x",
      "'FID_SCORE': '1' 'FID_SCORE':  '2', 'CLIP_SCORE': 3 'CLIP_SCORE':"};
  std::size_t patterns = 0, matched = 0;
  for (const auto& [round, r] : rules().rounds) {
    for (const auto& [metric, pattern] : r.patterns) {
      ++patterns;
      for (const auto& line : lines) {
        std::smatch m;
        const bool hit = std::regex_search(line, m, pattern.regex(), std::regex_constants::match_continuous) &&
                         m.size() > 1 && m[1].matched;
        EXPECT_EQ(pattern.first_group(line), hit ? std::optional<std::string>(m[1].str()) : std::nullopt)
            << round << " " << metric << ": " << line;
        if (hit) {
          ++matched;
          EXPECT_NE(line.find(pattern.required), std::string::npos) << metric;
        }
      }
    }
  }
  EXPECT_GT(patterns, 50u);
  EXPECT_GT(matched, 20u);
  EXPECT_EQ(rules().rounds.at("v5.1").patterns.at("ROUGE1").required, "'rouge1':");
}

// `.*R` patterns split into R (without a trailing `.*`) and the text R starts with; none
// where R could depend on the text before it.
TEST(Accuracy, LeadingAnyPatternsSplitWhereTheSplitIsExact) {
  auto split = [](const std::string& p) { return split_leading_any(p); };
  ASSERT_TRUE(split(R"(.*'rouge1':\s+'?([\d.]+)'?.*)"));
  EXPECT_EQ(split(R"(.*'rouge1':\s+'?([\d.]+)'?.*)")->rest, R"('rouge1':\s+'?([\d.]+)'?)");
  EXPECT_EQ(split(R"(.*'rouge1':\s+'?([\d.]+)'?.*)")->prefix, "'rouge1':");
  EXPECT_EQ(split(R"(.*Accuracy\:\s*x)")->prefix, "Accuracy:");     // an escaped mark is plain text
  EXPECT_EQ(split(R"(.*abc?d(x))")->prefix, "ab");                   // c is optional
  EXPECT_EQ(split(R"(.*ab\.*)")->rest, R"(ab\.*)");                 // an escaped dot repeated stays
  EXPECT_EQ(split(R"(.*a([.*]))")->rest, R"(a([.*]))");               // in a class: no trailing `.*`
  EXPECT_EQ(split(".*a(x).*")->rest, "a(x)");
  EXPECT_FALSE(split(R"(.*(?:mAP=|'Total':)\s*([\d.]+))"));         // no leading text
  EXPECT_FALSE(split(R"(^AUC=([\d\.]+).*)"));                       // no leading `.*`
  EXPECT_FALSE(split(".*?a(x)"));                                     // lazy
  EXPECT_FALSE(split(".*a(x)|b(y)"));                                 // a top-level alternative
  EXPECT_FALSE(split(".*a\\b(x)"));                                   // a word boundary looks back
  EXPECT_FALSE(split(".*a(x)\\1"));                                   // a back reference
  EXPECT_FALSE(split(".*(?i)a(x)"));                                  // a flag
  EXPECT_FALSE(split(".*a^(x)"));
}

// A pattern is compiled when first used, once for all its copies; one that does not compile
// fails where it is used, naming the checker's text.
TEST(Accuracy, APatternCompilesWhenFirstUsed) {
  const AccuracyPattern good("'acc': ([\\d.]+)", python_regex_to_ecmascript("'acc': ([\\d.]+)"), "'acc': ");
  const AccuracyPattern copy = good;
  EXPECT_EQ(copy.first_group("'acc': 76.5,"), std::optional<std::string>("76.5"));
  EXPECT_EQ(&good.regex(), &copy.regex());
  EXPECT_EQ(good.first_group("'f1': 1"), std::nullopt);
  const AccuracyPattern bad("acc=([", "acc=([", "acc=");
  EXPECT_EQ(bad.first_group("no such text"), std::nullopt);  // the required text decides first
  try {
    (void)bad.first_group("acc=1");
    FAIL() << "a pattern that does not compile was used";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("acc=(["), std::string::npos) << e.what();
  }
}

TEST(Accuracy, RealLlamaAndSdxlRunsMeetTheirTargets) {
  AccuracyResult llama =
      judge_accuracy(source_dir() / kLlama / "Offline/accuracy", rules().rounds.at("v5.1"), "llama2-70b-99", "Offline", "closed");
  EXPECT_TRUE(llama.valid);
  EXPECT_EQ(llama.column, "ROUGE1: 44.4465  ROUGE2: 22.0638  ROUGEL: 28.625  TOKENS_PER_SAMPLE: 301.1");
  ASSERT_NE(check(llama, "ROUGE1"), nullptr);
  EXPECT_EQ(check(llama, "ROUGE1")->value, 44.4465);
  EXPECT_EQ(check(llama, "hash")->value, "67fdbd042a4bcb16775c8f216fca75deb2eaf5ae8c19344f328c650faaa830b5");
  EXPECT_TRUE(check(llama, "TOKENS_PER_SAMPLE_upper_limit")->passed);

  AccuracyResult sdxl = judge_accuracy(source_dir() / kSdxl / "Offline/accuracy", rules().rounds.at("v5.1"),
                                       "stable-diffusion-xl", "Offline", "closed");
  EXPECT_TRUE(sdxl.valid);
  ASSERT_EQ(sdxl.metrics.size(), 2u);
  EXPECT_EQ(sdxl.metrics[0].first, "CLIP_SCORE");
  EXPECT_EQ(sdxl.metrics[1].first, "FID_SCORE");
  EXPECT_EQ(check(sdxl, "FID_SCORE_upper_limit")->limit, "<= 23.95007626");
}

TEST(Accuracy, AMissedTargetFailsClosedAndIsAWarningInOpen) {
  TempDir tmp;
  fs::path dir = mutant(tmp, kLlama / "Offline", "'rouge1': 44\\.4465", "'rouge1': 10.0");
  AccuracyResult closed = judge_accuracy(dir, rules().rounds.at("v5.1"), "llama2-70b-99", "Offline", "closed");
  EXPECT_FALSE(closed.valid);
  const ValidityCheck* rouge1 = check(closed, "ROUGE1");
  ASSERT_NE(rouge1, nullptr);
  EXPECT_FALSE(rouge1->passed);
  EXPECT_EQ(rouge1->value, 10.0);
  EXPECT_EQ(rouge1->line, 4u);
  EXPECT_NE(rouge1->message.find("target is at least 43.98688799999999"), std::string::npos) << rouge1->message;
  EXPECT_EQ(closed.column, "ROUGE1: 10.0  ROUGE2: 22.0638  ROUGEL: 28.625  TOKENS_PER_SAMPLE: 301.1");

  AccuracyResult open = judge_accuracy(dir, rules().rounds.at("v5.1"), "llama2-70b-99", "Offline", "open");
  EXPECT_TRUE(open.valid);  // "accuracy not valid but taken for open"
  ASSERT_EQ(open.warnings.size(), 1u);
}

TEST(Accuracy, AnUpperLimitExceededOrAMissingHashFails) {
  TempDir fid_dir;
  AccuracyResult fid = judge_accuracy(mutant(fid_dir, kSdxl / "Offline", "'FID_SCORE': '[0-9.]+'", "'FID_SCORE': '40.5'"),
                                      rules().rounds.at("v5.1"), "stable-diffusion-xl", "Offline", "closed");
  EXPECT_FALSE(fid.valid);
  EXPECT_FALSE(check(fid, "FID_SCORE_upper_limit")->passed);
  EXPECT_TRUE(check(fid, "FID_SCORE")->passed);  // above its lower bound

  TempDir hash_dir;
  AccuracyResult no_hash = judge_accuracy(mutant(hash_dir, kLlama / "Offline", "hash=", "hash "),
                                          rules().rounds.at("v5.1"), "llama2-70b-99", "Offline", "closed");
  EXPECT_FALSE(no_hash.valid);
  EXPECT_FALSE(check(no_hash, "hash")->passed);
  EXPECT_TRUE(check(no_hash, "ROUGE1")->passed);
}

// The hash line is the whole line hash=([\w\d]+): ASCII letters, digits and '_' after "hash=",
// at least one; any other line is not the hash line.
TEST(Accuracy, TheHashLineIsHashEqualsWordCharactersOnly) {
  struct Case {
    const char* line;
    bool found;
  };
  for (const Case& c : {Case{"hash=ab_CD09", true}, Case{"hash=0", true}, Case{"hash=ab-cd", false},
                        Case{"hash=", false}, Case{"hash=ab cd", false}, Case{"hash=caf\xc3\xa9", false},
                        Case{"xhash=abc", false}}) {
    TempDir dir;
    AccuracyResult a = judge_accuracy(mutant(dir, kLlama / "Offline", "hash=[0-9a-f]+", c.line), rules().rounds.at("v5.1"),
                                      "llama2-70b-99", "Offline", "closed");
    const ValidityCheck* hash = check(a, "hash");
    ASSERT_NE(hash, nullptr) << c.line;
    EXPECT_EQ(hash->passed, c.found) << c.line;
    if (c.found) EXPECT_EQ(hash->value, std::string(c.line).substr(5)) << c.line;
  }
}

// An accuracy.txt that opens but cannot be read (a folder) fails with a read error, after the
// rest of the run's checks that need no line of it.
TEST(Accuracy, AnAccuracyFileThatCannotBeReadIsAReadError) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "accuracy/accuracy.txt");
  AccuracyResult a = judge_accuracy(tmp.path() / "accuracy", rules().rounds.at("v5.1"), "llama2-70b-99", "Offline", "closed");
  EXPECT_FALSE(a.valid);
  ASSERT_EQ(a.checks.size(), 1u);
  EXPECT_EQ(a.checks[0].name, "accuracy_txt");
  EXPECT_NE(a.checks[0].message.find("read error"), std::string::npos) << a.checks[0].message;
  EXPECT_EQ(a.file, (tmp.path() / "accuracy/accuracy.txt").string());
}

TEST(Accuracy, V41ShowsTheFirstTargetsValueAlone) {
  const fs::path dir = source_dir() /
                       "data/examples/inference_results_v4.1/closed/AMD/results/8xMI300X_2xEPYC-9374F/llama2-70b-99.9/"
                       "Offline/accuracy";
  AccuracyResult a = judge_accuracy(dir, rules().rounds.at("v4.1"), "llama2-70b-99.9", "Offline", "closed");
  EXPECT_TRUE(a.valid);
  EXPECT_EQ(a.column, "44.5633");
  EXPECT_EQ(a.metrics.size(), 4u);
}

TEST(Accuracy, AScenarioFolderWithoutItsAccuracyRunIsInvalid) {
  TempDir tmp;
  fs::path scenario = tmp.path() / "inference_v5.1/closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline";
  fs::create_directories(scenario / "performance/run_1");
  for (const char* log : {"mlperf_log_detail.txt", "mlperf_log_summary.txt"}) {
    fs::copy_file(source_dir() / kLlama / "Offline/performance/run_1" / log, scenario / "performance/run_1" / log);
  }
  testing::complete_inference_submission(tmp.path() / "inference_v5.1/closed/AMD", "8xMI300X_2xEPYC_9575F",
                                         "llama2-70b-99", {"Offline"});
  DataContext data(source_dir());
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  ASSERT_EQ(dirs.size(), 1u);
  DirectoryResult without = score_inference_directory(dirs[0], data, ScoreOptions{});
  ASSERT_TRUE(without.inference && without.inference->accuracy);
  EXPECT_FALSE(without.inference->valid);
  EXPECT_FALSE(without.passed);
  EXPECT_EQ(without.inference->accuracy->checks.at(0).name, "accuracy_txt");

  // The whole accuracy run, and the TEST06 the checker asks of this model.
  fs::copy(source_dir() / kLlama / "Offline/accuracy", scenario / "accuracy", fs::copy_options::recursive);
  const std::string test06 = "compliance/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline/TEST06/verify_accuracy.txt";
  write_file(tmp.path() / "inference_v5.1/closed/AMD" / test06,
             read_file(source_dir() / "data/examples/inference_results_v5.1/closed/AMD" / test06));
  DirectoryResult with = score_inference_directory(dirs[0], data, ScoreOptions{});
  EXPECT_TRUE(with.inference->valid);
  EXPECT_TRUE(with.passed);
  // Offline alone: the checker keeps the row, the submission lacks Server or Interactive.
  EXPECT_FALSE(with.inference->submission_valid);
}

TEST(Accuracy, OpenDivisionModelsAreMappedByTheSubmittersModelMapping) {
  TempDir tmp;
  fs::path scenario = tmp.path() / "open/Org/results/sys/llama3_1-70b-fp8_dyn/Offline";
  fs::create_directories(scenario);
  write_file(tmp.path() / "open/Org/model_mapping.json", R"({"llama3_1-70b-fp8_dyn": "llama2-70b-99.9"})");
  EXPECT_EQ(mapped_model(scenario, "llama3_1-70b-fp8_dyn"), "llama2-70b-99.9");
  EXPECT_EQ(mapped_model(scenario, "other"), "other");
  EXPECT_EQ(mapped_model(tmp.path() / "x/y", "m"), "m");
  // A mapping that is not an object, a member that is not a string, a file that is not JSON.
  write_file(tmp.path() / "open/Org/model_mapping.json", R"({"a": 1, "b": "resnet"})");
  EXPECT_EQ(mapped_model(scenario, "a"), "a");
  EXPECT_EQ(mapped_model(scenario, "b"), "resnet");
  write_file(tmp.path() / "open/Org/model_mapping.json", R"(["b", "resnet"])");
  EXPECT_EQ(mapped_model(scenario, "b"), "b");
  write_file(tmp.path() / "open/Org/model_mapping.json", "{\"b\": ");
  EXPECT_EQ(mapped_model(scenario, "b"), "b");
}

// The scoring stage reads a submitter's model_mapping.json, its system descriptions and the
// scenario folders of a model once: later changes to those files are not seen, the answers
// are the uncached functions'.
TEST(Accuracy, InferenceDataReadsASubmittersSharedFilesOnce) {
  TempDir tmp;
  const InferenceData data = load_inference_data(source_dir());
  fs::path scenario = tmp.path() / "open/Org/results/sys/llama3_1-70b-fp8_dyn/Offline";
  fs::create_directories(scenario);
  fs::create_directories(scenario.parent_path() / "Server");
  write_file(scenario.parent_path() / "README.md", "not a folder");
  write_file(tmp.path() / "open/Org/model_mapping.json", R"({"llama3_1-70b-fp8_dyn": "llama2-70b-99.9"})");
  EXPECT_EQ(data.mapped_model_of(scenario, "llama3_1-70b-fp8_dyn"), "llama2-70b-99.9");
  EXPECT_EQ(data.mapped_model_of(scenario, "other"), "other");
  EXPECT_EQ(data.scenario_folders_of(scenario.parent_path()), (std::set<std::string>{"Offline", "Server"}));
  const fs::path system_json = source_dir() / "data/examples/inference_results_v5.1/closed/AMD/systems/8xMI325x_2xEPYC-9655.json";
  const std::vector<ValidityCheck> judged = judge_system_description(system_json, data.submission, "v5.1", "closed");
  const std::vector<ValidityCheck>& kept = data.system_checks_of(system_json, "v5.1", "closed");
  ASSERT_EQ(kept.size(), judged.size());
  ASSERT_FALSE(kept.empty());
  for (std::size_t k = 0; k < kept.size(); ++k) {
    EXPECT_EQ(kept[k].name, judged[k].name);
    EXPECT_EQ(kept[k].passed, judged[k].passed);
    EXPECT_EQ(kept[k].value, judged[k].value);
    EXPECT_EQ(kept[k].file, judged[k].file);
  }
  EXPECT_EQ(&data.system_checks_of(system_json, "v5.1", "closed"), &kept);
  EXPECT_NE(&data.system_checks_of(system_json, "v5.1", "open"), &kept);  // per division
  // The part the scenario folders share: all but network_mode, and what it says.
  const InferenceData::SystemJudgment& judgment = data.system_judgment_of(system_json, "v5.1", "closed");
  EXPECT_EQ(&judgment.checks, &kept);
  ASSERT_TRUE(judgment.shared);
  std::vector<std::string> shared_names, expected_names;
  for (const auto& c : *judgment.shared) shared_names.push_back(c.name);
  bool any_failed = false;
  for (const auto& c : judged) {
    if (c.name == "network_mode") continue;
    expected_names.push_back(c.name);
    any_failed = any_failed || !c.passed;
    if (c.name == "system_type") EXPECT_EQ(judgment.system_type, c.value.get<std::string>());
    if (c.name == "system_description") EXPECT_EQ(judgment.description_read, c.passed);
  }
  EXPECT_EQ(shared_names, expected_names);
  EXPECT_LT(shared_names.size(), judged.size());  // network_mode left out
  EXPECT_EQ(judgment.any_failed, any_failed);
  EXPECT_TRUE(judgment.description_read);
  EXPECT_FALSE(judgment.system_type.empty());
  EXPECT_THROW(data.system_checks_of(system_json, "v0.1", "closed"), std::invalid_argument);

  fs::remove(tmp.path() / "open/Org/model_mapping.json");
  fs::create_directories(scenario.parent_path() / "SingleStream");
  EXPECT_EQ(data.mapped_model_of(scenario, "llama3_1-70b-fp8_dyn"), "llama2-70b-99.9");
  EXPECT_EQ(data.scenario_folders_of(scenario.parent_path()).size(), 2u);
  EXPECT_EQ(mapped_model(scenario, "llama3_1-70b-fp8_dyn"), "llama3_1-70b-fp8_dyn");
}

}  // namespace
}  // namespace mlperf::inference
