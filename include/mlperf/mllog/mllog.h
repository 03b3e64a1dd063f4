#pragma once
// The MLLOG line format (scoring.md §1): one line → one Event, or a parse error.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mlperf {

/// The token that marks an MLLOG line (note the trailing space).
inline constexpr std::string_view kMllogToken = ":::MLLOG ";

/// The deepest JSON nesting parse_mllog_line accepts; the MLLOG object itself is level 1.
/// Real events nest 3 levels; Python's json (the reference) gives up near its recursion limit
/// of 1000; deeper values would overflow the stack in recursive code (dump, copies).
inline constexpr int kMaxMllogNesting = 1000;

/// One MLLOG event.
struct Event {
  double time_ms = 0;       ///< milliseconds since the epoch (may be fractional)
  std::string key;          ///< e.g. "run_start", "eval_accuracy"
  std::string event_type;   ///< POINT_IN_TIME, INTERVAL_START or INTERVAL_END (as logged)
  std::string name_space;   ///< "namespace", usually empty
  nlohmann::json value;     ///< any JSON (null when absent)
  nlohmann::json metadata;  ///< an object (empty object when absent)
  std::uint64_t line = 0;   ///< 1-based line number in its file
};

/// A problem with one line of one file; never fatal.
struct ParseError {
  std::string file;
  std::uint64_t line = 0;
  std::string message;
};

/// What one line turned out to be.
enum class LineKind {
  kNotMllog,  ///< no ":::MLLOG " token: ignored
  kEvent,     ///< parsed into an Event
  kError,     ///< held the token but its JSON is bad or lacks time_ms/key
};

/// Parses one line (without its terminator) per scoring.md §1: the JSON starts after the
/// last ":::MLLOG " token; anything before is noise. Bytes that are not valid UTF-8 are
/// read as Latin-1, like the reference. JSON nested deeper than kMaxMllogNesting levels is an
/// error, found before parsing. On kEvent fills `event` (except `event.line`); on kError sets
/// `error` to a one-line reason. Never throws.
LineKind parse_mllog_line(std::string_view line, Event& event, std::string& error);

/// One MLLOG event as found by scan_mllog_line: the fields scoring reads, with `value` and
/// `metadata` left as their JSON text (views into the scanned line, valid while it is).
/// Reading a field with json_member / json_number gives what the same field of the Event
/// from parse_mllog_line holds.
/// EventView::time_ms: milliseconds since the epoch, kept as the digits the scanner found
/// and turned into the double (to the bit what the full parser gives) only when read; most
/// lines' time is never read (a key's count and last line are all a census keeps of most).
/// Converts to double implicitly; a double can be assigned. The digits are a view into the
/// scanned line, valid while it is (as the view's other fields).
class LazyTimeMs {
 public:
  LazyTimeMs() = default;
  LazyTimeMs(double ms) : value_(ms) {}  // NOLINT: a plain time_ms
  /// The JSON number `text` of a scanned line; `integer` when it is digits only (no '.',
  /// exponent or sign but a minus).
  void set_text(std::string_view text, bool integer) {
    text_ = text;
    integer_ = integer;
  }
  operator double() const { return text_.data() ? from_text() : value_; }  // NOLINT: reads as time_ms

 private:
  double from_text() const;
  std::string_view text_;  // empty data(): value_ holds the time
  bool integer_ = false;
  double value_ = 0;
};

struct EventView {
  LazyTimeMs time_ms;             ///< milliseconds since the epoch, as Event::time_ms
  std::string_view key;           ///< the key (never holds an escape sequence)
  std::string_view event_type;    ///< "" when absent or not a string (no escapes)
  std::string_view name_space;    ///< "" when absent or not a string (no escapes)
  std::string_view value;         ///< JSON text of value; "" when absent (Event: null)
  std::string_view metadata;      ///< JSON text of metadata when an object, else ""
  std::uint64_t line = 0;         ///< 1-based line number in its file (set by the caller)
  /// MllogScanner only: the remembered shape the line matched (lines of one shape have the
  /// same bytes but for their numbers; no two scanners of the process number a shape
  /// alike); 0 when it matched none.
  std::uint64_t shape = 0;
  /// MllogScanner only: the kept number layout the line fit (lines of one layout have the same
  /// length and bytes but for the digits of their numbers, so every member, and every member
  /// of metadata, sits at the same offsets; never reused in the process); 0 when none.
  std::uint64_t layout = 0;
};

/// What scan_mllog_line made of a line.
enum class ScanKind {
  kNotMllog,  ///< no ":::MLLOG " token: ignored
  kEvent,     ///< a valid event, in the EventView
  kUnsure,    ///< anything else: ask parse_mllog_line (it may be a valid event or an error)
};

