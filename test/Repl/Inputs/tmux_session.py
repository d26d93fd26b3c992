#!/usr/bin/env python3
"""Drives an interactive tdsl-repl session in a detached tmux pane.

Checks what only a terminal shows: history recall with the Up arrow, the
history file (~/.tdsl_history, with HOME set to a fresh directory), tab
completion of built-ins, defined names and commands, the continuation prompt
of a multi-line input, Ctrl-C stopping a long-running input without ending
the session or the values it keeps, and :quit / Ctrl-D.

Usage: tmux_session.py [path/to/tdsl-repl]   (default: tdsl-repl on PATH)
Exits 0 with "tmux not installed: skipped" when tmux is missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

TMUX = shutil.which("tmux")
if TMUX is None:
    print("tmux not installed: skipped")
    sys.exit(0)

REPL = sys.argv[1] if len(sys.argv) > 1 else "tdsl-repl"
if os.sep not in REPL:
    REPL = shutil.which(REPL)
if not REPL or not os.path.exists(REPL):
    print("error: tdsl-repl not found", file=sys.stderr)
    sys.exit(1)
REPL = os.path.abspath(REPL)

home = tempfile.mkdtemp(prefix="tdsl-repl-tmux-")
sock = os.path.join(home, "tmux.sock")  # a private server: never the user's
step = "start"


def tmux(*args, check=True):
    return subprocess.run([TMUX, "-S", sock, "-f", "/dev/null", *args],
                          check=check, capture_output=True, text=True)


def screen():
    """The pane with its scrollback, trailing blank lines dropped."""
    out = tmux("capture-pane", "-p", "-J", "-S", "-500", check=False).stdout
    return "\n".join(line.rstrip() for line in out.splitlines()).rstrip("\n")


def fail(message):
    print(f"FAIL at step '{step}': {message}", file=sys.stderr)
    print("---- pane ----", file=sys.stderr)
    print(screen(), file=sys.stderr)
    print("--------------", file=sys.stderr)
    tmux("kill-server", check=False)
    sys.exit(1)


def wait_for(pred, what, timeout=20.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        text = screen()
        if pred(text):
            return text
        time.sleep(0.1)
    fail(f"timed out waiting for {what}")


def wait_count(text, n, timeout=20.0):
    """Waits until the pane holds `text` at least n times."""
    return wait_for(lambda s: s.count(text) >= n,
                    f"{n} occurrence(s) of {text!r}", timeout)


def wait_last_line(text, timeout=20.0):
    return wait_for(lambda s: s.splitlines()[-1:] == [text],
                    f"last line {text!r}", timeout)


def keys(*k):
    tmux("send-keys", "-t", "repl", *k)


def typed(line):
    """Types `line` literally (no key names) and presses Enter."""
    tmux("send-keys", "-t", "repl", "-l", line)
    keys("Enter")


def alive():
    return tmux("has-session", "-t", "repl", check=False).returncode == 0


def start():
    env = ["env", f"HOME={home}", "TERM=xterm"]
    if "TDSL_STDLIB_PATH" in os.environ:
        env.append("TDSL_STDLIB_PATH=" + os.environ["TDSL_STDLIB_PATH"])
    tmux("new-session", "-d", "-s", "repl", "-x", "160", "-y", "50",
         " ".join(env + [REPL]))
    wait_for(lambda s: "tdsl-repl" in s and s.endswith("tdsl>"),
             "the banner and the first prompt")


def wait_exit(what):
    deadline = time.time() + 20
    while time.time() < deadline:
        if not alive():
            return
        time.sleep(0.1)
    fail(f"the session did not end after {what}")


try:
    # ---- first session -------------------------------------------------
    start()

    step = "history recall"
    typed("x = 20 + 22")
    wait_count("tdsl> x = 20 + 22", 1)
    typed("x * 2")
    wait_count("i64 = 84", 1)
    wait_last_line("tdsl>")
    keys("Up")  # recalls 'x * 2' into the line
    wait_last_line("tdsl> x * 2")
    keys("Enter")
    wait_count("i64 = 84", 2)  # ran again

    step = "completion of a built-in"
    keys("unifo", "Tab")
    wait_last_line("tdsl> uniform")
    typed("(7, 5) >= 0.0")
    wait_count("i1 = true", 1)

    step = "completion of a defined function"
    typed("fn twice(v: f32) -> f32 { return 2.0 * v }")
    wait_last_line("tdsl>")
    keys("twi", "Tab")
    wait_last_line("tdsl> twice")
    typed("(4.0)")
    wait_count("f32 = 8", 1)

    step = "completion of a command"
    keys(":he", "Tab")
    wait_last_line("tdsl> :help")
    keys("Enter")
    wait_count(":reset", 1)

    step = "multi-line input"
    typed("fn three(a: f32) -> f32 {")
    wait_last_line("  ...")
    typed("  return 3.0 * a")
    typed("}")
    wait_last_line("tdsl>")
    typed("three(2.0)")
    wait_count("f32 = 6", 1)

    step = "Ctrl-C stops a running input"
    # The input rebinds x before its long loop: interrupted, it changes
    # nothing, so x keeps the value it had.
    typed("x = x + 100; s = parallel for i in 0..20000000000 reduce(+) "
          "{ yield sin(f64(i)) }")
    time.sleep(2.0)  # compiled and running by now (it runs for minutes)
    if "use of undeclared" in screen():
        fail("the long input did not compile")
    keys("C-c")
    wait_count("interrupted", 1)
    wait_last_line("tdsl>")
    typed("x + 1")  # the session and its values survive
    wait_count("i64 = 43", 1)

    step = "Ctrl-C at the prompt"
    keys("C-c")
    time.sleep(0.5)
    if not alive():
        fail("Ctrl-C at the prompt ended the session")
    keys("C-u")
    typed("x + 2")
    wait_count("i64 = 44", 1)

    step = ":quit"
    typed(":quit")
    wait_exit(":quit")

    step = "history file"
    path = os.path.join(home, ".tdsl_history")
    if not os.path.exists(path):
        fail("~/.tdsl_history was not written")
    with open(path, encoding="utf-8", errors="replace") as f:
        history = f.read()
    # libedit stores spaces as \040.
    for entry in ["x\\040*\\0402", "twice(4.0)", "x\\040+\\0402"]:
        if entry not in history:
            fail(f"{entry!r} missing from the history file:\n{history}")

    # ---- second session: history persists, state does not -------------
    step = "second session"
    start()
    keys("Up")
    wait_last_line("tdsl> :quit")
    keys("Up")
    wait_last_line("tdsl> x + 2")
    keys("Enter")
    wait_count("use of undeclared name 'x'", 1)
    wait_last_line("tdsl>")
    typed("40 + 2")
    wait_count("i64 = 42", 1)

    step = "Ctrl-D"
    keys("C-d")
    wait_exit("Ctrl-D")

    print("tmux session: ok")
finally:
    tmux("kill-server", check=False)
    shutil.rmtree(home, ignore_errors=True)
