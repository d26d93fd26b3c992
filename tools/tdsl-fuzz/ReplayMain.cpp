//===- ReplayMain.cpp - main() of a fuzz target built without libFuzzer ---===//
//
// Runs LLVMFuzzerTestOneInput once on each file named on the command line
// (options starting with '-' are ignored, as libFuzzer's would be), so the
// saved corpus and crash reproducers replay in the normal build.
//
//===----------------------------------------------------------------------===//
#include "llvm/FuzzMutate/FuzzerCLI.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);

int main(int argc, char **argv) {
  return llvm::runFuzzerOnInputs(argc, argv, LLVMFuzzerTestOneInput,
                                 LLVMFuzzerInitialize);
}
