// MLPerf Inference Power from v6.1: the nameplate power file, loaded as PyYAML's
// yaml.safe_load loads it and summed as the submission checker package's
// _sum_power_capacity_watts (nameplate.h).
#include "mlperf/inference/nameplate.h"

#include <yaml.h>

#include <boost/algorithm/string/case_conv.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <regex>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/mllog.h"
#include "mlperf/mllog/thread_cache.h"

namespace mlperf::inference {

namespace fs = std::filesystem;

namespace {

using Int = __int128;
using boost::algorithm::to_lower_copy;  // ASCII lower case (the C locale), as Python's str.lower() of ASCII

constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";

// yaml.safe_load raised: the message, with the line where known.
struct LoadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A Python exception inside _sum_power_capacity_watts ("TypeError: …").
struct SumError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------------------------
// The node graph, as PyYAML's Composer builds it from the parser's events: scalars with their
// tag (explicit, or resolved from a plain scalar's text), sequences, mappings; an alias is the
// anchored node itself (a cycle where it names a node being composed).

struct Node {
  enum Kind { Scalar, Sequence, Mapping } kind = Scalar;
  std::string tag;   // full tag ("tag:yaml.org,2002:int") or a local one ("!foo")
  std::string text;  // a scalar's value
  std::vector<int> items;                    // sequence
  std::vector<std::pair<int, int>> pairs;    // mapping
  std::size_t line = 0;                      // 1-based
};

// Each thread's compiled patterns, kept in a ThreadCache, not a `thread_local` map: glibc
// aborts the process when registering such an object's destructor cannot allocate.
using CompiledPatterns = std::map<const char*, std::regex>;

bool matches(const std::string& text, const char* pattern) {
  CompiledPatterns& compiled = ThreadCache<CompiledPatterns>::get();
  auto it = compiled.find(pattern);
  if (it == compiled.end()) it = compiled.emplace(pattern, std::regex(pattern)).first;
  return std::regex_match(text, it->second);
}

// PyYAML's implicit resolvers (resolver.py), tried in their order for a plain scalar's first
// character.
std::string resolve_plain(const std::string& v) {
  const char first = v.empty() ? '\0' : v[0];
  auto in = [&](std::string_view set) { return first != '\0' && set.find(first) != std::string_view::npos; };
  if (in("yYnNtTfFoO") &&
      matches(v, "yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF")) {
    return "bool";
  }
  if (in("-+0123456789.") &&
      matches(v, "[-+]?[0-9][0-9_]*\\.[0-9_]*([eE][-+][0-9]+)?|\\.[0-9][0-9_]*([eE][-+][0-9]+)?|"
                 "[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)")) {
    return "float";
  }
  if (in("-+0123456789") &&
      matches(v, "[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|"
                 "[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+")) {
    return "int";
  }
  if (first == '<' && v == "<<") return "merge";
  if ((first == '\0' || in("~nN")) && (v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL")) {
    return "null";
  }
  if (in("0123456789") &&
      matches(v, "[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \\t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}"
                 "(\\.[0-9]*)?([ \\t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?")) {
    return "timestamp";
  }
  if (first == '=' && v == "=") return "value";
  return "str";
}

class Composer {
 public:
  explicit Composer(std::string_view text) {
    if (!yaml_parser_initialize(&parser_)) throw std::bad_alloc();
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  }
  ~Composer() { yaml_parser_delete(&parser_); }
  Composer(const Composer&) = delete;
  Composer& operator=(const Composer&) = delete;

  // get_single_node: the one document's root, or -1 for a stream without one. Throws LoadError.
  int single_document() {
    Event e = next();
    expect(e, YAML_STREAM_START_EVENT);
    e = next();
    if (e.get().type == YAML_STREAM_END_EVENT) return -1;
    expect(e, YAML_DOCUMENT_START_EVENT);
    const int root = compose(next(), 0);
    expect(next(), YAML_DOCUMENT_END_EVENT);
    e = next();
    if (e.get().type != YAML_STREAM_END_EVENT) {
      throw LoadError(fmt::format("line {}: expected a single document in the stream, but found another document",
                                  e.get().start_mark.line + 1));
    }
    return root;
  }

  std::vector<Node> nodes;

 private:
  // One parser event, freed when it goes.
  class Event {
   public:
    Event() = default;
    Event(Event&& o) noexcept : e_(o.e_), live_(o.live_) { o.live_ = false; }
    Event& operator=(Event&& o) noexcept {
      if (this != &o) {
        if (live_) yaml_event_delete(&e_);
        e_ = o.e_;
        live_ = o.live_;
        o.live_ = false;
      }
      return *this;
    }
    ~Event() {
      if (live_) yaml_event_delete(&e_);
    }
    yaml_event_t& get() { return e_; }
    void set_live() { live_ = true; }

   private:
    yaml_event_t e_{};
    bool live_ = false;
  };

  Event next() {
    Event e;
    if (!yaml_parser_parse(&parser_, &e.get())) {
      if (parser_.error == YAML_MEMORY_ERROR) throw std::bad_alloc();
      const yaml_mark_t& mark = parser_.problem_mark;
      throw LoadError(fmt::format("line {}, column {}: {}{}", mark.line + 1, mark.column + 1,
                                  parser_.problem ? parser_.problem : "invalid YAML",
                                  parser_.context ? fmt::format(" ({})", parser_.context) : std::string()));
    }
    e.set_live();
    return e;
  }

  static void expect(Event& e, yaml_event_type_t type) {
    if (e.get().type != type) {
      throw LoadError(fmt::format("line {}: unexpected YAML event", e.get().start_mark.line + 1));
    }
  }
  static void expect(Event&& e, yaml_event_type_t type) { expect(e, type); }

  static std::string text_of(const yaml_char_t* s) { return s ? reinterpret_cast<const char*>(s) : ""; }

  // A tag as PyYAML's parser gives it: "!!int" → "tag:yaml.org,2002:int"; "" for none or the
  // non-specific "!".
  static std::string explicit_tag(const yaml_char_t* tag) {
    std::string t = text_of(tag);
    return t == "!" ? std::string() : t;
  }

  void anchor(const yaml_char_t* name, int id, std::size_t line) {
    if (!name) return;
    const std::string a = text_of(name);
    if (!anchors_.emplace(a, id).second) {
      throw LoadError(fmt::format("line {}: found duplicate anchor '{}'", line, a));
    }
  }

  // PyYAML composes recursively, two Python frames a level: under CPython's limit of 1,000
  // frames a document nested about 490 deep raises RecursionError (494 standalone; the
  // checker's own frames come first). Deeper than kMaxNesting is taken as that error.
  static constexpr int kMaxNesting = 480;

  int compose(Event e, int depth) {
    yaml_event_t& ev = e.get();
    const std::size_t line = ev.start_mark.line + 1;
    if (depth > kMaxNesting) {
      throw LoadError(fmt::format("line {}: RecursionError: maximum recursion depth exceeded (nested deeper than {})",
                                  line, kMaxNesting));
    }
    if (ev.type == YAML_ALIAS_EVENT) {
      const std::string a = text_of(ev.data.alias.anchor);
      auto it = anchors_.find(a);
      if (it == anchors_.end()) throw LoadError(fmt::format("line {}: found undefined alias '{}'", line, a));
      return it->second;
    }
    const int id = static_cast<int>(nodes.size());
    nodes.emplace_back();
    nodes[id].line = line;
    if (ev.type == YAML_SCALAR_EVENT) {
      nodes[id].text.assign(reinterpret_cast<const char*>(ev.data.scalar.value), ev.data.scalar.length);
      const std::string tag = explicit_tag(ev.data.scalar.tag);
      if (!tag.empty()) {
        nodes[id].tag = tag;
      } else if (ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        nodes[id].tag = std::string(kTagPrefix) + resolve_plain(nodes[id].text);
      } else {
        nodes[id].tag = std::string(kTagPrefix) + "str";
      }
      anchor(ev.data.scalar.anchor, id, line);
      return id;
    }
    if (ev.type == YAML_SEQUENCE_START_EVENT) {
      const std::string tag = explicit_tag(ev.data.sequence_start.tag);
      nodes[id].kind = Node::Sequence;
      nodes[id].tag = tag.empty() ? std::string(kTagPrefix) + "seq" : tag;
      anchor(ev.data.sequence_start.anchor, id, line);
      for (Event item = next(); item.get().type != YAML_SEQUENCE_END_EVENT; item = next()) {
        const int child = compose(std::move(item), depth + 1);
        nodes[id].items.push_back(child);
      }
      return id;
    }
    if (ev.type == YAML_MAPPING_START_EVENT) {
      const std::string tag = explicit_tag(ev.data.mapping_start.tag);
      nodes[id].kind = Node::Mapping;
      nodes[id].tag = tag.empty() ? std::string(kTagPrefix) + "map" : tag;
      anchor(ev.data.mapping_start.anchor, id, line);
      for (Event key = next(); key.get().type != YAML_MAPPING_END_EVENT; key = next()) {
        const int k = compose(std::move(key), depth + 1);
        const int v = compose(next(), depth + 1);
        nodes[id].pairs.emplace_back(k, v);
      }
      return id;
    }
    throw LoadError(fmt::format("line {}: unexpected YAML event", line));
  }

  yaml_parser_t parser_{};
  std::map<std::string, int> anchors_;
};

// ---------------------------------------------------------------------------------------------
// The Python values SafeConstructor makes of the nodes, as far as the sum can tell them apart.

struct Value {
  enum Kind { None, Bool, Integer, Float, Str, List, Dict, Other, Recursive } kind = None;
  bool b = false;
  Int i = 0;
  double f = 0;
  std::string s;  // Str: the text; Other: the Python type ("datetime.date", "bytes", "set", "tuple")
  std::vector<int> items;                  // List
  std::vector<std::pair<int, int>> pairs;  // Dict, in insertion order (a repeated key: its last value)
};

bool is_number(const Value& v) { return v.kind == Value::Bool || v.kind == Value::Integer || v.kind == Value::Float; }

// The Python type name, for messages.
std::string type_name(const Value& v) {
  switch (v.kind) {
    case Value::None: return "NoneType";
    case Value::Bool: return "bool";
    case Value::Integer: return "int";
    case Value::Float: return "float";
    case Value::Str: return "str";
    case Value::List: return "list";
    case Value::Dict:
    case Value::Recursive: return "dict";
    case Value::Other: return v.s;
  }
  return "object";
}

// A number as a long double, for comparing an int with a float.
long double as_long_double(const Value& v) {
  if (v.kind == Value::Bool) return v.b ? 1 : 0;
  if (v.kind == Value::Integer) return static_cast<long double>(v.i);
  return v.f;
}

Int as_int(const Value& v) { return v.kind == Value::Bool ? Int(v.b ? 1 : 0) : v.i; }

// Python's == of two dict keys (1 == 1.0 == True).
bool keys_equal(const Value& a, const Value& b) {
  if (is_number(a) && is_number(b)) {
    if (a.kind != Value::Float && b.kind != Value::Float) return as_int(a) == as_int(b);
    return as_long_double(a) == as_long_double(b);
  }
  if (a.kind != b.kind) return false;
  if (a.kind == Value::None) return true;
  return a.s == b.s;  // Str, Other (its type and text)
}

// A scalar's text without its '_' (construct_yaml_int and _float drop them first).
std::string without_underscores(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c != '_') out += c;
  }
  return out;
}

// The parts of a sexagesimal number ("1:30:05" → 1, 30, 05), most significant first.
std::vector<std::string> colon_parts(std::string_view value) {
  std::vector<std::string> parts;
  for (std::size_t at; (at = value.find(':')) != std::string_view::npos; value.remove_prefix(at + 1)) {
    parts.emplace_back(value.substr(0, at));
  }
  parts.emplace_back(value);
  return parts;
}

class Constructor {
 public:
  explicit Constructor(std::vector<Node>& nodes) : nodes_(nodes), state_(nodes.size(), -1) {}

