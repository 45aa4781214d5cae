#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/user_error.h"
#include "datasets/wmt/bpe_codes.h"
#include "datasets/wmt/gnmt_vocabulary.h"
#include "tests/test_files.h"
#include "tests/user_error_of.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_files::contents_of;
using testing_files::fresh_test_folder;

// Goldens from subword-nmt at 48ba99e (the commit the GNMT reference's download_dataset.sh pins),
// its scripts run under Python 3.11 the way download_dataset.sh runs them, on corpus(300, 7) below
// (written to a file, one line each, by the same generator in Python):
//   learn_bpe.py -s 32000 < corpus > codes_all      learn_bpe.py -s 200 < corpus > codes_200
//   apply_bpe.py -c codes_200 < corpus > corpus.bpe  (and -c codes_all, and on kExtraLines)
//   get_vocab.py < corpus.bpe | cut -f1 -d ' ' > vocab
//   learn_bpe.py -s 3000 < corpus(100000, 11)
// and from the reference's seq2seq/data/tokenizer.py (mlcommons/training, retired_benchmarks/gnmt)
// as Tokenizer(vocab, pad=8). Files are compared by 64-bit FNV-1a of their bytes. subword-nmt's
// current master differs only where a word holds "</w>" itself (kBpeExtraAllMerges[4]).

// ---- the corpus ----

class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  uint64_t next(uint64_t n) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state_ >> 33) % n;
  }

 private:
  uint64_t state_;
};

const std::vector<std::string> kStems = {
    "haus",  "bahn",  "hof",   "tür",   "straße", "größe",      "über", "arbeit",
    "zeit",  "land",  "recht", "frage", "nation", "struct",     "form", "port",
    "press", "train", "act",   "view",  "ein",    "ver",        "ab",   "an",
    "zu",    "the",   "and",   "of",    "europa", "kommission", "ça",   "été"};
const std::vector<std::string> kCapitals = {"Haus", "Europa", "The",        "Kommission",
                                            "Über", "Straße", "Parliament", "Élan"};
const std::vector<std::string> kSuffixes = {"ung",  "en",  "er",   "lich", "keit", "heit",
                                            "ion",  "ing", "ed",   "s",    "al",   "ly",
                                            "ness", "ful", "chen", "ität"};
const std::vector<std::string> kPunctuation = {",", ".", "&quot;", "&apos;s", "@-@",
                                               "(", ")", "?",      "!",       ":"};
// Spaces at the ends and doubled, tabs and no-break spaces inside tokens (learn_bpe.py's regular
// expression merges across the no-break space and the tab of the last two lines where symbol-wise
// merging would not), multi-byte characters, one-character words, "</w>" in the text.
const std::vector<std::string> kHandWritten = {
    "Die Straße über dem Fluss ist größer als die Brücke .",
    "The weather @-@ forecast &quot; says &quot; rain tomorrow .",
    "  leading and trailing spaces  ",
    "double  spaces   inside a line",
    "tab\tinside a token and no\u00a0break inside too",
    "\tabab \tabab \u00a0abab \u00a0abab ab ab abab abab",
    "ça va , naïve café façade — déjà vu",
    "emoji 😀 😀 and 日本語 テキスト 日本",
    "a b c 1 2 a b c",
    "a</w> a</w> b</w> b</w> a</w>",
    "\u00a0qa \u00a0qa \u00a0qa \u00a0qzqzx \u00a0qzqzx qzy",
    "\tjk \tjk \tjk \tjk \tjkjkw \tjkjkw jkv",
};

std::string generated_line(Lcg& rng) {
  std::string line;
  const uint64_t words = 3 + rng.next(12);
  for (uint64_t w = 0; w < words; ++w) {
    std::string word;
    const uint64_t kind = rng.next(12);
    if (kind < 2) {
      word = kPunctuation[rng.next(kPunctuation.size())];
    } else if (kind == 2) {
      word = std::to_string(rng.next(2000));
    } else if (kind == 3) {
      word = kCapitals[rng.next(kCapitals.size())];
    } else {
      word = kStems[rng.next(kStems.size())];
      if (rng.next(3) == 0) word += kStems[rng.next(kStems.size())];
      if (rng.next(2) == 0) word += kSuffixes[rng.next(kSuffixes.size())];
    }
    if (w > 0) line += ' ';
    line += word;
  }
  return line;
}

std::vector<std::string> corpus(int64_t generated, uint64_t seed) {
  std::vector<std::string> lines = kHandWritten;
  Lcg rng(seed);
  for (int64_t i = 0; i < generated; ++i) lines.push_back(generated_line(rng));
  return lines;
}

