"""Compares two training runs epoch by epoch (lines `epoch N loss L train A
test T`): the same number of epochs, losses within a relative RTOL, and
test accuracies within ROWS test rows of 359.

usage: compare_epochs.py A B RTOL ROWS"""
import sys


def epochs(path):
    rows = []
    for line in open(path):
        f = line.split()
        if f and f[0] == "epoch":
            rows.append((float(f[3]), float(f[7])))
    return rows


a, b = epochs(sys.argv[1]), epochs(sys.argv[2])
rtol, rows = float(sys.argv[3]), int(sys.argv[4])
if len(a) != len(b) or not a:
    sys.exit("%d epochs against %d" % (len(a), len(b)))
for i, ((la, ta), (lb, tb)) in enumerate(zip(a, b)):
    if abs(la - lb) > rtol * abs(lb):
        sys.exit("epoch %d: loss %g against %g" % (i + 1, la, lb))
    if abs(ta - tb) * 359 > rows + 0.5:
        sys.exit("epoch %d: test accuracy %g against %g" % (i + 1, ta, tb))
print("%d epochs agree" % len(a))
