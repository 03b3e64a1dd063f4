#include "mlperf/training/seeds.h"

#include <cctype>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "mlperf/mllog/mllog.h"
#include "mlperf/mllog/path_text.h"

namespace mlperf {

namespace {

// Decimal digits without leading zeros, "-" in front when negative ("-0" is "0").
std::string normal_decimal(bool negative, std::string_view digits) {
  std::size_t first = digits.find_first_not_of('0');
  if (first == std::string_view::npos) return "0";
  std::string out = negative ? "-" : "";
  out.append(digits.substr(first));
  return out;
}

// int(str): whitespace around, an optional sign, decimal digits with single underscores
// between them (PEP 515). nullopt where Python raises ValueError.
std::optional<std::string> int_of_string(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  std::string digits;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      digits.push_back(c);
    } else if (c == '_' && i > 0 && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i - 1])) &&
               std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
      continue;
    } else {
      return std::nullopt;
    }
  }
  return normal_decimal(negative, digits);
}

// A JSON integer literal ("-12", "4242"): its digits, exactly, however long.
std::optional<std::string> integer_literal(std::string_view text) {
  bool negative = !text.empty() && text.front() == '-';
  std::string_view digits = negative ? text.substr(1) : text;
  if (digits.empty()) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return normal_decimal(negative, digits);
}

// int(float): truncation toward zero, every digit of the double.
std::optional<std::string> int_of_double(double d) {
  if (!std::isfinite(d)) return std::nullopt;
  double t = std::trunc(d);
  if (t == 0) return "0";
  return fmt::format("{:.0f}", t);
}

// Python's repr of a float: the shortest text that reads back, with ".0" on integral values.
std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// str(x) of a JSON value as Python's json module reads it.
std::string python_str(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  if (v.is_number_integer()) return v.dump();
  if (v.is_number_float()) return float_repr(v.get<double>());
  return v.dump();
}

// How a JSON value takes part in a tuple Python compares: numbers by value (True == 1 ==
// 1.0), strings apart from numbers. nullopt for unhashable values (a list, a dict).
std::optional<std::string> python_key(const nlohmann::json& v) {
  if (v.is_string()) return "s" + v.get<std::string>();
  if (v.is_null()) return std::string("N");
  if (v.is_boolean()) return std::string(v.get<bool>() ? "n1" : "n0");
  if (v.is_number_integer()) return "n" + v.dump();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::trunc(d)) return "n" + *int_of_double(d);
    return "f" + float_repr(d);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> python_int_text(const nlohmann::json& value, std::string_view value_text) {
  if (value.is_boolean()) return value.get<bool>() ? "1" : "0";
  if (value.is_number_integer()) {
    if (auto exact = integer_literal(value_text)) return exact;
    return value.dump();
  }
  if (value.is_number_float()) {
    // nlohmann keeps integer literals beyond 64 bits as doubles; Python keeps every digit.
    if (auto exact = integer_literal(value_text)) return exact;
    return int_of_double(value.get<double>());
  }
  if (value.is_string()) return int_of_string(value.get<std::string>());
  return std::nullopt;
}

SeedRecord read_seed_record(const nlohmann::json& value, const nlohmann::json& metadata, std::uint64_t line,
                            std::string_view value_text) {
  SeedRecord r;
  r.line = line;
  if (!metadata.is_object()) {
    r.problem = "metadata is not an object";
    return r;
  }
  auto file = metadata.find("file");
  auto lineno = metadata.find("lineno");
  if (file == metadata.end() || lineno == metadata.end()) {
    r.problem = fmt::format("metadata has no '{}' (KeyError)", file == metadata.end() ? "file" : "lineno");
    return r;
  }
  r.source = python_str(*file);
  r.lineno = python_str(*lineno);
  std::optional<std::string> seed = python_int_text(value, value_text);
  if (!seed) {
    r.problem = fmt::format("int() cannot read the seed {}", value.dump());
    return r;
  }
  std::optional<std::string> file_key = python_key(*file), line_key = python_key(*lineno);
  if (!file_key || !line_key) {
    r.problem = "metadata file or lineno is a list or an object (unhashable)";
    return r;
  }
  r.seed = *seed;
  r.identity = fmt::format("{}\x1f{}\x1f{}", *file_key, *line_key, *seed);
  return r;
}

std::optional<SeedRecord> read_plain_seed_record(std::string_view value_text, std::string_view metadata_text,
                                                 std::uint64_t line) {
  const ObjectMembers metadata(metadata_text);  // one pass for both members
  const std::string_view file = metadata.find("file");
  const std::string_view lineno = metadata.find("lineno");
  // file: "..." of printable ASCII, no backslash (its text is its value, str() and all).
  if (file.size() < 2 || file.front() != '"' || file.back() != '"') return std::nullopt;
  const std::string_view source = file.substr(1, file.size() - 2);
  for (const char c : source) {
    if (c < 0x20 || c > 0x7e || c == '\\' || c == '"') return std::nullopt;
  }
  // lineno: an integer nlohmann keeps as one, written as its dump() writes it.
  if (lineno.empty() || lineno.size() > 18 || (lineno.size() > 1 && lineno.front() == '0')) return std::nullopt;
  for (const char c : lineno) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  // value: int() of an integer literal is its digits, however long (python_int_text).
  std::optional<std::string> seed = integer_literal(value_text);
  if (!seed) return std::nullopt;
  SeedRecord r;
  r.line = line;
  r.source.assign(source);
  r.lineno.assign(lineno);
  r.identity.reserve(source.size() + lineno.size() + seed->size() + 4);
  r.identity.append("s").append(source).append("\x1f").append("n").append(lineno).append("\x1f").append(*seed);
  r.seed = std::move(*seed);
  return r;
}

std::vector<SeedFinding> check_seeds(const std::vector<RunSeeds>& runs) {
  std::vector<SeedFinding> out;
  std::map<std::string, const std::string*> first_run;  // identity → the run that logged it first
  for (const auto& run : runs) {
    if (!run.unreadable.empty()) {
      out.push_back({true, run.file, 0, fmt::format("the seeds cannot be read: {}", run.unreadable)});
      continue;
    }
    const SeedRecord* bad = nullptr;
    for (const auto& r : run.records) {
      if (!r.problem.empty()) {
        bad = &r;
        break;
      }
    }
    if (bad) {
      out.push_back({true, run.file, bad->line, fmt::format("the seed cannot be read: {}", bad->problem)});
      continue;
    }
    if (run.records.empty()) {
      out.push_back({true, run.file, 0, "logs no seed (an MLLOG `seed` event is required)"});
    } else if (run.records.size() > 1) {
      std::vector<std::string> seeds;
      for (const auto& r : run.records) seeds.push_back(fmt::format("{} (line {})", r.seed, r.line));
      out.push_back({false, run.file, run.records[1].line,
                     fmt::format("logs more than one seed: {}", fmt::join(seeds, ", "))});
    }
    for (const auto& r : run.records) {
      auto [it, inserted] = first_run.emplace(r.identity, &run.file);
      if (inserted) continue;
      out.push_back({true, run.file, r.line,
                     fmt::format("logs seed {} on {}:{}, as {} already does: each run needs its own seed", r.seed,
                                 r.source, r.lineno, path_name(*it->second))});
    }
  }
  return out;
}

}  // namespace mlperf
