#include "datasets/wmt/synthetic_corpus.h"

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "compliance/user_error.h"
#include "datasets/counter_random.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;

constexpr int kMinSourceWords = 4;
constexpr int kMaxSourceWords = 25;
constexpr int kShortSourceWords = 6;

// ---------------------------------------------------------------------------------------------
// The lexicon.

// Noun classes: what a verb, preposition or adjective accepts.
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
  kGoods = kObject | kFood | kDrink | kText | kVehicle | kDevice,
  kColoured = kObject | kAnimal | kVehicle | kFixture | kFood,
};

enum Gender { kMasculine = 0, kFeminine = 1, kNeuter = 2 };
constexpr int kPluralColumn = 3;  // German tables: masculine, feminine, neuter, plural
enum Case { kNominative = 0, kAccusative = 1, kDative = 2 };

struct Noun {
  const char* en;
  const char* en_plural;  // nullptr: a mass noun, singular only
  const char* de;
  const char* de_plural;
  Gender gender;
  uint32_t classes;
  const char* de_oblique = nullptr;  // weak masculine nouns (der Junge, den Jungen)
};

// clang-format off
constexpr Noun kNouns[] = {
    {"man", "men", "Mann", "Männer", kMasculine, kPerson},
    {"woman", "women", "Frau", "Frauen", kFeminine, kPerson},
    {"child", "children", "Kind", "Kinder", kNeuter, kPerson},
    {"boy", "boys", "Junge", "Jungen", kMasculine, kPerson, "Jungen"},
    {"girl", "girls", "Mädchen", "Mädchen", kNeuter, kPerson},
    {"teacher", "teachers", "Lehrer", "Lehrer", kMasculine, kPerson},
    {"doctor", "doctors", "Arzt", "Ärzte", kMasculine, kPerson},
    {"colleague", "colleagues", "Kollege", "Kollegen", kMasculine, kPerson, "Kollegen"},
    {"friend", "friends", "Freund", "Freunde", kMasculine, kPerson},
    {"neighbour", "neighbours", "Nachbar", "Nachbarn", kMasculine, kPerson, "Nachbarn"},
    {"mother", "mothers", "Mutter", "Mütter", kFeminine, kPerson},
    {"father", "fathers", "Vater", "Väter", kMasculine, kPerson},
    {"brother", "brothers", "Bruder", "Brüder", kMasculine, kPerson},
    {"sister", "sisters", "Schwester", "Schwestern", kFeminine, kPerson},
    {"baker", "bakers", "Bäcker", "Bäcker", kMasculine, kPerson},
    {"king", "kings", "König", "Könige", kMasculine, kPerson},
    {"guest", "guests", "Gast", "Gäste", kMasculine, kPerson},

    {"dog", "dogs", "Hund", "Hunde", kMasculine, kAnimal},
    {"cat", "cats", "Katze", "Katzen", kFeminine, kAnimal},
    {"horse", "horses", "Pferd", "Pferde", kNeuter, kAnimal},
    {"bird", "birds", "Vogel", "Vögel", kMasculine, kAnimal},
    {"mouse", "mice", "Maus", "Mäuse", kFeminine, kAnimal},
    {"cow", "cows", "Kuh", "Kühe", kFeminine, kAnimal},
    {"pig", "pigs", "Schwein", "Schweine", kNeuter, kAnimal},
    {"bear", "bears", "Bär", "Bären", kMasculine, kAnimal, "Bären"},
    {"lion", "lions", "Löwe", "Löwen", kMasculine, kAnimal, "Löwen"},
    {"rabbit", "rabbits", "Hase", "Hasen", kMasculine, kAnimal, "Hasen"},
    {"monkey", "monkeys", "Affe", "Affen", kMasculine, kAnimal, "Affen"},
    {"fox", "foxes", "Fuchs", "Füchse", kMasculine, kAnimal},

    {"book", "books", "Buch", "Bücher", kNeuter, kObject | kText | kOpenable},
    {"letter", "letters", "Brief", "Briefe", kMasculine, kObject | kText | kOpenable},
    {"newspaper", "newspapers", "Zeitung", "Zeitungen", kFeminine, kObject | kText},
    {"key", "keys", "Schlüssel", "Schlüssel", kMasculine, kObject},
    {"bag", "bags", "Tasche", "Taschen", kFeminine, kObject | kOpenable | kContainer},
    {"box", "boxes", "Kiste", "Kisten", kFeminine, kObject | kOpenable | kContainer},
    {"cup", "cups", "Tasse", "Tassen", kFeminine, kObject | kContainer},
    {"glass", "glasses", "Glas", "Gläser", kNeuter, kObject | kContainer},
    {"bottle", "bottles", "Flasche", "Flaschen", kFeminine, kObject | kOpenable | kContainer},
    {"picture", "pictures", "Bild", "Bilder", kNeuter, kObject},
    {"flower", "flowers", "Blume", "Blumen", kFeminine, kObject},
    {"shoe", "shoes", "Schuh", "Schuhe", kMasculine, kObject},
    {"coat", "coats", "Mantel", "Mäntel", kMasculine, kObject},
    {"umbrella", "umbrellas", "Regenschirm", "Regenschirme", kMasculine, kObject | kOpenable},
    {"phone", "phones", "Telefon", "Telefone", kNeuter, kObject | kDevice},
    {"lamp", "lamps", "Lampe", "Lampen", kFeminine, kObject | kDevice},
    {"television", "televisions", "Fernseher", "Fernseher", kMasculine, kDevice},
    {"present", "presents", "Geschenk", "Geschenke", kNeuter, kObject | kOpenable},
    {"table", "tables", "Tisch", "Tische", kMasculine, kFixture},
    {"bed", "beds", "Bett", "Betten", kNeuter, kFixture},
    {"chair", "chairs", "Stuhl", "Stühle", kMasculine, kFixture | kObject},
    {"door", "doors", "Tür", "Türen", kFeminine, kFixture | kOpenable},
    {"window", "windows", "Fenster", "Fenster", kNeuter, kFixture | kOpenable},
    {"tree", "trees", "Baum", "Bäume", kMasculine, kFixture},
    {"bridge", "bridges", "Brücke", "Brücken", kFeminine, kFixture},

    {"apple", "apples", "Apfel", "Äpfel", kMasculine, kFood},
    {"bread", nullptr, "Brot", nullptr, kNeuter, kFood},
    {"cake", "cakes", "Kuchen", "Kuchen", kMasculine, kFood},
    {"soup", nullptr, "Suppe", nullptr, kFeminine, kFood},
    {"egg", "eggs", "Ei", "Eier", kNeuter, kFood},
    {"cheese", nullptr, "Käse", nullptr, kMasculine, kFood},
    {"banana", "bananas", "Banane", "Bananen", kFeminine, kFood},
    {"milk", nullptr, "Milch", nullptr, kFeminine, kDrink},
    {"tea", nullptr, "Tee", nullptr, kMasculine, kDrink},
    {"coffee", nullptr, "Kaffee", nullptr, kMasculine, kDrink},
    {"water", nullptr, "Wasser", nullptr, kNeuter, kDrink},
    {"juice", nullptr, "Saft", nullptr, kMasculine, kDrink},

    {"house", "houses", "Haus", "Häuser", kNeuter, kPlace | kFixture},
    {"garden", "gardens", "Garten", "Gärten", kMasculine, kPlace},
    {"school", "schools", "Schule", "Schulen", kFeminine, kPlace},
    {"kitchen", "kitchens", "Küche", "Küchen", kFeminine, kPlace},
    {"city", "cities", "Stadt", "Städte", kFeminine, kPlace},
    {"forest", "forests", "Wald", "Wälder", kMasculine, kPlace},
    {"station", "stations", "Bahnhof", "Bahnhöfe", kMasculine, kPlace},
    {"shop", "shops", "Laden", "Läden", kMasculine, kPlace},
    {"room", "rooms", "Zimmer", "Zimmer", kNeuter, kPlace},
    {"village", "villages", "Dorf", "Dörfer", kNeuter, kPlace},
    {"office", "offices", "Büro", "Büros", kNeuter, kPlace},
    {"street", "streets", "Straße", "Straßen", kFeminine, kPlace},

    {"car", "cars", "Auto", "Autos", kNeuter, kVehicle | kFixture},
    {"train", "trains", "Zug", "Züge", kMasculine, kVehicle},
    {"boat", "boats", "Boot", "Boote", kNeuter, kVehicle},
    {"bicycle", "bicycles", "Fahrrad", "Fahrräder", kNeuter, kVehicle},
    {"ship", "ships", "Schiff", "Schiffe", kNeuter, kVehicle},
};

