#include "datasets/wmt/synthetic_lexicon.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <initializer_list>
#include <map>

#include "base/user_error.h"
#include "datasets/wmt/embedded_lexicons.h"

namespace mlh::wmt::synthetic {

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) words.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

namespace {

// The er-form of a regular German verb: arbeiten -> arbeitet, spielen -> spielt, füttern ->
// füttert.
std::string regular_third_person(const std::string& infinitive) {
  if (ends_with(infinitive, "ern") || ends_with(infinitive, "eln")) {
    return infinitive.substr(0, infinitive.size() - 1) + "t";
  }
  const std::string stem = infinitive.substr(0, infinitive.size() - 2);
  return stem + (ends_with(stem, "t") || ends_with(stem, "d") ? "et" : "t");
}

constexpr const char* kLexiconName = "wmt/synthetic_lexicon";
constexpr const char* kLexiconFile = "datasets/wmt/synthetic_lexicon.yaml";

[[noreturn]] void bad_lexicon(const YAML::Node& node, const std::string& what) {
  throw InternalError(std::string(kLexiconFile) + ":" + std::to_string(node.Mark().line + 1) +
                      ": " + what);
}

// A mapping whose keys are all among `allowed`.
void expect_keys(const YAML::Node& entry, std::initializer_list<const char*> allowed) {
  if (!entry.IsMap()) bad_lexicon(entry, "expected a mapping {key: value, ...}");
  for (const auto& item : entry) {
    const std::string key = item.first.Scalar();
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* k) { return key == k; })) {
      bad_lexicon(item.first, "unknown key '" + key + "'");
    }
  }
}

bool has(const YAML::Node& entry, const char* key) { return entry[key].IsDefined(); }

YAML::Node field(const YAML::Node& entry, const char* key) {
  const YAML::Node value = entry[key];
  if (!value.IsDefined()) bad_lexicon(entry, std::string("missing '") + key + "'");
  return value;
}

std::optional<std::string> word_or_none(const YAML::Node& node) {
  if (node.IsNull()) return std::nullopt;
  if (!node.IsScalar()) bad_lexicon(node, "expected a word");
  return node.Scalar();
}

std::string word(const YAML::Node& node) {
  const std::optional<std::string> text = word_or_none(node);
  if (!text) bad_lexicon(node, "expected a word, not ~");
  return *text;
}

// A sequence of exactly `count` items.
const YAML::Node& sequence(const YAML::Node& node, size_t count) {
  if (!node.IsSequence() || node.size() != count) {
    bad_lexicon(node, "expected a list of " + std::to_string(count));
  }
  return node;
}

template <size_t N>
std::array<std::string, N> words(const YAML::Node& node) {
  std::array<std::string, N> out;
  for (size_t i = 0; i < N; ++i) out[i] = word(sequence(node, N)[i]);
  return out;
}

CaseTable case_table(const YAML::Node& node) {
  CaseTable table;
  for (size_t c = 0; c < table.size(); ++c) table[c] = words<4>(sequence(node, 3)[c]);
  return table;
}

// Three space-separated words, as "see sees saw".
std::array<std::string, 3> three_forms(const YAML::Node& node) {
  const std::vector<std::string> forms = split_words(word(node));
  if (forms.size() != 3) bad_lexicon(node, "expected three forms");
  return {forms[0], forms[1], forms[2]};
}

int weight(const YAML::Node& node) {
  int value = 0;
  if (!YAML::convert<int>::decode(node, value) || value <= 0) {
    bad_lexicon(node, "expected a positive integer");
  }
  return value;
}

bool flag(const YAML::Node& node) {
  bool value = false;
  if (!YAML::convert<bool>::decode(node, value)) bad_lexicon(node, "expected true or false");
  return value;
}

template <typename T>
T choice(const YAML::Node& node, const std::map<std::string, T>& choices) {
  const auto found = choices.find(word(node));
  if (found == choices.end()) {
    std::string names;
    for (const auto& [name, value] : choices) names += (names.empty() ? "" : ", ") + name;
    bad_lexicon(node, "expected one of " + names);
  }
  return found->second;
}

Case grammatical_case(const YAML::Node& node) {
  return choice<Case>(
      node, {{"nominative", kNominative}, {"accusative", kAccusative}, {"dative", kDative}});
}

