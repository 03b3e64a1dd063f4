// The Python subset of the compliance configs: values as CPython gives them, and every
// expression and code block of every shipped config in the subset.

#include "mlperf/compliance/pyexpr.h"

#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <new>

#include <gtest/gtest.h>

#include "mlperf/compliance/rules.h"
#include "../test_support.h"

namespace mlperf::compliance {
namespace {

using testing::source_dir;

// The address space this process has mapped now, in bytes (VmSize in /proc/self/status).
std::size_t mapped_bytes() {
  std::size_t kib = 0;
  if (std::FILE* status = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, status)) {
      if (std::sscanf(line, "VmSize: %zu kB", &kib) == 1) break;
    }
    std::fclose(status);
  }
  return kib * 1024;
}

// libstdc++ 12 counts PyValue's variant as never valueless, and destroys one whose copy
// constructor threw as if it held alternative variant_npos: a jump through an out-of-range
// table. A copy of a str that runs out of memory must throw std::bad_alloc instead, leaving
// the source and (for an assignment) the target as they were. In a child process whose
// address space is limited to what it maps plus 32 MiB, so a second copy of the str cannot
// be mapped. The child is a fork of this test process, whose heap may hold free memory that
// earlier tests left (already mapped, so under the limit): the str is made larger than all of
// it, or a copy could fit there without mapping anything.
TEST(PyExpr, ACopyOfAStrThatRunsOutOfMemoryThrowsBadAllocAndLeavesBothValuesWhole) {
  if (testing::built_with_address_sanitizer()) GTEST_SKIP() << "AddressSanitizer needs terabytes of address space";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::malloc_trim(0);
    const std::size_t free_heap = ::mallinfo2().fordblks;  // free bytes of every arena
    const std::size_t size = std::max<std::size_t>(64u << 20, free_heap + (64u << 20));
    const PyValue big(std::string(size, 'x'));
    const rlimit limit{mapped_bytes() + (32u << 20), RLIM_INFINITY};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(10);
    int status = 0;
    try {
      const PyValue copy = big;  // the copy constructor
      status |= 1;               // no failure: the limit did not hold
    } catch (const std::bad_alloc&) {
    }
    PyValue target(std::int64_t{7});
    try {
      target = big;  // the copy assignment
      status |= 2;
    } catch (const std::bad_alloc&) {
    }
    if (!big.str() || big.str()->size() != size) status |= 4;
    if (target.type_name() != std::string("int") || std::get<std::int64_t>(target.v) != 7) status |= 8;
    ::_exit(status);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1, 2: a copy did not run out of memory; 4: the source changed; "
                                       "8: the target of the failed assignment changed; 10: setrlimit failed";
}

PyValue eval(const std::string& text, Env& env) { return Expr::parse(text).eval(env); }

std::string eval_repr(const std::string& text) {
  Env env;
  env.s = make_dict();
  env.v = from_json(nlohmann::json::parse(R"({"value": 0.9, "metadata": {"samples_count": 32, "epoch_num": 1}})"));
  env.timestamp = 1000.0;
  return repr(eval(text, env));
}

std::string error_type(const std::string& text) {
  Env env;
  env.s = make_dict();
  env.v = from_json(nlohmann::json::parse(R"({"value": "sgd", "metadata": {}})"));
  try {
    eval(text, env);
  } catch (const PyError& e) {
    return e.type;
  }
  return "no error";
}

TEST(PyExpr, NumbersCompareAndComputeAsInPython) {
  EXPECT_EQ(eval_repr("v['value'] == 0.9"), "True");
  EXPECT_EQ(eval_repr("1 == 1.0"), "True");
  EXPECT_EQ(eval_repr("True == 1"), "True");
  EXPECT_EQ(eval_repr("1_200_000 - 800"), "1199200");
  EXPECT_EQ(eval_repr("7 / 2"), "3.5");
  EXPECT_EQ(eval_repr("-7 // 2"), "-4");
  EXPECT_EQ(eval_repr("-7 % 3"), "2");
  EXPECT_EQ(eval_repr("2 ** 10"), "1024");
  EXPECT_EQ(eval_repr("(256 / 64) ** 0.5"), "2.0");
  EXPECT_EQ(eval_repr("1e-05"), "1e-05");
  EXPECT_EQ(eval_repr("30*60*1e3"), "1800000.0");
  EXPECT_EQ(eval_repr("0.0 <= v['value'] <= 1.0"), "True");  // chained
  EXPECT_EQ(eval_repr("0.0 <= v['value'] <= 0.5"), "False");
  EXPECT_EQ(eval_repr("math.ceil(1_200_000 * 1152 / 1536) - 7"), "899993");
  EXPECT_EQ(eval_repr("math.floor(42 + 24576 / 1024)"), "66");
  EXPECT_EQ(eval_repr("is_integer(math.log2(0.0008 / 0.0001))"), "True");
  EXPECT_EQ(eval_repr("is_integer(2.5)"), "False");
  EXPECT_EQ(eval_repr("abs(-3)"), "3");
  EXPECT_EQ(eval_repr("min(9e99, ll.timestamp)"), "1000.0");
  EXPECT_EQ(eval_repr("int('42')"), "42");
}