  std::vector<Value> values;

  // construct_document: the value of node `id`. Throws LoadError.
  int construct(int id) {
    if (state_[id] >= 0) return state_[id];
    if (state_[id] == kBuilding) {
      // A cycle: PyYAML builds the object first and fills it later; the sum would recurse
      // without end (RecursionError).
      Value r;
      r.kind = Value::Recursive;
      return add(std::move(r));
    }
    state_[id] = kBuilding;
    const int v = build(id);
    state_[id] = v;
    return v;
  }

 private:
  static constexpr int kBuilding = -2;

  int add(Value v) {
    values.push_back(std::move(v));
    return static_cast<int>(values.size()) - 1;
  }

  [[noreturn]] void fail(int id, const std::string& what) {
    throw LoadError(fmt::format("line {}: {}", nodes_[id].line, what));
  }

  std::string short_tag(int id) const {
    const std::string& t = nodes_[id].tag;
    return t.rfind(kTagPrefix, 0) == 0 ? t.substr(kTagPrefix.size()) : "!" + t;
  }

  void expect_kind(int id, Node::Kind kind) {
    static const char* names[] = {"scalar", "sequence", "mapping"};
    if (nodes_[id].kind != kind) {
      fail(id, fmt::format("expected a {} node, but found {}", names[kind], names[nodes_[id].kind]));
    }
  }