using ClassNames = std::map<std::string, uint32_t>;

// "object text", "any -drink": names add classes, "-name" takes them out.
uint32_t class_set(const YAML::Node& node, const ClassNames& names) {
  uint32_t classes = 0;
  for (const std::string& token : split_words(word(node))) {
    const bool remove = token[0] == '-';
    const auto found = names.find(remove ? token.substr(1) : token);
    if (found == names.end()) bad_lexicon(node, "unknown noun class '" + token + "'");
    classes = remove ? classes & ~found->second : classes | found->second;
  }
  if (classes == 0) bad_lexicon(node, "an empty class set");
  return classes;
}

ClassNames class_names(const YAML::Node& groups) {
  ClassNames names = {
      {"person", kPerson},     {"animal", kAnimal},   {"object", kObject},
      {"food", kFood},         {"drink", kDrink},     {"text", kText},
      {"place", kPlace},       {"vehicle", kVehicle}, {"fixture", kFixture},
      {"openable", kOpenable}, {"device", kDevice},   {"container", kContainer},
      {"animate", kAnimate},   {"any", kAnyClass},
  };
  if (!groups.IsMap()) bad_lexicon(groups, "expected a mapping of group names to classes");
  for (const auto& group : groups) {
    uint32_t classes = 0;
    if (!group.second.IsSequence()) bad_lexicon(group.second, "expected a list of classes");
    for (const auto& member : group.second) classes |= class_set(member, names);
    if (!names.emplace(group.first.Scalar(), classes).second) {
      bad_lexicon(group.first, "the class '" + group.first.Scalar() + "' is defined already");
    }
  }
  return names;
}

Noun read_noun(const YAML::Node& entry, const ClassNames& classes) {
  expect_keys(entry, {"en", "de", "gender", "classes", "de_oblique"});
  const YAML::Node en = sequence(field(entry, "en"), 2);
  const YAML::Node de = sequence(field(entry, "de"), 2);
  Noun noun;
  noun.en = word(en[0]);
  noun.en_plural = word_or_none(en[1]);
  noun.de = word(de[0]);
  noun.de_plural = word_or_none(de[1]);
  if (noun.en_plural.has_value() != noun.de_plural.has_value()) {
    bad_lexicon(entry, "a plural in one language only");
  }
  noun.gender = choice<Gender>(field(entry, "gender"),
                               {{"der", kMasculine}, {"die", kFeminine}, {"das", kNeuter}});
  noun.classes = class_set(field(entry, "classes"), classes);
  if (has(entry, "de_oblique")) noun.de_oblique = word(entry["de_oblique"]);
  return noun;
}

Adjective read_adjective(const YAML::Node& entry, const ClassNames& classes) {
  expect_keys(entry, {"en", "de", "de_stem", "classes"});
  Adjective adjective;
  adjective.en = word(field(entry, "en"));
  adjective.de = word(field(entry, "de"));
  if (has(entry, "de_stem")) adjective.de_stem = word(entry["de_stem"]);
  adjective.classes = class_set(field(entry, "classes"), classes);
  return adjective;
}

Determiner read_determiner(const YAML::Node& entry) {
  expect_keys(entry, {"name", "en", "de", "kind", "weight"});
  const YAML::Node en = sequence(field(entry, "en"), 2);
  Determiner determiner;
  determiner.en_singular = word_or_none(en[0]);
  determiner.en_plural = word_or_none(en[1]);
  determiner.de = has(entry, "de") ? word(entry["de"]) : "";
  determiner.kind =
      choice<DeterminerKind>(field(entry, "kind"), {{"definite", DeterminerKind::kDefinite},
                                                    {"der-word", DeterminerKind::kDerWord},
                                                    {"ein-word", DeterminerKind::kEinWord},
                                                    {"plural-word", DeterminerKind::kPluralWord},
                                                    {"numeral", DeterminerKind::kNumeral},
                                                    {"bare", DeterminerKind::kBare}});
  determiner.weight = weight(field(entry, "weight"));
  if (!determiner.en_singular && !determiner.en_plural &&
      determiner.kind != DeterminerKind::kNumeral) {
    bad_lexicon(entry, "only a numeral goes with no English word: en: [~, ~]");
  }
  return determiner;
}

