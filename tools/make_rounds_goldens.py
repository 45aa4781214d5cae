#!/usr/bin/env python3
"""Writes tests/data/mlperf-rounds/expected.json: what the published MLPerf logs in that folder say,
read with a few lines of Python of its own (not mlharness), so the tests can compare mlharness with it.

Per (system folder, benchmark): each run's time to train (run_stop - run_start in minutes), whether it
converged by the log's own word, the official compliance checker's verdict on the file, and the MLPerf
score (olympic mean) or why there is none.

  * Times: v0.5 `:::MLPv0.5.0 <bench> <seconds> (<file>:<line>) <key>[: <json>]`,
    v0.6 `:::MLL <seconds> <key>: {"value": ..., "metadata": {...}}`,
    v0.7 `:::MLLOG {"time_ms": ..., "key": ..., "value": ..., "metadata": {...}}`.
    The first run_start and the first run_stop of a file.
  * Converged: run_stop's value {"success": true} or {"success": "true"} (v0.5), or its metadata
    status "success" (v0.6, v0.7); when run_stop carries neither, the last eval_accuracy against the
    target (the log's eval_target, else the round's published target), compared as float32, the
    precision the logs were written in (21.799999237060547 reaches 21.8).
  * Score: resnet, ssd, maskrcnn 5 runs, gnmt, transformer 10: drop the fastest and the slowest, mean
    of the rest; one run that did not converge counts as the slowest, two make the score invalid; a
    different run count is invalid. ncf: 100 runs, the first 50 that converged by run_start are
    scored, drop the best and the worst of those, mean of 48. Benchmarks outside these six (minigo,
    bert, dlrm) are skipped with the reason.
  * Official checker: `python -m mlperf_logging.compliance_checker --usage training --ruleset
    0.6.0|0.7.0 LOG` from the mlperf-logging named by --checker-python (v0.5 logs: it has no rules).

Usage: tools/make_rounds_goldens.py [--data DIR] [--rounds /work/rounds] [--checker-python PY]
With --rounds (the extracted mlcommons/training_results_v0.5-v0.7 trees, laid out as the data set),
a group the data set holds only part of also gets `published_set`: the same numbers over the whole
published folder.
"""
import argparse
import datetime
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

REQUIRED_RUNS = {"resnet": 5, "ssd": 5, "maskrcnn": 5, "gnmt": 10, "transformer": 10, "ncf": 100}
NCF_SCORED = 50
BENCHMARK_ALIASES = {"mask": "maskrcnn"}
# Published quality targets, for logs that neither say success nor log eval_target.
TARGETS = {
    "v0.5": {"resnet": 0.749, "ssd": 0.212, "maskrcnn": [0.377, 0.339], "gnmt": 21.8, "transformer": 25.0,
             "ncf": 0.635},
    "v0.6": {"resnet": 0.759, "ssd": 0.23, "maskrcnn": [0.377, 0.339], "gnmt": 24.0, "transformer": 25.0,
             "minigo": 0.5},
    "v0.7": {"resnet": 0.759, "ssd": 0.23, "maskrcnn": [0.377, 0.339], "gnmt": 24.0, "transformer": 25.0,
             "bert": 0.712, "dlrm": 0.8025, "minigo": 0.5},
}

V05 = re.compile(r":::MLPv0\.5\.0 (\S+) ([0-9.]+) \([^)]*\) (\w+)(?:: (.*))?$")
V06 = re.compile(r":::MLL ([0-9.]+) (\w+): (.*)$")
V07 = re.compile(r":::MLLOG (\{.*\})\s*$")
# Alibaba's v0.6 logs: `MLPerf: resnet [06/13/19 00:30:56], eval_accuracy: {"value": 75.98000%, "epoch": 79}`
ALIBABA = re.compile(r"^MLPerf: (\S+) \[(\d\d/\d\d/\d\d \d\d:\d\d:\d\d)\], (\w+)(?:: (.*))?$")
BENCHMARK_FOLDERS = {"resnet", "ssd", "maskrcnn", "mask", "gnmt", "transformer", "ncf", "minigo", "bert", "dlrm"}


def json_or_text(text):
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def read_events(path):
    """(key, seconds, value, metadata) per MLPerf line of the file, the round's format, the benchmark it names."""
    events, fmt, benchmark = [], None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = V07.search(line)
            if m:
                try:
                    e = json.loads(m.group(1))
                except ValueError:
                    continue
                fmt = fmt or ("v0.7" if "time_ms" in e else "v0.7 time_s")  # Alibaba's v0.7 logs: seconds
                seconds = e["time_ms"] / 1000.0 if "time_ms" in e else float(e.get("time_s", 0))
                events.append((e.get("key"), seconds, e.get("value"), e.get("metadata") or {}))
                continue
            m = ALIBABA.match(line)
            if m:
                fmt = fmt or "v0.6 Alibaba"
                benchmark = benchmark or m.group(1)
                when = datetime.datetime.strptime(m.group(2), "%m/%d/%y %H:%M:%S")  # local time, 1 s steps
                seconds = (when - datetime.datetime(1970, 1, 1)).total_seconds()
                value = m.group(4)
                if value is not None:  # 75.98000% is a fraction in JSON's terms
                    value = re.sub(r"(-?\d+(?:\.\d+)?)%", lambda p: repr(float(p.group(1)) / 100), value)
                events.append((m.group(3), seconds, json_or_text(value), {}))
                continue
            m = V06.search(line)
            if m:
                fmt = fmt or "v0.6"
                body = json_or_text(m.group(3))
                value, meta = (body.get("value"), body.get("metadata") or {}) if isinstance(body, dict) else (body, {})
                events.append((m.group(2), float(m.group(1)), value, meta))
                continue
            m = V05.search(line)
            if m:
                fmt = fmt or "v0.5"
                benchmark = benchmark or m.group(1)
                events.append((m.group(3), float(m.group(2)), json_or_text(m.group(4)), {}))
    for key, _, value, _ in events:
        if key == "submission_benchmark" and isinstance(value, str):
            benchmark = value
            break
    return events, fmt, benchmark