  int build(int id) {
    const std::string tag = short_tag(id);
    Value v;
    if (tag == "null") {
      expect_kind(id, Node::Scalar);
      return add(v);
    }
    if (tag == "bool") {
      expect_kind(id, Node::Scalar);
      const std::string lower = to_lower_copy(nodes_[id].text);
      if (lower != "yes" && lower != "no" && lower != "true" && lower != "false" && lower != "on" && lower != "off") {
        fail(id, fmt::format("KeyError: '{}'", lower));
      }
      v.kind = Value::Bool;
      v.b = lower == "yes" || lower == "true" || lower == "on";
      return add(v);
    }
    if (tag == "int") {
      expect_kind(id, Node::Scalar);
      v.kind = Value::Integer;
      v.i = construct_int(id);
      return add(v);
    }
    if (tag == "float") {
      expect_kind(id, Node::Scalar);
      v.kind = Value::Float;
      v.f = construct_float(id);
      return add(v);
    }
    if (tag == "str") {
      expect_kind(id, Node::Scalar);
      v.kind = Value::Str;
      v.s = nodes_[id].text;
      return add(v);
    }
    if (tag == "timestamp") {
      expect_kind(id, Node::Scalar);
      v.kind = Value::Other;
      v.s = construct_timestamp(id);
      return add(v);
    }
    if (tag == "binary") {  // base64 is not decoded: the sum never reads bytes' contents
      expect_kind(id, Node::Scalar);
      v.kind = Value::Other;
      v.s = "bytes";
      return add(v);
    }
    if (tag == "seq" || tag == "omap" || tag == "pairs") {
      expect_kind(id, Node::Sequence);
      v.kind = Value::List;
      const int out = add(v);
      std::vector<int> items;
      for (int child : nodes_[id].items) {
        if (tag == "seq") {
          items.push_back(construct(child));
          continue;
        }
        // omap, pairs: a list of (key, value) tuples, each from a mapping of one pair.
        if (nodes_[child].kind != Node::Mapping || nodes_[child].pairs.size() != 1) {
          fail(child, fmt::format("while constructing an ordered map: expected a single mapping item"));
        }
        construct(nodes_[child].pairs[0].first);
        construct(nodes_[child].pairs[0].second);
        Value tuple;
        tuple.kind = Value::Other;
        tuple.s = "tuple";
        items.push_back(add(std::move(tuple)));
      }
      values[out].items = std::move(items);
      return out;
    }
    if (tag == "map" || tag == "set") {
      expect_kind(id, Node::Mapping);
      v.kind = tag == "map" ? Value::Dict : Value::Other;
      if (tag == "set") v.s = "set";
      const int out = add(v);
      std::vector<std::pair<int, int>> pairs;
      std::vector<int> visiting;
      for (const auto& [k, val] : flatten(id, visiting)) {
        const int key = construct(k);
        const Value& kv = values[key];
        if (kv.kind == Value::List || kv.kind == Value::Dict || kv.kind == Value::Recursive ||
            (kv.kind == Value::Other && kv.s == "set")) {
          fail(k, "while constructing a mapping: found unhashable key");
        }
        const int value = construct(val);
        auto same = std::find_if(pairs.begin(), pairs.end(),
                                 [&](const std::pair<int, int>& p) { return keys_equal(values[p.first], values[key]); });
        if (same == pairs.end()) {
          pairs.emplace_back(key, value);
        } else {
          same->second = value;  // dict[key] = value: the first key stays, the last value wins
        }
      }
      if (tag == "map") values[out].pairs = std::move(pairs);
      return out;
    }
    // Tags SafeConstructor has no constructor for: "merge" and "value" outside a mapping key,
    // local tags ("!foo"), other global ones.
    fail(id, fmt::format("could not determine a constructor for the tag '{}'", nodes_[id].tag));
  }

