#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "datasets/wmt/t2t_subword_codec.h"
#include "tests/test_files.h"
#include "tests/user_error_of.h"

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;
using testing_files::fresh_test_folder;

struct GoldenEncoding {
  std::string text;
  TokenIds ids;  // EOS appended
  std::string decoded;
};

struct GoldenDecoding {
  TokenIds ids;
  std::string decoded;
};

// Golden data from the MLPerf transformer's own tokenizer (mlcommons/training @ 373dfeda,
// translation/tensorflow/transformer/utils/tokenizer.py, run under Python 3.11 with stub modules
// for tensorflow and mlperf_compliance): Subtokenizer.init_from_files built the vocabulary below
// from twelve English and German sentences (min_count 2), its first two entries were written as
// tensor2tensor writes them ('<pad>_', '<EOS>_'), and Subtokenizer(file, reserved_tokens=[]) (ids
// as listed, as tensor2tensor reads a file) encoded (add_eos=True) and decoded the cases.

// clang-format off
const std::vector<std::string> kGoldenSubtokens = {
    "<pad>_", "<EOS>_", "._", "the_", "The_", ", _", "is_", "fox_", "dog_", "and_", "\\u_", "Hund_",
    "Die_", "590_", "4_", "2017_", "101_", ",_", "über_", "Übersetzung_", "Übermaß_", "use_",
    "under_", "und_", "translation_", "training_", "text_", "temp_", "task_", "springt_", "snake_",
    "sleeps_", "sind_", "shared_", "sentence_", "scores_", "schnelle_", "schläft_", "runs_",
    "quick_", "path_", "parentheses_", "pairs_", "over_", "of_", "names_", "like_", "lazy_",
    "jumps_", "ist_", "had_", "gut_", "good_", "gab_", "file_", "faulen_", "escaped_", "es_",
    "deutsche_", "des_", "der_", "den_", "common_", "case_", "brown_", "braune_", "bellt_", "away_",
    "are_", "\\\\_", "Wörter_", "Trainingspaare_", "Straße_", "Satzes_", "Quoted_", "Katze_",
    "Jahr_", "In_", "Im_", "Größe_", "Fuchs_", "Der_", "C_", "A_", "; _", ":\\\\_", ") _", "\"_",
    "\" _", "!_", " (_", "ü", "ö", "ä", "ß", "Ü", "z", "y", "x", "w", "v", "u", "t", "s", "r", "q",
    "p", "o", "n", "m", "l", "k", "j", "i", "h", "g", "f", "e", "d", "c", "b", "a", "_", "\\", "W",
    "T", "S", "Q", "O", "K", "J", "I", "H", "G", "F", "E", "D", "C", "A", ">", "<", ";", ":", "9",
    "8", "7", "6", "5", "4", "3", "2", "1", "0", ".", ",", ")", "(", "\"", "!", " ",
};

const std::vector<GoldenEncoding> kGoldenEncodings = {
    {"The quick brown fox jumps over the lazy dog.",
     {4, 39, 64, 7, 48, 43, 3, 47, 8, 2, 1},
     "The quick brown fox jumps over the lazy dog."},
    {"Die Katze schläft; der Hund bellt!",
     {12, 75, 37, 84, 60, 11, 66, 89, 1},
     "Die Katze schläft; der Hund bellt!"},
    {"",
     {1},
     ""},
    {"Hund",
     {11, 1},
     "Hund"},
    {"the  dog",
     {3, 159, 159, 122, 8, 1},
     "the  dog"},
    {" leading and trailing ",
     {159, 122, 110, 117, 121, 118, 113, 108, 115, 122, 9, 102, 104, 121, 113, 110, 113, 108, 115,
      122, 159, 122, 1},
     " leading and trailing "},
    {"tab\tseparated",
     {102, 121, 120, 122, 123, 143, 141, 122, 103, 117, 106, 121, 104, 121, 102, 117, 118, 122, 1},
     "tab\tseparated"},
    {"snake_case and C:\\path\\to",
     {30, 10, 63, 9, 82, 85, 40, 69, 102, 107, 122, 1},
     "snake_case and C:\\path\\to"},
    {"literal \\u and \\65; stay literal",
     {110, 113, 102, 117, 104, 121, 110, 122, 159, 69, 101, 122, 9, 159, 69, 146, 147, 122, 84, 103,
      102, 121, 97, 122, 110, 113, 102, 117, 104, 121, 110, 122, 1},
     "literal \\u and \\65; stay literal"},
    {"Preis: 5 € für 日本 🙂",
     {123, 144, 152, 141, 104, 117, 6, 142, 159, 122, 147, 122, 159, 123, 144, 149, 146, 148, 84,
      116, 91, 104, 122, 123, 150, 146, 152, 144, 147, 141, 123, 150, 146, 148, 151, 150, 141, 122,
      159, 123, 151, 150, 144, 147, 145, 144, 141, 122, 1},
     "Preis: 5 € für 日本 🙂"},
    {"e\u0301te combining",
     {117, 122, 123, 145, 146, 143, 141, 122, 102, 117, 122, 119, 107, 109, 120, 113, 108, 113, 108,
      115, 122, 1},
     "e\u0301te combining"},
    {"𝐀𝐁 math letters and ٣ digits",
     {123, 151, 151, 143, 144, 152, 144, 141, 123, 151, 151, 143, 144, 152, 143, 141, 122, 109, 121,
      102, 114, 122, 110, 117, 102, 102, 117, 104, 103, 122, 9, 123, 151, 146, 149, 147, 141, 122,
      118, 113, 115, 113, 102, 103, 122, 1},
     "𝐀𝐁 math letters and ٣ digits"},
    {"Zürich—Paris–Wien",
     {123, 143, 152, 141, 91, 104, 113, 119, 114, 122, 123, 144, 150, 151, 150, 141, 122, 123, 144,
      152, 141, 121, 104, 6, 123, 144, 150, 151, 151, 141, 122, 124, 113, 117, 108, 122, 1},
     "Zürich—Paris–Wien"},
    {"a_b__c_",
     {121, 122, 10, 120, 122, 123, 101, 10, 119, 122, 10, 1},
     "a_b__c_"},
    {"\\",
     {69, 1},
     "\\"},
    {"x\u00a0y",
     {98, 122, 123, 151, 146, 152, 141, 122, 97, 122, 1},
     "x\u00a0y"},
};

