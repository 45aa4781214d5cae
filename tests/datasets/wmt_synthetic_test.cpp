#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/user_error.h"
#include "datasets/wmt/synthetic_corpus.h"
#include "datasets/wmt/synthetic_lexicon.h"
#include "tests/test_files.h"
#include "tests/user_error_of.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_files::contents_of;
using testing_files::fresh_test_folder;

constexpr uint64_t kSeed = 1;

// Words without punctuation, ASCII letters lower-cased.
std::vector<std::string> words_of(const std::string& sentence) {
  std::vector<std::string> words;
  std::istringstream in(sentence);
  std::string word;
  while (in >> word) {
    while (!word.empty() && (word.back() == '.' || word.back() == ',' || word.back() == '?')) {
      word.pop_back();
    }
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!word.empty()) words.push_back(word);
  }
  return words;
}

int count_of(const std::string& text, const std::string& part) {
  int count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

std::vector<std::string> lines_of(const fs::path& file) {
  std::vector<std::string> lines;
  std::istringstream in(contents_of(file));
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

TEST(SyntheticCorpus, PairIsAPureFunctionOfSeedAndIndex) {
  for (int64_t i = 0; i < 200; ++i) {
    const TextPair a = synthetic_sentence_pair(kSeed, i);
    const TextPair b = synthetic_sentence_pair(kSeed, i);
    EXPECT_EQ(a.source, b.source);
    EXPECT_EQ(a.target, b.target);
  }
  // Out of order, the same.
  EXPECT_EQ(synthetic_sentence_pair(kSeed, 150).source, synthetic_sentence_pair(kSeed, 150).source);
}

TEST(SyntheticCorpus, OtherSeedOtherSentences) {
  int differ = 0;
  for (int64_t i = 0; i < 200; ++i) {
    differ +=
        synthetic_sentence_pair(kSeed, i).source != synthetic_sentence_pair(kSeed + 1, i).source;
  }
  EXPECT_GE(differ, 195);
  int repeats = 0;
  for (int64_t i = 0; i + 1 < 200; ++i) {
    repeats +=
        synthetic_sentence_pair(kSeed, i).source == synthetic_sentence_pair(kSeed, i + 1).source;
  }
  EXPECT_LE(repeats, 1);
}

// Hand-checked: agreement (gender, case, number, weak nouns), the dative before the accusative,
// verb-final subordinate and relative clauses, verb second after a fronted clause, separable
// particles at the end, kein for a negated indefinite, the perfect with sein, contractions, als.
TEST(SyntheticCorpus, HandCheckedRenderings) {
  const std::map<int64_t, TextPair> expected = {
      {4,
       {"The friendly neighbour tidies up your station.",
        "Der freundliche Nachbar räumt deinen Bahnhof auf."}},
      {48,
       {"The colleague that can eat her bread sees the good flower.",
        "Der Kollege, der ihr Brot essen kann, sieht die gute Blume."}},
      {56,
       {"Our child did not swim and Peter sent no bottle to them.",
        "Unser Kind ist nicht geschwommen und Peter hat ihnen keine Flasche geschickt."}},
      {57,
       {"Lisa sells the bear to my fast colleague.",
        "Lisa verkauft meinem schnellen Kollegen den Bären."}},
      {136,
       {"A baker laughs now because the fox wants to help a neighbour.",
        "Ein Bäcker lacht jetzt, weil der Fuchs einem Nachbarn helfen will."}},
      {187,
       {"A baker believes that Paul listens to my lion.",
        "Ein Bäcker glaubt, dass Paul meinem Löwen zuhört."}},
      {276,
       {"Because Max drove, the man invited four sisters.",
        "Weil Max gefahren ist, hat der Mann vier Schwestern eingeladen."}},
      {470, {"Where does the girl come back?", "Wohin kommt das Mädchen zurück?"}},
      {1500,
       {"The guest feeds my green mouse in the shop.",
        "Der Gast füttert meine grüne Maus im Laden."}},
      {2767, {"A car is small.", "Ein Auto ist klein."}},
  };
  for (const auto& [index, pair] : expected) {
    const TextPair drawn = synthetic_sentence_pair(kSeed, index);
    EXPECT_EQ(drawn.source, pair.source) << "pair " << index;
    EXPECT_EQ(drawn.target, pair.target) << "pair " << index;
  }
}

// FNV-1a (64 bits) of "source\ttarget\n" for pairs 0 .. pairs-1.
uint64_t corpus_checksum(uint64_t seed, int64_t pairs) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (int64_t i = 0; i < pairs; ++i) {
    const TextPair pair = synthetic_sentence_pair(seed, i);
    for (const unsigned char c : pair.source + "\t" + pair.target + "\n") {
      hash = (hash ^ c) * 0x100000001b3ULL;
    }
  }
  return hash;
}

// The corpus is part of the Transformer and GNMT mini runs' results: these are the checksums of the
// generator before its lexicon moved to synthetic_lexicon.yaml. Any change to the lexicon's entries,
// their order or the grammar moves them.
TEST(SyntheticCorpus, ChecksumsOfTheFirst2000PairsArePinned) {
  EXPECT_EQ(corpus_checksum(1, 2000), 0x4491a8767d0cf809ULL);
  EXPECT_EQ(corpus_checksum(2, 2000), 0x318ffe0d97febba0ULL);
}

TEST(SyntheticCorpus, SentencesAreWellFormedAndOfBoundedLength) {
  constexpr int kPairs = 3000;
  int64_t total_words = 0;
  int typical = 0;
  for (int64_t i = 0; i < kPairs; ++i) {
    const TextPair pair = synthetic_sentence_pair(kSeed, i);
    ASSERT_FALSE(pair.source.empty()) << i;
    ASSERT_FALSE(pair.target.empty()) << i;
    const auto words = static_cast<int>(words_of(pair.source).size());
    EXPECT_GE(words, 4) << pair.source;
    EXPECT_LE(words, 25) << pair.source;
    total_words += words;
    typical += words >= 8 && words <= 14;
    // Capitalised, one final full stop or question mark on both sides, no stray spaces.
    // (German capitals may be Ä, Ö, Ü; a sentence may open with a numeral.)
    const auto first = [](const std::string& text) { return static_cast<unsigned char>(text[0]); };
    EXPECT_TRUE(std::isupper(first(pair.source)) || std::isdigit(first(pair.source)))
        << pair.source;
    EXPECT_TRUE(std::isupper(first(pair.target)) || std::isdigit(first(pair.target)) ||
                pair.target.rfind("\xC3", 0) == 0)
        << pair.target;
    EXPECT_EQ(pair.source.back(), pair.target.back()) << pair.source << " | " << pair.target;
    EXPECT_TRUE(pair.source.back() == '.' || pair.source.back() == '?') << pair.source;
    EXPECT_EQ(count_of(pair.source, "?") + count_of(pair.source, "."), 1) << pair.source;
    EXPECT_EQ(pair.target.find("  "), std::string::npos) << pair.target;
    EXPECT_EQ(pair.target.find(" ,"), std::string::npos) << pair.target;
    // One German subordinate clause (with its comma) for each English one.
    EXPECT_EQ(count_of(pair.source, "because "), count_of(pair.target, ", weil ")) << pair.source;
    // "that" (complement, relative, so that) opens a clause after a German comma.
    int german_that = 0;
    for (const char* word : {", dass ", ", damit ", ", der ", ", die ", ", das "}) {
      german_that += count_of(pair.target, word);
    }
    EXPECT_EQ(count_of(pair.source, " that ") > 0, german_that > 0) << pair.source;
  }
  const double mean = static_cast<double>(total_words) / kPairs;
  EXPECT_GE(mean, 8.0);
  EXPECT_LE(mean, 14.0);
  EXPECT_GT(typical, kPairs / 2);
}

TEST(SyntheticCorpus, EverySourceHasOneTranslation) {
  std::map<std::string, std::string> translation;
  for (int64_t i = 0; i < 5000; ++i) {
    const TextPair pair = synthetic_sentence_pair(kSeed, i);
    const auto [it, inserted] = translation.emplace(pair.source, pair.target);
    EXPECT_EQ(it->second, pair.target) << pair.source;
  }
  EXPECT_GT(translation.size(), 4900u);  // and few sentences repeat
}

TEST(SyntheticCorpus, OnlyNamesNumeralsAndInAreSharedWords) {
  const std::set<std::string> names = {"anna",  "peter", "maria", "thomas", "lisa",  "paul",
                                       "julia", "max",   "laura", "felix",  "sarah", "jonas"};
  std::set<std::string> english, german;
  for (int64_t i = 0; i < 5000; ++i) {
    const TextPair pair = synthetic_sentence_pair(kSeed, i);
    for (const std::string& word : words_of(pair.source)) english.insert(word);
    for (const std::string& word : words_of(pair.target)) german.insert(word);
  }
  EXPECT_GT(english.size(), 400u);
  EXPECT_LT(english.size(), 800u);  // a small lexicon, in all its forms
  for (const std::string& word : english) {
    if (german.count(word) == 0) continue;
    const bool numeral = std::all_of(word.begin(), word.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    EXPECT_TRUE(names.count(word) || word == "in" || (numeral && std::stoi(word) > 12))
        << "'" << word << "' is on both sides";
  }
}

TEST(SyntheticCorpus, WritesParallelFiles) {
  const fs::path folder = fresh_test_folder("mlh_wmt_synthetic_test");
  const fs::path source = folder / "raw" / "train.en", target = folder / "raw" / "train.de";
  SyntheticCorpusSpec spec;
  spec.pairs = 300;
  spec.seed = 5;
  write_synthetic_parallel_corpus(spec, source, target);
  const std::vector<std::string> en = lines_of(source), de = lines_of(target);
  ASSERT_EQ(en.size(), 300u);
  ASSERT_EQ(de.size(), 300u);
  for (int64_t i = 0; i < 300; i += 37) {
    const TextPair pair = synthetic_sentence_pair(spec.seed, i);
    EXPECT_EQ(en[static_cast<size_t>(i)], pair.source);
    EXPECT_EQ(de[static_cast<size_t>(i)], pair.target);
  }
  EXPECT_EQ(contents_of(source).back(), '\n');
  EXPECT_FALSE(fs::exists(source.string() + ".partial"));
  EXPECT_FALSE(fs::exists(target.string() + ".partial"));
}

TEST(SyntheticCorpus, RejectsNonPositivePairCounts) {
  const fs::path folder = fresh_test_folder("mlh_wmt_synthetic_test");
  for (const int64_t pairs : {int64_t{0}, int64_t{-3}}) {
    SyntheticCorpusSpec spec;
    spec.pairs = pairs;
    const std::string message = user_error_of(
        [&] { write_synthetic_parallel_corpus(spec, folder / "a.en", folder / "a.de"); });
    EXPECT_THAT(message, HasSubstr("pairs is " + std::to_string(pairs)));
  }
  EXPECT_FALSE(fs::exists(folder / "a.en"));
}

TEST(SyntheticCorpus, UnwritableFileIsAUserError) {
  const fs::path folder = fresh_test_folder("mlh_wmt_synthetic_test");
  std::ofstream(folder / "file") << "not a folder";
  SyntheticCorpusSpec spec;
  spec.pairs = 3;
  const std::string message = user_error_of([&] {
    write_synthetic_parallel_corpus(spec, folder / "file" / "a.en", folder / "file" / "a.de");
  });
  EXPECT_THAT(message, HasSubstr((folder / "file").string()));
}

TEST(SyntheticLexicon, EmbeddedLexiconIsComplete) {
  const synthetic::Lexicon& lexicon = synthetic::lexicon();
  EXPECT_EQ(lexicon.nouns.size(), 83u);
  EXPECT_EQ(lexicon.adjectives.size(), 32u);
  EXPECT_EQ(lexicon.determiners.size(), 15u);
  EXPECT_EQ(lexicon.verbs.size(), 73u);
  EXPECT_EQ(lexicon.last_number_word(), 12);
  EXPECT_EQ(lexicon.determiners[lexicon.determiner_ids.no].de, "kein");
  EXPECT_EQ(&synthetic::lexicon(), &lexicon);  // parsed once
}

// A mistake in the lexicon is an internal error that names the line.
std::string lexicon_error_of(const std::string& text) {
  try {
    synthetic::read_lexicon(text);
  } catch (const InternalError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an InternalError";
  return "";
}

TEST(SyntheticLexicon, MistakeNamesTheLineAndTheProblem) {
  const std::string groups = "class_groups: {goods: [object, food]}\nnouns:\n";
  EXPECT_THAT(lexicon_error_of(groups + "  - {en: [man, men], de: [Mann, Männer], gender: m, "
                                        "classes: person}\n"),
              HasSubstr("synthetic_lexicon.yaml:3: expected one of das, der, die"));
  EXPECT_THAT(lexicon_error_of(groups + "  - {en: [man, men], de: [Mann, Männer], gender: der, "
                                        "classes: person -robot}\n"),
              HasSubstr(":3: unknown noun class '-robot'"));
  EXPECT_THAT(lexicon_error_of(groups + "  - {en: [man, men], de: [Mann], gender: der, "
                                        "classes: goods}\n"),
              HasSubstr(":3: expected a list of 2"));
  EXPECT_THAT(lexicon_error_of(groups + "  - {en: [man, men], de: [Mann, Männer], gender: der, "
                                        "classes: person, plural: men}\n"),
              HasSubstr(":3: unknown key 'plural'"));
  EXPECT_THAT(lexicon_error_of("class_groups: {}\nnoun:\n"), HasSubstr(":2: unknown key 'noun'"));
}

}  // namespace
}  // namespace mlh::wmt
