#include "mlperf/report/json_text.h"

#include <algorithm>
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mlperf/mllog/mllog.h"
#include "mlperf/report/exact_bytes.h"

namespace mlperf {

namespace {

constexpr auto kReplace = nlohmann::json::error_handler_t::replace;

// Whether every byte of `s` is printable ASCII other than '"' and '\\' (16 at a time where
// SSE2 is there): such a string is written as it is.
bool plain_ascii(const std::string& s) {
  const char* p = s.data();
  const char* const end = p + s.size();
#if defined(__SSE2__)
  const __m128i space_less_one = _mm_set1_epi8(0x1f);
  const __m128i tilde = _mm_set1_epi8(0x7e);
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  auto plain16 = [&](const char* at) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    // Signed compares: bytes of 0x80 and above are negative, not above 0x1f.
    const __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpgt_epi8(b, tilde), _mm_cmpeq_epi8(b, quote)),
                                     _mm_or_si128(_mm_cmpeq_epi8(b, backslash),
                                                  _mm_cmpeq_epi8(_mm_cmpgt_epi8(b, space_less_one), _mm_setzero_si128())));
    return _mm_movemask_epi8(bad) == 0;
  };
  if (end - p >= 16) {
    for (; end - p >= 16; p += 16) {
      if (!plain16(p)) return false;
    }
    // The last bytes in one more block that ends where the string does (it overlaps the last
    // one read), not byte by byte.
    return p == end || plain16(end - 16);
  }
#endif
  return std::all_of(p, end, [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f && c != '"' && c != '\\';
  });
}

}  // namespace

void JsonText::number(double d) {
  item();
  // What nlohmann's serializer (dump_float) writes: null when not finite, else its Grisu2
  // shortest form from nlohmann::detail::to_chars, the function dump itself calls (a test
  // compares every number form of the reports with dump's).
  if (!std::isfinite(d)) {
    out_.append("null");
    return;
  }
  char digits[64];
  const char* end = nlohmann::detail::to_chars(digits, digits + sizeof digits, d);
  out_.append(digits, static_cast<std::size_t>(end - digits));
}

// key_ stays the member's key while its value is written (only key() sets it).
void JsonText::value(const nlohmann::json& v) {
  if (v.is_string()) return string(v.get_ref<const std::string&>());  // the same text and sibling
  const bool member = pending_value_;
  write_value(v);
  if (!member) return;
  // A list of strings with one that is not UTF-8: "<key>_bytes" beside it (exact_bytes.h).
  if (auto sibling = exact_bytes_sibling(v)) {
    bytes_sibling_key();
    write_value(*sibling);
  }
}

void JsonText::string(const std::string& s) {
  const bool member = pending_value_;
  item();
  if (append_string(s) || !member || is_valid_utf8(s)) return;
  bytes_sibling_key();
  write_string(hex_bytes(s));
}

// The key of the "_bytes" sibling of the member whose value was just written.
void JsonText::bytes_sibling_key() {
  std::string name;
  name.reserve(key_.size() + 6);
  name.append(key_).append("_bytes");
  bytes_key_ = std::move(name);
  this->key(bytes_key_);
}

void JsonText::strings(const std::vector<std::string>& list) {
  const bool member = pending_value_;
  begin_array();
  bool all_plain = true;
  for (const auto& s : list) {
    item();
    all_plain = append_string(s) && all_plain;
  }
  end_array();
  if (!member || all_plain ||
      std::all_of(list.begin(), list.end(), [](const std::string& s) { return is_valid_utf8(s); })) {
    return;
  }
  bytes_sibling_key();
  begin_array();
  for (const auto& s : list) is_valid_utf8(s) ? literal("null") : write_string(hex_bytes(s));
  end_array();
}

