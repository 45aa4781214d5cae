#!/usr/bin/env python3
"""ResNet-50 input pipeline as a PyTorch user writes it: torchvision's ImageFolder over DIR/train with
RandomResizedCrop(224), RandomHorizontalFlip, ToTensor and Normalize (ImageNet's mean and std), in a
DataLoader with --workers worker processes, shuffled, batch after batch around the folder; no model.
The yardstick for `mlharness bench --workload resnet50 --loader` (launch/compare_reference.sh
--loader). Rate: images/s. Needs Debian's python3-torch and python3-torchvision."""
import argparse
import json
import os
import statistics
import sys
import time

sys.dont_write_bytecode = True

import torch  # noqa: E402
import torchvision  # noqa: E402
from torchvision import datasets, transforms  # noqa: E402


def batches(loader):
    while True:
        for images, labels in loader:
            yield images, labels


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", required=True, help="an ImageNet-layout folder (DIR/train/<class>/*.JPEG)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)),
                        help="DataLoader worker processes (default: the cores this process may use)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed batches first (default 3)")
    parser.add_argument("--steps", type=int, default=10, help="batches per timed window (default 10)")
    parser.add_argument("--repeats", type=int, default=3, help="timed windows; the median is reported (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for name in ("batch_size", "workers", "steps", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    transform = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    dataset = datasets.ImageFolder(os.path.join(args.data, "train"), transform=transform)
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.workers,
                                         persistent_workers=True, drop_last=True)
    stream = batches(loader)
    for _ in range(args.warmup):
        next(stream)
    rates = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for _ in range(args.steps):
            next(stream)
        rates.append(args.batch_size * args.steps / (time.perf_counter() - start))
    print(json.dumps({
        "workload": "resnet50-loader",
        "implementation": "torchvision-dataloader",
        "per_second": statistics.median(rates),
        "unit": "images",
        "batch_size": args.batch_size,
        "window_rates_per_second": rates,
        "workers": args.workers,
        "per_worker_per_second": statistics.median(rates) / args.workers,
        "precision": "fp32",
        "precision_used": "fp32 (ToTensor + Normalize)",
        "images_in_folder": len(dataset),
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "python": sys.executable,
    }), flush=True)


if __name__ == "__main__":
    main()
