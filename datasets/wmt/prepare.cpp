#include "datasets/wmt/prepare.h"

#include <algorithm>
#include <memory>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include "base/user_error.h"
#include "datasets/counter_random.h"
#include "datasets/wmt/bpe_codes.h"
#include "datasets/wmt/layout.h"
#include "datasets/wmt/moses_text.h"
#include "datasets/wmt/parallel_text.h"
#include "datasets/wmt/sentencepiece_codec.h"
#include "datasets/wmt/tfrecord.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kHeldOutStream = 0x4845'4c44'4f55'54ULL;  // "HELDOUT"
constexpr char kSpmInputSource[] = "spm-input.en";
constexpr char kSpmInputTarget[] = "spm-input.de";

void check_options(const PrepareOptions& options) {
  if (options.dev_pairs < 0) {
    throw UserError("prepare: dev_pairs is " + std::to_string(options.dev_pairs) +
                    "; set it to 0 or more");
  }
  if (options.test_pairs < 0) {
    throw UserError("prepare: test_pairs is " + std::to_string(options.test_pairs) +
                    "; set it to 0 or more");
  }
  if (options.format == TranslationFormat::kGnmt && options.bpe_merges < 1) {
    throw UserError("prepare: bpe_merges is " + std::to_string(options.bpe_merges) +
                    "; set it to 1 or more (the reference learns 32000)");
  }
  std::error_code error;
  if (fs::exists(options.out_dir, error)) {
    if (!fs::is_directory(options.out_dir, error)) {
      throw UserError(options.out_dir.string() +
                      ": exists and is not a folder; choose another output folder");
    }
    if (!fs::is_empty(options.out_dir, error)) {
      throw UserError(options.out_dir.string() +
                      ": exists and is not empty; remove it or choose another output folder");
    }
  }
}

// The positions of the pairs in a seeded order: the first dev_pairs are the dev split, the next
// test_pairs the test set. Counter-based keys, so the draw is the same on every platform.
std::vector<size_t> seeded_order(size_t count, uint64_t seed) {
  const uint64_t key = stream_key(seed, kHeldOutStream);
  std::vector<std::pair<uint64_t, size_t>> keyed(count);
  for (size_t i = 0; i < count; ++i) keyed[i] = {keyed_random(key, i), i};
  std::sort(keyed.begin(), keyed.end());
  std::vector<size_t> order(count);
  for (size_t i = 0; i < count; ++i) order[i] = keyed[i].second;
  return order;
}

struct Split {
  std::vector<size_t> train, dev, test;  // positions, each in corpus order
};

Split split_pairs(size_t count, const PrepareOptions& options) {
  const std::vector<size_t> order = seeded_order(count, options.seed);
  const auto dev_end = order.begin() + options.dev_pairs;
  const auto test_end = dev_end + options.test_pairs;
  Split split;
  split.dev.assign(order.begin(), dev_end);
  split.test.assign(dev_end, test_end);
  split.train.assign(test_end, order.end());
  for (std::vector<size_t>* part : {&split.train, &split.dev, &split.test}) {
    std::sort(part->begin(), part->end());
  }
  return split;
}

std::vector<std::string> select(const std::vector<std::string>& lines,
                                const std::vector<size_t>& positions) {
  std::vector<std::string> selected;
  selected.reserve(positions.size());
  for (const size_t position : positions) selected.push_back(lines[position]);
  return selected;
}

std::vector<EncodedPair> encode_pairs(const SubwordCodec& codec, const ParallelText& text,
                                      const std::vector<size_t>& positions) {
  std::vector<EncodedPair> pairs;
  pairs.reserve(positions.size());
  for (const size_t position : positions) {
    pairs.push_back({codec.encode(text.source[position]), codec.encode(text.target[position])});
  }
  return pairs;
}

// Removes the scratch folder unless release() was called: a failed prepare leaves nothing behind.
class ScratchFolder {
 public:
  explicit ScratchFolder(fs::path folder) : folder_(std::move(folder)) {}
  ~ScratchFolder() {
    if (folder_.empty()) return;
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  void release() { folder_.clear(); }

 private:
  fs::path folder_;
};

void create_folder(const fs::path& folder) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) throw UserError(folder.string() + ": cannot be created (" + error.message() + ")");
}