const std::vector<std::string>& small_corpus() {
  static const std::vector<std::string> lines = corpus(300, 7);
  return lines;
}

// Text the codes have not seen, whitespace-only lines, "</w>" in words.
const std::vector<std::string> kExtraLines = {"unseen wörter zzz qqq Ωmega 🙂",
                                              "",
                                              "   ",
                                              " lead  double trail ",
                                              "a</w> b</w>x",
                                              "x y ü",
                                              "abababab \u00a0qzqzx \tjkjkw",
                                              "Übersetzungsarbeitszeitlichkeit"};

uint64_t fnv1a(std::string_view bytes) {
  uint64_t hash = 14695981039346656037ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::string as_file(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + '\n';
  return text;
}

uint64_t codes_file_hash(const BpeCodes& codes) {
  const fs::path file = fresh_test_folder("mlh_wmt_bpe_test") / "codes";
  write_bpe_codes(file, codes);
  return fnv1a(contents_of(file));
}

std::vector<std::string> apply_all(const BpeCodes& codes, const std::vector<std::string>& lines) {
  BpeEncoder encoder(codes);
  std::vector<std::string> out;
  for (const std::string& line : lines) out.push_back(encoder.apply(line));
  return out;
}

void write_file(const fs::path& file, const std::string& contents) {
  std::ofstream(file, std::ios::binary) << contents;
}

// ---- goldens ----

// clang-format off
const std::vector<BpeMerge> kFirst40Of200 = {
    {"e", "i"}, {"t", "r"}, {"i", "o"}, {"a", "n"}, {"tr", "a"}, {"io", "n</w>"}, {"e", "r</w>"},
    {"o", "r"}, {"ei", "t</w>"}, {"s", "s"}, {"r", "e"}, {"c", "h"}, {"tra", "ß"}, {"n", "g</w>"},
    {"a", "u"}, {"a", "r"}, {"o", "m"}, {"om", "m"}, {"omm", "i"}, {"ommi", "ss"}, {"e", "n</w>"},
    {"r", "o"}, {"b", "a"}, {"u", "ro"}, {"uro", "p"}, {"o", "f"}, {"c", "t"}, {"an", "d"},
    {"ei", "t"}, {"ö", "ß"}, {"r", "öß"}, {"g", "röß"}, {"e", "r"}, {"ba", "h"}, {"l", "i"},
    {"n", "a"}, {"s", "traß"}, {"s", "s</w>"}, {"t", "ü"}, {"v", "i"},
};

const std::vector<BpeMerge> kBigFirst = {
    {"e", "i"}, {"r", "a"}, {"i", "o"}, {"a", "n"}, {"t", "ra"},
};

const std::vector<BpeMerge> kBigLast = {
    {"19", "41</w>"}, {"19", "38</w>"}, {"19", "22</w>"}, {"18", "9</w>"}, {"18", "94</w>"},
};

// apply_bpe.py -c codes_200 on the first 16 lines of the corpus.
const std::vector<std::string> kBpeFirstLines = {
    "D@@ i@@ e Straße über d@@ e@@ m F@@ l@@ u@@ ss i@@ s@@ t größ@@ er a@@ l@@ s d@@ i@@ e B@@ "
     "r@@ ü@@ c@@ k@@ e .",
    "The w@@ e@@ a@@ th@@ er @-@ for@@ e@@ c@@ a@@ s@@ t &quot; s@@ a@@ y@@ s &quot; ra@@ i@@ n "
     "t@@ om@@ or@@ ro@@ w .",
    "  l@@ e@@ a@@ d@@ ing and trai@@ li@@ ng s@@ p@@ a@@ c@@ e@@ s  ",
    "d@@ o@@ u@@ b@@ l@@ e s@@ p@@ a@@ c@@ e@@ s i@@ n@@ s@@ i@@ d@@ e a li@@ n@@ e",
    "t@@ ab@@ \t@@ i@@ n@@ s@@ i@@ d@@ e a t@@ o@@ k@@ en and n@@ o@@ \u00a0@@ b@@ re@@ a@@ k i@@ "
     "n@@ s@@ i@@ d@@ e t@@ o@@ o",
    "\t@@ abab \t@@ abab \u00a0@@ abab \u00a0@@ abab ab ab abab abab",
    "ça v@@ a , na@@ ï@@ v@@ e c@@ a@@ f@@ é f@@ a@@ ça@@ d@@ e — d@@ é@@ j@@ à v@@ u",
    "e@@ m@@ o@@ j@@ i 😀 😀 and 日@@ 本@@ 語 テ@@ キ@@ ス@@ ト 日@@ 本",
    "a b c 1 2 a b c",
    "a@@ <@@ /@@ w> a@@ <@@ /@@ w> b@@ <@@ /@@ w> b@@ <@@ /@@ w> a@@ <@@ /@@ w>",
    "\u00a0q@@ a \u00a0q@@ a \u00a0q@@ a \u00a0q@@ z@@ q@@ z@@ x \u00a0q@@ z@@ q@@ z@@ x q@@ z@@ y",
    "\tj@@ k \tj@@ k \tj@@ k \tj@@ k \tj@@ k@@ j@@ k@@ w \tj@@ k@@ j@@ k@@ w j@@ k@@ v",
    "train zeit@@ of@@ lich Haus kommission Über",
    "bahn@@ ful , größe@@ ful 8@@ 7@@ 5 view@@ of@@ ed ( hof@@ ung act@@ ein@@ ful and@@ ung "
     "frage ein &apos;s hof@@ über@@ lich struct@@ ver@@ ion",
    "haus@@ train 8@@ 6@@ 7 tür@@ bahn",
    "über@@ ful haus tür @-@ bahn@@ ed @-@ 14@@ 2@@ 1 16@@ 0@@ 7 form@@ er &quot; 11@@ 8@@ 5 "
     "recht train@@ the",
};

// apply_bpe.py on kExtraLines with codes_200 and codes_all, and with codes_200 without its header
// line (version 0.1) on kExtraLines and the first 4 corpus lines.
const std::vector<std::string> kBpeExtra = {
    "u@@ n@@ s@@ e@@ en w@@ ö@@ r@@ t@@ er z@@ z@@ z q@@ q@@ q Ω@@ me@@ g@@ a 🙂",
    "",
    "   ",
    " l@@ e@@ a@@ d d@@ o@@ u@@ b@@ l@@ e trai@@ l ",
    "a@@ <@@ /@@ w> b@@ <@@ /@@ w@@ >@@ x",
    "x y ü",
    "aba@@ ba@@ ba@@ b \u00a0q@@ z@@ q@@ z@@ x \tj@@ k@@ j@@ k@@ w",
    "Ü@@ b@@ er@@ s@@ e@@ t@@ zu@@ n@@ g@@ s@@ arbeit@@ s@@ zeit@@ li@@ ch@@ keit",
};
const std::vector<std::string> kBpeExtraAllMerges = {
    "u@@ n@@ s@@ e@@ en w@@ ö@@ r@@ t@@ er z@@ z@@ z q@@ q@@ q Ω@@ me@@ g@@ a 🙂",
    "",
    "   ",
    " l@@ ea@@ d d@@ o@@ u@@ b@@ l@@ e trai@@ l ",
    "a b@@ </@@ w@@ >@@ x",
    "x y ü",
    "aba@@ ba@@ ba@@ b \u00a0qzqzx \tjkjkw",
    "Ü@@ b@@ er@@ s@@ e@@ t@@ zu@@ n@@ g@@ s@@ arbeit@@ s@@ zeit@@ li@@ ch@@ keit",
};
const std::vector<std::string> kBpeExtraV01 = {
    "u@@ n@@ s@@ e@@ e@@ n w@@ ö@@ r@@ t@@ er z@@ z@@ z q@@ q@@ q Ω@@ me@@ g@@ a 🙂",
    "",
    "   ",
    " l@@ e@@ a@@ d d@@ o@@ u@@ b@@ l@@ e trai@@ l ",
    "a@@ <@@ /@@ w@@ > b@@ <@@ /@@ w@@ >@@ x",
    "x y ü",
    "aba@@ ba@@ ba@@ b \u00a0q@@ z@@ q@@ z@@ x \tj@@ k@@ j@@ k@@ w",
    "Ü@@ b@@ er@@ s@@ e@@ t@@ zu@@ n@@ g@@ s@@ arbeit@@ s@@ zeit@@ li@@ ch@@ k@@ eit",
    "D@@ i@@ e S@@ traß@@ e über d@@ e@@ m F@@ l@@ u@@ ss i@@ s@@ t größ@@ er a@@ l@@ s d@@ i@@ e "
     "B@@ r@@ ü@@ c@@ k@@ e .",
    "T@@ h@@ e w@@ e@@ a@@ th@@ er @-@@ @ for@@ e@@ c@@ a@@ s@@ t &@@ q@@ uot@@ ; s@@ a@@ y@@ s "
     "&@@ q@@ uot@@ ; ra@@ i@@ n t@@ om@@ or@@ ro@@ w .",
    "  l@@ e@@ a@@ d@@ i@@ n@@ g and trai@@ li@@ n@@ g s@@ p@@ a@@ c@@ e@@ s  ",
    "d@@ o@@ u@@ b@@ l@@ e s@@ p@@ a@@ c@@ e@@ s i@@ n@@ s@@ i@@ d@@ e a li@@ ne",
};

// get_vocab.py on the corpus BPE'd with codes_200.
const std::vector<BpeTokenCount> kFirstCounts = {
    {"ed", 64}, {"ion", 58}, {"s", 56}, {"lich", 54}, {"bahn@@", 53}, {"view@@", 53}, {"of@@", 52},
    {"ly", 52}, {"chen", 52}, {"straße@@", 51}, {"er", 50}, {"form@@", 50}, {"ness", 50},
    {"&quot;", 49}, {"arbeit@@", 49}, {"en", 48}, {"ful", 48}, {"(", 48}, {"ung", 48},
    {"struct@@", 48}, {"haus@@", 47}, {"tür@@", 47}, {"port@@", 47}, {",", 46}, {"act@@", 46},
    {"ver@@", 46}, {"größe@@", 45}, {"ein@@", 45}, {"land@@", 45}, {"train@@", 44}, {"@-@", 43},
    {"hof@@", 43}, {".", 42}, {"and@@", 42}, {"an@@", 42}, {"zu@@", 41}, {"keit", 40}, {"7@@", 39},
    {"al", 39}, {"europa@@", 39},
};


struct SegmentCase {
  std::string line;
  std::vector<int32_t> ids;
};
const std::vector<SegmentCase> kSegment = {
    {"D@@ i@@ e Straße über d@@ e@@ m F@@ l@@ u@@ ss i@@ s@@ t größ@@ er a@@ l@@ s d@@ i@@ e B@@ "
     "r@@ ü@@ c@@ k@@ e .",
     {2, 215, 134, 135, 88, 68, 137, 124, 216, 217, 181, 205, 182, 134, 139, 183, 140, 14, 119, 181,
      6, 137, 134, 135, 218, 219, 220, 157, 143, 135, 36, 3}},
    {"The w@@ e@@ a@@ th@@ er @-@ for@@ e@@ c@@ a@@ s@@ t &quot; s@@ a@@ y@@ s &quot; ra@@ i@@ n "
     "t@@ om@@ or@@ ro@@ w .",
     {2, 75, 221, 124, 119, 184, 14, 34, 222, 124, 157, 119, 139, 183, 17, 139, 119, 223, 6, 17,
      224, 134, 150, 138, 225, 226, 158, 195, 36, 3}},
    {"  l@@ e@@ a@@ d@@ ing and trai@@ li@@ ng s@@ p@@ a@@ c@@ e@@ s  ",
     {2, 181, 124, 119, 137, 54, 69, 185, 206, 131, 139, 207, 119, 157, 124, 6, 3}},
    {"unseen@@ word ed\u00a0ion\tlich  ",
     {2, 1, 1, 4, 5, 7, 3}},
    {"",
     {2, 3}},
    {"ion@@ madeupword0002 <unk> <s>",
     {2, 247, 251, 1, 2, 3}},
};

struct DetokenizeCase {
  std::vector<int32_t> ids;
  std::string text;
};
const std::vector<DetokenizeCase> kDetokenize = {
    {{2, 215, 134, 135, 88, 68, 137, 124, 216, 217, 181, 205, 182, 134, 139, 183, 140, 14, 119, 181,
     6, 137, 134, 135, 218, 219, 220, 157, 143, 135, 36, 3},
     "Die Straße über dem Fluss ist größer als die Brücke ."},
    {{2, 75, 221, 124, 119, 184, 14, 34, 222, 124, 157, 119, 139, 183, 17, 139, 119, 223, 6, 17,
     224, 134, 150, 138, 225, 226, 158, 195, 36, 3},
     "The weather @-@ forecast &quot; says &quot; rain tomorrow ."},
    {{2, 5, 4, 0, 0},
     "ion ed"},
    {{0, 2, 3, 1, 251, 255},
     "<unk> madeupword0002 madeupword0006"},
    {{7, 8, 3, 9, 3, 0},
     "lich bahn view"},
    {{4, 3, 2},
     "ed"},
};
// clang-format on

// ---- learning ----

TEST(BpeLearn, AllMergesOfTheCorpusAsLearnBpe) {
  const BpeCodes codes = learn_bpe_codes(small_corpus(), 32000);
  EXPECT_EQ(codes.version, BpeCodes::Version::k02);
  EXPECT_EQ(codes.merges.size(), 618u);
  EXPECT_EQ(codes_file_hash(codes), 10188641662524158921ULL);
}

TEST(BpeLearn, TwoHundredMergesAsLearnBpe) {
  const BpeCodes codes = learn_bpe_codes(small_corpus(), 200);
  ASSERT_EQ(codes.merges.size(), 200u);
  EXPECT_EQ(std::vector<BpeMerge>(codes.merges.begin(), codes.merges.begin() + 40), kFirst40Of200);
  EXPECT_EQ(codes_file_hash(codes), 7860023907895479ULL);
}

// Over 100 merges (statistics pruned every 100) and a reload of the full statistics.
TEST(BpeLearn, AHundredThousandLinesAsLearnBpe) {
  const BpeCodes codes = learn_bpe_codes(corpus(100000, 11), 3000);
  ASSERT_EQ(codes.merges.size(), 3000u);
  EXPECT_EQ(std::vector<BpeMerge>(codes.merges.begin(), codes.merges.begin() + 5), kBigFirst);
  EXPECT_EQ(std::vector<BpeMerge>(codes.merges.end() - 5, codes.merges.end()), kBigLast);
  EXPECT_EQ(codes_file_hash(codes), 5384001165567369823ULL);
}

// learn_bpe.py on "ab ab cd" and "ab cd" gives these.
TEST(BpeLearn, StopsWhenNoPairReachesMinFrequency) {
  const std::vector<BpeMerge> ab = {{"a", "b</w>"}};
  EXPECT_EQ(learn_bpe_codes({"ab ab cd"}, 10).merges, ab);
  const std::vector<BpeMerge> both = {{"a", "b</w>"}, {"c", "d</w>"}};
  EXPECT_EQ(learn_bpe_codes({"ab ab cd"}, 10, 1).merges, both);
  EXPECT_EQ(learn_bpe_codes({"ab ab cd"}, 1, 1).merges, ab);
}

TEST(BpeLearn, EquallyFrequentPairsGreatestFirst) {
  const std::vector<BpeMerge> expected = {{"c", "d</w>"}, {"a", "b</w>"}};
  EXPECT_EQ(learn_bpe_codes({"ab cd"}, 10, 1).merges, expected);
}

TEST(BpeLearn, NothingToMergeGivesNoMerges) {
  EXPECT_TRUE(learn_bpe_codes({"a b c", "", "  "}, 100).merges.empty());
  EXPECT_TRUE(learn_bpe_codes({}, 100).merges.empty());
  EXPECT_TRUE(learn_bpe_codes({"abc abc"}, 0).merges.empty());
}

TEST(BpeLearn, InvalidUtf8NamesTheLineAndByte) {
  const std::string message = user_error_of([] {
    learn_bpe_codes({"fine line", "bad \xff byte"}, 10);
  });
  EXPECT_THAT(message, HasSubstr("line 2"));
  EXPECT_THAT(message, HasSubstr("byte 5"));
}

// ---- the codes file ----

TEST(BpeCodesFile, WrittenAsLearnBpeAndReadBack) {
  const fs::path file = fresh_test_folder("mlh_wmt_bpe_test") / "sub" / "bpe.32000";
  const BpeCodes codes{BpeCodes::Version::k02, {{"e", "i"}, {"ß", "e</w>"}}};
  write_bpe_codes(file, codes);
  EXPECT_EQ(contents_of(file), "#version: 0.2\ne i\nß e</w>\n");
  const BpeCodes read = read_bpe_codes(file);
  EXPECT_EQ(read.version, BpeCodes::Version::k02);
  EXPECT_EQ(read.merges, codes.merges);
}

TEST(BpeCodesFile, WithoutHeaderIsVersion01AsApplyBpe) {
  const fs::path file = fresh_test_folder("mlh_wmt_bpe_test") / "codes_200_v01";
  BpeCodes codes = learn_bpe_codes(small_corpus(), 200);
  codes.version = BpeCodes::Version::k01;
  write_bpe_codes(file, codes);
  EXPECT_EQ(contents_of(file).rfind("e i\nt r\n", 0), 0u);
  const BpeCodes read = read_bpe_codes(file);
  EXPECT_EQ(read.version, BpeCodes::Version::k01);
  EXPECT_EQ(read.merges, codes.merges);
  std::vector<std::string> lines = kExtraLines;
  lines.insert(lines.end(), small_corpus().begin(), small_corpus().begin() + 4);
  EXPECT_EQ(apply_all(read, lines), kBpeExtraV01);
}

TEST(BpeCodesFile, HeaderVariantsAndLineEnds) {
  const fs::path folder = fresh_test_folder("mlh_wmt_bpe_test");
  write_file(folder / "a", "#version: 0.2.0\r\na b\r\n  c d  \n");
  const BpeCodes a = read_bpe_codes(folder / "a");
  EXPECT_EQ(a.version, BpeCodes::Version::k02);
  const std::vector<BpeMerge> expected = {{"a", "b"}, {"c", "d"}};
  EXPECT_EQ(a.merges, expected);
  write_file(folder / "b", "#version: 0.1\na b");
  EXPECT_EQ(read_bpe_codes(folder / "b").version, BpeCodes::Version::k01);
  write_file(folder / "c", "#version: 0.2\n");
  EXPECT_TRUE(read_bpe_codes(folder / "c").merges.empty());
}

TEST(BpeCodesFile, BadFilesNameFileAndLine) {
  const fs::path folder = fresh_test_folder("mlh_wmt_bpe_test");
  EXPECT_THAT(user_error_of([&] { read_bpe_codes(folder / "missing"); }),
              HasSubstr("no such BPE codes file"));
  EXPECT_THAT(user_error_of([&] { read_bpe_codes(folder); }), HasSubstr("is a folder"));
  write_file(folder / "empty", "");
  EXPECT_THAT(user_error_of([&] { read_bpe_codes(folder / "empty"); }), HasSubstr("is empty"));
  write_file(folder / "version", "#version: 0.3\na b\n");
  EXPECT_THAT(user_error_of([&] { read_bpe_codes(folder / "version"); }),
              HasSubstr("version:1: unsupported BPE codes header"));
  write_file(folder / "byte", "#version: 0.2 byte\na b\n");
  EXPECT_THAT(user_error_of([&] { read_bpe_codes(folder / "byte"); }),
              HasSubstr("unsupported BPE codes header"));
  write_file(folder / "three", "#version: 0.2\na b\nabc\n");
  EXPECT_THAT(user_error_of([&] { read_bpe_codes(folder / "three"); }),
              HasSubstr("three:3: \"abc\" is not a merge"));
  write_file(folder / "double", "a b\na  b\n");
  EXPECT_THAT(user_error_of([&] { read_bpe_codes(folder / "double"); }), HasSubstr("double:2:"));
  write_file(folder / "blank", "#version: 0.2\na b\n\nc d\n");
  EXPECT_THAT(user_error_of([&] { read_bpe_codes(folder / "blank"); }), HasSubstr("blank:3:"));
  write_file(folder / "utf8", "#version: 0.2\na b\nc \xc3\n");
  EXPECT_THAT(user_error_of([&] { read_bpe_codes(folder / "utf8"); }),
              HasSubstr("utf8:3: invalid UTF-8 at byte 3"));
}

// ---- applying ----

TEST(BpeApply, CorpusAsApplyBpe) {
  const std::vector<std::string> bpe =
      apply_all(learn_bpe_codes(small_corpus(), 200), small_corpus());
  ASSERT_EQ(bpe.size(), small_corpus().size());
  EXPECT_EQ(std::vector<std::string>(bpe.begin(), bpe.begin() + 16), kBpeFirstLines);
  EXPECT_EQ(fnv1a(as_file(bpe)), 11070558861981030005ULL);
  const std::vector<std::string> bpe_all =
      apply_all(learn_bpe_codes(small_corpus(), 32000), small_corpus());
  EXPECT_EQ(fnv1a(as_file(bpe_all)), 16259093529956830473ULL);
}

TEST(BpeApply, UnseenTextAsApplyBpe) {
  EXPECT_EQ(apply_all(learn_bpe_codes(small_corpus(), 200), kExtraLines), kBpeExtra);
  EXPECT_EQ(apply_all(learn_bpe_codes(small_corpus(), 32000), kExtraLines), kBpeExtraAllMerges);
}

TEST(BpeApply, CodesFileRoundTripSegmentsTheSame) {
  const fs::path file = fresh_test_folder("mlh_wmt_bpe_test") / "bpe.200";
  write_bpe_codes(file, learn_bpe_codes(small_corpus(), 200));
  BpeEncoder encoder(read_bpe_codes(file));
  EXPECT_EQ(encoder.apply(small_corpus()[0]), kBpeFirstLines[0]);
  const std::vector<std::string> pieces = {"größ", "er"};
  EXPECT_EQ(encoder.segment_word("größer"), pieces);
  EXPECT_EQ(encoder.segment_word("größer"), pieces);  // cached
}

// apply_bpe.py on "abc" with these codes gives "a@@ bc": the repeated merge keeps rank 0.
TEST(BpeApply, RepeatedMergeKeepsItsFirstRank) {
  BpeEncoder encoder(
      BpeCodes{BpeCodes::Version::k02, {{"b", "c</w>"}, {"a", "b"}, {"b", "c</w>"}}});
  EXPECT_EQ(encoder.apply("abc"), "a@@ bc");
  BpeEncoder without_repeat(BpeCodes{BpeCodes::Version::k02, {{"a", "b"}, {"b", "c</w>"}}});
  EXPECT_EQ(without_repeat.apply("abc"), "ab@@ c");
}

TEST(BpeApply, InvalidUtf8NamesTheByte) {
  BpeEncoder encoder(learn_bpe_codes(small_corpus(), 50));
  EXPECT_THAT(user_error_of([&] { encoder.apply("ok  b\xe2\x82"); }), HasSubstr("byte 6"));
}

// ---- token counts ----

TEST(BpeVocabulary, CountsAsGetVocab) {
  const std::vector<BpeTokenCount> counts =
      count_bpe_tokens(apply_all(learn_bpe_codes(small_corpus(), 200), small_corpus()));
  ASSERT_EQ(counts.size(), 245u);
  EXPECT_EQ(std::vector<BpeTokenCount>(counts.begin(), counts.begin() + 40), kFirstCounts);
  std::string file;
  for (const BpeTokenCount& entry : counts) {
    file += entry.token + ' ' + std::to_string(entry.count) + '\n';
  }
  EXPECT_EQ(fnv1a(file), 14662158192097488488ULL);
}

TEST(BpeVocabulary, EqualCountsInOrderOfFirstOccurrence) {
  const std::vector<BpeTokenCount> expected = {{"b", 3}, {"c@@", 2}, {"a", 2}, {"d", 1}};
  EXPECT_EQ(count_bpe_tokens({" c@@ a b", "d  b a", "b c@@\r"}), expected);
  EXPECT_THAT(user_error_of([] {
                count_bpe_tokens({"a", "b \xc0\x80"});
              }),
              HasSubstr("line 2: invalid UTF-8 at byte 3"));
}

// ---- the GNMT vocabulary ----

fs::path golden_vocabulary_file() {
  const std::vector<BpeTokenCount> counts =
      count_bpe_tokens(apply_all(learn_bpe_codes(small_corpus(), 200), small_corpus()));
  const fs::path file = fresh_test_folder("mlh_wmt_bpe_test") / "vocab.bpe.200";
  std::string text;
  for (const BpeTokenCount& entry : counts) text += entry.token + '\n';
  write_file(file, text);
  return file;
}

TEST(GnmtVocabulary, SpecialsFileTokensAndPaddingAsTheReference) {
  const fs::path file = golden_vocabulary_file();
  const GnmtVocabulary vocabulary = GnmtVocabulary::load(file, 8);
  ASSERT_EQ(vocabulary.size(), 256);
  EXPECT_EQ(GnmtVocabulary::load(file, 1).size(), 249);
  EXPECT_EQ(vocabulary.token(kGnmtPadId), "<pad>");
  EXPECT_EQ(vocabulary.token(kGnmtUnkId), "<unk>");
  EXPECT_EQ(vocabulary.token(kGnmtBosId), "<s>");
  EXPECT_EQ(vocabulary.token(kGnmtEosId), "<\\s>");
  EXPECT_EQ(vocabulary.token(4), "ed");
  EXPECT_EQ(vocabulary.token(247), "ion@@");
  EXPECT_EQ(vocabulary.token(248), "ber");
  for (int32_t i = 0; i < 7; ++i) {
    EXPECT_EQ(vocabulary.token(249 + i), "madeupword000" + std::to_string(i));
  }
  EXPECT_EQ(vocabulary.id("ion@@"), 247);
  EXPECT_EQ(vocabulary.id("madeupword0006"), 255);
  EXPECT_EQ(vocabulary.id("never seen"), kGnmtUnkId);
  EXPECT_EQ(vocabulary.id("<\\s>"), kGnmtEosId);
}

TEST(GnmtVocabulary, EncodeAsSegmentWithBosAndEos) {
  const GnmtVocabulary vocabulary = GnmtVocabulary::load(golden_vocabulary_file(), 8);
  for (const SegmentCase& c : kSegment) EXPECT_EQ(vocabulary.encode(c.line), c.ids) << c.line;
  EXPECT_THAT(user_error_of([&] { vocabulary.encode("ed \xff"); }), HasSubstr("byte 4"));
}

TEST(GnmtVocabulary, DecodeAsDetokenize) {
  const GnmtVocabulary vocabulary = GnmtVocabulary::load(golden_vocabulary_file(), 8);
  for (const DetokenizeCase& c : kDetokenize) EXPECT_EQ(vocabulary.decode(c.ids), c.text) << c.text;
  EXPECT_EQ(vocabulary.decode({}), "");
  EXPECT_THROW(vocabulary.decode({256}), InternalError);
  EXPECT_THROW(vocabulary.decode({-1}), InternalError);
}

TEST(GnmtVocabulary, FromTokensPadsAndStripsSeparators) {
  const GnmtVocabulary vocabulary({"Stra@@", "ße", "über"}, 8);
  EXPECT_EQ(vocabulary.size(), 8);
  EXPECT_EQ(vocabulary.token(7), "madeupword0000");
  const std::vector<int32_t> ids = vocabulary.encode("Stra@@ ße über@@ x");
  const std::vector<int32_t> expected = {kGnmtBosId, 4, 5, kGnmtUnkId, kGnmtUnkId, kGnmtEosId};
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(vocabulary.decode({kGnmtBosId, 4, 5, 6, 7, 7, kGnmtEosId, kGnmtPadId}),
            "Straße über madeupword0000 madeupword0000");
  EXPECT_EQ(vocabulary.decode({4, 7}), "Stramadeupword0000");
  EXPECT_EQ(vocabulary.decode({4}), "Stra");
  EXPECT_EQ(GnmtVocabulary({"a"}, 1).size(), 5);
}

TEST(GnmtVocabulary, LoadStripsLineEnds) {
  const fs::path file = fresh_test_folder("mlh_wmt_bpe_test") / "crlf";
  write_file(file, "a@@\r\n b \r\n\tc");
  const GnmtVocabulary vocabulary = GnmtVocabulary::load(file);
  EXPECT_EQ(vocabulary.size(), 7);
  EXPECT_EQ(vocabulary.id("a@@"), 4);
  EXPECT_EQ(vocabulary.id("b"), 5);
  EXPECT_EQ(vocabulary.id("c"), 6);
}

// The reference's Tokenizer on this file (pad=8) gives these ids.
TEST(GnmtVocabulary, RepeatedTokensLookUpTheirLastIdAsTheReference) {
  const fs::path file = fresh_test_folder("mlh_wmt_bpe_test") / "repeats";
  write_file(file, "a\nb\na\n<unk>\nmadeupword0000\n");
  const GnmtVocabulary vocabulary = GnmtVocabulary::load(file, 8);
  EXPECT_EQ(vocabulary.size(), 16);
  const std::vector<int32_t> expected = {2, 6, 5, 7, 9, 1, 3};
  EXPECT_EQ(vocabulary.encode("a b <unk> madeupword0000 zz"), expected);
  EXPECT_EQ(vocabulary.token(4), "a");
}

TEST(GnmtVocabulary, BadFilesAndTokensAreUserErrors) {
  const fs::path folder = fresh_test_folder("mlh_wmt_bpe_test");
  EXPECT_THAT(user_error_of([&] { GnmtVocabulary::load(folder / "missing"); }),
              HasSubstr("no such GNMT vocabulary file"));
  write_file(folder / "empty", "");
  EXPECT_THAT(user_error_of([&] { GnmtVocabulary::load(folder / "empty"); }),
              HasSubstr("empty: no tokens"));
  write_file(folder / "inner", "a\nb c\n");
  EXPECT_THAT(user_error_of([&] { GnmtVocabulary::load(folder / "inner"); }),
              HasSubstr("inner:2: token \"b c\" contains whitespace"));
  write_file(folder / "nbsp", "a\u00a0b\n");
  EXPECT_THAT(user_error_of([&] { GnmtVocabulary::load(folder / "nbsp"); }), HasSubstr("nbsp:1:"));
  write_file(folder / "blank", "a\n\nb\n");
  EXPECT_THAT(user_error_of([&] { GnmtVocabulary::load(folder / "blank"); }),
              HasSubstr("blank:2: empty token"));
  write_file(folder / "utf8", "a\nb\xff\n");
  EXPECT_THAT(user_error_of([&] { GnmtVocabulary::load(folder / "utf8"); }),
              HasSubstr("utf8:2: invalid UTF-8 at byte 2"));
  EXPECT_THAT(user_error_of([] { GnmtVocabulary({"a"}, 0); }), HasSubstr("pad_to_multiple is 0"));
  EXPECT_THAT(user_error_of([] { GnmtVocabulary(std::vector<std::string>{}); }),
              HasSubstr("no tokens"));
  EXPECT_THAT(user_error_of([] {
                GnmtVocabulary({"a", "a b"});
              }),
              HasSubstr("GNMT vocabulary token 2: token \"a b\" contains whitespace"));
}

}  // namespace
}  // namespace mlh::wmt
