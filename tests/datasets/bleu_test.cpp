// The corpus cases' goldens are made by running the references on the inputs of
// tests/datasets/data/bleu/corpus_cases.json: tools/make_bleu_goldens.py writes
// tests/datasets/data/bleu/goldens.json with sacreBLEU v1.2.10 (corpus_bleu with smooth="exp";
// tokenize "intl" and "13a", lowercased or not) and the MLPerf Transformer's compute_bleu.py
// (bleu_tokenize on lowercased lines into utils/metrics.py compute_bleu, the uncased path of
// bleu_wrapper), under Python 3.11 (Unicode 14). From the repository root, with the venv and the
// mlcommons/training checkout that the script's docstring sets up (--check compares instead of
// writing), with T = <training>/retired_benchmarks/transformer/tensorflow/transformer:
//   /root/.cache/mlharness/sacrebleu-1.2.10/bin/python tools/make_bleu_goldens.py --mlperf-transformer T
// The tokenizer cases, the per-line counts and the other single values below stay written in the
// tests; the script does not regenerate them.
// Counts are {matches[4], possible[4], hypothesis_length, reference_length}.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "datasets/wmt/bleu.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"
#include "tests/user_error_of.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;

constexpr double kBleuTolerance = 0.01;

using Counts = std::array<int64_t, BleuStatistics::kNumCounts>;
using Lines = std::vector<std::string>;
using Tokens = std::vector<std::string>;

// ---- tokenizers ----

struct TokenizeCase {
  std::string text;
  Tokens international;  // bleu_tokenize == tokenize_v14_international(...).split()
  Tokens mteval13a;      // tokenize_13a(...).split()
};

const std::vector<TokenizeCase> kTokenizeCases = {
    {"Hallo, Welt! „Zitat“ 1,000.5 €5 — ja… ¿qué? a\\b 2014.",
     {"Hallo", ",", "Welt", "!", "„", "Zitat", "“", "1,000.5", "€", "5", "—", "ja", "…", "¿", "qué",
      "?", "a\\b", "2014."},
     {"Hallo", ",", "Welt", "!", "„Zitat“", "1,000.5", "€5", "—", "ja…", "¿qué", "?", "a", "\\",
      "b", "2014", "."}},
    {"Der Preis stieg um 3,5 % auf 1.234,56 Euro (Stand: 12.03.2014).",
     {"Der", "Preis", "stieg", "um", "3,5", "%", "auf", "1.234,56", "Euro", "(", "Stand", ":",
      "12.03.2014", ")", "."},
     {"Der", "Preis", "stieg", "um", "3,5", "%", "auf", "1.234,56", "Euro", "(", "Stand", ":",
      "12.03.2014", ")", "."}},
    {"&quot;Hi&quot; &amp; <skipped> x&lt;y&gt;z it's e-mail 10-20 $100 a/b",
     {"&", "quot", ";", "Hi", "&", "quot", ";", "&", "amp", ";", "<", "skipped", ">", "x", "&",
      "lt", ";", "y", "&", "gt", ";", "z", "it", "'", "s", "e", "-", "mail", "10-20", "$", "100",
      "a", "/", "b"},
     {"\"", "Hi", "\"", "&", "x", "<", "y", ">", "z", "it's", "e-mail", "10", "-", "20", "$", "100",
      "a", "/", "b"}},
    {"Er sagte: »Nein!« – und ging... 'quoted' [x] {y} #tag @user ^caret ~tilde |pipe",
     {"Er", "sagte", ":", "»", "Nein", "!", "«", "–", "und", "ging", ".", ".", ".", "'", "quoted",
      "'", "[", "x", "]", "{", "y", "}", "#", "tag", "@", "user", "^", "caret", "~", "tilde", "|",
      "pipe"},
     {"Er", "sagte", ":", "»Nein", "!", "«", "–", "und", "ging", ".", ".", ".", "'quoted'", "[",
      "x", "]", "{", "y", "}", "#", "tag", "@", "user", "^", "caret", "~", "tilde", "|", "pipe"}},
    // Arabic-Indic and fullwidth digits are Nd (digits to intl, not to 13a); "，" is punctuation.
    {"٣,٤ und ３，５ und 3.-4",
     {"٣,٤", "und", "３，５", "und", "3", ".", "-", "4"},
     {"٣", ",", "٤", "und", "３，５", "und", "3", ".", "-4"}},
    // Python's whitespace: no-break, thin and ideographic spaces split; zero-width spaces do not.
    {"a\u00a0b\u2009c\td  e\u3000f\u200bg",
     {"a", "b", "c", "d", "e", "f\u200bg"},
     {"a", "b", "c", "d", "e", "f\u200bg"}},
    {"mid. end.5 .5 5. x.,y 1..2 a--b",
     {"mid", ".", "end", ".", "5", ".", "5", "5", ".", "x", ".", ",", "y", "1", ".", ".", "2", "a",
      "-", "-", "b"},
     {"mid", ".", "end", ".", "5", ".", "5", "5", ".", "x", ".", ",", "y", "1", ".", ".", "2",
      "a--b"}},
    {"Prima👍! 5+3=8 ½ 10°C ©2014 ™",
     {"Prima", "👍", "!", "5", "+", "3", "=", "8", "½", "10", "°", "C", "©", "2014", "™"},
     {"Prima👍", "!", "5", "+", "3", "=", "8", "½", "10°C", "©2014", "™"}},
};