  // SafeConstructor.flatten_mapping: the pairs of mapping `id` with its `<<` merges first
  // (a mapping, or a sequence of mappings whose later members come first), a `=` key as text.
  std::vector<std::pair<int, int>> flatten(int id, std::vector<int>& visiting) {
    if (std::find(visiting.begin(), visiting.end(), id) != visiting.end()) {
      fail(id, "while constructing a mapping: a merge that includes itself");
    }
    visiting.push_back(id);
    std::vector<std::pair<int, int>> merged, own;
    for (const auto& [k, v] : nodes_[id].pairs) {
      if (nodes_[k].tag == std::string(kTagPrefix) + "merge") {
        if (nodes_[v].kind == Node::Mapping) {
          auto sub = flatten(v, visiting);
          merged.insert(merged.end(), sub.begin(), sub.end());
        } else if (nodes_[v].kind == Node::Sequence) {
          std::vector<std::vector<std::pair<int, int>>> subs;
          for (int s : nodes_[v].items) {
            if (nodes_[s].kind != Node::Mapping) {
              fail(s, "while constructing a mapping: expected a mapping for merging");
            }
            subs.push_back(flatten(s, visiting));
          }
          for (auto it = subs.rbegin(); it != subs.rend(); ++it) merged.insert(merged.end(), it->begin(), it->end());
        } else {
          fail(v, "while constructing a mapping: expected a mapping or list of mappings for merging");
        }
        continue;
      }
      if (nodes_[k].tag == std::string(kTagPrefix) + "value") nodes_[k].tag = std::string(kTagPrefix) + "str";
      own.emplace_back(k, v);
    }
    visiting.pop_back();
    merged.insert(merged.end(), own.begin(), own.end());
    return merged;
  }

