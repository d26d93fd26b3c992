//===- TokenMutator.h - Mutations of .tdsl text by whole tokens -----------===//
#ifndef TDSL_FUZZ_TOKENMUTATOR_H
#define TDSL_FUZZ_TOKENMUTATOR_H

#include <cstddef>
#include <cstdint>

namespace tdsl {

/// Mutates the .tdsl text in `data` at the level of the front end's tokens
/// (as our Lexer splits it): swaps two tokens, copies a run of tokens to
/// another place, replaces a token by another one of the input or by a
/// keyword, type, built-in or punctuation, deletes a run, or inserts a word.
/// Byte-level mutations rarely keep a program parseable; these keep most of
/// it intact. Returns the new size (at most `maxSize`), or 0 when it made no
/// mutation (an empty input, or a result that does not fit).
size_t mutateTokens(uint8_t *data, size_t size, size_t maxSize, unsigned seed);

} // namespace tdsl

#endif // TDSL_FUZZ_TOKENMUTATOR_H
