// The Python subset of the compliance configs: tokenizer, recursive-descent parser, evaluator.
// Semantics follow CPython where the configs can reach them (numeric tower bool < int <
// float, chained comparisons, short-circuit and/or returning an operand, errors).

#include "mlperf/compliance/pyexpr.h"

#include "mlperf/mllog/mllog.h"

#include <new>
#include <charconv>
#include <cmath>
#include <algorithm>
#include <limits>
#include <set>
#include <span>
#include <stdexcept>

#include <boost/container/small_vector.hpp>
#include <fmt/format.h>

namespace mlperf::compliance {

PyError::PyError(std::string t, const std::string& message)
    : std::runtime_error(t + ": " + message), type(std::move(t)) {}

const char* PyValue::type_name() const {
  static const char* names[] = {"NoneType", "bool", "int", "float", "str", "list", "dict"};
  return names[v.index()];
}

PyDict::iterator PyDict::find(std::string_view key) {
  return items_.begin() + (std::as_const(*this).find(key) - items_.cbegin());
}

PyDict::const_iterator PyDict::find(std::string_view key) const {
  for (auto it = items_.begin(); it != items_.end(); ++it) {
    // Lengths first: most keys differ in length, and comparing a string with a view always
    // calls memcmp.
    if (it->first.size() == key.size() && std::string_view(it->first) == key) return it;
  }
  return items_.end();
}

PyValue& PyDict::operator[](std::string_view key) {
  auto it = find(key);
  if (it != items_.end()) return it->second;
  items_.emplace_back(std::string(key), PyValue());
  return items_.back().second;
}

const PyValue& PyDict::at(std::string_view key) const {
  auto it = find(key);
  if (it == items_.end()) throw std::out_of_range(std::string(key));
  return it->second;
}

PyValue make_dict() { return PyValue(std::make_shared<PyDict>()); }

namespace {
PyValue deep_copy(const PyValue& value, std::vector<std::pair<const void*, PyValue>>& copied) {
  const void* container = value.list() ? static_cast<const void*>(value.list())
                                       : static_cast<const void*>(value.dict());
  if (!container) return value;
  for (const auto& [from, to] : copied) {
    if (from == container) return to;
  }
  if (const PyList* l = value.list()) {
    auto out = std::make_shared<PyList>();
    copied.emplace_back(container, PyValue(out));
    out->reserve(l->size());
    for (const PyValue& item : *l) out->push_back(deep_copy(item, copied));
    return PyValue(out);
  }
  const PyDict& d = *value.dict();
  auto out = std::make_shared<PyDict>();
  copied.emplace_back(container, PyValue(out));
  out->reserve(d.size());
  for (const auto& [key, item] : d) (*out)[key] = deep_copy(item, copied);
  return PyValue(out);
}
}  // namespace

PyValue deep_copy(const PyValue& value) {
  std::vector<std::pair<const void*, PyValue>> copied;
  return deep_copy(value, copied);
}

namespace {

// from_json for nlohmann::json and nlohmann::ordered_json: an object's members are inserted
// in the order the DOM iterates them.
template <class Json>
PyValue from_json_dom(const Json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return {};
    case nlohmann::json::value_t::boolean: return PyValue(j.template get<bool>());
    case nlohmann::json::value_t::number_integer: return PyValue(j.template get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: {
      auto u = j.template get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return PyValue(static_cast<std::int64_t>(u));
      }
      return PyValue(static_cast<double>(u));  // beyond int64: approximated
    }
    case nlohmann::json::value_t::number_float: return PyValue(j.template get<double>());
    case nlohmann::json::value_t::string: return PyValue(j.template get<std::string>());
    case nlohmann::json::value_t::array: {
      auto l = std::make_shared<PyList>();
      for (const auto& e : j) l->push_back(from_json_dom(e));
      return PyValue(l);
    }
    case nlohmann::json::value_t::object: {
      auto d = std::make_shared<PyDict>();
      for (auto it = j.begin(); it != j.end(); ++it) (*d)[it.key()] = from_json_dom(it.value());
      return PyValue(d);
    }
    default: return {};
  }
}

}  // namespace

PyValue from_json(const nlohmann::json& j) { return from_json_dom(j); }

PyValue from_json(const nlohmann::ordered_json& j) { return from_json_dom(j); }

namespace {

// A recursive reader of validated JSON text (see from_json_text); `at` moves past what it read.
class JsonText {
 public:
  explicit JsonText(std::string_view text) : t_(text) {}

  PyValue value(int depth = 0) {
    skip();
    if (at_ >= t_.size() || depth > 1000) return {};
    char c = t_[at_];
    if (c == '{') {
      ++at_;
      auto d = std::make_shared<PyDict>();
      d->reserve(6);
      skip();
      if (peek() == '}') {
        ++at_;
        return PyValue(d);
      }
      while (at_ < t_.size()) {
        skip();
        std::string key = string();
        skip();
        if (peek() == ':') ++at_;
        (*d)[std::move(key)] = value(depth + 1);
        skip();
        if (peek() == ',') {
          ++at_;
          continue;
        }
        if (peek() == '}') ++at_;
        break;
      }
      return PyValue(d);
    }
    if (c == '[') {
      ++at_;
      auto l = std::make_shared<PyList>();
      skip();
      if (peek() == ']') {
        ++at_;
        return PyValue(l);
      }
      while (at_ < t_.size()) {
        l->push_back(value(depth + 1));
        skip();
        if (peek() == ',') {
          ++at_;
          continue;
        }
        if (peek() == ']') ++at_;
        break;
      }
      return PyValue(l);
    }
    if (c == '"') return PyValue(string());
    // The literals by their first byte (numbers, the usual scalar, compare nothing).
    if (c == 't' && t_.compare(at_, 4, "true") == 0) return at_ += 4, PyValue(true);
    if (c == 'f' && t_.compare(at_, 5, "false") == 0) return at_ += 5, PyValue(false);
    if (c == 'n' && t_.compare(at_, 4, "null") == 0) return at_ += 4, PyValue();
    return number();
  }

