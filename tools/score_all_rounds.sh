#!/usr/bin/env bash
# Runs `mlharness score` over every submission folder of the published MLPerf training rounds and
# `mlharness report` over the same runs, and prints one table: round, submitter, submission, system,
# benchmark, runs (converged of present, by score), score's time or invalid reason, report's time for
# the same runs, and whether they agree.
#
#   tools/score_all_rounds.sh [--bin MLHARNESS] [--strict] ROUND_ROOT...
#   e.g. tools/score_all_rounds.sh /work/rounds/v0.5 /work/rounds/v0.6 /work/rounds/v0.7 | tee /tmp/score_all_rounds.txt
#
# A round root is a checkout of mlcommons/training_results_vX.Y (its submission folders are the parents
# of every `results` folder: v0.5.0/<org>/<submission>/results, <Org>/results). The binary is
# build/launch/mlharness unless --bin or $MLHARNESS names another; --strict is passed on to score and report.
# Agreement: both give a time and they are equal to the printed 3 decimals, or both give none.
# Needs python3 (standard library) for parsing score's text and report's summary.csv.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${MLHARNESS:-$here/../build/launch/mlharness}"
extra=()
roots=()
while (($#)); do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --strict) extra+=(--strict); shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) roots+=("$1"); shift ;;
  esac
done
if ((${#roots[@]} == 0)); then
  echo "usage: $0 [--bin MLHARNESS] [--strict] ROUND_ROOT..." >&2
  exit 2
fi
if [[ ! -x "$bin" ]]; then
  echo "score_all_rounds: no mlharness binary at '$bin' (build it: cmake --build build --target mlharness, or pass --bin)" >&2
  exit 2
fi

exec python3 - "$bin" "${#extra[@]}" "${extra[@]}" "${roots[@]}" <<'PYTHON'
import csv, os, re, subprocess, sys, tempfile

bin_path = sys.argv[1]
n_extra = int(sys.argv[2])
extra = sys.argv[3:3 + n_extra]
roots = [os.path.abspath(r) for r in sys.argv[3 + n_extra:]]

GROUP = re.compile(r"^(\S.*?) / (\S+)(?:\s+\(platform .*\))?\s*$")
SCORE = re.compile(r"^  score: (.*)$")
SKIPPED = re.compile(r"^  (skipped: .*)$")  # a benchmark outside the six


def submissions(root):
    found = []
    for dirpath, dirnames, _ in os.walk(root):
        if os.path.basename(dirpath) == "results":
            found.append(os.path.dirname(dirpath))
            dirnames[:] = []  # the systems below are the submission's
        elif os.path.basename(dirpath) in ("code", "benchmarks", "systems"):
            dirnames[:] = []
    return sorted(found)


def parse_score(text):
    """Groups as score printed them: system, benchmark, score text, runs [(converged, minutes, log)]."""
    groups, current = [], None
    for line in text.splitlines():
        m = GROUP.match(line)
        if m and not line.startswith(("note:", "skipped ", "warning:")):
            current = {"system": m.group(1), "benchmark": m.group(2), "score": None, "runs": []}
            groups.append(current)
            continue
        if current is None:
            continue
        m = SCORE.match(line) or SKIPPED.match(line)
        if m:
            current["score"] = m.group(1)
            continue
        # a seed-table row: seed, converged, epochs, minutes, [more columns], the log (no spaces; .txt)
        tokens = line.split()
        if line.startswith("  ") and len(tokens) >= 5 and tokens[1] in ("yes", "no"):
            log = next((t for t in tokens[4:] if t.endswith(".txt")), None)
            if log:
                current["runs"].append((tokens[1] == "yes", tokens[3], log))
    return groups


def score_minutes(text):
    m = re.match(r"([0-9.]+) minutes", text or "")
    return float(m.group(1)) if m else None


def report_times(folders):
    """Report's olympic mean (or its invalid reason) per summary.csv row for the runs under folders."""
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run([bin_path, "report", *folders, "--out", out, *extra], capture_output=True, text=True)
        summary = os.path.join(out, "summary.csv")
        if proc.returncode != 0 or not os.path.exists(summary):
            lines = (proc.stderr or proc.stdout).strip().splitlines()
            return None, "report error: " + (lines[-1] if lines else "rc %d" % proc.returncode)
        with open(summary, newline="") as f:
            rows = list(csv.DictReader(f))
    return rows, None


def fmt_report(rows):
    parts = []
    for r in rows:
        label = "" if len(rows) == 1 else "%s %s: " % (r.get("platform", ""), r.get("devices", ""))
        if r.get("olympic_mean_minutes"):
            parts.append(label + "%.3f" % float(r["olympic_mean_minutes"]))
        else:
            parts.append(label + "invalid: " + (r.get("olympic_invalid_reason") or "no olympic mean"))
    return "; ".join(parts)


table = []
for root in roots:
    round_name = os.path.basename(root.rstrip("/"))
    for sub in submissions(root):
        rel = os.path.relpath(sub, root)
        parts = [p for p in rel.split(os.sep) if not re.fullmatch(r"v\d+\.\d+\.\d+", p)]
        submitter = parts[0] if parts else rel
        results = os.path.join(sub, "results")
        proc = subprocess.run([bin_path, "score", results, *extra], capture_output=True, text=True)
        if proc.returncode != 0:
            msg = (proc.stderr or proc.stdout).strip().splitlines()
            table.append([round_name, submitter, rel, "-", "-", "-", "score error: " + (msg[-1] if msg else str(proc.returncode)),
                          "-", "n/a"])
            continue
        for g in parse_score(proc.stdout):
            system = os.path.relpath(g["system"], results) if os.path.isabs(g["system"]) else g["system"]
            logs = [os.path.join(g["system"], log) for _, _, log in g["runs"]]
            folders = sorted({os.path.dirname(p) for p in logs})
            runs = "%d/%d" % (sum(1 for c, _, _ in g["runs"] if c), len(g["runs"]))
            s_text = g["score"] or "(no score line)"
            s_min = score_minutes(s_text)
            s_cell = "%.3f" % s_min if s_min is not None else s_text
            if not folders and s_text.startswith("skipped"):
                # score lists no runs for a skipped benchmark: ask report about the benchmark's folder
                folder = os.path.join(g["system"], g["benchmark"])
                folders = [folder] if os.path.isdir(folder) else [g["system"]]
                runs = "-"
            if not folders:
                table.append([round_name, submitter, rel, system, g["benchmark"], runs, s_cell, "(no runs listed)", "n/a"])
                continue
            rows, error = report_times(folders)
            if error:
                error = error.replace("mlharness: error: report: ", "")
                skipped_too = s_text.startswith("skipped") and "no usable run" in error
                table.append([round_name, submitter, rel, system, g["benchmark"], runs, s_cell, error,
                              "yes (skipped)" if skipped_too else "NO"])
                continue
            r_cell = fmt_report(rows) if rows else "(no summary row)"
            r_min = [float(r["olympic_mean_minutes"]) for r in rows if r.get("olympic_mean_minutes")]
            if s_text.startswith("skipped"):
                agree = "yes (skipped)" if not rows else "n/a (skipped)"
            elif s_min is None and not r_min:
                agree = "yes (no time)"
            elif s_min is not None and len(rows) == 1 and r_min and "%.3f" % r_min[0] == "%.3f" % s_min:
                agree = "yes"
            else:
                agree = "NO"
            table.append([round_name, submitter, rel, system, g["benchmark"], runs, s_cell, r_cell, agree])

header = ["round", "submitter", "submission", "system", "benchmark", "conv/runs", "score", "report", "agree"]
limits = [6, 10, 44, 36, 11, 9, 60, 60, 13]  # widths to pad to; longer cells stay whole
def clip(text, width):
    return str(text)
widths = [min(limits[i], max(len(clip(r[i], limits[i])) for r in table + [header])) for i in range(len(header))]
print(" | ".join(h.ljust(w) for h, w in zip(header, widths)))
print("-+-".join("-" * w for w in widths))
for r in table:
    print(" | ".join(clip(c, w).ljust(w) for c, w in zip(r, widths)).rstrip())
timed = sum(1 for r in table if re.fullmatch(r"[0-9.]+", r[6]))
agree = sum(1 for r in table if r[8].startswith("yes"))
print()
print("%d groups; score gives a time for %d; score and report agree on %d, disagree on %d%s" % (
    len(table), timed, agree, sum(1 for r in table if r[8] == "NO"),
    " (--strict)" if extra else ""))
invalid = {}
for r in table:
    if not re.fullmatch(r"[0-9.]+", r[6]):
        reason = re.sub(r"[0-9]+", "N", r[6])[:90]
        invalid[reason] = invalid.get(reason, 0) + 1
for reason, n in sorted(invalid.items(), key=lambda kv: -kv[1]):
    print("  %3d without a score time: %s" % (n, reason))
PYTHON