/// The fast path of parse_mllog_line for scoring (scoring.md §1): one pass over the JSON
/// after the token, validating it without building a document. Returns kEvent only for
/// lines that parse_mllog_line turns into an event with the same time_ms (to the bit), key,
/// event_type, namespace, value and metadata; everything it is not sure about is kUnsure,
/// never an error: a malformed line, and valid but unusual ones (a \u escape anywhere, an
/// escape in a member name or in key/event_type/namespace, a non-ASCII byte, a second token,
/// a number with more than 200 integer digits or a 3-digit exponent, nesting deeper than 63
/// levels, a missing or mistyped time_ms or key). `token_at` is the offset of the first
/// ":::MLLOG " in `line` (npos: search for it). Never throws.
ScanKind scan_mllog_line(std::string_view line, EventView& view,
                         std::size_t token_at = std::string_view::npos);

/// scan_mllog_line with a memory: it remembers the shape of the lines it validated (their
/// payload with the numbers taken out; up to 4,096, then it starts over) and checks each new
/// line against them first: the shape that followed the previous line's shape last time, then
/// the 16 most recently matched shapes of the line's key (a round's logs hold about 1,300
/// shapes, a benchmark's runs mostly the same ones). A line of a known shape is validated by
/// comparing its bytes with the shape and reading its numbers by the JSON grammar: that accepts exactly the lines that differ
/// from a validated one only in their numbers (see mllog.cc for why nlohmann/json then reads
/// the same event). Results are those of scan_mllog_line, line for line, whatever it has
/// seen before (other files included); only faster on logs that repeat themselves
/// (tracked_stats, eval and block lines). When few lines match, shapes are set aside for a
/// while. Not thread-safe: one per reading thread.
class MllogScanner {
 public:
  MllogScanner();
  ~MllogScanner();
  MllogScanner(MllogScanner&&) noexcept;
  MllogScanner& operator=(MllogScanner&&) noexcept;

  /// As scan_mllog_line(line, view, token_at).
  ScanKind scan(std::string_view line, EventView& view, std::size_t token_at = std::string_view::npos);
  /// How many lines so far were read through a remembered shape.
  std::uint64_t shape_matches() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// What a reader worked out once for the lines of one scanner shape (EventView::shape): lines
/// of a shape differ only in their numbers, so their key and every other literal part are the
/// same (the run builder keeps a key's census entry, the compliance reader its rule-key id).
/// Shape numbers are never reused in the process (whichever scanner made them).
/// Direct-mapped by the shape's low bits, so a later shape may take a slot; shape 0 (no
/// shape) is never kept.
template <class T, std::size_t kSlots = 16>
class ShapeMemo {
  static_assert((kSlots & (kSlots - 1)) == 0, "kSlots must be a power of two");

 public:
  /// The value kept for `shape`, or nullptr.
  const T* find(std::uint64_t shape) const {
    const Slot& slot = slots_[shape & (kSlots - 1)];
    return shape != 0 && slot.shape == shape ? &slot.value : nullptr;
  }
  /// Keeps `value` for `shape` (nothing for shape 0).
  void keep(std::uint64_t shape, const T& value) {
    if (shape != 0) slots_[shape & (kSlots - 1)] = Slot{shape, value};
  }

 private:
  struct Slot {
    std::uint64_t shape = 0;
    T value{};
  };
  std::array<Slot, kSlots> slots_{};
};

/// The JSON text of the member `name` of the JSON object `object` (the last one when the
/// name repeats, as parse_mllog_line keeps it); "" when absent or when `object` is not an
/// object. `object` must be JSON text validated by scan_mllog_line (an EventView field or a
/// member found in one).
std::string_view json_member(std::string_view object, std::string_view name);

/// True when `text` is one JSON value (blanks around it allowed) in the subset the MLLOG
/// scanner reads exactly as nlohmann::json::parse does: strings of printable ASCII with
/// simple escapes, member names without escapes, numbers within nlohmann's range, nesting up
/// to 63 levels. Then json_member, json_string and json_number may read it; false means only
/// that nlohmann must decide.
bool is_plain_json(std::string_view text);

/// The members of one JSON object text, read in one pass: find(name) gives what
/// json_member(object, name) gives, without reading the object again for each name (an eval
/// line's metadata is asked for samples_count, epoch_num and the metric by the run builder,
/// and for other members by the compliance rules). Holds views into `object`, which must
/// outlive it and be the text of an EventView of ScanKind::kEvent (or a member of one): its
/// members are found without validating the text again. Keeps up to kKept members; an
/// object with more is asked with json_member.
class ObjectMembers {
 public:
  static constexpr std::size_t kKept = 16;
  explicit ObjectMembers(std::string_view object);
  /// The members of `object`, an object text of the same length whose bytes are those of the
  /// object `same_layout` read but for digits of numbers (EventView::layout): the same members
  /// at the same offsets, taken without reading `object`. A text of another length is read.
  ObjectMembers(const ObjectMembers& same_layout, std::string_view object);
  ObjectMembers(const ObjectMembers&) = default;
  ObjectMembers& operator=(const ObjectMembers&) = default;
  /// The JSON text of member `name` (the last when it repeats); "" when absent.
  std::string_view find(std::string_view name) const;

