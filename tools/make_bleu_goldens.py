#!/usr/bin/env python3
"""Goldens of the corpus cases of tests/datasets/bleu_test.cpp, scored by the references themselves.

Reads tests/datasets/data/bleu/corpus_cases.json (a list of {"name", "note" (optional), "hypotheses",
"references"}, line-aligned) and writes tests/datasets/data/bleu/goldens.json: the versions it ran
under and, per case in the same order, five goldens {"score": 6 decimals, "counts": [matches[4],
possible[4], hypothesis_length, reference_length]}:
  t2t_uncased: the MLPerf Transformer's BLEU (mlcommons/training, retired_benchmarks/transformer/
      tensorflow/transformer): each line lowercased as bleu_wrapper's uncased path does, split by
      compute_bleu.py's bleu_tokenize, scored by utils/metrics.py's compute_bleu, times 100. The cases
      are line lists, so bleu_wrapper's file reading (strip() of the whole text, splitlines) is left
      out. compute_bleu returns only the score; the counts are its own local variables, read from its
      frame when it returns (sys.setprofile), so nothing of it is restated here.
  intl_lowercase, intl_cased, 13a_lowercase, 13a_cased: sacreBLEU 1.2.10's corpus_bleu(hypotheses,
      [references], smooth="exp", lowercase=..., tokenize="intl" or "13a").
The reference files are imported from a checkout outside this tree (never copied into it); their
`import tensorflow` is satisfied by an empty stand-in module, since the functions used never touch it.

Both tokenizers read Unicode's categories, so the goldens hold for Python 3.11's Unicode 14.0.0 (the
tables the C++ implementation follows); the script refuses any other version.

Run from the repository root (nothing here is needed to build or test):
    /usr/bin/python3 -m venv /root/.cache/mlharness/sacrebleu-1.2.10
    /root/.cache/mlharness/sacrebleu-1.2.10/bin/pip install sacrebleu==1.2.10 six numpy
    git clone --depth 1 https://github.com/mlcommons/training /root/.cache/mlharness/mlperf-training
    /root/.cache/mlharness/sacrebleu-1.2.10/bin/python tools/make_bleu_goldens.py \\
        --mlperf-transformer /root/.cache/mlharness/mlperf-training/retired_benchmarks/transformer/tensorflow/transformer
Add --check to compare with the committed goldens.json instead of writing it (exit status 1 and the
differing lines when they differ).
"""

import argparse
import difflib
import json
import os
import sys
import types
import unicodedata

CASES = os.path.join("tests", "datasets", "data", "bleu", "corpus_cases.json")
GOLDENS = os.path.join("tests", "datasets", "data", "bleu", "goldens.json")
SACREBLEU_VERSION = "1.2.10"
UNICODE_VERSION = "14.0.0"

# Golden name -> (tokenize, lowercase) of sacreBLEU's corpus_bleu.
SACREBLEU_FLAVOURS = [
    ("intl_lowercase", "intl", True),
    ("intl_cased", "intl", False),
    ("13a_lowercase", "13a", True),
    ("13a_cased", "13a", False),
]


def import_mlperf_transformer(folder):
    """The reference's bleu_tokenize and metrics module, imported from `folder`."""
    if not os.path.isfile(os.path.join(folder, "compute_bleu.py")):
        sys.exit("no compute_bleu.py in " + folder)
    sys.modules.setdefault("tensorflow", types.ModuleType("tensorflow"))
    sys.path.insert(0, folder)
    import compute_bleu  # noqa: E402  (the reference's; builds its Unicode regexes on import)
    from utils import metrics  # noqa: E402

    return compute_bleu.bleu_tokenize, metrics


