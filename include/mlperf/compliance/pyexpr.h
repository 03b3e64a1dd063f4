#pragma once
// The Python subset the official training and HPC compliance configs are written in
// (mlperf_logging/compliance_checker/{training,hpc}_X.Y.Z/*.yaml: CHECK, ATLEAST_ONE_CHECK,
// FIRST_CHECK expressions; PRE, POST and BEGIN statements). Values behave as Python's do
// (int/float/bool arithmetic and comparison, dicts shared by reference, errors where Python
// raises); no Python is embedded. The subset is what the configs of 4.0.0–6.1.0 use:
//   literals (int with `_`, float, 'str', "str", True/False/None, [..], {k: v}, and set
//   displays {a, b}, evaluated as lists: membership and iteration as a set's), names,
//   subscripts, attributes, calls, `**`, unary -/+/not, * / // % + -, `|`, comparisons
//   (chained; == != < <= > >= in, not in, is, is not), and/or, `x if c else y`;
//   statements: expression, `t = e`, `t += e` (t a name or a subscript), `if c:` with an
//   indented or same-line body, separated by `;` or new lines.
// Functions: abs, min, max, int, float, len, str, round, is_integer (the checker's own:
// |round(x) − x| < 1e-5), math.ceil/floor/log2/sqrt/isclose, enqueue_config (see Env),
// dict.update/get/keys, str.format, str.lower/upper (ASCII letters; HPC configs).

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <utility>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlperf/mllog/mllog.h"

namespace mlperf::compliance {

struct PyValue;
using PyList = std::vector<PyValue>;
class PyDict;  ///< str keys only (JSON objects, `s`), in insertion order as Python's dict

/// A Python value: None, bool, int (64-bit), float, str, list, dict. Lists and dicts are
/// shared by reference, as in Python.
struct PyValue {
  using Variant = std::variant<std::monostate, bool, std::int64_t, double, std::string, std::shared_ptr<PyList>,
                               std::shared_ptr<PyDict>>;
  Variant v;

  PyValue() = default;
  // Copies never build the variant by a copy that can throw. libstdc++ 12 counts this variant
  // as never valueless, so when its copy constructor throws (std::bad_alloc copying a str)
  // the half-built variant is destroyed as if it held alternative variant_npos: a jump
  // through an out-of-range table, a crash instead of the out-of-memory error. The str is
  // copied first; the variant is then built by a move, which cannot throw.
  PyValue(const PyValue& other) : v(copy_of(other.v)) {}
  PyValue& operator=(const PyValue& other) {
    v = copy_of(other.v);  // move assignment: cannot throw
    return *this;
  }
  PyValue(PyValue&&) noexcept = default;
  PyValue& operator=(PyValue&&) noexcept = default;
  PyValue(bool b) : v(b) {}
  PyValue(std::int64_t i) : v(i) {}
  PyValue(int i) : v(std::int64_t{i}) {}
  PyValue(double d) : v(d) {}
  PyValue(std::string s) : v(std::move(s)) {}
  PyValue(const char* s) : v(std::string(s)) {}
  PyValue(std::shared_ptr<PyList> l) : v(std::move(l)) {}
  PyValue(std::shared_ptr<PyDict> d) : v(std::move(d)) {}

  bool is_none() const { return v.index() == 0; }
  const std::string* str() const { return std::get_if<std::string>(&v); }
  PyDict* dict() const {
    auto p = std::get_if<std::shared_ptr<PyDict>>(&v);
    return p ? p->get() : nullptr;
  }
  PyList* list() const {
    auto p = std::get_if<std::shared_ptr<PyList>>(&v);
    return p ? p->get() : nullptr;
  }
  /// Python's type name: "NoneType", "bool", "int", "float", "str", "list", "dict".
  const char* type_name() const;