// SentencePiece + TFRecords (the transformer's folder).
void write_transformer_folder(const ParallelText& text, const Split& split, const PrepareOptions& options,
                              const fs::path& scratch, PrepareSummary& summary) {
  // One joint vocabulary, trained on both sides of the training pairs only.
  const fs::path spm_source = scratch / kSpmInputSource, spm_target = scratch / kSpmInputTarget;
  write_lines(spm_source, select(text.source, split.train));
  write_lines(spm_target, select(text.target, split.train));
  SentencePieceTraining training;
  training.vocabulary_size = options.vocabulary_size;
  training.seed = options.seed;
  const fs::path model_file = scratch / kSentencePieceModelFile;
  train_sentencepiece_model({spm_source, spm_target}, model_file.parent_path() / model_file.stem(),
                            training);
  {
    std::error_code ignored;
    fs::remove(spm_source, ignored);
    fs::remove(spm_target, ignored);
  }
  const std::unique_ptr<SubwordCodec> codec = load_sentencepiece_codec(model_file);
  summary.vocabulary_size = codec->vocabulary_size();

  const std::vector<EncodedPair> train = encode_pairs(*codec, text, split.train);
  for (const EncodedPair& pair : train) {
    summary.train_source_tokens += static_cast<int64_t>(pair.source.size());
    summary.train_target_tokens += static_cast<int64_t>(pair.target.size());
  }
  write_encoded_examples(scratch / encoded_shard_name(kEncodedPrefix, kTrainSplit, 1, 1), train);
  write_encoded_examples(scratch / encoded_shard_name(kEncodedPrefix, kDevSplit, 1, 1),
                         encode_pairs(*codec, text, split.dev));
  write_lines(scratch / kTestSourceFile, select(text.source, split.test));
  write_lines(scratch / kTestReferenceFile, select(text.target, split.test));
}

int64_t count_tokens(const std::vector<std::string>& lines) {
  int64_t tokens = 0;
  for (const std::string& line : lines) {
    std::istringstream words(line);
    for (std::string word; words >> word;) ++tokens;
  }
  return tokens;
}

// Moses tokens + joint BPE as text (GNMT's folder).
void write_gnmt_folder(const ParallelText& text, const Split& split, const PrepareOptions& options,
                       const fs::path& scratch, PrepareSummary& summary) {
  namespace layout = gnmt_layout;
  std::vector<std::string> source(text.source.size()), target(text.target.size());
  for (size_t i = 0; i < source.size(); ++i) {
    source[i] = moses_tokenize(text.source[i], "en");
    target[i] = moses_tokenize(text.target[i], "de");
  }
  std::vector<std::string> joint = select(source, split.train);
  const std::vector<std::string> train_target = select(target, split.train);
  joint.insert(joint.end(), train_target.begin(), train_target.end());
  const BpeCodes codes = learn_bpe_codes(joint, options.bpe_merges);
  BpeEncoder encoder(codes);
  write_bpe_codes(scratch / layout::kBpeCodes, codes);
  const auto segment = [&](const std::vector<std::string>& lines, const std::vector<size_t>& positions) {
    std::vector<std::string> out;
    out.reserve(positions.size());
    for (const size_t position : positions) out.push_back(encoder.apply(lines[position]));
    return out;
  };
  const std::vector<std::string> train_source_bpe = segment(source, split.train);
  const std::vector<std::string> train_target_bpe = segment(target, split.train);
  write_lines(scratch / layout::kTrainSource, train_source_bpe);
  write_lines(scratch / layout::kTrainTarget, train_target_bpe);
  write_lines(scratch / layout::kDevSource, segment(source, split.dev));
  write_lines(scratch / layout::kDevTarget, segment(target, split.dev));
  write_lines(scratch / layout::kTestSource, segment(source, split.test));
  write_lines(scratch / kTestSourceFile, select(text.source, split.test));
  write_lines(scratch / layout::kTestReference, select(text.target, split.test));
  std::vector<std::string> both = train_source_bpe;
  both.insert(both.end(), train_target_bpe.begin(), train_target_bpe.end());
  std::vector<std::string> vocabulary;
  for (const BpeTokenCount& counted : count_bpe_tokens(both)) vocabulary.push_back(counted.token);
  write_lines(scratch / layout::kVocabulary, vocabulary);
  summary.vocabulary_size = static_cast<int64_t>(vocabulary.size());
  summary.train_source_tokens = count_tokens(train_source_bpe);
  summary.train_target_tokens = count_tokens(train_target_bpe);
}

}  // namespace

