#pragma once
// `mlperf-score check` on an inference scenario folder: each validity condition of the run
// (inference/result.h ValidityCheck) becomes a check whose failure names the log and line.

#include "mlperf/training/check.h"
#include "mlperf/training/score.h"

namespace mlperf::inference {

/// The check report of a scored inference directory (`result.dir.loadgen` set): the
/// "input_readable" check (unreadable or malformed log lines, each FILE:LINE), then one
/// check per validity condition, id "loadgen_<name>" (result_validity, loadgen_errors (as is),
/// min_duration, min_query_count, offline_samples_per_query, early_stopping,
/// server_target_latency_ns, qsl_rng_seed, sample_index_rng_seed, schedule_rng_seed,
/// performance_sample_count, equal_issue_mode, token_latencies, network_mode, network_sut_name,
/// ttft_99_percentile_ns,
/// tpot_99_percentile_ns, inferred_result, performance_result). A failed condition is an error at the line of the log its value
/// came from, its message giving value and limit. Then "accuracy", "accuracy_files", one
/// "compliance_TEST0x" per compliance test, and one "submission_<rule>" per submission-level
/// rule (submission.h: system description, measurements, required scenarios), each failure an
/// error naming the file it read. Never throws; never re-reads the log.
CheckReport check_inference_directory(const DirectoryResult& result);

}  // namespace mlperf::inference