TEST(PyExpr, BooleanOperatorsMembershipAndConditionals) {
  EXPECT_EQ(eval_repr("('epoch_num' in v['metadata']) | ('samples_count' in v['metadata'])"), "True");
  EXPECT_EQ(eval_repr("'first_epoch_num' in v['metadata'] if 'epoch_count' in v['metadata'] else True"), "True");
  EXPECT_EQ(eval_repr("'x' not in v['metadata']"), "True");
  EXPECT_EQ(eval_repr("v['value'] in ['closed', 'open']"), "False");
  EXPECT_EQ(eval_repr("0 or 'a'"), "'a'");  // and/or return an operand
  EXPECT_EQ(eval_repr("1 and 0"), "0");
  EXPECT_EQ(eval_repr("not s"), "True");
  EXPECT_EQ(eval_repr("'training_5.1.0/{}_common.yaml'.format('closed')"), "'training_5.1.0/closed_common.yaml'");
  EXPECT_EQ(eval_repr("None is None"), "True");
}

TEST(PyExpr, ErrorsAreThePythonExceptions) {
  EXPECT_EQ(error_type("v['value'] > 0"), "TypeError");  // str > int
  EXPECT_EQ(error_type("v['metadata']['samples_count']"), "KeyError");
  EXPECT_EQ(error_type("s['global_batch_size'] * 2"), "KeyError");
  EXPECT_EQ(error_type("1 / 0"), "ZeroDivisionError");
  EXPECT_EQ(error_type("math.log2(0)"), "ValueError");
  EXPECT_EQ(error_type("undefined_name"), "NameError");
  EXPECT_EQ(error_type("None * 2"), "TypeError");
  EXPECT_EQ(error_type("v['value'] == 'sgd'"), "no error");
  EXPECT_THROW(Expr::parse("v['value'] =="), PySyntaxError);
  EXPECT_THROW(Expr::parse("lambda x: x"), PySyntaxError);
  EXPECT_THROW(Code::parse("import os"), PySyntaxError);
}

TEST(PyExpr, StatementsUpdateTheSharedState) {
  Env env;
  env.s = make_dict();
  env.v = from_json(nlohmann::json::parse(R"({"value": 64, "metadata": {"samples_count": 128}})"));
  std::vector<std::string> enqueued;
  env.enqueue_config = [&](const std::string& name) { enqueued.push_back(name); };
  Code::parse(R"(s.update({
    'next_validation_samples': None,
    'target_accuracy': 0.69,
}))")
      .exec(env);
  Code::parse("s['global_batch_size'] = v['value']\ns['next_validation_samples'] = 128").exec(env);
  Code::parse("if v['metadata']['samples_count'] == s['next_validation_samples']:\n"
              "    s['next_validation_samples'] += s['global_batch_size']")
      .exec(env);
  Code::parse(" enqueue_config('training_5.1.0/{}_common.yaml'.format('open')); s['compile_time_mins'] = 240 if "
              "'open' == 'open' else 30 ")
      .exec(env);
  EXPECT_EQ(repr(env.s),
            "{'next_validation_samples': 192, 'target_accuracy': 0.69, 'global_batch_size': 64, "
            "'compile_time_mins': 240}");  // insertion order, as Python's dict
  EXPECT_EQ(enqueued, std::vector<std::string>{"training_5.1.0/open_common.yaml"});
  // A statement that raises leaves the earlier ones' effects, as in Python.
  EXPECT_THROW(Code::parse("s['a'] = 1; s['b'] = s['missing']").exec(env), PyError);
  EXPECT_EQ(repr(eval("s['a']", env)), "1");
}

