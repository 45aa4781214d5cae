"""ResNet v1 (post-activation) in plain PyTorch, as mlharness's workloads/common/resnet.h builds it: the
ResNet-50 v1.5 classifier (stride on the bottleneck's 3x3 conv; 25,557,032 parameters at 1000
classes) and SSD's ResNet-34 trunk (stages 1-3, strides 1, 2, 1, no classifier). torchvision's layout
and names, symmetric padding, the max-pool after the 7x7/2 stem."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def conv(cin, cout, kernel, stride=1):
    return nn.Conv2d(cin, cout, kernel, stride=stride, padding=kernel // 2, bias=False)


def projection(cin, cout, stride):
    """The shortcut when the stride or the channel count changes: 1x1 conv with the stride, then BN."""
    if stride == 1 and cin == cout:
        return None
    return nn.Sequential(conv(cin, cout, 1, stride), nn.BatchNorm2d(cout))


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, cin, width, stride=1):
        super().__init__()
        self.conv1, self.bn1 = conv(cin, width, 3, stride), nn.BatchNorm2d(width)
        self.conv2, self.bn2 = conv(width, width, 3), nn.BatchNorm2d(width)
        self.downsample = projection(cin, width, stride)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += x if self.downsample is None else self.downsample(x)
        return F.relu_(out)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, width, stride=1):
        super().__init__()
        self.conv1, self.bn1 = conv(cin, width, 1), nn.BatchNorm2d(width)
        self.conv2, self.bn2 = conv(width, width, 3, stride), nn.BatchNorm2d(width)  # v1.5: stride here
        self.conv3, self.bn3 = conv(width, width * 4, 1), nn.BatchNorm2d(width * 4)
        self.downsample = projection(cin, width * 4, stride)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        out += x if self.downsample is None else self.downsample(x)
        return F.relu_(out)


class ResNet(nn.Module):
    """block: BasicBlock or Bottleneck; layers: blocks per stage; strides: each stage's first stride;
    num_classes 0: no classifier, forward returns the last stage's map. conv_init "truncated_normal"
    is the MLPerf reference's (TF 1.x variance scaling, fan in), "kaiming" torchvision's (fan out)."""

    def __init__(self, block, layers, strides=None, num_classes=1000, conv_init="truncated_normal"):
        super().__init__()
        strides = strides or [1] + [2] * (len(layers) - 1)
        self.conv1, self.bn1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64)
        cin, stages = 64, []
        for i, (blocks, stride) in enumerate(zip(layers, strides)):
            width = 64 << i
            stage = []
            for b in range(blocks):
                stage.append(block(cin, width, stride if b == 0 else 1))
                cin = width * block.expansion
            stages.append(nn.Sequential(*stage))
        self.stages = stages
        for i, stage in enumerate(stages):
            self.add_module(f"layer{i + 1}", stage)
        self.out_channels = cin
        self.fc = nn.Linear(cin, num_classes) if num_classes > 0 else None
        self.reset_parameters(conv_init)

    @torch.no_grad()
    def reset_parameters(self, conv_init):
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if conv_init == "truncated_normal":
                    fan_in = m.weight[0].numel()
                    std = math.sqrt(1.0 / fan_in) / 0.87962566103423978
                    nn.init.trunc_normal_(m.weight, 0.0, std, -2 * std, 2 * std)
                else:
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
        if self.fc is not None:
            self.fc.weight.normal_(0.0, 0.01)
            self.fc.bias.zero_()

    def features(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        for stage in self.stages:
            x = stage(x)
        return x

    def forward(self, x):
        x = self.features(x)
        return x if self.fc is None else self.fc(x.mean((2, 3)))


def resnet50(num_classes=1000):
    return ResNet(Bottleneck, [3, 4, 6, 3], num_classes=num_classes)


def ssd_resnet34_trunk():
    return ResNet(BasicBlock, [3, 4, 6], strides=[1, 2, 1], num_classes=0, conv_init="kaiming")