def t2t_golden(bleu_tokenize, metrics, hypotheses, references):
    hypothesis_tokens = [bleu_tokenize(line.lower()) for line in hypotheses]
    reference_tokens = [bleu_tokenize(line.lower()) for line in references]
    seen = {}

    def keep_locals(frame, event, _arg):
        if event == "return" and frame.f_code is metrics.compute_bleu.__code__:
            seen.update(frame.f_locals)

    sys.setprofile(keep_locals)
    try:
        score = metrics.compute_bleu(reference_tokens, hypothesis_tokens) * 100
    finally:
        sys.setprofile(None)
    counts = (list(seen["matches_by_order"]) + list(seen["possible_matches_by_order"]) +
              [seen["translation_length"], seen["reference_length"]])
    return float(score), counts


def sacrebleu_golden(sacrebleu, hypotheses, references, tokenize, lowercase):
    bleu = sacrebleu.corpus_bleu(hypotheses, [references], smooth="exp", lowercase=lowercase,
                                 tokenize=tokenize)
    return bleu.score, list(bleu.counts) + list(bleu.totals) + [bleu.sys_len, bleu.ref_len]


def golden_line(key, score, counts, last):
    counts_text = ", ".join(str(int(c)) for c in counts)
    return '    "%s": {"score": %.6f, "counts": [%s]}%s' % (key, score, counts_text, "" if last else ",")


def goldens_text(cases, bleu_tokenize, metrics, sacrebleu):
    lines = [
        "{",
        '  "generated_by": "tools/make_bleu_goldens.py",',
        '  "sacrebleu": "%s",' % sacrebleu.VERSION,
        '  "t2t": "mlcommons/training retired_benchmarks/transformer/tensorflow/transformer",',
        '  "unicode": "%s",' % unicodedata.unidata_version,
        '  "cases": [',
    ]
    for index, case in enumerate(cases):
        hypotheses, references = case["hypotheses"], case["references"]
        if len(hypotheses) != len(references):
            sys.exit("case %s: %d hypotheses but %d references" % (case["name"], len(hypotheses), len(references)))
        lines.append("   {")
        lines.append('    "name": %s,' % json.dumps(case["name"]))
        lines.append(golden_line("t2t_uncased", *t2t_golden(bleu_tokenize, metrics, hypotheses, references), False))
        for position, (key, tokenize, lowercase) in enumerate(SACREBLEU_FLAVOURS):
            score, counts = sacrebleu_golden(sacrebleu, hypotheses, references, tokenize, lowercase)
            lines.append(golden_line(key, score, counts, position == len(SACREBLEU_FLAVOURS) - 1))
        lines.append("   }" + ("," if index + 1 < len(cases) else ""))
    lines += ["  ]", "}"]
    text = "\n".join(lines) + "\n"
    json.loads(text)  # well-formed
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mlperf-transformer", required=True,
                        help="folder of the MLPerf Transformer's compute_bleu.py and utils/metrics.py")
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed goldens instead of writing them")
    args = parser.parse_args()

    import sacrebleu

    if sacrebleu.VERSION != SACREBLEU_VERSION:
        sys.exit("sacrebleu is %s; the goldens are %s's" % (sacrebleu.VERSION, SACREBLEU_VERSION))
    if unicodedata.unidata_version != UNICODE_VERSION:
        sys.exit("this Python has Unicode %s; the goldens need %s (Python 3.11)" %
                 (unicodedata.unidata_version, UNICODE_VERSION))
    bleu_tokenize, metrics = import_mlperf_transformer(os.path.abspath(args.mlperf_transformer))
    with open(CASES, encoding="utf-8") as f:
        cases = json.load(f)
    text = goldens_text(cases, bleu_tokenize, metrics, sacrebleu)

    if args.check:
        with open(GOLDENS, encoding="utf-8") as f:
            committed = f.read()
        if committed != text:
            sys.stdout.writelines(difflib.unified_diff(committed.splitlines(True), text.splitlines(True),
                                                       GOLDENS + " (committed)", GOLDENS + " (regenerated)"))
            sys.exit(1)
        print("%s: %d cases, as committed" % (GOLDENS, len(cases)))
        return
    with open(GOLDENS, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote %s: %d cases" % (GOLDENS, len(cases)))


if __name__ == "__main__":
    main()