 private:
  char peek() const { return at_ < t_.size() ? t_[at_] : '\0'; }
  void skip() {
    while (at_ < t_.size() && (t_[at_] == ' ' || t_[at_] == '\t' || t_[at_] == '\n' || t_[at_] == '\r')) ++at_;
  }
  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::uint32_t hex4() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4 && at_ < t_.size(); ++i, ++at_) {
      char h = t_[at_];
      v = v * 16 + static_cast<std::uint32_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    return v;
  }
  std::string string() {
    std::string out;
    if (peek() != '"') return out;
    ++at_;
    while (at_ < t_.size() && t_[at_] != '"') {
      // Runs without escapes are copied whole.
      std::size_t stop = at_;
      while (stop < t_.size() && t_[stop] != '"' && t_[stop] != '\\') ++stop;
      out.append(t_.substr(at_, stop - at_));
      at_ = stop;
      if (at_ >= t_.size() || t_[at_] == '"') break;
      ++at_;  // the backslash
      char e = peek();
      ++at_;
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && peek() == '\\' && at_ + 1 < t_.size() && t_[at_ + 1] == 'u') {
            at_ += 2;
            std::uint32_t low = hex4();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: out += e;
      }
    }
    ++at_;
    return out;
  }
  PyValue number() {
    std::size_t start = at_;
    bool integral = true;
    while (at_ < t_.size()) {
      char c = t_[at_];
      if (c == '.' || c == 'e' || c == 'E') integral = false;
      else if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+')) break;
      ++at_;
    }
    std::string_view text = t_.substr(start, at_ - start);
    if (integral) {
      std::int64_t i = 0;
      auto r = std::from_chars(text.data(), text.data() + text.size(), i);
      if (r.ec == std::errc()) return PyValue(i);
    }
    double d = 0;
    std::from_chars(text.data(), text.data() + text.size(), d);
    return PyValue(d);
  }

  std::string_view t_;
  std::size_t at_ = 0;
};

