#include "mlperf/mllog/mllog.h"
#include "mlperf/mllog/cpu_features.h"
#include "mlperf/mllog/thread_cache.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <charconv>
#include <cstdlib>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(MLPERF_HAVE_AVX2_PATH)
#include <immintrin.h>
#endif

namespace mlperf {

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    std::uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return i;
    }
    if (i + len > n) return i;
    for (std::size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    // Reject overlong forms, surrogates and code points beyond U+10FFFF.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
      return i;
    }
    i += len;
  }
  return std::nullopt;
}

bool is_valid_utf8(std::string_view text) { return !first_invalid_utf8(text); }

std::string latin1_to_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x80) {
      out.push_back(ch);
    } else {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

namespace {

bool has_high_bytes(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return true;
  }
  return false;
}

// Fills `event` from a parsed JSON object; false (with `error`) when required fields lack.
bool to_event(nlohmann::json& doc, Event& event, std::string& error) {
  if (!doc.is_object()) {
    error = "MLLOG payload is not a JSON object";
    return false;
  }
  auto time = doc.find("time_ms");
  if (time == doc.end()) {
    error = "MLLOG event has no time_ms";
    return false;
  }
  if (!time->is_number()) {
    error = fmt::format("MLLOG time_ms is not a number ({})", time->type_name());
    return false;
  }
  auto key = doc.find("key");
  if (key == doc.end()) {
    error = "MLLOG event has no key";
    return false;
  }
  if (!key->is_string()) {
    error = fmt::format("MLLOG key is not a string ({})", key->type_name());
    return false;
  }
  event.time_ms = time->get<double>();
  event.key = key->get<std::string>();
  auto type = doc.find("event_type");
  event.event_type = (type != doc.end() && type->is_string()) ? type->get<std::string>() : "";
  auto ns = doc.find("namespace");
  event.name_space = (ns != doc.end() && ns->is_string()) ? ns->get<std::string>() : "";
  auto value = doc.find("value");
  event.value = value != doc.end() ? std::move(*value) : nlohmann::json();
  auto metadata = doc.find("metadata");
  if (metadata != doc.end() && metadata->is_object()) {
    event.metadata = std::move(*metadata);
  } else {
    event.metadata = nlohmann::json::object();
  }
  return true;
}

// Offset in `json` of the bracket that opens nesting level `levels` + 1, or npos.
// Brackets inside strings do not count. One pass, no recursion, before anything is parsed.
std::size_t too_deep_at(std::string_view json, int levels = kMaxMllogNesting) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > levels) return i;
    } else if (c == '}' || c == ']') {
      --depth;  // unbalanced JSON is the parser's to report
    }
  }
  return std::string_view::npos;
}

// The marker a non-finite token is rewritten to before nlohmann parses the text: a string no
// logger writes (it opens with a NUL, which JSON text can only hold escaped).
constexpr std::string_view kNonFiniteMarker = "\\u0000mlperf-score-non-finite:";

// `text` with each NaN, Infinity and -Infinity outside strings replaced by a marker string
// naming it; nullopt when the text holds none.
std::optional<std::string> mark_non_finite(std::string_view text) {
  std::optional<std::string> out;
  std::size_t copied = 0;
  // Replaces text[at, end) by the marker naming `token`.
  auto mark = [&](std::size_t at, std::size_t end, std::string_view token) {
    if (!out) out.emplace();
    out->append(text.substr(copied, at - copied));
    out->append("\"").append(kNonFiniteMarker).append(token).append("\"");
    copied = end;
  };
  auto is_digit = [](char ch) { return ch >= '0' && ch <= '9'; };
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (is_digit(c) || (c == '-' && i + 1 < text.size() && is_digit(text[i + 1]))) {
      // A float literal beyond the double range: Python's float() gives ±inf where nlohmann
      // reports an overflow (an integer literal stays an error: Python reads it as an int).
      std::size_t e = i + 1;
      bool is_float = false;
      while (e < text.size()) {
        const char d = text[e];
        const bool exponent_sign = (d == '+' || d == '-') && (text[e - 1] == 'e' || text[e - 1] == 'E');
        if (!is_digit(d) && d != '.' && d != 'e' && d != 'E' && !exponent_sign) break;
        is_float = is_float || d == '.' || d == 'e' || d == 'E';
        ++e;
      }
      if (is_float) {
        const std::string literal(text.substr(i, e - i));
        errno = 0;
        const double v = std::strtod(literal.c_str(), nullptr);
        if (errno == ERANGE && std::isinf(v)) mark(i, e, v < 0 ? "-Infinity" : "Infinity");
      }
      i = e - 1;
      continue;
    }
    for (std::string_view t : {std::string_view("-Infinity"), std::string_view("Infinity"), std::string_view("NaN")}) {
      if (text.substr(i, t.size()) == t) {
        mark(i, i + t.size(), t);
        i += t.size() - 1;
        break;
      }
    }
  }
  if (out) out->append(text.substr(copied));
  return out;
}

// Turns the marker strings of mark_non_finite back into doubles, everywhere in `doc`
// (nlohmann::json or nlohmann::ordered_json).
template <class Json>
void restore_non_finite(Json& doc) {
  static const std::string marker = [] {
    std::string m = nlohmann::json::parse("\"" + std::string(kNonFiniteMarker) + "\"").get<std::string>();
    return m;
  }();
  if (doc.is_string()) {
    const std::string& s = doc.template get_ref<const std::string&>();
    if (s.size() > marker.size() && s.compare(0, marker.size(), marker) == 0) {
      const std::string_view token = std::string_view(s).substr(marker.size());
      doc = token == "NaN" ? std::numeric_limits<double>::quiet_NaN()
                           : (token == "-Infinity" ? -std::numeric_limits<double>::infinity()
                                                   : std::numeric_limits<double>::infinity());
    }
  } else if (doc.is_structured()) {
    for (auto& child : doc) restore_non_finite(child);
  }
}

}  // namespace

std::string python_float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", d);
  // Python switches to exponent form at 1e16 and below 1e-4; fmt's shortest form agrees on
  // the digits; only a ".0" is missing for integral values.
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

bool json_nested_deeper_than(std::string_view text, int levels) {
  return too_deep_at(text, levels) != std::string_view::npos;
}

nlohmann::json parse_json_like_python(std::string_view text) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception&) {  // parse_error, or out_of_range 406 (1e400)
    std::optional<std::string> marked = mark_non_finite(text);
    if (!marked) throw;
    nlohmann::json doc = nlohmann::json::parse(*marked, nullptr, false);
    if (doc.is_discarded()) throw;
    restore_non_finite(doc);
    return doc;
  }
}

