#pragma once
// Python's json module, which the official MLLOG parser (mlp_parser, json.loads) uses, reads
// the constants NaN, Infinity and -Infinity as numbers; RFC 8259 parsers (nlohmann::json)
// reject them. MLPerf HPC logs do log them (an eval_loss of NaN, hpc_results_v3.0 HPE+LBNL
// perlmutter_512x4 deepcam result_1.txt), and the official tooling counts such runs.
// parse_mllog_line takes them in a value or metadata only: a time_ms of NaN or ±inf stays a
// parse error (json.loads would read it; no time to train can be made of it).

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mlperf {

/// Parses `text` as Python's json.loads does where it differs from RFC 8259 only by the bare
/// constants NaN, Infinity and -Infinity (outside strings): each becomes the double NaN, +inf
/// or -inf. Returns nullopt when `text` holds none of them or does not parse even with them
/// (the caller's own error then stands). Never throws.
std::optional<nlohmann::json> parse_json_with_python_constants(std::string_view text);

}  // namespace mlperf