struct Adjective {
  const char* en;
  const char* de;         // predicative
  const char* de_stem;    // before attributive endings, when it differs (müde -> müd-e)
  uint32_t classes;
};

constexpr Adjective kAdjectives[] = {
    {"big", "groß", nullptr, kAnyClass & ~kDrink},
    {"small", "klein", nullptr, kAnyClass & ~kDrink},
    {"old", "alt", nullptr, kAnyClass & ~kDrink},
    {"beautiful", "schön", nullptr, kAnyClass & ~kDrink},
    {"good", "gut", nullptr, kAnyClass},
    {"young", "jung", nullptr, kAnimate},
    {"new", "neu", nullptr, kGoods | kPlace | kFixture},
    {"red", "rot", nullptr, kColoured},
    {"black", "schwarz", nullptr, kColoured},
    {"white", "weiß", nullptr, kColoured},
    {"green", "grün", nullptr, kColoured},
    {"blue", "blau", nullptr, kColoured},
    {"brown", "braun", nullptr, kColoured},
    {"happy", "glücklich", nullptr, kAnimate},
    {"sad", "traurig", nullptr, kAnimate},
    {"tired", "müde", "müd", kAnimate},
    {"hungry", "hungrig", nullptr, kAnimate},
    {"friendly", "freundlich", nullptr, kAnimate},
    {"clever", "klug", nullptr, kAnimate},
    {"loud", "laut", nullptr, kAnimate | kDevice | kPlace},
    {"quiet", "leise", "leis", kAnimate | kDevice | kPlace},
    {"fast", "schnell", nullptr, kAnimate | kVehicle},
    {"slow", "langsam", nullptr, kAnimate | kVehicle},
    {"cold", "kalt", nullptr, kFood | kDrink | kPlace},
    {"hot", "heiß", nullptr, kFood | kDrink},
    {"cheap", "billig", nullptr, kGoods},
    {"expensive", "teuer", "teur", kGoods},
    {"heavy", "schwer", nullptr, kObject | kFixture | kAnimal | kVehicle},
    {"dirty", "schmutzig", nullptr, kObject | kPlace | kAnimal | kVehicle | kFixture},
    {"clean", "sauber", nullptr, kObject | kPlace | kAnimal | kVehicle | kFixture},
    {"empty", "leer", nullptr, kContainer | kPlace},
    {"full", "voll", nullptr, kContainer | kPlace},
};

// German determiner kinds, by the endings they take and the adjective declension after them.
enum class DeterminerKind {
  kDefinite,  // der, die, das: weak adjectives
  kDerWord,   // dies-er, jed-er: weak adjectives
  kEinWord,   // ein, kein, mein: mixed adjectives
  kPluralWord,  // viel-e, einig-e: strong adjectives
  kNumeral,   // zwei, 15: strong adjectives
  kBare,      // a bare plural: strong adjectives
};

struct Determiner {
  const char* en_singular;  // nullptr: not with a singular noun
  const char* en_plural;    // nullptr: not with a plural noun
  DeterminerKind kind;
  const char* de;           // the stem the endings go on
  int weight;               // relative frequency in noun phrases
};

enum DeterminerId {
  kThe, kA, kBarePlural, kNo, kThis, kEvery, kMy, kYour, kHis, kHer, kOur, kTheir, kMany, kSome,
  kNumber,
};

constexpr Determiner kDeterminers[] = {
    {"the", "the", DeterminerKind::kDefinite, "", 32},
    {"a", nullptr, DeterminerKind::kEinWord, "ein", 12},
    {nullptr, "", DeterminerKind::kBare, "", 7},
    {"no", "no", DeterminerKind::kEinWord, "kein", 2},
    {"this", "these", DeterminerKind::kDerWord, "dies", 6},
    {"every", nullptr, DeterminerKind::kDerWord, "jed", 2},
    {"my", "my", DeterminerKind::kEinWord, "mein", 4},
    {"your", "your", DeterminerKind::kEinWord, "dein", 3},
    {"his", "his", DeterminerKind::kEinWord, "sein", 3},
    {"her", "her", DeterminerKind::kEinWord, "ihr", 3},
    {"our", "our", DeterminerKind::kEinWord, "unser", 3},
    {"their", "their", DeterminerKind::kEinWord, "ihr", 3},
    {nullptr, "many", DeterminerKind::kPluralWord, "viel", 3},
    {nullptr, "some", DeterminerKind::kPluralWord, "einig", 3},
    {nullptr, nullptr, DeterminerKind::kNumeral, "", 6},
};

