#!/usr/bin/env python3
"""ResNet-50 reference training loop: ResNet-50 v1.5 at 1000 classes (25,557,032 parameters, as
mlharness's workloads/common/resnet.h) in plain PyTorch eager, on one fixed batch of random 224x224
images and labels, torch.optim.SGD with configs/resnet50.yaml's momentum 0.9 and weight decay 1e-4 on
every parameter but batch norm's, label smoothing 0.1, as `mlharness bench --workload resnet50`.
Rate: images/s. Needs Debian's python3-torch. See reference/README.md."""
import common
import torch
import torch.nn as nn
import torch.nn.functional as F

from resnet import resnet50


def main():
    def add(parser):
        parser.add_argument("--channels-last", action="store_true", help="NHWC memory format, as bench --channels-last")

    args = common.parse_args(__doc__, 256, "images per step (default 256, configs/resnet50.yaml's global batch)", add)
    fmt = torch.channels_last if args.channels_last else torch.contiguous_format
    model = resnet50().to(memory_format=fmt)
    batch_norm = [p for m in model.modules() if isinstance(m, nn.BatchNorm2d) for p in m.parameters(recurse=False)]
    others = [p for p in model.parameters() if all(p is not q for q in batch_norm)]
    optimizer = torch.optim.SGD([{"params": others, "weight_decay": 1e-4}, {"params": batch_norm, "weight_decay": 0.0}],
                                lr=0.128, momentum=0.9)
    images = torch.randn(args.batch_size, 3, 224, 224).contiguous(memory_format=fmt)
    labels = torch.randint(1000, (args.batch_size,))

    def step():
        model.train()
        optimizer.zero_grad()
        with common.autocast(args.precision):
            logits = model(images)
        F.cross_entropy(logits.float(), labels, label_smoothing=0.1).backward()
        optimizer.step()

    common.measure("resnet50", args, step, args.batch_size, "images", model,
                   memory_format="channels_last" if args.channels_last else "nchw")


if __name__ == "__main__":
    main()
