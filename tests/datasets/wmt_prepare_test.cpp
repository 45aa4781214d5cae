#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "datasets/wmt/layout.h"
#include "datasets/wmt/parallel_text.h"
#include "datasets/wmt/prepare.h"
#include "datasets/wmt/sentencepiece_codec.h"
#include "datasets/wmt/synthetic_corpus.h"
#include "datasets/wmt/tfrecord.h"
#include "tests/test_files.h"
#include "tests/user_error_of.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_files::contents_of;
using testing_files::fresh_test_folder;

constexpr int64_t kPairs = 600;

fs::path test_folder() { return fresh_test_folder("mlh_wmt_prepare_test"); }

std::vector<std::string> lines_of(const fs::path& file) {
  std::vector<std::string> lines;
  std::istringstream in(contents_of(file));
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

PrepareOptions small_options(const fs::path& folder) {
  SyntheticCorpusSpec spec;
  spec.pairs = kPairs;
  spec.seed = 9;
  PrepareOptions options;
  options.source_file = folder / "raw" / "train.en";
  options.target_file = folder / "raw" / "train.de";
  write_synthetic_parallel_corpus(spec, options.source_file, options.target_file);
  options.out_dir = folder / "data";
  options.vocabulary_size = 400;
  options.dev_pairs = 50;
  options.test_pairs = 40;
  options.seed = 2;
  return options;
}

void write_file(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
}

TEST(ParallelText, ReadsLinePairs) {
  const fs::path folder = test_folder();
  // A byte order mark, CRLF line ends and a last line without '\n' on one side.
  write_file(folder / "a.en",
             "\xEF\xBB\xBFThe dog sleeps.\r\nThe cat eats.\r\n\t \r\nA bird sings.");
  write_file(folder / "a.de", "Der Hund schläft.\nDie Katze isst.\nLeer.\nEin Vogel singt.\n");
  const ParallelText text = read_parallel_text(folder / "a.en", folder / "a.de");
  EXPECT_EQ(text.source,
            (std::vector<std::string>{"The dog sleeps.", "The cat eats.", "A bird sings."}));
  EXPECT_EQ(text.target,
            (std::vector<std::string>{"Der Hund schläft.", "Die Katze isst.", "Ein Vogel singt."}));
  EXPECT_EQ(text.dropped_empty_pairs, 1);
}

TEST(ParallelText, BadTextNamesFileAndLine) {
  const fs::path folder = test_folder();
  write_file(folder / "a.en", "one\ntwo\nthree\n");
  write_file(folder / "latin1.de", "eins\nzwei\ndrei \xE4\n");
  EXPECT_THAT(user_error_of([&] { read_parallel_text(folder / "a.en", folder / "latin1.de"); }),
              HasSubstr((folder / "latin1.de").string() + ":3: invalid UTF-8 at byte 6"));
  write_file(folder / "overlong.de", "eins\n\xC0\xAF\ndrei\n");
  EXPECT_THAT(user_error_of([&] { read_parallel_text(folder / "a.en", folder / "overlong.de"); }),
              HasSubstr((folder / "overlong.de").string() + ":2: invalid UTF-8"));
  write_file(folder / "nul.de", std::string("eins\nzw\0ei\ndrei\n", 16));
  EXPECT_THAT(user_error_of([&] { read_parallel_text(folder / "a.en", folder / "nul.de"); }),
              HasSubstr((folder / "nul.de").string() + ":2: holds a NUL byte"));
  EXPECT_THAT(user_error_of([&] { read_parallel_text(folder / "a.en", folder); }),
              HasSubstr(folder.string() + ": is a folder"));
  EXPECT_THAT(user_error_of([&] { read_parallel_text(folder / "missing.en", folder / "a.en"); }),
              HasSubstr((folder / "missing.en").string() + ": no such text file"));
}

TEST(ParallelText, WriteLinesCreatesFolders) {
  const fs::path folder = test_folder();
  write_lines(folder / "deep" / "er" / "lines.txt", {"eins", "", "drei"});
  EXPECT_EQ(contents_of(folder / "deep" / "er" / "lines.txt"), "eins\n\ndrei\n");
  write_file(folder / "file", "x");
  EXPECT_THAT(user_error_of([&] { write_lines(folder / "file" / "lines.txt", {"a"}); }),
              HasSubstr((folder / "file" / "lines.txt").string()));
}

TEST(PrepareTranslationData, WritesAFolderTheLoaderReads) {
  const fs::path folder = test_folder();
  const PrepareOptions options = small_options(folder);
  const PrepareSummary summary = prepare_translation_data(options);

  EXPECT_EQ(summary.read_pairs, kPairs);
  EXPECT_EQ(summary.dropped_empty_pairs, 0);
  EXPECT_EQ(summary.train_pairs, kPairs - 90);
  EXPECT_EQ(summary.dev_pairs, 50);
  EXPECT_EQ(summary.test_pairs, 40);
  EXPECT_GT(summary.vocabulary_size, 100);
  EXPECT_LE(summary.vocabulary_size, 400);
  EXPECT_GT(summary.train_source_tokens, 2 * summary.train_pairs);
  EXPECT_GT(summary.train_target_tokens, 2 * summary.train_pairs);
  EXPECT_FALSE(fs::exists(folder / "data.incomplete"));

  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(options.out_dir)) {
    files.insert(entry.path().filename().string());
  }
  EXPECT_EQ(files, (std::set<std::string>{
                       kSentencePieceModelFile, "wmt32k-encoded-train-00001-of-00001",
                       "wmt32k-encoded-dev-00001-of-00001", kTestSourceFile, kTestReferenceFile}));

  const std::unique_ptr<SubwordCodec> codec =
      load_sentencepiece_codec(options.out_dir / kSentencePieceModelFile);
  EXPECT_EQ(codec->vocabulary_size(), summary.vocabulary_size);
  const std::vector<fs::path> train_files =
      encoded_shard_files(options.out_dir, kEncodedPrefix, kTrainSplit);
  const std::vector<fs::path> dev_files =
      encoded_shard_files(options.out_dir, kEncodedPrefix, kDevSplit);
  ASSERT_EQ(train_files.size(), 1u);
  ASSERT_EQ(dev_files.size(), 1u);
  const std::vector<EncodedPair> train =
      read_encoded_examples(train_files[0], codec->vocabulary_size());
  const std::vector<EncodedPair> dev =
      read_encoded_examples(dev_files[0], codec->vocabulary_size());
  ASSERT_EQ(static_cast<int64_t>(train.size()), summary.train_pairs);
  ASSERT_EQ(static_cast<int64_t>(dev.size()), summary.dev_pairs);
  int64_t source_tokens = 0;
  for (const EncodedPair& pair : train) {
    ASSERT_FALSE(pair.source.empty());
    EXPECT_EQ(pair.source.back(), kEosId);
    EXPECT_EQ(pair.target.back(), kEosId);
    source_tokens += static_cast<int64_t>(pair.source.size());
  }
  EXPECT_EQ(source_tokens, summary.train_source_tokens);

  // Every split decodes to lines of the corpus; the splits are disjoint and cover it.
  const std::vector<std::string> source = lines_of(options.source_file);
  const std::vector<std::string> target = lines_of(options.target_file);
  std::multiset<std::string> seen;
  for (const EncodedPair& pair : train) {
    const std::string text = codec->decode(pair.source);
    const auto at = std::find(source.begin(), source.end(), text);
    ASSERT_NE(at, source.end()) << text;
    EXPECT_EQ(codec->decode(pair.target), target[static_cast<size_t>(at - source.begin())]);
    seen.insert(text);
  }
  for (const EncodedPair& pair : dev) seen.insert(codec->decode(pair.source));
  const std::vector<std::string> test_source = lines_of(options.out_dir / kTestSourceFile);
  const std::vector<std::string> test_reference = lines_of(options.out_dir / kTestReferenceFile);
  ASSERT_EQ(test_source.size(), 40u);
  ASSERT_EQ(test_reference.size(), 40u);
  for (size_t i = 0; i < test_source.size(); ++i) {
    const auto at = std::find(source.begin(), source.end(), test_source[i]);
    ASSERT_NE(at, source.end());
    EXPECT_EQ(test_reference[i], target[static_cast<size_t>(at - source.begin())]);
    seen.insert(test_source[i]);
  }
  EXPECT_EQ(seen, std::multiset<std::string>(source.begin(), source.end()));

  const std::string description = describe(summary, options.out_dir);
  EXPECT_THAT(description, HasSubstr("read 600 sentence pairs"));
  EXPECT_THAT(description, HasSubstr(options.out_dir.string()));
  EXPECT_EQ(std::count(description.begin(), description.end(), '\n'), 2);
}

