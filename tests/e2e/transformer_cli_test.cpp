// The Transformer through the real binary on small inputs: `mlharness prepare` on a raw parallel
// corpus, a short run on the folder it wrote, the bench modes, and every bad translation input
// (one line, exit 2).
#include <nlohmann/json.hpp>

#include <map>

#include "compliance/log_reader.h"
#include "tests/e2e/cli_fixture.h"
#include "tests/e2e/counting_corpus.h"

namespace mlh {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class TransformerCli : public Cli {
 protected:
  // Prepares the counting corpus into `out` with a vocabulary of about `vocabulary` pieces.
  Outcome prepare(const std::string& out, int vocabulary = 120) {
    write_counting_corpus(dir_);
    return run("prepare --workload transformer --src corpus.en --tgt corpus.de --out " + out +
               " --vocabulary-size " + std::to_string(vocabulary) + " --dev-pairs 10 --test-pairs 20");
  }
  std::string run_on(const std::string& folder) {
    return "--workload transformer --config mini --set data_source=wmt --set data_path=" + folder +
           " --set max_epochs=1 --quiet";
  }
};

TEST_F(TransformerCli, PrepareWritesTheMlperfLayoutAndARunTrainsOnIt) {
  const Outcome prepared = prepare("wmt_small");
  ASSERT_EQ(prepared.exit_code, 0) << prepared.err;
  EXPECT_THAT(prepared.out, HasSubstr("data_path=wmt_small"));
  for (const char* name : {"spm.model", "wmt32k-encoded-train-00001-of-00001", "wmt32k-encoded-dev-00001-of-00001",
                           "newstest2014.en", "newstest2014.de"})
    EXPECT_TRUE(fs::exists(dir_ / "wmt_small" / name)) << name;

  const Outcome outcome = run(run_on("wmt_small") + " --seed 5", "", 300);
  ASSERT_TRUE(outcome.exit_code == 0 || outcome.exit_code == 1) << outcome.err;
  std::vector<fs::path> logs;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "results"))
    if (entry.path().extension() == ".txt") logs.push_back(entry.path());
  ASSERT_EQ(logs.size(), 1u);
  const ParsedLog log = read_log_file(logs.front().string());
  EXPECT_TRUE(log.errors.empty());
  std::map<std::string, LogRecord> records;
  for (const auto& r : log.records) records[r.key] = r;
  EXPECT_EQ(records["submission_benchmark"].value, "transformer");
  EXPECT_EQ(records["eval_samples"].value, 20);
  EXPECT_EQ(records["train_samples"].value, 270);
  EXPECT_EQ(records["opt_name"].value, "adam");
  EXPECT_EQ(records["opt_adam_epsilon"].value, 1e-9);
  EXPECT_EQ(records["max_sequence_length"].value, 64);
  EXPECT_EQ(records["max_sequence_length"].metadata["method"], "discard");
  EXPECT_TRUE(records["eval_accuracy"].value.is_number());
  EXPECT_EQ(records.count("mlharness_quality_baseline"), 1u);
}

TEST_F(TransformerCli, PrepareNamesBothLineCounts) {
  write("a.en", "one\ntwo\nthree\n");
  write("a.de", "eins\nzwei\n");
  expect_user_error("prepare --workload transformer --src a.en --tgt a.de --out x", "3");
  const Outcome outcome = run("prepare --workload transformer --src a.en --tgt a.de --out x");
  EXPECT_THAT(outcome.err, HasSubstr("2"));
  EXPECT_THAT(outcome.err, HasSubstr("a.en"));
  EXPECT_THAT(outcome.err, HasSubstr("a.de"));
  EXPECT_FALSE(fs::exists(dir_ / "x"));
}

TEST_F(TransformerCli, PrepareOfACorpusOfEmptyLines) {
  write("a.en", "\n \n\n");
  write("a.de", "eins\n\nzwei\n");
  expect_user_error("prepare --workload transformer --src a.en --tgt a.de --out x", "a.en");
  EXPECT_FALSE(fs::exists(dir_ / "x"));
}