constexpr const char* kDefiniteArticle[3][4] = {
    {"der", "die", "das", "die"}, {"den", "die", "das", "die"}, {"dem", "der", "dem", "den"}};
constexpr const char* kDerWordEndings[3][4] = {
    {"er", "e", "es", "e"}, {"en", "e", "es", "e"}, {"em", "er", "em", "en"}};
constexpr const char* kEinWordEndings[3][4] = {
    {"", "e", "", "e"}, {"en", "e", "", "e"}, {"em", "er", "em", "en"}};
constexpr const char* kWeakAdjectiveEndings[3][4] = {
    {"e", "e", "e", "en"}, {"en", "e", "e", "en"}, {"en", "en", "en", "en"}};
constexpr const char* kMixedAdjectiveEndings[3][4] = {
    {"er", "e", "es", "en"}, {"en", "e", "es", "en"}, {"en", "en", "en", "en"}};
constexpr const char* kStrongPluralAdjectiveEndings[3] = {"e", "e", "en"};

// Number words two to twelve; larger numbers are written as numerals on both sides.
constexpr const char* kNumberWords[][2] = {
    {"two", "zwei"}, {"three", "drei"}, {"four", "vier"}, {"five", "fünf"}, {"six", "sechs"},
    {"seven", "sieben"}, {"eight", "acht"}, {"nine", "neun"}, {"ten", "zehn"}, {"eleven", "elf"},
    {"twelve", "zwölf"},
};
constexpr int kFirstNumberWord = 2;
constexpr int kLastNumber = 99;

constexpr const char* kNames[] = {"Anna", "Peter", "Maria", "Thomas", "Lisa", "Paul",
                                  "Julia", "Max", "Laura", "Felix", "Sarah", "Jonas"};

// Agreement slots of a finite verb: ich, du, er/sie/es, wir, sie (plural).
enum Slot { kFirstSingular, kSecondSingular, kThirdSingular, kFirstPlural, kThirdPlural };

struct Pronoun {
  const char* en_subject;
  const char* en_object;
  const char* de[3];  // nominative, accusative, dative
  Slot slot;
  uint32_t classes;   // what it may stand for
};

constexpr Pronoun kPronouns[] = {
    {"I", "me", {"ich", "mich", "mir"}, kFirstSingular, kPerson},
    {"you", "you", {"du", "dich", "dir"}, kSecondSingular, kPerson},
    {"he", "him", {"er", "ihn", "ihm"}, kThirdSingular, kPerson},
    {"she", "her", {"sie", "sie", "ihr"}, kThirdSingular, kPerson},
    {"it", "it", {"es", "es", "ihm"}, kThirdSingular, kAnyClass & ~kPerson},
    {"we", "us", {"wir", "uns", "uns"}, kFirstPlural, kPerson},
    {"they", "them", {"sie", "sie", "ihnen"}, kThirdPlural, kAnyClass},
};

enum class PrepositionUse { kLocative, kDirectional, kCompany, kBeneficiary };

struct Preposition {
  const char* en;
  const char* de;
  Case de_case;
  PrepositionUse use;
  uint32_t classes;
};

constexpr Preposition kPrepositions[] = {
    {"in", "in", kDative, PrepositionUse::kLocative, kPlace | kVehicle},
    {"on", "auf", kDative, PrepositionUse::kLocative, kFixture},
    {"under", "unter", kDative, PrepositionUse::kLocative, kFixture},
    {"behind", "hinter", kDative, PrepositionUse::kLocative, kFixture | kPlace},
    {"next to", "neben", kDative, PrepositionUse::kLocative, kFixture | kPlace},
    {"in front of", "vor", kDative, PrepositionUse::kLocative, kFixture | kPlace},
    {"into", "in", kAccusative, PrepositionUse::kDirectional, kPlace | kVehicle},
    {"to", "zu", kDative, PrepositionUse::kDirectional, kPlace | kPerson},
    {"through", "durch", kAccusative, PrepositionUse::kDirectional, kPlace},
    {"out of", "aus", kDative, PrepositionUse::kDirectional, kPlace | kVehicle},
    {"from", "von", kDative, PrepositionUse::kDirectional, kPlace | kPerson},
    {"with", "mit", kDative, PrepositionUse::kCompany, kAnimate},
    {"without", "ohne", kAccusative, PrepositionUse::kCompany, kAnimate},
    {"for", "für", kAccusative, PrepositionUse::kBeneficiary, kAnimate},
};

// Preposition + definite article -> the contracted form German always uses.
constexpr const char* kContractions[][3] = {
    {"in", "dem", "im"}, {"in", "das", "ins"}, {"zu", "dem", "zum"},
    {"zu", "der", "zur"}, {"von", "dem", "vom"},
};

enum TenseBit { kPresentBit = 1, kPastBit = 2, kModalBit = 4, kAnyTense = 7 };
enum class Tense { kPresent, kPast, kModal };

enum class AdverbKind { kTime, kFrequency, kPlace, kHome };

struct Adverb {
  const char* en;
  const char* de;
  AdverbKind kind;
  int tenses;  // TenseBits it goes with
};