// Finds the determiners the grammar names; each must be there, once.
DeterminerIds determiner_ids(const YAML::Node& entries) {
  DeterminerIds ids;
  const std::map<std::string, int DeterminerIds::*> roles = {
      {"the", &DeterminerIds::the},
      {"a", &DeterminerIds::a},
      {"bare plural", &DeterminerIds::bare_plural},
      {"no", &DeterminerIds::no},
      {"every", &DeterminerIds::every},
      {"many", &DeterminerIds::many},
      {"some", &DeterminerIds::some},
      {"number", &DeterminerIds::number},
  };
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto role = roles.find(word(field(entries[i], "name")));
    if (role == roles.end()) continue;
    if (ids.*(role->second) >= 0) bad_lexicon(entries[i], "a second '" + role->first + "'");
    ids.*(role->second) = static_cast<int>(i);
  }
  for (const auto& [name, member] : roles) {
    if (ids.*member < 0) bad_lexicon(entries, "no determiner named '" + name + "'");
  }
  return ids;
}

Pronoun read_pronoun(const YAML::Node& entry, const ClassNames& classes) {
  expect_keys(entry, {"en", "de", "verb_form", "classes"});
  const std::array<std::string, 2> en = words<2>(field(entry, "en"));
  Pronoun pronoun;
  pronoun.en_subject = en[0];
  pronoun.en_object = en[1];
  pronoun.de = words<3>(field(entry, "de"));
  pronoun.slot = choice<Slot>(field(entry, "verb_form"), {{"ich", kFirstSingular},
                                                          {"du", kSecondSingular},
                                                          {"er", kThirdSingular},
                                                          {"wir", kFirstPlural},
                                                          {"sie", kThirdPlural}});
  pronoun.classes = class_set(field(entry, "classes"), classes);
  return pronoun;
}

Preposition read_preposition(const YAML::Node& entry, const ClassNames& classes) {
  expect_keys(entry, {"en", "de", "case", "use", "classes"});
  Preposition preposition;
  preposition.en = word(field(entry, "en"));
  preposition.de = word(field(entry, "de"));
  preposition.de_case = grammatical_case(field(entry, "case"));
  preposition.use =
      choice<PrepositionUse>(field(entry, "use"), {{"locative", PrepositionUse::kLocative},
                                                   {"directional", PrepositionUse::kDirectional},
                                                   {"company", PrepositionUse::kCompany},
                                                   {"beneficiary", PrepositionUse::kBeneficiary}});
  preposition.classes = class_set(field(entry, "classes"), classes);
  return preposition;
}

int tense_set(const YAML::Node& node) {
  const std::map<std::string, int> bits = {
      {"present", kPresentBit}, {"past", kPastBit}, {"modal", kModalBit}, {"any", kAnyTense}};
  int tenses = 0;
  for (const std::string& token : split_words(word(node))) {
    const auto found = bits.find(token);
    if (found == bits.end()) bad_lexicon(node, "unknown tense '" + token + "'");
    tenses |= found->second;
  }
  if (tenses == 0) bad_lexicon(node, "no tense");
  return tenses;
}

Adverb read_adverb(const YAML::Node& entry) {
  expect_keys(entry, {"en", "de", "kind", "tenses"});
  Adverb adverb;
  adverb.en = word(field(entry, "en"));
  adverb.de = word(field(entry, "de"));
  adverb.kind = choice<AdverbKind>(field(entry, "kind"), {{"time", AdverbKind::kTime},
                                                          {"frequency", AdverbKind::kFrequency},
                                                          {"place", AdverbKind::kPlace},
                                                          {"home", AdverbKind::kHome}});
  adverb.tenses = tense_set(field(entry, "tenses"));
  return adverb;
}

Modal read_modal(const YAML::Node& entry) {
  expect_keys(entry, {"en", "en_third", "en_negated", "en_do_form", "de"});
  Modal modal;
  modal.en = word(field(entry, "en"));
  modal.en_third = word(field(entry, "en_third"));
  if (has(entry, "en_negated")) modal.en_negated = word(entry["en_negated"]);
  if (has(entry, "en_do_form")) modal.en_do_form = word(entry["en_do_form"]);
  if (modal.en_negated.has_value() == modal.en_do_form.has_value()) {
    bad_lexicon(entry, "a modal has en_negated or else en_do_form");
  }
  modal.de = words<5>(field(entry, "de"));
  return modal;
}

