#!/usr/bin/env python3
"""Mutation fuzzer for tdslc: never a crash, hang or unlocated error.

Mutates the examples and test programs (inserts tokens, deletes characters,
duplicates and drops lines), compiles each result and runs the ones that
compile. A failure is a signal, an exit status other than 0 or 1, an
assertion or stack dump, exit 1 without `error`, or a hang. Failing inputs
are written to the output folder.

  scripts/fuzz.py [--seed N] [--count N] [--tdslc build/bin/tdslc] [--out DIR]
                  [--cuda]

With --cuda the programs run with --target=cuda --gpu-bitcode, their
kernels in the CPU emulator of libcuda ($TDSL_CUDA_LIBRARY, by default
build/test/lib/libtdsl_emu_cuda.so): the whole CUDA pipeline and
runtime are fuzzed.
"""
import argparse, glob, os, random, re, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
p = argparse.ArgumentParser()
p.add_argument('--seed', type=int, default=0)
p.add_argument('--count', type=int, default=300)
p.add_argument('--tdslc', default=os.path.join(root, 'build/bin/tdslc'))
p.add_argument('--out', default='fuzz-failures')
p.add_argument('--cuda', action='store_true')
args = p.parse_args()
env = dict(os.environ)
run = ['run']
# Seconds before a run counts as a hang: the CPU emulator of libcuda runs a
# kernel's blocks as threads, and a test program with fields of thousands
# of draws (test/Models' initializers) took 34 s under load.
timeout = 30
if args.cuda:
    run = ['run', '--target=cuda', '--gpu-bitcode']
    timeout = 150
    env.setdefault('TDSL_CUDA_LIBRARY',
                   os.path.join(root, 'build/test/lib/libtdsl_emu_cuda.so'))

rng = random.Random(args.seed)
files = glob.glob(os.path.join(root, 'examples/*.tdsl')) + [
    f for f in glob.glob(os.path.join(root, 'test/**/*.tdsl'), recursive=True)
    if '/errors/' not in f]
srcs = [open(f).read() for f in sorted(files)]
if args.cuda:
    # Programs the emulator takes minutes over (see compare_all.py).
    srcs = [s for s in srcs if 'compare_all: skip' not in s]
tokens = '( ) [ ] { } , : = + * @ ? 0 1 -1 1.5 i j k n f32 i64 i1 f16 sum max ' \
         'for in parallel yield reduce if else fn return x zeros ones arange ' \
         'uniform print .. -> < >= && ! % / "s" import'.split() + ['\n']

def mutate(src):
    lines = src.split('\n')
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        line, op = lines[i], rng.random()
        at = rng.randint(0, len(line))
        if op < 0.4:
            lines[i] = line[:at] + ' ' + rng.choice(tokens) + ' ' + line[at:]
        elif op < 0.7:
            lines[i] = line[:at] + line[at + rng.randint(1, 4):]
        elif op < 0.85:
            lines.insert(i, rng.choice(lines))
        elif len(lines) > 1:
            del lines[i]
    return '\n'.join(lines)

def failure(r):
    err = r.stderr
    if r.returncode not in (0, 1):
        return 'exit status %d' % r.returncode
    # LLVM's own crash and abort messages, not words in a quoted source line
    # (the test files' CHECK lines mention them).
    for bad, pattern in (('Assertion', r"Assertion `.*' failed"),
                         ('Stack dump', r'^Stack dump:\n0\.\t'),
                         ('LLVM ERROR', r'^LLVM ERROR: '),
                         ('UNREACHABLE', r'UNREACHABLE executed')):
        if re.search(pattern, err, re.M):
            return bad
    if r.returncode == 1 and 'error' not in err:
        return 'exit 1 without an error'
    return None

work = tempfile.mkdtemp(prefix='tdsl-fuzz-')
prog = os.path.join(work, 'fuzz.tdsl')
failures, counts = 0, {}
for n in range(args.count):
    text = mutate(rng.choice(srcs))
    open(prog, 'w').write(text)
    for mode in (['--emit=tdsl', prog], run + [prog]):
        try:
            r = subprocess.run([args.tdslc] + mode, capture_output=True,
                               text=True, timeout=timeout, cwd=work, env=env)
            why = failure(r)
        except subprocess.TimeoutExpired:
            r, why = None, 'hang'
        if why:
            failures += 1
            os.makedirs(args.out, exist_ok=True)
            open(os.path.join(args.out, 'fail%d.tdsl' % n), 'w').write(text)
            print('FAIL %d (%s, %s)' % (n, mode[0], why))
            break
        key = '%s exit %d' % (mode[0], r.returncode)
        counts[key] = counts.get(key, 0) + 1
        if r.returncode != 0:
            break
print(', '.join('%s: %d' % kv for kv in sorted(counts.items())))
print('%d inputs, %d failures' % (args.count, failures))
sys.exit(1 if failures else 0)
