#include "mlperf/inference/loadgen_log.h"

#include <charconv>
#include <cstdlib>
#include <cstring>

#include <nlohmann/json.hpp>

#include "mlperf/mllog/line_reader.h"
#include "mlperf/mllog/thread_cache.h"

namespace mlperf::inference {

namespace {

constexpr std::size_t kErrorsKept = 8;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A number in Python's float() spelling (what the checker does with a string value).
std::optional<double> parse_double(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  std::string copy(s);
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return v;
}

// Where the value after the last `"is_error": ` of `text` starts, or npos. It hops back from
// colon to colon (memrchr): loadgen writes metadata last, so the flag is a few colons from
// the end.
std::size_t after_last_is_error(std::string_view text) {
  constexpr std::string_view flag = "\"is_error\": ";
  constexpr std::size_t colon_at = flag.find(':');
  std::size_t end = text.size();
  while (end > 0) {
    const void* q = ::memrchr(text.data(), ':', end);
    if (q == nullptr) return std::string_view::npos;
    const std::size_t colon = static_cast<const char*>(q) - text.data();
    if (colon >= colon_at && text.substr(colon - colon_at).starts_with(flag)) return colon - colon_at + flag.size();
    end = colon;
  }
  return std::string_view::npos;
}

// How read_detail_log takes an event line.
enum class LineUse {
  kSkip,    // loadgen's usual form, {"key": "K", ... "is_error": false ...}, K not wanted
  kWanted,  // loadgen's usual form, K wanted
  kParse,   // anything else: parsed in full (it may flag an error or not parse)
};

// A line in the usual form whose key is not wanted keeps nothing, so it is not validated
// (validating every line cost five times the read; issue #13 asks for twice grep). A line
// that is not in that form, flags an error or holds a wanted key takes the full path. The
// last `"is_error": ` is metadata's: loadgen writes metadata after value, and inside a JSON
// string the quotes of that text would be escaped.
// `key` is set to the key read from the head (kWanted and kSkip).
LineUse line_use(std::string_view payload, const KeySet& wanted, std::string_view& key) {
  constexpr std::string_view head = "{\"key\": \"";
  if (!payload.starts_with(head)) return LineUse::kParse;
  std::size_t end = payload.find('"', head.size());
  if (end == std::string_view::npos) return LineUse::kParse;
  key = payload.substr(head.size(), end - head.size());
  if (key.find('\\') != std::string_view::npos) return LineUse::kParse;
  if (wanted.count(key)) return LineUse::kWanted;
  const std::size_t flag_value = after_last_is_error(payload);
  return flag_value != std::string_view::npos && payload.substr(flag_value).starts_with("false") ? LineUse::kSkip
                                                                                                 : LineUse::kParse;
}

}  // namespace

std::optional<double> LoadgenLog::number(std::string_view key) const {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  if (auto n = json_number(it->second.json)) return n;
  if (auto s = json_string(it->second.json)) return parse_double(*s);
  return std::nullopt;
}

std::optional<std::string> LoadgenLog::text(std::string_view key) const {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  if (auto s = json_string(it->second.json)) return s;
  return it->second.json;
}

std::optional<bool> LoadgenLog::boolean(std::string_view key) const {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  if (it->second.json == "true") return true;
  if (it->second.json == "false") return false;
  return std::nullopt;
}

std::uint64_t LoadgenLog::line(std::string_view key) const {
  auto it = values.find(key);
  return it == values.end() ? 0 : it->second.line;
}

namespace {

// Whether a line's metadata (JSON text) flags an error.
bool flags_error(std::string_view metadata) {
  return !metadata.empty() && json_member(metadata, "is_error") == "true";
}

// The shape memory of the detail logs read on a thread (their own: training logs' shapes
// are others), and whether a shape's metadata flags an error. That is the same on every line
// of a shape: lines of one shape differ only in their numbers, and a number never reads
// `true`.
struct DetailLogScanner {
  MllogScanner scanner;
  ShapeMemo<bool, 256> error_flags;