TEST(BleuTokenize, InternationalMatchesT2tAndSacreBleu) {
  for (const auto& c : kTokenizeCases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(t2t_bleu_tokenize(c.text), c.international);
    EXPECT_EQ(sacrebleu_tokenize(c.text, SacreBleuTokenizer::kIntl), c.international);
  }
}

TEST(BleuTokenize, Mteval13aMatchesSacreBleu) {
  for (const auto& c : kTokenizeCases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(sacrebleu_tokenize(c.text, SacreBleuTokenizer::k13a), c.mteval13a);
  }
}

TEST(BleuTokenize, EmptyAndBlankTextHaveNoTokens) {
  for (const std::string text : {"", " ", " \t\u3000 "}) {
    EXPECT_TRUE(t2t_bleu_tokenize(text).empty());
    EXPECT_TRUE(sacrebleu_tokenize(text, SacreBleuTokenizer::kIntl).empty());
    EXPECT_TRUE(sacrebleu_tokenize(text, SacreBleuTokenizer::k13a).empty());
  }
}

// ---- corpus scores ----

struct Golden {
  double score;
  Counts counts;
};

struct CorpusCase {
  std::string name;
  Lines hypotheses;
  Lines references;
  Golden t2t;  // uncased
  Golden intl_lowercase, intl_cased, mteval13a_lowercase, mteval13a_cased;  // sacreBLEU
};

const fs::path kBleuData = fs::path(test_paths::source_dir()) / "tests/datasets/data/bleu";

nlohmann::json read_json(const fs::path& path) {
  if (!fs::exists(path)) throw std::runtime_error(path.string() + " is missing");
  return nlohmann::json::parse(testing_files::contents_of(path));
}

Golden golden_of(const nlohmann::json& entry) {
  Golden golden{entry.at("score").get<double>(), {}};
  const nlohmann::json& counts = entry.at("counts");
  if (counts.size() != golden.counts.size()) throw std::runtime_error("a golden without 10 counts");
  for (size_t k = 0; k < golden.counts.size(); ++k) golden.counts[k] = counts[k].get<int64_t>();
  return golden;
}

// The cases of corpus_cases.json with their goldens from goldens.json, which must name the same
// cases in the same order.
std::vector<CorpusCase> read_corpus_cases() {
  const std::string rerun = ": rerun tools/make_bleu_goldens.py";
  const nlohmann::json cases = read_json(kBleuData / "corpus_cases.json");
  const nlohmann::json goldens = read_json(kBleuData / "goldens.json");
  if (goldens.at("sacrebleu") != "1.2.10") throw std::runtime_error("goldens.json is not 1.2.10's");
  const nlohmann::json& golden_cases = goldens.at("cases");
  if (cases.empty() || golden_cases.size() != cases.size()) {
    throw std::runtime_error("goldens.json does not cover corpus_cases.json" + rerun);
  }
  std::vector<CorpusCase> result;
  for (size_t i = 0; i < cases.size(); ++i) {
    const nlohmann::json& golden = golden_cases[i];
    CorpusCase c;
    c.name = cases[i].at("name").get<std::string>();
    if (golden.at("name") != c.name) {
      throw std::runtime_error("goldens.json has " + golden.at("name").dump() +
                               " where corpus_cases.json has " + c.name + rerun);
    }
    c.hypotheses = cases[i].at("hypotheses").get<Lines>();
    c.references = cases[i].at("references").get<Lines>();
    c.t2t = golden_of(golden.at("t2t_uncased"));
    c.intl_lowercase = golden_of(golden.at("intl_lowercase"));
    c.intl_cased = golden_of(golden.at("intl_cased"));
    c.mteval13a_lowercase = golden_of(golden.at("13a_lowercase"));
    c.mteval13a_cased = golden_of(golden.at("13a_cased"));
    result.push_back(std::move(c));
  }
  return result;
}

