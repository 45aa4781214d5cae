// The lexicon of the synthetic parallel corpus (synthetic_corpus.h): every word it writes and its
// forms, with the noun classes that say which words go together. The words are data,
// synthetic_lexicon.yaml beside this file, compiled into the binary; the grammar that puts them
// into sentences is synthetic_corpus.cpp's.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlh::wmt::synthetic {

// Noun classes: what a verb, preposition or adjective accepts. The lexicon names them (and groups
// of them); the grammar itself needs person, animate and any.
enum : uint32_t {
  kPerson = 1u << 0,
  kAnimal = 1u << 1,
  kObject = 1u << 2,  // portable things
  kFood = 1u << 3,
  kDrink = 1u << 4,
  kText = 1u << 5,
  kPlace = 1u << 6,
  kVehicle = 1u << 7,
  kFixture = 1u << 8,  // something to be on, under, behind or in front of
  kOpenable = 1u << 9,
  kDevice = 1u << 10,
  kContainer = 1u << 11,
  kAnimate = kPerson | kAnimal,
  kAnyClass = (1u << 12) - 1,
};

enum Gender { kMasculine = 0, kFeminine = 1, kNeuter = 2 };
constexpr int kPluralColumn = 3;  // German tables: masculine, feminine, neuter, plural
enum Case { kNominative = 0, kAccusative = 1, kDative = 2 };

// Agreement slots of a finite verb: ich, du, er/sie/es, wir, sie (plural).
enum Slot { kFirstSingular, kSecondSingular, kThirdSingular, kFirstPlural, kThirdPlural };

// German determiner kinds, by the endings they take and the adjective declension after them.
enum class DeterminerKind {
  kDefinite,    // der, die, das: weak adjectives
  kDerWord,     // dies-er, jed-er: weak adjectives
  kEinWord,     // ein, kein, mein: mixed adjectives
  kPluralWord,  // viel-e, einig-e: strong adjectives
  kNumeral,     // zwei, 15: strong adjectives
  kBare,        // a bare plural: strong adjectives
};

enum class PrepositionUse { kLocative, kDirectional, kCompany, kBeneficiary };

enum TenseBit { kPresentBit = 1, kPastBit = 2, kModalBit = 4, kAnyTense = 7 };

enum class AdverbKind { kTime, kFrequency, kPlace, kHome };

// Verb frames: which objects a verb takes and how.
enum class Frame {
  kIntransitive,   // sleeps
  kMotion,         // goes (into the house): directional phrases, perfect with sein
  kTransitive,     // sees the dog (accusative)
  kDative,         // helps the dog (dative)
  kDitransitive,   // gives the book to the child: gibt dem Kind das Buch
  kPrepositional,  // waits for the dog: wartet auf den Hund
  kClausal,        // says that ...: sagt, dass ...
};

struct Noun {
  std::string en;
  std::optional<std::string> en_plural;  // none: a mass noun, singular only
  std::string de;
  std::optional<std::string> de_plural;
  Gender gender = kMasculine;
  uint32_t classes = 0;
  std::optional<std::string> de_oblique;  // weak masculine nouns (der Junge, den Jungen)
};

struct Adjective {
  std::string en;
  std::string de;                      // predicative
  std::optional<std::string> de_stem;  // before attributive endings, when it differs (müd-e)
  uint32_t classes = 0;
};

struct Determiner {
  std::optional<std::string> en_singular;  // none: not with a singular noun
  std::optional<std::string> en_plural;    // none: not with a plural noun
  DeterminerKind kind = DeterminerKind::kDefinite;
  std::string de;  // the stem the endings go on
  int weight = 0;  // relative frequency in noun phrases
};

// The determiners the grammar treats specially, as indices into Lexicon::determiners.
struct DeterminerIds {
  int the = -1, a = -1, bare_plural = -1, no = -1, every = -1, many = -1, some = -1, number = -1;
};

struct Pronoun {
  std::string en_subject;
  std::string en_object;
  std::array<std::string, 3> de;  // nominative, accusative, dative
  Slot slot = kThirdSingular;
  uint32_t classes = 0;  // what it may stand for
};

