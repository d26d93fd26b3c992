"""The oracle: what counts as a failure, and its signature.

A configuration fails when it exits with an error (a valid program must not:
a front-end rejection, a run-time error, a ptxas error), crashes, hangs,
or writes outputs that differ from the reference: a missing file, another
dtype or shape, or a value outside the bound (exact values must be equal,
-0 == 0). The JIT with 1 and 2 threads must also agree bit for bit.

A failure's signature is its kind plus the normalized first error message
(line numbers, numbers and names replaced), and the set of configurations
that show it; findings are deduplicated and reduced by signature.
"""
import re

import numpy as np

from . import dtypes as D
from .sem import SAFETY


def normalize(msg):
    msg = re.sub(r'\S*prog(\.tdsl|\.ptx)?:\d+(:\d+)?:?', '', msg)
    msg = re.sub(r"'[^']*'", "'X'", msg)
    msg = re.sub(r'(?<!\w)[a-z]{1,2}\d+\b', 'X', msg)      # generated names
    msg = re.sub(r'"[^"]*"', '"X"', msg)
    msg = re.sub(r'0x[0-9a-fA-F]+', 'ADDR', msg)
    msg = re.sub(r'\d+', 'N', msg)
    return re.sub(r'\s+', ' ', msg).strip()[:120]


def first_error(text):
    """The first meaningful error line of a tool's output."""
    m = re.search(r"Symbols not found: \[ (\S+) \]|undefined reference to [`'](\S+)'", text)
    if m:
        return 'missing symbol %s' % (m.group(1) or m.group(2))
    pats = [r"Assertion `.*' failed", r'LLVM ERROR: .*', r'UNREACHABLE executed.*',
            r'ptxas fatal\s*: .*', r'ptxas .*error.*', r'Symbols not found: .*',
            r'error: .*', r'FAIL .*', r'.*[Ee]rror.*']
    for p in pats:
        m = re.search(p, text, re.M)
        if m:
            return m.group(0)
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else '(no message)'


def crash_frame(text):
    """The innermost stack frame of a crash in TDSL's own code (a frame of
    tdslc or of one of its .cpp files), as `in Class::function`."""
    for line in text.splitlines():
        m = re.match(r'\s*#\d+ 0x[0-9a-f]+ (.*)', line)
        if not m or not ('.cpp:' in line or '/bin/tdslc' in line or '/lib/libtdsl' in line):
            continue
        frame = m.group(1).replace('(anonymous namespace)::', '')
        lam = re.search(r"([\w:~]+)\([^()]*\)::'lambda'", frame)
        name = lam.group(1) if lam else re.sub(r'\(.*', '', frame)
        return 'in ' + name.strip()
    return None


def run_failure(res):
    """The failure kind of a run that did not finish normally, else None."""
    if res.status == 'timeout':
        return 'hang'
    if res.status == 'ok':
        return None
    text = res.stdout + res.stderr
    if res.config == 'ptxas' and res.step == 1:
        return 'ptxas: ' + normalize(first_error(text))
    what = 'crash' if res.rc < 0 or res.rc > 1 else 'error'
    if what == 'crash':
        sig = -res.rc if res.rc < 0 else res.rc
        where = crash_frame(text)
        first = first_error(text)
        if where and not re.search(r"Assertion|LLVM ERROR|UNREACHABLE", first):
            first = where
        return 'crash(%s): %s' % (sig, normalize(first))
    return 'error: ' + normalize(first_error(text))


def tolerance(val):
    """Allowed |got - expected| of each element of a reference value."""
    if val.e is None:
        return np.zeros(val.a.shape)
    return 2 * SAFETY * val.e


def compare_output(name, val, got):
    """None when `got` (a loaded .npy) matches the reference Val, else a
    (kind, detail) pair."""
    if got is None:
        return 'missing-output', '%s was not written' % name
    if isinstance(got, Exception):
        return 'bad-npy', '%s: %s' % (name, got)
    want = D.to_npy(val.dtype, val.a)
    if got.dtype != want.dtype:
        return 'mismatch-dtype', '%s: dtype %s, expected %s' % (name, got.dtype, want.dtype)
    if got.shape != want.shape:
        return 'mismatch-shape', '%s: shape %s, expected %s' % (name, got.shape, want.shape)
    if D.sc(val.dtype).is_float:
        g, w = got.astype(np.float64), np.asarray(val.a, np.float64)
        bad = ~(np.abs(g - w) <= tolerance(val))
    else:
        bad = got != want
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        detail = '%s: %d of %d elements differ; first at %s: got %r, expected %r' % (
            name, int(np.sum(bad)), bad.size, idx, got[idx].item(), want[idx].item())
        if val.e is not None:
            detail += ' (bound %.3g)' % tolerance(val)[idx]
        return 'mismatch-values', detail
    return None


def check_run(res, expected):
    """[(kind, detail)] of one configuration's run against the reference."""
    kind = run_failure(res)
    if kind:
        detail = kind if kind.startswith('crash') else first_error(res.stdout + res.stderr)
        return [(kind, detail)]
    if res.config == 'ptxas':
        return []
    out = []
    for name, val in expected.items():
        r = compare_output(name, val, res.outputs.get(name))
        if r:
            out.append(r)
    extra = set(res.outputs) - set(expected)
    if extra:
        out.append(('extra-output', ', '.join(sorted(extra))))
    return out


def bitwise_equal(a, b):
    if isinstance(a, Exception) or isinstance(b, Exception):
        return False
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def check_threads(results):
    """The JIT with 1 and 2 threads must agree bit for bit."""
    t1, t2 = results.get('cpu-O2-t1'), results.get('cpu-O2-t2')
    if not t1 or not t2 or t1.status != 'ok' or t2.status != 'ok':
        return []
    for name in sorted(set(t1.outputs) | set(t2.outputs)):
        a, b = t1.outputs.get(name), t2.outputs.get(name)
        if a is None or b is None or not bitwise_equal(a, b):
            return [('threads-differ', '%s differs between 1 and 2 threads' % name)]
    return []


def signatures(results, expected):
    """{kind: {config: detail}} of every failure of a program."""
    groups = {}
    for cfg, res in results.items():
        for kind, detail in check_run(res, expected):
            groups.setdefault(kind, {}).setdefault(cfg, detail)
    for kind, detail in check_threads(results):
        groups.setdefault(kind, {})['cpu-O2-t1/t2'] = detail
    return groups


def by_config(kind):
    """Wrong values are told apart by the configurations that produce them;
    an error, crash or hang by its message alone."""
    return kind.startswith(('mismatch', 'missing', 'extra', 'bad-npy', 'threads'))


def signature_key(kind, configs):
    if by_config(kind):
        return '%s [%s]' % (kind, ','.join(sorted(configs)))
    return kind


def reduction_configs(kind, configs):
    """Configurations a reduced program must still fail in: all of them for
    wrong values, else the cheapest one."""
    if by_config(kind):
        return sorted(configs)
    order = ['cpu-O0', 'cpu-O2-t1', 'cpu-O2-t2', 'aot', 'ptxas', 'cuda-emu', 'gpu']
    return [min(configs, key=lambda c: order.index(c) if c in order else 99)]