const std::vector<GoldenDecoding> kGoldenDecodings = {
    {{123, 143, 143, 143, 143, 143, 143, 143, 143, 141, 122}, "〓"},  // "\99999999;_"
    {{123, 101, 122}, "_"},                                            // "\u_"
    {{123, 123, 122}, "\\"},                                           // "\\_"
    {{123, 98, 122}, "\\x"},                                           // "\x_"
    {{123, 146, 147, 141, 123, 146, 146, 122}, "A\\66"},               // "\65;\66_"
    {{11, 11, 2, 11}, "Hund Hund.Hund"},
    {{40160}, ""},                                                     // beyond the vocabulary
};
// clang-format on

fs::path write_vocabulary(const fs::path& folder, const std::vector<std::string>& subtokens,
                          const std::string& name = "vocab.ende.32768") {
  const fs::path file = folder / name;
  std::ofstream out(file, std::ios::binary);
  for (const std::string& subtoken : subtokens) out << "'" << subtoken << "'\n";
  return file;
}

std::unique_ptr<SubwordCodec> golden_codec() {
  return load_t2t_subword_codec(
      write_vocabulary(fresh_test_folder("wmt_t2t_codec"), kGoldenSubtokens));
}

TEST(T2tSubwordCodec, EncodesAndDecodesAsTheReference) {
  const auto codec = golden_codec();
  EXPECT_EQ(codec->vocabulary_size(), 160);
  for (const GoldenEncoding& golden : kGoldenEncodings) {
    EXPECT_EQ(codec->encode(golden.text), golden.ids) << golden.text;
    EXPECT_EQ(codec->decode(golden.ids), golden.decoded) << golden.text;
  }
  for (const GoldenDecoding& golden : kGoldenDecodings) {
    EXPECT_EQ(codec->decode(golden.ids), golden.decoded) << golden.decoded;
  }
}

TEST(T2tSubwordCodec, ProcessDataStyleReservedEntriesGiveTheSameIds) {
  std::vector<std::string> subtokens = kGoldenSubtokens;
  subtokens[0] = "<pad>";
  subtokens[1] = "<EOS>";
  const auto codec =
      load_t2t_subword_codec(write_vocabulary(fresh_test_folder("wmt_t2t_codec"), subtokens));
  for (const GoldenEncoding& golden : kGoldenEncodings) {
    EXPECT_EQ(codec->encode(golden.text), golden.ids) << golden.text;
  }
}

TEST(T2tSubwordCodec, RoundTripsUnicodeAndUnknownCharacters) {
  const auto codec = golden_codec();
  for (const std::string text :
       {"Übermaß und Größe", "Ελληνικά και русский текст", "emoji 🙂🙃 and CJK 漢字かな",
        "under_score\\back\\\\slash", "tabs\tand\nnewlines", "  many   spaces  ", "\\12; \\u \\\\",
        "zero\u200bwidth", "x", "100% 3.5 -7", "\u3013 gets no special treatment"}) {
    const TokenIds ids = codec->encode(text);
    ASSERT_FALSE(ids.empty());
    EXPECT_EQ(ids.back(), kEosId);
    for (const int32_t id : ids) {
      EXPECT_GE(id, 0);
      EXPECT_LT(id, codec->vocabulary_size());
    }
    EXPECT_EQ(codec->decode(ids), text);
  }
}

