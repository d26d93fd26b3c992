#!/usr/bin/python3
"""More programs for scripts/gpu-check.sh: the repository's test programs and
random programs of the differential fuzzer, compiled here as CUDA executables
with their expected results, checked on the GPU machine (numpy only there).

  gpu_cases.py prepare OUTDIR TDSLC [--fuzz-seed S] [--fuzz-count N]
      OUTDIR/cases/<name>/: cuda (the executable), its input files (for a
        test program, those of its folder, once in OUTDIR/cases/data), and
        - expected.out: what the program prints on the CPU back end here, or
        - expected/*.npy and tol/*.npy: the fuzzer's reference outputs and
          their allowed absolute error (0 where exact);
      OUTDIR/cases/prepare.log says what was left out and why.
  gpu_cases.py check OUTDIR [--jobs J]
      runs every case's executable in a scratch copy of its folder and
      compares; prints one line per failure and a count; exit 1 on any.

Test programs are those of compare_all.py (test/CUDA/Inputs): every .tdsl
under test/ outside errors/ that runs on the CPU in a copy of its folder,
except those whose text says `gpu_check: skip (why)`.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MAX_DATA = 8 << 20   # a folder's data files larger than this stay behind


def test_programs():
    out = []
    for d, _, files in os.walk(os.path.join(ROOT, 'test')):
        parts = d.split(os.sep)
        if 'errors' in parts or 'Output' in parts:
            continue
        out += [os.path.join(d, f) for f in files if f.endswith('.tdsl')]
    return sorted(out)


def copy_files(src, dst):
    os.makedirs(dst, exist_ok=True)
    for f in os.listdir(src):
        p = os.path.join(src, f)
        if os.path.isfile(p) and os.path.getsize(p) <= MAX_DATA:
            shutil.copy(p, dst)


def run(cmd, cwd, timeout):
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return -9, '', 'timeout'


def prepare_tests(tdslc, cases, log):
    n = 0
    for p in test_programs():
        rel = os.path.relpath(p, ROOT)
        # 'gpu_check: skip (why)': a program whose GPU result may differ by
        # definition (the CPU's documented sum order) or that the GPU back
        # end rejects on purpose (with a clear error, tested elsewhere).
        if 'gpu_check: skip' in open(p).read():
            log.write('%s: skipped (gpu_check: skip)\n' % rel)
            continue
        name = rel[len('test/'):-len('.tdsl')].replace(os.sep, '__')
        # the folder's files, once per folder (cases/data/...), the program
        # run in a scratch copy of them
        folder = os.path.relpath(os.path.dirname(p), ROOT).replace(os.sep, '__')
        data = os.path.join(cases, 'data', folder)
        if not os.path.isdir(data):
            copy_files(os.path.dirname(p), data)
        work = tempfile.mkdtemp(prefix='gpu_cases.')
        copy_files(data, work)
        src = os.path.basename(p)
        rc, out, _ = run([tdslc, 'run', src], work, 120)
        if rc != 0:
            shutil.rmtree(work)
            continue    # an error test, or one that needs arguments or files
        d = os.path.join(cases, name)
        os.makedirs(d)
        rc, _, err = run([tdslc, '--target=cuda', src, '-o', os.path.join(d, 'cuda')], work, 300)
        shutil.rmtree(work)
        if rc != 0:
            log.write('%s: does not compile for cuda:\n%s\n' % (rel, err[-2000:]))
            with open(os.path.join(d, 'compile-failed'), 'w') as f:
                f.write(err)
        with open(os.path.join(d, 'data'), 'w') as f:
            f.write(folder + '\n')
        with open(os.path.join(d, 'expected.out'), 'w') as f:
            f.write(out)
        with open(os.path.join(d, 'source'), 'w') as f:
            f.write(rel + '\n')
        n += 1
    return n


def prepare_fuzz(tdslc, cases, log, seed0, count):
    sys.path.insert(0, HERE)
    import numpy as np
    from difffuzz import driver, oracle
    from difffuzz.cli import FEATURES
    from difffuzz.dtypes import to_npy
    from difffuzz.gen import generate
    features = dict(FEATURES)
    on = [f for f, v in features.items() if v]
    n = 0
    for seed in range(seed0, seed0 + count):
        try:
            prog, _ = generate(seed, features, None)
            checked = driver.prepare(prog, on)
        except Exception as ex:   # an invalid program (SemaError, UB)
            log.write('fuzz seed %d: not generated (%s)\n' % (seed, type(ex).__name__))
            continue
        d = os.path.join(cases, 'fuzz-%d' % seed)
        os.makedirs(os.path.join(d, 'expected'))
        os.makedirs(os.path.join(d, 'tol'))
        with open(os.path.join(d, 'prog.tdsl'), 'w') as f:
            f.write(checked.source)
        for name, arr in checked.inputs.items():
            np.save(os.path.join(d, name), arr)
        for name, val in checked.expected.items():
            np.save(os.path.join(d, 'expected', name), to_npy(val.dtype, val.a))
            np.save(os.path.join(d, 'tol', name), oracle.tolerance(val))
        rc, _, err = run([tdslc, '--target=cuda', 'prog.tdsl', '-o', 'cuda'], d, 300)
        if rc != 0:
            log.write('fuzz seed %d: does not compile for cuda:\n%s\n' % (seed, err[-2000:]))
            with open(os.path.join(d, 'compile-failed'), 'w') as f:
                f.write(err)
        with open(os.path.join(d, 'source'), 'w') as f:
            f.write('difffuzz.py --seed %d --count 1\n' % seed)
        n += 1
    return n


def prepare(a):
    a.outdir = os.path.abspath(a.outdir)
    a.tdslc = os.path.abspath(a.tdslc) if os.sep in a.tdslc else a.tdslc
    cases = os.path.join(a.outdir, 'cases')
    shutil.rmtree(cases, ignore_errors=True)
    os.makedirs(cases)
    shutil.copy(os.path.join(ROOT, 'test', 'CUDA', 'Inputs', 'compare_outputs.py'), cases)
    with open(os.path.join(cases, 'prepare.log'), 'w') as log:
        t = prepare_tests(a.tdslc, cases, log)
        f = prepare_fuzz(a.tdslc, cases, log, a.fuzz_seed, a.fuzz_count) if a.fuzz_count else 0
    print('gpu_cases: %d test programs, %d fuzz programs in %s' % (t, f, cases))


def compare_npy(d, work):
    import numpy as np
    problems = []
    want = sorted(os.listdir(os.path.join(d, 'expected')))
    for name in want:
        exp = np.load(os.path.join(d, 'expected', name))
        tol = np.load(os.path.join(d, 'tol', name))
        path = os.path.join(work, name)
        if not os.path.exists(path):
            problems.append('%s was not written' % name)
            continue
        got = np.load(path)
        if got.dtype != exp.dtype or got.shape != exp.shape:
            problems.append('%s: %s%s, expected %s%s' % (name, got.dtype, got.shape, exp.dtype, exp.shape))
            continue
        if np.issubdtype(exp.dtype, np.floating):
            bad = ~(np.abs(got.astype(np.float64) - exp.astype(np.float64)) <= tol)
        else:
            bad = got != exp
        if np.any(bad):
            i = tuple(int(k) for k in np.argwhere(bad)[0])
            problems.append('%s: %d of %d differ; first at %s: got %r, expected %r (tol %g)' % (
                name, int(bad.sum()), bad.size, i, got[i].item(), exp[i].item(), float(tol[i])))
    extra = sorted(f for f in os.listdir(work) if f.startswith('out') and f.endswith('.npy')
                   and f not in want)
    if extra:
        problems.append('extra outputs %s' % ', '.join(extra))
    return problems


def check_one(cases, name):
    d = os.path.join(cases, name)
    src = open(os.path.join(d, 'source')).read().strip()
    if os.path.exists(os.path.join(d, 'compile-failed')):
        return name, src, ['did not compile for cuda (see prepare.log)']
    work = tempfile.mkdtemp(prefix='gpu_cases.')
    try:
        if os.path.exists(os.path.join(d, 'data')):
            copy_files(os.path.join(cases, 'data', open(os.path.join(d, 'data')).read().strip()), work)
        for f in os.listdir(d):
            if os.path.isfile(os.path.join(d, f)) and f not in ('cuda', 'expected.out', 'data'):
                shutil.copy(os.path.join(d, f), work)
        rc, out, err = run([os.path.join(d, 'cuda')], work, 120)
        if rc != 0:
            return name, src, ['exit %d: %s' % (rc, (out + err).strip()[-1500:])]
        if os.path.isdir(os.path.join(d, 'expected')):
            return name, src, compare_npy(d, work)
        with open(os.path.join(work, 'gpu.out'), 'w') as f:
            f.write(out)
        rc, cmp, cerr = run([sys.executable, os.path.join(cases, 'compare_outputs.py'),
                             os.path.join(d, 'expected.out'), os.path.join(work, 'gpu.out')], work, 60)
        return name, src, [] if rc == 0 else [(cmp + cerr).strip()[-1500:]]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check(a):
    import concurrent.futures
    cases = os.path.join(a.outdir, 'cases')
    names = sorted(n for n in os.listdir(cases)
                   if os.path.isdir(os.path.join(cases, n)) and n != 'data')
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for name, src, problems in pool.map(lambda n: check_one(cases, n), names):
            if problems:
                bad += 1
                print('  %s (%s): FAILED' % (name, src))
                for p in problems:
                    print('    ' + p.replace('\n', '\n    '))
    print('  %d of %d programs agree with the CPU / the reference' % (len(names) - bad, len(names)))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('prepare')
    p.add_argument('outdir')
    p.add_argument('tdslc')
    p.add_argument('--fuzz-seed', type=int, default=50000)
    p.add_argument('--fuzz-count', type=int, default=120)
    c = sub.add_parser('check')
    c.add_argument('outdir')
    c.add_argument('--jobs', type=int, default=8)
    a = ap.parse_args()
    return prepare(a) if a.cmd == 'prepare' else check(a)


if __name__ == '__main__':
    sys.exit(main())
