#include "datasets/wmt/moses_text.h"

#include <unicode/uchar.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/user_error.h"
#include "datasets/wmt/utf8.h"

namespace mlh::wmt {
namespace {

using CodePoints = std::u32string;
using Words = std::vector<CodePoints>;

// ---- data: mosesdecoder's scripts/share/nonbreaking_prefixes at 8c5eaa1a, as loaded ----

// Words whose following period never ends a sentence.
constexpr char kEnglishPrefixes[] =
    "A B C D E F G H I J K L M N O P Q R S T U V W X Y Z Adj Adm Adv Asst Bart Bldg Brig Bros "
    "Capt Cmdr Col Comdr Con Corp Cpl DR Dr Drs Ens Gen Gov Hon Hr Hosp Insp Lt MM MR MRS MS Maj "
    "Messrs Mlle Mme Mr Mrs Ms Msgr Op Ord Pfc Ph Prof Pvt Rep Reps Res Rev Rt Sen Sens Sfc Sgt "
    "Sr St Supt Surg v vs i.e rev e.g Nos Nr Jan Feb Mar Apr Jun Jul Aug Sep Oct Nov Dec";
// Words whose following period ends a sentence unless a number follows ("No. 5").
constexpr char kEnglishNumericPrefixes[] = "No Art pp";

constexpr char kGermanPrefixes[] =
    "A B C D E F G H I J K L M N O P Q R S T U V W X Y Z a b c d e f g h i j k l m n o p q r s t "
    "u v w x y z II III IV VI VII VIII IX XI XII XIII XIV XV XVI XVII XVIII XIX XX ii iii iv vi "
    "vii viii ix xi xii xiii xiv xv xvi xvii xviii xix xx Adj Adm Adv Asst Bart Bldg Brig Bros "
    "Capt Cmdr Col Comdr Con Corp Cpl DR Dr Ens Gen Gov Hon Hosp Insp Lt MM MR MRS MS Maj Messrs "
    "Mlle Mme Mr Mrs Ms Msgr Op Ord Pfc Ph Prof Pvt Rep Reps Res Rev Rt Sen Sens Sfc Sgt Sr St "
    "Supt Surg Mio Mrd bzw vs usw d.h z.B u.a etc MwSt ggf d.J D.h m.E vgl I.F z.T sogen ff u.E "
    "g.U g.g.A c.-à-d Buchst u.s.w sog u.ä Std evtl Zt Chr u.U o.ä Ltd b.A z.Zt spp sen SA k.o "
    "jun i.H.v dgl dergl Co zzt usf s.p.a Dkr bzgl BSE No Nos Art Nr pp ca Ca 1 2 3 4 5 6 7 8 9 "
    "10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 "
    "40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 "
    "70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99";
constexpr char kGermanNumericPrefixes[] = "";

// ---- UTF-8 and character classes (Perl's Unicode properties, from ICU) ----

CodePoints decode(const std::string& line, const char* what) {
  CodePoints out;
  size_t bad_offset = 0;
  if (!decode_utf8(line, out, bad_offset)) {
    throw UserError(std::string("Moses ") + what + ": invalid UTF-8 at byte " +
                    std::to_string(bad_offset + 1) +
                    " of the line; the text must be UTF-8 (convert it, e.g. with iconv)");
  }
  return out;
}

bool has_property(char32_t c, UProperty property) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), property) != 0;
}

bool is_space(char32_t c) { return has_property(c, UCHAR_WHITE_SPACE); }  // Perl's \s
bool is_alpha(char32_t c) { return has_property(c, UCHAR_ALPHABETIC); }   // \p{IsAlpha}
bool is_lower(char32_t c) { return has_property(c, UCHAR_LOWERCASE); }    // \p{IsLower}
// \p{IsAlnum}: Alphabetic or a decimal digit.
bool is_alnum(char32_t c) {
  return is_alpha(c) || u_charType(static_cast<UChar32>(c)) == U_DECIMAL_DIGIT_NUMBER;
}
// \p{IsN}: any number (Nd, Nl, No).
bool is_number(char32_t c) { return (U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_N_MASK) != 0; }
bool is_currency(char32_t c) { return u_charType(static_cast<UChar32>(c)) == U_CURRENCY_SYMBOL; }

bool is_one_of(char32_t c, std::u32string_view set) {
  return set.find(c) != std::u32string_view::npos;
}

bool is_all_space(const CodePoints& text) {
  for (const char32_t c : text) {
    if (!is_space(c)) return false;
  }
  return true;
}

// A non-empty word made only of characters that `matches` accepts.
template <typename Matches>
bool all_of(const CodePoints& word, Matches matches) {
  if (word.empty()) return false;
  for (const char32_t c : word) {
    if (!matches(c)) return false;
  }
  return true;
}