def float32(x):
    return struct.unpack("f", struct.pack("f", float(x)))[0]


def reaches(value, target):
    if isinstance(target, list):
        return isinstance(value, list) and len(value) == len(target) and all(map(reaches, value, target))
    if isinstance(value, list) or value is None:
        return False
    return float32(value) >= float32(target)


def truthy(word):
    return word is True or (isinstance(word, str) and word.strip().lower() == "true")


def read_run(path, rel, round_name):
    events, fmt, logged = read_events(path)
    first = lambda key: next(((t, v, md) for k, t, v, md in events if k == key), None)
    start, stop = first("run_start"), first("run_stop")
    evals = [v for k, _, v, _ in events if k == "eval_accuracy"]
    final = evals[-1] if evals else None
    if isinstance(final, dict):  # v0.5: {"epoch": 61, "value": 0.7499}
        final = final.get("value")
    logged_targets = [v for k, _, v, _ in events if k == "eval_target"]
    benchmark = BENCHMARK_ALIASES.get(logged, logged)
    target = logged_targets[-1] if logged_targets else TARGETS.get(round_name, {}).get(benchmark)
    run = {"file": rel, "format": fmt, "logged_benchmark": logged}
    if start and stop:
        run["minutes"] = round((stop[0] - start[0]) / 60.0, 6)
    else:
        run["minutes"] = None
    if not stop:
        converged, basis = False, "no run_stop"
    elif isinstance(stop[1], dict) and "success" in stop[1]:
        converged, basis = truthy(stop[1]["success"]), "run_stop " + json.dumps(stop[1])
    elif stop[2].get("status") is not None:
        converged, basis = stop[2]["status"] == "success", 'run_stop status "%s"' % stop[2]["status"]
    elif target is not None and final is not None:
        converged = reaches(final, target)
        basis = "run_stop without a value: last eval_accuracy %s %s target %s (float32)" % (
            json.dumps(final), ">=" if converged else "<", json.dumps(target))
    else:
        converged, basis = False, "run_stop without a value and no eval_accuracy or target to judge by"
    run.update({"converged": converged, "convergence_basis": basis, "final_accuracy": final, "target": target,
                "reached_target": reaches(final, target) if final is not None and target is not None else None,
                "run_start": start[0] if start else None})
    return run, benchmark


def olympic(times):
    times = sorted(times)
    rest = times[1:-1]
    return sum(rest) / len(rest)


def score(benchmark, runs):
    """{score_minutes} or {invalid}, plus runs_present_olympic_minutes where the count is not the rule's."""
    required = REQUIRED_RUNS.get(benchmark)
    if required is None:
        return {"skipped": "%s is not one of the six benchmarks scored (%s)" % (benchmark, ", ".join(REQUIRED_RUNS))}
    failed = [r for r in runs if not (r["converged"] and r["minutes"] is not None)]
    out = {"required_runs": required, "not_converged": len(failed)}
    if benchmark == "ncf":
        converged = sorted((r for r in runs if r not in failed), key=lambda r: r["run_start"])
        for r in runs:
            r["scored"] = False
        for r in converged[:NCF_SCORED]:
            r["scored"] = True
        if len(runs) != required:
            out["invalid"] = "%s runs: %d of %d" % ("too few" if len(runs) < required else "too many", len(runs), required)
        elif len(converged) < NCF_SCORED:
            out["invalid"] = "only %d of %d runs converged, %d are scored" % (len(converged), len(runs), NCF_SCORED)
        else:
            out["score_minutes"] = round(olympic([r["minutes"] for r in converged[:NCF_SCORED]]), 6)
        if "invalid" in out and len(converged) >= 3:
            out["converged_present_olympic_minutes"] = round(
                olympic([r["minutes"] for r in converged[:NCF_SCORED]]), 6)
        return out
    times = [r["minutes"] if r not in failed else math.inf for r in runs]
    if len(failed) > 1:
        out["invalid"] = "%d of %d runs did not converge (at most 1 may)" % (len(failed), len(runs))
    elif len(runs) != required:
        out["invalid"] = "%s runs: %d of %d" % ("too few" if len(runs) < required else "too many", len(runs), required)
        if len(runs) >= 3:
            out["runs_present_olympic_minutes"] = round(olympic(times), 6)
    else:
        out["score_minutes"] = round(olympic(times), 6)
    return out


