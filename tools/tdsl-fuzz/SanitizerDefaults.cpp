//===- SanitizerDefaults.cpp - ASan options of the fuzzers ----------------===//
//
// Our code is instrumented, Debian's libLLVM/libMLIR are not (docs/testing.md):
// a std::vector or a BumpPtrAllocator slab touched by both sides carries
// annotations that only one side keeps, so container-overflow and manual
// poisoning checks would report false positives. $ASAN_OPTIONS still
// overrides these.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "detect_container_overflow=0:allow_user_poisoning=0";
}