// deep_copy: a copy shares no container with the original, and a container referenced twice
// is copied once (Python's copy.deepcopy).
TEST(PyExpr, DeepCopySharesNothingAndKeepsAliasing) {
  Env env;
  env.s = make_dict();
  Code::parse("s.update({'n': 1, 'name': 'a longer string than fits inline', 'l': [1, [2]], 'd': {'x': 0.5}}); "
              "s['alias'] = s['l']")
      .exec(env);
  const PyValue original = env.s;
  const std::string before = repr(original);
  env.s = deep_copy(original);
  EXPECT_EQ(repr(env.s), before);
  Code::parse("s['l'][0] = 3; s['l'][1][0] = 4; s['d']['x'] = 2; s['n'] = 7").exec(env);
  EXPECT_EQ(repr(original), before);
  EXPECT_EQ(repr(eval("s['alias']", env)), "[3, [4]]");  // the copy's alias is the copy's list
  EXPECT_EQ(repr(eval("s['d']", env)), "{'x': 2}");
  EXPECT_EQ(repr(deep_copy(PyValue(std::int64_t{5}))), "5");
}

TEST(PyExpr, ValuesFromJsonKeepIntAndFloatApart) {
  auto v = from_json(nlohmann::json::parse(R"({"a": 1, "b": 1.0, "c": [true, null, "x"], "d": 1e-05})"));
  EXPECT_EQ(repr(v), "{'a': 1, 'b': 1.0, 'c': [True, None, 'x'], 'd': 1e-05}");
  EXPECT_EQ(repr(PyValue(1760022417250.0)), "1760022417250.0");
  EXPECT_EQ(repr(PyValue(std::string("it's"))), "\"it's\"");
}

// Every CHECK, FIRST_CHECK, ATLEAST_ONE_CHECK, PRE, POST and BEGIN of every shipped config is
// in the subset: RuleLibrary::load parses them all and throws otherwise.
// A line's v given as its JSON text (LineText): the checks that read members or scalars are
// answered from the text, give what the converted v gives, and leave v unconverted; anything
// else converts it once.
TEST(PyExpr, LineTextAnswersAsTheConvertedLine) {
  const std::string value = "0.75";
  const std::string metadata = R"({"file": "a.py", "epoch_num": 3, "epoch_num": 4, "lr": [1, 2], "name": "x"})";
  const std::vector<std::string> exprs = {
      "'epoch_num' in v['metadata']", "'samples_count' in v['metadata']", "'samples_count' not in v['metadata']",
      "('epoch_num' in v['metadata']) | ('samples_count' in v['metadata'])", "'value' in v", "'other' in v",
      "v['value'] > 0.5", "v['value']", "v['metadata']['epoch_num']", "v['metadata']['name'] == 'x'",
      "v['metadata']['epoch_num'] > 0 if 'epoch_num' in v['metadata'] else True", "v['metadata']['lr']",
      "len(v['metadata'])", "ll.value['value']"};
  const std::vector<std::string> unconverted = {exprs.begin(), exprs.begin() + 11};
  for (const auto& text : exprs) {
    Env converted;
    converted.v = from_json(nlohmann::json::parse(R"({"value": )" + value + R"(, "metadata": )" + metadata + "}"));
    LineText line{value, metadata, {}, std::nullopt, std::nullopt};
    Env lazy;
    lazy.pending = &line;
    EXPECT_EQ(repr(eval(text, lazy)), repr(eval(text, converted))) << text;
    const bool kept = std::find(unconverted.begin(), unconverted.end(), text) != unconverted.end();
    EXPECT_EQ(line.v.is_none(), kept) << text;
  }
  // A missing member raises as Python does, from the text too.
  LineText line{value, metadata, {}, std::nullopt, std::nullopt};
  Env lazy;
  lazy.pending = &line;
  try {
    eval("v['metadata']['samples_count']", lazy);
    ADD_FAILURE() << "no KeyError";
  } catch (const PyError& e) {
    EXPECT_EQ(e.type, "KeyError");
  }
  // A value that is a dict is the line's own object, shared once converted.
  LineText dict_line{R"({"a": 1})", "{}", {}, std::nullopt, std::nullopt};
  Env a, b;
  a.pending = b.pending = &dict_line;
  eval("v['value']", a);
  EXPECT_FALSE(dict_line.v.is_none());
  EXPECT_EQ(a.line_v().dict(), b.line_v().dict());
}

