// `mlharness prepare --workload transformer|gnmt --src train.en --tgt train.de --out DIR`: turns any
// raw parallel corpus into a translation data folder of the same form as the MLPerf one (layout.h),
// so prepared and real data share one loader. For the transformer (format kTransformer):
//   DIR/spm.model                                a joint SentencePiece model trained on the corpus
//   DIR/wmt32k-encoded-train-00001-of-00001      TFRecord Examples, ids with EOS appended
//   DIR/wmt32k-encoded-dev-00001-of-00001        the held-out dev pairs, encoded
//   DIR/newstest2014.en, DIR/newstest2014.de     the held-out test pairs as raw text (BLEU)
// For GNMT (format kGnmt), as the reference's download_dataset.sh does it: both sides Moses-tokenised
// (moses_text.h, -l en / -l de), a joint BPE of bpe_merges merges learned on the training pairs
// (bpe_codes.h), then the gnmt_layout files:
//   DIR/train.tok.clean.bpe.32000.en/.de, DIR/newstest_dev.tok.clean.bpe.32000.en/.de   BPE text
//   DIR/newstest2014.tok.bpe.32000.en   the test sources, BPE; DIR/newstest2014.en/.de raw
//   DIR/bpe.32000 (the merges), DIR/vocab.bpe.32000 (the training text's BPE tokens by frequency)
// (the reference's corpus cleaning, 1-80 tokens and latin-1 only, is not applied).
// Pairs with an empty side are dropped (read_parallel_text). The dev and test pairs are a seeded
// draw, disjoint from each other and from the training pairs. Everything is written to
// "DIR.incomplete" first and renamed when complete, so an interrupted prepare leaves no half folder
// under DIR.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace mlh::wmt {

enum class TranslationFormat { kTransformer, kGnmt };

struct PrepareOptions {
  TranslationFormat format = TranslationFormat::kTransformer;
  std::filesystem::path source_file;
  std::filesystem::path target_file;
  std::filesystem::path out_dir;
  int64_t vocabulary_size = 32768;  // kTransformer: SentencePiece's soft limit (sentencepiece_codec.h)
  int64_t bpe_merges = 32000;       // kGnmt: BPE merges learned
  int64_t dev_pairs = 3000;         // held out, encoded as the dev split
  int64_t test_pairs = 3003;        // held out as raw text; newstest2014 has 3,003 sentences
  uint64_t seed = 1;
};

struct PrepareSummary {
  TranslationFormat format = TranslationFormat::kTransformer;
  int64_t read_pairs = 0;           // lines read from both files
  int64_t dropped_empty_pairs = 0;  // with an empty side
  int64_t train_pairs = 0;
  int64_t dev_pairs = 0;
  int64_t test_pairs = 0;
  int64_t vocabulary_size = 0;      // of the trained model; GNMT: BPE tokens in vocab.bpe.32000
  int64_t train_source_tokens = 0;  // subword ids, EOS included
  int64_t train_target_tokens = 0;
};

// Throws UserError (one line, naming the file or option) for what read_parallel_text rejects, for
// out_dir existing and not empty, for dev_pairs or test_pairs < 0, and when fewer than
// dev_pairs + test_pairs + 1 pairs remain (a corpus that prepares to nothing).
PrepareSummary prepare_translation_data(const PrepareOptions& options);

// Two lines for the console: what was read, kept and written.
std::string describe(const PrepareSummary& summary, const std::filesystem::path& out_dir);

}  // namespace mlh::wmt
