"""Writes tests/workloads/data/resnet34_stem_state_dict.pt: two tensors of a torchvision resnet34
state dict ('conv1.weight', 64x3x7x7, value = index / 10000, and 'fc.bias', 1000 zeros) as the README
tells users to export one, a plain dict written by Python's torch.save (the zip format), so the C++
backbone loader is tested on Python's own format. (LibTorch's unpickler reads plain dicts; it cannot
build the OrderedDict that state_dict() returns, hence dict(...).)

Run with any PyTorch >= 1.6:  python3 tools/make_torch_save_stem.py
"""
import pathlib

import torch

out = pathlib.Path(__file__).resolve().parent.parent / "tests/workloads/data/resnet34_stem_state_dict.pt"
weight = torch.arange(64 * 3 * 7 * 7, dtype=torch.float32).div(10000).reshape(64, 3, 7, 7)
torch.save(dict([("conv1.weight", weight), ("fc.bias", torch.zeros(1000))]), out)
print(out)