namespace {

// parse_json_like_python_or_discarded into `Json` (nlohmann::json or nlohmann::ordered_json).
template <class Json>
Json parse_like_python_or_discarded(std::string_view text) {
  Json doc = Json::parse(text.begin(), text.end(), nullptr, false);
  if (!doc.is_discarded()) return doc;
  std::optional<std::string> marked = mark_non_finite(text);
  if (!marked) return doc;
  doc = Json::parse(*marked, nullptr, false);
  if (!doc.is_discarded()) restore_non_finite(doc);
  return doc;
}

}  // namespace

nlohmann::json parse_json_like_python_or_discarded(std::string_view text) {
  return parse_like_python_or_discarded<nlohmann::json>(text);
}

nlohmann::ordered_json parse_ordered_json_like_python_or_discarded(std::string_view text) {
  return parse_like_python_or_discarded<nlohmann::ordered_json>(text);
}

LineKind parse_mllog_line(std::string_view line, Event& event, std::string& error) {
  std::size_t at = line.rfind(kMllogToken);
  if (at == std::string_view::npos) return LineKind::kNotMllog;
  std::string_view payload = line.substr(at + kMllogToken.size());
  if (std::size_t deep = too_deep_at(payload); deep != std::string_view::npos) {
    error = fmt::format("MLLOG JSON nested deeper than {} levels at column {}", kMaxMllogNesting,
                        at + kMllogToken.size() + deep + 1);
    return LineKind::kError;
  }
  std::string recoded;
  if (has_high_bytes(payload) && !is_valid_utf8(payload)) {
    recoded = latin1_to_utf8(payload);  // the reference reads files as Latin-1
    payload = recoded;
  }
  nlohmann::json doc;
  try {
    doc = parse_json_like_python(payload);
  } catch (const nlohmann::json::exception& e) {
    // nlohmann's message: "[json.exception.parse_error.101] parse error at line 1, column 7: ..."
    std::string_view what = e.what();
    std::size_t col = what.find("column ");
    std::size_t colon = col == std::string_view::npos ? col : what.find(": ", col);
    std::string reason(colon == std::string_view::npos ? what : what.substr(colon + 2));
    std::string column = col == std::string_view::npos
                             ? std::string()
                             : std::string(what.substr(col + 7, colon - col - 7));
    error = column.empty() ? fmt::format("invalid MLLOG JSON: {}", reason)
                           : fmt::format("invalid MLLOG JSON at column {}: {}",
                                         std::stoul(column) + at + kMllogToken.size(), reason);
    return LineKind::kError;
  }
  return to_event(doc, event, error) ? LineKind::kEvent : LineKind::kError;
}

namespace {

// --- The fast path: a validating JSON scanner that builds nothing. ---
//
// It accepts a subset of what nlohmann::json::parse accepts (RFC 8259), and where it accepts
// it reads the same thing: strings hold only printable ASCII and the escapes \" \\ \/ \b \f
// \n \r \t (a \u escape or a non-ASCII byte: unsure, so no UTF-8 or Latin-1 question
// arises); member names hold no escapes (so looking a name up by its bytes is exact);
// numbers follow the JSON grammar with at most 200 integer digits and a 1- or 2-digit
// exponent (so nlohmann never reports a number overflow); nesting stops at 63 levels. A
// string holding ":::MLLOG " is unsure too: the reference reads from the last token.

constexpr int kMaxDepth = 63;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The first byte at or after p that is not an ASCII digit (or end).
inline const char* skip_digits(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i zero = _mm_set1_epi8('0');
  const __m128i nine = _mm_set1_epi8('9');
  while (end - p >= 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Signed compares: bytes >= 0x80 are negative, below '0'.
    const __m128i other = _mm_or_si128(_mm_cmplt_epi8(bytes, zero), _mm_cmpgt_epi8(bytes, nine));
    unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(other));
    if (mask != 0) return p + __builtin_ctz(mask);
    p += 16;
  }
#endif
  while (p < end && is_digit(*p)) ++p;
  return p;
}

// The end of the JSON number at p (maximal munch), or nullptr when none starts there; as
// nlohmann accepts them, but no more than 200 integer digits and 2 exponent digits (longer
// ones go to the full parser). `integer`: digits only, with an optional minus sign. Inline
// so that the shape matcher reads a line's numbers without a call each.
inline const char* number_end(const char* p, const char* end, bool& integer) {
  integer = false;
  if (p < end && *p == '-') ++p;
  const char* int_start = p;
  if (p >= end) return nullptr;
  if (*p == '0') {
    ++p;
  } else if (is_digit(*p)) {
    p = skip_digits(p + 1, end);
  } else {
    return nullptr;
  }
  if (p - int_start > 200) return nullptr;
  if (p == end) {
    integer = true;
    return p;
  }
  char c = *p;
  integer = c != '.' && c != 'e' && c != 'E';
  if (c == '.') {
    ++p;
    if (p == end || !is_digit(*p)) return nullptr;
    p = skip_digits(p + 1, end);
    if (p == end) return p;
    c = *p;
  }
  if (c == 'e' || c == 'E') {
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    const char* exp_start = p;
    while (p < end && is_digit(*p)) ++p;
    if (p == exp_start || p - exp_start > 2) return nullptr;
  }
  return p;
}

