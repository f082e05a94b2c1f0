#!/usr/bin/python3
"""Peers for hyperplane's passive-aggressive / Pegasos learners: scikit-learn's
linear large-margin classifiers on the same files, timed in-process.

usage: sk_margin.py TRAIN TEST [EPOCHS]                  LIBSVM files (gzip allowed)
       sk_margin.py --text TRAIN.jsonl.gz TEST.jsonl.gz [EPOCHS]
                                                         JSONL with "label" and "text";
                                                         TfidfVectorizer(ngram_range=(1,2), sublinear_tf=True)
                                                         fitted on TRAIN only

Prints one line per learner on stdout:  name=... acc=... fit_s=...
(fit_s = the classifier's fit only; loading/vectorising time goes to stderr).
SGD / PA / Perceptron: max_iter=EPOCHS (default 10), tol=None, random_state=0,
i.e. exactly EPOCHS shuffled passes. LinearSVC: C=1 and liblinear's own stopping
rule (max_iter=1000, tol=1e-4; tol=None is not accepted by LinearSVC and 10
coordinate-descent passes would not be a converged reference). Its default
dual=True, squared hinge is LIBLINEAR -s 1 (dual=False would be -s 2); unlike the
liblinear-train CLI default it also fits a (regularised) intercept.
"""
import gzip
import json
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import PassiveAggressiveClassifier, Perceptron, SGDClassifier
from sklearn.svm import LinearSVC

warnings.filterwarnings("ignore", category=ConvergenceWarning)


def load_svm(train, test):
    from sklearn.datasets import load_svmlight_file
    Xtr, ytr = load_svmlight_file(train, dtype=np.float64)
    Xte, yte = load_svmlight_file(test, dtype=np.float64)
    n = max(Xtr.shape[1], Xte.shape[1])  # same n_features for train and test
    Xtr, ytr = load_svmlight_file(train, dtype=np.float64, n_features=n)
    Xte, yte = load_svmlight_file(test, dtype=np.float64, n_features=n)
    return Xtr, ytr, Xte, yte


def read_jsonl(path):
    op = gzip.open if path.endswith(".gz") else open
    labels, texts = [], []
    with op(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                labels.append(str(d["label"]))
                texts.append(d["text"])
    return texts, np.array(labels)


def load_text(train, test):
    from sklearn.feature_extraction.text import TfidfVectorizer
    ttr, ytr = read_jsonl(train)
    tte, yte = read_jsonl(test)
    vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True)
    Xtr = vec.fit_transform(ttr)
    Xte = vec.transform(tte)
    return Xtr, ytr, Xte, yte


def learners(epochs):
    common = dict(max_iter=epochs, tol=None, random_state=0)
    return [
        ("sgd_hinge", SGDClassifier(loss="hinge", penalty="l2", average=False, **common)),
        ("sgd_hinge_avg", SGDClassifier(loss="hinge", penalty="l2", average=True, **common)),
        ("pa1", PassiveAggressiveClassifier(C=1.0, loss="hinge", average=False, **common)),
        ("pa1_avg", PassiveAggressiveClassifier(C=1.0, loss="hinge", average=True, **common)),
        ("linearsvc", LinearSVC(C=1.0, random_state=0)),
        ("perceptron", Perceptron(**common)),
    ]


def main(argv):
    text = False
    if argv and argv[0] == "--text":
        text, argv = True, argv[1:]
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    train, test = argv[0], argv[1]
    epochs = int(argv[2]) if len(argv) > 2 else 10
    t0 = time.perf_counter()
    Xtr, ytr, Xte, yte = (load_text if text else load_svm)(train, test)
    load_s = time.perf_counter() - t0
    print(f"load_s={load_s:.3f} rows={Xtr.shape[0]} test_rows={Xte.shape[0]} dim={Xtr.shape[1]} "
          f"nnz={Xtr.nnz} classes={len(np.unique(ytr))} epochs={epochs}", file=sys.stderr)
    for name, clf in learners(epochs):
        t0 = time.perf_counter()
        clf.fit(Xtr, ytr)
        fit_s = time.perf_counter() - t0
        acc = float((clf.predict(Xte) == yte).mean())
        print(f"name={name} acc={acc:.4f} fit_s={fit_s:.4f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