constexpr Adverb kAdverbs[] = {
    {"today", "heute", AdverbKind::kTime, kAnyTense},
    {"tomorrow", "morgen", AdverbKind::kTime, kPresentBit | kModalBit},
    {"yesterday", "gestern", AdverbKind::kTime, kPastBit},
    {"now", "jetzt", AdverbKind::kTime, kPresentBit | kModalBit},
    {"later", "später", AdverbKind::kTime, kPresentBit | kModalBit},
    {"soon", "bald", AdverbKind::kTime, kPresentBit | kModalBit},
    {"in the morning", "morgens", AdverbKind::kTime, kAnyTense},
    {"in the evening", "abends", AdverbKind::kTime, kAnyTense},
    {"at night", "nachts", AdverbKind::kTime, kAnyTense},
    {"every day", "jeden Tag", AdverbKind::kTime, kAnyTense},
    {"often", "oft", AdverbKind::kFrequency, kPresentBit | kPastBit},
    {"always", "immer", AdverbKind::kFrequency, kPresentBit | kPastBit},
    {"sometimes", "manchmal", AdverbKind::kFrequency, kPresentBit | kPastBit},
    {"never", "nie", AdverbKind::kFrequency, kPresentBit | kPastBit},
    {"usually", "meistens", AdverbKind::kFrequency, kPresentBit | kPastBit},
    {"rarely", "selten", AdverbKind::kFrequency, kPresentBit | kPastBit},
    {"here", "hier", AdverbKind::kPlace, kAnyTense},
    {"there", "dort", AdverbKind::kPlace, kAnyTense},
    {"at home", "zu Hause", AdverbKind::kPlace, kAnyTense},
    {"outside", "draußen", AdverbKind::kPlace, kAnyTense},
    {"home", "nach Hause", AdverbKind::kHome, kAnyTense},
};

struct Modal {
  const char* en;           // "can"; for want: "want to"
  const char* en_third;     // "can"; "wants to"
  const char* en_negated;   // after the subject: "cannot"; nullptr: do-support ("does not want to")
  const char* en_do_form;   // after do/does + not, and in questions after the subject
  const char* de[5];        // by slot
};

constexpr Modal kModals[] = {
    {"can", "can", "cannot", nullptr, {"kann", "kannst", "kann", "können", "können"}},
    {"must", "must", nullptr, "have to", {"muss", "musst", "muss", "müssen", "müssen"}},
    {"want to", "wants to", nullptr, "want to", {"will", "willst", "will", "wollen", "wollen"}},
    {"should", "should", "should not", nullptr, {"soll", "sollst", "soll", "sollen", "sollen"}},
};

constexpr const char* kEnglishBe[2][5] = {{"am", "are", "is", "are", "are"},
                                          {"was", "were", "was", "were", "were"}};
constexpr const char* kGermanSein[5] = {"bin", "bist", "ist", "sind", "sind"};
constexpr const char* kGermanWar[5] = {"war", "warst", "war", "waren", "waren"};
constexpr const char* kGermanHaben[5] = {"habe", "hast", "hat", "haben", "haben"};

struct Conjunction {
  const char* en;
  const char* de;
  const char* de_past;  // "when" of one event in the past: als
  bool may_lead;        // may open the sentence: "Because ..., ..."
};

constexpr Conjunction kSubordinators[] = {
    {"because", "weil", "weil", true},       {"although", "obwohl", "obwohl", true},
    {"when", "wenn", "als", true},           {"if", "wenn", "wenn", true},
    {"while", "während", "während", true},   {"before", "bevor", "bevor", true},
    {"until", "bis", "bis", false},          {"so that", "damit", "damit", false},
};

enum class Wh { kWhere, kWhen, kWhy };
// clang-format on

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

  Verb& sein() {
    de_sein = true;
    return *this;
  }
  Verb& particles(std::string english, std::string german) {
    en_particle = std::move(english);
    de_particle = std::move(german);
    return *this;
  }
  Verb& preposition(std::string english, std::string german, Case governed) {
    en_preposition = std::move(english);
    de_preposition = std::move(german);
    de_case = governed;
    return *this;
  }
  Verb& first(std::string german) {
    de_first = std::move(german);
    return *this;
  }
  Verb& whether() {
    complementizer_en = "whether";
    complementizer_de = "ob";
    return *this;
  }
  bool has_past() const { return en_past != en; }  // "read" would read as present or past
};

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

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

// The er-form of a regular German verb: arbeiten -> arbeitet, spielen -> spielt, füttern ->
// füttert.
std::string regular_third_person(const std::string& infinitive) {
  if (ends_with(infinitive, "ern") || ends_with(infinitive, "eln")) {
    return infinitive.substr(0, infinitive.size() - 1) + "t";
  }
  const std::string stem = infinitive.substr(0, infinitive.size() - 2);
  return stem + (ends_with(stem, "t") || ends_with(stem, "d") ? "et" : "t");
}

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

// `en`: "base third past"; `de`: "infinitive er-form participle", the er-form "-" when regular.
Verb make_verb(Frame frame, const std::string& en, const std::string& de, uint32_t subject,
               uint32_t object = 0, uint32_t recipient = 0) {
  const std::vector<std::string> en_forms = split_words(en);
  const std::vector<std::string> de_forms = split_words(de);
  MLH_ASSERT(en_forms.size() == 3 && de_forms.size() == 3);
  Verb verb;
  verb.frame = frame;
  verb.en = en_forms[0];
  verb.en_third = en_forms[1];
  verb.en_past = en_forms[2];
  verb.de = de_forms[0];
  verb.de_third = de_forms[1] == "-" ? regular_third_person(verb.de) : de_forms[1];
  verb.de_first = verb.de.substr(0, verb.de.size() - 1);
  verb.de_participle = de_forms[2];
  verb.subject = subject;
  verb.object = object;
  verb.recipient = recipient;
  if (frame == Frame::kDative) verb.de_case = kDative;
  return verb;
}

