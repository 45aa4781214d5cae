#!/usr/bin/env python3
"""NCF reference training loop: the MLPerf NeuMF model at MovieLens-20M sizes (138,493 users, 26,744
items, mf_dim 64, MLP 256-256-128-64: 31,832,577 parameters, as mlharness's workloads/ncf/neumf.h)
in plain PyTorch eager, torch.optim.Adam with configs/ncf.yaml's settings, binary cross-entropy on
logits; each step draws random user and item ids and labels, as `mlharness bench --workload ncf`
does. Rate: samples/s. Needs Debian's python3-torch. See reference/README.md."""
import math

import common
import torch
import torch.nn as nn
import torch.nn.functional as F

USERS, ITEMS, MF_DIM, LAYERS = 138493, 26744, 64, [256, 256, 128, 64]


class NeuMF(nn.Module):
    def __init__(self):
        super().__init__()
        self.mf_user, self.mf_item = nn.Embedding(USERS, MF_DIM), nn.Embedding(ITEMS, MF_DIM)
        self.mlp_user, self.mlp_item = nn.Embedding(USERS, LAYERS[0] // 2), nn.Embedding(ITEMS, LAYERS[0] // 2)
        self.mlp = nn.ModuleList(nn.Linear(a, b) for a, b in zip(LAYERS, LAYERS[1:]))
        self.final = nn.Linear(MF_DIM + LAYERS[-1], 1)
        # The reference initialisation, as mlharness's NeuMF::reset_parameters.
        with torch.no_grad():
            for table in (self.mf_user, self.mf_item, self.mlp_user, self.mlp_item):
                table.weight.normal_(0.0, 0.01)
            for layer in self.mlp:
                nn.init.xavier_uniform_(layer.weight)
            bound = math.sqrt(3.0 / self.final.weight.size(1))
            self.final.weight.uniform_(-bound, bound)

    def forward(self, user, item):
        gmf = self.mf_user(user) * self.mf_item(item)
        hidden = torch.cat([self.mlp_user(user), self.mlp_item(item)], 1)
        for layer in self.mlp:
            hidden = torch.relu(layer(hidden))
        return self.final(torch.cat([gmf, hidden], 1)).squeeze(1)


def main():
    args = common.parse_args(__doc__, 2048, "samples per step (default 2048, configs/ncf.yaml's global batch)")
    model = NeuMF()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.0005, betas=(0.9, 0.999), eps=1e-8)
    batch = args.batch_size

    def step():
        user, item = torch.randint(USERS, (batch,)), torch.randint(ITEMS, (batch,))
        label = torch.randint(2, (batch,)).float()
        optimizer.zero_grad()
        with common.autocast(args.precision):
            logits = model(user, item)
        loss = F.binary_cross_entropy_with_logits(logits.float(), label)
        loss.backward()
        optimizer.step()

    common.measure("ncf", args, step, batch, "samples", model)


if __name__ == "__main__":
    main()
