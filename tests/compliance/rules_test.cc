// The rule engine, one family of the official checker's behaviour per test (mlp_compliance.py
// configured_checks / check_loglines, mlp_parser): small configs written here, lines fed
// through LogReader as read_run feeds it.

#include "mlperf/compliance/rules.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "../test_support.h"

namespace mlperf::compliance {
namespace {

namespace fs = std::filesystem;
using testing::rs;
using testing::TempDir;
using testing::write_file;

// A rules root with training_9.9.9/<name>.yaml for each (name, text).
class RulesTest : public ::testing::Test {
 protected:
  void config(const std::string& name, const std::string& text) {
    fs::create_directories(tmp.path() / "training_9.9.9");
    write_file(tmp.path() / "training_9.9.9" / (name + ".yaml"), text);
  }

  // Feeds `payloads` (JSON after ":::MLLOG ") as lines 1, 2, … and judges under 9.9.9.
  LogVerdict judge(const std::vector<std::string>& payloads, bool record_blocks = false) {
    library = RuleLibrary::load(tmp.path());
    LogReader reader(library, rs("9.9.9"), record_blocks);
    std::uint64_t line = 0;
    for (const auto& p : payloads) {
      ++line;
      auto doc = nlohmann::json::parse(p, nullptr, false);
      if (doc.is_discarded()) {
        reader.add_parse_error(line, "bad JSON");
        continue;
      }
      reader.add_event(doc["key"].get<std::string>(), doc["time_ms"].get<double>(), line, p);
    }
    return reader.finish();
  }

  // As judge, with the lines read as read_run reads them: through one MllogScanner (which
  // learns their shapes), v given to the configs as text (LineText).
  LogVerdict judge_scanned(const std::vector<std::string>& payloads) {
    library = RuleLibrary::load(tmp.path());
    LogReader reader(library, rs("9.9.9"));
    MllogScanner scanner;
    EventView view;
    std::uint64_t line = 0;
    for (const auto& p : payloads) {
      ++line;
      const std::string text = ":::MLLOG " + p;
      EXPECT_EQ(scanner.scan(text, view, 0), ScanKind::kEvent) << p;
      view.line = line;
      reader.add_event(view, text, 0);
    }
    return reader.finish();
  }

  static std::string ev(const std::string& key, const std::string& value, const std::string& metadata = "{}",
                        long long time_ms = 1000) {
    return fmt::format(R"({{"time_ms": {}, "key": "{}", "value": {}, "metadata": {}}})", time_ms, key, value, metadata);
  }

  static std::vector<std::string> messages(const LogVerdict& v) {
    std::vector<std::string> out;
    for (const auto& f : v.findings) out.push_back(fmt::format("{}{}:{}", f.error ? "E" : "W", f.line, f.message));
    return out;
  }

  TempDir tmp;
  RuleLibrary library;
};

// What a line's key has rules for is kept per thread for the scanner shape, from log to log:
// logs read by one scanner under two libraries in turn (one has a rule for `step`, the other
// none) are each judged by their own library's rules.
// Config files read as PyYAML reads them (libyaml): scalar styles, a list or one expression,
// an empty or null document; text that is no YAML, or records of the wrong form, fail naming
// the file and the line.
TEST(ConfigYaml, ScalarsListsAndErrorsAsPyYamlReadsThem) {
  const ConfigFile c = parse_config(R"(- BEGIN:
    CODE: >
        s.update({'a': 1})
- KEY:
    NAME:  opt_name 
    REQ:   AT_LEAST(2)
    CHECK:
        - "v['value'] in ['sgd',
           'lamb']"
        - 'v["value"] != ''x'''
    POST: |
        s['n'] = 1
        s['m'] = 2
- KEY:
    NAME: eval_accuracy
    REQ: AT_LEAST_ONE
    ATLEAST_ONE_CHECK: v['value'] < 1.0
      and v['value'] > 0.0
- END:
    CHECK: s['n'] == 1
)",
                                    "training_9.9.9/closed_x.yaml");
  ASSERT_EQ(c.keys.size(), 2u);
  EXPECT_EQ(c.division, "closed");
  ASSERT_TRUE(c.begin);
  EXPECT_EQ(c.begin->text(), "s.update({'a': 1})");  // code is kept without its last newline
  EXPECT_EQ(c.keys[0].name, "opt_name");
  EXPECT_EQ(c.keys[0].req.kind, Requirement::kAtLeast);
  EXPECT_EQ(c.keys[0].req.at_least, 2);
  ASSERT_EQ(c.keys[0].checks.size(), 2u);
  EXPECT_EQ(c.keys[0].checks[0].text(), "v['value'] in ['sgd', 'lamb']");  // the line break folded
  EXPECT_EQ(c.keys[0].checks[1].text(), "v[\"value\"] != 'x'");
  ASSERT_TRUE(c.keys[0].post);
  EXPECT_EQ(c.keys[0].post->text(), "s['n'] = 1\ns['m'] = 2");
  ASSERT_TRUE(c.keys[1].atleast_one_check);
  EXPECT_EQ(c.keys[1].atleast_one_check->text(), "v['value'] < 1.0 and v['value'] > 0.0");
  ASSERT_EQ(c.end_checks.size(), 1u);