TEST(PrepareTranslationData, HeldOutDrawFollowsTheSeed) {
  const fs::path folder = test_folder();
  PrepareOptions options = small_options(folder);
  options.vocabulary_size = 200;
  prepare_translation_data(options);
  const std::string first = contents_of(options.out_dir / kTestSourceFile);
  options.out_dir = folder / "again";
  prepare_translation_data(options);
  EXPECT_EQ(contents_of(options.out_dir / kTestSourceFile), first);
  EXPECT_EQ(contents_of(options.out_dir / kSentencePieceModelFile),
            contents_of(folder / "data" / kSentencePieceModelFile));
  options.out_dir = folder / "other";
  options.seed = 3;
  prepare_translation_data(options);
  EXPECT_NE(contents_of(options.out_dir / kTestSourceFile), first);
}

TEST(PrepareTranslationData, DropsPairsWithAnEmptySideAndAcceptsAnEmptyOutFolder) {
  const fs::path folder = test_folder();
  write_file(folder / "a.en",
             "The dog sleeps.\n\nThe cat eats.\n \nA bird sings.\nThe man reads.\n");
  write_file(folder / "a.de",
             "Der Hund schläft.\nLeer.\nDie Katze isst.\nDa.\n\nDer Mann liest.\n");
  fs::create_directories(folder / "out");
  PrepareOptions options;
  options.source_file = folder / "a.en";
  options.target_file = folder / "a.de";
  options.out_dir = folder / "out";
  options.vocabulary_size = 60;
  options.dev_pairs = 1;
  options.test_pairs = 1;
  const PrepareSummary summary = prepare_translation_data(options);
  EXPECT_EQ(summary.read_pairs, 6);
  EXPECT_EQ(summary.dropped_empty_pairs, 3);
  EXPECT_EQ(summary.train_pairs, 1);
  EXPECT_THAT(describe(summary, options.out_dir), HasSubstr("dropped 3 with an empty side"));
  EXPECT_EQ(lines_of(folder / "out" / kTestSourceFile).size(), 1u);
}

