"""The configurations a program runs in, and how each one is run.

Each configuration runs in a fresh working directory (save() writes relative
to it) that holds the program and its input files; a run that exceeds the
timeout is killed (a hang is a finding). The result records the exit
status, standard output and error, and the .npy files the program wrote.
"""
import glob
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PTXAS_CHECK = os.path.join(ROOT, 'test', 'CUDA', 'Inputs', 'ptxas_check.py')

# name -> (description, commands); {tdslc} and {prog} are filled in.
CONFIGS = {
    'cpu-O0': ('JIT, -O0', [['{tdslc}', 'run', '-O0', 'prog.tdsl']]),
    'cpu-O2-t1': ('JIT, -O2, 1 thread', [['{tdslc}', 'run', '-O2', '--threads=1', 'prog.tdsl']]),
    'cpu-O2-t2': ('JIT, -O2, 2 threads', [['{tdslc}', 'run', '-O2', '--threads=2', 'prog.tdsl']]),
    'aot': ('executable, 2 threads', [['{tdslc}', '-O2', 'prog.tdsl', '-o', 'prog'],
                                      ['./prog', '--threads=2']]),
    'cuda-emu': ('CUDA back end in the emulator of the driver',
                 [['{tdslc}', 'run', '--target=cuda', '--gpu-bitcode', 'prog.tdsl']]),
    'ptxas': ('PTX of every kernel through ptxas',
              [['{tdslc}', '--target=cuda', '--emit=ptx', 'prog.tdsl', '-o', 'prog.ptx'],
               [sys.executable, PTXAS_CHECK, 'sm_90', 'prog.ptx']]),
    'gpu': ('CUDA back end on a real GPU', [['{tdslc}', 'run', '--target=cuda', 'prog.tdsl']]),
}
DEFAULT_CONFIGS = ['cpu-O0', 'cpu-O2-t1', 'cpu-O2-t2', 'aot', 'cuda-emu', 'ptxas']
RUN_CONFIGS = ('cpu-O0', 'cpu-O2-t1', 'cpu-O2-t2', 'aot', 'cuda-emu', 'gpu')


class Tools:
    def __init__(self, tdslc, emu_lib=None, timeout=60):
        # runs happen in other directories: a relative path must be absolute
        self.tdslc = os.path.abspath(tdslc) if os.sep in tdslc else tdslc
        # the emulator: given, or $TDSL_CUDA_LIBRARY, or the one of tdslc's build
        self.emu_lib = emu_lib or os.environ.get('TDSL_CUDA_LIBRARY') or os.path.join(
            os.path.dirname(os.path.dirname(os.path.abspath(shutil.which(tdslc) or tdslc))),
            'test', 'lib', 'libtdsl_emu_cuda.so')
        self.timeout = timeout

    def env(self, config):
        env = dict(os.environ)
        env.pop('TDSL_NUM_THREADS', None)
        if config == 'cuda-emu':
            env['TDSL_CUDA_LIBRARY'] = self.emu_lib
        return env


class RunResult:
    def __init__(self, config):
        self.config = config
        self.status = 'ok'          # ok | error | timeout
        self.rc = 0
        self.stdout = ''
        self.stderr = ''
        self.outputs = {}           # file name -> numpy array
        self.step = 0               # which command of the configuration failed

    def text(self):
        return ('exit %s%s\n%s%s' % (self.rc, ' (timeout)' if self.status == 'timeout' else '',
                                     self.stdout, self.stderr)).strip()


def run_command(cmd, cwd, env, timeout):
    """Runs cmd in its own process group; returns (rc, stdout, stderr, timed_out)."""
    for attempt in range(60):
        try:
            p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
            break
        except OSError:
            # tdslc is being relinked by a rebuild: wait for it
            if attempt == 59:
                raise
            time.sleep(2)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err, False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return -9, out, err, True


def run_config(tools, config, source, inputs, workdir):
    """Runs `source` in `config` inside workdir/config (made afresh)."""
    d = os.path.join(workdir, config)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, 'prog.tdsl'), 'w') as f:
        f.write(source)
    for name, arr in inputs.items():
        np.save(os.path.join(d, name), arr)
    res = RunResult(config)
    env = tools.env(config)
    for step, cmd in enumerate(CONFIGS[config][1]):
        cmd = [tools.tdslc if c == '{tdslc}' else c for c in cmd]
        if config == 'ptxas' and step == 1 and not os.path.getsize(os.path.join(d, 'prog.ptx')):
            break                                   # no kernel: nothing to assemble
        rc, out, err, timed_out = run_command(cmd, d, env, tools.timeout)
        res.rc, res.step = rc, step
        res.stdout += out.decode(errors='replace')
        res.stderr += err.decode(errors='replace')
        if timed_out:
            res.status = 'timeout'
            return res
        if rc != 0:
            res.status = 'error'
            return res
    for path in glob.glob(os.path.join(d, 'out*.npy')):
        try:
            res.outputs[os.path.basename(path)] = np.load(path)
        except Exception as ex:        # a corrupt file is a finding too
            res.outputs[os.path.basename(path)] = ex
    return res
