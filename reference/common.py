"""What every reference loop shares: its command line, its threads, bf16 autocast for `amp`, the timed
windows and the one-line JSON result.

Timing is mlharness bench's: `warmup` untimed steps, then `repeats` windows of `steps` steps; a window's
rate is its samples over its seconds and the result is the median window. Threads are set as
mlharness's configure_threads sets them: LibTorch's intra-op threads and the BLAS library's own pool
(OpenBLAS, BLIS or MKL, whichever is loaded) to the same count.
"""
import argparse
import ctypes
import json
import os
import platform
import statistics
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts in the repository

import torch  # noqa: E402


def parse_args(description, default_batch, batch_help, add_arguments=None):
    """The common options (and the script's own, through add_arguments(parser)); exits 2 on bad ones."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--batch-size", type=int, default=default_batch, help=batch_help)
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                        help="intra-op and BLAS threads (default: the cores this process may use)")
    parser.add_argument("--precision", choices=["fp32", "amp"], default="fp32",
                        help="amp: bf16 autocast on the CPU, as mlharness's amp on the CPU")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first (default 3)")
    parser.add_argument("--steps", type=int, default=10, help="steps per timed window (default 10)")
    parser.add_argument("--repeats", type=int, default=3, help="timed windows; the median is reported (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    if add_arguments is not None:
        add_arguments(parser)
    args = parser.parse_args()
    for name in ("batch_size", "threads", "steps", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.warmup < 0:
        parser.error("--warmup must be at least 0")
    set_threads(args.threads)
    torch.manual_seed(args.seed)
    return args


def set_threads(threads):
    torch.set_num_threads(threads)
    for library, function in (("libopenblas.so.0", "openblas_set_num_threads"),
                              ("libblis.so.4", "bli_thread_set_num_threads"),
                              ("libmkl_rt.so", "mkl_set_num_threads")):
        try:
            getattr(ctypes.CDLL(library), function)(ctypes.c_int(threads))
        except (OSError, AttributeError):
            pass


def autocast(precision):
    """The forward pass's precision scope: bf16 autocast for amp (no loss scaling on the CPU)."""
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "amp")


def parameter_count(model):
    return sum(p.numel() for p in model.parameters())


def cpu_model():
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def measure(workload, args, step, samples_per_step, unit, model, **fields):
    """Runs step() warm-up then timed, and prints one JSON line with the median rate in `unit`/s."""
    for _ in range(args.warmup):
        step()
    rates = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for _ in range(args.steps):
            step()
        rates.append(samples_per_step * args.steps / (time.perf_counter() - start))
    result = {
        "workload": workload,
        "implementation": "pytorch-eager",
        "per_second": statistics.median(rates),
        "unit": unit,
        "batch_size": args.batch_size,
        "samples_per_step": samples_per_step,
        "window_rates_per_second": rates,
        "precision": args.precision,
        "precision_used": "amp (bf16 autocast)" if args.precision == "amp" else "fp32",
        "threads": torch.get_num_threads(),
        "parameters": parameter_count(model),
        "warmup": args.warmup,
        "steps": args.steps,
        "repeats": args.repeats,
        "torch": torch.__version__,
        "python": sys.executable,
        "cpu": cpu_model(),
    }
    result.update(fields)
    print(json.dumps(result), flush=True)