void JsonText::write_value(const nlohmann::json& v) {
  // Scalars nlohmann writes plainly are written here (no serializer set up per value).
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return literal("null");
    case nlohmann::json::value_t::boolean:
      return boolean(v.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return integer(v.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return integer(v.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float:
      return number(v.get<double>());  // dump_float's text, without a serializer per value
    case nlohmann::json::value_t::string:
      return write_string(v.get_ref<const std::string&>());
    case nlohmann::json::value_t::array:
      // A list of scalars (most lists the reports hold): no member in it can get a sibling,
      // and it needs no stack of levels.
      if (std::none_of(v.cbegin(), v.cend(), [](const nlohmann::json& e) { return e.is_structured(); })) {
        open('[');
        for (const auto& e : v) write_value(e);
        return close(']');
      }
      [[fallthrough]];
    case nlohmann::json::value_t::object:
      // Its own members' "_bytes" siblings, as inference_to_json has them: where one is due,
      // a copy gets them (add_exact_bytes sorts them in among the members), else none is made.
      if (needs_exact_bytes(v)) {
        nlohmann::json copy = v;
        add_exact_bytes(copy);
        return write_structured(copy);
      }
      return write_structured(v);
    default:
      break;
  }
  item();
  out_.append(v.dump(-1, ' ', false, kReplace));
}

// An object or array written member by member in dump(2)'s layout (members in the object's
// own order, std::map's), no siblings added. Iterative: a deep value cannot exhaust the stack.
void JsonText::write_structured(const nlohmann::json& root) {
  struct Level {
    const nlohmann::json* node;
    nlohmann::json::const_iterator at;
  };
  std::vector<Level> levels;
  auto enter = [&](const nlohmann::json& node) {
    open(node.is_object() ? '{' : '[');
    levels.push_back({&node, node.cbegin()});
  };
  enter(root);
  while (!levels.empty()) {
    Level& level = levels.back();
    if (level.at == level.node->cend()) {
      close(level.node->is_object() ? '}' : ']');
      levels.pop_back();
      continue;
    }
    const auto at = level.at++;
    if (level.node->is_object()) raw_key(at.key());
    if (at->is_structured()) {
      enter(*at);
    } else {
      write_value(*at);
    }
  }
}

// Whether a structured value holds an object with a member that gets a "_bytes" sibling.
bool JsonText::needs_exact_bytes(const nlohmann::json& root) {
  std::vector<const nlohmann::json*> pending{&root};
  while (!pending.empty()) {
    const nlohmann::json* node = pending.back();
    pending.pop_back();
    for (auto it = node->cbegin(); it != node->cend(); ++it) {
      if (node->is_object() && exact_bytes_sibling(*it)) return true;
      if (it->is_structured()) pending.push_back(&*it);
    }
  }
  return false;
}

// A member's key from a document (escaped as nlohmann escapes it).
void JsonText::raw_key(const std::string& name) {
  item();
  append_string(name);
  out_.append(": ", 2);
  pending_value_ = true;
}

// Printable ASCII without quote or backslash is written as it is (what nlohmann writes);
// anything else goes through nlohmann's escaping. Returns whether `s` was plain ASCII.
bool JsonText::append_string(const std::string& s) {
  if (plain_ascii(s)) {
    out_.push_back('"');
    out_.append(s.data(), s.size());
    out_.push_back('"');
    return true;
  }
  if (!is_valid_utf8(s)) {
    // nlohmann's replacement of invalid sequences (U+FFFD) is its own: its serializer writes it.
    out_.append(nlohmann::json(s).dump(-1, ' ', false, kReplace));
    return false;
  }
  append_escaped_utf8(out_, s);
  return true;
}

void append_escaped_utf8(std::string& out, std::string_view s) {
  out.push_back('"');
  std::size_t run = 0;  // start of the bytes not yet copied
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        const char escape[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
        out.append(escape, sizeof escape);
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

void JsonText::open(char c) {
  item();
  out_.push_back(c);
  ++depth_;
  first_.push_back(1);
}

void JsonText::close(char c) {
  --depth_;
  if (first_.back() == 0) line_break(0, base_ + 2 * depth_);
  first_.pop_back();
  out_.push_back(c);
}

}  // namespace mlperf
