#!/usr/bin/env python3
"""What the launch scripts run for each workload, read from the workloads' own folders.

Every workload folder holds checks.json: its bench unit, the bench cases of the GPU check
(launch/device_check.sh) at quick and full sizes with each case's share of the time budget, whether
the GPU check trains its mini config to the target (device_check_mini_run_budget_s), and the defaults
of its plain-PyTorch reference comparison (launch/compare_reference.sh, reference/<workload>.py). A
reference entry may hold quick_settings, {"key": value, ...}: with compare_reference.sh --quick, each is
`--set key=value` to mlharness bench and `--key-with-dashes value` to the reference loop (a test-sized
model input, an image side, say).
The scripts ask this reader, so a new workload folder joins them without an edit here.

  workload_checks.py bench-cases quick|full   workload|config|precisions|batch sizes|flags|budget s, a line each
  workload_checks.py mini-runs                workload|budget s, a line each
  workload_checks.py reference NAME [loader]  batch quick-batch warmup steps repeats channels-last(0|1) loader(0|1)
  workload_checks.py quick-settings NAME      key=value, a line each, the reference's quick_settings
  workload_checks.py references               the workloads with a reference loop, space-separated
  workload_checks.py units                    workload: bench unit, a line each

Exit status 2 with a one-line message on stderr for an unknown workload or a malformed file.
"""
import glob
import json
import os
import sys

WORKLOADS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads")


def fail(message):
    print("workload_checks.py: " + message, file=sys.stderr)
    sys.exit(2)


def all_checks():
    checks = {}
    for path in sorted(glob.glob(os.path.join(WORKLOADS, "*", "checks.json"))):
        try:
            with open(path) as f:
                facts = json.load(f)
            checks[facts["workload"]] = facts
        except (OSError, ValueError, KeyError) as error:
            fail("%s: %s" % (os.path.relpath(path), error))
    return checks


def main(argv):
    if not argv:
        fail("give bench-cases quick|full, mini-runs, reference NAME [loader], references or units")
    checks = all_checks()
    command = argv[0]
    if command == "bench-cases" and len(argv) == 2 and argv[1] in ("quick", "full"):
        for name, facts in checks.items():
            for case in facts.get("device_check_bench", []):
                sizes = case[argv[1]]
                print("|".join([name, sizes["config"], sizes["precisions"], sizes["batch_sizes"], case["flags"],
                                str(case["budget_s"])]))
    elif command == "mini-runs" and len(argv) == 1:
        for name, facts in checks.items():
            if "device_check_mini_run_budget_s" in facts:
                print("%s|%d" % (name, facts["device_check_mini_run_budget_s"]))
    elif command == "reference" and len(argv) in (2, 3):
        if argv[1] not in checks or "reference" not in checks[argv[1]]:
            fail("no reference loop for '%s'; the reference loops are %s" %
                 (argv[1], ", ".join(n for n, f in checks.items() if "reference" in f)))
        reference = checks[argv[1]]["reference"]
        has_loader = "loader" in reference
        if len(argv) == 3:
            if argv[2] != "loader":
                fail("reference NAME [loader]: '%s'" % argv[2])
            if not has_loader:
                fail("'%s' has no loader reference" % argv[1])
            reference = reference["loader"]
        print(reference["batch_size"], reference["quick_batch_size"], reference["warmup_steps"], reference["steps"],
              reference["repeats"], int(reference.get("channels_last", False)), int(has_loader))
    elif command == "quick-settings" and len(argv) == 2:
        if argv[1] not in checks or "reference" not in checks[argv[1]]:
            fail("no reference loop for '%s'" % argv[1])
        settings = checks[argv[1]]["reference"].get("quick_settings", {})
        if not isinstance(settings, dict):
            fail("%s: reference.quick_settings is not an object" % argv[1])
        for key, value in settings.items():
            print("%s=%s" % (key, value))
    elif command == "references" and len(argv) == 1:
        print(" ".join(n for n, f in checks.items() if "reference" in f))
    elif command == "units" and len(argv) == 1:
        for name, facts in checks.items():
            print("%s: %s" % (name, facts["bench_unit"]))
    else:
        fail("unknown command '%s' (see the file's docstring)" % " ".join(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