struct Preposition {
  std::string en;
  std::string de;
  Case de_case = kDative;
  PrepositionUse use = PrepositionUse::kLocative;
  uint32_t classes = 0;
};

struct Adverb {
  std::string en;
  std::string de;
  AdverbKind kind = AdverbKind::kTime;
  int tenses = 0;  // TenseBits it goes with
};

struct Modal {
  std::string en;                         // "can"; for want: "want to"
  std::string en_third;                   // "can"; "wants to"
  std::optional<std::string> en_negated;  // after the subject: "cannot"; none: do-support
  std::optional<std::string> en_do_form;  // after do/does + not, and in questions after the subject
  std::array<std::string, 5> de;          // by slot
};

struct Conjunction {
  std::string en;
  std::string de;
  std::string de_past;    // "when" of one event in the past: als
  bool may_lead = false;  // may open the sentence: "Because ..., ..."
};

struct Coordinator {
  std::string en;
  std::string de;
  int weight = 0;
  bool comma = false;  // ", but"
};

struct Verb {
  Frame frame = Frame::kIntransitive;
  std::string en, en_third, en_past;
  std::string de;        // infinitive, without a separable particle
  std::string de_third;  // er-form
  std::string de_first;  // ich-form
  std::string de_participle;
  uint32_t subject = kAnimate;
  uint32_t object = 0;
  uint32_t recipient = 0;
  bool de_sein = false;        // perfect with sein
  std::string en_particle;     // picks the child up / picks up the child
  std::string de_particle;     // holt ... ab
  std::string en_preposition;  // waits for
  std::string de_preposition;  // wartet auf
  Case de_case = kAccusative;  // of the object or of the prepositional object
  std::string complementizer_en = "that", complementizer_de = "dass";

  bool has_past() const { return en_past != en; }  // "read" would read as present or past
};

// A German table: rows nominative, accusative, dative; columns masculine, feminine, neuter, plural.
using CaseTable = std::array<std::array<std::string, 4>, 3>;
using BySlot = std::array<std::string, 5>;

constexpr int kFirstNumberWord = 2;  // number_words[0] is "two"
constexpr int kLastNumber = 99;      // the largest number a noun phrase counts

struct Lexicon {
  std::vector<Noun> nouns;
  std::vector<Adjective> adjectives;
  std::vector<Determiner> determiners;
  DeterminerIds determiner_ids;
  CaseTable definite_article, der_word_endings, ein_word_endings, weak_adjective_endings,
      mixed_adjective_endings;
  std::array<std::string, 3> strong_plural_adjective_endings;  // by case
  BySlot german_sein, german_war, german_haben;
  std::array<BySlot, 2> english_be;                      // present, past
  std::vector<std::array<std::string, 2>> number_words;  // from kFirstNumberWord: English, German
  std::vector<std::string> names;
  std::vector<Pronoun> pronouns;
  std::vector<Preposition> prepositions;
  std::vector<std::array<std::string, 3>> contractions;  // preposition, article, contracted form
  std::vector<Adverb> adverbs;
  std::vector<Modal> modals;
  std::vector<Conjunction> subordinators;
  std::vector<Coordinator> coordinators;
  std::vector<Verb> verbs;

  // The largest number written as a word; larger ones are numerals on both sides.
  int last_number_word() const {
    return kFirstNumberWord + static_cast<int>(number_words.size()) - 1;
  }
};

// The embedded synthetic_lexicon.yaml, parsed at the first call (thread-safe) and kept.
const Lexicon& lexicon();

// Parses text in the format of synthetic_lexicon.yaml (its comments describe it). The file is
// compiled in, so a mistake in it is a bug in mlharness: InternalError naming the line.
Lexicon read_lexicon(const std::string& yaml_text);

inline bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// The words of `text`, split at spaces.
std::vector<std::string> split_words(const std::string& text);

}  // namespace mlh::wmt::synthetic
