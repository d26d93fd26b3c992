"""One program through the whole pipeline: render it, compute the expected
outputs with the reference interpreter, run every configuration, and group
the failures by signature."""
import os
import shutil
import tempfile

from . import oracle
from .interp import interpret
from .runner import run_config
from .tree import render


class Checked:
    """A program with its text, inputs, expected outputs and run results."""

    def __init__(self, prog, source, expected, inputs):
        self.prog = prog
        self.source = source
        self.expected = expected      # out name -> sem.Val
        self.inputs = inputs          # in name -> numpy array
        self.results = {}             # config -> runner.RunResult
        self.groups = {}              # kind -> {config: detail}


def prepare(prog, features=()):
    """Renders and interprets a program (raises SemaError/UB if invalid)."""
    expected, inputs = interpret(prog, prog.mode == 'exact', features)
    return Checked(prog, render(prog), expected, inputs)


def run(checked, tools, configs, workdir=None, keep=False):
    """Runs the configurations and fills checked.results and .groups."""
    own = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix='difffuzz-')
    try:
        for cfg in configs:
            checked.results[cfg] = run_config(tools, cfg, checked.source, checked.inputs, workdir)
        checked.groups = oracle.signatures(checked.results, checked.expected)
    finally:
        if own and not keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return checked


def has_signature(checked, kind, configs):
    """True when `kind` shows in every one of `configs`."""
    got = checked.groups.get(kind, {})
    return all(c in got for c in configs)


def write_case(folder, checked, title, extra=''):
    """The program, its inputs, its expected outputs and what each
    configuration did, for a person to look at."""
    import numpy as np
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, 'prog.tdsl'), 'w') as f:
        f.write(checked.source)
    for name, arr in checked.inputs.items():
        np.save(os.path.join(folder, name), arr)
    exp = os.path.join(folder, 'expected')
    os.makedirs(exp, exist_ok=True)
    lines = [title, '', 'expected outputs (reference; +- bound where not exact):']
    from .dtypes import to_npy
    for name, val in checked.expected.items():
        np.save(os.path.join(exp, name), to_npy(val.dtype, val.a))
        lines.append('  %s %s %s%s' % (name, val.t, to_npy(val.dtype, val.a).tolist(),
                                       '' if val.e is None else ' +- %s' % oracle.tolerance(val).tolist()))
    lines += ['', 'configurations:']
    for cfg, res in checked.results.items():
        outs = {n: (a.tolist() if hasattr(a, 'tolist') else repr(a)) for n, a in sorted(res.outputs.items())}
        lines.append('--- %s: %s' % (cfg, res.text()[:3000] or 'exit 0'))
        if outs:
            lines.append('    outputs: %s' % outs)
    lines += ['', 'failures:']
    for kind, cfgs in checked.groups.items():
        for cfg, detail in cfgs.items():
            lines.append('  %s [%s]: %s' % (kind, cfg, detail))
    if extra:
        lines += ['', extra]
    with open(os.path.join(folder, 'report.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