// The value of 8 ASCII digits, loaded little-endian into `v` (SWAR: pairs, then quadruples,
// then the whole).
inline std::uint64_t eight_digits(std::uint64_t v) {
  v -= 0x3030303030303030ull;
  v = (v * 10) + (v >> 8);
  v = (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
       (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
  return v;
}

// The value of the 8 ASCII digits at p.
inline std::uint64_t eight_digits(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return eight_digits(v);
}

// Where the numbers of a payload are, in order (for MllogScanner's shapes).
using NumberSpans = std::vector<std::pair<const char*, const char*>>;

class Scanner {
 public:
  Scanner(const char* p, const char* end, NumberSpans* numbers = nullptr) : p_(p), end_(end), numbers_(numbers) {}

  const char* pos() const { return p_; }
  bool at_end() const { return p_ == end_; }
  char peek() const { return p_ < end_ ? *p_ : '\0'; }
  void advance() { ++p_; }

  void skip_whitespace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
  }

  // A string, its opening quote at p_; `escaped` tells whether it held an escape.
  bool string(bool& escaped) {
    ++p_;
    escaped = false;
    for (;;) {
      seek_string_special();
      if (p_ >= end_) return false;
      char c = *p_;
      if (c == '"') {
        ++p_;
        return true;
      }
      if (c == ':') {
        if (static_cast<std::size_t>(end_ - p_) >= kMllogToken.size() &&
            std::memcmp(p_, kMllogToken.data(), kMllogToken.size()) == 0) {
          return false;
        }
        ++p_;
        continue;
      }
      if (c == '\\' && end_ - p_ >= 2 && p_[1] != '\0' && std::strchr("\"\\/bfnrt", p_[1]) != nullptr) {
        escaped = true;
        p_ += 2;
        continue;
      }
      return false;  // a \u or bad escape, a control byte, a non-ASCII byte
    }
  }

  // A member name and its colon: `"name" :`, then the whitespace before the value.
  bool member_name(std::string_view& name) {
    if (peek() != '"') return false;
    const char* start = p_ + 1;
    bool escaped;
    if (!string(escaped) || escaped) return false;
    name = std::string_view(start, p_ - 1 - start);
    skip_whitespace();
    if (peek() != ':') return false;
    ++p_;
    skip_whitespace();
    return true;
  }

  // A number (number_end's grammar); `integer` tells whether it is digits only (with an
  // optional minus sign). p_ stays put when there is none.
  bool number(bool& integer) {
    const char* after = number_end(p_, end_, integer);
    if (after == nullptr) return false;
    if (numbers_ != nullptr) numbers_->emplace_back(p_, after);
    p_ = after;
    return true;
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  // Any value, p_ at its first byte; nested containers without recursion.
  bool value() {
    std::uint64_t objects = 0;  // bit d set: the container at depth d+1 is an object
    int depth = 0;
    for (;;) {
      switch (peek()) {
        case '{':
        case '[': {
          bool object = *p_ == '{';
          ++p_;
          if (depth == kMaxDepth) return false;
          objects = (objects << 1) | (object ? 1u : 0u);
          ++depth;
          skip_whitespace();
          if (peek() == (object ? '}' : ']')) {
            ++p_;
            objects >>= 1;
            --depth;
            break;  // an empty container: a complete value
          }
          if (object) {
            std::string_view name;
            if (!member_name(name)) return false;
          }
          continue;  // its first value
        }
        case '"': {
          bool escaped;
          if (!string(escaped)) return false;
          break;
        }
        case 't':
          if (!literal("true")) return false;
          break;
        case 'f':
          if (!literal("false")) return false;
          break;
        case 'n':
          if (!literal("null")) return false;
          break;
        default: {
          bool integer;
          if (!number(integer)) return false;
          break;
        }
      }
      // After a complete value: close containers or go on to the next element.
      for (;;) {
        if (depth == 0) return true;
        skip_whitespace();
        bool object = (objects & 1u) != 0;
        char c = peek();
        if (c == ',') {
          ++p_;
          skip_whitespace();
          if (object) {
            std::string_view name;
            if (!member_name(name)) return false;
          }
          break;
        }
        if (c != (object ? '}' : ']')) return false;
        ++p_;
        objects >>= 1;
        --depth;
      }
    }
  }

 private:
  // Moves p_ to the next byte that ends plain string contents: '"', '\\', ':', a control
  // byte or a non-ASCII byte (or to end_).
  void seek_string_special() {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i colon = _mm_set1_epi8(':');
    const __m128i space = _mm_set1_epi8(0x20);
    while (end_ - p_ >= 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p_));
      // Signed compare: bytes >= 0x80 are negative, so below 0x20 too.
      const __m128i special = _mm_or_si128(
          _mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)),
          _mm_or_si128(_mm_cmpeq_epi8(bytes, colon), _mm_cmplt_epi8(bytes, space)));
      unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(special));
      if (mask != 0) {
        p_ += __builtin_ctz(mask);
        return;
      }
      p_ += 16;
    }
#endif
    while (p_ < end_) {
      auto c = static_cast<unsigned char>(*p_);
      if (c == '"' || c == '\\' || c == ':' || c < 0x20 || c >= 0x80) return;
      ++p_;
    }
  }

  const char* p_;
  const char* end_;
  NumberSpans* numbers_;
};

bool starts_number(std::string_view raw) { return !raw.empty() && (raw[0] == '-' || is_digit(raw[0])); }

// The contents of a JSON string without escapes; false when `raw` is not such a string.
bool plain_string(std::string_view raw, std::string_view& out) {
  if (raw.size() < 2 || raw.front() != '"' || raw.find('\\') != std::string_view::npos) return false;
  out = raw.substr(1, raw.size() - 2);
  return true;
}

}  // namespace

