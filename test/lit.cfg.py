# lit configuration for the TDSL test suites.
import os
import subprocess
import shutil

import lit.formats

config.name = "TDSL"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tdsl", ".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "unittests", "lib", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tdsl_obj_root, "test")

bin_dir = os.path.join(config.tdsl_obj_root, "bin")
config.environment["PATH"] = os.pathsep.join(
    [bin_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["TDSL_STDLIB_PATH"] = os.path.join(config.tdsl_src_root, "stdlib")
# No tuning cache unless a test names one: what a developer tuned on this
# machine must not change what the tests see.
config.environment["TDSL_TUNE_CACHE"] = ""
# One CPU model whatever the machine (AVX-512 with 32 registers, 48 KiB L1,
# 1 MiB L2, 2 cores): the tile and vector sizes, the code the tests check
# and the order of float sums follow the model, and the machines that run
# the suite differ (AVX-512 or AVX2). The code still uses the host's
# instructions; target-model.test reads the host's own model.
config.environment["TDSL_CPU_MODEL"] = (
    "vector-bits=512,vector-registers=32,l1=48K,l2=1024K,cores=2")
# tdslc and the REPL verify the IR after every pass here, as tdsl-opt does:
# a pass that breaks the IR fails its tests where it runs.
config.environment["TDSL_VERIFY_EACH"] = "1"
# Worker threads do not wait, spinning, for the next parallel loop: two lit
# workers on two cores already run more threads than cores, and the spin
# cost them 14% of the suite's time. (The wait never changes a result;
# Examples/threads.test runs with it, and the unit tests keep the default.)
config.environment["TDSL_SPIN_US"] = "0"

config.substitutions.append(("%tdsl_src", config.tdsl_src_root))
config.substitutions.append(("%examples", os.path.join(config.tdsl_src_root, "examples")))
config.substitutions.append(("%python", "/usr/bin/python3"))
config.substitutions.append(("%tdsl_lib", os.path.join(config.tdsl_obj_root, "lib")))
# The test double of libcuda (test/lib/CUDA/FakeDriver.cpp): the
# host side of CUDA programs runs against it without a GPU.
config.substitutions.append(("%fake_cuda", "env TDSL_CUDA_LIBRARY=" + os.path.join(
    config.tdsl_obj_root, "test", "lib", "libtdsl_fake_cuda.so")))

# The same double, which also runs kernels built with --gpu-bitcode on the
# CPU (test/lib/CUDA/CudaEmulator.h): their results can be checked.
config.substitutions.append(("%emu_cuda", "env TDSL_CUDA_LIBRARY=" + os.path.join(
    config.tdsl_obj_root, "test", "lib", "libtdsl_emu_cuda.so")))

# Features for tests that need hardware or tools.
if shutil.which("clang++-22"):
    config.available_features.add("clang")
if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
if os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0"):
    config.available_features.add("cuda-gpu")
# Debian's PyTorch for /usr/bin/python3 (scripts/setup.sh installs it).
if subprocess.run(["/usr/bin/python3", "-c", "import torch"],
                  capture_output=True).returncode == 0:
    config.available_features.add("torch")
# The UCI digits of Debian's python3-sklearn (scripts/setup.sh installs it).
if os.path.exists("/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"):
    config.available_features.add("digits")

# Open MPI's launcher and libtdsl_mpi.so (scripts/setup.sh installs
# libopenmpi-dev and openmpi-bin). As root (CI) Open MPI wants two variables;
# each job is bounded by mpirun's --timeout, and that by timeout.
if shutil.which("mpirun") and os.path.exists(
        os.path.join(config.tdsl_obj_root, "lib", "libtdsl_mpi.so")):
    config.available_features.add("mpi")

# A sanitized build (scripts/sanitize.sh): its environment and the `asan`
# feature.
lit_config.load_config(config, os.path.join(config.tdsl_src_root, "test", "lit.sanitizers.py"))

# %mpirun (after the sanitizer options, which it extends): in a sanitized
# build, leak detection is off in processes under mpirun, since Open MPI's
# libraries and its components, unloaded at exit, leave memory LeakSanitizer
# cannot attribute to them; ASan and UBSan still check our code.
_mpirun_env = "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
if getattr(config, "tdsl_sanitize", ""):
    _mpirun_env += " ASAN_OPTIONS=%s:detect_leaks=0" % config.environment.get(
        "ASAN_OPTIONS", "")
config.substitutions.append(("%mpirun", _mpirun_env + " timeout 150 mpirun "
                             "--oversubscribe --timeout 120"))

# More than one CPU: tdslc compiles executables in pieces, one per core.
if (os.cpu_count() or 1) > 1:
    config.available_features.add("multicore")
