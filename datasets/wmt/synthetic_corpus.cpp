#include "datasets/wmt/synthetic_corpus.h"

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "base/user_error.h"
#include "datasets/counter_random.h"
#include "datasets/wmt/synthetic_lexicon.h"

namespace mlh::wmt {

namespace fs = std::filesystem;

namespace synthetic {
namespace {

constexpr int kMinSourceWords = 4;
constexpr int kMaxSourceWords = 25;
constexpr int kShortSourceWords = 6;

enum class Tense { kPresent, kPast, kModal };
enum class Wh { kWhere, kWhen, kWhy };

bool ends_with_sibilant(const std::string& text) {
  return ends_with(text, "s") || ends_with(text, "ß") || ends_with(text, "z") ||
         ends_with(text, "x");
}

// The du-form from the er-form: sieht -> siehst, isst -> isst, arbeitet -> arbeitest, kann ->
// kannst.
std::string second_person(const std::string& third) {
  if (ends_with(third, "t")) {
    const std::string base = third.substr(0, third.size() - 1);
    return ends_with_sibilant(base) ? third : base + "st";
  }
  return ends_with_sibilant(third) ? third + "t" : third + "st";
}

// ---------------------------------------------------------------------------------------------
// Meanings.

struct NounPhrase {
  enum class Kind { kNoun, kName, kPronoun, kPair } kind = Kind::kNoun;
  int index = 0;        // into the lexicon's nouns, names or pronouns
  int determiner = -1;  // kNoun: into the lexicon's determiners
  int number = 0;       // for the determiner "number"
  bool plural = false;
  int adjective = -1;
  bool very = false;
  std::vector<NounPhrase> parts;  // kPair: two noun phrases joined by "and"

  Slot slot() const {
    switch (kind) {
      case Kind::kPronoun:
        return lexicon().pronouns[index].slot;
      case Kind::kPair:
        return kThirdPlural;
      case Kind::kNoun:
        return plural ? kThirdPlural : kThirdSingular;
      case Kind::kName:
        break;
    }
    return kThirdSingular;
  }
  // Indefinite: negated as "kein" (sieht keinen Hund) rather than with "nicht".
  bool indefinite() const {
    const DeterminerIds& ids = lexicon().determiner_ids;
    return kind == Kind::kNoun && (determiner == ids.a || determiner == ids.bare_plural);
  }
};

struct PrepositionalPhrase {
  int preposition = -1;  // into the lexicon's prepositions; -1 for an adverb
  int adverb = -1;       // a place adverb or "home"
  NounPhrase object;
};

struct Clause {
  int verb = -1;  // -1: copula with `adjective`
  int adjective = -1;
  bool very = false;
  Tense tense = Tense::kPresent;
  int modal = 0;
  bool negated = false;
  NounPhrase subject;
  std::optional<NounPhrase> object;     // accusative, dative or prepositional object
  std::optional<NounPhrase> recipient;  // ditransitive: the dative
  int adverb = -1;                      // a time or frequency adverb
  bool adverb_fronted = false;
  std::optional<PrepositionalPhrase> phrase;
  std::shared_ptr<Clause> relative;    // on the subject: "der Hund, der ... sieht,"
  std::shared_ptr<Clause> complement;  // of a clausal verb
  bool is_relative = false;            // this clause is a relative clause: its subject is the gap

  const Verb* lexical() const {
    return verb < 0 ? nullptr : &lexicon().verbs[static_cast<size_t>(verb)];
  }
};

// ---------------------------------------------------------------------------------------------
// Drawing meanings.

class Random {
 public:
  Random(uint64_t seed, int64_t index)
      : key_(stream_key(seed ^ 0x77a7c0f1e2d3b4a5ULL, static_cast<uint64_t>(index))) {}

  uint64_t bits() { return keyed_random(key_, counter_++); }
  int below(int bound) { return static_cast<int>(bits() % static_cast<uint64_t>(bound)); }
  bool percent(int chance) { return below(100) < chance; }
  // An index drawn with the given integer weights (zero weights never drawn).
  int weighted(const std::vector<int>& weights) {
    int total = 0;
    for (const int weight : weights) total += weight;
    MLH_ASSERT(total > 0);
    int draw = below(total);
    for (size_t i = 0; i < weights.size(); ++i) {
      if (draw < weights[i]) return static_cast<int>(i);
      draw -= weights[i];
    }
    return static_cast<int>(weights.size()) - 1;
  }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    MLH_ASSERT(!items.empty());
    return items[static_cast<size_t>(below(static_cast<int>(items.size())))];
  }

