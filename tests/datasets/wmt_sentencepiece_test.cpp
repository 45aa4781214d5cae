#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "datasets/wmt/sentencepiece_codec.h"
#include "datasets/wmt/synthetic_corpus.h"
#include "tests/test_files.h"
#include "tests/user_error_of.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_files::contents_of;
using testing_files::fresh_test_folder;

constexpr int64_t kVocabularySize = 500;
constexpr int64_t kPairs = 1500;

// One small model for the suite: trained on both sides of a synthetic corpus.
class SentencePieceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // One folder per process: ctest runs the suite's tests as parallel processes.
    folder_ = new fs::path(fs::path(::testing::TempDir()) /
                           ("mlh_wmt_sentencepiece_suite_" + std::to_string(::getpid())));
    fs::remove_all(*folder_);
    SyntheticCorpusSpec spec;
    spec.pairs = kPairs;
    spec.seed = 3;
    write_synthetic_parallel_corpus(spec, *folder_ / "train.en", *folder_ / "train.de");
    SentencePieceTraining training;
    training.vocabulary_size = kVocabularySize;
    train_sentencepiece_model({*folder_ / "train.en", *folder_ / "train.de"}, *folder_ / "spm",
                              training);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*folder_);
    delete folder_;
    folder_ = nullptr;
  }

  static fs::path model_file() { return *folder_ / "spm.model"; }
  static std::vector<fs::path> text_files() {
    return {*folder_ / "train.en", *folder_ / "train.de"};
  }

  static fs::path* folder_;
};

fs::path* SentencePieceTest::folder_ = nullptr;

TEST_F(SentencePieceTest, TrainsAModelFile) {
  EXPECT_TRUE(fs::is_regular_file(model_file()));
  EXPECT_FALSE(fs::exists(*folder_ / "spm.vocab"));
  EXPECT_FALSE(fs::exists(model_file().string() + ".partial"));
  const std::unique_ptr<SubwordCodec> codec = load_sentencepiece_codec(model_file());
  EXPECT_GT(codec->vocabulary_size(), 100);
  EXPECT_LE(codec->vocabulary_size(), kVocabularySize);
  EXPECT_THAT(codec->describe(), HasSubstr(model_file().string()));
}

TEST_F(SentencePieceTest, EncodeDecodeRoundTrip) {
  const std::unique_ptr<SubwordCodec> codec = load_sentencepiece_codec(model_file());
  for (int64_t i = 0; i < 200; ++i) {
    const TextPair pair = synthetic_sentence_pair(3, i * 7);
    for (const std::string& text : {pair.source, pair.target}) {
      const TokenIds ids = codec->encode(text);
      ASSERT_GE(ids.size(), 2u) << text;
      EXPECT_EQ(ids.back(), kEosId) << text;
      for (size_t k = 0; k + 1 < ids.size(); ++k) {
        EXPECT_GT(ids[k], kEosId) << text;  // no padding, no EOS inside
        EXPECT_LT(ids[k], codec->vocabulary_size()) << text;
      }
      EXPECT_EQ(codec->decode(ids), text);
    }
  }
  // Unseen text round-trips too when its characters are known; fewer pieces than characters.
  const std::string text = "Der Hund schläft, weil die Katze den Käse isst.";
  const TokenIds ids = codec->encode(text);
  EXPECT_LT(ids.size(), text.size() / 2);
  EXPECT_EQ(codec->decode(ids), text);
}

