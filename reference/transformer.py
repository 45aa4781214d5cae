#!/usr/bin/env python3
"""Transformer reference training loop: Transformer-big as mlharness's workloads/transformer builds it
(6 + 6 pre-layer-norm layers, d_model 1024, feed-forward 4096, 16 heads, q/k/v/output projections
without bias, sinusoidal positions, one 33,708 x 1024 embedding shared by source, target and the output
projection: 210,804,736 parameters; dropout 0.1 on residuals, attention and ReLU) in plain PyTorch
eager, torch.optim.Adam (0.9, 0.997, 1e-9), the same label-smoothed (0.1) cross-entropy per token, on
one fixed batch of random sentences of --sentence-length tokens ending in EOS, as `mlharness bench
--workload transformer`. The batch is in tokens per side; the rate is in tokens (per side)/s.
Needs Debian's python3-torch. See reference/README.md."""
import math

import common
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, D, FF, HEADS, LAYERS, DROPOUT = 33708, 1024, 4096, 16, 6, 0.1
EOS = 1
NEG_INF = -1e9


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.out = (nn.Linear(D, D, bias=False) for _ in range(4))

    def forward(self, query, memory, bias):
        def split(x):  # [B, T, D] -> [B, heads, T, D / heads]
            return x.view(x.size(0), x.size(1), HEADS, D // HEADS).transpose(1, 2)

        q = split(self.q(query)) * (D // HEADS) ** -0.5
        logits = q @ split(self.k(memory)).transpose(2, 3) + bias
        weights = F.dropout(torch.softmax(logits, -1), DROPOUT, self.training)
        x = (weights @ split(self.v(memory))).transpose(1, 2)
        return self.out(x.reshape(x.size(0), x.size(1), D))


class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.filter, self.output = nn.Linear(D, FF), nn.Linear(FF, D)

    def forward(self, x):
        return self.output(F.dropout(torch.relu(self.filter(x)), DROPOUT, self.training))


def layer_norm():
    return nn.LayerNorm(D, eps=1e-6)


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention_norm, self.attention = layer_norm(), Attention()
        self.ffn_norm, self.ffn = layer_norm(), FeedForward()

    def forward(self, x, source_bias):
        normed = self.attention_norm(x)
        x = x + F.dropout(self.attention(normed, normed, source_bias), DROPOUT, self.training)
        return x + F.dropout(self.ffn(self.ffn_norm(x)), DROPOUT, self.training)


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.self_norm, self.self_attention = layer_norm(), Attention()
        self.encoder_norm, self.encoder_attention = layer_norm(), Attention()
        self.ffn_norm, self.ffn = layer_norm(), FeedForward()

    def forward(self, x, encoded, self_bias, source_bias):
        normed = self.self_norm(x)
        x = x + F.dropout(self.self_attention(normed, normed, self_bias), DROPOUT, self.training)
        x = x + F.dropout(self.encoder_attention(self.encoder_norm(x), encoded, source_bias), DROPOUT, self.training)
        return x + F.dropout(self.ffn(self.ffn_norm(x)), DROPOUT, self.training)


def position_encoding(length):
    timescales = D // 2
    increment = math.log(1e4) / max(1, timescales - 1)
    inverse = torch.exp(torch.arange(timescales, dtype=torch.double) * -increment)
    scaled = torch.arange(length, dtype=torch.double).unsqueeze(1) * inverse.unsqueeze(0)
    return torch.cat([torch.sin(scaled), torch.cos(scaled)], 1).float()


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Parameter(torch.empty(VOCAB, D))
        self.encoder_layers = nn.ModuleList(EncoderLayer() for _ in range(LAYERS))
        self.decoder_layers = nn.ModuleList(DecoderLayer() for _ in range(LAYERS))
        self.encoder_norm, self.decoder_norm = layer_norm(), layer_norm()
        with torch.no_grad():  # as mlharness's TransformerImpl::reset_parameters
            for name, p in self.named_parameters():
                if p is self.embedding:
                    p.normal_(0.0, D ** -0.5)
                elif p.dim() == 1:
                    p.fill_(1.0) if "norm" in name and name.endswith("weight") else p.zero_()
                else:
                    limit = math.sqrt(6.0 / (p.size(0) + p.size(1)))
                    p.uniform_(-limit, limit)

    def embed(self, ids):
        x = F.embedding(ids, self.embedding) * ids.ne(0).unsqueeze(-1).to(self.embedding.dtype) * math.sqrt(D)
        return F.dropout(x + position_encoding(ids.size(1)), DROPOUT, self.training)

    def forward(self, source, target):
        source_bias = (source.eq(0).float() * NEG_INF)[:, None, None, :]
        x = self.embed(source)
        for layer in self.encoder_layers:
            x = layer(x, source_bias)
        encoded = self.encoder_norm(x)
        target_input = F.pad(target, (1, 0))[:, :-1]  # shifted right, padding id first
        length = target.size(1)
        self_bias = (torch.ones(length, length).triu(1) * NEG_INF)[None, None]
        x = self.embed(target_input)
        for layer in self.decoder_layers:
            x = layer(x, encoded, self_bias, source_bias)
        return self.decoder_norm(x) @ self.embedding.t()


def smoothed_cross_entropy_sum(logits, labels, smoothing=0.1):
    """mlharness's: cross-entropy against (1 - s) at the label and s / (V - 1) elsewhere, less its
    entropy, summed over non-padding labels."""
    vocabulary = logits.size(-1)
    confidence, low = 1.0 - smoothing, smoothing / (vocabulary - 1)
    log_probs = torch.log_softmax(logits, -1)
    label_term = log_probs.gather(-1, labels.unsqueeze(-1)).squeeze(-1)
    cross_entropy = -(low * log_probs.sum(-1) + (confidence - low) * label_term)
    entropy = -(confidence * math.log(confidence) + (vocabulary - 1) * low * math.log(low + 1e-20))
    return ((cross_entropy - entropy) * labels.ne(0).to(cross_entropy.dtype)).sum()


def main():
    def add(parser):
        parser.add_argument("--sentence-length", type=int, default=32,
                            help="tokens per random sentence (default 32, bench_sentence_length)")

    args = common.parse_args(__doc__, 4096, "tokens per side per step (default 4096, configs/transformer.yaml's)", add)
    rows = args.batch_size // args.sentence_length
    if args.sentence_length < 2 or rows < 1:
        raise SystemExit(f"transformer.py: --batch-size {args.batch_size} tokens holds no sentence of "
                         f"{args.sentence_length} tokens (--sentence-length, at least 2)")
    model = Transformer()
    optimizer = torch.optim.Adam(model.parameters(), lr=2.0 * D ** -0.5 / math.sqrt(16000), betas=(0.9, 0.997), eps=1e-9)

    def sentences():
        ids = torch.randint(2, VOCAB, (rows, args.sentence_length))
        ids[:, -1] = EOS
        return ids

    source, target = sentences(), sentences()
    tokens = rows * args.sentence_length

    def step():
        model.train()
        optimizer.zero_grad()
        with common.autocast(args.precision):
            logits = model(source, target)
        loss = smoothed_cross_entropy_sum(logits.float().reshape(-1, VOCAB), target.reshape(-1)) / tokens
        loss.backward()
        optimizer.step()

    common.measure("transformer", args, step, tokens, "tokens", model, sentence_length=args.sentence_length)


if __name__ == "__main__":
    main()
