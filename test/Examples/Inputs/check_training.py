"""Checks the epoch lines of a training run:
`epoch N loss L train A test T`, one per epoch.

usage: check_training.py OUTPUT EPOCHS MIN_TEST_ACCURACY

Passes when there are EPOCHS lines, the last loss is below a tenth of the
first, and the best test accuracy of the last five epochs is at least
MIN_TEST_ACCURACY (one epoch's accuracy moves by a few rows)."""
import sys

out, epochs, min_acc = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rows = []
for line in open(out):
    f = line.split()
    if f and f[0] == "epoch":
        rows.append((float(f[3]), float(f[7])))
if len(rows) != epochs:
    sys.exit("expected %d epochs, found %d" % (epochs, len(rows)))
if not rows[-1][0] < rows[0][0] / 10:
    sys.exit("the loss went from %g to %g" % (rows[0][0], rows[-1][0]))
best = max(acc for _, acc in rows[-5:])
if best < min_acc:
    sys.exit("test accuracy %g < %g" % (best, min_acc))
print("%d epochs, loss fell, test accuracy ok" % epochs)