  // Digits of `text` in `base` into `out`; false for none or another character (Python's int()).
  static bool parse_digits(std::string_view text, int base, Int& out) {
    if (text.empty()) return false;
    out = 0;
    for (char c : text) {
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
      if (d >= base) return false;
      if (__builtin_mul_overflow(out, Int(base), &out) || __builtin_add_overflow(out, Int(d), &out)) {
        throw SumError("OverflowError: an integer beyond 128 bits (Python's ints have no limit; this tool's do)");
      }
    }
    return true;
  }

  // construct_yaml_int.
  Int construct_int(int id) {
    std::string value = without_underscores(nodes_[id].text);
    if (value.empty()) fail(id, "ValueError: invalid literal for int() with base 10: ''");
    Int sign = 1;
    if (value[0] == '-') sign = -1;
    if (value[0] == '+' || value[0] == '-') value.erase(0, 1);
    Int out = 0;
    auto digits = [&](std::string_view text, int base) {
      if (!parse_digits(text, base, out)) {
        fail(id, fmt::format("ValueError: invalid literal for int() with base {}: '{}'", base, text));
      }
      return out;
    };
    if (value == "0") return 0;
    if (value.rfind("0b", 0) == 0) return sign * digits(std::string_view(value).substr(2), 2);
    if (value.rfind("0x", 0) == 0) return sign * digits(std::string_view(value).substr(2), 16);
    if (!value.empty() && value[0] == '0') return sign * digits(value, 8);
    if (value.find(':') != std::string::npos) {
      // Sexagesimal: the parts, least significant first, times powers of 60.
      const std::vector<std::string> parts = colon_parts(value);
      Int total = 0, base = 1;
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        total += digits(*it, 10) * base;
        base *= 60;
      }
      return sign * total;
    }
    return sign * digits(value, 10);
  }

  // Python's float() of text without '_': optional blanks, a decimal number or inf/infinity/nan.
  static bool python_float(std::string text, double& out) {
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
    while (!text.empty() && blank(text.back())) text.pop_back();
    std::size_t start = 0;
    while (start < text.size() && blank(text[start])) ++start;
    text.erase(0, start);
    std::string body = text;
    if (!body.empty() && (body[0] == '+' || body[0] == '-')) body.erase(0, 1);
    const std::string lower = to_lower_copy(body);
    const bool word = lower == "inf" || lower == "infinity" || lower == "nan";
    if (!word && !matches(body, "([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?")) return false;
    out = std::strtod(text.c_str(), nullptr);
    return true;
  }

  // construct_yaml_float.
  double construct_float(int id) {
    std::string value = to_lower_copy(without_underscores(nodes_[id].text));
    double sign = 1;
    if (!value.empty() && value[0] == '-') sign = -1;
    if (!value.empty() && (value[0] == '+' || value[0] == '-')) value.erase(0, 1);
    if (value == ".inf") return sign * std::numeric_limits<double>::infinity();
    if (value == ".nan") return std::numeric_limits<double>::quiet_NaN();
    auto to_float = [&](const std::string& text) {
      double d = 0;
      if (!python_float(text, d)) fail(id, fmt::format("ValueError: could not convert string to float: '{}'", text));
      return d;
    };
    if (value.find(':') != std::string::npos) {
      const std::vector<std::string> parts = colon_parts(value);
      double total = 0, base = 1;
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        total += to_float(*it) * base;
        base *= 60;
      }
      return sign * total;
    }
    return sign * to_float(value);
  }

  // construct_yaml_timestamp: a date, or a datetime (aware with a zone); the ranges Python's
  // date, datetime and timezone accept.
  std::string construct_timestamp(int id) {
    static const std::regex re(
        "([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \\t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\\.([0-9]*))?"
        "(?:[ \\t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?");
    std::smatch m;
    const std::string& text = nodes_[id].text;
    if (!std::regex_match(text, m, re)) fail(id, fmt::format("ValueError: not a timestamp: '{}'", text));
    const int year = std::stoi(m[1]), month = std::stoi(m[2]), day = std::stoi(m[3]);
    if (year < 1) fail(id, fmt::format("ValueError: year {} is out of range", year));
    if (month < 1 || month > 12) fail(id, "ValueError: month must be in 1..12");
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (day < 1 || day > days[month - 1] + (month == 2 && leap ? 1 : 0)) fail(id, "ValueError: day is out of range for month");
    if (!m[4].matched) return "datetime.date";
    if (std::stoi(m[4]) > 23) fail(id, "ValueError: hour must be in 0..23");
    if (std::stoi(m[5]) > 59) fail(id, "ValueError: minute must be in 0..59");
    if (std::stoi(m[6]) > 59) fail(id, "ValueError: second must be in 0..59");
    if (!m[8].matched) return "datetime.datetime";
    if (m[8] != "Z") {
      const int minutes = std::stoi(m[10]) * 60 + (m[11].matched ? std::stoi(m[11]) : 0);
      if (minutes >= 24 * 60) {
        fail(id, "ValueError: offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24)");
      }
    }
    return "datetime.datetime+tz";  // naive and aware datetimes do not compare
  }

  std::vector<Node>& nodes_;
  std::vector<int> state_;  // per node: its value, -1 not yet, kBuilding
};