// The script's CJK blocks: Hangul Jamo, CJK radicals to Yi, Phags-pa, Hangul syllables, CJK
// compatibility ideographs and forms, halfwidth Katakana and Hangul, and the ideographic plane.
bool is_cjk(char32_t c) {
  return (c >= 0x1100 && c <= 0x11FF) || (c >= 0x2E80 && c <= 0xA4CF) ||
         (c >= 0xA840 && c <= 0xA87F) || (c >= 0xAC00 && c <= 0xD7AF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
         (c >= 0xFF65 && c <= 0xFFDC) || (c >= 0x20000 && c <= 0x2FFFF);
}

// ---- regular-expression building blocks ----

// s/(A)'(B)/$1<middle>$2/g, the tokenizer's apostrophe rules.
template <typename Before, typename After>
CodePoints rewrite_apostrophes(const CodePoints& text, Before before, After after,
                               std::u32string_view middle) {
  CodePoints out;
  out.reserve(text.size() + text.size() / 4);
  size_t i = 0;
  while (i < text.size()) {
    if (i + 2 < text.size() && text[i + 1] == U'\'' && before(text[i]) && after(text[i + 2])) {
      out.push_back(text[i]);
      out.append(middle);
      out.push_back(text[i + 2]);
      i += 3;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

// Perl's split(/ /, text): empty fields stay, except trailing ones.
Words split_on_spaces(const CodePoints& text) {
  Words words;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == U' ') {
      words.emplace_back(text, start, i - start);
      start = i + 1;
    }
  }
  while (!words.empty() && words.back().empty()) words.pop_back();
  return words;
}

// Runs of spaces become one; one leading and one trailing space go.
CodePoints squeeze_spaces(const CodePoints& text) {
  CodePoints out;
  out.reserve(text.size());
  for (const char32_t c : text) {
    if (c == U' ' && !out.empty() && out.back() == U' ') continue;
    out.push_back(c);
  }
  if (!out.empty() && out.front() == U' ') out.erase(0, 1);
  if (!out.empty() && out.back() == U' ') out.pop_back();
  return out;
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  for (size_t found; (found = text.find(from, start)) != std::string::npos;
       start = found + from.size()) {
    out.append(text, start, found - start);
    out.append(to);
  }
  out.append(text, start, std::string::npos);
  text = std::move(out);
}

// ---- tokenizer ----

enum class PrefixKind { kAlways = 1, kBeforeNumber = 2 };
using Prefixes = std::unordered_map<CodePoints, PrefixKind>;

void add_prefixes(Prefixes& prefixes, std::string_view list, PrefixKind kind) {
  CodePoints words;
  size_t bad_offset = 0;
  MLH_ASSERT(decode_utf8(list, words, bad_offset));
  for (const CodePoints& word : split_on_spaces(words)) prefixes[word] = kind;
}

Prefixes load_prefixes(const char* always, const char* before_number) {
  Prefixes prefixes;
  add_prefixes(prefixes, always, PrefixKind::kAlways);
  add_prefixes(prefixes, before_number, PrefixKind::kBeforeNumber);
  return prefixes;
}

struct TokenizerLanguage {
  bool english = false;  // English apostrophe rules; otherwise every apostrophe splits off
  const Prefixes* prefixes = nullptr;
};

TokenizerLanguage tokenizer_language(const std::string& language) {
  static const Prefixes english = load_prefixes(kEnglishPrefixes, kEnglishNumericPrefixes);
  static const Prefixes german = load_prefixes(kGermanPrefixes, kGermanNumericPrefixes);
  MLH_ASSERT(language == "en" || language == "de");
  return language == "en" ? TokenizerLanguage{true, &english} : TokenizerLanguage{false, &german};
}

// Drops control characters (below U+0020, other than whitespace) and leaves single spaces between
// the words.
CodePoints clean_whitespace(const CodePoints& text) {
  CodePoints out;
  out.reserve(text.size());
  bool pending_space = false;
  for (const char32_t c : text) {
    if (is_space(c)) {
      pending_space = true;
    } else if (c >= 0x20) {
      if (pending_space && !out.empty()) out.push_back(U' ');
      pending_space = false;
      out.push_back(c);
    }
  }
  return out;
}

// Spaces around every character that is not alphanumeric, a space or one of . ' ` , -
CodePoints pad_symbols(const CodePoints& text) {
  CodePoints out;
  out.reserve(text.size() + text.size() / 4);
  for (const char32_t c : text) {
    if (is_alnum(c) || is_one_of(c, U" .'`,-")) {
      out.push_back(c);
    } else {
      out.push_back(U' ');
      out.push_back(c);
      out.push_back(U' ');
    }
  }
  return out;
}

// A run of two or more periods becomes a word of its own.
CodePoints isolate_period_runs(const CodePoints& text) {
  CodePoints out;
  out.reserve(text.size() + text.size() / 4);
  size_t i = 0;
  while (i < text.size()) {
    size_t end = i;
    while (end < text.size() && text[end] == U'.') ++end;
    if (end - i >= 2) {
      out.push_back(U' ');
      out.append(text, i, end - i);
      if (end < text.size()) out.push_back(U' ');
      i = end;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

// Commas split off unless they sit between numbers; a number's comma at the very end splits too.
CodePoints split_commas(const CodePoints& text) {
  const auto comma = [](char32_t c) { return c == U','; };
  const auto not_number = [](char32_t c) { return !is_number(c); };
  CodePoints out =
      substitute_pairs(text, not_number, comma, [](CodePoints& o, char32_t a, char32_t) {
        o.push_back(a);
        o.append(U" , ");
      });
  out = substitute_pairs(out, comma, not_number, [](CodePoints& o, char32_t, char32_t b) {
    o.append(U" , ");
    o.push_back(b);
  });
  if (out.size() >= 2 && out.back() == U',' && is_number(out[out.size() - 2])) {
    out.insert(out.size() - 1, 1, U' ');
  }
  return out;
}

CodePoints split_apostrophes(const CodePoints& text, bool english) {
  if (!english) {
    CodePoints out;
    out.reserve(text.size() + text.size() / 4);
    for (const char32_t c : text) {
      if (c == U'\'') {
        out.append(U" ' ");
      } else {
        out.push_back(c);
      }
    }
    return out;
  }
  // English: the apostrophe stands alone unless it starts a contraction or possessive after a
  // letter ("don 't", "John 's") or an "'s" after a number ("1990 's").
  const auto alpha = [](char32_t c) { return is_alpha(c); };
  const auto not_alpha = [](char32_t c) { return !is_alpha(c); };
  const auto neither_alpha_nor_number = [](char32_t c) { return !is_alpha(c) && !is_number(c); };
  CodePoints out = rewrite_apostrophes(text, not_alpha, not_alpha, U" ' ");
  out = rewrite_apostrophes(out, neither_alpha_nor_number, alpha, U" ' ");
  out = rewrite_apostrophes(out, alpha, not_alpha, U" ' ");
  out = rewrite_apostrophes(out, alpha, alpha, U" '");
  return rewrite_apostrophes(
      out, [](char32_t c) { return is_number(c); }, [](char32_t c) { return c == U's'; }, U" '");
}

bool contains_alpha(const CodePoints& word) {
  for (const char32_t c : word) {
    if (is_alpha(c)) return true;
  }
  return false;
}

// Splits a word's final period off unless it marks an abbreviation.
CodePoints split_final_periods(const CodePoints& text, const Prefixes& prefixes) {
  const Words words = split_on_spaces(text);
  CodePoints out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < words.size(); ++i) {
    const CodePoints& word = words[i];
    out.append(word);
    // Period runs are words of their own that the scripts never split.
    if (word.size() >= 2 && word.back() == U'.' &&
        !all_of(word, [](char32_t c) { return c == U'.'; })) {
      const CodePoints stem(word, 0, word.size() - 1);
      const auto found = prefixes.find(stem);
      const bool has_next = i + 1 < words.size();
      const CodePoints* next = has_next ? &words[i + 1] : nullptr;
      const bool keep =
          (stem.find(U'.') != CodePoints::npos && contains_alpha(stem)) ||
          (found != prefixes.end() && found->second == PrefixKind::kAlways) ||
          (has_next && !next->empty() && is_lower(next->front())) ||
          (found != prefixes.end() && found->second == PrefixKind::kBeforeNumber && has_next &&
           !next->empty() && next->front() >= U'0' && next->front() <= U'9');
      if (!keep) out.insert(out.size() - 1, 1, U' ');
    }
    out.push_back(U' ');
  }
  return out;
}

// The tokenizer's XML escape of `c`; empty for a character that stays as it is.
std::u32string_view entity_of(char32_t c) {
  switch (c) {
    case U'&': return U"&amp;";
    case U'|': return U"&#124;";
    case U'<': return U"&lt;";
    case U'>': return U"&gt;";
    case U'\'': return U"&apos;";
    case U'"': return U"&quot;";
    case U'[': return U"&#91;";
    case U']': return U"&#93;";
    default: return {};
  }
}

std::string escape_xml(const CodePoints& text) {
  CodePoints out;
  out.reserve(text.size() + text.size() / 4);
  for (const char32_t c : text) {
    const std::u32string_view entity = entity_of(c);
    if (entity.empty()) {
      out.push_back(c);
    } else {
      out.append(entity);
    }
  }
  return to_utf8(out);
}

// ---- detokenizer ----

void unescape_xml(std::string& text) {
  // In the script's order: "&amp;" last, so "&amp;lt;" becomes "&lt;".
  static constexpr std::pair<std::string_view, std::string_view> kEntities[] = {
      {"&bar;", "|"}, {"&#124;", "|"}, {"&lt;", "<"},    {"&gt;", ">"},
      {"&bra;", "["}, {"&ket;", "]"},  {"&quot;", "\""}, {"&apos;", "'"},
      {"&#91;", "["}, {"&#93;", "]"},  {"&amp;", "&"}};
  for (const auto& [entity, character] : kEntities) replace_all(text, entity, character);
}

bool looks_like_xml_tag(const CodePoints& line) {
  return line.size() >= 3 && line.front() == U'<' && line.back() == U'>';
}

}  // namespace

std::string moses_tokenize(const std::string& line, const std::string& language) {
  const TokenizerLanguage rules = tokenizer_language(language);
  const CodePoints raw = decode(line, "tokenizer");
  if (is_all_space(raw)) return line;
  CodePoints text = clean_whitespace(raw);
  text = pad_symbols(text);
  text = isolate_period_runs(text);
  text = split_commas(text);
  text = split_apostrophes(text, rules.english);
  text = squeeze_spaces(split_final_periods(text, *rules.prefixes));
  // A final ".'" splits in two, leaving the script's trailing space.
  if (text.size() >= 2 && text[text.size() - 2] == U'.' && text.back() == U'\'') {
    text.resize(text.size() - 2);
    text += U" . ' ";
  }
  return escape_xml(text);
}

std::string moses_detokenize(const std::string& line, const std::string& language) {
  MLH_ASSERT(language == "en" || language == "de");
  const bool english = language == "en";
  {
    const CodePoints raw = decode(line, "detokenizer");
    if (is_all_space(raw) || looks_like_xml_tag(raw)) return line;
  }
  std::string unescaped = " " + line + " ";
  replace_all(unescaped, " @-@ ", "-");
  unescape_xml(unescaped);
  const Words words = split_on_spaces(decode(unescaped, "detokenizer"));

  const auto attaches_right = [](char32_t c) { return is_currency(c) || is_one_of(c, U"([{¿¡"); };
  const auto attaches_left = [](char32_t c) { return is_one_of(c, U",.?!:;\\%}])"); };
  const auto is_quote = [](char32_t c) { return is_one_of(c, U"'\"„“`"); };
  const auto is_double_quote = [](char32_t c) { return is_one_of(c, U"„“”"); };

  CodePoints text;
  // Open quotes per quote word ("„" and "“" count as '"'): an even count opens, an odd one closes.
  std::unordered_map<CodePoints, int> quote_counts;
  std::u32string_view space = U" ";  // what goes before the next word
  const auto attach_left = [&](const CodePoints& word) {
    text += word;
    space = U" ";
  };
  const auto attach_right = [&](const CodePoints& word) {
    text += space;
    text += word;
    space = U"";
  };
  for (size_t i = 0; i < words.size(); ++i) {
    const CodePoints& word = words[i];
    const CodePoints* previous = i > 0 ? &words[i - 1] : nullptr;
    if (!word.empty() && is_cjk(word.front())) {
      if (previous == nullptr || previous->empty() || !is_cjk(previous->back())) text += space;
      attach_left(word);
    } else if (all_of(word, attaches_right)) {
      attach_right(word);
    } else if (all_of(word, attaches_left)) {
      attach_left(word);
    } else if (english && previous != nullptr && word.size() >= 2 && word[0] == U'\'' &&
               is_alpha(word[1]) && !previous->empty() && is_alnum(previous->back())) {
      attach_left(word);  // a contraction: "don 't", "John 's"
    } else if (all_of(word, is_quote)) {
      const CodePoints key = all_of(word, is_double_quote) ? CodePoints(U"\"") : word;
      int& count = quote_counts[key];
      if (count % 2 == 1) {
        attach_left(word);
        ++count;
      } else if (english && word == U"'" && previous != nullptr && !previous->empty() &&
                 previous->back() == U's') {
        attach_left(word);  // a possessive after s: "the Jones' house"
      } else {
        attach_right(word);
        ++count;
      }
    } else {
      text += space;
      text += word;
      space = U" ";
    }
  }
  return to_utf8(squeeze_spaces(text));
}

}  // namespace mlh::wmt
