"""The command line of the differential fuzzer (scripts/difffuzz.py).

Program k of a run is generated from seed N + k, so `--seed S --count 1`
replays any program of any run. Each program runs in the configurations
given; its failures are grouped by signature, and the first program that
shows a new signature is reduced and written to the output folder with its
expected values and what every configuration printed. The last line is
`N programs, M findings` (M distinct signatures); the exit status is 1 when
there are findings, 2 when the fuzzer itself failed.
"""
import argparse
import concurrent.futures
import os
import shutil
import sys
import time
import traceback

from . import driver, oracle
from .gen import FEATURES, generate
from .reduce import Reducer
from .runner import CONFIGS, DEFAULT_CONFIGS, ROOT, Tools
from .sem import UB
from .tdtypes import SemaError


def parse_args(argv):
    p = argparse.ArgumentParser(prog='difffuzz.py', description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--seed', type=int, default=0, help='seed of the first program (default 0)')
    p.add_argument('--count', type=int, help='number of programs (default 100, or unlimited with --time)')
    p.add_argument('--time', type=float, help='stop starting programs after this many seconds')
    p.add_argument('--configs', default=','.join(DEFAULT_CONFIGS),
                   help='comma-separated, from: %s' % ', '.join(CONFIGS))
    p.add_argument('--tdslc', default=os.path.join(ROOT, 'build', 'bin', 'tdslc'))
    p.add_argument('--emu-lib', help='the CUDA emulator library (default: next to tdslc\'s build)')
    p.add_argument('--out', default='difffuzz-out', help='folder for findings')
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--keep', action='store_true', help='keep every program and its runs in --out')
    p.add_argument('--timeout', type=float, default=60, help='seconds per tdslc run (a hang is a finding)')
    p.add_argument('--ptxas-every', type=int, default=3, help='run the ptxas configuration on every N-th program')
    p.add_argument('--mode', choices=['exact', 'approx'], help='only this mode (default: both)')
    p.add_argument('--feature', action='append', default=[], metavar='NAME',
                   help='turn a feature on: %s' % ', '.join(FEATURES))
    p.add_argument('--no-feature', action='append', default=[], metavar='NAME', help='turn a feature off')
    p.add_argument('--no-reduce', action='store_true', help='write findings without reducing them')
    p.add_argument('--reduce-time', type=float, default=120, help='seconds to reduce each finding')
    p.add_argument('--self-test', action='store_true',
                   help='perturb one expected value; the oracle must report a mismatch')
    p.add_argument('--print', dest='print_seed', action='store_true',
                   help='print the program of --seed with its expected values and exit')
    p.add_argument('-v', '--verbose', action='store_true')
    args = p.parse_args(argv)
    args.configs = [c for c in args.configs.split(',') if c]
    for c in args.configs:
        if c not in CONFIGS:
            p.error('unknown configuration %r' % c)
    for f in args.feature + args.no_feature:
        if f not in FEATURES:
            p.error('unknown feature %r (known: %s)' % (f, ', '.join(FEATURES)))
    args.features = dict(FEATURES)
    args.features.update({f: True for f in args.feature})
    args.features.update({f: False for f in args.no_feature})
    if args.count is None:
        args.count = 10 ** 9 if args.time else 100
    return args


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.tools = Tools(args.tdslc, args.emu_lib, args.timeout)
        self.features_on = [f for f, on in args.features.items() if on]
        self.findings = {}          # signature -> (seed, kind, configs)
        self.internal = 0
        self.programs = 0

    def log(self, msg):
        print(msg, flush=True)

    def configs_for(self, k):
        cfgs = list(self.args.configs)
        if 'ptxas' in cfgs and k % max(1, self.args.ptxas_every):
            cfgs.remove('ptxas')
        return cfgs

    def check_one(self, k):
        """Generates and runs program k: (seed, Checked or None, error text)."""
        seed = self.args.seed + k
        try:
            prog, _ = generate(seed, self.args.features, self.args.mode)
            checked = driver.prepare(prog, self.features_on)
        except Exception:
            return seed, None, traceback.format_exc()
        workdir = None
        if self.args.keep:
            workdir = os.path.join(self.args.out, 'programs', 'seed-%d' % seed)
        driver.run(checked, self.tools, self.configs_for(k), workdir, keep=self.args.keep)
        if checked.groups:
            self.confirm(checked, workdir)
        if self.args.keep:
            driver.write_case(workdir, checked, 'seed %d' % seed)
        return seed, checked, None

    def confirm(self, checked, workdir):
        """Runs the failing configurations again and keeps the failures that
        happen twice (a rebuild of tdslc under way can fail a run)."""
        first = checked.groups
        failed = sorted({c for cfgs in first.values() for c in cfgs
                         for c in (['cpu-O2-t1', 'cpu-O2-t2'] if c == 'cpu-O2-t1/t2' else [c])})
        again = driver.Checked(checked.prog, checked.source, checked.expected, checked.inputs)
        driver.run(again, self.tools, failed, workdir and workdir + '-again', keep=self.args.keep)
        checked.results.update(again.results)
        checked.groups = {kind: cfgs for kind, cfgs in again.groups.items() if kind in first}

    def run(self):
        args = self.args
        start = time.time()
        failing = []
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs))
        pending = set()
        k = 0
        while True:
            while len(pending) < 2 * max(1, args.jobs) and k < args.count and \
                    not (args.time and time.time() - start > args.time):
                pending.add(pool.submit(self.check_one, k))
                k += 1
            if not pending:
                break
            done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in done:
                seed, checked, err = fut.result()
                self.programs += 1
                if err:
                    self.internal += 1
                    self.log('seed %d: fuzzer error:\n%s' % (seed, err))
                    continue
                if args.verbose:
                    self.log('seed %d: %s, %d failures' % (seed, checked.prog.mode, len(checked.groups)))
                for kind, cfgs in checked.groups.items():
                    key = oracle.signature_key(kind, cfgs)
                    if key not in self.findings:
                        self.findings[key] = (seed, kind, sorted(cfgs))
                        failing.append((key, checked))
                        self.log('seed %d: NEW %s' % (seed, key))
        pool.shutdown()
        self.report(failing)
        print('%d programs, %d findings' % (self.programs, len(self.findings)))
        if self.internal:
            print('%d fuzzer errors' % self.internal)
            return 2
        return 1 if self.findings else 0

    def report(self, failing):
        if not failing:
            return
        os.makedirs(self.args.out, exist_ok=True)
        summary = []
        for n, (key, checked) in enumerate(failing, 1):
            seed, kind, cfgs = self.findings[key]
            folder = os.path.join(self.args.out, 'finding-%02d' % n)
            shutil.rmtree(folder, ignore_errors=True)
            title = 'finding %d: %s\nseed %d (replay: difffuzz.py --seed %d --count 1)' % (n, key, seed, seed)
            driver.write_case(os.path.join(folder, 'original'), checked, title)
            line = '%s  seed %d  %s' % (folder, seed, key)
            if not self.args.no_reduce:
                small = self.reduce(checked, kind, cfgs)
                full = driver.run(small, self.tools, self.args.configs)
                driver.write_case(os.path.join(folder, 'min'), full, title + '\n(reduced)')
                line += '  (reduced to %d lines)' % small.source.count('\n')
            summary.append(line)
            self.log(line)
        with open(os.path.join(self.args.out, 'summary.txt'), 'w') as f:
            f.write('\n'.join(summary) + '\n')

    def reduce(self, checked, kind, cfgs):
        self.log('reducing %s ...' % oracle.signature_key(kind, cfgs))
        red = Reducer(self.tools, kind, oracle.reduction_configs(kind, cfgs), self.features_on,
                      self.args.reduce_time,
                      self.log if self.args.verbose else None)
        prog = red.reduce(checked.prog)
        small = driver.prepare(prog, self.features_on)
        self.log('  %d candidates tried' % red.tries)
        return small


