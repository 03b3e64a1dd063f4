#!/usr/bin/env python3
"""Makes the run_builder seed corpus from a copy of MLPerf Training results (e.g. v5.1).

usage: fuzz/make_seeds.py RESULTS_ROOT [OUT_DIR]   (OUT_DIR: fuzz/corpus/run_builder)

For each benchmark, the smallest result log becomes one seed of a few KB that still has
the shape of a whole run: the first line of each scored key before run_start (ranks repeat them) and a few
hyperparameters, run_start and the next two events, then the last eight events (the last
evaluations and run_stop, at most one tracked_stats): about 3 KB, so that libFuzzer runs
a log through the whole pipeline over a thousand times a second under ASan. Metadata
"file"/"lineno" members are dropped (the scorer never reads them) so the fuzzer spends its
time on what matters; every other byte is as logged.
"""
import json
import os
import re
import sys

root = sys.argv[1]
out_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "corpus", "run_builder")
smallest = {}
for dirpath, _, files in os.walk(root):
    for f in files:
        if re.fullmatch(r"result_\d+\.txt", f):
            path = os.path.join(dirpath, f)
            bench = os.path.basename(dirpath)
            if bench not in smallest or os.path.getsize(path) < os.path.getsize(smallest[bench]):
                smallest[bench] = path


def compact(line):
    at = line.find(":::MLLOG ")
    if at < 0:
        return None
    try:
        event = json.loads(line[at + 9:])
    except ValueError:
        return None
    meta = event.get("metadata")
    if isinstance(meta, dict):
        meta.pop("file", None)
        meta.pop("lineno", None)
    return line[:at] + ":::MLLOG " + json.dumps(event) + "\n", event.get("key")


# The keys the scorer reads (scoring.md §2, §4): always kept in the head.
SCORED = {"submission_benchmark", "submission_division", "submission_org", "submission_platform",
          "cache_clear", "init_start", "init_stop", "global_batch_size", "train_samples",
          "eval_samples", "seed"}

os.makedirs(out_dir, exist_ok=True)
for bench, path in sorted(smallest.items()):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        events = [c for c in map(compact, f) if c]
    start = next((i for i, (_, k) in enumerate(events) if k == "run_start"), len(events))
    seen, head = set(), []
    for text, key in events[:start]:
        if key not in seen and (key in SCORED or len(head) < len(SCORED) + 3):
            seen.add(key)
            head.append(text)
    body = [t for t, k in events[start:start + 3]]
    # The last eight events but at most one tracked_stats: the last evaluations and run_stop.
    tail, stats = [], 0
    for text, key in reversed(events[start + 3:]):
        if key == "tracked_stats":
            stats += 1
            if stats > 1:
                continue
        tail.insert(0, text)
        if len(tail) == 8:
            break
    seed = "".join(head + body + tail)
    with open(os.path.join(out_dir, bench + ".txt"), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(seed)
    print(f"{bench:20s} {len(seed):6d} bytes  from {os.path.relpath(path, root)}")