TEST_F(SentencePieceTest, IdsFollowTheT2tConvention) {
  const std::unique_ptr<SubwordCodec> codec = load_sentencepiece_codec(model_file());
  EXPECT_EQ(codec->encode(""), TokenIds{kEosId});
  const std::string text = "The dog sleeps.";
  TokenIds ids = codec->encode(text);
  // Decoding stops at the first EOS and skips padding.
  TokenIds padded = {kPadId};
  padded.insert(padded.end(), ids.begin(), ids.end());
  padded.insert(padded.end(), {kPadId, 5, 6, kEosId});
  EXPECT_EQ(codec->decode(padded), text);
  ids.pop_back();
  EXPECT_EQ(codec->decode(ids), text);  // no EOS: up to the end
  EXPECT_EQ(codec->decode({kEosId}), "");
  EXPECT_EQ(codec->decode({kPadId, kPadId}), "");
  // Ids beyond the vocabulary (padded embedding rows) are skipped.
  TokenIds beyond = codec->encode(text);
  beyond.insert(beyond.begin() + 1, {static_cast<int32_t>(codec->vocabulary_size()), -4});
  EXPECT_EQ(codec->decode(beyond), text);
  // A character the corpus never had is the unknown id 2.
  const TokenIds unknown = codec->encode("Hund \xE6\x97\xA5");
  EXPECT_NE(std::find(unknown.begin(), unknown.end(), 2), unknown.end());
}

TEST_F(SentencePieceTest, TrainingIsDeterministic) {
  const fs::path folder = fresh_test_folder("mlh_wmt_sentencepiece_test");
  SentencePieceTraining training;
  training.vocabulary_size = kVocabularySize;
  train_sentencepiece_model(text_files(), folder / "again", training);
  EXPECT_EQ(contents_of(folder / "again.model"), contents_of(model_file()));
}

TEST_F(SentencePieceTest, VocabularySizeIsASoftLimit) {
  const fs::path folder = fresh_test_folder("mlh_wmt_sentencepiece_test");
  SentencePieceTraining training;
  training.vocabulary_size = 20000;  // far more than 1500 pairs hold
  train_sentencepiece_model(text_files(), folder / "big", training);
  const std::unique_ptr<SubwordCodec> codec = load_sentencepiece_codec(folder / "big.model");
  EXPECT_LT(codec->vocabulary_size(), 20000);
  EXPECT_GT(codec->vocabulary_size(), kVocabularySize);
}

TEST_F(SentencePieceTest, TrainingErrorsAreUserErrors) {
  const fs::path folder = fresh_test_folder("mlh_wmt_sentencepiece_test");
  SentencePieceTraining training;
  training.vocabulary_size = kVocabularySize;
  const fs::path missing = folder / "missing.txt";
  EXPECT_THAT(user_error_of([&] { train_sentencepiece_model({missing}, folder / "m", training); }),
              HasSubstr(missing.string()));

  std::ofstream(folder / "blank.txt") << "\n\n";
  EXPECT_THAT(user_error_of([&] {
                train_sentencepiece_model({folder / "blank.txt"}, folder / "m", training);
              }),
              HasSubstr((folder / "blank.txt").string() + " hold no text"));

  training.vocabulary_size = 3;
  EXPECT_THAT(
      user_error_of([&] { train_sentencepiece_model(text_files(), folder / "m", training); }),
      HasSubstr("vocabulary_size is 3"));
  // Fewer pieces than the corpus has characters.
  training.vocabulary_size = 20;
  EXPECT_THAT(
      user_error_of([&] { train_sentencepiece_model(text_files(), folder / "m", training); }),
      HasSubstr(text_files()[0].string()));
  EXPECT_FALSE(fs::exists(folder / "m.model"));
  EXPECT_FALSE(fs::exists(folder / "m.model.partial"));
}

TEST_F(SentencePieceTest, LoadErrorsNameTheFile) {
  const fs::path folder = fresh_test_folder("mlh_wmt_sentencepiece_test");
  const fs::path missing = folder / "spm.model";
  EXPECT_THAT(user_error_of([&] { load_sentencepiece_codec(missing); }),
              HasSubstr(missing.string()));

  const fs::path text = folder / "text.model";
  std::ofstream(text) << "this is not a SentencePiece model\n";
  EXPECT_THAT(user_error_of([&] { load_sentencepiece_codec(text); }),
              HasSubstr(text.string() + ": is not a SentencePiece model"));

  const fs::path empty = folder / "empty.model";
  std::ofstream{empty};
  EXPECT_THAT(user_error_of([&] { load_sentencepiece_codec(empty); }), HasSubstr(empty.string()));

  EXPECT_THAT(user_error_of([&] { load_sentencepiece_codec(folder); }), HasSubstr(folder.string()));
}

}  // namespace
}  // namespace mlh::wmt
