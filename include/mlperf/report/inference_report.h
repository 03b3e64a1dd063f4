#pragma once
// The reports of an inference scenario folder: its JSON object (as a tree and as text) and its
// human table, beside the training directory's (report/report.h).

#include <cstddef>
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "mlperf/training/score.h"

namespace mlperf {

/// The JSON object of an inference directory: directory, kind ("inference"), division,
/// submitter, system, model, scenario, loadgen_scenario, round, metric,
/// performance_result (full precision), units, inferred, valid, checks[{name, passed,
/// value, limit, line, message}], log_file, from_summary, platform, expected, errors.
nlohmann::json inference_to_json(const DirectoryResult& result);

/// The same object as JSON text, exactly as inference_to_json(result).dump(2) with invalid UTF-8
/// replaced gives it (keys sorted, 2-space indent, nlohmann's number and string forms), written
/// without building the JSON tree: the report of a whole round spent most of its time building
/// and freeing those trees (issue #13's speed target). `indent` spaces follow every newline
/// (the object's place inside a larger document).
std::string inference_to_json_text(const DirectoryResult& result, std::size_t indent = 0);

/// The human report of an inference directory (the `table` format of `score`).
void write_inference_table(std::ostream& out, const DirectoryResult& result);

}  // namespace mlperf