  // flags_error(metadata) of a scanned line, worked out once per shape.
  bool is_error(const EventView& view, std::string_view metadata) {
    if (const bool* known = error_flags.find(view.shape)) return *known;
    const bool flagged = flags_error(metadata);
    error_flags.keep(view.shape, flagged);
    return flagged;
  }
};

LoadgenLog read_detail_log_from(const std::filesystem::path& file, ByteSource source, const KeySet& wanted) {
  DetailLogScanner& shapes = ThreadCache<DetailLogScanner>::get();
  MllogScanner& scanner = shapes.scanner;
  LoadgenLog log;
  log.file = file;
  LineReader reader(std::move(source));
  Line line;
  EventView view;
  Event event;
  std::string error;
  while (reader.next_with(kMllogToken, line)) {
    // The official reader takes only lines that start with the marker (log_parser.py).
    if (line.needle_at != 0) continue;
    std::string_view head_key;
    const LineUse use = line_use(line.text.substr(kMllogToken.size()), wanted, head_key);
    if (use == LineUse::kSkip) continue;
    std::string_view key, metadata, value;
    std::string value_text, metadata_text;
    bool is_error = false;
    // A log's wanted lines are few, but the next logs of the thread (a submitter's other
    // scenarios and runs) have them in the same shapes.
    if (scanner.scan(line.text, view, line.needle_at) == ScanKind::kEvent) {
      key = view.key;
      value = view.value.empty() ? std::string_view("null") : view.value;
      metadata = view.metadata;
      is_error = shapes.is_error(view, metadata);
    } else if (parse_mllog_line(line.text, event, error) == LineKind::kEvent) {
      key = event.key;
      value_text = event.value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      metadata_text = event.metadata.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      value = value_text;
      metadata = metadata_text;
      is_error = flags_error(metadata);
    } else {
      log.parse_errors.push_back({file.string(), line.number, line.truncated ? "line too long" : error});
      continue;
    }
    if (is_error) {
      ++log.error_events;
      if (log.errors.size() < kErrorsKept) {
        auto s = json_string(value);
        log.errors.push_back({line.number, s ? *s : std::string(value)});
      }
    }
    // A line in the usual form was found wanted by its key (the one the scan read, unless
    // the event names its key twice).
    if ((use == LineUse::kWanted && key == head_key) || wanted.count(key)) {
      auto at = log.values.lower_bound(key);
      if (at == log.values.end() || at->first != key) {
        log.values.emplace_hint(at, std::string(key), LoggedValue{std::string(value), line.number});
      }
    }
  }
  return log;
}

}  // namespace

LoadgenLog read_detail_log(const std::filesystem::path& file, const KeySet& wanted) {
  return read_detail_log_from(file, file_source(file), wanted);
}

std::optional<LoadgenLog> read_detail_log_if_present(const std::filesystem::path& file, const KeySet& wanted) {
  std::optional<ByteSource> source = regular_file_source(file);
  if (!source) return std::nullopt;
  return read_detail_log_from(file, std::move(*source), wanted);
}

LoadgenLog read_summary_log(const std::filesystem::path& file, const std::map<std::string, std::string>& labels) {
  LoadgenLog log;
  log.file = file;
  log.from_summary = true;
  LineReader reader(file_source(file));
  Line line;
  while (reader.next(line)) {
    std::string_view text = trim(line.text);
    if (text.starts_with("* ")) text.remove_prefix(2);
    std::size_t colon = text.find(':');
    if (colon == std::string_view::npos) continue;
    std::string label(trim(text.substr(0, colon)));
    auto it = labels.find(label);
    if (it == labels.end() || log.values.count(it->second)) continue;
    std::string_view raw = trim(text.substr(colon + 1));
    std::string json;
    if (raw == "Yes" || raw == "No") {
      json = raw == "Yes" ? "true" : "false";
    } else if (auto n = parse_double(raw)) {
      json = std::string(raw);
      if (!nlohmann::json::accept(json)) json = nlohmann::json(*n).dump();
    } else {
      json = nlohmann::json(std::string(raw)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    log.values.emplace(it->second, LoggedValue{std::move(json), line.number});
  }
  return log;
}

}  // namespace mlperf::inference