Conjunction read_subordinator(const YAML::Node& entry) {
  expect_keys(entry, {"en", "de", "de_past", "may_lead"});
  Conjunction conjunction;
  conjunction.en = word(field(entry, "en"));
  conjunction.de = word(field(entry, "de"));
  conjunction.de_past = has(entry, "de_past") ? word(entry["de_past"]) : conjunction.de;
  conjunction.may_lead = has(entry, "may_lead") && flag(entry["may_lead"]);
  return conjunction;
}

Coordinator read_coordinator(const YAML::Node& entry) {
  expect_keys(entry, {"en", "de", "weight", "comma"});
  Coordinator coordinator;
  coordinator.en = word(field(entry, "en"));
  coordinator.de = word(field(entry, "de"));
  coordinator.weight = weight(field(entry, "weight"));
  coordinator.comma = has(entry, "comma") && flag(entry["comma"]);
  return coordinator;
}

Verb read_verb(const YAML::Node& entry, const ClassNames& classes) {
  expect_keys(entry, {"frame", "en", "de", "subject", "object", "recipient", "perfect", "particles",
                      "preposition", "ich", "complementizer"});
  Verb verb;
  verb.frame = choice<Frame>(field(entry, "frame"), {{"intransitive", Frame::kIntransitive},
                                                     {"motion", Frame::kMotion},
                                                     {"transitive", Frame::kTransitive},
                                                     {"dative", Frame::kDative},
                                                     {"ditransitive", Frame::kDitransitive},
                                                     {"prepositional", Frame::kPrepositional},
                                                     {"clausal", Frame::kClausal}});
  const std::array<std::string, 3> en = three_forms(field(entry, "en"));
  verb.en = en[0];
  verb.en_third = en[1];
  verb.en_past = en[2];
  const std::array<std::string, 3> de = three_forms(field(entry, "de"));
  verb.de = de[0];
  verb.de_third = de[1] == "-" ? regular_third_person(verb.de) : de[1];
  verb.de_first = has(entry, "ich") ? word(entry["ich"]) : verb.de.substr(0, verb.de.size() - 1);
  verb.de_participle = de[2];
  verb.subject = class_set(field(entry, "subject"), classes);

  const bool takes_object = verb.frame == Frame::kTransitive || verb.frame == Frame::kDative ||
                            verb.frame == Frame::kDitransitive ||
                            verb.frame == Frame::kPrepositional;
  if (takes_object != has(entry, "object")) {
    bad_lexicon(entry, takes_object ? "this frame needs an object" : "this frame takes no object");
  }
  if (takes_object) verb.object = class_set(entry["object"], classes);
  if ((verb.frame == Frame::kDitransitive) != has(entry, "recipient")) {
    bad_lexicon(entry, "a recipient goes with the ditransitive frame, and only there");
  }
  if (has(entry, "recipient")) verb.recipient = class_set(entry["recipient"], classes);
  if (verb.frame == Frame::kDative) verb.de_case = kDative;

  if (has(entry, "perfect")) {
    verb.de_sein = choice<bool>(entry["perfect"], {{"haben", false}, {"sein", true}});
  }
  if (has(entry, "particles")) {
    const std::array<std::string, 2> particles = words<2>(entry["particles"]);
    verb.en_particle = particles[0];
    verb.de_particle = particles[1];
  }
  if (verb.frame == Frame::kPrepositional && !has(entry, "preposition")) {
    bad_lexicon(entry, "a prepositional verb needs its preposition");
  }
  if (has(entry, "preposition")) {
    const YAML::Node preposition = sequence(entry["preposition"], 3);
    verb.en_preposition = word(preposition[0]);
    verb.de_preposition = word(preposition[1]);
    verb.de_case = grammatical_case(preposition[2]);
  }
  if (has(entry, "complementizer")) {
    if (verb.frame != Frame::kClausal) {
      bad_lexicon(entry, "only a clausal verb has a complementizer");
    }
    const std::array<std::string, 2> complementizer = words<2>(entry["complementizer"]);
    verb.complementizer_en = complementizer[0];
    verb.complementizer_de = complementizer[1];
  }
  return verb;
}