namespace {

// The top-level members of an MLLOG payload that EventView holds (the last of a repeated
// name, as in nlohmann::json), as found by scan_payload.
struct Fields {
  std::string_view time, key, type, name_space, value, metadata;
  bool time_integer = false, key_escaped = false, type_escaped = false, name_space_escaped = false;
};

// Validates the payload [begin, end) (the bytes after the token) as one JSON object and
// finds its members; false when unsure. Records the numbers in `numbers` when given.
bool scan_payload(const char* begin, const char* end, Fields& f, NumberSpans* numbers) {
  Scanner s(begin, end, numbers);
  s.skip_whitespace();
  if (s.peek() != '{') return false;
  s.advance();
  s.skip_whitespace();
  if (s.peek() == '}') return false;  // no time_ms, no key
  for (;;) {
    std::string_view name;
    if (!s.member_name(name)) return false;
    const char* start = s.pos();
    bool escaped = false, integer = false;
    char c = s.peek();
    bool ok = c == '"' ? s.string(escaped) : (c == '-' || is_digit(c)) ? s.number(integer) : s.value();
    if (!ok) return false;
    std::string_view raw(start, s.pos() - start);
    switch (name.size()) {
      case 3:
        if (name == "key") f.key = raw, f.key_escaped = escaped;
        break;
      case 5:
        if (name == "value") f.value = raw;
        break;
      case 7:
        if (name == "time_ms") f.time = raw, f.time_integer = integer;
        break;
      case 8:
        if (name == "metadata") f.metadata = raw;
        break;
      case 9:
        if (name == "namespace") f.name_space = raw, f.name_space_escaped = escaped;
        break;
      case 10:
        if (name == "event_type") f.type = raw, f.type_escaped = escaped;
        break;
      default:
        break;
    }
    s.skip_whitespace();
    c = s.peek();
    if (c == '}') break;
    if (c != ',') return false;
    s.advance();
    s.skip_whitespace();
  }
  s.advance();
  s.skip_whitespace();
  return s.at_end();
}

// time_ms as Event::time_ms holds it. `time` must be the time_ms member's value inside a
// validated payload (scan_payload, a shape match): a 9- to 16-digit one is read with the bytes
// before it.
double time_value(std::string_view time, bool integer) {
  if (integer && time.size() > 8 && time.size() <= 16 && time[0] != '-') {
    // 9 to 16 digits (milliseconds since 1970 have 13), read as two groups of 8: the 16 bytes
    // that end with the last digit, the ones before the first digit taken as '0'. They are
    // readable: time_ms is a member of the payload, so at least `{"time_ms":` (11 bytes)
    // comes before its value, and at most 7 are read.
    const std::size_t pad = 16 - time.size();
    std::uint64_t high, low;
    std::memcpy(&high, time.data() + time.size() - 16, 8);
    std::memcpy(&low, time.data() + time.size() - 8, 8);
    const std::uint64_t before = pad == 0 ? 0 : ~std::uint64_t{0} >> (64 - 8 * pad);  // its first `pad` bytes
    high = (high & ~before) | (0x3030303030303030ull & before);
    return static_cast<double>(eight_digits(high) * 100000000 + eight_digits(low));
  }
  if (integer && time.size() <= 18 && time[0] != '-') {
    // Digits only, below 10^18: exact in a uint64, converted as nlohmann converts it.
    std::uint64_t ms = 0;
    std::size_t i = 0;
    for (; i + 8 <= time.size(); i += 8) ms = ms * 100000000 + eight_digits(time.data() + i);
    for (; i < time.size(); ++i) ms = ms * 10 + static_cast<std::uint64_t>(time[i] - '0');
    return static_cast<double>(ms);
  }
  return *json_number(time);
}

bool is_string(std::string_view raw) { return !raw.empty() && raw[0] == '"'; }

// The checks of to_event on the members found (time_ms a number, key a string; here also
// no escapes in key, event_type and namespace), then the view. False when unsure.
bool fields_to_view(const Fields& f, EventView& view) {
  view.shape = 0;
  view.layout = 0;
  if (!starts_number(f.time) || !is_string(f.key) || f.key_escaped) return false;
  if ((is_string(f.type) && f.type_escaped) || (is_string(f.name_space) && f.name_space_escaped)) return false;
  view.key = f.key.substr(1, f.key.size() - 2);
  view.time_ms.set_text(f.time, f.time_integer);
  view.event_type = is_string(f.type) ? f.type.substr(1, f.type.size() - 2) : std::string_view();
  view.name_space = is_string(f.name_space) ? f.name_space.substr(1, f.name_space.size() - 2) : std::string_view();
  view.value = f.value;
  view.metadata = !f.metadata.empty() && f.metadata[0] == '{' ? f.metadata : std::string_view();
  return true;
}

// n bytes at a and b are equal (SSE2 where available: no call for short runs).
inline bool same_bytes(const char* a, const char* b, std::size_t n) {
#if defined(__SSE2__)
  if (n >= 16) {
    for (std::size_t i = 0; i + 16 <= n; i += 16) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
      __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
      if (_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) != 0xFFFF) return false;
    }
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + n - 16));
    __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + n - 16));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) == 0xFFFF;
  }
#endif
  if (n >= 8) {
    std::uint64_t x0, y0, x1, y1;
    std::memcpy(&x0, a, 8), std::memcpy(&y0, b, 8);
    std::memcpy(&x1, a + n - 8, 8), std::memcpy(&y1, b + n - 8, 8);
    return x0 == y0 && x1 == y1;
  }
  if (n >= 4) {
    std::uint32_t x0, y0, x1, y1;
    std::memcpy(&x0, a, 4), std::memcpy(&y0, b, 4);
    std::memcpy(&x1, a + n - 4, 4), std::memcpy(&y1, b + n - 4, 4);
    return x0 == y0 && x1 == y1;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace

double LazyTimeMs::from_text() const { return time_value(text_, integer_); }

bool is_plain_json(std::string_view text) {
  Scanner s(text.data(), text.data() + text.size());
  s.skip_whitespace();
  if (s.at_end() || !s.value()) return false;
  s.skip_whitespace();
  return s.at_end();
}

ScanKind scan_mllog_line(std::string_view line, EventView& view, std::size_t token_at) {
  if (token_at == std::string_view::npos) {
    token_at = line.find(kMllogToken);
    if (token_at == std::string_view::npos) return ScanKind::kNotMllog;
  }
  Fields f;
  if (!scan_payload(line.data() + token_at + kMllogToken.size(), line.data() + line.size(), f, nullptr)) {
    return ScanKind::kUnsure;
  }
  return fields_to_view(f, view) ? ScanKind::kEvent : ScanKind::kUnsure;
}

// --- MllogScanner: scan_mllog_line with a memory of line shapes. ---
//
// Why a shape match is exact: the shape comes from a payload P that scan_payload accepted,
// P = L0 N1 L1 … Nk Lk with N1…Nk its number tokens. A payload P' = L0 M1 L1 … Mk Lk whose
// M1…Mk are numbers of the same grammar (maximal munch: each Li starts with the byte that
// followed Ni in P, a delimiter, never a number byte) is the same JSON text but for those
// numbers, so nlohmann reads the same document with the numbers replaced, and accepts it
// (the numbers pass the same overflow rule). Number bytes cannot form ":::MLLOG ", so P' holds
// no second token either. The members EventView reads sit at the same places between the
// numbers, and key, event_type and namespace are literal bytes.

namespace {

// One line's payload as a pattern for the next lines of its shape.
//
// Why a template match is a shape match with the same number places: the template T was
// matched by its shape, T = L0 M1 L1 ... Mk Lk. A payload P of T's length that equals T
// outside the digits of M1...Mk and holds ASCII digits there is L0 N1 L1 ... Nk Lk with each
// Ni at Mi's place, of Mi's layout (the same sign, '.', exponent mark and sign, and digit
// counts). Each Ni is a number of number_end's grammar: the digits are free but for the first
// of an integer part of two or more digits, which must not be '0' (`leads`); the limits on
// digit counts hold as for Mi. And maximal munch ends Ni where it ended Mi: the byte after
// is the literal byte after Mi, which is no number byte. So P matches the shape, its numbers
// where T's are, and the members EventView reads lie at T's offsets.
#if defined(MLPERF_HAVE_AVX2_PATH)
// LineTemplate::matches' block loop in AVX2 (32 bytes a step, the last block overlapping):
// whether every byte x of p[0, n) has (x - base) as an unsigned byte at most `spread`. n >= 32.
__attribute__((target("avx2,popcnt,bmi"))) bool template_bytes_fit_avx2(const char* p, const char* base,
                                                                        const char* spread, std::size_t n) {
  __m256i past = _mm256_setzero_si256();
  auto add_block = [&](std::size_t at) __attribute__((target("avx2,popcnt,bmi"))) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + at));
    const __m256i from = _mm256_sub_epi8(x, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + at)));
    past = _mm256_or_si256(past, _mm256_subs_epu8(from, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(spread + at))));
  };
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) add_block(i);
  if (i < n) add_block(n - 32);
  return _mm256_testz_si256(past, past) != 0;
}
#endif

