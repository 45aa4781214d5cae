#!/usr/bin/env python3
"""GNMT reference training loop: GNMT v2 as mlharness's workloads/gnmt builds it (one 32,320 x 1024
embedding shared by encoder and decoder; encoder: a bidirectional LSTM 1024 -> 2 x 1024 over packed
sequences, an LSTM 2048 -> 1024, two LSTMs 1024 -> 1024 with residuals; decoder: an LSTM whose outputs
query normalised Bahdanau attention, three LSTMs 2048 -> 1024 fed the context, residuals from the third
layer; a classifier with bias: 160,671,297 parameters; dropout 0.2 on every layer's input) in plain
PyTorch eager, torch.optim.Adam at 1e-3, label smoothing 0.1, the gradient norm clipped at 5, on one
fixed batch of random sentence pairs of --sentence-length tokens (BOS first, EOS last), as `mlharness
bench --workload gnmt`. The batch is in sentence pairs; the rate in target tokens predicted per second
(sentence length - 1 per pair). Needs Debian's python3-torch. See reference/README.md."""
import common
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

VOCAB, H, DROPOUT = 32320, 1024, 0.2
BOS, EOS, FIRST_WORD = 2, 3, 4
MASKED_SCORE = -65504.0


def lstm(cin, hidden=H, bidirectional=False):
    return nn.LSTM(cin, hidden, batch_first=True, bidirectional=bidirectional)


class BahdanauAttention(nn.Module):
    """score(q, k) = g * (v / |v|) . tanh(W_q q + W_k k + b), softmax over the valid positions."""

    def __init__(self):
        super().__init__()
        self.linear_q, self.linear_k = nn.Linear(H, H, bias=False), nn.Linear(H, H, bias=False)
        self.linear_att = nn.Parameter(torch.empty(H))
        self.normalize_scalar = nn.Parameter(torch.empty(1))
        self.normalize_bias = nn.Parameter(torch.empty(H))

    def forward(self, query, keys, mask):
        v = self.linear_att / self.linear_att.norm() * self.normalize_scalar
        sums = self.linear_q(query).unsqueeze(2) + self.linear_k(keys).unsqueeze(1) + self.normalize_bias
        scores = (torch.tanh(sums) @ v).masked_fill(mask.unsqueeze(1), MASKED_SCORE)
        return torch.bmm(torch.softmax(scores, -1), keys)


class Gnmt(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, H, padding_idx=0)
        self.encoder_layers = nn.ModuleList([lstm(H, bidirectional=True), lstm(2 * H), lstm(H), lstm(H)])
        self.attention_layer = lstm(H)
        self.attention = BahdanauAttention()
        self.decoder_layers = nn.ModuleList(lstm(2 * H) for _ in range(3))
        self.classifier = nn.Linear(H, VOCAB)
        with torch.no_grad():  # as mlharness's GnmtImpl
            for p in self.parameters():
                p.uniform_(-0.1, 0.1)
            self.attention.normalize_scalar.fill_(H ** -0.5)
            self.attention.normalize_bias.zero_()

    def forward(self, source, source_lengths, decoder_input):
        drop = lambda x: F.dropout(x, DROPOUT, self.training)  # noqa: E731
        x = drop(self.embedding(source))
        packed = pack_padded_sequence(x, source_lengths, batch_first=True, enforce_sorted=False)
        x = pad_packed_sequence(self.encoder_layers[0](packed)[0], batch_first=True, total_length=source.size(1))[0]
        for i, layer in enumerate(self.encoder_layers[1:], start=1):
            out = layer(drop(x))[0]
            x = out + x if i >= 2 else out
        encoded = x
        mask = torch.arange(source.size(1)).unsqueeze(0) >= source_lengths.unsqueeze(1)
        x = self.attention_layer(drop(self.embedding(decoder_input)))[0]
        context = self.attention(x, encoded, mask)
        for i, layer in enumerate(self.decoder_layers):
            out = layer(drop(torch.cat([x, context], 2)))[0]
            x = out + x if i >= 1 else out
        return self.classifier(x)


def main():
    def add(parser):
        parser.add_argument("--sentence-length", type=int, default=32,
                            help="tokens per random sentence, BOS and EOS included (default 32, bench_sentence_length)")

    args = common.parse_args(__doc__, 128, "sentence pairs per step (default 128, configs/gnmt.yaml's per rank)", add)
    if args.sentence_length < 3:
        raise SystemExit("gnmt.py: --sentence-length must be at least 3")
    rows, length = args.batch_size, args.sentence_length
    model = Gnmt()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)

    def sentences():
        ids = torch.randint(FIRST_WORD, VOCAB, (rows, length))
        ids[:, 0], ids[:, -1] = BOS, EOS
        return ids

    source, target = sentences(), sentences()
    source_lengths = source.ne(0).sum(1)

    def step():
        model.train()
        optimizer.zero_grad()
        with common.autocast(args.precision):
            logits = model(source, source_lengths, target[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), target[:, 1:].reshape(-1), ignore_index=0,
                               label_smoothing=0.1, reduction="sum") / rows
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()

    common.measure("gnmt", args, step, rows * (length - 1), "tokens", model, sentence_length=length)


if __name__ == "__main__":
    main()