std::string str_repr(const std::string& s) {
  char quote = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  std::string out(1, quote);
  for (char c : s) {
    if (c == quote || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += quote;
  return out;
}

}  // namespace

PyValue from_json_text(std::string_view text) { return JsonText(text).value(); }

std::string repr(const PyValue& value) {
  switch (value.v.index()) {
    case 0: return "None";
    case 1: return std::get<bool>(value.v) ? "True" : "False";
    case 2: return std::to_string(std::get<std::int64_t>(value.v));
    case 3: return python_float_repr(std::get<double>(value.v));
    case 4: return str_repr(std::get<std::string>(value.v));
    case 5: {
      std::string out = "[";
      for (const auto& e : *value.list()) out += (out.size() > 1 ? ", " : "") + repr(e);
      return out + "]";
    }
    default: {
      std::string out = "{";
      for (const auto& [k, e] : *value.dict()) out += (out.size() > 1 ? ", " : "") + str_repr(k) + ": " + repr(e);
      return out + "}";
    }
  }
}

bool truthy(const PyValue& value) {
  switch (value.v.index()) {
    case 0: return false;
    case 1: return std::get<bool>(value.v);
    case 2: return std::get<std::int64_t>(value.v) != 0;
    case 3: return std::get<double>(value.v) != 0.0;
    case 4: return !std::get<std::string>(value.v).empty();
    case 5: return !value.list()->empty();
    default: return !value.dict()->empty();
  }
}

namespace {

bool is_number(const PyValue& x) { return x.v.index() >= 1 && x.v.index() <= 3; }
bool is_int_like(const PyValue& x) { return x.v.index() == 1 || x.v.index() == 2; }
std::int64_t as_int(const PyValue& x) {
  return x.v.index() == 1 ? std::int64_t{std::get<bool>(x.v)} : std::get<std::int64_t>(x.v);
}
double as_float(const PyValue& x) {
  return x.v.index() == 3 ? std::get<double>(x.v) : static_cast<double>(as_int(x));
}

[[noreturn]] void type_error(const std::string& what) { throw PyError("TypeError", what); }

// -1, 0, 1 for numbers (Python compares int with float exactly; doubles are close enough
// for the configs' constants).
int compare_numbers(const PyValue& a, const PyValue& b) {
  if (is_int_like(a) && is_int_like(b)) {
    auto x = as_int(a), y = as_int(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  double x = as_float(a), y = as_float(b);
  if (std::isnan(x) || std::isnan(y)) return 2;  // unordered
  return x < y ? -1 : x > y ? 1 : 0;
}

}  // namespace

bool py_equal(const PyValue& a, const PyValue& b) {
  if (is_number(a) && is_number(b)) return compare_numbers(a, b) == 0;
  if (a.v.index() != b.v.index()) return false;
  switch (a.v.index()) {
    case 0: return true;
    case 4: return *a.str() == *b.str();
    case 5: {
      const auto &x = *a.list(), &y = *b.list();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!py_equal(x[i], y[i])) return false;
      }
      return true;
    }
    default: {
      const auto &x = *a.dict(), &y = *b.dict();
      if (x.size() != y.size()) return false;
      for (const auto& [k, e] : x) {
        auto it = y.find(k);
        if (it == y.end() || !py_equal(e, it->second)) return false;
      }
      return true;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Tokens

namespace {

struct Token {
  enum Kind { kEnd, kNumber, kString, kName, kOp, kNewline };
  Kind kind = kEnd;
  std::string text;  // operator, name, decoded string
  PyValue number;
  int indent = 0;    // kNewline: indentation of the next line
};

std::vector<Token> tokenize(std::string_view src) {
  std::vector<Token> out;
  std::size_t i = 0;
  int depth = 0;
  auto error = [&](const std::string& what) {
    throw PySyntaxError(fmt::format("{} at offset {} of `{}`", what, i, src));
  };
  while (i < src.size()) {
    char c = src[i];
    if (c == '\n') {
      ++i;
      if (depth > 0) continue;
      int indent = 0;
      while (i < src.size() && (src[i] == ' ' || src[i] == '\t')) ++i, ++indent;
      if (i < src.size() && src[i] == '\n') continue;  // blank line
      if (i < src.size() && src[i] == '#') continue;   // comment line: handled below
      out.push_back({Token::kNewline, "", {}, indent});
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < src.size() && src[i] != '\n') ++i;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < src.size() && std::isdigit(static_cast<unsigned char>(src[i + 1])))) {
      std::string digits;
      bool is_float = false;
      while (i < src.size()) {
        char d = src[i];
        if (std::isdigit(static_cast<unsigned char>(d))) {
          digits += d;
        } else if (d == '_') {
        } else if (d == '.') {
          is_float = true;
          digits += d;
        } else if (d == 'e' || d == 'E') {
          is_float = true;
          digits += d;
          if (i + 1 < src.size() && (src[i + 1] == '+' || src[i + 1] == '-')) digits += src[++i];
        } else {
          break;
        }
        ++i;
      }
      Token t{Token::kNumber, digits, {}, 0};
      try {
        if (is_float) {
          t.number = PyValue(std::stod(digits));
        } else {
          t.number = PyValue(static_cast<std::int64_t>(std::stoll(digits)));
        }
      } catch (const std::bad_alloc&) {
        throw;  // out of memory is never a finding: main.cc says so, exit 2
      } catch (const std::exception&) {
        error("bad number " + digits);
      }
      out.push_back(std::move(t));
      continue;
    }
    if (c == '\'' || c == '"') {
      char quote = c;
      std::string text;
      ++i;
      while (i < src.size() && src[i] != quote) {
        if (src[i] == '\\' && i + 1 < src.size()) {
          char e = src[++i];
          text += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        } else {
          text += src[i];
        }
        ++i;
      }
      if (i >= src.size()) error("unterminated string");
      ++i;
      out.push_back({Token::kString, std::move(text), {}, 0});
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t start = i;
      while (i < src.size() && (std::isalnum(static_cast<unsigned char>(src[i])) || src[i] == '_')) ++i;
      out.push_back({Token::kName, std::string(src.substr(start, i - start)), {}, 0});
      continue;
    }
    static const char* ops[] = {"**", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "<", ">", "+", "-",
                                "*",  "/",  "%",  "|",  "(",  ")",  "[",  "]",  "{",  "}",  ",", ":", ".", ";", "="};
    bool matched = false;
    for (const char* op : ops) {
      std::string_view o(op);
      if (src.substr(i, o.size()) == o) {
        if (o == "(" || o == "[" || o == "{") ++depth;
        if (o == ")" || o == "]" || o == "}") --depth;
        out.push_back({Token::kOp, std::string(o), {}, 0});
        i += o.size();
        matched = true;
        break;
      }
    }
    if (!matched) error(fmt::format("unexpected character '{}'", c));
  }
  out.push_back({Token::kEnd, "", {}, 0});
  return out;
}

// Node::code and op codes, resolved when a node is made (resolve) so evaluation compares no
// strings.
enum NameCode : std::uint8_t { kOtherName, kNameS, kNameV, kNameLl, kNameMath };
enum OpCode : std::uint8_t {
  kNoOp, kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow, kBitOr, kNot, kNeg, kPos,
  kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn, kIs, kIsNot
};
enum AttrCode : std::uint8_t { kOtherAttr, kLlTimestamp, kLlKey, kLlLineno, kLlValue, kMathPi, kMathInf };
// kSubscript and kCompare shapes a LineText answers from the line's text.
enum ShapeCode : std::uint8_t { kNoShape, kVValue, kVMetadata, kVMetadataMember, kInVMetadata, kInV };

constexpr std::string_view kOpTexts[] = {"",   "+",  "-",  "*",  "/",  "//", "%",  "**", "|",  "not", "-", "+",
                                         "==", "!=", "<",  "<=", ">",  ">=", "in", "not in", "is", "is not"};

std::uint8_t binary_op_code(std::string_view op) {
  for (std::uint8_t c = kAdd; c <= kBitOr; ++c) {
    if (kOpTexts[c] == op) return c;
  }
  return kNoOp;
}

std::uint8_t compare_op_code(std::string_view op) {
  for (std::uint8_t c = kEq; c <= kIsNot; ++c) {
    if (kOpTexts[c] == op) return c;
  }
  return kNoOp;
}

bool is_const_str(const Node& n) { return n.kind == Node::kConst && n.constant.str(); }
bool is_const_str(const Node& n, std::string_view text) { return is_const_str(n) && *n.constant.str() == text; }

// Fills `n.code` (and op_codes) from its kind, name and kids, which are resolved already.
void resolve(Node& n) {
  switch (n.kind) {
    case Node::kName:
      n.code = n.name == "s" ? kNameS : n.name == "v" ? kNameV : n.name == "ll" ? kNameLl : n.name == "math" ? kNameMath : kOtherName;
      break;
    case Node::kUnary: n.code = n.name == "not" ? kNot : n.name == "-" ? kNeg : kPos; break;
    case Node::kBinary: n.code = binary_op_code(n.name); break;
    case Node::kAttribute: {
      const Node& owner = *n.kids[0];
      if (owner.kind == Node::kName && owner.code == kNameLl) {
        n.code = n.name == "timestamp" ? kLlTimestamp : n.name == "key" ? kLlKey : n.name == "lineno" ? kLlLineno
                 : n.name == "value" ? kLlValue : kOtherAttr;
      } else if (owner.kind == Node::kName && owner.code == kNameMath) {
        n.code = n.name == "pi" ? kMathPi : n.name == "inf" ? kMathInf : kOtherAttr;
      }
      break;
    }
    case Node::kSubscript: {
      const Node& base = *n.kids[0];
      const Node& index = *n.kids[1];
      if (base.kind == Node::kName && base.code == kNameV && is_const_str(index, "value")) n.code = kVValue;
      if (base.kind == Node::kName && base.code == kNameV && is_const_str(index, "metadata")) n.code = kVMetadata;
      if (base.kind == Node::kSubscript && base.code == kVMetadata && is_const_str(index)) n.code = kVMetadataMember;
      break;
    }
    case Node::kCompare: {
      n.op_codes.clear();
      for (const auto& op : n.ops) n.op_codes.push_back(compare_op_code(op));
      if (n.ops.size() == 1 && (n.op_codes[0] == kIn || n.op_codes[0] == kNotIn) && is_const_str(*n.kids[0])) {
        const Node& container = *n.kids[1];
        if (container.kind == Node::kSubscript && container.code == kVMetadata) n.code = kInVMetadata;
        if (container.kind == Node::kName && container.code == kNameV) n.code = kInV;
      }
      break;
    }
    default: break;
  }
}

using NodeP = std::shared_ptr<const Node>;

class Parser {
 public:
  Parser(std::string_view src) : src_(src), toks_(tokenize(src)) {}

  NodeP expression_only() {
    skip_newlines();
    NodeP e = expr();
    skip_newlines();
    expect_end();
    return e;
  }

  std::vector<Stmt> statements() {
    std::vector<Stmt> out;
    skip_newlines();
    block(out, -1);
    expect_end();
    return out;
  }

 private:
  const Token& peek(std::size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  bool is_op(const char* op, std::size_t ahead = 0) const {
    return peek(ahead).kind == Token::kOp && peek(ahead).text == op;
  }
  bool is_name(const char* name) const { return peek().kind == Token::kName && peek().text == name; }
  bool accept_op(const char* op) {
    if (!is_op(op)) return false;
    ++pos_;
    return true;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw PySyntaxError(fmt::format("{} near token {} in `{}`", what, pos_, src_));
  }
  void expect_op(const char* op) {
    if (!accept_op(op)) fail(fmt::format("expected '{}'", op));
  }
  void expect_end() {
    if (peek().kind != Token::kEnd) fail("unexpected '" + peek().text + "'");
  }
  void skip_newlines() {
    while (peek().kind == Token::kNewline) ++pos_;
  }

  static NodeP make(Node::Kind kind, std::vector<NodeP> kids = {}, std::string name = {}) {
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->kids = std::move(kids);
    n->name = std::move(name);
    resolve(*n);
    return n;
  }

  // Statements of one block: those on lines indented more than `outer`.
  void block(std::vector<Stmt>& out, int outer) {
    int indent = -1;
    while (peek().kind != Token::kEnd) {
      simple_line(out);
      if (peek().kind != Token::kNewline) break;
      int next = peek().indent;
      if (next <= outer) break;
      if (indent < 0) indent = next;
      if (next != indent && outer >= 0) break;
      ++pos_;
    }
  }

  // One line: `if c: ...` or simple statements separated by ';'.
  void simple_line(std::vector<Stmt>& out) {
    if (is_name("if")) {
      ++pos_;
      Stmt s;
      s.kind = Stmt::kIf;
      s.value = expr();
      expect_op(":");
      if (peek().kind == Token::kNewline) {
        int here = current_indent_;
        int body = peek().indent;
        if (body <= here) fail("expected an indented block");
        ++pos_;
        int saved = current_indent_;
        current_indent_ = body;
        block(s.body, here);
        current_indent_ = saved;
      } else {
        simple_line(s.body);
      }
      out.push_back(std::move(s));
      return;
    }
    if (is_name("from") || is_name("import")) fail("import statements are not in the supported subset");
    while (true) {
      out.push_back(simple_statement());
      if (!accept_op(";")) break;
      if (peek().kind == Token::kNewline || peek().kind == Token::kEnd) break;
    }
  }

  Stmt simple_statement() {
    NodeP first = expr();
    Stmt s;
    static const char* aug[] = {"+=", "-=", "*=", "/="};
    if (accept_op("=")) {
      check_target(*first);
      s.kind = Stmt::kAssign;
      s.target = first;
      s.value = expr();
      return s;
    }
    for (const char* a : aug) {
      if (accept_op(a)) {
        check_target(*first);
        s.kind = Stmt::kAugAssign;
        s.target = first;
        s.op = std::string(a, 1);
        s.op_code = binary_op_code(s.op);
        s.value = expr();
        return s;
      }
    }
    s.value = first;
    return s;
  }

  void check_target(const Node& n) const {
    if (n.kind != Node::kName && n.kind != Node::kSubscript) fail("can only assign to a name or a subscript");
  }

  NodeP expr() {
    NodeP body = or_expr();
    if (is_name("if")) {
      ++pos_;
      NodeP cond = or_expr();
      if (!is_name("else")) fail("expected 'else'");
      ++pos_;
      NodeP other = expr();
      return make(Node::kIfElse, {cond, body, other});
    }
    return body;
  }
  NodeP or_expr() {
    NodeP left = and_expr();
    if (!is_name("or")) return left;
    std::vector<NodeP> kids{left};
    while (is_name("or")) ++pos_, kids.push_back(and_expr());
    return make(Node::kOr, std::move(kids));
  }
  NodeP and_expr() {
    NodeP left = not_expr();
    if (!is_name("and")) return left;
    std::vector<NodeP> kids{left};
    while (is_name("and")) ++pos_, kids.push_back(not_expr());
    return make(Node::kAnd, std::move(kids));
  }
  NodeP not_expr() {
    if (is_name("not")) {
      ++pos_;
      return make(Node::kUnary, {not_expr()}, "not");
    }
    return comparison();
  }
  NodeP comparison() {
    NodeP left = bitor_expr();
    std::vector<NodeP> kids{left};
    std::vector<std::string> ops;
    while (true) {
      std::string op;
      if (peek().kind == Token::kOp &&
          (peek().text == "==" || peek().text == "!=" || peek().text == "<" || peek().text == "<=" ||
           peek().text == ">" || peek().text == ">=")) {
        op = peek().text;
        ++pos_;
      } else if (is_name("in")) {
        op = "in";
        ++pos_;
      } else if (is_name("not") && peek(1).kind == Token::kName && peek(1).text == "in") {
        op = "not in";
        pos_ += 2;
      } else if (is_name("is")) {
        ++pos_;
        op = "is";
        if (is_name("not")) ++pos_, op = "is not";
      } else {
        break;
      }
      ops.push_back(op);
      kids.push_back(bitor_expr());
    }
    if (ops.empty()) return left;
    auto n = std::make_shared<Node>();
    n->kind = Node::kCompare;
    n->kids = std::move(kids);
    n->ops = std::move(ops);
    resolve(*n);
    return n;
  }
  NodeP bitor_expr() {
    NodeP left = arith();
    while (is_op("|")) ++pos_, left = make(Node::kBinary, {left, arith()}, "|");
    return left;
  }
  NodeP arith() {
    NodeP left = term();
    while (is_op("+") || is_op("-")) {
      std::string op = peek().text;
      ++pos_;
      left = make(Node::kBinary, {left, term()}, op);
    }
    return left;
  }
  NodeP term() {
    NodeP left = factor();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      std::string op = peek().text;
      ++pos_;
      left = make(Node::kBinary, {left, factor()}, op);
    }
    return left;
  }
  NodeP factor() {
    if (is_op("-") || is_op("+")) {
      std::string op = peek().text;
      ++pos_;
      return make(Node::kUnary, {factor()}, op);
    }
    return power();
  }
  NodeP power() {
    NodeP base = primary();
    if (accept_op("**")) return make(Node::kBinary, {base, factor()}, "**");
    return base;
  }
  NodeP primary() {
    NodeP n = atom();
    while (true) {
      if (accept_op("[")) {
        NodeP index = expr();
        expect_op("]");
        n = make(Node::kSubscript, {n, index});
      } else if (accept_op("(")) {
        std::vector<NodeP> kids{n};
        if (!is_op(")")) {
          do {
            if (is_op(")")) break;
            kids.push_back(expr());
          } while (accept_op(","));
        }
        expect_op(")");
        n = make(Node::kCall, std::move(kids));
      } else if (accept_op(".")) {
        if (peek().kind != Token::kName) fail("expected an attribute name");
        n = make(Node::kAttribute, {n}, peek().text);
        ++pos_;
      } else {
        return n;
      }
    }
  }
  NodeP atom() {
    const Token& t = peek();
    if (t.kind == Token::kNumber || t.kind == Token::kString) {
      auto n = std::make_shared<Node>();
      n->kind = Node::kConst;
      n->constant = t.kind == Token::kNumber ? t.number : PyValue(t.text);
      ++pos_;
      // Adjacent string literals concatenate.
      while (t.kind == Token::kString && peek().kind == Token::kString) {
        n->constant = PyValue(*n->constant.str() + peek().text);
        ++pos_;
      }
      return n;
    }
    if (t.kind == Token::kName) {
      static const char* reserved[] = {"if", "else", "and", "or", "not", "in", "is", "for", "lambda", "from", "import"};
      for (const char* r : reserved) {
        if (t.text == r) fail("unexpected keyword '" + t.text + "'");
      }
      auto n = std::make_shared<Node>();
      if (t.text == "True" || t.text == "False" || t.text == "None") {
        n->kind = Node::kConst;
        n->constant = t.text == "None" ? PyValue() : PyValue(t.text == "True");
      } else {
        n->kind = Node::kName;
        n->name = t.text;
        resolve(*n);
      }
      ++pos_;
      return n;
    }
    if (accept_op("(")) {
      NodeP inner = expr();
      expect_op(")");
      return inner;
    }
    if (accept_op("[")) {
      std::vector<NodeP> kids;
      while (!is_op("]")) {
        kids.push_back(expr());
        if (!accept_op(",")) break;
      }
      expect_op("]");
      return make(Node::kList, std::move(kids));
    }
    if (accept_op("{")) {
      std::vector<NodeP> kids;  // key, value, key, value… (a set display: its elements)
      bool set_display = false;
      while (!is_op("}")) {
        kids.push_back(expr());
        // {a, b}: a set display (hpc_3.0.0/closed_openfold.yaml: `v['value'] in {'…', '…'}`).
        // It evaluates as a list of its elements: `in`, iteration and truth as Python's set.
        if (kids.size() == 1 && !is_op(":")) set_display = true;
        if (!set_display) {
          expect_op(":");
          kids.push_back(expr());
        }
        if (!accept_op(",")) break;
      }
      expect_op("}");
      return make(set_display ? Node::kList : Node::kDict, std::move(kids));
    }
    fail("unexpected '" + t.text + "'");
  }

  std::string_view src_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  int current_indent_ = 0;
};

// ---------------------------------------------------------------------------------------
// Evaluation

PyValue arithmetic(std::uint8_t op, const PyValue& a, const PyValue& b) {
  if (op == kAdd && a.str() && b.str()) return PyValue(*a.str() + *b.str());
  if (op == kAdd && a.list() && b.list()) {
    auto l = std::make_shared<PyList>(*a.list());
    l->insert(l->end(), b.list()->begin(), b.list()->end());
    return PyValue(l);
  }
  if (op == kBitOr && is_int_like(a) && is_int_like(b)) {
    if (a.v.index() == 1 && b.v.index() == 1) return PyValue(std::get<bool>(a.v) || std::get<bool>(b.v));
    return PyValue(as_int(a) | as_int(b));
  }
  if (!is_number(a) || !is_number(b) || op == kBitOr) {
    type_error(fmt::format("unsupported operand type(s) for {}: '{}' and '{}'", kOpTexts[op], a.type_name(), b.type_name()));
  }
  bool ints = is_int_like(a) && is_int_like(b);
  if (op == kDiv) {
    double y = as_float(b);
    if (y == 0) throw PyError("ZeroDivisionError", "division by zero");
    return PyValue(as_float(a) / y);
  }
  if (op == kPow) {
    if (ints && as_int(b) >= 0) {
      double r = std::pow(static_cast<double>(as_int(a)), static_cast<double>(as_int(b)));
      if (std::fabs(r) < 9e18) return PyValue(static_cast<std::int64_t>(std::llround(r)));
      return PyValue(r);
    }
    double x = as_float(a), y = as_float(b);
    if (x == 0 && y < 0) throw PyError("ZeroDivisionError", "0.0 cannot be raised to a negative power");
    if (x < 0 && std::floor(y) != y) throw PyError("ValueError", "complex result not supported here");
    return PyValue(std::pow(x, y));
  }
  if (ints) {
    std::int64_t x = as_int(a), y = as_int(b), r = 0;
    if (op == kAdd) {
      if (__builtin_add_overflow(x, y, &r)) return PyValue(static_cast<double>(x) + static_cast<double>(y));
      return PyValue(r);
    }
    if (op == kSub) {
      if (__builtin_sub_overflow(x, y, &r)) return PyValue(static_cast<double>(x) - static_cast<double>(y));
      return PyValue(r);
    }
    if (op == kMul) {
      if (__builtin_mul_overflow(x, y, &r)) return PyValue(static_cast<double>(x) * static_cast<double>(y));
      return PyValue(r);
    }
    if (y == 0) throw PyError("ZeroDivisionError", "integer division or modulo by zero");
    std::int64_t q = x / y, m = x % y;
    if (m != 0 && ((m < 0) != (y < 0))) --q, m += y;  // floor division
    return PyValue(op == kFloorDiv ? q : m);
  }
  double x = as_float(a), y = as_float(b);
  if (op == kAdd) return PyValue(x + y);
  if (op == kSub) return PyValue(x - y);
  if (op == kMul) return PyValue(x * y);
  if (y == 0) throw PyError("ZeroDivisionError", "float division by zero");
  double q = std::floor(x / y);
  return PyValue(op == kFloorDiv ? q : x - q * y);
}

bool compare(std::uint8_t op, const PyValue& a, const PyValue& b) {
  if (op == kEq) return py_equal(a, b);
  if (op == kNe) return !py_equal(a, b);
  if (op == kIs) return a.v.index() == b.v.index() && (a.is_none() || py_equal(a, b));
  if (op == kIsNot) return !compare(kIs, a, b);
  if (op == kIn || op == kNotIn) {
    bool found = false;
    if (const PyDict* d = b.dict()) {
      if (!a.str()) {
        if (a.list() || a.dict()) type_error(fmt::format("unhashable type: '{}'", a.type_name()));
        found = false;  // dicts from JSON have str keys only
      } else {
        found = d->count(*a.str()) > 0;
      }
    } else if (const PyList* l = b.list()) {
      for (const auto& e : *l) found = found || py_equal(a, e);
    } else if (const std::string* s = b.str()) {
      if (!a.str()) type_error(fmt::format("'in <string>' requires string as left operand, not {}", a.type_name()));
      found = s->find(*a.str()) != std::string::npos;
    } else {
      type_error(fmt::format("argument of type '{}' is not iterable", b.type_name()));
    }
    return op == kIn ? found : !found;
  }
  int c;
  if (is_number(a) && is_number(b)) {
    c = compare_numbers(a, b);
    if (c == 2) return false;  // NaN
  } else if (a.str() && b.str()) {
    c = a.str()->compare(*b.str());
    c = c < 0 ? -1 : c > 0 ? 1 : 0;
  } else {
    type_error(fmt::format("'{}' not supported between instances of '{}' and '{}'", kOpTexts[op], a.type_name(),
                           b.type_name()));
  }
  if (op == kLt) return c < 0;
  if (op == kLe) return c <= 0;
  if (op == kGt) return c > 0;
  return c >= 0;
}

PyValue subscript(const PyValue& base, const PyValue& index) {
  if (const PyDict* d = base.dict()) {
    if (!index.str()) throw PyError("KeyError", repr(index));
    auto it = d->find(*index.str());
    if (it == d->end()) throw PyError("KeyError", repr(index));
    return it->second;
  }
  if (const PyList* l = base.list()) {
    if (!is_int_like(index)) type_error("list indices must be integers or slices, not " + std::string(index.type_name()));
    std::int64_t i = as_int(index);
    if (i < 0) i += static_cast<std::int64_t>(l->size());
    if (i < 0 || i >= static_cast<std::int64_t>(l->size())) throw PyError("IndexError", "list index out of range");
    return (*l)[static_cast<std::size_t>(i)];
  }
  if (const std::string* s = base.str()) {
    if (!is_int_like(index)) type_error("string indices must be integers");
    std::int64_t i = as_int(index);
    if (i < 0) i += static_cast<std::int64_t>(s->size());
    if (i < 0 || i >= static_cast<std::int64_t>(s->size())) throw PyError("IndexError", "string index out of range");
    return PyValue(std::string(1, (*s)[static_cast<std::size_t>(i)]));
  }
  type_error(fmt::format("'{}' object is not subscriptable", base.type_name()));
}

double to_float_arg(const PyValue& x, const char* fn) {
  if (!is_number(x)) type_error(fmt::format("{}: must be real number, not {}", fn, x.type_name()));
  return as_float(x);
}

PyValue float_to_int(double d, const char* what) {
  if (std::isnan(d)) throw PyError("ValueError", fmt::format("cannot convert float NaN to integer ({})", what));
  if (std::isinf(d)) throw PyError("OverflowError", fmt::format("cannot convert float infinity to integer ({})", what));
  if (std::fabs(d) < 9.2e18) return PyValue(static_cast<std::int64_t>(d));
  return PyValue(d);  // beyond int64: keep the (integral) float
}

// Python's round(x) to an int, half to even.
PyValue py_round(const PyValue& x) {
  if (is_int_like(x)) return PyValue(as_int(x));
  double d = to_float_arg(x, "round");
  return float_to_int(std::nearbyint(d), "round");
}

PyValue py_str(const PyValue& x) { return x.str() ? x : PyValue(repr(x)); }

PyValue format_string(const std::string& fmt_text, std::span<const PyValue> args) {
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < fmt_text.size(); ++i) {
    char c = fmt_text[i];
    if (c == '{' && i + 1 < fmt_text.size() && fmt_text[i + 1] == '{') {
      out += '{';
      ++i;
    } else if (c == '}' && i + 1 < fmt_text.size() && fmt_text[i + 1] == '}') {
      out += '}';
      ++i;
    } else if (c == '{') {
      std::size_t close = fmt_text.find('}', i);
      if (close == std::string::npos) throw PyError("ValueError", "Single '{' encountered in format string");
      std::string field = fmt_text.substr(i + 1, close - i - 1);
      std::size_t index = field.empty() ? next++ : static_cast<std::size_t>(std::stoul(field));
      if (index >= args.size()) throw PyError("IndexError", "Replacement index out of range");
      out += *py_str(args[index]).str();
      i = close;
    } else {
      out += c;
    }
  }
  return PyValue(out);
}

PyValue call(const Node& node, Env& env) {
  const Node& fn = *node.kids[0];
  // isinstance(x, T) with T one of the builtin type names (the 3.0.0 rnnt configs): the type
  // is named, not evaluated. bool is an int, as in Python.
  if (fn.kind == Node::kName && fn.name == "isinstance" && node.kids.size() == 3 && node.kids[2]->kind == Node::kName) {
    const std::string& type = node.kids[2]->name;
    static const std::set<std::string, std::less<>> kTypes = {"NoneType", "bool", "int", "float", "str", "list", "dict"};
    if (!kTypes.count(type)) throw PyError("NameError", fmt::format("name '{}' is not defined", type));
    PyValue x = eval_node(*node.kids[1], env);
    std::string_view actual = x.type_name();
    return PyValue(actual == type || (type == "int" && actual == "bool"));
  }
  // In place for the few arguments a call has (min(a, b) runs on many lines).
  boost::container::small_vector<PyValue, 4> args;
  for (std::size_t i = 1; i < node.kids.size(); ++i) args.push_back(eval_node(*node.kids[i], env));
  const std::span<const PyValue> arg_span(args.data(), args.size());
  auto need = [&](std::size_t n, const std::string& name) {
    if (args.size() != n) type_error(fmt::format("{}() takes {} argument(s) ({} given)", name, n, args.size()));
  };
  if (fn.kind == Node::kAttribute) {
    const Node& owner = *fn.kids[0];
    const std::string& attr = fn.name;
    if (owner.kind == Node::kName && owner.name == "math") {
      if (attr == "ceil" || attr == "floor") {
        need(1, "math." + attr);
        if (is_int_like(args[0])) return PyValue(as_int(args[0]));
        double d = to_float_arg(args[0], attr.c_str());
        return float_to_int(attr == "ceil" ? std::ceil(d) : std::floor(d), attr.c_str());
      }
      if (attr == "log2" || attr == "sqrt") {
        need(1, "math." + attr);
        double d = to_float_arg(args[0], attr.c_str());
        if (d < 0 || (attr == "log2" && d == 0)) throw PyError("ValueError", "math domain error");
        return PyValue(attr == "log2" ? std::log2(d) : std::sqrt(d));
      }
      if (attr == "isclose") {
        need(2, "math.isclose");
        double a = to_float_arg(args[0], "isclose"), b = to_float_arg(args[1], "isclose");
        return PyValue(a == b || std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)));
      }
      throw PyError("AttributeError", "module 'math' has no attribute '" + attr + "'");
    }
    PyValue self = eval_node(owner, env);
    if (PyDict* d = self.dict()) {
      if (attr == "update") {
        need(1, "update");
        const PyDict* other = args[0].dict();
        if (!other) type_error(fmt::format("'{}' object is not iterable", args[0].type_name()));
        for (const auto& [k, e] : *other) (*d)[k] = e;
        return {};
      }
      if (attr == "get") {
        if (args.empty() || args.size() > 2) type_error("get expected 1 or 2 arguments");
        if (args[0].str()) {
          auto it = d->find(*args[0].str());
          if (it != d->end()) return it->second;
        }
        return args.size() == 2 ? args[1] : PyValue();
      }
      if (attr == "keys") {
        auto l = std::make_shared<PyList>();
        for (const auto& kv : *d) l->push_back(PyValue(kv.first));
        return PyValue(l);
      }
    }
    if (const std::string* s = self.str(); s && attr == "format") return format_string(*s, arg_span);
    // str.lower() / str.upper() (hpc_X.Y.Z/closed_deepcam.yaml names its scheduler config by
    // v['value'].lower()): ASCII letters mapped, other characters kept.
    if (const std::string* s = self.str(); s && (attr == "lower" || attr == "upper")) {
      need(0, attr);
      std::string out = *s;
      for (char& c : out) {
        if (attr == "lower" && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (attr == "upper" && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      }
      return PyValue(out);
    }
    throw PyError("AttributeError", fmt::format("'{}' object has no attribute '{}'", self.type_name(), attr));
  }
  if (fn.kind != Node::kName) type_error("object is not callable");
  const std::string& name = fn.name;
  if (name == "abs") {
    need(1, name);
    if (is_int_like(args[0])) return PyValue(static_cast<std::int64_t>(std::llabs(as_int(args[0]))));
    return PyValue(std::fabs(to_float_arg(args[0], "abs")));
  }
  if (name == "min" || name == "max") {
    const std::span<const PyValue> items =
        args.size() == 1 && args[0].list() ? std::span<const PyValue>(*args[0].list()) : arg_span;
    if (items.empty()) throw PyError("ValueError", name + "() arg is an empty sequence");
    PyValue best = items[0];
    for (std::size_t i = 1; i < items.size(); ++i) {
      if (compare(name == "min" ? kLt : kGt, items[i], best)) best = items[i];
    }
    return best;
  }
  if (name == "int") {
    need(1, name);
    if (is_int_like(args[0])) return PyValue(as_int(args[0]));
    if (args[0].v.index() == 3) return float_to_int(std::trunc(std::get<double>(args[0].v)), "int");
    if (const std::string* s = args[0].str()) {
      std::string t;
      for (char c : *s) {
        if (c != ' ' && c != '\t' && c != '\n') t += c;
      }
      std::size_t used = 0;
      try {
        std::int64_t r = std::stoll(t, &used);
        if (used == t.size() && !t.empty()) return PyValue(r);
      } catch (const std::bad_alloc&) {
        throw;  // out of memory is never a finding: main.cc says so, exit 2
      } catch (const std::exception&) {
      }
      throw PyError("ValueError", "invalid literal for int() with base 10: " + repr(args[0]));
    }
    type_error(fmt::format("int() argument must be a string or a real number, not '{}'", args[0].type_name()));
  }
  if (name == "float") {
    need(1, name);
    if (is_number(args[0])) return PyValue(as_float(args[0]));
    if (const std::string* s = args[0].str()) {
      try {
        std::size_t used = 0;
        double d = std::stod(*s, &used);
        if (used == s->size()) return PyValue(d);
      } catch (const std::bad_alloc&) {
        throw;  // out of memory is never a finding: main.cc says so, exit 2
      } catch (const std::exception&) {
      }
      throw PyError("ValueError", "could not convert string to float: " + repr(args[0]));
    }
    type_error(fmt::format("float() argument must be a string or a real number, not '{}'", args[0].type_name()));
  }
  if (name == "sorted") {  // sorted(list): a new list in ascending order (stable, as Python's)
    need(1, name);
    const PyList* l = args[0].list();
    if (!l) type_error(fmt::format("sorted() of a '{}' is not supported", args[0].type_name()));
    auto out = std::make_shared<PyList>(*l);
    std::stable_sort(out->begin(), out->end(), [](const PyValue& a, const PyValue& b) { return compare(kLt, a, b); });
    return PyValue(out);
  }
  if (name == "len") {
    need(1, name);
    if (const std::string* s = args[0].str()) return PyValue(static_cast<std::int64_t>(s->size()));
    if (const PyList* l = args[0].list()) return PyValue(static_cast<std::int64_t>(l->size()));
    if (const PyDict* d = args[0].dict()) return PyValue(static_cast<std::int64_t>(d->size()));
    type_error(fmt::format("object of type '{}' has no len()", args[0].type_name()));
  }
  if (name == "str") {
    need(1, name);
    return py_str(args[0]);
  }
  if (name == "round") {
    need(1, name);
    return py_round(args[0]);
  }
  if (name == "is_integer") {  // mlp_compliance.py: abs(round(value) - value) < 0.00001
    need(1, name);
    PyValue diff = arithmetic(kSub, py_round(args[0]), args[0]);
    return PyValue(std::fabs(as_float(diff)) < 0.00001);
  }
  if (name == "enqueue_config") {
    need(1, name);
    if (env.enqueue_config) env.enqueue_config(*py_str(args[0]).str());
    return {};
  }
  throw PyError("NameError", fmt::format("name '{}' is not defined", name));
}

const PyValue& operand(const Node& node, Env& env, PyValue& slot);

void assign(const Node& target, const PyValue& value, Env& env) {
  if (target.kind == Node::kName) {
    if (target.code == kNameS) {
      env.s = value;
    } else if (target.code == kNameV) {
      env.v = value;
      env.pending = nullptr;
    } else {
      throw PyError("NameError", "assignment to '" + target.name + "' is not supported");
    }
    return;
  }
  PyValue base = eval_node(*target.kids[0], env);
  PyValue index_slot;
  const PyValue& index = operand(*target.kids[1], env, index_slot);
  if (PyDict* d = base.dict()) {
    if (!index.str()) type_error("dict keys other than str are not supported");
    (*d)[*index.str()] = value;
    return;
  }
  if (PyList* l = base.list()) {
    if (!is_int_like(index)) type_error("list indices must be integers");
    std::int64_t i = as_int(index);
    if (i < 0) i += static_cast<std::int64_t>(l->size());
    if (i < 0 || i >= static_cast<std::int64_t>(l->size())) throw PyError("IndexError", "list assignment index out of range");
    (*l)[static_cast<std::size_t>(i)] = value;
    return;
  }
  type_error(fmt::format("'{}' object does not support item assignment", base.type_name()));
}

void exec_stmts(const std::vector<Stmt>& stmts, Env& env) {
  for (const Stmt& s : stmts) {
    switch (s.kind) {
      case Stmt::kExpr: eval_node(*s.value, env); break;
      case Stmt::kAssign: assign(*s.target, eval_node(*s.value, env), env); break;
      case Stmt::kAugAssign:
        assign(*s.target, arithmetic(s.op_code, eval_node(*s.target, env), eval_node(*s.value, env)), env);
        break;
      case Stmt::kIf:
        if (truthy(eval_node(*s.value, env))) exec_stmts(s.body, env);
        break;
    }
  }
}

}  // namespace

namespace {

// A scalar's JSON text (string, number, true, false, null): not an object or array.
bool is_scalar_text(std::string_view t) { return !t.empty() && t[0] != '{' && t[0] != '['; }

// The value `node` stands for without copying it, when it is a constant, s, v or a chain of
// constant subscripts of them that exist; nullptr otherwise (eval_node then computes it, and
// raises where Python raises). A scalar the line's text answers (v['value'],
// v['metadata']['x'] while v is not converted) is computed too.
const PyValue* lookup(const Node& node, Env& env) {
  switch (node.kind) {
    case Node::kConst: return &node.constant;
    case Node::kName: return node.code == kNameS ? &env.s : node.code == kNameV ? &env.line_v() : nullptr;
    case Node::kSubscript: {
      if (env.pending && (node.code == kVValue || node.code == kVMetadataMember)) return nullptr;
      const Node& index = *node.kids[1];
      if (index.kind != Node::kConst || !index.constant.str()) return nullptr;
      const PyValue* base = lookup(*node.kids[0], env);
      const PyDict* d = base ? base->dict() : nullptr;
      if (!d) return nullptr;
      auto it = d->find(*index.constant.str());
      return it == d->end() ? nullptr : &it->second;
    }
    default: return nullptr;
  }
}

// `node`'s value: a reference into the constants or the state when lookup finds it, else
// computed into `slot`.
const PyValue& operand(const Node& node, Env& env, PyValue& slot) {
  if (const PyValue* p = lookup(node, env)) return *p;
  slot = eval_node(node, env);
  return slot;
}

// A subscript or membership test answered from the line's text (Env::pending), when it can
// be: true with `out` set, false when v must be converted.
bool from_line_text(const Node& node, Env& env, PyValue& out) {
  LineText& text = *env.pending;
  if (!text.v.is_none()) return false;  // converted: the object may have been changed since
  switch (node.code) {
    case kVValue:
      if (!text.value_scalar) {
        if (!is_scalar_text(text.value)) return false;
        text.value_scalar = from_json_text(text.value);
      }
      out = *text.value_scalar;
      return true;
    case kVMetadataMember: {
      std::string_view member = text.metadata_member(*node.kids[1]->constant.str());
      if (!is_scalar_text(member)) return false;  // absent, or a list or dict
      out = from_json_text(member);
      return true;
    }
    case kInVMetadata: {
      const bool present = !text.metadata_member(*node.kids[0]->constant.str()).empty();
      out = PyValue(node.op_codes[0] == kIn ? present : !present);
      return true;
    }
    case kInV: {  // v is {'value': …, 'metadata': …}
      const std::string& name = *node.kids[0]->constant.str();
      bool present = name == "value" || name == "metadata";
      out = PyValue(node.op_codes[0] == kIn ? present : !present);
      return true;
    }
    default: return false;
  }
}

}  // namespace

const PyValue& LineText::converted() {
  if (v.is_none()) {
    v = make_dict();
    v.dict()->reserve(2);
    (*v.dict())["value"] = from_json_text(value);
    (*v.dict())["metadata"] = from_json_text(metadata);
  }
  return v;
}

PyValue eval_node(const Node& node, Env& env) {
  if (env.pending && node.code != kNoShape && (node.kind == Node::kSubscript || node.kind == Node::kCompare)) {
    PyValue out;
    if (from_line_text(node, env, out)) return out;
  }
  switch (node.kind) {
    case Node::kConst: return node.constant;
    case Node::kName:
      if (node.code == kNameS) return env.s;
      if (node.code == kNameV) return env.line_v();
      throw PyError("NameError", fmt::format("name '{}' is not defined", node.name));
    case Node::kList: {
      auto l = std::make_shared<PyList>();
      for (const auto& k : node.kids) l->push_back(eval_node(*k, env));
      return PyValue(l);
    }
    case Node::kDict: {
      auto d = std::make_shared<PyDict>();
      for (std::size_t i = 0; i + 1 < node.kids.size(); i += 2) {
        PyValue key = eval_node(*node.kids[i], env);
        if (!key.str()) type_error("dict keys other than str are not supported");
        (*d)[*key.str()] = eval_node(*node.kids[i + 1], env);
      }
      return PyValue(d);
    }
    case Node::kSubscript: {
      PyValue base_slot, index_slot;
      const PyValue& base = operand(*node.kids[0], env, base_slot);
      return subscript(base, operand(*node.kids[1], env, index_slot));
    }
    case Node::kAttribute: {
      switch (node.code) {
        case kLlTimestamp: return PyValue(env.timestamp);
        case kLlKey: return PyValue(std::string(env.key));
        case kLlLineno: return PyValue(env.lineno);
        case kLlValue: return env.line_v();
        case kMathPi: return PyValue(M_PI);
        case kMathInf: return PyValue(std::numeric_limits<double>::infinity());
        default: break;
      }
      PyValue self = eval_node(*node.kids[0], env);
      throw PyError("AttributeError", fmt::format("'{}' object has no attribute '{}'", self.type_name(), node.name));
    }
    case Node::kCall: return call(node, env);
    case Node::kUnary: {
      PyValue x = eval_node(*node.kids[0], env);
      if (node.code == kNot) return PyValue(!truthy(x));
      if (!is_number(x)) type_error(fmt::format("bad operand type for unary {}: '{}'", node.name, x.type_name()));
      if (node.code == kPos) return is_int_like(x) ? PyValue(as_int(x)) : x;
      return is_int_like(x) ? PyValue(-as_int(x)) : PyValue(-std::get<double>(x.v));
    }
    case Node::kBinary:
      return arithmetic(node.code, eval_node(*node.kids[0], env), eval_node(*node.kids[1], env));
    case Node::kCompare: {
      PyValue slots[2];
      const PyValue* left = &operand(*node.kids[0], env, slots[0]);
      for (std::size_t i = 0; i < node.op_codes.size(); ++i) {
        PyValue& slot = slots[(i + 1) % 2];  // not the one `left` may live in
        const PyValue& right = operand(*node.kids[i + 1], env, slot);
        if (!compare(node.op_codes[i], *left, right)) return PyValue(false);
        left = &right;
      }
      return PyValue(true);
    }
    case Node::kAnd: {
      PyValue x;
      for (const auto& k : node.kids) {
        x = eval_node(*k, env);
        if (!truthy(x)) return x;
      }
      return x;
    }
    case Node::kOr: {
      PyValue x;
      for (const auto& k : node.kids) {
        x = eval_node(*k, env);
        if (truthy(x)) return x;
      }
      return x;
    }
    case Node::kIfElse:
      return truthy(eval_node(*node.kids[0], env)) ? eval_node(*node.kids[1], env) : eval_node(*node.kids[2], env);
  }
  return {};
}

namespace {
std::string strip(std::string_view text) {
  auto b = text.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  auto e = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(b, e - b + 1));
}
}  // namespace