TEST(T2tSubwordCodec, DecodeStopsAtEosSkipsPaddingAndUnknownIds) {
  const auto codec = golden_codec();
  EXPECT_EQ(codec->decode({11, kPadId, 11, -4, 500, kEosId, 4}), "Hund Hund");
  EXPECT_EQ(codec->decode({}), "");
  EXPECT_EQ(codec->decode({kEosId, 11}), "");
  // "\55296;" names a surrogate, which has no UTF-8 form: it decodes as U+3013, as numbers above
  // U+10FFFF do in the reference.
  EXPECT_EQ(codec->decode({123, 147, 147, 150, 143, 146, 141, 122}), "\u3013");
}

TEST(T2tSubwordCodec, DescribeNamesTheFile) {
  const auto codec = golden_codec();
  EXPECT_EQ(codec->describe(), "t2t subwords vocab.ende.32768 (160 ids)");
}

TEST(T2tSubwordCodec, BadVocabularyFilesAreUserErrorsNamingTheFile) {
  const fs::path folder = fresh_test_folder("wmt_t2t_codec");
  std::string message = user_error_of([&] { load_t2t_subword_codec(folder / "absent"); });
  EXPECT_NE(message.find((folder / "absent").string() + ": no such file"), std::string::npos)
      << message;

  const fs::path empty = folder / "empty";
  std::ofstream(empty).close();
  message = user_error_of([&] { load_t2t_subword_codec(empty); });
  EXPECT_NE(message.find(empty.string() + ": is empty"), std::string::npos) << message;

  const fs::path unquoted = folder / "unquoted";
  std::ofstream(unquoted) << "'<pad>_'\n'<EOS>_'\nHallo_\n";
  message = user_error_of([&] { load_t2t_subword_codec(unquoted); });
  EXPECT_NE(message.find(unquoted.string() + ": line 3 is not one quoted subtoken: Hallo_"),
            std::string::npos)
      << message;

  const fs::path blank = folder / "blank";
  std::ofstream(blank) << "'<pad>_'\n\n'<EOS>_'\n";
  message = user_error_of([&] { load_t2t_subword_codec(blank); });
  EXPECT_NE(message.find(blank.string() + ": line 2 is empty"), std::string::npos) << message;

  std::vector<std::string> subtokens = kGoldenSubtokens;
  subtokens[1] = "the_";
  message =
      user_error_of([&] { load_t2t_subword_codec(write_vocabulary(folder, subtokens, "no_eos")); });
  EXPECT_NE(message.find("no_eos: line 2 is 'the_', expected '<EOS>_'"), std::string::npos)
      << message;

  subtokens = kGoldenSubtokens;
  subtokens.erase(std::find(subtokens.begin(), subtokens.end(), "7"));
  message = user_error_of(
      [&] { load_t2t_subword_codec(write_vocabulary(folder, subtokens, "no_seven")); });
  EXPECT_NE(message.find("no_seven: has no subtoken '7' of its own"), std::string::npos) << message;

  const fs::path latin1 = folder / "latin1";
  std::ofstream(latin1) << "'<pad>_'\n'<EOS>_'\n'Gr\xf6\xdf"
                           "e_'\n";
  message = user_error_of([&] { load_t2t_subword_codec(latin1); });
  EXPECT_NE(message.find(latin1.string() + ": line 3 is not valid UTF-8"), std::string::npos)
      << message;
}

TEST(T2tSubwordCodec, TextTheVocabularyCannotEncodeIsAUserError) {
  const auto codec = golden_codec();
  std::string message = user_error_of([&] {
    codec->encode(
        "Gr\xf6\xdf"
        "e");
  });
  EXPECT_NE(message.find("not valid UTF-8 (byte 2"), std::string::npos) << message;

  // 'ö' occurs inside "schön_" but is no subtoken of its own: the reference cannot split "ö_"
  // either.
  std::vector<std::string> subtokens = {"<pad>_", "<EOS>_", "schön_", "_", "\\", "u", ";"};
  for (char digit = '0'; digit <= '9'; ++digit) subtokens.push_back(std::string(1, digit));
  const fs::path file = write_vocabulary(fresh_test_folder("wmt_t2t_codec"), subtokens, "partial");
  const auto partial = load_t2t_subword_codec(file);
  EXPECT_EQ(partial->encode("schön"), (TokenIds{2, kEosId}));
  message = user_error_of([&] { partial->encode("ö"); });
  EXPECT_NE(message.find(file.string() + ": cannot cut the escaped token 'ö_'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("U+00F6"), std::string::npos) << message;
  // Characters outside its alphabet are escaped and always encodable.
  EXPECT_EQ(partial->decode(partial->encode("x")), "x");
}

}  // namespace
}  // namespace mlh::wmt
