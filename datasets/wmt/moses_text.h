// The Moses tokenizer and detokenizer as the MLPerf GNMT reference runs them: mosesdecoder's
// scripts/tokenizer/tokenizer.perl (`-q -l en` / `-l de`: escaping on, no -a hyphen splitting) and
// detokenizer.perl without -l (English rules), at commit 8c5eaa1a (June 2018), the one the
// reference's download_dataset.sh pins. Later Moses versions differ: they always split the final
// period of a line and know "Rs." as an English prefix.
// Lines are UTF-8 without '\n'; invalid UTF-8 throws UserError. Unicode classes come from ICU, which
// may be a Unicode version apart from the reference's Perl (only newly assigned characters differ).
// Not covered: text that itself contains the script's placeholder words ("DOTMULTI", ...), which
// the tokenizer rewrites.
#pragma once

#include <string>

namespace mlh::wmt {

// tokenizer.perl on one line, `language` "en" or "de" (its apostrophe rules and non-breaking
// prefixes): runs of whitespace become one space and control characters go; symbols and
// punctuation other than . ' ` , - split off; a run of periods stays one token; commas split off
// unless between numbers; a word's final period splits off unless the word is a known prefix
// ("Mr."), an abbreviation with inner periods ("z.B.") or the next word starts in lowercase (a
// numeric-only prefix, "No.", keeps its period before a digit); then & | < > ' " [ ] become XML
// entities. An all-whitespace line comes back unchanged; like the script's output, a line that
// ends in ".'" ends in a space.
std::string moses_tokenize(const std::string& line, const std::string& language);

// detokenizer.perl on one line, `language` "en" (the reference's default) or "de" (the script's
// rules without the English ones): joins " @-@ " to "-", unescapes the tokenizer's entities,
// attaches closing punctuation to the left and currency signs and opening brackets to the right,
// pairs straight and German quotes, attaches English contractions ("John 's" -> "John's") and
// joins consecutive CJK words. A line that is all whitespace or one XML tag comes back unchanged.
std::string moses_detokenize(const std::string& line, const std::string& language = "en");

}  // namespace mlh::wmt