TEST(PrepareTranslationData, LineCountMismatchNamesBothCounts) {
  const fs::path folder = test_folder();
  write_file(folder / "a.en", "one\ntwo\nthree\n");
  write_file(folder / "a.de", "eins\nzwei\n");
  PrepareOptions options;
  options.source_file = folder / "a.en";
  options.target_file = folder / "a.de";
  options.out_dir = folder / "out";
  const std::string message = user_error_of([&] { prepare_translation_data(options); });
  EXPECT_THAT(message, HasSubstr((folder / "a.en").string() + " has 3 lines"));
  EXPECT_THAT(message, HasSubstr((folder / "a.de").string() + " has 2"));
  EXPECT_FALSE(fs::exists(folder / "out"));
  EXPECT_FALSE(fs::exists(folder / "out.incomplete"));
}

TEST(PrepareTranslationData, CorpusOfEmptyPairsIsAUserError) {
  const fs::path folder = test_folder();
  write_file(folder / "a.en", "one\n\n \n");
  write_file(folder / "a.de", "\nzwei\n\t\n");
  PrepareOptions options;
  options.source_file = folder / "a.en";
  options.target_file = folder / "a.de";
  options.out_dir = folder / "out";
  EXPECT_THAT(user_error_of([&] { prepare_translation_data(options); }),
              HasSubstr("no sentence pair"));
  EXPECT_FALSE(fs::exists(folder / "out"));
}