struct LineTemplate {
  // The payload with each digit of a number taken as '0', and 9 where that is so, 0
  // elsewhere: a byte x fits where (x - base) as an unsigned byte is at most `spread` (equal
  // to a literal byte, or any digit).
  std::string base;
  std::string spread;
  // base.size() once kept; an unused slot's never equals a payload's size (an empty payload
  // must not fit an empty slot).
  std::size_t size = SIZE_MAX;
  std::vector<std::uint32_t> leads;  // offsets of first digits of integer parts of 2+ digits
  // Where the members are (offsets from the payload's start, begin and end); kAbsent where
  // the shape has no such member (EventView's empty view, no data).
  static constexpr std::uint32_t kAbsent = 0xFFFFFFFF;
  // Longer lines are matched by their shape only: a template costs twice its line (MLLOG
  // payloads of the v5.1 round are at most 512 bytes), a shape's four at most 8 KiB.
  static constexpr std::size_t kMaxBytes = 1024;
  std::uint32_t time[2] = {0, 0}, key[2] = {0, 0}, type[2] = {0, 0}, name_space[2] = {0, 0}, value[2] = {0, 0},
                metadata[2] = {0, 0};
  bool time_integer = false;
  std::uint64_t id = 0;  // EventView::layout of the lines that fit it: new for every layout kept

  // Whether the payload at p (`size` bytes) fits this template.
  bool matches(const char* p) const {
    const std::size_t n = size;
    const char* b = base.data();
    const char* d = spread.data();
    std::size_t i = 0;
#if defined(MLPERF_HAVE_AVX2_PATH)
    if (n >= 32 && cpu_has_avx2()) {
      if (!template_bytes_fit_avx2(p, b, d, n)) return false;
      i = n;
    }
#endif
#if defined(__SSE2__)
    if (i < n && n >= 16) {
      // The bytes past their spread, OR-ed over the blocks (the last one overlaps): all zero
      // when every byte fits.
      __m128i past = _mm_setzero_si128();
      auto add_block = [&](std::size_t at) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at));
        const __m128i from = _mm_sub_epi8(x, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + at)));
        past = _mm_or_si128(past, _mm_subs_epu8(from, _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + at))));
      };
      for (; i + 16 <= n; i += 16) add_block(i);
      if (i < n) add_block(n - 16);
      if (_mm_movemask_epi8(_mm_cmpeq_epi8(past, _mm_setzero_si128())) != 0xFFFF) return false;
      i = n;
    }
#endif
    for (; i < n; ++i) {
      if (static_cast<unsigned char>(p[i] - b[i]) > static_cast<unsigned char>(d[i])) return false;
    }
    for (std::uint32_t at : leads) {
      if (p[at] == '0') return false;
    }
    return true;
  }
};

// A payload with its numbers taken out, and where the members EventView reads are.
struct Shape {
  // A place in a payload: `offset` bytes after the end of its `numbers_before`-th number
  // (after the payload's start when 0): State::number_ends[numbers_before] + offset.
  struct Mark {
    std::uint32_t offset = 0;
    std::uint32_t numbers_before = 0;
  };
  using Span = Mark[2];  // begin, end
  using Index = std::uint16_t;
  static constexpr Index kNone = 0xFFFF;

  std::string literal;              // the payload without its numbers
  std::vector<std::uint32_t> cuts;  // where in `literal` each number was
  std::uint32_t time_number = 0;    // which number is time_ms
  Span time, key, type, name_space, value, metadata;
  bool type_is_string = false, name_space_is_string = false, has_value = false, metadata_is_object = false;
  Index next = kNone;      // the shape of the line that followed last time
  std::uint64_t id = 0;    // EventView::shape: never reused in the process

  // Lines this shape matched, laid out whole: a line of the same length whose bytes equal a
  // template's but where the template has a digit of a number, and there hold digits, has
  // numbers of the same layout (see LineTemplate::matches), so the same members at the same
  // places. One number of another length and the template misses; a shape keeps a few
  // layouts (a float's repr varies in length).
  static constexpr std::size_t kTemplates = 4;
  std::array<LineTemplate, kTemplates> templates;
  std::uint8_t next_template = 0;  // the slot the next template replaces
};

}  // namespace

struct MllogScanner::State {
  using Index = Shape::Index;
  // Shapes kept (a whole round's logs hold about 1,300); when full, all are forgotten.
  static constexpr std::size_t kMaxShapes = 4096;
  // A line that is not the expected next shape is tried against its key's most recently
  // matched shapes, this many at most, before it is scanned in full.
  static constexpr std::size_t kTriesPerKey = 16;
  // A key's shapes listed for those tries, at most (older ones stay in the follow chain).
  static constexpr std::size_t kListedPerKey = 64;
  // After this many lines of no known shape, shapes are only kept up while they match at
  // least one line in five (a log of all different lines costs little more than the scan).
  static constexpr std::uint64_t kTrialMisses = 256;
  // Lines read without shapes before a new trial.
  static constexpr std::uint64_t kRetryAfter = 4096;

