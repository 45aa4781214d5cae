#include "datasets/wmt/bleu.h"

#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "base/user_error.h"
#include "datasets/wmt/utf8.h"

namespace mlh::wmt {
namespace {

using CodePoints = std::u32string;

// Where a text came from, for error messages: "BLEU hypothesis line 7", say.
std::string describe(const char* role, size_t line) {
  std::string where = std::string("BLEU ") + role;
  if (line > 0) where += " line " + std::to_string(line);
  return where;
}

// Strict UTF-8, as Python decodes.
CodePoints decode_utf8(const std::string& text, const char* role, size_t line = 0) {
  CodePoints out;
  size_t bad_offset = 0;
  if (!wmt::decode_utf8(text, out, bad_offset)) {
    throw UserError(describe(role, line) + ": invalid UTF-8 at byte " + std::to_string(bad_offset + 1) +
                    "; BLEU reads UTF-8 text (convert it, e.g. with iconv)");
  }
  return out;
}

// Python's str.lower(): full case mappings with the final-sigma rule, no locale (ICU's root).
CodePoints lowercase(const CodePoints& text) {
  std::u16string utf16;
  utf16.reserve(text.size());
  for (const char32_t c : text) {
    if (c < 0x10000) {
      utf16.push_back(static_cast<char16_t>(c));
    } else {
      utf16.push_back(static_cast<char16_t>(U16_LEAD(c)));
      utf16.push_back(static_cast<char16_t>(U16_TRAIL(c)));
    }
  }
  const auto source_length = static_cast<int32_t>(utf16.size());
  std::u16string lowered(utf16.size() + 16, u'\0');
  for (int attempt = 0; attempt < 2; ++attempt) {
    UErrorCode status = U_ZERO_ERROR;
    const int32_t length =
        u_strToLower(reinterpret_cast<UChar*>(lowered.data()), static_cast<int32_t>(lowered.size()),
                     reinterpret_cast<const UChar*>(utf16.data()), source_length, "", &status);
    if (status == U_BUFFER_OVERFLOW_ERROR) {
      lowered.assign(static_cast<size_t>(length), u'\0');
      continue;
    }
    MLH_ASSERT(U_SUCCESS(status));
    lowered.resize(static_cast<size_t>(length));
    break;
  }
  CodePoints out;
  out.reserve(lowered.size());
  const auto* units = reinterpret_cast<const UChar*>(lowered.data());
  const auto length = static_cast<int32_t>(lowered.size());
  for (int32_t i = 0; i < length;) {
    UChar32 c;
    U16_NEXT(units, i, length, c);
    out.push_back(static_cast<char32_t>(c));
  }
  return out;
}

// Python's str.isspace() (bidirectional class WS, B or S, or category Zs), which str.split(),
// str.strip() and the regular expression \s of the references all use.
bool is_python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

// \d of Python's regular expressions on str: the decimal digits, category Nd.
bool is_decimal_digit(char32_t c) {
  return u_charType(static_cast<UChar32>(c)) == U_DECIMAL_DIGIT_NUMBER;
}

// The references' punctuation class: every P* character, but their "[...\]...]" character class
// escapes the closing bracket with the backslash, so the backslash itself is not in it.
bool is_punctuation(char32_t c) {
  return c != U'\\' && (U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_P_MASK) != 0;
}

bool is_symbol(char32_t c) { return (U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_S_MASK) != 0; }

bool is_ascii_digit(char32_t c) { return c >= U'0' && c <= U'9'; }

// re.sub(r"(A)", r" \1 ", ...) for a one-character group.
template <typename Matches>
CodePoints pad_characters(const CodePoints& text, Matches matches) {
  CodePoints out;
  out.reserve(text.size() + text.size() / 2);
  for (const char32_t c : text) {
    if (matches(c)) {
      out.push_back(U' ');
      out.push_back(c);
      out.push_back(U' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// str.split(): tokens between runs of whitespace.
std::vector<std::string> split_tokens(const CodePoints& text) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_python_space(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !is_python_space(text[i])) ++i;
    if (i > start) tokens.push_back(to_utf8(std::u32string_view(text.data() + start, i - start)));
  }
  return tokens;
}

std::vector<std::string> tokenize_international(const CodePoints& text) {
  const auto not_digit = [](char32_t c) { return !is_decimal_digit(c); };
  CodePoints norm = substitute_pairs(text, not_digit, is_punctuation,
                                     [](CodePoints& out, char32_t a, char32_t b) {
                                       out += a;
                                       out += U' ';
                                       out += b;
                                       out += U' ';
                                     });
  norm = substitute_pairs(norm, is_punctuation, not_digit,
                          [](CodePoints& out, char32_t a, char32_t b) {
                            out += U' ';
                            out += a;
                            out += U' ';
                            out += b;
                          });
  return split_tokens(pad_characters(norm, is_symbol));
}

void replace_all(CodePoints& text, std::u32string_view from, std::u32string_view to) {
  CodePoints out;
  size_t i = 0;
  while (true) {
    const size_t found = text.find(from.data(), i, from.size());
    if (found == CodePoints::npos) break;
    out.append(text, i, found - i);
    out.append(to);
    i = found + from.size();
  }
  out.append(text, i, CodePoints::npos);
  text = std::move(out);
}

// sacreBLEU's tokenize_13a (mteval-v13a's normalisation for Western languages).
std::vector<std::string> tokenize_13a(const CodePoints& text) {
  CodePoints norm = text;
  replace_all(norm, U"<skipped>", U"");
  replace_all(norm, U"-\n", U"");
  replace_all(norm, U"\n", U" ");
  replace_all(norm, U"&quot;", U"\"");
  replace_all(norm, U"&amp;", U"&");
  replace_all(norm, U"&lt;", U"<");
  replace_all(norm, U"&gt;", U">");
  norm = U" " + norm + U" ";
  // [\{-\~\[-\` -\&\(-\+\:-\@\/]
  norm = pad_characters(norm, [](char32_t c) {
    return (c >= U'{' && c <= U'~') || (c >= U'[' && c <= U'`') || (c >= U' ' && c <= U'&') ||
           (c >= U'(' && c <= U'+') || (c >= U':' && c <= U'@') || c == U'/';
  });
  const auto period_or_comma = [](char32_t c) { return c == U'.' || c == U','; };
  const auto not_digit = [](char32_t c) { return !is_ascii_digit(c); };
  norm = substitute_pairs(norm, not_digit, period_or_comma,
                          [](CodePoints& out, char32_t a, char32_t b) {
                            out += a;
                            out += U' ';
                            out += b;
                            out += U' ';
                          });
  norm = substitute_pairs(norm, period_or_comma, not_digit,
                          [](CodePoints& out, char32_t a, char32_t b) {
                            out += U' ';
                            out += a;
                            out += U' ';
                            out += b;
                          });
  norm = substitute_pairs(norm, is_ascii_digit, [](char32_t c) { return c == U'-'; },
                          [](CodePoints& out, char32_t a, char32_t b) {
                            out += a;
                            out += U' ';
                            out += b;
                            out += U' ';
                          });
  return split_tokens(norm);
}

void strip_trailing_space(CodePoints& text) {
  while (!text.empty() && is_python_space(text.back())) text.pop_back();
}

// n-gram -> count for n = 1..4, the n-gram's tokens joined by ' ' (no token holds whitespace).
using NgramCounts = std::array<std::unordered_map<std::string, int64_t>, BleuStatistics::kMaxOrder>;

NgramCounts count_ngrams(const std::vector<std::string>& tokens) {
  NgramCounts counts;
  for (size_t n = 1; n <= counts.size(); ++n) {
    for (size_t i = 0; i + n <= tokens.size(); ++i) {
      std::string ngram = tokens[i];
      for (size_t k = i + 1; k < i + n; ++k) ngram += ' ' + tokens[k];
      ++counts[n - 1][ngram];
    }
  }
  return counts;
}

BleuStatistics statistics_of(const std::vector<std::string>& hypothesis,
                             const std::vector<std::string>& reference) {
  BleuStatistics statistics;
  statistics.hypothesis_length = static_cast<int64_t>(hypothesis.size());
  statistics.reference_length = static_cast<int64_t>(reference.size());
  const NgramCounts hypothesis_counts = count_ngrams(hypothesis);
  const NgramCounts reference_counts = count_ngrams(reference);
  for (size_t n = 0; n < hypothesis_counts.size(); ++n) {
    for (const auto& [ngram, count] : hypothesis_counts[n]) {
      statistics.possible[n] += count;
      const auto in_reference = reference_counts[n].find(ngram);
      if (in_reference != reference_counts[n].end()) {
        statistics.matches[n] += std::min(count, in_reference->second);
      }
    }
  }
  return statistics;
}

BleuStatistics t2t_statistics(const CodePoints& hypothesis, const CodePoints& reference) {
  return statistics_of(tokenize_international(lowercase(hypothesis)),
                       tokenize_international(lowercase(reference)));
}

std::vector<std::string> sacrebleu_tokens(const CodePoints& text, SacreBleuTokenizer tokenizer) {
  switch (tokenizer) {
    case SacreBleuTokenizer::k13a:
      return tokenize_13a(text);
    case SacreBleuTokenizer::kIntl:
      return tokenize_international(text);
  }
  MLH_ASSERT(false && "unknown SacreBleuTokenizer");
  return {};
}

BleuStatistics sacrebleu_line_statistics(CodePoints hypothesis, CodePoints reference,
                                         const SacreBleuOptions& options) {
  if (options.lowercase) {
    hypothesis = lowercase(hypothesis);
    reference = lowercase(reference);
  }
  strip_trailing_space(hypothesis);
  strip_trailing_space(reference);
  return statistics_of(sacrebleu_tokens(hypothesis, options.tokenizer),
                       sacrebleu_tokens(reference, options.tokenizer));
}

void check_line_counts(const char* flavour, size_t hypotheses, size_t references) {
  if (hypotheses != references) {
    throw UserError(std::string(flavour) + " BLEU: " + std::to_string(hypotheses) +
                    " hypothesis lines but " + std::to_string(references) +
                    " reference lines; line i of the hypotheses must translate the sentence of "
                    "reference line i");
  }
}

}  // namespace

void BleuStatistics::add(const BleuStatistics& other) {
  for (int n = 0; n < kMaxOrder; ++n) {
    matches[n] += other.matches[n];
    possible[n] += other.possible[n];
  }
  hypothesis_length += other.hypothesis_length;
  reference_length += other.reference_length;
}

std::array<int64_t, BleuStatistics::kNumCounts> BleuStatistics::counts() const {
  std::array<int64_t, kNumCounts> flat{};
  for (int n = 0; n < kMaxOrder; ++n) {
    flat[n] = matches[n];
    flat[kMaxOrder + n] = possible[n];
  }
  flat[2 * kMaxOrder] = hypothesis_length;
  flat[2 * kMaxOrder + 1] = reference_length;
  return flat;
}

BleuStatistics BleuStatistics::from_counts(const std::array<int64_t, kNumCounts>& counts) {
  BleuStatistics statistics;
  for (int n = 0; n < kMaxOrder; ++n) {
    statistics.matches[n] = counts[n];
    statistics.possible[n] = counts[kMaxOrder + n];
  }
  statistics.hypothesis_length = counts[2 * kMaxOrder];
  statistics.reference_length = counts[2 * kMaxOrder + 1];
  return statistics;
}

bool BleuStatistics::operator==(const BleuStatistics& other) const {
  return counts() == other.counts();
}

// ---- t2t ----

std::vector<std::string> t2t_bleu_tokenize(const std::string& text) {
  return tokenize_international(decode_utf8(text, "text"));
}

BleuStatistics t2t_bleu_statistics(const std::string& hypothesis, const std::string& reference) {
  return t2t_statistics(decode_utf8(hypothesis, "hypothesis"), decode_utf8(reference, "reference"));
}

double t2t_bleu(const BleuStatistics& statistics) {
  constexpr int kOrders = BleuStatistics::kMaxOrder;
  if (statistics.hypothesis_length <= 0) return 0.0;
  std::array<double, kOrders> precisions{};
  double smooth = 1.0;
  for (int n = 0; n < kOrders; ++n) {
    const auto possible = static_cast<double>(statistics.possible[n]);
    if (statistics.possible[n] <= 0) continue;
    if (statistics.matches[n] > 0) {
      precisions[n] = static_cast<double>(statistics.matches[n]) / possible;
    } else {
      smooth *= 2;
      precisions[n] = 1.0 / (smooth * possible);
    }
  }
  double geometric_mean = 0.0;
  if (*std::max_element(precisions.begin(), precisions.end()) > 0) {
    double log_sum = 0.0;
    for (const double p : precisions) {
      if (p != 0.0) log_sum += std::log(p);
    }
    geometric_mean = std::exp(log_sum / kOrders);
  }
  double brevity_penalty = 1.0;
  if (statistics.reference_length > 0) {
    const double ratio = static_cast<double>(statistics.hypothesis_length) /
                         static_cast<double>(statistics.reference_length);
    if (ratio < 1.0) brevity_penalty = std::exp(1.0 - 1.0 / ratio);
  }
  const auto bleu = static_cast<float>(geometric_mean * brevity_penalty);
  return static_cast<double>(bleu * 100.0f);
}

double t2t_corpus_bleu(const std::vector<std::string>& hypotheses,
                       const std::vector<std::string>& references) {
  check_line_counts("t2t", hypotheses.size(), references.size());
  BleuStatistics total;
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    total.add(t2t_statistics(decode_utf8(hypotheses[i], "hypothesis", i + 1),
                             decode_utf8(references[i], "reference", i + 1)));
  }
  return t2t_bleu(total);
}

// ---- sacreBLEU ----

std::vector<std::string> sacrebleu_tokenize(const std::string& text, SacreBleuTokenizer tokenizer) {
  return sacrebleu_tokens(decode_utf8(text, "text"), tokenizer);
}

BleuStatistics sacrebleu_statistics(const std::string& hypothesis, const std::string& reference,
                                    const SacreBleuOptions& options) {
  return sacrebleu_line_statistics(decode_utf8(hypothesis, "hypothesis"),
                                   decode_utf8(reference, "reference"), options);
}

double sacrebleu_bleu(const BleuStatistics& statistics) {
  constexpr int kOrders = BleuStatistics::kMaxOrder;
  std::array<double, kOrders> precisions{};
  double smooth = 1.0;
  for (int n = 0; n < kOrders; ++n) {
    if (statistics.possible[n] == 0) break;
    const auto possible = static_cast<double>(statistics.possible[n]);
    if (statistics.matches[n] == 0) {
      smooth *= 2;
      precisions[n] = 100.0 / (smooth * possible);
    } else {
      precisions[n] = 100.0 * static_cast<double>(statistics.matches[n]) / possible;
    }
  }
  double brevity_penalty = 1.0;
  if (statistics.hypothesis_length < statistics.reference_length) {
    brevity_penalty = statistics.hypothesis_length > 0
                          ? std::exp(1.0 - static_cast<double>(statistics.reference_length) /
                                               static_cast<double>(statistics.hypothesis_length))
                          : 0.0;
  }
  // sacreBLEU's my_log floors log(0) at -9999999999, which the exp below turns into 0.
  double log_sum = 0.0;
  for (const double p : precisions) log_sum += p == 0.0 ? -9999999999.0 : std::log(p);
  return brevity_penalty * std::exp(log_sum / kOrders);
}

double sacrebleu_corpus_bleu(const std::vector<std::string>& hypotheses,
                             const std::vector<std::string>& references,
                             const SacreBleuOptions& options) {
  check_line_counts("sacreBLEU", hypotheses.size(), references.size());
  BleuStatistics total;
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    total.add(sacrebleu_line_statistics(decode_utf8(hypotheses[i], "hypothesis", i + 1),
                                        decode_utf8(references[i], "reference", i + 1), options));
  }
  return sacrebleu_bleu(total);
}

}  // namespace mlh::wmt