TEST(PrepareTranslationData, TooFewPairsIsAUserError) {
  const fs::path folder = test_folder();
  write_file(folder / "a.en", "one\ntwo\nthree\n");
  write_file(folder / "a.de", "eins\nzwei\ndrei\n");
  PrepareOptions options;
  options.source_file = folder / "a.en";
  options.target_file = folder / "a.de";
  options.out_dir = folder / "out";
  options.dev_pairs = 2;
  options.test_pairs = 1;
  const std::string message = user_error_of([&] { prepare_translation_data(options); });
  EXPECT_THAT(message, HasSubstr("hold 3 sentence pairs"));
  EXPECT_THAT(message, HasSubstr("dev_pairs 2 + test_pairs 1 + 1"));
  EXPECT_FALSE(fs::exists(folder / "out"));
  EXPECT_FALSE(fs::exists(folder / "out.incomplete"));
}

TEST(PrepareTranslationData, OptionErrorsAreUserErrors) {
  const fs::path folder = test_folder();
  write_file(folder / "a.en", "one\ntwo\n");
  write_file(folder / "a.de", "eins\nzwei\n");
  PrepareOptions options;
  options.source_file = folder / "a.en";
  options.target_file = folder / "a.de";
  options.out_dir = folder / "out";
  options.dev_pairs = -1;
  EXPECT_THAT(user_error_of([&] { prepare_translation_data(options); }),
              HasSubstr("dev_pairs is -1"));
  options.dev_pairs = 0;
  options.test_pairs = -2;
  EXPECT_THAT(user_error_of([&] { prepare_translation_data(options); }),
              HasSubstr("test_pairs is -2"));

  options.test_pairs = 0;
  options.source_file = folder / "missing.en";
  EXPECT_THAT(user_error_of([&] { prepare_translation_data(options); }),
              HasSubstr((folder / "missing.en").string()));
}

TEST(PrepareTranslationData, NonEmptyOutFolderIsAUserError) {
  const fs::path folder = test_folder();
  write_file(folder / "a.en", "one\ntwo\n");
  write_file(folder / "a.de", "eins\nzwei\n");
  fs::create_directories(folder / "out");
  write_file(folder / "out" / "keep.txt", "mine");
  PrepareOptions options;
  options.source_file = folder / "a.en";
  options.target_file = folder / "a.de";
  options.out_dir = folder / "out";
  const std::string message = user_error_of([&] { prepare_translation_data(options); });
  EXPECT_THAT(message, HasSubstr((folder / "out").string()));
  EXPECT_THAT(message, HasSubstr("not empty"));
  EXPECT_EQ(contents_of(folder / "out" / "keep.txt"), "mine");
}

TEST(PrepareTranslationData, FailedTrainingLeavesNoFolder) {
  const fs::path folder = test_folder();
  const PrepareOptions options = [&] {
    PrepareOptions o = small_options(folder);
    o.vocabulary_size = 10;  // below the number of distinct characters
    return o;
  }();
  user_error_of([&] { prepare_translation_data(options); });
  EXPECT_FALSE(fs::exists(options.out_dir));
  EXPECT_FALSE(fs::exists(options.out_dir.string() + ".incomplete"));
}

}  // namespace
}  // namespace mlh::wmt