 private:
  // A member's name and value texts, as offsets into object_ (so that the table serves every
  // object of the same layout). Left uninitialized beyond count_: an object is made per line
  // read (eval lines, ruled lines), and zeroing the table cost more than the scan.
  struct Member {
    std::uint32_t name_at;
    std::uint32_t name_size;
    std::uint32_t value_at;
    std::uint32_t value_size;
  };
  std::string_view object_;
  Member members_[kKept];
  std::size_t count_ = 0;
  bool overflow_ = false;  // more than kKept members: find asks json_member
};

/// ObjectMembers of `metadata`, the metadata text of an EventView of ScanKind::kEvent whose
/// EventView::layout is `layout`: where the layout is known (not 0), taken from this thread's
/// memo of the members of that layout's metadata (the first line of the layout read, the next
/// ones not: their members sit at the same offsets), else read.
ObjectMembers metadata_members(std::string_view metadata, std::uint64_t layout);

/// The number the JSON text `value` holds, as nlohmann::json::get<double>() gives it for
/// the parsed value (integers converted exactly rounded, "-0" as 0); nullopt when `value`
/// is not a number (or empty). `value` must come from scan_mllog_line.
std::optional<double> json_number(std::string_view value);

/// The contents of the JSON string `value` with its escapes decoded; nullopt when `value`
/// is not a string. `value` must come from scan_mllog_line.
std::optional<std::string> json_string(std::string_view value);

/// The offset of the first byte of `text` that does not start a well-formed UTF-8 sequence
/// (overlong forms, surrogates and code points beyond U+10FFFF are not); nullopt when all are.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

/// True when `text` is well-formed UTF-8 (first_invalid_utf8 finds nothing).
bool is_valid_utf8(std::string_view text);

/// Re-encodes Latin-1 bytes as UTF-8 (each byte is one code point).
std::string latin1_to_utf8(std::string_view text);

/// Parses JSON text as Python's json.loads reads it (the official MLLOG parser uses it): RFC
/// 8259 plus the bare tokens NaN, Infinity and -Infinity, which Python's json.dumps writes for
/// non-finite floats (a diverged eval_accuracy logs NaN); they become the doubles NaN, +inf,
/// -inf. A float literal beyond the double range (1e400) is ±inf, as Python's float() reads
/// it; an integer literal beyond it stays an error. Throws nlohmann::json::parse_error as nlohmann::json::parse does for anything else,
/// with the error of the text as given.
nlohmann::json parse_json_like_python(std::string_view text);

/// Python's truth value of a JSON value (nlohmann::json or nlohmann::ordered_json): null, false,
/// 0, 0.0, "", [] and {} are false, everything else true.
template <class Json>
bool python_truthy(const Json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.template get<bool>();
  if (v.is_number()) return v.template get<double>() != 0;
  if (v.is_string()) return !v.template get_ref<const std::string&>().empty();  // empty() is false for any string
  return !v.empty();  // arrays and objects
}

/// Python's repr() of a float ("0.5", "1.0", "1e-05", "1e+16", "nan", "inf", "-inf"): the
/// shortest text that reads back, with ".0" on an integral value.
std::string python_float_repr(double d);

/// True when `text` holds JSON brackets ({, [) nested deeper than `levels` (brackets in strings
/// do not count): text to refuse before parsing, for nlohmann's recursive dump and destruction
/// would exhaust the stack where Python's json raises RecursionError (near 1000 levels). One
/// pass, no recursion.
bool json_nested_deeper_than(std::string_view text, int levels);

/// parse_json_like_python without exceptions: a discarded value (is_discarded()) when the
/// text does not parse.
nlohmann::json parse_json_like_python_or_discarded(std::string_view text);

/// parse_json_like_python_or_discarded with each object's members in the order of the text,
/// as Python's json.loads keeps them in a dict (nlohmann::json sorts them by name; a name
/// given twice keeps its first place and its last value, as in Python). For values shown as
/// Python shows them: the compliance rules' findings print v['metadata'] (mlp_compliance.py).
nlohmann::ordered_json parse_ordered_json_like_python_or_discarded(std::string_view text);

}  // namespace mlperf