  std::vector<Shape> shapes;  // at most kMaxShapes, in the order made
  // The shapes of each logged key (logged_key of the line a shape was made from), the most
  // recently matched last.
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
  };
  std::unordered_map<std::string, std::vector<Index>, KeyHash, std::equal_to<>> by_key;
  Index last = Shape::kNone;  // the shape of the previous line
  // [0] the payload's start, then where each number of the line being matched ends.
  std::vector<const char*> number_ends{nullptr};
  NumberSpans numbers;  // the numbers of the line being scanned
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t skipped = 0;
  std::uint64_t total_matches = 0;  // never reset

  Shape::Mark mark(const char* payload, const char* at) const {
    Shape::Mark m;
    const char* after = payload;
    for (const auto& [begin, end] : numbers) {
      if (end > at) break;
      after = end;
      ++m.numbers_before;
    }
    m.offset = static_cast<std::uint32_t>(at - after);
    return m;
  }

  const char* place(const Shape::Mark& m) const { return number_ends[m.numbers_before] + m.offset; }

  bool match(Shape& shape, const char* begin, const char* end, EventView& view);
  // Makes the line [begin, end), just matched by `shape` in full (number_ends holds its
  // numbers' ends), a template of the shape.
  // Keeps the line's layout in the shape's next slot; its id (EventView::layout), 0 when the
  // line is too long to keep one.
  std::uint64_t keep_template(Shape& shape, const char* begin, const char* end, bool time_integer,
                              const EventView& view);

  // Bookkeeping after shape `index` matched (or was made for) a line.
  void matched(Index index) {
    ++hits;
    ++total_matches;
    follow(index);
  }
  void follow(Index index) {
    if (last != Shape::kNone) shapes[last].next = index;
    last = index;
  }
  void remember(const Fields& f, const char* begin, const char* end, std::string_view key);
  static std::uint64_t next_shape_id();
};

namespace {

// The text between the quotes of the first `"key": "` member in the payload's first 256
// bytes ("" when there is none): where mlperf_logging writes the key. A guess to pass over
// shapes quickly, never a result: a nested "key" member or an escaped quote only cost speed.
std::string_view logged_key(const char* begin, const char* end) {
  constexpr std::string_view kKeyMember = "\"key\": \"";
  const std::string_view head(begin, std::min<std::size_t>(static_cast<std::size_t>(end - begin), 256));
  const std::size_t at = head.find(kKeyMember);
  if (at == std::string_view::npos) return {};
  const std::string_view rest(begin + at + kKeyMember.size(), static_cast<std::size_t>(end - begin) - at - kKeyMember.size());
  const std::size_t close = rest.find('"');
  return close == std::string_view::npos ? std::string_view() : rest.substr(0, close);
}

}  // namespace

bool MllogScanner::State::match(Shape& shape, const char* begin, const char* end, EventView& view) {
  const auto size = static_cast<std::size_t>(end - begin);
  for (const LineTemplate& t : shape.templates) {
    if (t.size != size || !t.matches(begin)) continue;
    auto span = [begin](const std::uint32_t (&at)[2]) {
      return at[0] == LineTemplate::kAbsent ? std::string_view() : std::string_view(begin + at[0], at[1] - at[0]);
    };
    view.time_ms.set_text(span(t.time), t.time_integer);
    view.key = span(t.key);
    view.event_type = span(t.type);
    view.name_space = span(t.name_space);
    view.value = span(t.value);
    view.metadata = span(t.metadata);
    view.shape = shape.id;
    view.layout = t.id;
    return true;
  }
  const char* q = begin;
  number_ends[0] = begin;
  const char* literal = shape.literal.data();
  std::uint32_t done = 0;  // bytes of the literal matched
  bool time_integer = false;
  const std::size_t count = shape.cuts.size();
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t n = shape.cuts[i] - done;
    if (static_cast<std::size_t>(end - q) <= n || !same_bytes(q, literal + done, n)) return false;
    q += n;
    done = shape.cuts[i];
    bool integer;
    q = number_end(q, end, integer);
    if (q == nullptr) return false;
    if (i == shape.time_number) time_integer = integer;
    number_ends[i + 1] = q;
  }
  std::size_t n = shape.literal.size() - done;
  if (static_cast<std::size_t>(end - q) != n || !same_bytes(q, literal + done, n)) return false;
  // The members, where the shape has them.
  auto span = [&](const Shape::Span& marks) {
    const char* b = place(marks[0]);
    return std::string_view(b, static_cast<std::size_t>(place(marks[1]) - b));
  };
  view.time_ms.set_text(span(shape.time), time_integer);
  // Between the quotes (no bounds check: a shape's strings have both).
  auto inner = [](std::string_view quoted) { return std::string_view(quoted.data() + 1, quoted.size() - 2); };
  view.key = inner(span(shape.key));
  if (shape.type_is_string) {
    view.event_type = inner(span(shape.type));
  } else {
    view.event_type = {};
  }
  if (shape.name_space_is_string) {
    view.name_space = inner(span(shape.name_space));
  } else {
    view.name_space = {};
  }
  view.value = shape.has_value ? span(shape.value) : std::string_view();
  view.metadata = shape.metadata_is_object ? span(shape.metadata) : std::string_view();
  view.shape = shape.id;
  view.layout = keep_template(shape, begin, end, time_integer, view);
  return true;
}

std::uint64_t MllogScanner::State::keep_template(Shape& shape, const char* begin, const char* end, bool time_integer,
                                                 const EventView& view) {
  if (end - begin > static_cast<std::ptrdiff_t>(LineTemplate::kMaxBytes)) return 0;
  LineTemplate& t = shape.templates[shape.next_template];
  shape.next_template = static_cast<std::uint8_t>((shape.next_template + 1) % Shape::kTemplates);
  t.base.assign(begin, end);
  t.size = t.base.size();
  t.spread.assign(t.base.size(), '\0');
  t.leads.clear();
  const std::size_t count = shape.cuts.size();
  for (std::size_t i = 0; i < count; ++i) {
    // Number i starts after the literal bytes that precede it.
    const char* number = number_ends[i] + (shape.cuts[i] - (i == 0 ? 0 : shape.cuts[i - 1]));
    const char* number_end = number_ends[i + 1];
    const char* integer = number + (*number == '-' ? 1 : 0);
    const char* p = integer;
    while (p < number_end && is_digit(*p)) ++p;
    if (p - integer > 1) t.leads.push_back(static_cast<std::uint32_t>(integer - begin));
    for (const char* c = number; c < number_end; ++c) {
      if (is_digit(*c)) {
        t.base[static_cast<std::size_t>(c - begin)] = '0';
        t.spread[static_cast<std::size_t>(c - begin)] = 9;
      }
    }
  }
  auto offsets = [begin](std::string_view member, std::uint32_t (&at)[2]) {
    if (member.data() == nullptr) {
      at[0] = at[1] = LineTemplate::kAbsent;
      return;
    }
    at[0] = static_cast<std::uint32_t>(member.data() - begin);
    at[1] = static_cast<std::uint32_t>(member.data() + member.size() - begin);
  };
  offsets(view.key, t.key);
  offsets(view.event_type, t.type);
  offsets(view.name_space, t.name_space);
  offsets(view.value, t.value);
  offsets(view.metadata, t.metadata);
  t.time[0] = static_cast<std::uint32_t>(place(shape.time[0]) - begin);
  t.time[1] = static_cast<std::uint32_t>(place(shape.time[1]) - begin);
  t.time_integer = time_integer;
  // Like shape ids, unique in the process: a reader's memo of a layout (metadata_members)
  // never meets another layout under its id.
  static std::atomic<std::uint64_t> last_id{0};
  t.id = last_id.fetch_add(1, std::memory_order_relaxed) + 1;
  return t.id;
}

