#!/usr/bin/python3
"""Test accuracy of hyperplane's -algo logistic beside scikit-learn's
LogisticRegression (C in 0.1, 1, 10, 100) and SGDClassifier(loss='log_loss',
average=True) on the same LIBSVM files, and the expected calibration error
(ECE, 10 bins, of the predicted label's probability) of the raw
probabilities of each.

usage: logistic_vs_sklearn.py [-hp-only] HP DATA [SET...]
  HP    a built hyperplane binary (go build -o hp ./cmd/hyperplane)
  DATA  the shared data folder
  SET   imdb, 20ng, a9a (default: all three)
  -hp-only  skip scikit-learn (its LogisticRegression takes minutes on 20ng)

Every learner sees the rows scaled to unit Euclidean length, as hyperplane
trains by default (-normalize); on a9a every row has 14 ones, so that only
rescales C. scikit-learn runs in this process with its defaults otherwise
(lbfgs, multinomial for multiclass); hyperplane's model is trained, saved
and asked for `predict -proba` through its command line.
"""
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.datasets import load_svmlight_files
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.preprocessing import normalize

SETS = {
    "imdb": ("text/imdb/imdb.train.svm.gz", "text/imdb/imdb.test.svm.gz"),
    "20ng": ("text/20newsgroups/20ng.train.svm.gz", "text/20newsgroups/20ng.test.svm.gz"),
    "a9a": ("libsvm/a9a", "libsvm/a9a.t"),
}


def ece(conf, correct, bins=10):
    """Expected calibration error of top-label confidences."""
    e, n = 0.0, len(conf)
    edges = np.linspace(0, 1, bins + 1)
    for i in range(bins):
        lo, hi = edges[i], edges[i + 1]
        m = (conf > lo) & (conf <= hi) if i else (conf >= lo) & (conf <= hi)
        if m.any():
            e += m.sum() / n * abs(correct[m].mean() - conf[m].mean())
    return e


def hyperplane(hp, train, test, y_test, extra):
    with tempfile.TemporaryDirectory() as d:
        model = d + "/m"
        t = time.time()
        subprocess.run([hp, "train", "-algo", "logistic", "-o", model] + extra + [train],
                       check=True, capture_output=True)
        secs = time.time() - t
        out = subprocess.run([hp, "predict", "-model", model, "-proba", test],
                             check=True, capture_output=True, text=True).stdout.split("\n")
    lab = np.array([float(l.split("\t")[0]) for l in out if l])
    conf = np.array([float(l.split("\t")[1]) for l in out if l])
    correct = lab == y_test
    return correct.mean(), ece(conf, correct), secs


def sk(clf, Xtr, ytr, Xte, yte):
    t = time.time()
    clf.fit(Xtr, ytr)
    secs = time.time() - t
    p = clf.predict_proba(Xte)
    pred = clf.classes_[p.argmax(1)]
    correct = pred == yte
    return correct.mean(), ece(p.max(1), correct), secs


def main():
    args = sys.argv[1:]
    hp_only = args[:1] == ["-hp-only"]
    if hp_only:
        args = args[1:]
    hp, data = args[0], args[1]
    names = args[2:] or list(SETS)
    print("| set | learner | test accuracy | ECE | train s |")
    print("|---|---|---|---|---|")
    for name in names:
        tr, te = (data + "/" + p for p in SETS[name])
        Xtr, ytr, Xte, yte = load_svmlight_files([tr, te])
        Xtr, Xte = normalize(Xtr), normalize(Xte)
        rows = []
        # The default is 30 epochs (engine.Logistic.DefaultEpochs); 10 and
        # 20 are the counts it was chosen over, 60 what more buys.
        for extra in (["-epochs", "10"], ["-epochs", "20"], [], ["-epochs", "60"]):
            label = "hyperplane -algo logistic " + " ".join(extra)
            rows.append((label.strip(), hyperplane(hp, tr, te, yte, extra)))
        for C in () if hp_only else (0.1, 1, 10, 100):
            rows.append((f"LogisticRegression C={C}",
                         sk(LogisticRegression(C=C, max_iter=1000), Xtr, ytr, Xte, yte)))
        if not hp_only:
            rows.append(("SGDClassifier log_loss average",
                         sk(SGDClassifier(loss="log_loss", average=True, random_state=0), Xtr, ytr, Xte, yte)))
        for label, (acc, e, secs) in rows:
            print(f"| {name} | {label} | {100 * acc:.2f} | {e:.4f} | {secs:.1f} |", flush=True)


if __name__ == "__main__":
    main()
