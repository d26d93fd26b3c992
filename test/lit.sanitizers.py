# The environment of the tests in a sanitized build (-DTDSL_SANITIZE=...,
# scripts/sanitize.sh); loaded by test/lit.cfg.py and
# test/unittests/lit.cfg.py. Options already in the environment come last
# and win.
import os

sanitize = getattr(config, "tdsl_sanitize", "")
if sanitize:
    def _merged(name, ours):
        theirs = os.environ.get(name)
        return ours + (":" + theirs if theirs else "")

    # Only our code is instrumented, not Debian's libLLVM/libMLIR: a vector
    # or an allocator slab that both sides touch carries container and
    # poisoning annotations that only one side keeps (false reports).
    # A failed allocation returns null as it does without ASan, so the
    # runtime's own out-of-memory errors are what the tests see. A report
    # aborts, so that `not cmd` cannot pass on it.
    config.environment["ASAN_OPTIONS"] = _merged(
        "ASAN_OPTIONS",
        "detect_container_overflow=0:allow_user_poisoning=0:"
        "allocator_may_return_null=1:abort_on_error=1")
    config.environment["UBSAN_OPTIONS"] = _merged(
        "UBSAN_OPTIONS", "print_stacktrace=1:abort_on_error=1")
    # Objects that Debian's libraries allocate once and keep until exit.
    config.environment["LSAN_OPTIONS"] = _merged(
        "LSAN_OPTIONS", "suppressions=%s:print_suppressions=0" %
        os.path.join(config.tdsl_src_root, "test", "lsan.supp"))
    config.environment["ASAN_SYMBOLIZER_PATH"] = "/usr/lib/llvm-22/bin/llvm-symbolizer"
    if "address" in sanitize:
        config.available_features.add("asan")
    if "undefined" in sanitize:
        config.available_features.add("ubsan")