std::vector<Verb> make_verbs() {
  using F = Frame;
  std::vector<Verb> v;
  // clang-format off
  v.push_back(make_verb(F::kIntransitive, "sleep sleeps slept", "schlafen schläft geschlafen", kAnimate));
  v.push_back(make_verb(F::kIntransitive, "laugh laughs laughed", "lachen - gelacht", kPerson));
  v.push_back(make_verb(F::kIntransitive, "wait waits waited", "warten - gewartet", kAnimate));
  v.push_back(make_verb(F::kIntransitive, "play plays played", "spielen - gespielt", kAnimate));
  v.push_back(make_verb(F::kIntransitive, "sing sings sang", "singen - gesungen", kAnimate));
  v.push_back(make_verb(F::kIntransitive, "dance dances danced", "tanzen - getanzt", kPerson));
  v.push_back(make_verb(F::kIntransitive, "cry cries cried", "weinen - geweint", kPerson));
  v.push_back(make_verb(F::kIntransitive, "work works worked", "arbeiten - gearbeitet", kPerson));
  v.push_back(make_verb(F::kIntransitive, "live lives lived", "wohnen - gewohnt", kAnimate));
  v.push_back(make_verb(F::kIntransitive, "get gets got", "stehen - aufgestanden", kAnimate).sein().particles("up", "auf"));
  v.push_back(make_verb(F::kIntransitive, "fall falls fell", "schlafen schläft eingeschlafen", kAnimate).sein().particles("asleep", "ein"));
  v.push_back(make_verb(F::kMotion, "go goes went", "gehen - gegangen", kAnimate).sein());
  v.push_back(make_verb(F::kMotion, "run runs ran", "laufen läuft gelaufen", kAnimate).sein());
  v.push_back(make_verb(F::kMotion, "drive drives drove", "fahren fährt gefahren", kPerson).sein());
  v.push_back(make_verb(F::kMotion, "come comes came", "kommen - gekommen", kAnimate).sein());
  v.push_back(make_verb(F::kMotion, "fly flies flew", "fliegen - geflogen", kAnimate).sein());
  v.push_back(make_verb(F::kMotion, "swim swims swam", "schwimmen - geschwommen", kAnimate).sein());
  v.push_back(make_verb(F::kMotion, "come comes came", "kommen - zurückgekommen", kAnimate).sein().particles("back", "zurück"));
  v.push_back(make_verb(F::kTransitive, "see sees saw", "sehen sieht gesehen", kAnimate, kAnyClass));
  v.push_back(make_verb(F::kTransitive, "buy buys bought", "kaufen - gekauft", kPerson, kGoods));
  v.push_back(make_verb(F::kTransitive, "find finds found", "finden - gefunden", kAnimate, kObject | kAnimate | kText));
  v.push_back(make_verb(F::kTransitive, "read reads read", "lesen liest gelesen", kPerson, kText));
  v.push_back(make_verb(F::kTransitive, "eat eats ate", "essen isst gegessen", kAnimate, kFood));
  v.push_back(make_verb(F::kTransitive, "drink drinks drank", "trinken - getrunken", kAnimate, kDrink));
  v.push_back(make_verb(F::kTransitive, "take takes took", "nehmen nimmt genommen", kPerson, kObject | kFood | kText));
  v.push_back(make_verb(F::kTransitive, "carry carries carried", "tragen trägt getragen", kAnimate, kObject | kFood));
  v.push_back(make_verb(F::kTransitive, "write writes wrote", "schreiben - geschrieben", kPerson, kText));
  v.push_back(make_verb(F::kTransitive, "love loves loved", "lieben - geliebt", kAnimate, kAnimate));
  v.push_back(make_verb(F::kTransitive, "visit visits visited", "besuchen - besucht", kPerson, kPerson | kPlace));
  v.push_back(make_verb(F::kTransitive, "forget forgets forgot", "vergessen vergisst vergessen", kPerson, kObject | kText | kPerson));
  v.push_back(make_verb(F::kTransitive, "hear hears heard", "hören - gehört", kAnimate, kAnimate | kDevice));
  v.push_back(make_verb(F::kTransitive, "know knows knew", "kennen - gekannt", kPerson, kPerson | kPlace | kText));
  v.push_back(make_verb(F::kTransitive, "meet meets met", "treffen trifft getroffen", kPerson, kPerson));
  v.push_back(make_verb(F::kTransitive, "cook cooks cooked", "kochen - gekocht", kPerson, kFood));
  v.push_back(make_verb(F::kTransitive, "wash washes washed", "waschen wäscht gewaschen", kPerson, kAnimal | kVehicle | kObject));
  v.push_back(make_verb(F::kTransitive, "draw draws drew", "zeichnen zeichnet gezeichnet", kPerson, kAnyClass));
  v.push_back(make_verb(F::kTransitive, "catch catches caught", "fangen fängt gefangen", kAnimate, kAnimal | kObject));
  v.push_back(make_verb(F::kTransitive, "need needs needed", "brauchen - gebraucht", kAnimate, kGoods | kPerson));
  v.push_back(make_verb(F::kTransitive, "have has had", "haben hat gehabt", kAnimate, kGoods | kAnimate));
  v.push_back(make_verb(F::kTransitive, "feed feeds fed", "füttern - gefüttert", kPerson, kAnimal));
  v.push_back(make_verb(F::kTransitive, "repair repairs repaired", "reparieren - repariert", kPerson, kVehicle | kDevice | kFixture));
  v.push_back(make_verb(F::kTransitive, "look looks looked", "suchen - gesucht", kAnimate, kAnyClass & ~kPlace).preposition("for", "", kAccusative));
  v.push_back(make_verb(F::kTransitive, "pick picks picked", "holen - abgeholt", kPerson, kPerson | kAnimal | kObject).particles("up", "ab"));
  v.push_back(make_verb(F::kTransitive, "tidy tidies tidied", "räumen - aufgeräumt", kPerson, kPlace).particles("up", "auf"));
  v.push_back(make_verb(F::kTransitive, "invite invites invited", "laden lädt eingeladen", kPerson, kPerson).particles("", "ein"));
  v.push_back(make_verb(F::kTransitive, "switch switches switched", "schalten - eingeschaltet", kPerson, kDevice).particles("on", "ein"));
  v.push_back(make_verb(F::kTransitive, "switch switches switched", "schalten - ausgeschaltet", kPerson, kDevice).particles("off", "aus"));
  v.push_back(make_verb(F::kTransitive, "open opens opened", "machen - aufgemacht", kPerson, kOpenable).particles("", "auf"));
  v.push_back(make_verb(F::kTransitive, "close closes closed", "machen - zugemacht", kPerson, kOpenable).particles("", "zu"));
  v.push_back(make_verb(F::kTransitive, "throw throws threw", "werfen wirft weggeworfen", kPerson, kObject | kFood | kText).particles("away", "weg"));
  v.push_back(make_verb(F::kTransitive, "take takes took", "nehmen nimmt mitgenommen", kPerson, kObject | kAnimal | kFood | kPerson).particles("along", "mit"));
  v.push_back(make_verb(F::kDative, "help helps helped", "helfen hilft geholfen", kAnimate, kAnimate));
  v.push_back(make_verb(F::kDative, "thank thanks thanked", "danken - gedankt", kPerson, kPerson));
  v.push_back(make_verb(F::kDative, "follow follows followed", "folgen - gefolgt", kAnimate, kAnimate).sein());
  v.push_back(make_verb(F::kDative, "answer answers answered", "antworten - geantwortet", kPerson, kPerson));
  v.push_back(make_verb(F::kDative, "trust trusts trusted", "vertrauen - vertraut", kPerson, kPerson));
  v.push_back(make_verb(F::kDative, "listen listens listened", "hören - zugehört", kPerson, kAnimate).preposition("to", "", kDative).particles("", "zu"));
  v.push_back(make_verb(F::kDitransitive, "give gives gave", "geben gibt gegeben", kPerson, kObject | kFood | kText | kDrink, kAnimate));
  v.push_back(make_verb(F::kDitransitive, "show shows showed", "zeigen - gezeigt", kPerson, kObject | kText | kAnimal | kVehicle, kPerson));
  v.push_back(make_verb(F::kDitransitive, "send sends sent", "schicken - geschickt", kPerson, kObject | kText, kPerson));
  v.push_back(make_verb(F::kDitransitive, "bring brings brought", "bringen - gebracht", kPerson, kObject | kFood | kDrink | kText, kPerson));
  v.push_back(make_verb(F::kDitransitive, "sell sells sold", "verkaufen - verkauft", kPerson, kGoods | kAnimal, kPerson));
  v.push_back(make_verb(F::kDitransitive, "give gives gave", "geben gibt zurückgegeben", kPerson, kObject | kText, kPerson).particles("back", "zurück"));
  v.push_back(make_verb(F::kPrepositional, "wait waits waited", "warten - gewartet", kAnimate, kAnimate | kVehicle | kText).preposition("for", "auf", kAccusative));
  v.push_back(make_verb(F::kPrepositional, "talk talks talked", "sprechen spricht gesprochen", kPerson, kPerson).preposition("to", "mit", kDative));
  v.push_back(make_verb(F::kPrepositional, "laugh laughs laughed", "lachen - gelacht", kPerson, kAnimate).preposition("at", "über", kAccusative));
  v.push_back(make_verb(F::kPrepositional, "dream dreams dreamed", "träumen - geträumt", kAnimate, kAnyClass).preposition("of", "von", kDative));
  v.push_back(make_verb(F::kClausal, "say says said", "sagen - gesagt", kPerson));
  v.push_back(make_verb(F::kClausal, "know knows knew", "wissen weiß gewusst", kPerson).first("weiß"));
  v.push_back(make_verb(F::kClausal, "think thinks thought", "denken - gedacht", kPerson));
  v.push_back(make_verb(F::kClausal, "hope hopes hoped", "hoffen - gehofft", kPerson));
  v.push_back(make_verb(F::kClausal, "believe believes believed", "glauben - geglaubt", kPerson));
  v.push_back(make_verb(F::kClausal, "ask asks asked", "fragen - gefragt", kPerson).whether());
  // clang-format on
  return v;
}

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> all = make_verbs();
  return all;
}