const std::vector<CorpusCase>& corpus_cases() {
  static const std::vector<CorpusCase> cases = read_corpus_cases();
  return cases;
}

const CorpusCase& corpus_case(const std::string& name) {
  for (const auto& c : corpus_cases()) {
    if (c.name == name) return c;
  }
  throw std::logic_error("no corpus case " + name);
}

BleuStatistics summed_t2t_statistics(const Lines& hypotheses, const Lines& references) {
  BleuStatistics total;
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    total.add(t2t_bleu_statistics(hypotheses[i], references[i]));
  }
  return total;
}

BleuStatistics summed_sacrebleu_statistics(const Lines& hypotheses, const Lines& references,
                                           const SacreBleuOptions& options) {
  BleuStatistics total;
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    total.add(sacrebleu_statistics(hypotheses[i], references[i], options));
  }
  return total;
}

TEST(T2tBleu, CorpusMatchesMlperfComputeBleu) {
  for (const auto& c : corpus_cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_NEAR(t2t_corpus_bleu(c.hypotheses, c.references), c.t2t.score, kBleuTolerance);
    const BleuStatistics statistics = summed_t2t_statistics(c.hypotheses, c.references);
    EXPECT_EQ(statistics.counts(), c.t2t.counts);
    EXPECT_NEAR(t2t_bleu(BleuStatistics::from_counts(c.t2t.counts)), c.t2t.score, kBleuTolerance);
  }
}

TEST(SacreBleu, CorpusMatchesSacreBleu1210) {
  struct Flavour {
    const char* name;
    SacreBleuOptions options;
    Golden CorpusCase::*golden;
  };
  const Flavour flavours[] = {
      {"intl -lc", {SacreBleuTokenizer::kIntl, true}, &CorpusCase::intl_lowercase},
      {"intl", {SacreBleuTokenizer::kIntl, false}, &CorpusCase::intl_cased},
      {"13a -lc", {SacreBleuTokenizer::k13a, true}, &CorpusCase::mteval13a_lowercase},
      {"13a", {SacreBleuTokenizer::k13a, false}, &CorpusCase::mteval13a_cased},
  };
  for (const auto& c : corpus_cases()) {
    for (const auto& flavour : flavours) {
      SCOPED_TRACE(c.name + " --tokenize " + flavour.name);
      const Golden& golden = c.*flavour.golden;
      EXPECT_NEAR(sacrebleu_corpus_bleu(c.hypotheses, c.references, flavour.options), golden.score,
                  kBleuTolerance);
      const BleuStatistics statistics =
          summed_sacrebleu_statistics(c.hypotheses, c.references, flavour.options);
      EXPECT_EQ(statistics.counts(), golden.counts);
      EXPECT_NEAR(sacrebleu_bleu(BleuStatistics::from_counts(golden.counts)), golden.score,
                  kBleuTolerance);
    }
  }
}

TEST(SacreBleu, DefaultsAreGnmtIntlLowercase) {
  const CorpusCase& c = corpus_case("german_news");
  EXPECT_NEAR(sacrebleu_corpus_bleu(c.hypotheses, c.references), c.intl_lowercase.score,
              kBleuTolerance);
  // `sacrebleu --score-only -lc --tokenize intl ref < hyp` printed 53.25 for these files.
  EXPECT_NEAR(sacrebleu_corpus_bleu(c.hypotheses, c.references), 53.25, 0.005);
}