PrepareSummary prepare_translation_data(const PrepareOptions& options) {
  check_options(options);
  const ParallelText text = read_parallel_text(options.source_file, options.target_file);
  const auto kept = static_cast<int64_t>(text.source.size());
  if (kept < options.dev_pairs + options.test_pairs + 1) {
    throw UserError("prepare: " + options.source_file.string() + " and " +
                    options.target_file.string() + " hold " + std::to_string(kept) +
                    " sentence pairs (with both sides non-empty), fewer than dev_pairs " +
                    std::to_string(options.dev_pairs) + " + test_pairs " +
                    std::to_string(options.test_pairs) +
                    " + 1 training pair; use a larger corpus or hold out fewer pairs");
  }
  const Split split = split_pairs(text.source.size(), options);

  // "out/" names the folder "out", whose scratch twin is "out.incomplete".
  const fs::path out_dir =
      options.out_dir.has_filename() ? options.out_dir : options.out_dir.parent_path();
  const fs::path scratch = out_dir.string() + ".incomplete";
  {
    std::error_code error;
    fs::remove_all(scratch, error);  // left by an interrupted prepare
    if (error) throw UserError(scratch.string() + ": cannot be removed (" + error.message() + ")");
  }
  create_folder(scratch);  // parents included
  ScratchFolder cleanup(scratch);

  PrepareSummary summary;
  summary.format = options.format;
  summary.read_pairs = kept + text.dropped_empty_pairs;
  summary.dropped_empty_pairs = text.dropped_empty_pairs;
  summary.train_pairs = static_cast<int64_t>(split.train.size());
  summary.dev_pairs = static_cast<int64_t>(split.dev.size());
  summary.test_pairs = static_cast<int64_t>(split.test.size());
  if (options.format == TranslationFormat::kGnmt) {
    write_gnmt_folder(text, split, options, scratch, summary);
  } else {
    write_transformer_folder(text, split, options, scratch, summary);
  }

  std::error_code error;
  if (fs::exists(out_dir, error)) fs::remove(out_dir, error);  // empty (checked)
  if (error) throw UserError(out_dir.string() + ": cannot be replaced (" + error.message() + ")");
  fs::rename(scratch, out_dir, error);
  if (error) throw UserError(out_dir.string() + ": cannot be written (" + error.message() + ")");
  cleanup.release();
  return summary;
}

std::string describe(const PrepareSummary& summary, const fs::path& out_dir) {
  std::string text = "prepare: read " + std::to_string(summary.read_pairs) + " sentence pairs";
  if (summary.dropped_empty_pairs > 0) {
    text += ", dropped " + std::to_string(summary.dropped_empty_pairs) + " with an empty side";
  }
  text += "; kept " + std::to_string(summary.train_pairs) + " for training, " +
          std::to_string(summary.dev_pairs) + " dev, " + std::to_string(summary.test_pairs) +
          " test\n";
  text += "prepare: wrote " + out_dir.string() + (summary.format == TranslationFormat::kGnmt ? " (BPE vocabulary " : " (SentencePiece vocabulary ") +
          std::to_string(summary.vocabulary_size) + "; training tokens " +
          std::to_string(summary.train_source_tokens) + " source, " +
          std::to_string(summary.train_target_tokens) + " target)\n";
  return text;
}

}  // namespace mlh::wmt
