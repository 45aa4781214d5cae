// A small raw English-German corpus for the translation CLI tests: counting animals, `pairs` lines
// in DIR/corpus.en and DIR/corpus.de; with `comma` the two halves of a sentence are joined by
// ", and" / ", und" (a token Moses splits off), else by "and" / "und".
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace mlh {

inline void write_counting_corpus(const std::filesystem::path& dir, int pairs = 300, bool comma = false) {
  const char* en[] = {"one", "two", "three", "four", "five", "six", "seven", "eight"};
  const char* de[] = {"eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht"};
  const char* en_noun[] = {"dogs", "cats", "birds", "houses"};
  const char* de_noun[] = {"Hunde", "Katzen", "Vögel", "Häuser"};
  const std::string en_and = comma ? ", and " : " and ", de_and = comma ? ", und " : " und ";
  std::ofstream source(dir / "corpus.en"), target(dir / "corpus.de");
  for (int i = 0; i < pairs; ++i) {
    source << "I see " << en[i % 8] << " " << en_noun[(i / 8) % 4] << en_and << en[(i / 32) % 8] << " "
           << en_noun[(i / 3) % 4] << ".\n";
    target << "Ich sehe " << de[i % 8] << " " << de_noun[(i / 8) % 4] << de_and << de[(i / 32) % 8] << " "
           << de_noun[(i / 3) % 4] << ".\n";
  }
}

}  // namespace mlh