MllogScanner::MllogScanner() : state_(std::make_unique<State>()) {}
MllogScanner::~MllogScanner() = default;
MllogScanner::MllogScanner(MllogScanner&&) noexcept = default;
MllogScanner& MllogScanner::operator=(MllogScanner&&) noexcept = default;

std::uint64_t MllogScanner::shape_matches() const { return state_->total_matches; }

// Shape ids are unique in the process, not only per scanner: a reader may keep what it
// worked out for a shape from one log to the next on its thread (the compliance reader's
// rule-key ids) whatever scanner the views came from. A round makes some 1,300.
std::uint64_t MllogScanner::State::next_shape_id() {
  static std::atomic<std::uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

ScanKind MllogScanner::scan(std::string_view line, EventView& view, std::size_t token_at) {
  State& st = *state_;
  if (token_at == std::string_view::npos) {
    token_at = line.find(kMllogToken);
    if (token_at == std::string_view::npos) return ScanKind::kNotMllog;
  }
  const char* begin = line.data() + token_at + kMllogToken.size();
  const char* end = line.data() + line.size();
  const bool use_shapes = st.misses < State::kTrialMisses || st.misses <= 4 * st.hits;
  if (!use_shapes && ++st.skipped >= State::kRetryAfter) {
    st.misses = st.hits = st.skipped = 0;  // the log may have changed: a new trial
  }
  std::string_view key;
  if (use_shapes) {
    // Logs repeat in cycles (tracked_stats, eval_start, eval_accuracy, eval_stop, ...; a
    // benchmark's runs log the same lines): the shape that followed the previous line's
    // shape last time is tried first, then the key's shapes, most recently matched first.
    const Shape::Index guess = st.last != Shape::kNone ? st.shapes[st.last].next : Shape::kNone;
    if (guess != Shape::kNone && st.match(st.shapes[guess], begin, end, view)) {
      st.matched(guess);
      return ScanKind::kEvent;
    }
    // Only the shapes of the line's key (where mlperf_logging writes it; matching still
    // decides) are tried.
    key = logged_key(begin, end);
    if (auto listed = st.by_key.find(key); listed != st.by_key.end()) {
      std::vector<Shape::Index>& list = listed->second;
      std::size_t tries = 0;
      for (std::size_t i = list.size(); i-- > 0 && tries < State::kTriesPerKey;) {
        const Shape::Index index = list[i];
        if (index == guess) continue;
        ++tries;
        if (st.match(st.shapes[index], begin, end, view)) {
          std::rotate(list.begin() + static_cast<std::ptrdiff_t>(i), list.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                      list.end());  // to the back
          st.matched(index);
          return ScanKind::kEvent;
        }
      }
    }
    ++st.misses;
  }
  Fields f;
  st.numbers.clear();
  if (!scan_payload(begin, end, f, use_shapes ? &st.numbers : nullptr) || !fields_to_view(f, view)) {
    return ScanKind::kUnsure;
  }
  if (use_shapes) st.remember(f, begin, end, key);
  return ScanKind::kEvent;
}

void MllogScanner::State::remember(const Fields& f, const char* begin, const char* end, std::string_view key) {
  if (shapes.size() == kMaxShapes) {  // full: start over (ids stay unique: new ones are taken)
    shapes.clear();
    by_key.clear();
    last = Shape::kNone;
  }
  const auto index = static_cast<Index>(shapes.size());
  Shape& shape = shapes.emplace_back();
  std::vector<Index>& list = by_key[std::string(key)];
  if (list.size() == kListedPerKey) list.erase(list.begin());
  list.push_back(index);
  shape.id = next_shape_id();
  const char* at = begin;
  shape.time_number = static_cast<std::uint32_t>(-1);
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    shape.literal.append(at, numbers[i].first);
    shape.cuts.push_back(static_cast<std::uint32_t>(shape.literal.size()));
    at = numbers[i].second;
    if (numbers[i].first == f.time.data()) shape.time_number = static_cast<std::uint32_t>(i);
  }
  shape.literal.append(at, end);
  if (number_ends.size() < numbers.size() + 1) number_ends.resize(numbers.size() + 1);
  auto marks = [&](std::string_view raw, Shape::Span& out) {
    out[0] = mark(begin, raw.data());
    out[1] = mark(begin, raw.data() + raw.size());
  };
  marks(f.time, shape.time);
  marks(f.key, shape.key);
  shape.type_is_string = is_string(f.type);
  if (shape.type_is_string) marks(f.type, shape.type);
  shape.name_space_is_string = is_string(f.name_space);
  if (shape.name_space_is_string) marks(f.name_space, shape.name_space);
  shape.has_value = !f.value.empty();
  if (shape.has_value) marks(f.value, shape.value);
  shape.metadata_is_object = !f.metadata.empty() && f.metadata[0] == '{';
  if (shape.metadata_is_object) marks(f.metadata, shape.metadata);
  follow(index);
}

namespace {

// Calls visit(name, value) for each member of the validated JSON object text `object`, in
// order, until visit returns false; stops, as json_member's readers do, at an escaped member
// name or anything else the Scanner does not take (nothing for a text that is no object).
template <class Visit>
void for_each_member(std::string_view object, const Visit& visit) {
  if (object.empty() || object[0] != '{') return;
  Scanner s(object.data() + 1, object.data() + object.size());
  s.skip_whitespace();
  if (s.peek() == '}') return;
  for (;;) {
    std::string_view member;
    if (!s.member_name(member)) return;
    const char* start = s.pos();
    if (!s.value()) return;
    if (!visit(member, std::string_view(start, static_cast<std::size_t>(s.pos() - start)))) return;
    s.skip_whitespace();
    if (s.peek() != ',') return;
    s.advance();
    s.skip_whitespace();
  }
}

}  // namespace