TEST(BleuStatisticsPerSentence, MatchTheReferencesLineByLine) {
  const CorpusCase& c = corpus_case("german_news");
  const std::vector<Counts> t2t = {{9, 6, 5, 4, 12, 11, 10, 9, 12, 12},
                                   {11, 6, 3, 1, 12, 11, 10, 9, 12, 12},
                                   {14, 10, 7, 5, 14, 13, 12, 11, 14, 14},
                                   {7, 4, 2, 1, 9, 8, 7, 6, 9, 9},
                                   {8, 6, 4, 2, 8, 7, 6, 5, 8, 9}};
  const std::vector<Counts> mteval13a_cased = {{9, 6, 5, 4, 12, 11, 10, 9, 12, 12},
                                               {9, 4, 1, 0, 12, 11, 10, 9, 12, 12},
                                               {12, 8, 6, 5, 14, 13, 12, 11, 14, 14},
                                               {7, 4, 2, 1, 9, 8, 7, 6, 9, 9},
                                               {10, 8, 6, 4, 10, 9, 8, 7, 10, 11}};
  const SacreBleuOptions cased_13a{SacreBleuTokenizer::k13a, false};
  for (size_t i = 0; i < c.hypotheses.size(); ++i) {
    SCOPED_TRACE("line " + std::to_string(i + 1));
    EXPECT_EQ(t2t_bleu_statistics(c.hypotheses[i], c.references[i]).counts(), t2t[i]);
    // The t2t and sacreBLEU intl -lc statistics agree on lines without trailing whitespace.
    EXPECT_EQ(sacrebleu_statistics(c.hypotheses[i], c.references[i]).counts(), t2t[i]);
    EXPECT_EQ(sacrebleu_statistics(c.hypotheses[i], c.references[i], cased_13a).counts(),
              mteval13a_cased[i]);
  }
  const CorpusCase& trailing = corpus_case("trailing_space_year");
  EXPECT_EQ(t2t_bleu_statistics(trailing.hypotheses[0], trailing.references[0]).counts(),
            (Counts{2, 1, 0, 0, 4, 3, 2, 1, 4, 3}));
  EXPECT_EQ(sacrebleu_statistics(trailing.hypotheses[0], trailing.references[0]).counts(),
            (Counts{3, 2, 1, 0, 3, 2, 1, 0, 3, 3}));
}

// Two ranks each score a shard of the lines; the all-reduce sums their flat counts.
TEST(BleuStatisticsPerSentence, ShardsAllReduceToTheCorpusScore) {
  for (const char* name : {"german_news", "unicode_punctuation", "empty_hypothesis_line"}) {
    SCOPED_TRACE(name);
    const CorpusCase& c = corpus_case(name);
    std::array<Lines, 2> shard_hypotheses, shard_references;
    for (size_t i = 0; i < c.hypotheses.size(); ++i) {
      shard_hypotheses[i % 2].push_back(c.hypotheses[i]);
      shard_references[i % 2].push_back(c.references[i]);
    }
    Counts t2t_sum{}, sacrebleu_sum{};
    for (int rank = 0; rank < 2; ++rank) {
      const Counts t2t_counts =
          summed_t2t_statistics(shard_hypotheses[rank], shard_references[rank]).counts();
      const Counts sacrebleu_counts =
          summed_sacrebleu_statistics(shard_hypotheses[rank], shard_references[rank], {}).counts();
      for (int k = 0; k < BleuStatistics::kNumCounts; ++k) {
        t2t_sum[k] += t2t_counts[k];
        sacrebleu_sum[k] += sacrebleu_counts[k];
      }
    }
    EXPECT_EQ(t2t_sum, c.t2t.counts);
    EXPECT_EQ(sacrebleu_sum, c.intl_lowercase.counts);
    EXPECT_NEAR(t2t_bleu(BleuStatistics::from_counts(t2t_sum)), c.t2t.score, kBleuTolerance);
    EXPECT_NEAR(sacrebleu_bleu(BleuStatistics::from_counts(sacrebleu_sum)), c.intl_lowercase.score,
                kBleuTolerance);
  }
}

TEST(BleuStatistics, FlatCountsRoundTripAndAdd) {
  BleuStatistics a;
  a.matches = {5, 3, 2, 1};
  a.possible = {7, 6, 5, 4};
  a.hypothesis_length = 7;
  a.reference_length = 9;
  EXPECT_EQ(a.counts(), (Counts{5, 3, 2, 1, 7, 6, 5, 4, 7, 9}));
  EXPECT_EQ(BleuStatistics::from_counts(a.counts()), a);

  BleuStatistics b = BleuStatistics::from_counts({1, 0, 0, 0, 2, 1, 0, 0, 2, 3});
  EXPECT_NE(a, b);
  b.add(a);
  EXPECT_EQ(b.counts(), (Counts{6, 3, 2, 1, 9, 7, 5, 4, 9, 12}));
  EXPECT_EQ(BleuStatistics{}.counts(), Counts{});
}