// Reads every entry of the list `key` with `read`.
template <typename Read>
auto read_list(const YAML::Node& root, const char* key, Read read) {
  const YAML::Node entries = field(root, key);
  if (!entries.IsSequence() || entries.size() == 0) bad_lexicon(entries, "expected a list");
  std::vector<decltype(read(entries[0]))> items;
  for (const auto& entry : entries) items.push_back(read(entry));
  return items;
}

}  // namespace

Lexicon read_lexicon(const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InternalError(std::string(kLexiconFile) + ": " + e.what());
  }
  expect_keys(root, {"class_groups", "nouns", "adjectives", "determiners", "german", "english",
                     "number_words", "names", "pronouns", "prepositions", "contractions", "adverbs",
                     "modals", "subordinators", "coordinators", "verbs"});
  const ClassNames classes = class_names(field(root, "class_groups"));
  Lexicon lex;
  lex.nouns = read_list(root, "nouns", [&](const YAML::Node& e) { return read_noun(e, classes); });
  lex.adjectives = read_list(root, "adjectives",
                             [&](const YAML::Node& e) { return read_adjective(e, classes); });
  lex.determiners = read_list(root, "determiners", read_determiner);
  lex.determiner_ids = determiner_ids(field(root, "determiners"));
  if (lex.determiners[lex.determiner_ids.number].kind != DeterminerKind::kNumeral) {
    bad_lexicon(field(root, "determiners"), "the determiner 'number' is of kind numeral");
  }

  const YAML::Node german = field(root, "german");
  expect_keys(german, {"definite_article", "der_word_endings", "ein_word_endings",
                       "weak_adjective_endings", "mixed_adjective_endings",
                       "strong_plural_adjective_endings", "sein", "war", "haben"});
  lex.definite_article = case_table(field(german, "definite_article"));
  lex.der_word_endings = case_table(field(german, "der_word_endings"));
  lex.ein_word_endings = case_table(field(german, "ein_word_endings"));
  lex.weak_adjective_endings = case_table(field(german, "weak_adjective_endings"));
  lex.mixed_adjective_endings = case_table(field(german, "mixed_adjective_endings"));
  lex.strong_plural_adjective_endings = words<3>(field(german, "strong_plural_adjective_endings"));
  lex.german_sein = words<5>(field(german, "sein"));
  lex.german_war = words<5>(field(german, "war"));
  lex.german_haben = words<5>(field(german, "haben"));
  const YAML::Node english = field(root, "english");
  expect_keys(english, {"be", "was"});
  lex.english_be = {words<5>(field(english, "be")), words<5>(field(english, "was"))};

  lex.number_words = read_list(root, "number_words", words<2>);
  if (lex.last_number_word() >= kLastNumber) {
    bad_lexicon(field(root, "number_words"),
                "number words stop below " + std::to_string(kLastNumber));
  }
  lex.names = read_list(root, "names", word);
  lex.pronouns =
      read_list(root, "pronouns", [&](const YAML::Node& e) { return read_pronoun(e, classes); });
  lex.prepositions = read_list(root, "prepositions",
                               [&](const YAML::Node& e) { return read_preposition(e, classes); });
  lex.contractions = read_list(root, "contractions", words<3>);
  lex.adverbs = read_list(root, "adverbs", read_adverb);
  lex.modals = read_list(root, "modals", read_modal);
  lex.subordinators = read_list(root, "subordinators", read_subordinator);
  lex.coordinators = read_list(root, "coordinators", read_coordinator);
  lex.verbs = read_list(root, "verbs", [&](const YAML::Node& e) { return read_verb(e, classes); });
  return lex;
}

const Lexicon& lexicon() {
  static const Lexicon parsed = [] {
    const auto& files = embedded_lexicons();
    const auto found = files.find(kLexiconName);
    MLH_ASSERT(found != files.end());
    return read_lexicon(found->second);
  }();
  return parsed;
}

}  // namespace mlh::wmt::synthetic