// ---------------------------------------------------------------------------------------------
// _sum_power_capacity_watts over the values.

// A Python number as sum() builds it: an exact int until a float comes, then a float.
struct Sum {
  bool is_float = false;
  Int i = 0;
  double f = 0;

  // result = result + item, as builtin sum's int and float paths add.
  void add(const Value& v) {
    if (!is_number(v)) throw SumError(fmt::format("TypeError: unsupported operand type(s) for +: '{}' and '{}'",
                                                  is_float ? "float" : "int", type_name(v)));
    add_number(v.kind == Value::Float, v.kind == Value::Float ? 0 : as_int(v), v.f);
  }
  void add(const Sum& s) { add_number(s.is_float, s.i, s.f); }

 private:
  void add_number(bool item_float, Int item_i, double item_f) {
    if (!is_float && !item_float) {
      if (__builtin_add_overflow(i, item_i, &i)) {
        throw SumError("OverflowError: a sum beyond 128 bits (Python's ints have no limit; this tool's do)");
      }
      return;
    }
    if (!is_float) {
      is_float = true;
      f = static_cast<double>(i);
    }
    f += item_float ? item_f : static_cast<double>(item_i);
  }
};

class Summer {
 public:
  explicit Summer(const std::vector<Value>& values) : values_(values) {}

  // A value reached through aliases many times is summed once (the figure is the same each
  // time): Python walks every path, which a file of nested aliases makes exponential.
  Sum sum(int id, int depth = 0) {
    if (auto it = memo_.find(id); it != memo_.end()) return it->second;
    Sum s = sum_uncached(id, depth);
    memo_.emplace(id, s);
    return s;
  }

 private:
  Sum sum_uncached(int id, int depth) {
    // CPython's default recursion limit is 1,000 frames; a cycle reaches it.
    if (depth > 900) throw SumError("RecursionError: maximum recursion depth exceeded");
    const Value& v = values_[id];
    Sum total;
    if (v.kind == Value::Recursive) throw SumError("RecursionError: maximum recursion depth exceeded");
    if (v.kind == Value::Dict) {
      // keys_lower = {k.lower(): k for k in data}: every key must be text.
      std::map<std::string, int> keys_lower;  // lower-cased key → its value (the last such key's)
      for (const auto& [k, val] : v.pairs) {
        const Value& key = values_[k];
        if (key.kind != Value::Str) {
          throw SumError(fmt::format("AttributeError: '{}' object has no attribute 'lower'", type_name(key)));
        }
        keys_lower[to_lower_copy(key.s)] = val;
      }
      auto psus = keys_lower.find("psus");
      auto min_psus = keys_lower.find("min psus needed");
      if (psus != keys_lower.end() && min_psus != keys_lower.end()) return power_supplies(psus->second, min_psus->second);
      for (const auto& [k, val] : v.pairs) {
        const Value::Kind kind = values_[val].kind;
        if (kind == Value::Dict || kind == Value::List || kind == Value::Recursive) total.add(sum(val, depth + 1));
      }
      return total;
    }
    if (v.kind == Value::List) {
      for (int item : v.items) total.add(sum(item, depth + 1));
    }
    return total;
  }

