// File names in a translation data folder. The real MLPerf transformer folder (process_data.py
// output plus the newstest2014 raw text) and one `mlharness prepare` writes use the same names.
#pragma once

namespace mlh::wmt {

// process_data.py: "%s-%s-%s-%.5d-of-%.5d" % ("wmt32k", "encoded", split, shard, count), shards
// numbered from 1: wmt32k-encoded-train-00001-of-00100 ... -00100-of-00100,
// wmt32k-encoded-dev-00001-of-00001.
inline constexpr char kEncodedPrefix[] = "wmt32k-encoded";
inline constexpr char kTrainSplit[] = "train";
inline constexpr char kDevSplit[] = "dev";
inline constexpr int kTrainShards = 100;
inline constexpr int kDevShards = 1;
// The t2t subword vocabulary in the data folder, under the name process_data.py (_VOCAB_FILE) and
// transformer_main.py (--vocab_file) use. T06/T07 ship the fixed vocabulary as
// transformer/vocab/vocab.translate_ende_wmt32k.32768.subwords; it goes into the data folder under
// this name (process_data.py builds a vocabulary of its own only when no file of this name is
// there).
inline constexpr char kT2tVocabularyFile[] = "vocab.ende.32768";
inline constexpr char kT2tShippedVocabularyFile[] = "vocab.translate_ende_wmt32k.32768.subwords";
// What `mlharness prepare` trains instead.
inline constexpr char kSentencePieceModelFile[] = "spm.model";
// The BLEU test set: raw source sentences and raw references, one per line.
inline constexpr char kTestSourceFile[] = "newstest2014.en";
inline constexpr char kTestReferenceFile[] = "newstest2014.de";

}  // namespace mlh::wmt

// The MLPerf GNMT data folder (rnn_translator download_dataset.sh, seq2seq/data/config.py): Moses-
// tokenised, BPE-segmented text ("@@ " joins pieces of a word), one sentence per line, and the raw
// test reference. `mlharness prepare --workload gnmt` writes the same names whatever its merge count.
namespace mlh::wmt::gnmt_layout {
inline constexpr char kTrainSource[] = "train.tok.clean.bpe.32000.en";
inline constexpr char kTrainTarget[] = "train.tok.clean.bpe.32000.de";
inline constexpr char kDevSource[] = "newstest_dev.tok.clean.bpe.32000.en";
inline constexpr char kDevTarget[] = "newstest_dev.tok.clean.bpe.32000.de";
inline constexpr char kTestSource[] = "newstest2014.tok.bpe.32000.en";
inline constexpr char kTestReference[] = "newstest2014.de";  // raw text, the BLEU reference
inline constexpr char kVocabulary[] = "vocab.bpe.32000";     // one BPE token per line, no specials
inline constexpr char kBpeCodes[] = "bpe.32000";             // the merges (subword-nmt codes file)
}  // namespace mlh::wmt::gnmt_layout