// ---------------------------------------------------------------------------------------------
// Meanings.

struct NounPhrase {
  enum class Kind { kNoun, kName, kPronoun, kPair } kind = Kind::kNoun;
  int index = 0;  // into kNouns, kNames or kPronouns
  int determiner = kThe;
  int number = 0;  // for kNumber
  bool plural = false;
  int adjective = -1;
  bool very = false;
  std::vector<NounPhrase> parts;  // kPair: two noun phrases joined by "and"

  Slot slot() const {
    switch (kind) {
      case Kind::kPronoun:
        return kPronouns[index].slot;
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
    return kind == Kind::kNoun && (determiner == kA || determiner == kBarePlural);
  }
};

struct PrepositionalPhrase {
  int preposition = -1;  // into kPrepositions; -1 for an adverb
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

  const Verb* lexical() const { return verb < 0 ? nullptr : &verbs()[static_cast<size_t>(verb)]; }
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

template <typename Item, size_t N, typename Keep>
std::vector<int> indices_where(const Item (&items)[N], Keep keep) {
  std::vector<int> indices;
  for (size_t i = 0; i < N; ++i) {
    if (keep(items[i])) indices.push_back(static_cast<int>(i));
  }
  return indices;
}

uint32_t classes_of(const NounPhrase& phrase) {
  switch (phrase.kind) {
    case NounPhrase::Kind::kNoun:
      return kNouns[phrase.index].classes;
    case NounPhrase::Kind::kName:
      return kPerson;
    case NounPhrase::Kind::kPronoun:
      return kPronouns[phrase.index].classes;
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
  Generator(uint64_t seed, int64_t index) : random_(seed, index) {}

  TextPair sentence();

 private:
  NounPhrase noun_phrase(const PhraseOptions& options);
  NounPhrase common_noun_phrase(uint32_t classes, int adjective_percent, bool allow_no,
                                bool allow_every = true);
  Clause clause(const ClauseOptions& options);
  Tense tense(int allowed, const Verb* verb);

  Random random_;
};

NounPhrase Generator::common_noun_phrase(uint32_t classes, int adjective_percent, bool allow_no,
                                         bool allow_every) {
  NounPhrase phrase;
  phrase.kind = NounPhrase::Kind::kNoun;
  const std::vector<int> nouns =
      indices_where(kNouns, [&](const Noun& n) { return (n.classes & classes) != 0; });
  phrase.index = random_.pick(nouns);
  const Noun& noun = kNouns[phrase.index];
  const bool mass = noun.en_plural == nullptr;
  std::vector<int> weights;
  for (int d = 0; d < static_cast<int>(std::size(kDeterminers)); ++d) {
    const Determiner& determiner = kDeterminers[d];
    bool fits = mass ? determiner.en_singular != nullptr && d != kA && d != kEvery : true;
    if ((d == kNo && !allow_no) || (d == kEvery && !allow_every)) fits = false;
    weights.push_back(fits ? determiner.weight : 0);
  }
  phrase.determiner = random_.weighted(weights);
  const Determiner& determiner = kDeterminers[phrase.determiner];
  if (determiner.en_singular == nullptr) {
    phrase.plural = true;
  } else if (determiner.en_plural != nullptr && !mass) {
    phrase.plural = random_.percent(30);
  }
  if (phrase.determiner == kNumber) {
    phrase.number =
        random_.percent(75)
            ? kFirstNumberWord + random_.below(static_cast<int>(std::size(kNumberWords)))
            : 13 + random_.below(kLastNumber - 12);
  }
  if (random_.percent(adjective_percent)) {
    const std::vector<int> adjectives = indices_where(
        kAdjectives, [&](const Adjective& a) { return (a.classes & noun.classes) != 0; });
    phrase.adjective = random_.pick(adjectives);
    phrase.very = random_.percent(15);
  }
  return phrase;
}

NounPhrase Generator::noun_phrase(const PhraseOptions& options) {
  const std::vector<int> pronouns = indices_where(kPronouns, [&](const Pronoun& p) {
    if ((p.classes & options.classes) == 0) return false;
    if (options.avoid_pronoun < 0) return true;
    // No reflexive readings: "I see me", "we help us", "you see you".
    const Slot subject = kPronouns[options.avoid_pronoun].slot;
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
      phrase.index = random_.below(static_cast<int>(std::size(kNames)));
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
  const std::vector<Verb>& all = verbs();
  const bool copula = options.allow_copula && !options.clausal && random_.percent(9);
  if (copula) {
    c.adjective = random_.below(static_cast<int>(std::size(kAdjectives)));
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
  if (c.tense == Tense::kModal) c.modal = random_.below(static_cast<int>(std::size(kModals)));

  if (options.subject) {
    c.subject = *options.subject;
  } else {
    PhraseOptions subject;
    subject.classes = copula ? kAdjectives[c.adjective].classes : verb->subject;
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

  const bool quantified_subject = c.subject.kind == NounPhrase::Kind::kNoun &&
                                  (c.subject.determiner == kEvery || c.subject.determiner == kNo);
  const bool negative_object =
      (c.object && c.object->kind == NounPhrase::Kind::kNoun && c.object->determiner == kNo) ||
      (c.recipient && c.recipient->kind == NounPhrase::Kind::kNoun &&
       c.recipient->determiner == kNo);
  const bool quantified_object =
      c.object && c.object->kind == NounPhrase::Kind::kNoun &&
      (c.object->determiner == kMany || c.object->determiner == kSome ||
       c.object->determiner == kNumber || c.object->determiner == kEvery);
  if (options.allow_negation && !quantified_subject && !negative_object && !quantified_object &&
      (c.tense != Tense::kModal || options.allow_modal_negation)) {
    c.negated = random_.percent(15);
  }

  if (options.allow_adverb && random_.percent(25)) {
    const int tense_bit = c.tense == Tense::kPresent ? kPresentBit
                          : c.tense == Tense::kPast  ? kPastBit
                                                     : kModalBit;
    const std::vector<int> adverbs = indices_where(kAdverbs, [&](const Adverb& a) {
      if ((a.tenses & tense_bit) == 0) return false;
      if (a.kind == AdverbKind::kTime) return options.allow_time_adverb;
      return a.kind == AdverbKind::kFrequency && !c.negated;
    });
    if (!adverbs.empty()) {
      c.adverb = random_.pick(adverbs);
      c.adverb_fronted = options.allow_fronting && kAdverbs[c.adverb].kind == AdverbKind::kTime &&
                         random_.percent(40);
    }
  }

  if (options.allow_phrase && verb != nullptr &&
      (verb->frame == Frame::kIntransitive || verb->frame == Frame::kMotion ||
       verb->frame == Frame::kTransitive) &&
      random_.percent(verb->frame == Frame::kTransitive ? 20 : 45)) {
    const bool motion = verb->frame == Frame::kMotion;
    std::vector<int> weights;  // prepositions, then adverbs
    for (const Preposition& p : kPrepositions) {
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
    for (const Adverb& a : kAdverbs) {
      const bool fits = motion ? a.kind == AdverbKind::kHome : a.kind == AdverbKind::kPlace;
      weights.push_back(fits ? 2 : 0);
    }
    const int drawn = random_.weighted(weights);
    PrepositionalPhrase phrase;
    if (drawn < static_cast<int>(std::size(kPrepositions))) {
      phrase.preposition = drawn;
      PhraseOptions object;
      object.classes = kPrepositions[drawn].classes;
      object.adjective_percent = 15;
      object.allow_no = false;
      object.allow_every = false;
      phrase.object = noun_phrase(object);
    } else {
      phrase.adverb = drawn - static_cast<int>(std::size(kPrepositions));
    }
    c.phrase = phrase;
  }

  if (options.allow_relative && c.subject.kind == NounPhrase::Kind::kNoun &&
      c.subject.determiner != kNo && (classes_of(c.subject) & kAnimate) != 0 &&
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
  Tokens out;
  switch (phrase.kind) {
    case NounPhrase::Kind::kPronoun: {
      const Pronoun& p = kPronouns[phrase.index];
      out.push_back(object_form ? p.en_object : p.en_subject);
      return out;
    }
    case NounPhrase::Kind::kName:
      out.push_back(kNames[phrase.index]);
      return out;
    case NounPhrase::Kind::kPair:
      append(out, english_noun_phrase(phrase.parts[0], object_form));
      out.push_back("and");
      append(out, english_noun_phrase(phrase.parts[1], object_form));
      return out;
    case NounPhrase::Kind::kNoun:
      break;
  }
  const Noun& noun = kNouns[phrase.index];
  const Determiner& determiner = kDeterminers[phrase.determiner];
  if (phrase.determiner == kNumber) {
    out.push_back(phrase.number <= 12 ? kNumberWords[phrase.number - kFirstNumberWord][0]
                                      : std::to_string(phrase.number));
  } else {
    append(out, phrase.plural ? determiner.en_plural : determiner.en_singular);
  }
  if (phrase.very) out.push_back("very");
  if (phrase.adjective >= 0) out.push_back(kAdjectives[phrase.adjective].en);
  out.push_back(phrase.plural ? noun.en_plural : noun.en);
  return out;
}

// The verb with its objects, phrase and complement: "picks up the child", "picks him up".
Tokens english_predicate(const Clause& c, const std::string& form);

Tokens english_clause_body(const Clause& c, bool question, const char* wh);

Tokens english_predicate(const Clause& c, const std::string& form) {
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
      append(out, kPrepositions[c.phrase->preposition].en);
      append(out, english_noun_phrase(c.phrase->object, true));
    } else {
      append(out, kAdverbs[c.phrase->adverb].en);
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
  Tokens out;
  const Slot slot = c.subject.slot();
  const bool third = slot == kThirdSingular;
  const Verb* verb = c.lexical();
  const Adverb* adverb = c.adverb >= 0 ? &kAdverbs[c.adverb] : nullptr;
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
    const std::string be = kEnglishBe[past][slot];
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
    out.push_back(kAdjectives[c.adjective].en);
  } else if (c.tense == Tense::kModal) {
    const Modal& modal = kModals[c.modal];
    if (modal.en_do_form != nullptr && (question || c.negated)) {
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
      append(out, modal.en_do_form);
    } else if (question) {
      append(out, third ? modal.en_third : modal.en);
      append(out, subject);
      if (c.negated) out.push_back("not");
    } else {
      append(out, subject);
      append(out, c.negated ? modal.en_negated : third ? modal.en_third : modal.en);
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
  Tokens out;
  switch (phrase.kind) {
    case NounPhrase::Kind::kPronoun:
      out.push_back(kPronouns[phrase.index].de[grammatical_case]);
      return out;
    case NounPhrase::Kind::kName:
      out.push_back(kNames[phrase.index]);
      return out;
    case NounPhrase::Kind::kPair:
      append(out, german_noun_phrase(phrase.parts[0], grammatical_case));
      out.push_back("und");
      append(out, german_noun_phrase(phrase.parts[1], grammatical_case));
      return out;
    case NounPhrase::Kind::kNoun:
      break;
  }
  const Noun& noun = kNouns[phrase.index];
  const int column = phrase.plural ? kPluralColumn : noun.gender;
  const int determiner_id = negate && phrase.indefinite() ? kNo : phrase.determiner;
  const Determiner& determiner = kDeterminers[determiner_id];
  const char* const* adjective_endings = kWeakAdjectiveEndings[grammatical_case];
  switch (determiner.kind) {
    case DeterminerKind::kDefinite:
      out.push_back(kDefiniteArticle[grammatical_case][column]);
      break;
    case DeterminerKind::kDerWord:
      out.push_back(std::string(determiner.de) + kDerWordEndings[grammatical_case][column]);
      break;
    case DeterminerKind::kEinWord:
      out.push_back(std::string(determiner.de) + kEinWordEndings[grammatical_case][column]);
      adjective_endings = kMixedAdjectiveEndings[grammatical_case];
      break;
    case DeterminerKind::kPluralWord:
      out.push_back(std::string(determiner.de) + kStrongPluralAdjectiveEndings[grammatical_case]);
      adjective_endings = nullptr;
      break;
    case DeterminerKind::kNumeral:
      out.push_back(phrase.number <= 12 ? kNumberWords[phrase.number - kFirstNumberWord][1]
                                        : std::to_string(phrase.number));
      adjective_endings = nullptr;
      break;
    case DeterminerKind::kBare:
      adjective_endings = nullptr;
      break;
  }
  if (phrase.very) out.push_back("sehr");
  if (phrase.adjective >= 0) {
    const Adjective& adjective = kAdjectives[phrase.adjective];
    const std::string stem = adjective.de_stem != nullptr ? adjective.de_stem : adjective.de;
    out.push_back(stem + (adjective_endings != nullptr
                              ? adjective_endings[column]
                              : kStrongPluralAdjectiveEndings[grammatical_case]));
  }
  if (phrase.plural) {
    const std::string plural = noun.de_plural;
    const bool add_n =
        grammatical_case == kDative && !ends_with(plural, "n") && !ends_with(plural, "s");
    out.push_back(add_n ? plural + "n" : plural);
  } else if (grammatical_case != kNominative && noun.de_oblique != nullptr) {
    out.push_back(noun.de_oblique);
  } else {
    out.push_back(noun.de);
  }
  return out;
}

Tokens german_prepositional_phrase(const std::string& preposition, Case grammatical_case,
                                   const NounPhrase& object) {
  Tokens out;
  Tokens phrase = german_noun_phrase(object, grammatical_case);
  if (object.kind == NounPhrase::Kind::kNoun && object.determiner == kThe) {
    for (const auto& contraction : kContractions) {
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
  const Verb* verb = c.lexical();
  const Slot slot = c.subject.slot();
  const Adverb* adverb = c.adverb >= 0 ? &kAdverbs[c.adverb] : nullptr;

  // The finite verb and the verb complex at the end of the clause.
  std::string finite;
  Tokens complex;
  bool separable_present = false;
  if (verb == nullptr) {
    finite = c.tense == Tense::kPast ? kGermanWar[slot] : kGermanSein[slot];
  } else if (c.tense == Tense::kPresent) {
    finite = german_present(*verb, slot);
    if (!verb->de_particle.empty()) {
      complex.push_back(verb->de_particle);
      separable_present = true;
    }
  } else if (c.tense == Tense::kPast) {
    finite = verb->de_sein ? kGermanSein[slot] : kGermanHaben[slot];
    complex.push_back(verb->de_participle);
  } else {
    finite = kModals[c.modal].de[slot];
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
      const Preposition& p = kPrepositions[c.phrase->preposition];
      append(middle, german_prepositional_phrase(p.de, p.de_case, c.phrase->object));
    } else {
      append(middle, kAdverbs[c.phrase->adverb].de);
    }
  }
  if (verb == nullptr) {
    if (c.very) middle.push_back("sehr");
    middle.push_back(kAdjectives[c.adjective].de);
  }

  Tokens subject;
  if (c.is_relative) {
    subject.push_back(
        kDefiniteArticle[kNominative]
                        [c.subject.plural ? kPluralColumn : kNouns[c.subject.index].gender]);
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
            kSubordinators[random_.below(static_cast<int>(std::size(kSubordinators)))];
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
        const int conjunction = random_.weighted({5, 3, 2});
        static constexpr const char* kEnglish[] = {"and", "but", "or"};
        static constexpr const char* kGerman[] = {"und", "aber", "oder"};
        en = english_clause_body(a, false, nullptr);
        de = german_clause(a, GermanOrder::kMain, {});
        if (conjunction == 1) {
          en.push_back(",");
          de.push_back(",");
        }
        en.push_back(kEnglish[conjunction]);
        de.push_back(kGerman[conjunction]);
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
  return Generator(seed, index).sentence();
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
