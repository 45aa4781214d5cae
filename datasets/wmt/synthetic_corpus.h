// A synthetic parallel corpus with the structure of English -> German, for tests and the embedded
// translation default: real translation problems at a size a small Transformer learns on 2 CPU
// cores in minutes. Each pair renders one drawn meaning into both languages with one fixed set of
// rules, so every source sentence has exactly one translation:
//  - a bilingual lexicon of about 280 entries (synthetic_lexicon.yaml, compiled in): nouns with gender and plural (and the dative plural
//    -n), adjectives, verbs conjugated by person and number (stem changes: sieht, isst, fährt),
//    separable verbs (abholen, aufräumen), modals, pronouns, determiners, prepositions, adverbs,
//    conjunctions, number words; names, numerals over 12 and the preposition "in" are the only words
//    both sides share;
//  - agreement: article and adjective endings by gender, number and case (der große Hund, den
//    großen Hund, mit den großen Hunden; ein großer Hund, keinen Hund), case governed by the verb or
//    preposition (sieht den Hund, hilft dem Hund, ohne den Hund), verbs agreeing with the subject;
//  - reordering: verb second after a fronted adverb or clause (Heute sieht der Hund ...; Weil ...,
//    schläft der Hund), verb last in subordinate clauses (..., weil der Hund die Katze sieht),
//    infinitives, participles and separable particles at the end of the clause (kann die Katze
//    sehen; hat die Katze gesehen; holt das Kind ab), the perfect with sein for motion (ist
//    gelaufen), relative clauses (der Hund, der die Katze sieht, schläft), verb first in questions
//    (wo / wohin by the verb), "nicht" after the objects, "kein" for a negated indefinite;
//  - sentence-initial capitals, capitalised German nouns, commas before German subordinate clauses,
//    a full stop or question mark.
// Sentences have 4 to 25 source words. Deterministic: pair i is a pure function of (seed, i).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace mlh::wmt {

struct SyntheticCorpusSpec {
  int64_t pairs = 20000;
  uint64_t seed = 1;
};

struct TextPair {
  std::string source;  // English-like
  std::string target;  // German-like
};

// Pair `index` of the corpus drawn under `seed`.
TextPair synthetic_sentence_pair(uint64_t seed, int64_t index);

// Writes pairs 0 .. spec.pairs-1, one sentence per line (parent folders created; each file written
// under a temporary name, then renamed). Throws UserError for a non-positive pair count or a file
// that cannot be written.
void write_synthetic_parallel_corpus(const SyntheticCorpusSpec& spec,
                                     const std::filesystem::path& source_file,
                                     const std::filesystem::path& target_file);

}  // namespace mlh::wmt