namespace {
// Expr::shape_determined: constants and member tests of the line, through operators only (no
// names, subscripts or calls).
bool depends_on_shape_only(const Node& n) {
  switch (n.kind) {
    case Node::kConst: return true;
    case Node::kCompare:
      if (n.code == kInVMetadata || n.code == kInV) return true;
      [[fallthrough]];
    case Node::kList:
    case Node::kDict:
    case Node::kUnary:
    case Node::kBinary:
    case Node::kAnd:
    case Node::kOr:
    case Node::kIfElse:
      return std::all_of(n.kids.begin(), n.kids.end(), [](const auto& k) { return depends_on_shape_only(*k); });
    default: return false;
  }
}
}  // namespace

Expr Expr::parse(std::string_view text) {
  Expr e;
  e.text_ = strip(text);
  e.root_ = Parser(e.text_).expression_only();
  e.shape_determined_ = depends_on_shape_only(*e.root_);
  return e;
}

PyValue Expr::eval(Env& env) const { return eval_node(*root_, env); }

Code Code::parse(std::string_view text) {
  Code c;
  c.text_ = strip(text);
  c.stmts_ = std::make_shared<const std::vector<Stmt>>(Parser(c.text_).statements());
  return c;
}

void Code::exec(Env& env) const { exec_stmts(*stmts_, env); }

}  // namespace mlperf::compliance