def find_logs(root):
    for dirpath, dirnames, files in os.walk(root):
        if dirpath == root and "checker" in dirnames:
            dirnames.remove("checker")  # tests/data/mlperf-rounds/checker: another set, with its own README
        for name in sorted(files):
            if name.startswith("result_") and name.endswith(".txt"):
                yield os.path.join(dirpath, name)


def checker_verdict(python, ruleset, path):
    if python is None:
        return "not run"
    with tempfile.TemporaryDirectory() as cwd:  # the checker writes compliance_checker.log into its cwd
        proc = subprocess.run([python, "-m", "mlperf_logging.compliance_checker", "--usage", "training", "--ruleset",
                               ruleset, path], cwd=cwd, capture_output=True, text=True)
    text = proc.stdout + proc.stderr
    if "Traceback" in text:
        last = [l for l in text.strip().splitlines() if l.strip()][-1].strip()
        last = re.sub(r"'/\S*/mlperf_logging/compliance_checker/", "'", last)  # no install path in the goldens
        return {"verdict": "CRASH", "rc": proc.returncode, "failures": [last]}
    failures = []
    for l in text.splitlines():
        m = re.search(r"CHECK for '(\w+)' failed in line (\d+)", l)
        if m:
            failures.append("check %s failed (line %s)" % m.groups())
        m = re.search(r"Required (\w+) occurrence of '(\w+)' but found (\d+)", l)
        if m:
            failures.append("required %s '%s', found %s" % m.groups())
        m = re.search(r"Failed checks for (\w+) : (.*)$", l)
        if m:
            failures.append("failed check for %s: %s" % (m.group(1), m.group(2).strip()))
    unique = list(dict.fromkeys(failures))
    verdict = "SUCCESS" if "SUCCESS" in text and proc.returncode == 0 else "FAILED"
    out = {"verdict": verdict, "rc": proc.returncode}
    if unique:
        out["failures"] = unique[:12]
        if len(unique) > 12:
            out["failures_left_out"] = len(unique) - 12
    return out


def read_groups(root, checker_python, base=None, with_checker=True):
    """Runs by (system folder, benchmark) under root; paths relative to base (default root)."""
    groups = {}
    for path in find_logs(root):
        rel = os.path.relpath(path, base or root)
        round_name = rel.split(os.sep)[0]
        run, benchmark = read_run(path, rel, round_name)
        if with_checker:
            if round_name == "v0.5":
                run["official_checker"] = "no official rules (v0.5 logs)"
            else:
                run["official_checker"] = checker_verdict(checker_python, round_name[1:] + ".0", path)
        folder = os.path.dirname(rel)  # <system>/<benchmark>/result_*, or <system>/result_* (Alibaba v0.7)
        system = os.path.dirname(folder) if os.path.basename(folder) in BENCHMARK_FOLDERS else folder
        groups.setdefault((system, benchmark), []).append(run)
    return groups


def result_index(run):
    m = re.match(r"result_(\d+)", os.path.basename(run["file"]))
    return (int(m.group(1)) if m else 0, run["file"])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=os.path.join(here, "..", "tests", "data", "mlperf-rounds"))
    parser.add_argument("--rounds", help="the published trees (/work/rounds), for published_set")
    parser.add_argument("--checker-python", default="/root/.cache/mlharness/mlperf-logging/bin/python",
                        help="a python with mlperf-logging installed")
    args = parser.parse_args()
    data = os.path.normpath(args.data)
    checker = args.checker_python if os.path.exists(args.checker_python) else None
    version = None
    if checker:
        version = subprocess.run([checker, "-c", "import importlib.metadata as m; print(m.version('mlperf-logging'))"],
                                 capture_output=True, text=True).stdout.strip()
    groups = read_groups(data, checker)
    out = {"generated_by": "tools/make_rounds_goldens.py", "mlperf_logging_version": version, "groups": []}
    for (system, benchmark), runs in sorted(groups.items()):
        runs.sort(key=result_index)
        group = {"system": system, "benchmark": benchmark, "runs": runs}
        group.update(score(benchmark, runs))
        if args.rounds:
            folder = os.path.join(args.rounds, system)
            whole = [r for (s, b), rs in read_groups(folder, None, args.rounds, with_checker=False).items()
                     if (s, b) == (system, benchmark) for r in rs]
            if len(whole) > len(runs):
                published = {"runs": len(whole), "converged": sum(1 for r in whole if r["converged"])}
                published.update(score(benchmark, whole))
                published["minutes"] = [r["minutes"] for r in sorted(whole, key=result_index)]
                group["published_set"] = published
        for r in runs:
            r.pop("run_start", None)
        out["groups"].append(group)
    with open(os.path.join(data, "expected.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    for g in out["groups"]:
        result = g.get("score_minutes", g.get("invalid", g.get("skipped")))
        print("%-70s %-11s %s" % (g["system"], g["benchmark"], result))


if __name__ == "__main__":
    sys.exit(main())
