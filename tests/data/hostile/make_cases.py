#!/usr/bin/env python3
"""Writes the small hand-made hostile inputs of tests/data/hostile (see README.md).

Run from the source tree: python3 tests/data/hostile/make_cases.py tests/data/hostile
The files are stored too; this script says byte by byte what they hold.
"""
import os
import sys


def event(time_ms, key, value="null", metadata='{"file": "a.py", "lineno": 1}', event_type="POINT_IN_TIME"):
    return ('{"namespace": "", "time_ms": %s, "event_type": "%s", "key": "%s", "value": %s, "metadata": %s}'
            % (time_ms, event_type, key, value, metadata)).encode("ascii")


def interleaved_ranks():
    # Two ranks writing to one log: a line cut by the other rank's line, a line continued
    # on the next one, launcher prefixes.
    return b"\n".join([
        b"0: :::MLLOG " + event(1000, "init_start", event_type="INTERVAL_START"),
        b"1: :::MLLOG " + event(1001, "init_start", event_type="INTERVAL_START"),
        # rank 0's event cut after '"global_ba', then rank 1's whole event on the same line
        b'0: :::MLLOG {"namespace": "", "time_ms": 2000, "event_type": "POINT_IN_TIME", "key": "global_ba'
        + b"1: :::MLLOG " + event(2001, "global_batch_size", value="32"),
        # the rest of rank 0's event: no token, ignored
        b'tch_size", "value": 32, "metadata": {"file": "a.py", "lineno": 1}}',
        b"0: :::MLLOG " + event(3000, "init_stop", event_type="INTERVAL_END"),
        b"[1,0]<stdout>:0: :::MLLOG " + event(3001, "run_start", event_type="INTERVAL_START"),
        # rank 0's eval_accuracy cut in the middle of the key: a parse error at line 7
        b'0: :::MLLOG {"namespace": "", "time_ms": 4000, "event_type": "POINT_IN_TIME", "key": "eval_acc',
        b'1: uracy", "value": 0.5, "metadata": {"samples_count": 64}}',
        b"0: :::MLLOG " + event(63001, "run_stop", metadata='{"file": "a.py", "lineno": 5, "status": "success"}',
                                event_type="INTERVAL_END"),
    ]) + b"\n"


def encodings():
    # A UTF-8 byte order mark, Latin-1 bytes, valid UTF-8, invalid UTF-8 (a bad
    # continuation, an encoded surrogate, an overlong form) and a Latin-1 key.
    return b"\n".join([
        b"\xef\xbb\xbf:::MLLOG " + event(1000, "submission_org", value='"@1"').replace(b"@1", b"Caf\xe9 M\xfcller"),
        b":::MLLOG " + event(1001, "submission_platform", value='"@2"').replace(
            b"@2", "MI355X \u2013 8\u00d7".encode("utf-8")),
        b":::MLLOG " + event(1002, "submission_division", value='"@3"').replace(b"@3", b"clos\xc3(ed"),
        b":::MLLOG " + event(1003, "submission_benchmark", value='"llama31_8b"',
                             metadata='{"file": "@4.py", "lineno": 4}').replace(b"@4", b"\xff\xfe\x80"),
        b":::MLLOG " + event(1004, "surrogate", value='"@5"').replace(b"@5", b"\xed\xa0\x80"),
        b":::MLLOG " + event(1005, "overlong", value='"@6"').replace(b"@6", b"\xc0\xaf"),
        b":::MLLOG " + event(1006, "caf@7").replace(b"@7", b"\xe9"),
    ]) + b"\n"


def line_endings_and_bytes():
    # CRLF, NUL bytes and binary garbage around and inside MLLOG lines, a lone CR inside a
    # string, a doubled CR, an empty line, and a last line without a newline.
    return b"".join([
        b":::MLLOG " + event(1, "a") + b"\r\n",
        b"\x00\x00\x00\x01\x02 binary \xff\xfe garbage \x1b[0m\n",
        b"\x00\x00:::MLLOG " + event(3, "c") + b"\n",
        b':::MLLOG {"time_ms": 4, "key": "d\x00"}\n',
        b':::MLLOG {"time_ms": 5, "key": "e", "value": "a\rb"}\n',
        b":::MLLOG " + event(6, "f") + b"\r\r\n",
        b"\n",
        b":::MLLOG " + event(8, "h"),
    ])


CASES = {
    "interleaved_ranks.txt": interleaved_ranks,
    "encodings.txt": encodings,
    "line_endings_and_bytes.txt": line_endings_and_bytes,
}

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    for name, make in CASES.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(make())