  // sum(sorted([psu.get("PowerCapacityWatts", 0) for psu in psus], reverse=True)[:min_psus])
  Sum power_supplies(int psus_id, int min_id) {
    const Value& psus = values_[psus_id];
    std::vector<const Value*> capacities;
    Value zero;
    zero.kind = Value::Integer;
    auto no_get = [](const std::string& type) {
      return SumError(fmt::format("AttributeError: '{}' object has no attribute 'get'", type));
    };
    if (psus.kind == Value::List) {
      for (int p : psus.items) {
        const Value& psu = values_[p];
        if (psu.kind != Value::Dict) throw no_get(type_name(psu));
        const Value* capacity = &zero;
        for (const auto& [k, val] : psu.pairs) {
          if (values_[k].kind == Value::Str && values_[k].s == "PowerCapacityWatts") capacity = &values_[val];
        }
        capacities.push_back(capacity);
      }
    } else if (psus.kind == Value::Dict) {
      if (!psus.pairs.empty()) throw no_get(type_name(values_[psus.pairs.front().first]));
    } else if (psus.kind == Value::Str) {
      if (!psus.s.empty()) throw no_get("str");
    } else {
      throw SumError(fmt::format("TypeError: '{}' object is not iterable", type_name(psus)));
    }
    // sorted(reverse=True): stable, largest first; two values of kinds Python cannot order
    // raise (every element is compared at least once when there are two).
    if (capacities.size() > 1) {
      auto order_class = [](const Value& c) -> std::string {
        if (is_number(c)) return "number";
        if (c.kind == Value::Str || c.kind == Value::List) return type_name(c);
        if (c.kind == Value::Other) return "other " + c.s;
        return "";  // None, dict: no order at all
      };
      const std::string first = order_class(*capacities.front());
      for (const Value* c : capacities) {
        if (first.empty() || order_class(*c) != first) {
          throw SumError(fmt::format("TypeError: '<' not supported between instances of '{}' and '{}'",
                                     type_name(*c), type_name(*capacities.front())));
        }
      }
      // Only numbers are summed; other kinds raise below unless none is taken, so their order
      // does not matter.
      if (first == "number") {
        std::stable_sort(capacities.begin(), capacities.end(),
                         [](const Value* a, const Value* b) { return greater(*a, *b); });
      }
    }
    // [:min_psus]: an int (bool) or None; a negative one counts from the end.
    const Value& min = values_[min_id];
    std::size_t take = capacities.size();
    if (min.kind == Value::Integer || min.kind == Value::Bool) {
      const Int n = as_int(min);
      const Int size = static_cast<Int>(capacities.size());
      const Int end = n >= 0 ? std::min(n, size) : std::max(Int(0), size + n);
      take = static_cast<std::size_t>(end);
    } else if (min.kind != Value::None) {
      throw SumError("TypeError: slice indices must be integers or None or have an __index__ method");
    }
    Sum total;
    for (std::size_t k = 0; k < take; ++k) total.add(*capacities[k]);
    return total;
  }

  // a > b for two numbers, exactly (an int against a float as Python compares them).
  static bool greater(const Value& a, const Value& b) {
    if (a.kind != Value::Float && b.kind != Value::Float) return as_int(a) > as_int(b);
    return as_long_double(a) > as_long_double(b);
  }

  const std::vector<Value>& values_;
  std::map<int, Sum> memo_;
};

// A Python number as JSON: an int within 64 bits as an integer, beyond as a float; a float's
// non-finite values as the text Python prints.
nlohmann::json sum_json(const Sum& s) {
  if (!s.is_float) {
    if (s.i >= std::numeric_limits<std::int64_t>::min() && s.i <= std::numeric_limits<std::int64_t>::max()) {
      return static_cast<std::int64_t>(s.i);
    }
    if (s.i > 0 && s.i <= static_cast<Int>(std::numeric_limits<std::uint64_t>::max())) return static_cast<std::uint64_t>(s.i);
    return static_cast<double>(s.i);
  }
  if (std::isnan(s.f)) return "nan";
  if (std::isinf(s.f)) return s.f > 0 ? "inf" : "-inf";
  return s.f;
}