def perturb(checked):
    """Changes one expected element; returns a description."""
    import numpy as np
    name = sorted(checked.expected)[0]
    val = checked.expected[name]
    a = np.array(val.a)
    flat = a.reshape(-1)
    if a.dtype == np.bool_:
        flat[0] = not flat[0]
    elif np.issubdtype(a.dtype, np.floating):
        flat[0] = flat[0] + max(1.0, abs(flat[0]))
    else:
        flat[0] = flat[0] + 1
    checked.expected[name] = type(val)(a, val.dtype, val.e, val.t)
    return '%s[0]' % name


def self_test(args):
    """The oracle must report a perturbed expected value as a mismatch."""
    tools = Tools(args.tdslc, args.emu_lib, args.timeout)
    configs = [c for c in args.configs if c != 'ptxas']
    features = [f for f, on in args.features.items() if on]
    for seed in range(args.seed, args.seed + 20):
        prog, _ = generate(seed, args.features, args.mode)
        try:
            checked = driver.prepare(prog, features)
        except (SemaError, UB):
            continue
        if not checked.expected:
            continue
        driver.run(checked, tools, configs)
        if checked.groups:
            continue                  # a real failure: pick a clean program
        where = perturb(checked)
        checked.groups = oracle.signatures(checked.results, checked.expected)
        got = checked.groups.get('mismatch-values', {})
        missing = [c for c in configs if c not in got]
        print('self-test: seed %d, perturbed %s' % (seed, where))
        if missing:
            print('self-test FAILED: no mismatch reported in %s' % ', '.join(missing))
            return 1
        print('self-test: mismatch reported in %s' % ', '.join(sorted(got)))
        print('self-test passed')
        return 0
    print('self-test FAILED: no clean program to perturb')
    return 1


def print_program(args):
    prog, stats = generate(args.seed, args.features, args.mode)
    checked = driver.prepare(prog, [f for f, on in args.features.items() if on])
    print(checked.source)
    for name, val in checked.expected.items():
        print('// %s: %r' % (name, val))
    if args.verbose:
        for k, v in sorted(stats.items(), key=lambda kv: -kv[1]):
            print('// %5d %s' % (v, k))
    return 0


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.print_seed:
        return print_program(args)
    if not (os.path.isfile(args.tdslc) or shutil.which(args.tdslc)):
        print('difffuzz: no tdslc at %s' % args.tdslc, file=sys.stderr)
        return 2
    if args.self_test:
        return self_test(args)
    return Fuzzer(args).run()