 private:
  uint64_t key_;
  uint64_t counter_ = 0;
};

template <typename Item, typename Keep>
std::vector<int> indices_where(const std::vector<Item>& items, Keep keep) {
  std::vector<int> indices;
  for (size_t i = 0; i < items.size(); ++i) {
    if (keep(items[i])) indices.push_back(static_cast<int>(i));
  }
  return indices;
}

uint32_t classes_of(const NounPhrase& phrase) {
  switch (phrase.kind) {
    case NounPhrase::Kind::kNoun:
      return lexicon().nouns[phrase.index].classes;
    case NounPhrase::Kind::kName:
      return kPerson;
    case NounPhrase::Kind::kPronoun:
      return lexicon().pronouns[phrase.index].classes;
    case NounPhrase::Kind::kPair:
      return classes_of(phrase.parts[0]) & classes_of(phrase.parts[1]);
  }
  return 0;
}

struct PhraseOptions {
  uint32_t classes = kAnyClass;
  int pronoun_percent = 0;
  int pair_percent = 0;
  int adjective_percent = 30;
  bool allow_no = true;  // the determiner "no"
  bool allow_every = true;
  int avoid_pronoun = -1;  // the subject's: no "I see me"
};

struct ClauseOptions {
  int tenses = kAnyTense;
  bool clausal = false;  // a verb that takes a that-clause
  bool allow_negation = true;
  bool allow_adverb = true;
  bool allow_time_adverb = true;
  bool allow_fronting = false;  // of the time adverb
  bool allow_phrase = true;     // a prepositional phrase or place adverb
  bool allow_relative = false;  // on the subject
  bool allow_copula = true;
  bool allow_modal_negation = true;
  std::optional<NounPhrase> subject;  // given: a relative clause's head
};

class Generator {
 public:
  Generator(uint64_t seed, int64_t index) : lex_(lexicon()), random_(seed, index) {}

  TextPair sentence();

 private:
  NounPhrase noun_phrase(const PhraseOptions& options);
  NounPhrase common_noun_phrase(uint32_t classes, int adjective_percent, bool allow_no,
                                bool allow_every = true);
  Clause clause(const ClauseOptions& options);
  Tense tense(int allowed, const Verb* verb);

