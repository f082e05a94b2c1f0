#!/usr/bin/env python3
"""skref times scikit-learn's side of bench/compare_c.sh in one process,
parsing excluded: Perceptron (plain, shuffled every epoch, no stopping
rule) fitted REPS times on the same parsed rows, each fit from the same
seed, so that the repetitions differ only in the machine's speed.

Usage: skref.py [-r REPS] [-e EPOCHS] TRAIN [TEST]

Output, one figure a line, in hpref's format, times in ms as median
[min-max] over the repetitions:

    sk.epoch_ms  M [LO-HI]   (a fit's time divided by its epochs)
    sk.test_acc  A           (with TEST)

scikit-learn has no hook between epochs, so its figure is always a
whole fit's: what fit does before its first epoch (checking and
converting the rows) is in it, as Fit's is in hpref's hp.epoch_ms.
Its Perceptron does not average; it is the anchor the project's
averaged epoch is compared with, not an equal learner.
"""
import argparse
import sys
import time

try:
    import numpy as np
    from sklearn.datasets import load_svmlight_files
    from sklearn.linear_model import Perceptron
except ImportError as e:  # compare_c.sh checks this before it calls us
    sys.exit(f"skref: {e}")


def main():
    ap = argparse.ArgumentParser(prog="skref.py")
    ap.add_argument("-r", type=int, default=5, help="fits timed")
    ap.add_argument("-e", type=int, default=10, help="epochs per fit")
    ap.add_argument("files", nargs="+", metavar="TRAIN [TEST]")
    a = ap.parse_args()
    if len(a.files) > 2 or a.r < 1 or a.e < 1:
        ap.error("one TRAIN file, an optional TEST file, and positive -r and -e")
    data = load_svmlight_files(a.files, dtype=np.float64)
    X, y = data[0], data[1]
    times, clf = [], None
    for _ in range(a.r):
        clf = Perceptron(max_iter=a.e, tol=None, shuffle=True, random_state=0)
        t0 = time.perf_counter()
        clf.fit(X, y)
        times.append((time.perf_counter() - t0) * 1e3 / a.e)
    times.sort()
    # hpref's median: the middle repetition (the upper one of an even count).
    print(f"sk.epoch_ms    {times[len(times) // 2]:.3f} [{times[0]:.3f}-{times[-1]:.3f}]")
    if len(a.files) == 2:
        # load_svmlight_files gives both files the same columns.
        Xt, yt = data[2], data[3]
        print(f"sk.test_acc    {(clf.predict(Xt) == yt).mean():.5f}")


if __name__ == "__main__":
    main()
