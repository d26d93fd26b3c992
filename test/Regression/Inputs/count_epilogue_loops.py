"""Reads IR after tdsl-tile-to-forall on stdin and prints how many marked
epilogues run in a parallel loop with their contraction and how many in one
of their own."""
import re
import sys

with_contraction = alone = 0
loop = None
for line in sys.stdin:
    if re.match(r"\s*(%\S+ = )?scf\.forall \(", line):
        loop = {"epilogue": 0, "contraction": 0}
    elif loop is not None:
        if "tdsl.epilogue" in line:
            loop["epilogue"] += 1
        if re.search(r"linalg\.(matmul|matvec|vecmat|contract|batch_matmul)|\"reduction\"", line):
            loop["contraction"] += 1
        if "scf.forall.in_parallel" in line and loop["epilogue"]:
            if loop["contraction"]:
                with_contraction += 1
            else:
                alone += 1
            loop = None
print("with their contraction:", with_contraction, "alone:", alone)
