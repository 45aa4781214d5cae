// GNMT through the real binary on small inputs: `mlharness prepare --workload gnmt` on a raw
// parallel corpus (Moses tokens + joint BPE in the MLPerf file layout), a short run on the folder it
// wrote, the bench modes, and bad input (one line, exit 2).
#include <fstream>
#include <map>

#include "compliance/log_reader.h"
#include "tests/e2e/cli_fixture.h"
#include "tests/e2e/counting_corpus.h"

namespace mlh {
namespace {

using ::testing::HasSubstr;

class GnmtCli : public Cli {
 protected:
  Outcome prepare(const std::string& out, int merges = 40) {
    write_counting_corpus(dir_, 300, /*comma=*/true);
    return run("prepare --workload gnmt --src corpus.en --tgt corpus.de --out " + out + " --bpe-merges " +
               std::to_string(merges) + " --dev-pairs 10 --test-pairs 20");
  }
  std::string run_on(const std::string& folder) {
    return "--workload gnmt --config mini --set data_source=wmt16 --set data_path=" + folder +
           " --set max_epochs=1 --set global_batch_size=16 --quiet";
  }
  std::string read(const fs::path& file) {
    std::ifstream in(file);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_F(GnmtCli, PrepareWritesTheMlperfLayoutAndARunTrainsOnIt) {
  const Outcome prepared = prepare("wmt16_small");
  ASSERT_EQ(prepared.exit_code, 0) << prepared.err;
  EXPECT_THAT(prepared.out, HasSubstr("BPE vocabulary"));
  EXPECT_THAT(prepared.out, HasSubstr("data_path=wmt16_small"));
  const fs::path folder = dir_ / "wmt16_small";
  for (const char* name : {"train.tok.clean.bpe.32000.en", "train.tok.clean.bpe.32000.de",
                           "newstest_dev.tok.clean.bpe.32000.en", "newstest_dev.tok.clean.bpe.32000.de",
                           "newstest2014.tok.bpe.32000.en", "newstest2014.en", "newstest2014.de", "vocab.bpe.32000",
                           "bpe.32000"})
    EXPECT_TRUE(fs::exists(folder / name)) << name;
  // Moses tokens (the comma split off) cut into BPE pieces; the reference stays raw text.
  const std::string train = read(folder / "train.tok.clean.bpe.32000.de");
  EXPECT_THAT(train, HasSubstr(" , "));
  EXPECT_THAT(train, HasSubstr("@@ "));
  EXPECT_THAT(read(folder / "newstest2014.de"), HasSubstr(", und"));
  EXPECT_EQ(read(folder / "bpe.32000").rfind("#version: 0.2\n", 0), 0u);

  const Outcome outcome = run(run_on("wmt16_small") + " --seed 5", "", 300);
  ASSERT_TRUE(outcome.exit_code == 0 || outcome.exit_code == 1) << outcome.err;
  std::vector<fs::path> logs;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "results"))
    if (entry.path().extension() == ".txt") logs.push_back(entry.path());
  ASSERT_EQ(logs.size(), 1u);
  const ParsedLog log = read_log_file(logs.front().string());
  EXPECT_TRUE(log.errors.empty());
  std::map<std::string, LogRecord> records;
  for (const auto& r : log.records) records[r.key] = r;
  EXPECT_EQ(records["submission_benchmark"].value, "gnmt");
  EXPECT_EQ(records["eval_samples"].value, 20);
  EXPECT_EQ(records["global_batch_size"].value, 16);
  EXPECT_EQ(records["max_sequence_length"].value, 50);
  EXPECT_EQ(records["max_sequence_length"].metadata["method"], "discard");
  EXPECT_TRUE(records["eval_accuracy"].value.is_number());
  EXPECT_EQ(records.count("mlharness_quality_baseline"), 1u);
}

TEST_F(GnmtCli, FolderWithoutAVocabulary) {
  ASSERT_EQ(prepare("wmt16_small").exit_code, 0);
  fs::remove(dir_ / "wmt16_small" / "vocab.bpe.32000");
  expect_user_error(run_on("wmt16_small"), "vocab.bpe.32000");
}

TEST_F(GnmtCli, TestFilesOfDifferentLengths) {
  ASSERT_EQ(prepare("wmt16_small").exit_code, 0);
  std::ofstream(dir_ / "wmt16_small" / "newstest2014.de", std::ios::app) << "noch ein Satz\n";
  expect_user_error(run_on("wmt16_small"), "newstest2014.de");
}

TEST_F(GnmtCli, MissingDataFolder) { expect_user_error(run_on("nowhere"), "nowhere"); }

TEST_F(GnmtCli, PrepareNamesBothLineCountsAndBadMerges) {
  write("a.en", "one\ntwo\nthree\n");
  write("a.de", "eins\nzwei\n");
  expect_user_error("prepare --workload gnmt --src a.en --tgt a.de --out x", "a.de");
  write_counting_corpus(dir_, 300, /*comma=*/true);
  expect_user_error("prepare --workload gnmt --src corpus.en --tgt corpus.de --out x --bpe-merges 0", "bpe_merges");
  EXPECT_FALSE(fs::exists(dir_ / "x"));
}

TEST_F(GnmtCli, BadSettings) {
  expect_user_error("--workload gnmt --config mini --set beam_size=0", "beam_size");
  expect_user_error("--workload gnmt --config mini --set length_penalty_alpha=-0.6", "length_penalty_alpha");
  expect_user_error("--workload gnmt --config mini --set coverage_penalty_beta=-0.1", "coverage_penalty_beta");
  expect_user_error("--workload gnmt --config mini --set encoder_layers=1", "encoder_layers");
  expect_user_error("--workload gnmt --config mini --set length_policy=cut", "length_policy");
  expect_user_error("--workload gnmt --set data_path=''", "data_path");
}

TEST_F(GnmtCli, BenchReportsTokensAndSentencesPerSecond) {
  const Outcome train = run("bench --workload gnmt --config mini --batch-sizes 16 --warmup 1 --steps 2 --repeats 1");
  ASSERT_EQ(train.exit_code, 0) << train.err;
  EXPECT_THAT(train.out, HasSubstr(" tokens"));
  const Outcome decode =
      run("bench --workload gnmt --config mini --inference --batch-sizes 2 --warmup 1 --steps 1 --repeats 1");
  ASSERT_EQ(decode.exit_code, 0) << decode.err;
  EXPECT_THAT(decode.out, HasSubstr(" sentences"));
  expect_user_error("bench --workload gnmt --config mini --loader --batch-sizes 4", "--loader");
  // The full recipe's batch is per rank (global_batch_size 0, local_batch_size 128): bench's default.
  const Outcome recipe = run("bench --workload gnmt --set hidden_size=64 --set encoder_layers=2 --set decoder_layers=2 "
                             "--set bench_sentence_length=4 --set precision=fp32 "
                             "--warmup 0 --steps 1 --repeats 1");
  ASSERT_EQ(recipe.exit_code, 0) << recipe.err;
  EXPECT_THAT(recipe.out, HasSubstr("     128 "));
}

}  // namespace
}  // namespace mlh