 private:
  static Variant copy_of(const Variant& other) {
    if (const auto* s = std::get_if<std::string>(&other)) return Variant(std::in_place_type<std::string>, std::string(*s));
    return other;  // None, bool, int, float or a shared list or dict: copying cannot throw
  }
};

/// A dict with str keys, in insertion order (a small vector: metadata has a handful of keys).
class PyDict {
 public:
  using Item = std::pair<std::string, PyValue>;
  using iterator = std::vector<Item>::iterator;
  using const_iterator = std::vector<Item>::const_iterator;

  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  iterator find(std::string_view key);
  const_iterator find(std::string_view key) const;
  std::size_t count(std::string_view key) const { return find(key) == end() ? 0 : 1; }
  std::size_t size() const { return items_.size(); }
  void reserve(std::size_t n) { items_.reserve(n); }
  bool empty() const { return items_.empty(); }
  /// The value of `key`, inserted (None) at the end when absent; a present key keeps its place.
  PyValue& operator[](std::string_view key);
  /// The value of `key`; throws std::out_of_range when absent.
  const PyValue& at(std::string_view key) const;

 private:
  std::vector<Item> items_;
};

/// A new empty dict value.
PyValue make_dict();

/// Python's copy.deepcopy of `value`: lists and dicts copied all the way down, one copy per
/// container however often it is referenced (so aliasing within `value` is kept).
PyValue deep_copy(const PyValue& value);

/// The value Python's json.loads gives for `j` (objects → dict, arrays → list, integers →
/// int, other numbers → float). A dict's keys come in `j`'s order: sorted by name for a
/// nlohmann::json, the text's order for a nlohmann::ordered_json (which is Python's).
PyValue from_json(const nlohmann::json& j);
PyValue from_json(const nlohmann::ordered_json& j);

/// The value Python's json.loads gives for JSON text already validated (by scan_mllog_line):
/// the same as from_json(nlohmann::ordered_json::parse(text)) without building the DOM.
/// Text that is not valid JSON gives an unspecified value, never undefined behaviour.
PyValue from_json_text(std::string_view text);

/// Python's repr(), e.g. 'sgd', 0.5, 1.0, 1e-05, {'a': 1}, True, None.
std::string repr(const PyValue& value);

/// Python's truth value.
bool truthy(const PyValue& value);

/// Python's ==.
bool py_equal(const PyValue& a, const PyValue& b);

/// A Python exception: `type` ("TypeError", "KeyError", "ZeroDivisionError", …) and message.
struct PyError : std::runtime_error {
  PyError(std::string type, const std::string& message);
  std::string type;
};

/// A syntax error in a config's code (not in the subset); names the offending text.
struct PySyntaxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The current line's v = {'value': …, 'metadata': …} before it is converted: the JSON texts
/// of its value and metadata, as the MLLOG scanner validated them (metadata an object). Most
/// checks on the frequent lines (block, eval, cache_clear, init) read only `s`, `ll`, whether
/// metadata has a member, or one scalar member; eval answers `'name' in v`, `'name' in
/// v['metadata']` (and `not in`), and v['value'] or v['metadata']['name'] when that is a number,
/// string, bool or null, straight from the text, and converts v (once, into `v`, shared by every
/// config reading the line) the first time an expression needs more. The texts must be those
/// of an EventView of kEvent (mllog.h), where no member name is escaped.
struct LineText {
  std::string_view value;     ///< JSON text of the value
  std::string_view metadata;  ///< JSON text of the metadata object
  PyValue v;                  ///< v once converted (None until then)
  /// v, converted from the texts on first use.
  const PyValue& converted();
  /// json_member(metadata, name), the members found in one pass on first use (several
  /// configs and checks ask the same line).
  std::string_view metadata_member(std::string_view name) {
    if (!metadata_members) metadata_members.emplace(mlperf::metadata_members(metadata, layout));
    return metadata_members->find(name);
  }
  std::optional<ObjectMembers> metadata_members;  ///< metadata's members once found
  /// v['value'] once read from `value` when it is a scalar (a check may name it twice, as
  /// `v['value'] > a and v['value'] < b` does); only while v is not converted.
  std::optional<PyValue> value_scalar;
  /// EventView::layout of the line the texts are from (its metadata's members are then those
  /// of the layout's earlier lines); 0 when not known.
  std::uint64_t layout = 0;
};

/// The names an expression sees: `s` (the config's state dict), `v` (the line's
/// {'value', 'metadata'}), `ll` (the line: timestamp, key, lineno, value) and the hook
/// behind enqueue_config(name).
struct Env {
  PyValue s;
  PyValue v;
  /// The current line's texts while its v is not converted (see LineText); nullptr when `v`
  /// holds the line. Must outlive the evaluation; line_v() converts and clears it.
  LineText* pending = nullptr;
  /// `v`, converted from `pending` first when that is set.
  const PyValue& line_v() {
    if (pending) {
      v = pending->converted();
      pending = nullptr;
    }
    return v;
  }
  double timestamp = 0;   ///< ll.timestamp, float(time_ms)
  /// ll.key: a view, so a line's key is not copied for every config reading it; its text
  /// must outlive the evaluations that read it.
  std::string_view key;
  std::int64_t lineno = 0;  ///< ll.lineno
  std::function<void(const std::string&)> enqueue_config;
};

struct Node;

/// A parsed expression. Throws PySyntaxError from parse.
class Expr {
 public:
  /// Parses one expression (surrounding blanks allowed).
  static Expr parse(std::string_view text);
  /// Evaluates it. Throws PyError where Python raises.
  PyValue eval(Env& env) const;
  /// The source text, stripped.
  const std::string& text() const { return text_; }
  /// The top node (for describing a check in words).
  const Node& root() const { return *root_; }
  /// True when its value depends only on constants and on which members v and v['metadata']
  /// have (`'x' in v['metadata']` and the like, combined by operators): the same for every
  /// line of one scanner shape (EventView::shape) while the line's v is unchanged.
  bool shape_determined() const { return shape_determined_; }

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
  bool shape_determined_ = false;
};

struct Stmt;

/// Parsed statements (PRE, POST, BEGIN code). Throws PySyntaxError from parse.
class Code {
 public:
  static Code parse(std::string_view text);
  /// Runs the statements in order. Throws PyError where Python raises (statements before
  /// the failing one keep their effect, as in Python).
  void exec(Env& env) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::shared_ptr<const std::vector<Stmt>> stmts_;
};

/// The AST, exposed so messages can describe common shapes of checks.
struct Node {
  enum Kind {
    kConst, kName, kList, kDict, kSubscript, kAttribute, kCall, kUnary, kBinary, kCompare,
    kAnd, kOr, kIfElse
  };
  Kind kind = kConst;
  PyValue constant;                 ///< kConst
  std::string name;                 ///< kName, kAttribute (attribute), kUnary/kBinary (operator)
  std::vector<std::string> ops;     ///< kCompare: the operators between kids
  std::vector<std::shared_ptr<const Node>> kids;
  /// Resolved when parsed, so evaluation compares no strings: kName which name, kUnary and
  /// kBinary the operator, kAttribute the ll./math. member, kSubscript and kCompare the
  /// shapes a LineText answers (v['value'], v['metadata'], `'x' in v['metadata']`).
  std::uint8_t code = 0;
  std::vector<std::uint8_t> op_codes;  ///< kCompare: `ops` resolved
};

struct Stmt {
  enum Kind { kExpr, kAssign, kAugAssign, kIf };
  Kind kind = kExpr;
  std::shared_ptr<const Node> target;  ///< kAssign/kAugAssign
  std::shared_ptr<const Node> value;   ///< the expression (kIf: the condition)
  std::string op;                      ///< kAugAssign: "+", "-", "*", "/"
  std::uint8_t op_code = 0;            ///< kAugAssign: `op` resolved
  std::vector<Stmt> body;              ///< kIf
};

/// Evaluates one node (used by Expr and by messages that show a sub-expression's value).
PyValue eval_node(const Node& node, Env& env);

}  // namespace mlperf::compliance