TEST_F(TransformerCli, PrepareOfTooFewPairs) {
  write("a.en", "one\ntwo\nthree\n");
  write("a.de", "eins\nzwei\ndrei\n");
  expect_user_error("prepare --workload transformer --src a.en --tgt a.de --out x --dev-pairs 2 --test-pairs 2",
                    "pairs");
}

TEST_F(TransformerCli, PrepareNeedsItsFiles) {
  expect_user_error("prepare --workload transformer --src missing.en --tgt missing.de --out x", "missing.en");
  expect_user_error("prepare --workload transformer --src a.en", "--tgt");
  // Each workload binds its own prepare options: GNMT's BPE merges are not the Transformer's.
  expect_user_error("prepare --workload transformer --src a.en --tgt a.de --out x --bpe-merges 4", "bpe_merges");
  expect_user_error("prepare --workload transformer --src a.en stray", "unexpected argument 'stray'");
  const Outcome help = run("prepare --workload transformer --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--vocabulary-size"));
  EXPECT_THAT(help.out, Not(HasSubstr("--bpe-merges")));
}

TEST_F(TransformerCli, FolderWithoutAVocabulary) {
  ASSERT_EQ(prepare("wmt_small").exit_code, 0);
  fs::remove(dir_ / "wmt_small" / "spm.model");
  expect_user_error(run_on("wmt_small"), "holds no vocabulary");
}

TEST_F(TransformerCli, MissingDataFolder) { expect_user_error(run_on("nowhere"), "nowhere"); }

TEST_F(TransformerCli, VocabularyLargerThanTheEmbedding) {
  ASSERT_EQ(prepare("wmt_small").exit_code, 0);
  expect_user_error(run_on("wmt_small") + " --set vocabulary_size=10", "more than the model's embedding");
}

TEST_F(TransformerCli, EncodedIdOutsideTheVocabulary) {
  // The shards of the counting corpus next to the model of a two-letter corpus: ids beyond its end.
  ASSERT_EQ(prepare("counting", 120).exit_code, 0);
  std::string source, target;
  for (int i = 0; i < 40; ++i) {
    source += i % 2 ? "ab ba\n" : "ba ab ab\n";
    target += i % 2 ? "ba\n" : "ab ba\n";
  }
  write("letters.en", source);
  write("letters.de", target);
  ASSERT_EQ(run("prepare --workload transformer --src letters.en --tgt letters.de --out letters "
                "--vocabulary-size 8 --dev-pairs 10 --test-pairs 20")
                .exit_code,
            0);
  fs::copy_file(dir_ / "letters" / "spm.model", dir_ / "counting" / "spm.model", fs::copy_options::overwrite_existing);
  expect_user_error(run_on("counting"), "wmt32k-encoded-train-00001-of-00001");
}

TEST_F(TransformerCli, TruncatedRecordFile) {
  ASSERT_EQ(prepare("wmt_small").exit_code, 0);
  const fs::path shard = dir_ / "wmt_small" / "wmt32k-encoded-train-00001-of-00001";
  fs::resize_file(shard, fs::file_size(shard) - 7);
  expect_user_error(run_on("wmt_small"), "wmt32k-encoded-train-00001-of-00001");
}

TEST_F(TransformerCli, BadSettings) {
  expect_user_error("--workload transformer --config mini --set heads=3", "multiple of 'heads'");
  expect_user_error("--workload transformer --config mini --set length_policy=cut", "length_policy");
  expect_user_error("--workload transformer --set data_path=''", "data_path");
}

TEST_F(TransformerCli, BenchReportsTokensAndSentencesPerSecond) {
  const Outcome train = run("bench --workload transformer --config mini --batch-sizes 256 --warmup 1 --steps 2 --repeats 1");
  ASSERT_EQ(train.exit_code, 0) << train.err;
  EXPECT_THAT(train.out, HasSubstr(" tokens"));
  const Outcome decode =
      run("bench --workload transformer --config mini --inference --batch-sizes 2 --warmup 1 --steps 1 --repeats 1");
  ASSERT_EQ(decode.exit_code, 0) << decode.err;
  EXPECT_THAT(decode.out, HasSubstr(" sentences"));
  expect_user_error("bench --workload transformer --config mini --loader --batch-sizes 4", "--loader");
}

}  // namespace
}  // namespace mlh
