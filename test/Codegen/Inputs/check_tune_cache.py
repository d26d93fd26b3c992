"""Checks the cache that `tdslc --tune` wrote (argv[1]) for the machine that
`tdslc --print-target-model` describes (argv[2], its output): every kernel
tried the eight candidates and kept the fastest. With argv[3], writes a copy
of the cache whose every kernel takes tile 32 and 4 rows there."""
import json
import sys

cache = json.load(open(sys.argv[1]))
key = [l.split(": ", 1)[1] for l in open(sys.argv[2]).read().splitlines()
       if l.startswith("machine key: ")][0]
kernels = cache["machines"][key]
print("kernels:", len(kernels))
for name, k in sorted(kernels.items()):
    tried = {(t["tile"], t["rows"]): t["ns"] for t in k["tried"]}
    assert set(tried) == {(t, r) for t in (32, 64, 128, 256) for r in (4, 8)}, tried
    assert all(ns > 0 for ns in tried.values()), tried
    assert tried[(k["tile"], k["rows"])] == min(tried.values()) == k["ns"], k
    print("kernel", name.split(" ")[0], "fastest of 8: ok")
if len(sys.argv) > 3:
    for k in kernels.values():
        k["tile"], k["rows"] = 32, 4
    json.dump(cache, open(sys.argv[3], "w"))
