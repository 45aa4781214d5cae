// The Tensor2Tensor SubwordTextEncoder the MLPerf transformer encodes with (utils/tokenizer.py,
// after tensor2tensor's text_encoder.py and tokenizer.py).
//
// The vocabulary file holds one quoted subtoken per line ('Hallo_' or "Hallo_"); id = line number
// from 0. Lines 0 and 1 are the reserved padding and EOS entries, written '<pad>_' / '<EOS>_' by
// tensor2tensor (the vocab.translate_ende_wmt32k.32768.subwords that T06/T07 ship: 33,708 ids) or
// '<pad>' / '<EOS>' by process_data.py's own vocabulary builder. Ids follow the file as
// tensor2tensor reads it; the MLPerf tokenizer would shift a tensor2tensor file by two ids, which
// its model's vocab_size of 33,708 does not allow for.
//
// encode: split the text where it changes between alphanumeric (Unicode categories L* and N*, from
// ICU) and other characters, dropping a single space between two alphanumeric tokens; escape each
// token ("\" -> "\\", "_" -> "\u", a character outside the vocabulary's alphabet or a newline ->
// "\<decimal code point>;") and end it with "_"; cut it greedily into the longest subtokens.
// decode: join the subtokens, split at "_", unescape ("\<n>;" of no character gives U+3013), and
// put a space between two tokens that both start alphanumeric.
#pragma once

#include <filesystem>
#include <memory>

#include "datasets/wmt/subword_codec.h"

namespace mlh::wmt {

// Throws UserError naming the file (and line, from 1) when the file is missing, unreadable or
// empty, a line is not one quoted subtoken, the first two lines are not the reserved entries, or a
// character that escaping needs ("\", "_", "u", ";", "0"-"9") is not a subtoken of its own.
// The codec's encode throws UserError for text that is not valid UTF-8 (naming the byte; callers
// add their file and line), and for a token the vocabulary cannot cut into subtokens, naming the
// vocabulary file: a character that occurs inside its subtokens but is no subtoken of its own (the
// reference fails there too). decode skips ids outside the vocabulary, as the reference does.
std::unique_ptr<SubwordCodec> load_t2t_subword_codec(const std::filesystem::path& vocabulary_file);

}  // namespace mlh::wmt