std::string_view json_member(std::string_view object, std::string_view name) {
  std::string_view found;
  for_each_member(object, [&](std::string_view member, std::string_view value) {
    if (member == name) found = value;
    return true;
  });
  return found;
}

namespace {

// The byte after the JSON string whose opening quote is at p, in text already validated;
// `escaped` tells whether it held a backslash. end when it is not closed.
inline const char* skip_validated_string(const char* p, const char* end, bool& escaped) {
  ++p;
  for (;;) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    while (end - p >= 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const unsigned mask = static_cast<unsigned>(
          _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash))));
      if (mask != 0) {
        p += __builtin_ctz(mask);
        break;
      }
      p += 16;
    }
#endif
    while (p < end && *p != '"' && *p != '\\') ++p;
    if (p >= end) return end;
    if (*p == '"') return p + 1;
    escaped = true;
    p += 2;  // a backslash and the byte it escapes
    if (p >= end) return end;
  }
}

inline bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// for_each_member for the text of an EventView of kEvent (scan_mllog_line validated it, and
// its strings hold printable ASCII and simple escapes only): the same members, found
// without validating again. Stops, as for_each_member does, at an escaped member name.
template <class Visit>
void for_each_validated_member(std::string_view object, const Visit& visit) {
  if (object.empty() || object[0] != '{') return;
  const char* p = object.data() + 1;
  const char* end = object.data() + object.size();
  auto skip_space = [&] {
    while (p < end && is_json_space(*p)) ++p;
  };
  skip_space();
  if (p >= end || *p == '}') return;
  for (;;) {
    if (p >= end || *p != '"') return;
    bool escaped = false;
    const char* name_end = skip_validated_string(p, end, escaped);
    if (escaped || name_end >= end) return;
    const std::string_view name(p + 1, static_cast<std::size_t>(name_end - 1 - (p + 1)));
    p = name_end;
    skip_space();
    if (p >= end || *p != ':') return;
    ++p;
    skip_space();
    const char* start = p;
    int depth = 0;
    while (p < end) {
      const char c = *p;
      if (c == '"') {
        bool e = false;
        p = skip_validated_string(p, end, e);
        if (depth == 0) break;
      } else if (c == '{' || c == '[') {
        ++depth;
        ++p;
      } else if (c == '}' || c == ']') {
        if (depth == 0) break;  // the end of the object: a scalar before it ends here
        ++p;
        if (--depth == 0) break;
      } else if (depth == 0 && (c == ',' || is_json_space(c))) {
        break;
      } else {
        ++p;
      }
    }
    if (p == start) return;
    if (!visit(name, std::string_view(start, static_cast<std::size_t>(p - start)))) return;
    skip_space();
    if (p >= end || *p != ',') return;
    ++p;
    skip_space();
  }
}

}  // namespace

ObjectMembers::ObjectMembers(std::string_view object) : object_(object) {
  if (object.size() > UINT32_MAX) {
    overflow_ = true;  // offsets would not fit: find asks json_member
    return;
  }
  for_each_validated_member(object, [&](std::string_view member, std::string_view value) {
    if (count_ == kKept) {
      overflow_ = true;  // find asks json_member
      return false;
    }
    members_[count_++] = {static_cast<std::uint32_t>(member.data() - object.data()),
                          static_cast<std::uint32_t>(member.size()),
                          static_cast<std::uint32_t>(value.data() - object.data()),
                          static_cast<std::uint32_t>(value.size())};
    return true;
  });
}

ObjectMembers::ObjectMembers(const ObjectMembers& same_layout, std::string_view object) : object_(object) {
  if (object.size() != same_layout.object_.size()) {
    *this = ObjectMembers(object);
    return;
  }
  count_ = same_layout.count_;
  overflow_ = same_layout.overflow_;
  std::copy(same_layout.members_, same_layout.members_ + count_, members_);
}

std::string_view ObjectMembers::find(std::string_view name) const {
  if (overflow_) return json_member(object_, name);
  for (std::size_t i = count_; i-- > 0;) {
    const Member& m = members_[i];
    if (m.name_size == name.size() && std::memcmp(object_.data() + m.name_at, name.data(), name.size()) == 0) {
      return object_.substr(m.value_at, m.value_size);
    }
  }
  return {};
}

namespace {

// The members of recent layouts' metadata (metadata_members), direct-mapped by layout id:
// a log's eval and block lines come in a few layouts at a time.
struct MetadataMemo {
  static constexpr std::size_t kSlots = 64;
  struct Slot {
    std::uint64_t layout = 0;
    std::optional<ObjectMembers> members;
  };
  std::array<Slot, kSlots> slots;
};

}  // namespace

ObjectMembers metadata_members(std::string_view metadata, std::uint64_t layout) {
  if (layout == 0 || metadata.empty()) return ObjectMembers(metadata);
  MetadataMemo::Slot& slot = ThreadCache<MetadataMemo>::get().slots[layout % MetadataMemo::kSlots];
  if (slot.layout == layout && slot.members) return ObjectMembers(*slot.members, metadata);
  slot.members.emplace(metadata);
  slot.layout = layout;
  return *slot.members;
}

std::optional<double> json_number(std::string_view value) {
  if (!starts_number(value)) return std::nullopt;
  const char* first = value.data();
  const char* last = first + value.size();
  // nlohmann reads an integer as int64 (negative) or uint64 when it fits, else as a double.
  bool integer = true;
  for (char c : value) integer = integer && c != '.' && c != 'e' && c != 'E';
  if (integer) {
    if (value[0] == '-') {
      long long v = 0;
      auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec == std::errc() && ptr == last) return static_cast<double>(v);
    } else {
      unsigned long long v = 0;
      auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec == std::errc() && ptr == last) return static_cast<double>(v);
    }
  }
  double d = 0;
  auto [ptr, ec] = std::from_chars(first, last, d);
  if (ec == std::errc() && ptr == last) return d;
  // Out of range (an underflow: overflows are never accepted) — strtod as nlohmann does.
  std::string copy(value);
  return std::strtod(copy.c_str(), nullptr);
}

std::optional<std::string> json_string(std::string_view value) {
  std::string_view plain;
  if (plain_string(value, plain)) return std::string(plain);
  if (value.empty() || value[0] != '"') return std::nullopt;
  try {
    return nlohmann::json::parse(value.begin(), value.end()).get<std::string>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace mlperf