  EXPECT_TRUE(parse_config("", "training_9.9.9/empty.yaml").keys.empty());
  EXPECT_TRUE(parse_config("~\n", "training_9.9.9/null.yaml").keys.empty());
  auto error = [](const std::string& text) {
    try {
      parse_config(text, "training_9.9.9/bad.yaml");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string not_yaml = error("- KEY:\n    NAME: [x\n");
  EXPECT_EQ(not_yaml.rfind("training_9.9.9/bad.yaml: not YAML: ", 0), 0u) << not_yaml;
  EXPECT_NE(not_yaml.find("(line 3, column 1)"), std::string::npos) << not_yaml;
  EXPECT_EQ(error("KEY: x\n"), "training_9.9.9/bad.yaml: not a list of records");
  EXPECT_EQ(error("- KEY:\n    REQ: OPTIONAL\n"), "training_9.9.9/bad.yaml (line 2): KEY without NAME");
  EXPECT_EQ(error("- KEY: {NAME: a}\n  END: {}\n"),
            "training_9.9.9/bad.yaml (line 1): a record must be one of KEY, BEGIN, END");
  EXPECT_EQ(error("- KEY:\n    NAME: [a, b]\n"), "training_9.9.9/bad.yaml KEY (line 2): not text");
}

TEST_F(RulesTest, KeyIdsKeptForAShapeFollowTheLibraryOfEachLog) {
  config("common", R"(
- KEY:
    NAME: step
    REQ: AT_LEAST_ONE
    CHECK: " v['value'] < 0 "
)");
  const RuleLibrary ruled = RuleLibrary::load(tmp.path());
  // Its only key takes the id `step` has in the other library: a kept id read under the
  // wrong library would judge `step` lines by this failing check.
  config("common", R"(
- KEY:
    NAME: other
    REQ: OPTIONAL
    CHECK: " v['value'] < 0 "
)");
  const RuleLibrary unruled = RuleLibrary::load(tmp.path());
  MllogScanner scanner;
  EventView view;
  auto read = [&](const RuleLibrary& lib) {
    LogReader reader(lib, rs("9.9.9"));
    std::uint64_t line = 0;
    for (const std::string& p : {ev("step", "1"), ev("step", "2")}) {
      const std::string text = ":::MLLOG " + p;
      EXPECT_EQ(scanner.scan(text, view, 0), ScanKind::kEvent);
      view.line = ++line;
      reader.add_event(view, text, 0);
    }
    return reader.finish();
  };
  for (int round = 0; round < 2; ++round) {
    const LogVerdict with_rule = read(ruled);
    EXPECT_EQ(with_rule.findings.size(), 2u) << round;  // v['value'] < 0 fails on both lines
    EXPECT_FALSE(with_rule.compliant);
    const LogVerdict without = read(unruled);
    EXPECT_TRUE(without.compliant) << round << ": " << ::testing::PrintToString(messages(without));
  }
}

// LogVerdict::blocks_run names the blocks that ran, as ConfigFile::blocks() names them: a key
// never logged runs none of its blocks; a record replaced by a later one of the same NAME is
// not a block; END CHECK runs once the lines are read.
TEST_F(RulesTest, BlocksRunNameEveryEvaluatedBlockAndNoOther) {
  config("common", R"(
- BEGIN:
    CODE: " s['n'] = 0 "
- KEY:
    NAME: a
    REQ: AT_LEAST_ONE
    CHECK: " v['value'] < 0 "
- KEY:
    NAME: a
    REQ: AT_LEAST_ONE
    PRE: " s['n'] += 1 "
    CHECK: " v['value'] > 0 "
    POST: " s['last'] = v['value'] "
- KEY:
    NAME: b
    REQ: OPTIONAL
    CHECK: " v['value'] > 0 "
    FIRST_CHECK: " v['value'] == 1 "
- KEY:
    NAME: c
    REQ: OPTIONAL
    ATLEAST_ONE_CHECK: " v['value'] == 3 "
- END:
    CHECK: " s['n'] == 2 "
)");
  auto v = judge({ev("a", "1"), ev("a", "2"), ev("c", "3")}, true);
  EXPECT_TRUE(v.compliant) << ::testing::PrintToString(messages(v));
  // The first record of `a` is replaced: only the later one is in force (and is what find gives).
  const ConfigFile& file = *library.config("training_9.9.9/common.yaml");
  ASSERT_EQ(file.keys.size(), 4u);
  EXPECT_FALSE(file.in_force(0));
  EXPECT_TRUE(file.in_force(1));
  EXPECT_TRUE(file.in_force(2));
  EXPECT_TRUE(file.in_force(3));
  EXPECT_FALSE(file.in_force(4));
  EXPECT_EQ(file.find("a"), &file.keys[1]);
  const std::string c = "training_9.9.9/common.yaml: ";
  EXPECT_EQ(v.blocks_run, (std::vector<std::string>{c + "BEGIN", c + "END CHECK", c + "KEY a CHECK", c + "KEY a POST",
                                                    c + "KEY a PRE", c + "KEY c ATLEAST_ONE_CHECK"}));
  EXPECT_EQ(library.config("training_9.9.9/common.yaml")->blocks(),
            (std::vector<std::string>{"BEGIN", "KEY a PRE", "KEY a CHECK", "KEY a POST", "KEY b CHECK",
                                      "KEY b FIRST_CHECK", "KEY c ATLEAST_ONE_CHECK", "END CHECK"}));
  // A failing block has run too; without record_blocks nothing is listed.
  auto failing = judge({ev("a", "-1"), ev("b", "2")}, true);
  EXPECT_FALSE(failing.compliant);
  EXPECT_EQ(failing.blocks_run,
            (std::vector<std::string>{c + "BEGIN", c + "END CHECK", c + "KEY a CHECK", c + "KEY a POST", c + "KEY a PRE",
                                      c + "KEY b CHECK", c + "KEY b FIRST_CHECK"}));
  EXPECT_TRUE(judge({ev("a", "1")}).blocks_run.empty());
}

// A finding prints v['metadata'] as Python's repr prints what json.loads made of the line: its
// keys in the order of the text, not sorted by name. Both ways a line reaches the rules give
// that order: the fast scanner's (LineText) and the full parser's payload (judge), which
// read_run uses for the lines the scanner declines (fuzz_compliance_log found them apart).
TEST_F(RulesTest, AFindingPrintsADictInTheOrderOfTheLogLine) {
  config("common", R"(
- KEY:
    NAME: block_stop
    REQ: AT_LEAST_ONE
    CHECK: "'samples_count' in v['metadata']"
)");
  const std::string in_order = R"({"samples_cgunt": 2688, "curr_global_step": 336, "self.gbs": 8})";
  const std::string expected =
      "E1:block_stop must satisfy `'samples_count' in v['metadata']` (training_9.9.9/common.yaml); found "
      "v['metadata'] = {'samples_cgunt': 2688, 'curr_global_step': 336, 'self.gbs': 8}";
  EXPECT_EQ(messages(judge({ev("block_stop", "null", in_order)})), std::vector<std::string>{expected});
  EXPECT_EQ(messages(judge_scanned({ev("block_stop", "null", in_order)})), std::vector<std::string>{expected});
  // A name given twice keeps its first place and its last value, as in a Python dict.
  EXPECT_EQ(messages(judge({ev("block_stop", "null", R"({"z": 1, "a": 2, "z": 3})")})),
            std::vector<std::string>{"E1:block_stop must satisfy `'samples_count' in v['metadata']` "
                                     "(training_9.9.9/common.yaml); found v['metadata'] = {'z': 3, 'a': 2}"});
  EXPECT_EQ(messages(judge({ev("block_stop", "null", R"({"b\"": 1, "a": 2})")})),
            std::vector<std::string>{"E1:block_stop must satisfy `'samples_count' in v['metadata']` "
                                     "(training_9.9.9/common.yaml); found v['metadata'] = {'b\"': 1, 'a': 2}"});
}

TEST_F(RulesTest, ExactlyOneAtLeastOneAtLeastNAndOptional) {
  config("common", R"(
- KEY:
    NAME: one
    REQ: EXACTLY_ONE
- KEY:
    NAME: some
    REQ: AT_LEAST_ONE
- KEY:
    NAME: two
    REQ: AT_LEAST(2)
- KEY:
    NAME: maybe
    REQ: OPTIONAL
)");
  auto v = judge({ev("one", "1"), ev("one", "1.0"), ev("two", "0")});
  EXPECT_FALSE(v.compliant);
  EXPECT_EQ(messages(v),
            (std::vector<std::string>{
                "E0:some must be logged at least once (training_9.9.9/common.yaml); found none",
                "E0:two must be logged at least 2 times (training_9.9.9/common.yaml); found 1",
                // 1 == 1.0 in Python: a repeat with the same value only warns.
                "W2:one must be logged exactly once (training_9.9.9/common.yaml); found 2 times with the same value 1 "
                "(a warning)",
            }));
  v = judge({ev("one", "1"), ev("one", "2"), ev("some", "0"), ev("two", "0"), ev("two", "0")});
  EXPECT_EQ(messages(v), std::vector<std::string>{"E2:one must be logged exactly once (training_9.9.9/common.yaml); "
                                                  "found 2 times with different values: 1, 2"});
  v = judge({ev("one", "1"), ev("some", "0"), ev("two", "0"), ev("two", "0")});
  EXPECT_TRUE(v.compliant);
  EXPECT_TRUE(v.findings.empty());
}

TEST_F(RulesTest, AtLeastOneOrIsOneFindingPerGroupOfAlternatives) {
  config("common", R"(
- KEY:
    NAME: block_start
    REQ: AT_LEAST_ONE_OR(epoch_start)
- KEY:
    NAME: epoch_start
    REQ: AT_LEAST_ONE_OR(block_start)
)");
  auto v = judge({ev("other", "0")});
  EXPECT_EQ(messages(v), std::vector<std::string>{"E0:block_start or epoch_start must be logged at least once "
                                                  "(training_9.9.9/common.yaml); found none"});
  EXPECT_TRUE(judge({ev("epoch_start", "0")}).compliant);
}

TEST_F(RulesTest, AtLeastOneOrSplitsItsAlternativesAtCommasAndTrimsThem) {
  config("common", R"(
- KEY:
    NAME: block_start
    REQ: AT_LEAST_ONE_OR( epoch_start ,run_stop,)
- KEY:
    NAME: epoch_start
    REQ: OPTIONAL
- KEY:
    NAME: run_stop
    REQ: OPTIONAL
)");
  auto v = judge({ev("other", "0")});
  EXPECT_EQ(messages(v), std::vector<std::string>{"E0:block_start or epoch_start or run_stop must be logged at least "
                                                  "once (training_9.9.9/common.yaml); found none"});
  EXPECT_TRUE(judge({ev("run_stop", "0")}).compliant);
  EXPECT_TRUE(judge({ev("epoch_start", "0")}).compliant);
}

TEST_F(RulesTest, ChecksRunOnEveryLineButSubmissionKeysOnlyOnTheFirst) {
  config("common", R"(
- KEY:
    NAME: submission_org
    CHECK: " v['value'] != '' "
- KEY:
    NAME: opt_name
    CHECK: " v['value'] == 'adamw' "
- KEY:
    NAME: samples
    CHECK:
        - "'samples_count' in v['metadata']"
        - "v['metadata']['samples_count'] > 0"
)");
  auto v = judge({ev("submission_org", "\"AMD\""), ev("submission_org", "\"\""), ev("opt_name", "\"adamw\""),
                  ev("opt_name", "\"sgd\""), ev("samples", "1", R"({"samples_count": 0})"), ev("samples", "1")});
  EXPECT_EQ(messages(v),
            (std::vector<std::string>{
                "E4:opt_name must be 'adamw' (training_9.9.9/common.yaml); found 'sgd'",
                "E5:samples must satisfy `v['metadata']['samples_count'] > 0` (training_9.9.9/common.yaml); found "
                "v['metadata']['samples_count'] = 0",
                "E6:samples must satisfy `'samples_count' in v['metadata']` (training_9.9.9/common.yaml); found "
                "v['metadata'] = {}",
                "E6:samples: the check `v['metadata']['samples_count'] > 0` cannot be evaluated (KeyError: "
                "'samples_count') (training_9.9.9/common.yaml)",
            }));
}

TEST_F(RulesTest, FirstCheckOnlyOnTheFirstLineAtLeastOneCheckOnAnyLine) {
  config("common", R"(
- KEY:
    NAME: eval_accuracy
    FIRST_CHECK: "v['metadata']['samples_count'] == 100"
    ATLEAST_ONE_CHECK: "v['value'] >= 0.72 and v['value'] < 1.0"
)");
  auto v = judge({ev("eval_accuracy", "0.5", R"({"samples_count": 100})"),
                  ev("eval_accuracy", "0.6", R"({"samples_count": 7})")});
  EXPECT_EQ(messages(v), std::vector<std::string>{"E2:some eval_accuracy must satisfy `v['value'] >= 0.72 and "
                                                  "v['value'] < 1.0` (training_9.9.9/common.yaml); none of the 2 did"});
  v = judge({ev("eval_accuracy", "0.5", R"({"samples_count": 99})"), ev("eval_accuracy", "0.75", R"({})")});
  EXPECT_EQ(messages(v), std::vector<std::string>{"E1:eval_accuracy must satisfy `v['metadata']['samples_count'] == "
                                                  "100` (training_9.9.9/common.yaml); found "
                                                  "v['metadata']['samples_count'] = 99"});
  // An ATLEAST_ONE_CHECK that raises stops the official checker: the log is rejected.
  v = judge({ev("eval_accuracy", "\"high\"", R"({"samples_count": 100})")});
  EXPECT_FALSE(v.compliant);
  ASSERT_EQ(v.findings.size(), 1u) << ::testing::PrintToString(messages(v));
  EXPECT_NE(v.findings[0].message.find("the official checker stops here"), std::string::npos);
}

// Lines read as read_run reads them (v as text): the first value of an EXACTLY_ONE key is
// kept as its text, and a repeat still warns or fails with the values as Python shows them.
TEST_F(RulesTest, ExactlyOneRepeatsOfScannedLines) {
  config("common", R"(
- KEY:
    NAME: one
    REQ: EXACTLY_ONE
- KEY:
    NAME: two
    REQ: EXACTLY_ONE
)");
  auto v = judge_scanned({ev("one", "1"), ev("one", "1.0"), ev("two", R"("adamw")")});
  EXPECT_EQ(messages(v), std::vector<std::string>{"W2:one must be logged exactly once (training_9.9.9/common.yaml); "
                                                  "found 2 times with the same value 1 (a warning)"});
  v = judge_scanned({ev("one", R"("a")"), ev("one", R"("b")"), ev("one", R"("a")"), ev("two", "{\"lr\": 0.5}")});
  EXPECT_EQ(messages(v), std::vector<std::string>{"E2:one must be logged exactly once (training_9.9.9/common.yaml); "
                                                  "found 3 times with different values: 'a', 'b'"});
  v = judge_scanned({ev("one", "[1, 2]"), ev("two", "null")});
  EXPECT_TRUE(v.findings.empty());
}

// BEGIN runs once when the config is read; every log starts from a copy of the state it
// made, so what one log's code does to it never reaches the next log.
TEST_F(RulesTest, EveryLogStartsFromTheStateBeginMade) {
  config("common", R"(
- BEGIN:
    CODE: " s.update({'seen': {}, 'count': 0}) "
- KEY:
    NAME: step
    POST: " s['seen'][str(ll.lineno)] = v['value']; s['count'] += 1 "
- KEY:
    NAME: run_stop
    CHECK: " len(s['seen']) == s['count'] and s['count'] <= 2 "
)");
  library = RuleLibrary::load(tmp.path());
  const ConfigFile* common = library.config("training_9.9.9/common.yaml");
  ASSERT_NE(common, nullptr);
  ASSERT_TRUE(common->begin_state.has_value());
  EXPECT_EQ(repr(*common->begin_state), "{'seen': {}, 'count': 0}");
  // Three logs read with this one library (judge() would load it anew).
  MllogScanner scanner;
  EventView view;
  for (int log = 0; log < 3; ++log) {
    LogReader reader(library, rs("9.9.9"));
    std::uint64_t line = 0;
    for (const std::string& p : {ev("step", "1"), ev("step", "2"), ev("run_stop", "null")}) {
      const std::string text = ":::MLLOG " + p;
      ASSERT_EQ(scanner.scan(text, view, 0), ScanKind::kEvent);
      view.line = ++line;
      reader.add_event(view, text, 0);
    }
    const LogVerdict v = reader.finish();
    EXPECT_TRUE(v.findings.empty()) << log << ": " << messages(v).at(0);
  }
  EXPECT_EQ(repr(*common->begin_state), "{'seen': {}, 'count': 0}");
  EXPECT_EQ(messages(judge({ev("step", "1"), ev("step", "2"), ev("step", "3"), ev("run_stop", "null")})).size(), 1u);
  // BEGIN code that enqueues a config, or raises, still runs per log (as the checker runs it).
  config("common", R"(
- BEGIN:
    CODE: " enqueue_config('training_9.9.9/other.yaml') "
)");
  config("other", "[]");
  library = RuleLibrary::load(tmp.path());
  EXPECT_FALSE(library.config("training_9.9.9/common.yaml")->begin_state.has_value());
  EXPECT_EQ(judge({ev("x", "1")}).configs,
            (std::vector<std::string>{"training_9.9.9/common.yaml", "training_9.9.9/other.yaml"}));
  config("common", R"(
- BEGIN:
    CODE: " s['a'] = 1; s['b'] = s['missing'] "
)");
  library = RuleLibrary::load(tmp.path());
  EXPECT_FALSE(library.config("training_9.9.9/common.yaml")->begin_state.has_value());
  EXPECT_FALSE(judge({ev("x", "1")}).compliant);
}

// ll.key is the line's key while it is read, and at the END record the key of the last line
// the config read (not the last line of the log): lines read as text and as converted values.
TEST_F(RulesTest, LlKeyIsTheLinesKeyAndAtTheEndTheLastOneRead) {
  config("common", R"(
- KEY:
    NAME: alpha_key_long_enough_for_the_heap
    CHECK: " ll.key == 'alpha_key_long_enough_for_the_heap' "
- KEY:
    NAME: beta
    POST: " s['seen'] = ll.key "
- END:
    CHECK: " ll.key == 'beta' and s['seen'] == 'beta' "
)");
  const std::vector<std::string> lines = {ev("alpha_key_long_enough_for_the_heap", "1"), ev("beta", "2"),
                                          ev("gamma_not_ruled_here", "3")};
  for (const LogVerdict& v : {judge(lines), judge_scanned(lines)}) {
    EXPECT_TRUE(v.findings.empty()) << messages(v).at(0);
  }
  const std::vector<std::string> other_order = {ev("beta", "2"), ev("alpha_key_long_enough_for_the_heap", "1")};
  for (const LogVerdict& v : {judge(other_order), judge_scanned(other_order)}) {
    EXPECT_EQ(messages(v), std::vector<std::string>{"E0:at the end of the log `ll.key == 'beta' and s['seen'] == "
                                                    "'beta'` must hold (training_9.9.9/common.yaml); it does not"});
  }
}

TEST_F(RulesTest, BeginPrePostStateAndTheConfigChain) {
  config("common", R"(
- BEGIN:
    CODE: " s.update({'started': False}) "
- KEY:
    NAME: submission_division
    POST: " enqueue_config('training_9.9.9/{}_common.yaml'.format(v['value'])); s['limit'] = 240 if v['value'] == 'open' else 30 "
- KEY:
    NAME: start
    POST: " s['started'] = True; s['first'] = min(s.get('first', 9e99), ll.timestamp) "
- KEY:
    NAME: stop
    CHECK:
        - "s['started']"
        - "ll.timestamp - s['first'] < s['limit']"
)");
  config("closed_common", R"(
- KEY:
    NAME: submission_benchmark
    POST: " enqueue_config('training_9.9.9/closed_{}.yaml'.format(v['value'])) "
)");
  config("closed_toy", R"(
- KEY:
    NAME: warmup
    POST: " s['warmup'] = v['value'] "
- KEY:
    NAME: decay
    PRE: " s['total'] = 1_000 "
    CHECK: " v['value'] == s['total'] - s['warmup'] "
)");
  auto v = judge({ev("submission_division", "\"closed\""), ev("submission_benchmark", "\"toy\""),
                  ev("start", "null", "{}", 100), ev("stop", "null", "{}", 140), ev("warmup", "100"), ev("decay", "800")});
  EXPECT_EQ(v.configs, (std::vector<std::string>{"training_9.9.9/common.yaml", "training_9.9.9/closed_common.yaml",
                                                 "training_9.9.9/closed_toy.yaml"}));
  EXPECT_EQ(messages(v),
            (std::vector<std::string>{
                "E4:stop must satisfy `ll.timestamp - s['first'] < s['limit']` (training_9.9.9/common.yaml); found "
                "ll.timestamp = 140.0, s['first'] = 100.0, s['limit'] = 30",
                "E6:decay must be s['total'] - s['warmup'] = 900 in the closed division "
                "(training_9.9.9/closed_toy.yaml); found 800",
            }));
  // A stop before any start: the state the BEGIN code set.
  v = judge({ev("stop", "null")});
  EXPECT_EQ(v.findings.at(0).message,
            "stop must satisfy `s['started']` (training_9.9.9/common.yaml); found s['started'] = False");
  // A division without a config: the official checker cannot open it and stops.
  v = judge({ev("submission_division", "\"secret\"")});
  EXPECT_FALSE(v.compliant);
  EXPECT_EQ(v.findings.back().message,
            "the config training_9.9.9/secret_common.yaml does not exist; the official checker stops here and "
            "rejects the log");
}

TEST_F(RulesTest, ALaterConfigWithARuleForTheKeyWithdrawsEarlierFindings) {
  config("common", R"(
- KEY:
    NAME: submission_division
    POST: " enqueue_config('training_9.9.9/{}_common.yaml'.format(v['value'])) "
- KEY:
    NAME: eval_samples
    REQ: EXACTLY_ONE
    CHECK: " v['value'] > 10 "
- KEY:
    NAME: train_samples
    CHECK: " v['value'] > 10 "
)");
  config("closed_common", R"(
- KEY:
    NAME: eval_samples
    REQ: EXACTLY_ONE
    CHECK: " v['value'] == 5 "
)");
  auto v = judge({ev("submission_division", "\"closed\""), ev("eval_samples", "5"), ev("train_samples", "5")});
  // common.yaml's eval_samples finding is gone; its train_samples finding stays.
  EXPECT_EQ(messages(v), std::vector<std::string>{"E3:train_samples must be > 10 (training_9.9.9/common.yaml); found 5"});
}

TEST_F(RulesTest, LineReadingParseErrorsRepeatsAndMissingFields) {
  config("common", R"(
- KEY:
    NAME: run_start
    REQ: EXACTLY_ONE
)");
  // An exact repeat warns only (mlp_parser never de-duplicates; EXACTLY_ONE with equal values).
  auto v = judge({ev("run_start", "null"), ev("run_start", "null")});
  EXPECT_TRUE(v.compliant);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_FALSE(v.findings[0].error);
  // A line that does not parse rejects the log ("Log lines had parsing errors").
  v = judge({ev("run_start", "null"), "{\"time_ms\": 1, \"key\": "});
  EXPECT_FALSE(v.compliant);
  EXPECT_EQ(messages(v), std::vector<std::string>{"E2:MLLOG line does not parse: bad JSON"});
  // Without "value" or "metadata" the official parser stops (KeyError).
  v = judge({R"({"time_ms": 1, "key": "run_start", "value": null})"});
  EXPECT_FALSE(v.compliant);
  EXPECT_EQ(messages(v), std::vector<std::string>{"E1:MLLOG line without metadata; the official parser stops here "
                                                  "and rejects the log"});
  // No MLLOG lines at all.
  v = judge({});
  EXPECT_FALSE(v.compliant);
  EXPECT_EQ(v.findings.at(0).rule, "mlp_parser");
}

// Lines read as scoring reads them (scanned, v as text, member tests once per shape) are
// judged as the converted lines are: a check that fails on a later line of a known shape,
// or on a shape where it failed before, is still a finding of that line.
TEST_F(RulesTest, ScannedLinesAreJudgedAsConvertedOnes) {
  config("common", R"yaml(
- BEGIN:
    CODE: " s['n'] = 0 "
- KEY:
    NAME: block_start
    REQ: AT_LEAST_ONE
    CHECK:
        - "('epoch_count' in v['metadata']) | ('samples_count' in v['metadata'])"
        - "'first_epoch_num' in v['metadata'] if 'epoch_count' in v['metadata'] else True"
        - "v['metadata']['epoch_count'] > 0 if 'epoch_count' in v['metadata'] else True"
    POST: " s['n'] += 1 "
- KEY:
    NAME: eval_accuracy
    REQ: AT_LEAST_ONE
    CHECK: "'epoch_num' in v['metadata']"
    ATLEAST_ONE_CHECK: "v['value'] > 0.5 and s['n'] > 0"
- KEY:
    NAME: run_stop
    REQ: EXACTLY_ONE
    CHECK: "v['metadata']['status'] == 'success'"
)yaml");
  const std::vector<std::string> lines = {
      // (members in sorted order: the full parser's dicts are sorted, Python's and the
      // scanner's are in text order, and the messages show them)
      ev("block_start", "null", R"({"epoch_count": 1, "first_epoch_num": 0})"),
      ev("block_start", "null", R"({"epoch_count": 1, "first_epoch_num": 1})"),
      ev("block_start", "null", R"({"epoch_count": 0, "first_epoch_num": 2})"),  // 3: epoch_count > 0
      ev("eval_accuracy", "0.25", R"({"epoch_num": 1})"),
      ev("eval_accuracy", "0.75", R"({"epoch_num": 2})"),
      ev("block_start", "null", R"({"samples_count": 5})"),
      ev("block_start", "null", R"({"other": 1})"),  // 7: neither member
      ev("block_start", "null", R"({"other": 2})"),  // 8: the same shape, failing again
      ev("block_start", "null", R"({"epoch_count": 3})"),  // 9: no first_epoch_num
      ev("eval_accuracy", "0.75", R"({"step": 2})"),  // 10: no epoch_num
      ev("block_start", "null", R"({"epoch_count": [1], "first_epoch_num": 3})"),  // 11: list > int raises
      ev("run_stop", "null", R"({"status": "aborted"})"),  // 12
  };
  const LogVerdict scanned = judge_scanned(lines);
  const LogVerdict parsed = judge(lines);
  EXPECT_EQ(messages(scanned), messages(parsed));
  EXPECT_FALSE(scanned.compliant);
  std::vector<std::uint64_t> at;
  for (const auto& f : scanned.findings) at.push_back(f.line);
  EXPECT_EQ(at, (std::vector<std::uint64_t>{3, 7, 8, 9, 10, 11, 12}));
}

// The 3.1.0–5.0.0 stable_diffusion BEGIN code (the aggregation, recognized and evaluated
// natively) and a rule on the aggregated lines.
constexpr const char* kAggregatingConfig = R"yaml(
- BEGIN:
    CODE: |
        agg_eval_lines = {}
        for line in loglines:
            if line.key == "eval_accuracy" and 'metric' in line.value['metadata']:
                new_line.key = "aggregated_eval_accuracy"
        loglines.extend(agg_eval_lines.values())
- KEY:
    NAME: aggregated_eval_accuracy
    REQ: AT_LEAST(2)
    CHECK:
        - "'FID' in v['value']"
        - "'CLIP' in v['value']"
)yaml";

TEST_F(RulesTest, StableDiffusionEvalLinesAggregatePerSamplesCount) {
  config("common", std::string(kAggregatingConfig) + R"yaml(
    ATLEAST_ONE_CHECK: "(0.0 <= v['value']['FID'] <= 90.0) and (0.10 <= v['value']['CLIP'] <= 1.0)"
)yaml");
  auto v = judge({ev("eval_accuracy", "95.0", R"({"metric": "FID", "samples_count": 1000})"),
                  ev("eval_accuracy", "0.11", R"({"metric": "CLIP", "samples_count": 1000})"),
                  ev("eval_accuracy", "80.0", R"({"metric": "FID", "samples_count": 2000})"),
                  ev("eval_accuracy", "0.2", R"({"metric": "CLIP", "samples_count": 2000})")});
  EXPECT_TRUE(v.compliant) << ::testing::PrintToString(messages(v));
  v = judge({ev("eval_accuracy", "95.0", R"({"metric": "FID", "samples_count": 1000})"),
             ev("eval_accuracy", "80.0", R"({"metric": "FID", "samples_count": 2000})")});
  EXPECT_FALSE(v.compliant);
  EXPECT_EQ(v.findings.at(0).message,
            "aggregated_eval_accuracy must satisfy `'CLIP' in v['value']` (training_9.9.9/common.yaml); found "
            "v['value'] = {'samples_count': 1000, 'FID': 95.0}");
}

// An aggregating config enqueued after some eval_accuracy lines still aggregates them (its
// aggregator reads the lines kept so far first), read through the scanner or parsed alike.
TEST_F(RulesTest, ALateAggregatingConfigAggregatesTheLinesBeforeIt) {
  config("common", R"yaml(
- KEY:
    NAME: submission_benchmark
    REQ: EXACTLY_ONE
    POST: " enqueue_config('training_9.9.9/sd.yaml') "
)yaml");
  config("sd", kAggregatingConfig);
  const std::vector<std::string> lines = {ev("eval_accuracy", "95.0", R"({"metric": "FID", "samples_count": 1000})"),
                                          ev("submission_benchmark", "\"stable_diffusion\""),
                                          ev("eval_accuracy", "0.11", R"({"metric": "CLIP", "samples_count": 1000})"),
                                          ev("eval_accuracy", "80.0", R"({"metric": "FID", "samples_count": 2000})"),
                                          ev("eval_accuracy", "0.2", R"({"metric": "CLIP", "samples_count": 2000})")};
  for (const LogVerdict& v : {judge(lines), judge_scanned(lines)}) {
    EXPECT_TRUE(v.compliant) << ::testing::PrintToString(messages(v));
    EXPECT_EQ(v.configs, (std::vector<std::string>{"training_9.9.9/common.yaml", "training_9.9.9/sd.yaml"}));
  }
  // Without the first line, the first step lacks FID: a finding either way.
  const std::vector<std::string> late(lines.begin() + 1, lines.end());
  EXPECT_EQ(messages(judge_scanned(late)), messages(judge(late)));
  EXPECT_FALSE(judge_scanned(late).compliant);
}

// Every config reads the log from its first line wherever in the log it was enqueued, and the
// configs are applied (and their findings ordered, withdrawn, stopped) in the official
// queue's order, breadth first, though they read the lines side by side.
TEST_F(RulesTest, ALateConfigReadsTheWholeLogAndTheQueueIsBreadthFirst) {
  config("common", R"(
- KEY:
    NAME: early
    REQ: EXACTLY_ONE
- KEY:
    NAME: go
    REQ: AT_LEAST_ONE
    POST: " enqueue_config('training_9.9.9/{}.yaml'.format(v['value'])) "
- KEY:
    NAME: submission_division
    REQ: EXACTLY_ONE
    POST: " enqueue_config('training_9.9.9/second.yaml') "
)");
  // Enqueued at the last line: it still sees `early` (line 1) and counts every `tick`.
  config("late", R"(
- KEY:
    NAME: early
    REQ: EXACTLY_ONE
    CHECK: " v['value'] == 'late-sees-it' "
- KEY:
    NAME: tick
    REQ: AT_LEAST(4)
)");
  // Enqueued at line 2 by common.yaml, it enqueues `third` at line 3; `late` (enqueued later
  // by common.yaml) still comes before `third` in the official queue.
  config("second", R"(
- KEY:
    NAME: tick
    REQ: OPTIONAL
    POST: " enqueue_config('training_9.9.9/third.yaml') if s.get('n', 0) == 0 else None; s['n'] = s.get('n', 0) + 1 "
)");
  config("third", R"(
- KEY:
    NAME: early
    REQ: EXACTLY_ONE
)");
  auto v = judge({ev("early", R"("first")"), ev("submission_division", R"("closed")"), ev("tick", "1"),
                  ev("tick", "2"), ev("tick", "3"), ev("go", R"("late")")});
  EXPECT_EQ(v.configs, (std::vector<std::string>{"training_9.9.9/common.yaml", "training_9.9.9/second.yaml",
                                                 "training_9.9.9/late.yaml", "training_9.9.9/third.yaml"}));
  // late's CHECK on line 1 fails and its AT_LEAST(4) finds 3; third withdraws late's finding
  // about `early` (a later config with a rule for the key).
  EXPECT_EQ(messages(v), (std::vector<std::string>{
                             "E0:tick must be logged at least 4 times (training_9.9.9/late.yaml); found 3",
                         }));
  EXPECT_FALSE(v.compliant);
}

}  // namespace
}  // namespace mlperf::compliance
