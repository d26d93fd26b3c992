"""difffuzz: a differential fuzzer for tdslc.

It generates random, well-typed TDSL programs and evaluates them while it
builds them (YARPGen style), so that it knows every shape and value, never
emits undefined behaviour and has the expected outputs of each program as a
by-product. Each program then runs in several configurations of tdslc (JIT
at -O0 and -O2 with 1 and 2 threads, an AOT executable, the CUDA back end
in the CPU emulator of the driver, ptxas on the emitted PTX); every output
must agree with the expected values (bit for bit in exact mode, within a
tracked error bound in approx mode). A disagreement, a rejected program, a
crash or a hang is a finding, which is shrunk on the generator's tree.

Modules:
  rng        splitmix64, the fuzzer's only source of randomness
  dtypes     the eight scalar types: numpy storage, rounding, limits
  tdtypes    the front end's static types (static / symbolic / ? dims)
  sem        the numeric semantics of every operation, with error bounds
  rand       uniform and normal, from the Philox port in test/Examples
  tree       the program tree and its rendering to TDSL text
  interp     the reference interpreter (types and values of a program)
  meta       what the generator knows of names (keys, spans of loop variables)
  gen        the program generator
  updates    its builders for element and row updates and loop kernels
  runner     the configurations of tdslc and how they are run
  oracle     comparison of outputs and failure signatures
  driver     one program through interpreter, runs and oracle
  reduce     shrinking a failing program on its tree
  cli        the command line (scripts/difffuzz.py)
"""