  const Lexicon& lex_;
  Random random_;
};

NounPhrase Generator::common_noun_phrase(uint32_t classes, int adjective_percent, bool allow_no,
                                         bool allow_every) {
  NounPhrase phrase;
  phrase.kind = NounPhrase::Kind::kNoun;
  const std::vector<int> nouns =
      indices_where(lex_.nouns, [&](const Noun& n) { return (n.classes & classes) != 0; });
  phrase.index = random_.pick(nouns);
  const Noun& noun = lex_.nouns[phrase.index];
  const bool mass = !noun.en_plural;
  const DeterminerIds& ids = lex_.determiner_ids;
  std::vector<int> weights;
  for (int d = 0; d < static_cast<int>(lex_.determiners.size()); ++d) {
    const Determiner& determiner = lex_.determiners[d];
    bool fits = mass ? determiner.en_singular && d != ids.a && d != ids.every : true;
    if ((d == ids.no && !allow_no) || (d == ids.every && !allow_every)) fits = false;
    weights.push_back(fits ? determiner.weight : 0);
  }
  phrase.determiner = random_.weighted(weights);
  const Determiner& determiner = lex_.determiners[phrase.determiner];
  if (!determiner.en_singular) {
    phrase.plural = true;
  } else if (determiner.en_plural && !mass) {
    phrase.plural = random_.percent(30);
  }
  if (phrase.determiner == ids.number) {
    const int last_word = lex_.last_number_word();
    phrase.number =
        random_.percent(75)
            ? kFirstNumberWord + random_.below(static_cast<int>(lex_.number_words.size()))
            : last_word + 1 + random_.below(kLastNumber - last_word);
  }
  if (random_.percent(adjective_percent)) {
    const std::vector<int> adjectives = indices_where(
        lex_.adjectives, [&](const Adjective& a) { return (a.classes & noun.classes) != 0; });
    phrase.adjective = random_.pick(adjectives);
    phrase.very = random_.percent(15);
  }
  return phrase;
}

NounPhrase Generator::noun_phrase(const PhraseOptions& options) {
  const std::vector<int> pronouns = indices_where(lex_.pronouns, [&](const Pronoun& p) {
    if ((p.classes & options.classes) == 0) return false;
    if (options.avoid_pronoun < 0) return true;
    // No reflexive readings: "I see me", "we help us", "you see you".
    const Slot subject = lex_.pronouns[options.avoid_pronoun].slot;
    return p.slot != subject || subject == kThirdSingular || subject == kThirdPlural;
  });
  const bool person = (options.classes & kPerson) != 0;
  const int kind = random_.weighted(
      {100 - options.pronoun_percent - options.pair_percent - (person ? 10 : 0), person ? 10 : 0,
       pronouns.empty() ? 0 : options.pronoun_percent, options.pair_percent});
  NounPhrase phrase;
  switch (kind) {
    case 1:
      phrase.kind = NounPhrase::Kind::kName;
      phrase.index = random_.below(static_cast<int>(lex_.names.size()));
      return phrase;
    case 2:
      phrase.kind = NounPhrase::Kind::kPronoun;
      phrase.index = random_.pick(pronouns);
      return phrase;
    case 3: {
      phrase.kind = NounPhrase::Kind::kPair;
      PhraseOptions part = options;
      part.pronoun_percent = 0;
      part.pair_percent = 0;
      part.adjective_percent = 10;
      part.allow_no = false;
      part.allow_every = false;
      // Each part fits what the verb or adjective needs; people pair with people.
      part.classes = options.classes & kPerson ? kPerson : options.classes;
      phrase.parts.push_back(noun_phrase(part));
      do {
        phrase.parts.resize(1);
        phrase.parts.push_back(noun_phrase(part));
      } while (phrase.parts[1].kind == phrase.parts[0].kind &&
               phrase.parts[1].index == phrase.parts[0].index);
      return phrase;
    }
    default:
      return common_noun_phrase(options.classes, options.adjective_percent, options.allow_no,
                                options.allow_every);
  }
}

Tense Generator::tense(int allowed, const Verb* verb) {
  if (verb == nullptr) allowed &= ~kModalBit;  // copula: ist, war
  if (verb != nullptr && !verb->has_past()) allowed &= ~kPastBit;
  const int drawn = random_.weighted(
      {allowed & kPresentBit ? 50 : 0, allowed & kPastBit ? 30 : 0, allowed & kModalBit ? 20 : 0});
  return drawn == 0 ? Tense::kPresent : drawn == 1 ? Tense::kPast : Tense::kModal;
}

Clause Generator::clause(const ClauseOptions& options) {
  Clause c;
  const std::vector<Verb>& all = lex_.verbs;
  const bool copula = options.allow_copula && !options.clausal && random_.percent(9);
  if (copula) {
    c.adjective = random_.below(static_cast<int>(lex_.adjectives.size()));
    c.very = random_.percent(20);
  } else {
    std::vector<int> candidates;
    for (size_t i = 0; i < all.size(); ++i) {
      const Verb& verb = all[i];
      if ((verb.frame == Frame::kClausal) != options.clausal) continue;
      if (options.tenses == kPastBit && !verb.has_past()) continue;
      if (options.subject && (verb.subject & classes_of(*options.subject)) == 0) continue;
      candidates.push_back(static_cast<int>(i));
    }
    c.verb = random_.pick(candidates);
  }
  const Verb* verb = c.lexical();
  c.tense = tense(options.tenses, verb);
  if (c.tense == Tense::kModal) c.modal = random_.below(static_cast<int>(lex_.modals.size()));

  if (options.subject) {
    c.subject = *options.subject;
  } else {
    PhraseOptions subject;
    subject.classes = copula ? lex_.adjectives[c.adjective].classes : verb->subject;
    subject.pronoun_percent = 25;
    subject.pair_percent = 6;
    c.subject = noun_phrase(subject);
  }

  const int subject_pronoun = c.subject.kind == NounPhrase::Kind::kPronoun ? c.subject.index : -1;
  if (verb != nullptr && verb->frame != Frame::kIntransitive && verb->frame != Frame::kMotion &&
      verb->frame != Frame::kClausal) {
    PhraseOptions object;
    object.classes = verb->object;
    object.pronoun_percent = verb->frame == Frame::kPrepositional ? 8 : 15;
    object.avoid_pronoun = subject_pronoun;
    c.object = noun_phrase(object);
  }
  if (verb != nullptr && verb->frame == Frame::kDitransitive) {
    PhraseOptions recipient;
    recipient.classes = verb->recipient;
    recipient.pronoun_percent = 20;
    recipient.avoid_pronoun = subject_pronoun;
    recipient.adjective_percent = 15;
    recipient.allow_no = false;
    c.recipient = noun_phrase(recipient);
    if (c.object->kind == NounPhrase::Kind::kPronoun &&
        c.recipient->kind == NounPhrase::Kind::kPronoun && c.object->index == c.recipient->index) {
      c.recipient = common_noun_phrase(verb->recipient, 15, false);
    }
  }

  const DeterminerIds& ids = lex_.determiner_ids;
  const bool quantified_subject =
      c.subject.kind == NounPhrase::Kind::kNoun &&
      (c.subject.determiner == ids.every || c.subject.determiner == ids.no);
  const bool negative_object =
      (c.object && c.object->kind == NounPhrase::Kind::kNoun && c.object->determiner == ids.no) ||
      (c.recipient && c.recipient->kind == NounPhrase::Kind::kNoun &&
       c.recipient->determiner == ids.no);
  const bool quantified_object =
      c.object && c.object->kind == NounPhrase::Kind::kNoun &&
      (c.object->determiner == ids.many || c.object->determiner == ids.some ||
       c.object->determiner == ids.number || c.object->determiner == ids.every);
  if (options.allow_negation && !quantified_subject && !negative_object && !quantified_object &&
      (c.tense != Tense::kModal || options.allow_modal_negation)) {
    c.negated = random_.percent(15);
  }

  if (options.allow_adverb && random_.percent(25)) {
    const int tense_bit = c.tense == Tense::kPresent ? kPresentBit
                          : c.tense == Tense::kPast  ? kPastBit
                                                     : kModalBit;
    const std::vector<int> adverbs = indices_where(lex_.adverbs, [&](const Adverb& a) {
      if ((a.tenses & tense_bit) == 0) return false;
      if (a.kind == AdverbKind::kTime) return options.allow_time_adverb;
      return a.kind == AdverbKind::kFrequency && !c.negated;
    });
    if (!adverbs.empty()) {
      c.adverb = random_.pick(adverbs);
      c.adverb_fronted = options.allow_fronting &&
                         lex_.adverbs[c.adverb].kind == AdverbKind::kTime && random_.percent(40);
    }
  }

  if (options.allow_phrase && verb != nullptr &&
      (verb->frame == Frame::kIntransitive || verb->frame == Frame::kMotion ||
       verb->frame == Frame::kTransitive) &&
      random_.percent(verb->frame == Frame::kTransitive ? 20 : 45)) {
    const bool motion = verb->frame == Frame::kMotion;
    std::vector<int> weights;  // prepositions, then adverbs
    for (const Preposition& p : lex_.prepositions) {
      bool fits = false;
      switch (p.use) {
        case PrepositionUse::kLocative:
          fits = !motion;
          break;
        case PrepositionUse::kDirectional:
          fits = motion;
          break;
        case PrepositionUse::kCompany:
          fits = true;
          break;
        case PrepositionUse::kBeneficiary:
          fits = verb->frame == Frame::kTransitive;
          break;
      }
      weights.push_back(fits ? 4 : 0);
    }
    for (const Adverb& a : lex_.adverbs) {
      const bool fits = motion ? a.kind == AdverbKind::kHome : a.kind == AdverbKind::kPlace;
      weights.push_back(fits ? 2 : 0);
    }
    const int drawn = random_.weighted(weights);
    PrepositionalPhrase phrase;
    const int prepositions = static_cast<int>(lex_.prepositions.size());
    if (drawn < prepositions) {
      phrase.preposition = drawn;
      PhraseOptions object;
      object.classes = lex_.prepositions[drawn].classes;
      object.adjective_percent = 15;
      object.allow_no = false;
      object.allow_every = false;
      phrase.object = noun_phrase(object);
    } else {
      phrase.adverb = drawn - prepositions;
    }
    c.phrase = phrase;
  }

  if (options.allow_relative && c.subject.kind == NounPhrase::Kind::kNoun &&
      c.subject.determiner != ids.no && (classes_of(c.subject) & kAnimate) != 0 &&
      random_.percent(12)) {
    ClauseOptions inner;
    inner.allow_adverb = false;
    inner.allow_phrase = false;
    inner.allow_copula = false;
    inner.subject = c.subject;
    inner.subject->adjective = -1;
    auto relative = std::make_shared<Clause>(clause(inner));
    relative->is_relative = true;
    c.relative = std::move(relative);
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// English.

using Tokens = std::vector<std::string>;

void append(Tokens& tokens, const std::string& words) {
  for (std::string& word : split_words(words)) tokens.push_back(std::move(word));
}

void append(Tokens& tokens, const Tokens& more) {
  tokens.insert(tokens.end(), more.begin(), more.end());
}

Tokens english_noun_phrase(const NounPhrase& phrase, bool object_form) {
  const Lexicon& lex = lexicon();
  Tokens out;
  switch (phrase.kind) {
    case NounPhrase::Kind::kPronoun: {
      const Pronoun& p = lex.pronouns[phrase.index];
      out.push_back(object_form ? p.en_object : p.en_subject);
      return out;
    }
    case NounPhrase::Kind::kName:
      out.push_back(lex.names[phrase.index]);
      return out;
    case NounPhrase::Kind::kPair:
      append(out, english_noun_phrase(phrase.parts[0], object_form));
      out.push_back("and");
      append(out, english_noun_phrase(phrase.parts[1], object_form));
      return out;
    case NounPhrase::Kind::kNoun:
      break;
  }
  const Noun& noun = lex.nouns[phrase.index];
  const Determiner& determiner = lex.determiners[phrase.determiner];
  if (phrase.determiner == lex.determiner_ids.number) {
    out.push_back(phrase.number <= lex.last_number_word()
                      ? lex.number_words[phrase.number - kFirstNumberWord][0]
                      : std::to_string(phrase.number));
  } else {
    append(out, phrase.plural ? *determiner.en_plural : *determiner.en_singular);
  }
  if (phrase.very) out.push_back("very");
  if (phrase.adjective >= 0) out.push_back(lex.adjectives[phrase.adjective].en);
  out.push_back(phrase.plural ? *noun.en_plural : noun.en);
  return out;
}

// The verb with its objects, phrase and complement: "picks up the child", "picks him up".
Tokens english_predicate(const Clause& c, const std::string& form);

Tokens english_clause_body(const Clause& c, bool question, const char* wh);

Tokens english_predicate(const Clause& c, const std::string& form) {
  const Lexicon& lex = lexicon();
  const Verb& verb = *c.lexical();
  Tokens out;
  out.push_back(form);
  const bool pronoun_object = c.object && c.object->kind == NounPhrase::Kind::kPronoun;
  switch (verb.frame) {
    case Frame::kIntransitive:
    case Frame::kMotion:
      append(out, verb.en_particle);
      break;
    case Frame::kTransitive:
    case Frame::kDative:
    case Frame::kPrepositional:
      if (!verb.en_particle.empty() && !pronoun_object) append(out, verb.en_particle);
      append(out, verb.en_preposition);
      append(out, english_noun_phrase(*c.object, true));
      if (!verb.en_particle.empty() && pronoun_object) append(out, verb.en_particle);
      break;
    case Frame::kDitransitive:
      append(out, english_noun_phrase(*c.object, true));
      append(out, verb.en_particle);
      out.push_back("to");
      append(out, english_noun_phrase(*c.recipient, true));
      break;
    case Frame::kClausal:
      break;
  }
  if (c.phrase) {
    if (c.phrase->preposition >= 0) {
      append(out, lex.prepositions[c.phrase->preposition].en);
      append(out, english_noun_phrase(c.phrase->object, true));
    } else {
      append(out, lex.adverbs[c.phrase->adverb].en);
    }
  }
  if (c.complement) {
    append(out, verb.complementizer_en);
    append(out, english_clause_body(*c.complement, false, nullptr));
  }
  return out;
}

// A declarative clause (question false) or a question (wh optional). No final punctuation.
Tokens english_clause_body(const Clause& c, bool question, const char* wh) {
  const Lexicon& lex = lexicon();
  Tokens out;
  const Slot slot = c.subject.slot();
  const bool third = slot == kThirdSingular;
  const Verb* verb = c.lexical();
  const Adverb* adverb = c.adverb >= 0 ? &lex.adverbs[c.adverb] : nullptr;
  const bool frequency = adverb != nullptr && adverb->kind == AdverbKind::kFrequency;

  Tokens subject;
  if (c.is_relative) {
    subject.push_back("that");
  } else {
    subject = english_noun_phrase(c.subject, false);
    if (c.relative) {
      append(subject, english_clause_body(*c.relative, false, nullptr));
    }
  }
  if (wh != nullptr) out.push_back(wh);
  if (adverb != nullptr && c.adverb_fronted) append(out, adverb->en);

  auto add_frequency = [&] {
    if (frequency) append(out, adverb->en);
  };
  const int past = c.tense == Tense::kPast ? 1 : 0;
  if (verb == nullptr) {
    const std::string be = lex.english_be[past][slot];
    if (question) {
      out.push_back(be);
      append(out, subject);
    } else {
      append(out, subject);
      out.push_back(be);
    }
    if (c.negated) out.push_back("not");
    add_frequency();
    if (c.very) out.push_back("very");
    out.push_back(lex.adjectives[c.adjective].en);
  } else if (c.tense == Tense::kModal) {
    const Modal& modal = lex.modals[c.modal];
    if (modal.en_do_form && (question || c.negated)) {
      // do-support: "does not want to see", "does the dog have to see"
      const std::string auxiliary = third ? "does" : "do";
      if (question) {
        out.push_back(auxiliary);
        append(out, subject);
      } else {
        append(out, subject);
        out.push_back(auxiliary);
      }
      if (c.negated) out.push_back("not");
      append(out, *modal.en_do_form);
    } else if (question) {
      append(out, third ? modal.en_third : modal.en);
      append(out, subject);
      if (c.negated) out.push_back("not");
    } else {
      append(out, subject);
      append(out, c.negated ? *modal.en_negated : third ? modal.en_third : modal.en);
    }
    append(out, english_predicate(c, verb->en));
  } else if (question || c.negated) {
    const std::string auxiliary = past ? "did" : third ? "does" : "do";
    if (question) {
      out.push_back(auxiliary);
      append(out, subject);
    } else {
      append(out, subject);
      out.push_back(auxiliary);
    }
    if (c.negated) out.push_back("not");
    add_frequency();
    append(out, english_predicate(c, verb->en));
  } else {
    append(out, subject);
    add_frequency();
    append(out, english_predicate(c, past ? verb->en_past : third ? verb->en_third : verb->en));
  }
  if (adverb != nullptr && !frequency && !c.adverb_fronted) append(out, adverb->en);
  return out;
}

// ---------------------------------------------------------------------------------------------
// German.

Tokens german_noun_phrase(const NounPhrase& phrase, Case grammatical_case, bool negate = false) {
  const Lexicon& lex = lexicon();
  Tokens out;
  switch (phrase.kind) {
    case NounPhrase::Kind::kPronoun:
      out.push_back(lex.pronouns[phrase.index].de[grammatical_case]);
      return out;
    case NounPhrase::Kind::kName:
      out.push_back(lex.names[phrase.index]);
      return out;
    case NounPhrase::Kind::kPair:
      append(out, german_noun_phrase(phrase.parts[0], grammatical_case));
      out.push_back("und");
      append(out, german_noun_phrase(phrase.parts[1], grammatical_case));
      return out;
    case NounPhrase::Kind::kNoun:
      break;
  }
  const Noun& noun = lex.nouns[phrase.index];
  const int column = phrase.plural ? kPluralColumn : noun.gender;
  const int determiner_id =
      negate && phrase.indefinite() ? lex.determiner_ids.no : phrase.determiner;
  const Determiner& determiner = lex.determiners[determiner_id];
  const std::array<std::string, 4>* adjective_endings =
      &lex.weak_adjective_endings[grammatical_case];
  switch (determiner.kind) {
    case DeterminerKind::kDefinite:
      out.push_back(lex.definite_article[grammatical_case][column]);
      break;
    case DeterminerKind::kDerWord:
      out.push_back(determiner.de + lex.der_word_endings[grammatical_case][column]);
      break;
    case DeterminerKind::kEinWord:
      out.push_back(determiner.de + lex.ein_word_endings[grammatical_case][column]);
      adjective_endings = &lex.mixed_adjective_endings[grammatical_case];
      break;
    case DeterminerKind::kPluralWord:
      out.push_back(determiner.de + lex.strong_plural_adjective_endings[grammatical_case]);
      adjective_endings = nullptr;
      break;
    case DeterminerKind::kNumeral:
      out.push_back(phrase.number <= lex.last_number_word()
                        ? lex.number_words[phrase.number - kFirstNumberWord][1]
                        : std::to_string(phrase.number));
      adjective_endings = nullptr;
      break;
    case DeterminerKind::kBare:
      adjective_endings = nullptr;
      break;
  }
  if (phrase.very) out.push_back("sehr");
  if (phrase.adjective >= 0) {
    const Adjective& adjective = lex.adjectives[phrase.adjective];
    const std::string& stem = adjective.de_stem ? *adjective.de_stem : adjective.de;
    out.push_back(stem + (adjective_endings != nullptr
                              ? (*adjective_endings)[column]
                              : lex.strong_plural_adjective_endings[grammatical_case]));
  }
  if (phrase.plural) {
    const std::string& plural = *noun.de_plural;
    const bool add_n =
        grammatical_case == kDative && !ends_with(plural, "n") && !ends_with(plural, "s");
    out.push_back(add_n ? plural + "n" : plural);
  } else if (grammatical_case != kNominative && noun.de_oblique) {
    out.push_back(*noun.de_oblique);
  } else {
    out.push_back(noun.de);
  }
  return out;
}

Tokens german_prepositional_phrase(const std::string& preposition, Case grammatical_case,
                                   const NounPhrase& object) {
  Tokens out;
  Tokens phrase = german_noun_phrase(object, grammatical_case);
  const Lexicon& lex = lexicon();
  if (object.kind == NounPhrase::Kind::kNoun && object.determiner == lex.determiner_ids.the) {
    for (const auto& contraction : lex.contractions) {
      if (preposition == contraction[0] && phrase.front() == contraction[1]) {
        phrase.front() = contraction[2];
        append(out, phrase);
        return out;
      }
    }
  }
  out.push_back(preposition);
  append(out, phrase);
  return out;
}

enum class GermanOrder {
  kMain,         // subject (or the fronted part), finite verb, middle field, verb complex
  kQuestion,     // (wh,) finite verb, subject, ...
  kSubordinate,  // subject, middle field, verb complex, finite verb
};

std::string german_present(const Verb& verb, Slot slot) {
  switch (slot) {
    case kFirstSingular:
      return verb.de_first;
    case kSecondSingular:
      return second_person(verb.de_third);
    case kThirdSingular:
      return verb.de_third;
    case kFirstPlural:
    case kThirdPlural:
      break;
  }
  return verb.de;
}

Tokens german_clause(const Clause& c, GermanOrder order, const Tokens& front);

// `front`: what stands before the finite verb in a main clause (an adverb, a subordinate clause),
// or the wh-word of a question.
Tokens german_clause(const Clause& c, GermanOrder order, const Tokens& front) {
  const Lexicon& lex = lexicon();
  const Verb* verb = c.lexical();
  const Slot slot = c.subject.slot();
  const Adverb* adverb = c.adverb >= 0 ? &lex.adverbs[c.adverb] : nullptr;

  // The finite verb and the verb complex at the end of the clause.
  std::string finite;
  Tokens complex;
  bool separable_present = false;
  if (verb == nullptr) {
    finite = c.tense == Tense::kPast ? lex.german_war[slot] : lex.german_sein[slot];
  } else if (c.tense == Tense::kPresent) {
    finite = german_present(*verb, slot);
    if (!verb->de_particle.empty()) {
      complex.push_back(verb->de_particle);
      separable_present = true;
    }
  } else if (c.tense == Tense::kPast) {
    finite = verb->de_sein ? lex.german_sein[slot] : lex.german_haben[slot];
    complex.push_back(verb->de_participle);
  } else {
    finite = lex.modals[c.modal].de[slot];
    complex.push_back(verb->de_particle + verb->de);
  }

  // The middle field: pronoun objects, adverb, dative, accusative, nicht, phrases, predicate.
  const NounPhrase* accusative = nullptr;
  const NounPhrase* dative = nullptr;
  const NounPhrase* focus = nullptr;  // what a negation with kein negates
  if (verb != nullptr) {
    switch (verb->frame) {
      case Frame::kTransitive:
        accusative = focus = &*c.object;
        break;
      case Frame::kDative:
        dative = focus = &*c.object;
        break;
      case Frame::kDitransitive:
        accusative = focus = &*c.object;
        dative = &*c.recipient;
        break;
      default:
        break;
    }
  }
  const bool kein = c.negated && focus != nullptr && focus->indefinite();
  auto is_pronoun = [](const NounPhrase* p) {
    return p != nullptr && p->kind == NounPhrase::Kind::kPronoun;
  };

  Tokens middle;
  if (is_pronoun(accusative)) append(middle, german_noun_phrase(*accusative, kAccusative));
  if (is_pronoun(dative)) append(middle, german_noun_phrase(*dative, kDative));
  if (adverb != nullptr && !c.adverb_fronted) append(middle, adverb->de);
  if (dative != nullptr && !is_pronoun(dative)) {
    append(middle, german_noun_phrase(*dative, kDative, kein && focus == dative));
  }
  if (accusative != nullptr && !is_pronoun(accusative)) {
    append(middle, german_noun_phrase(*accusative, kAccusative, kein && focus == accusative));
  }
  if (c.negated && !kein) middle.push_back("nicht");
  if (verb != nullptr && verb->frame == Frame::kPrepositional) {
    append(middle, german_prepositional_phrase(verb->de_preposition, verb->de_case, *c.object));
  }
  if (c.phrase) {
    if (c.phrase->preposition >= 0) {
      const Preposition& p = lex.prepositions[c.phrase->preposition];
      append(middle, german_prepositional_phrase(p.de, p.de_case, c.phrase->object));
    } else {
      append(middle, lex.adverbs[c.phrase->adverb].de);
    }
  }
  if (verb == nullptr) {
    if (c.very) middle.push_back("sehr");
    middle.push_back(lex.adjectives[c.adjective].de);
  }

  Tokens subject;
  if (c.is_relative) {
    subject.push_back(
        lex.definite_article[kNominative]
                            [c.subject.plural ? kPluralColumn : lex.nouns[c.subject.index].gender]);
  } else {
    subject = german_noun_phrase(c.subject, kNominative);
    if (c.relative) {
      subject.push_back(",");
      append(subject, german_clause(*c.relative, GermanOrder::kSubordinate, {}));
      subject.push_back(",");
    }
  }

  Tokens out;
  Tokens fronted = front;
  if (adverb != nullptr && c.adverb_fronted) append(fronted, adverb->de);
  switch (order) {
    case GermanOrder::kMain:
      if (fronted.empty()) {
        append(out, subject);
        out.push_back(finite);
      } else {
        append(out, fronted);
        out.push_back(finite);
        append(out, subject);
      }
      append(out, middle);
      append(out, complex);
      break;
    case GermanOrder::kQuestion:
      append(out, fronted);
      out.push_back(finite);
      append(out, subject);
      append(out, middle);
      append(out, complex);
      break;
    case GermanOrder::kSubordinate:
      append(out, subject);
      append(out, middle);
      if (separable_present) {
        out.push_back(complex.front() + finite);
      } else {
        append(out, complex);
        out.push_back(finite);
      }
      break;
  }
  if (c.complement) {
    out.push_back(",");
    out.push_back(verb->complementizer_de);
    append(out, german_clause(*c.complement, GermanOrder::kSubordinate, {}));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sentences.

bool is_punctuation(const std::string& token) {
  return token == "," || token == "." || token == "?";
}

// Capitalises the first letter (ASCII or ä, ö, ü).
void capitalise(std::string& word) {
  if (word.empty()) return;
  if (word[0] >= 'a' && word[0] <= 'z') {
    word[0] = static_cast<char>(word[0] - 'a' + 'A');
  } else if (word.size() >= 2 && word[0] == '\xC3' &&
             (word[1] == '\xA4' || word[1] == '\xB6' || word[1] == '\xBC')) {
    word[1] = static_cast<char>(word[1] - 0x20);
  }
}

std::string join(Tokens tokens, bool english) {
  if (english) {
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      const char next = tokens[i + 1].empty() ? ' ' : tokens[i + 1][0];
      if (tokens[i] == "a" && std::string("aeiou").find(next) != std::string::npos)
        tokens[i] = "an";
    }
  }
  if (!tokens.empty()) capitalise(tokens.front());
  std::string text;
  for (const std::string& token : tokens) {
    if (!text.empty() && !is_punctuation(token)) text += ' ';
    text += token;
  }
  return text;
}

int word_count(const Tokens& tokens) {
  return static_cast<int>(std::count_if(tokens.begin(), tokens.end(),
                                        [](const std::string& t) { return !is_punctuation(t); }));
}

TextPair Generator::sentence() {
  for (;;) {
    Tokens en, de;
    const int kind = random_.weighted({24, 10, 7, 22, 12, 14});
    switch (kind) {
      case 0: {  // a declarative sentence
        ClauseOptions options;
        options.allow_fronting = true;
        options.allow_relative = true;
        const Clause c = clause(options);
        en = english_clause_body(c, false, nullptr);
        de = german_clause(c, GermanOrder::kMain, {});
        en.push_back(".");
        de.push_back(".");
        break;
      }
      case 1:    // a yes/no question
      case 2: {  // a wh-question
        ClauseOptions options;
        options.allow_negation = false;
        const Wh wh = kind == 1 ? Wh::kWhen : static_cast<Wh>(random_.below(3));
        if (kind == 2) {
          options.allow_time_adverb = wh != Wh::kWhen;
          options.allow_phrase = wh != Wh::kWhere;
          options.allow_copula = wh != Wh::kWhere;
          options.allow_negation = wh == Wh::kWhy;
          options.allow_modal_negation = false;
        }
        const Clause c = clause(options);
        const char* en_wh = nullptr;
        Tokens de_wh;
        if (kind == 2) {
          const bool motion = c.lexical() != nullptr && c.lexical()->frame == Frame::kMotion;
          en_wh = wh == Wh::kWhere ? "where" : wh == Wh::kWhen ? "when" : "why";
          de_wh.push_back(wh == Wh::kWhere  ? (motion ? "wohin" : "wo")
                          : wh == Wh::kWhen ? "wann"
                                            : "warum");
        }
        en = english_clause_body(c, true, en_wh);
        de = german_clause(c, GermanOrder::kQuestion, de_wh);
        en.push_back("?");
        de.push_back("?");
        break;
      }
      case 3: {  // main clause and adverbial clause, either first
        const Conjunction& conjunction =
            lex_.subordinators[random_.below(static_cast<int>(lex_.subordinators.size()))];
        const bool subordinate_first = conjunction.may_lead && random_.percent(40);
        ClauseOptions main_options;
        main_options.allow_fronting = !subordinate_first;
        main_options.tenses = random_.percent(30) ? kPastBit : kPresentBit | kModalBit;
        const Clause main = clause(main_options);
        ClauseOptions sub_options;
        sub_options.tenses = main_options.tenses;
        const Clause sub = clause(sub_options);
        Tokens en_sub, de_sub;
        append(en_sub, conjunction.en);
        append(en_sub, english_clause_body(sub, false, nullptr));
        append(de_sub, main_options.tenses == kPastBit ? conjunction.de_past : conjunction.de);
        append(de_sub, german_clause(sub, GermanOrder::kSubordinate, {}));
        if (subordinate_first) {
          en = en_sub;
          en.push_back(",");
          append(en, english_clause_body(main, false, nullptr));
          de_sub.push_back(",");
          de = german_clause(main, GermanOrder::kMain, de_sub);
        } else {
          en = english_clause_body(main, false, nullptr);
          append(en, en_sub);
          de = german_clause(main, GermanOrder::kMain, {});
          de.push_back(",");
          append(de, de_sub);
        }
        en.push_back(".");
        de.push_back(".");
        break;
      }
      case 4: {  // says that ...
        ClauseOptions options;
        options.clausal = true;
        options.allow_fronting = true;
        options.tenses = kPresentBit | kPastBit;
        Clause main = clause(options);
        if (main.adverb >= 0 && !main.adverb_fronted)
          main.adverb = -1;  // would read as the inner one's
        ClauseOptions inner;
        inner.tenses = random_.percent(30) ? kPastBit : kPresentBit | kModalBit;
        main.complement = std::make_shared<Clause>(clause(inner));
        en = english_clause_body(main, false, nullptr);
        de = german_clause(main, GermanOrder::kMain, {});
        en.push_back(".");
        de.push_back(".");
        break;
      }
      default: {  // two main clauses joined by and, but or or
        const int tenses = random_.percent(30) ? kPastBit : kPresentBit | kModalBit;
        ClauseOptions first;
        first.tenses = tenses;
        ClauseOptions second = first;
        second.allow_fronting = true;
        const Clause a = clause(first);
        const Clause b = clause(second);
        std::vector<int> weights;
        for (const Coordinator& coordinator : lex_.coordinators) {
          weights.push_back(coordinator.weight);
        }
        const Coordinator& conjunction = lex_.coordinators[random_.weighted(weights)];
        en = english_clause_body(a, false, nullptr);
        de = german_clause(a, GermanOrder::kMain, {});
        if (conjunction.comma) {
          en.push_back(",");
          de.push_back(",");
        }
        append(en, conjunction.en);
        append(de, conjunction.de);
        append(en, english_clause_body(b, false, nullptr));
        append(de, german_clause(b, GermanOrder::kMain, {}));
        en.push_back(".");
        de.push_back(".");
        break;
      }
    }
    const int words = word_count(en);
    // Half the shortest sentences are drawn again, so most have 8 to 14 words.
    const bool kept = words >= kShortSourceWords || random_.percent(50);
    if (words >= kMinSourceWords && words <= kMaxSourceWords && kept) {
      return {join(en, true), join(de, false)};
    }
  }
}

}  // namespace
}  // namespace synthetic

namespace {

void write_text_file(const fs::path& file, const std::vector<std::string>& lines) {
  const fs::path partial = file.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    for (const std::string& line : lines) out << line << '\n';
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(partial, ignored);
      throw UserError(file.string() + ": cannot be written; check the folder and the free space");
    }
  }
  std::error_code error;
  fs::rename(partial, file, error);
  if (error) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    throw UserError(file.string() + ": cannot be written (" + error.message() + ")");
  }
}

}  // namespace

TextPair synthetic_sentence_pair(uint64_t seed, int64_t index) {
  return synthetic::Generator(seed, index).sentence();
}

void write_synthetic_parallel_corpus(const SyntheticCorpusSpec& spec, const fs::path& source_file,
                                     const fs::path& target_file) {
  if (spec.pairs <= 0) {
    throw UserError("synthetic parallel corpus: pairs is " + std::to_string(spec.pairs) +
                    "; set it positive");
  }
  std::vector<std::string> source, target;
  source.reserve(static_cast<size_t>(spec.pairs));
  target.reserve(static_cast<size_t>(spec.pairs));
  for (int64_t i = 0; i < spec.pairs; ++i) {
    TextPair pair = synthetic_sentence_pair(spec.seed, i);
    source.push_back(std::move(pair.source));
    target.push_back(std::move(pair.target));
  }
  for (const fs::path& file : {source_file, target_file}) {
    if (!file.has_parent_path()) continue;
    std::error_code error;
    fs::create_directories(file.parent_path(), error);
    if (error) {
      throw UserError(file.parent_path().string() + ": cannot be created (" + error.message() +
                      ")");
    }
  }
  write_text_file(source_file, source);
  write_text_file(target_file, target);
}

}  // namespace mlh::wmt