TEST(T2tBleu, ScoreIsRoundedThroughFloat32) {
  const double score = t2t_bleu(BleuStatistics::from_counts(corpus_case("german_news").t2t.counts));
  EXPECT_EQ(static_cast<double>(static_cast<float>(score)), score);
}

// ---- edge cases ----

TEST(T2tBleu, EmptyInputScoresZero) {
  // MLPerf's compute_bleu raises ZeroDivisionError on these; T2T's later compute_bleu returns 0.
  EXPECT_EQ(t2t_corpus_bleu({}, {}), 0.0);
  EXPECT_EQ(t2t_corpus_bleu({""}, {"Die Katze"}), 0.0);
  EXPECT_EQ(t2t_corpus_bleu({""}, {""}), 0.0);
  EXPECT_EQ(t2t_bleu(BleuStatistics{}), 0.0);
}

TEST(T2tBleu, NoReferenceTokensMeansNoBrevityPenalty) {
  // Hand-computed from the contract: no matches, smoothed precisions 1/8, 1/12, 1/16, 1/16.
  const double expected = 100.0 * std::pow(1.0 / 8 / 12 / 16 / 16, 0.25);  // 7.9868
  EXPECT_NEAR(t2t_corpus_bleu({"a b c d"}, {""}), expected, kBleuTolerance);
}

TEST(SacreBleu, EmptyInputScoresZero) {
  for (const SacreBleuTokenizer tokenizer : {SacreBleuTokenizer::kIntl, SacreBleuTokenizer::k13a}) {
    for (const bool lowercase : {true, false}) {
      const SacreBleuOptions options{tokenizer, lowercase};
      EXPECT_EQ(sacrebleu_corpus_bleu({}, {}, options), 0.0);
      EXPECT_EQ(sacrebleu_corpus_bleu({""}, {"Die Katze"}, options), 0.0);
      EXPECT_EQ(sacrebleu_corpus_bleu({""}, {""}, options), 0.0);
      // sacreBLEU 1.2.10: 7.986788803078408 (no reference tokens, so no brevity penalty).
      EXPECT_NEAR(sacrebleu_corpus_bleu({"a b c d"}, {""}, options), 7.986789, kBleuTolerance);
    }
  }
  EXPECT_EQ(sacrebleu_bleu(BleuStatistics{}), 0.0);
}

// ---- bad input ----

TEST(BleuErrors, MismatchedLineCountsThrowUserError) {
  const std::string t2t = user_error_of([] { t2t_corpus_bleu({"a", "b"}, {"a"}); });
  EXPECT_NE(t2t.find("2 hypothesis lines but 1 reference lines"), std::string::npos) << t2t;
  const std::string sacre = user_error_of([] { sacrebleu_corpus_bleu({"a"}, {"a", "b", "c"}); });
  EXPECT_NE(sacre.find("1 hypothesis lines but 3 reference lines"), std::string::npos) << sacre;
}

TEST(BleuErrors, InvalidUtf8ThrowsUserErrorNamingTheLine) {
  const Lines good = {"Die Katze.", "Der Hund."};
  for (const std::string bad : {"ab\xC3\x28", "\xED\xA0\x80 surrogate", "overlong \xC0\xAF",
                                "truncated \xE2\x82", "\xF4\x90\x80\x80 above U+10FFFF", "\xFF"}) {
    SCOPED_TRACE(bad);
    const Lines with_bad_line_2 = {"Die Katze.", bad};
    std::string message = user_error_of([&] { t2t_corpus_bleu(with_bad_line_2, good); });
    EXPECT_NE(message.find("hypothesis line 2"), std::string::npos) << message;
    EXPECT_NE(message.find("UTF-8"), std::string::npos) << message;
    message = user_error_of([&] { sacrebleu_corpus_bleu(good, with_bad_line_2); });
    EXPECT_NE(message.find("reference line 2"), std::string::npos) << message;
    user_error_of([&] { t2t_bleu_tokenize(bad); });
    user_error_of([&] { sacrebleu_tokenize(bad, SacreBleuTokenizer::k13a); });
    user_error_of([&] { t2t_bleu_statistics(bad, "x"); });
    user_error_of([&] { sacrebleu_statistics("x", bad); });
  }
}

}  // namespace
}  // namespace mlh::wmt