// The constructed value `id` as JSON (yaml_safe_load_json): a mapping's text keys as they are,
// any other key as "\x01" and its Python type (no dotted path a reader asks for can name it).
nlohmann::json value_json(const std::vector<Value>& values, int id, int depth) {
  const Value& v = values[id];
  if (depth > 480) throw LoadError("nesting deeper than 480 levels");
  switch (v.kind) {
    case Value::None:
    case Value::Recursive: return nullptr;
    case Value::Bool: return v.b;
    case Value::Integer:
      if (v.i >= std::numeric_limits<std::int64_t>::min() && v.i <= std::numeric_limits<std::int64_t>::max()) {
        return static_cast<std::int64_t>(v.i);
      }
      if (v.i > 0 && v.i <= static_cast<Int>(std::numeric_limits<std::uint64_t>::max())) {
        return static_cast<std::uint64_t>(v.i);
      }
      return static_cast<double>(v.i);
    case Value::Float: return v.f;
    case Value::Str: return v.s;
    case Value::Other: return "<" + v.s + ">";
    case Value::List: {
      nlohmann::json out = nlohmann::json::array();
      for (int item : v.items) out.push_back(value_json(values, item, depth + 1));
      return out;
    }
    case Value::Dict: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& [key, value] : v.pairs) {
        const Value& k = values[key];
        out[k.kind == Value::Str ? k.s : "\x01" + type_name(k)] = value_json(values, value, depth + 1);
      }
      return out;
    }
  }
  return nullptr;
}

}  // namespace

NameplatePower nameplate_power_of_text(std::string_view yaml_text, std::string file) {
  NameplatePower out;
  out.file = std::move(file);
  out.exists = true;
  // Python's open() in text mode decodes UTF-8 strictly (the reader raises on other bytes).
  if (auto bad = first_invalid_utf8(yaml_text)) {
    out.load_error = fmt::format("UnicodeDecodeError: byte {} is not UTF-8 (the checker's open() decodes UTF-8)", *bad);
    return out;
  }
  try {
    Composer composer(yaml_text);
    const int root_node = composer.single_document();
    if (root_node < 0) {
      out.null_document = true;
      return out;
    }
    Constructor constructor(composer.nodes);
    const int root = constructor.construct(root_node);
    if (constructor.values[root].kind == Value::None) {
      out.null_document = true;
      return out;
    }
    try {
      out.design_power_watts = sum_json(Summer(constructor.values).sum(root));
    } catch (const SumError& e) {
      out.sum_error = e.what();
    }
  } catch (const LoadError& e) {
    out.load_error = e.what();
  } catch (const SumError& e) {  // an int beyond 128 bits while loading
    out.sum_error = e.what();
  }
  return out;
}

NameplatePower read_nameplate_power(const fs::path& file) {
  NameplatePower out;
  out.file = file.string();
  std::error_code ec;
  if (!fs::exists(file, ec)) return out;
  bool read_failed = false;
  const std::optional<std::string> text = read_whole_file(file, &read_failed);
  if (!text || read_failed) {
    out.exists = true;
    out.load_error = "cannot be read (the checker's open() raises)";
    return out;
  }
  return nameplate_power_of_text(*text, out.file);
}

NameplateJudgment judge_nameplate_power(const NameplatePower& nameplate,
                                        const std::optional<std::string>& system_power_capacity_json) {
  NameplateJudgment out;
  ValidityCheck& c = out.check;
  c.name = "nameplate_power";
  c.limit = "the design power: system_power_capacity, else the sum of the minimum PSUs' PowerCapacityWatts";
  c.file = nameplate.file;
  c.passed = true;
  if (system_power_capacity_json) {
    out.design_power_watts = nlohmann::json::parse(*system_power_capacity_json);
    c.value = out.design_power_watts;
    return out;
  }
  if (!nameplate.exists) {
    out.warning = fmt::format(
        "{}: the nameplate power file is missing: the checker only warns, and the power submission has no design power",
        nameplate.file);
    return out;
  }
  if (nameplate.load_error) return out;  // judged where the checker stops (nameplate_power_file)
  if (nameplate.null_document) {
    c.passed = false;
    c.message = fmt::format("{} is empty (it loads as None): a power submission's design power cannot be read",
                            nameplate.file);
    return out;
  }
  if (!nameplate.sum_error.empty()) {
    c.passed = false;
    c.message = fmt::format("{}: summing the PSU capacities raises {} (the checker fails the power submission)",
                            nameplate.file, nameplate.sum_error);
    return out;
  }
  out.design_power_watts = nameplate.design_power_watts;
  c.value = out.design_power_watts;
  return out;
}

std::optional<nlohmann::json> yaml_safe_load_json(std::string_view yaml_text, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<nlohmann::json> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  if (auto bad = first_invalid_utf8(yaml_text)) return fail(fmt::format("byte {} is not UTF-8", *bad));
  try {
    Composer composer(yaml_text);
    const int root_node = composer.single_document();
    if (root_node < 0) return nlohmann::json();
    Constructor constructor(composer.nodes);
    return value_json(constructor.values, constructor.construct(root_node), 0);
  } catch (const LoadError& e) {
    return fail(e.what());
  } catch (const SumError& e) {  // an int beyond 128 bits
    return fail(e.what());
  }
}

}  // namespace mlperf::inference
