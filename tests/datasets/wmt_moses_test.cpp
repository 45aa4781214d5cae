// Golden values come from running mosesdecoder's scripts at commit
// 8c5eaa1a122236bbf927bde4ec610906fea599e6 (the one MLPerf GNMT's download_dataset.sh pins) under
// Perl 5.36 on the inputs below, one per line:
//   perl scripts/tokenizer/tokenizer.perl -q -l en < inputs > tok.en     (and -l de > tok.de)
//   perl scripts/tokenizer/detokenizer.perl -q < tok.en > detok.en        (and tok.de > detok.de)
//   perl scripts/tokenizer/detokenizer.perl -q [-l de] < raw > detok      (the detokenizer cases)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "datasets/wmt/moses_text.h"
#include "tests/user_error_of.h"

namespace mlh::wmt {
namespace {

struct SentenceCase {
  std::string text;
  std::string english;           // tokenizer.perl -l en
  std::string german;            // tokenizer.perl -l de
  std::string english_restored;  // detokenizer.perl of `english`
  std::string german_restored;   // detokenizer.perl (English rules, as GNMT runs it) of `german`
};

struct TokenizeCase {
  std::string text;
  std::string english;
  std::string german;
};

struct DetokenizeCase {
  std::string tokens;
  std::string english;  // detokenizer.perl
  std::string german;   // detokenizer.perl -l de
};

const std::vector<SentenceCase> kSentences = {
    {"Hello, world!",
     "Hello , world !",
     "Hello , world !",
     "Hello, world!",
     "Hello, world!"},
    {"The price rose to 1,000.5 dollars in 2019, up 3.5%.",
     "The price rose to 1,000.5 dollars in 2019 , up 3.5 % .",
     "The price rose to 1,000.5 dollars in 2019 , up 3.5 % .",
     "The price rose to 1,000.5 dollars in 2019, up 3.5%.",
     "The price rose to 1,000.5 dollars in 2019, up 3.5%."},
    {"Mr. Smith and Dr. Jones met at 10 a.m. yesterday.",
     "Mr. Smith and Dr. Jones met at 10 a.m. yesterday .",
     "Mr. Smith and Dr. Jones met at 10 a.m. yesterday .",
     "Mr. Smith and Dr. Jones met at 10 a.m. yesterday.",
     "Mr. Smith and Dr. Jones met at 10 a.m. yesterday."},
    {"I don't think John's car is fast; it's the '90s model.",
     "I don &apos;t think John &apos;s car is fast ; it &apos;s the &apos; 90s model .",
     "I don &apos; t think John &apos; s car is fast ; it &apos; s the &apos; 90s model .",
     "I don't think John's car is fast; it's the '90s model.",
     "I don 't think John' s car is fast; it 's the' 90s model."},
    {"We bought apples, pears, bananas etc.",
     "We bought apples , pears , bananas etc .",
     "We bought apples , pears , bananas etc.",
     "We bought apples, pears, bananas etc.",
     "We bought apples, pears, bananas etc."},
    {"Das ist z.B. ein Test, d.h. ein Beispiel.",
     "Das ist z.B. ein Test , d.h. ein Beispiel .",
     "Das ist z.B. ein Test , d.h. ein Beispiel .",
     "Das ist z.B. ein Test, d.h. ein Beispiel.",
     "Das ist z.B. ein Test, d.h. ein Beispiel."},
    {"Er sagte: „Ich komme morgen.“",
     "Er sagte : „ Ich komme morgen . “",
     "Er sagte : „ Ich komme morgen . “",
     "Er sagte: „Ich komme morgen.“",
     "Er sagte: „Ich komme morgen.“"},
    {"\"Quoted text,\" she said, \"is here.\"",
     "&quot; Quoted text , &quot; she said , &quot; is here . &quot;",
     "&quot; Quoted text , &quot; she said , &quot; is here . &quot;",
     "\"Quoted text,\" she said, \"is here.\"",
     "\"Quoted text,\" she said, \"is here.\""},
    {"It costs $5 or €4.50 (roughly).",
     "It costs $ 5 or € 4.50 ( roughly ) .",
     "It costs $ 5 or € 4.50 ( roughly ) .",
     "It costs $5 or €4.50 (roughly).",
     "It costs $5 or €4.50 (roughly)."},
    {"Tom & Jerry <b>bold</b> [brackets] {braces} | pipe",
     "Tom &amp; Jerry &lt; b &gt; bold &lt; / b &gt; &#91; brackets &#93; { braces } &#124; pipe",
     "Tom &amp; Jerry &lt; b &gt; bold &lt; / b &gt; &#91; brackets &#93; { braces } &#124; pipe",
     "Tom & Jerry < b > bold < / b > [brackets] {braces} | pipe",
     "Tom & Jerry < b > bold < / b > [brackets] {braces} | pipe"},
    {"Well... I guess so.",
     "Well ... I guess so .",
     "Well ... I guess so .",
     "Well... I guess so.",
     "Well... I guess so."},
    {"A state-of-the-art, well-known approach.",
     "A state-of-the-art , well-known approach .",
     "A state-of-the-art , well-known approach .",
     "A state-of-the-art, well-known approach.",
     "A state-of-the-art, well-known approach."},
    {"Multiple   spaces\tand tabs here  .",
     "Multiple spaces and tabs here .",
     "Multiple spaces and tabs here .",
     "Multiple spaces and tabs here.",
     "Multiple spaces and tabs here."},
    {"The 1990's were great, weren't they?",
     "The 1990 &apos;s were great , weren &apos;t they ?",
     "The 1990 &apos; s were great , weren &apos; t they ?",
     "The 1990's were great, weren't they?",
     "The 1990 's were great, weren' t they?"},
    {"See No. 5 and Art. 3 on pp. 12-14.",
     "See No. 5 and Art. 3 on pp. 12-14 .",
     "See No. 5 and Art. 3 on pp. 12-14 .",
     "See No. 5 and Art. 3 on pp. 12-14.",
     "See No. 5 and Art. 3 on pp. 12-14."},
    {"He said 'hello.'",
     "He said &apos; hello . &apos; ",
     "He said &apos; hello . &apos;",
     "He said 'hello.'",
     "He said 'hello.'"},
    {"Die U.S.A. und die EU haben 3,5 Mio. Euro ausgegeben.",
     "Die U.S.A. und die EU haben 3,5 Mio . Euro ausgegeben .",
     "Die U.S.A. und die EU haben 3,5 Mio. Euro ausgegeben .",
     "Die U.S.A. und die EU haben 3,5 Mio. Euro ausgegeben.",
     "Die U.S.A. und die EU haben 3,5 Mio. Euro ausgegeben."},
    {"Am 3. Oktober 1990 wurde Deutschland wiedervereinigt.",
     "Am 3 . Oktober 1990 wurde Deutschland wiedervereinigt .",
     "Am 3. Oktober 1990 wurde Deutschland wiedervereinigt .",
     "Am 3. Oktober 1990 wurde Deutschland wiedervereinigt.",
     "Am 3. Oktober 1990 wurde Deutschland wiedervereinigt."},
    {"Prof. Dr. Müller wohnt in der Hauptstr. 5.",
     "Prof. Dr. Müller wohnt in der Hauptstr . 5 .",
     "Prof. Dr. Müller wohnt in der Hauptstr . 5.",
     "Prof. Dr. Müller wohnt in der Hauptstr. 5.",
     "Prof. Dr. Müller wohnt in der Hauptstr. 5."},
    {"The Jones' house is on St. Mark's Place.",
     "The Jones &apos; house is on St. Mark &apos;s Place .",
     "The Jones &apos; house is on St. Mark &apos; s Place .",
     "The Jones' house is on St. Mark's Place.",
     "The Jones' house is on St. Mark 's Place."},
    {"Is it true?! Yes -- absolutely.",
     "Is it true ? ! Yes -- absolutely .",
     "Is it true ? ! Yes -- absolutely .",
     "Is it true?! Yes -- absolutely.",
     "Is it true?! Yes -- absolutely."},
    {"Email me at john@example.com or visit http://example.com/page?a=1&b=2.",
     "Email me at john @ example.com or visit http : / / example.com / page ? a = 1 &amp; b = 2 .",
     "Email me at john @ example.com or visit http : / / example.com / page ? a = 1 &amp; b = 2.",
     "Email me at john @ example.com or visit http: / / example.com / page? a = 1 & b = 2.",
     "Email me at john @ example.com or visit http: / / example.com / page? a = 1 & b = 2."},
    {"We'll go to N.Y. tomorrow, won't we?",
     "We &apos;ll go to N.Y. tomorrow , won &apos;t we ?",
     "We &apos; ll go to N.Y. tomorrow , won &apos; t we ?",
     "We'll go to N.Y. tomorrow, won't we?",
     "We 'll go to N.Y. tomorrow, won' t we?"},
    {"Ich hab's nicht gewusst, oder?",
     "Ich hab &apos;s nicht gewusst , oder ?",
     "Ich hab &apos; s nicht gewusst , oder ?",
     "Ich hab's nicht gewusst, oder?",
     "Ich hab 's nicht gewusst, oder?"},
    {"Das kostet 1.234,56 € inkl. MwSt.",
     "Das kostet 1.234,56 € inkl . MwSt .",
     "Das kostet 1.234,56 € inkl . MwSt.",
     "Das kostet 1.234,56 €inkl. MwSt.",
     "Das kostet 1.234,56 €inkl. MwSt."},
    {"100,000 people, i.e. many.",
     "100,000 people , i.e. many .",
     "100,000 people , i.e. many .",
     "100,000 people, i.e. many.",
     "100,000 people, i.e. many."},
    {"'Tis the season, y'all.",
     "&apos;Tis the season , y &apos;all .",
     "&apos; Tis the season , y &apos; all .",
     "'Tis the season, y'all.",
     "'Tis the season, y' all."},
    {"He scored 5:3 in the 2nd half - amazing!",
     "He scored 5 : 3 in the 2nd half - amazing !",
     "He scored 5 : 3 in the 2nd half - amazing !",
     "He scored 5: 3 in the 2nd half - amazing!",
     "He scored 5: 3 in the 2nd half - amazing!"},
    {"Café Zürich – naïve résumé …",
     "Café Zürich – naïve résumé …",
     "Café Zürich – naïve résumé …",
     "Café Zürich – naïve résumé …",
     "Café Zürich – naïve résumé …"},
    {"Numbers: 1,2,3 and A,B,C.",
     "Numbers : 1,2,3 and A , B , C.",
     "Numbers : 1,2,3 and A , B , C.",
     "Numbers: 1,2,3 and A, B, C.",
     "Numbers: 1,2,3 and A, B, C."},
    {"\"Hello,\" he said. \"Goodbye.\"",
     "&quot; Hello , &quot; he said . &quot; Goodbye . &quot;",
     "&quot; Hello , &quot; he said . &quot; Goodbye . &quot;",
     "\"Hello,\" he said. \"Goodbye.\"",
     "\"Hello,\" he said. \"Goodbye.\""},
    {"The U.S. economy grew 2.3 percent.",
     "The U.S. economy grew 2.3 percent .",
     "The U.S. economy grew 2.3 percent .",
     "The U.S. economy grew 2.3 percent.",
     "The U.S. economy grew 2.3 percent."},
    {"¿Qué tal? ¡Muy bien!",
     "¿ Qué tal ? ¡ Muy bien !",
     "¿ Qué tal ? ¡ Muy bien !",
     "¿Qué tal? ¡Muy bien!",
     "¿Qué tal? ¡Muy bien!"},
    {"Der Preis beträgt ca. 20 Euro, bzw. 25 Dollar.",
     "Der Preis beträgt ca . 20 Euro , bzw . 25 Dollar .",
     "Der Preis beträgt ca. 20 Euro , bzw. 25 Dollar .",
     "Der Preis beträgt ca. 20 Euro, bzw. 25 Dollar.",
     "Der Preis beträgt ca. 20 Euro, bzw. 25 Dollar."},
};

const std::vector<TokenizeCase> kTokenizeEdges = {
    {"Sentence ending in 5,", "Sentence ending in 5 ,",
     "Sentence ending in 5 ,"},
    {"x²,3 and ½,a", "x ² , 3 and ½ , a",
     "x ² , 3 and ½ , a"},
    {"'hello' and ''double'' and `back`",
     "&apos;hello &apos; and &apos; &apos; double &apos; &apos; and `back`",
     "&apos; hello &apos; and &apos; &apos; double &apos; &apos; and `back`"},
    {"Mr.", "Mr.",
     "Mr."},
    {"Wait...'", "Wait ... &apos;",
     "Wait ... &apos;"},
    {"He left.'", "He left . &apos; ",
     "He left . &apos;"},
    {"a..b ....c", "a .. b .... c",
     "a .. b .... c"},
    {"It's 5 p.m. Tomorrow we go.", "It &apos;s 5 p.m. Tomorrow we go .",
     "It &apos; s 5 p.m. Tomorrow we go ."},
    {"No. 5 vs. No. five", "No. 5 vs. No. five",
     "No. 5 vs. No. five"},
    {"U.S.A", "U.S.A",
     "U.S.A"},
    {"Tabs\tand\u00A0NBSP\x01" "and\x1f" "ctrl", "Tabs and NBSPandctrl",
     "Tabs and NBSPandctrl"},
};

const std::vector<DetokenizeCase> kDetokenizeEdges = {
    {"<seg id=\"1\">", "<seg id=\"1\">",
     "<seg id=\"1\">"},
    {"a @-@ b @-@ @-@ c", "a-b-@-@ c",
     "a-b-@-@ c"},
    {"&bar; &bra; &ket; &amp;lt; &#124;", "| [] &lt; |",
     "| [] &lt; |"},
    {"中文 字 , 한국 어 abc 中", "中文字, 한국어 abc 中",
     "中文字, 한국어 abc 中"},
    {"' a ' ' b ' Jones ' car", "'a' 'b' Jones' car",
     "'a' 'b' Jones 'car"},
    {"`` x '' ` y ` \" z \"", "``x ''`y` \"z\"",
     "``x ''`y` \"z\""},
    {"„ Hallo “ , sagte er ” ja ”", "„Hallo“, sagte er ” ja ”",
     "„Hallo“, sagte er ” ja ”"},
    {"$ 5 , ( 3 % ) [ a ] { b } ¿ c ? ¡ d !", "$5, (3%) [a] {b} ¿c? ¡d!",
     "$5, (3%) [a] {b} ¿c? ¡d!"},
    {"I can 't , it 's the 1990 's", "I can't, it's the 1990's",
     "I can 't, it 's the 1990 's"},
    {"x :  ; y", "x: ; y",
     "x: ; y"},
};


TEST(MosesTokenize, EnglishMatchesTheScript) {
  for (const SentenceCase& c : kSentences) {
    EXPECT_EQ(moses_tokenize(c.text, "en"), c.english) << c.text;
  }
  for (const TokenizeCase& c : kTokenizeEdges) {
    EXPECT_EQ(moses_tokenize(c.text, "en"), c.english) << c.text;
  }
}

TEST(MosesTokenize, GermanMatchesTheScript) {
  for (const SentenceCase& c : kSentences) {
    EXPECT_EQ(moses_tokenize(c.text, "de"), c.german) << c.text;
  }
  for (const TokenizeCase& c : kTokenizeEdges) {
    EXPECT_EQ(moses_tokenize(c.text, "de"), c.german) << c.text;
  }
}

TEST(MosesTokenize, LeavesBlankLinesAsTheyAre) {
  for (const std::string& line : {std::string(), std::string("   "), std::string(" \t\u00A0")}) {
    EXPECT_EQ(moses_tokenize(line, "en"), line);
    EXPECT_EQ(moses_tokenize(line, "de"), line);
  }
}

TEST(MosesDetokenize, RestoresTheScriptsTokens) {
  for (const SentenceCase& c : kSentences) {
    EXPECT_EQ(moses_detokenize(c.english), c.english_restored) << c.english;
    EXPECT_EQ(moses_detokenize(c.german, "en"), c.german_restored) << c.german;
  }
}

TEST(MosesDetokenize, MatchesTheScriptOnRawTokens) {
  for (const DetokenizeCase& c : kDetokenizeEdges) {
    EXPECT_EQ(moses_detokenize(c.tokens, "en"), c.english) << c.tokens;
    EXPECT_EQ(moses_detokenize(c.tokens, "de"), c.german) << c.tokens;
  }
}

TEST(MosesDetokenize, LeavesBlankLinesAndTagsAsTheyAre) {
  for (const std::string& line : {std::string(), std::string("  \t"), std::string("<p>"),
                                  std::string("<seg id=\"2\"> a , b </seg>")}) {
    EXPECT_EQ(moses_detokenize(line), line);
  }
  EXPECT_EQ(moses_detokenize(" <>  &lt;&gt; "), "<> <>");  // "<>" is too short for a tag
}

// Where the scripts give a sentence back (most ordinary ones), the port does too.
TEST(MosesText, DetokenizeUndoesTokenize) {
  int round_trips = 0;
  for (const SentenceCase& c : kSentences) {
    if (c.english_restored == c.text) {
      EXPECT_EQ(moses_detokenize(moses_tokenize(c.text, "en")), c.text);
      ++round_trips;
    }
    if (c.german_restored == c.text) {
      EXPECT_EQ(moses_detokenize(moses_tokenize(c.text, "de")), c.text);
    }
  }
  EXPECT_GE(round_trips, 25);
  for (const char* text :
       {"She said: \"It's 5 o'clock, isn't it?\" (Yes.)", "Prices fell 4.5% to $1,200 in 2020."}) {
    EXPECT_EQ(moses_detokenize(moses_tokenize(text, "en")), text);
  }
}

TEST(MosesText, RejectsInvalidUtf8) {
  const std::string bad = "caf\xC3";
  EXPECT_NE(user_error_of([&] { moses_tokenize(bad, "en"); }).find("invalid UTF-8 at byte 4"),
            std::string::npos);
  EXPECT_NE(user_error_of([&] { moses_detokenize(bad); }).find("invalid UTF-8"), std::string::npos);
}

}  // namespace
}  // namespace mlh::wmt