// v['value'] read from the text is kept for the line's next reads, and given up once code
// converts v and may change it.
TEST(PyExpr, LineTextValueIsReadOnceUntilVIsConverted) {
  LineText line{"0.75", R"({"epoch_num": 3})", {}, std::nullopt, std::nullopt};
  Env env;
  env.pending = &line;
  EXPECT_TRUE(truthy(eval("v['value'] > 0.5 and v['value'] < 1", env)));
  ASSERT_TRUE(line.value_scalar.has_value());
  EXPECT_EQ(repr(*line.value_scalar), "0.75");
  EXPECT_TRUE(line.v.is_none());
  Code::parse("v['value'] = 2").exec(env);
  EXPECT_FALSE(line.v.is_none());
  EXPECT_EQ(repr(eval("v['value']", env)), "2");
  EXPECT_FALSE(truthy(eval("v['value'] < 1", env)));
}

TEST(PyExpr, ShapeDeterminedChecksReadOnlyConstantsAndMembers) {
  EXPECT_TRUE(Expr::parse("('epoch_num' in v['metadata']) | ('samples_count' in v['metadata'])").shape_determined());
  EXPECT_TRUE(Expr::parse("'first_epoch_num' in v['metadata'] if 'epoch_count' in v['metadata'] else True").shape_determined());
  EXPECT_TRUE(Expr::parse("'value' in v").shape_determined());
  EXPECT_TRUE(Expr::parse("not ('x' not in v['metadata'])").shape_determined());
  EXPECT_FALSE(Expr::parse("v['value'] > 0").shape_determined());
  EXPECT_FALSE(Expr::parse("s['run_started']").shape_determined());
  EXPECT_FALSE(Expr::parse("'x' in s").shape_determined());
  EXPECT_FALSE(Expr::parse("len(v['metadata']) > 0").shape_determined());
  EXPECT_FALSE(Expr::parse("ll.timestamp > 0 and 'x' in v['metadata']").shape_determined());
}

TEST(PyExpr, EveryShippedConfigParses) {
  RuleLibrary library = RuleLibrary::load(source_dir() / "configs/compliance");
  std::size_t keys = 0, checks = 0, code = 0;
  for (const auto& [name, config] : library.configs()) {
    keys += config.keys.size();
    code += config.begin ? 1 : 0;
    for (const auto& k : config.keys) {
      checks += k.checks.size() + k.first_checks.size() + (k.atleast_one_check ? 1 : 0);
      code += (k.pre ? 1 : 0) + (k.post ? 1 : 0);
    }
  }
  for (const char* r : {"1.0.0", "1.1.0", "2.0.0", "2.1.0", "3.0.0", "3.1.0", "4.0.0", "4.1.0", "5.0.0", "5.1.0", "6.0.0",
                        "6.1.0"}) {
    EXPECT_TRUE(library.has_ruleset(testing::rs(r))) << r;
  }
  for (const char* r : {"1.0.0", "2.0.0", "3.0.0"}) {
    EXPECT_TRUE(library.has_ruleset(testing::rs(r).with_usage(Usage::kHpc))) << "hpc " << r;
  }
  // Counted with Python yaml, as the checker loads them: 240 training configs with 1793 KEY
  // records, and 38 MLPerf HPC configs (hpc_1.0.0 – hpc_3.0.0) with 241.
  EXPECT_EQ(library.configs().size(), 278u);
  EXPECT_EQ(keys, 2034u);
  std::size_t ends = 0;
  for (const auto& [name, config] : library.configs()) ends += config.end_pre || !config.end_checks.empty() ? 1 : 0;
  EXPECT_EQ(ends, 23u);  // the END records of 1.0.0–2.1.0
  EXPECT_GT(checks, 600u);
  EXPECT_GT(code, 90u);
  EXPECT_TRUE(library.config("training_4.1.0/closed_stable_diffusion.yaml")->aggregates_eval_accuracy);
  EXPECT_EQ(library.config("training_5.1.0/closed_llama31_8b.yaml")->division, "closed");
}

}  // namespace
}  // namespace mlperf::compliance
