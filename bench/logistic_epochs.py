#!/usr/bin/python3
"""Test accuracy and training time of hyperplane's -algo logistic (and
-algo modified_huber on the three sets that set logistic's targets) at
10, 20 and 30 epochs, on every shared set with a test split: the figures
that chose logistic's default number of epochs
(engine.Logistic.DefaultEpochs; bench/reports/logistic_vs_sklearn.md).

usage: logistic_epochs.py HP DATA [ROUNDS]
  HP      a built hyperplane binary (go build -o hp ./cmd/hyperplane)
  DATA    the shared data folder
  ROUNDS  rounds of runs (default 3); each round runs every set at the
          three counts, in an order that rotates from round to round

Accuracy is deterministic (the seed fixes the shuffles), so the rounds
only serve the times: train -json's train_seconds (the learner's
training; for raw text, featurizing excluded), printed as the median
with min-max, and the median over rounds of the ratio of a round's 20-
and 30-epoch times to its 10-epoch time. Every run's figures are also
written to logistic_epochs.jsonl in the current folder.
"""
import collections
import json
import statistics
import subprocess
import sys

EPOCHS = (10, 20, 30)


def sets(d):
    lib, txt, skl = d + "/libsvm/", d + "/text/", d + "/sklearn/"
    ng = ["-test", txt + "20newsgroups/20ng.test.svm.gz", txt + "20newsgroups/20ng.train.svm.gz"]
    imdb = ["-test", txt + "imdb/imdb.test.svm.gz", txt + "imdb/imdb.train.svm.gz"]
    a9a = ["-test", lib + "a9a.t", lib + "a9a"]
    tt = lambda name: ["-test", txt + f"{name}.test.svm", txt + f"{name}.train.svm"]
    return [
        ("imdb .svm", "logistic", imdb),
        ("20ng .svm", "logistic", ng),
        *((f"20ng .svm -seed {s}", "logistic", ["-seed", str(s)] + ng) for s in (1, 2, 3)),
        ("a9a / a9a.t", "logistic", a9a),
        ("a8a / a9a.t", "logistic", ["-test", lib + "a9a.t", lib + "a8a"]),
        ("w8a (cv5)", "logistic", ["-cv", "5", lib + "w8a"]),
        ("agaricus", "logistic", ["-test", lib + "agaricus.test", lib + "agaricus.train"]),
        ("dna", "logistic", ["-test", lib + "dna.scale.t", lib + "dna.scale"]),
        ("letter", "logistic", ["-test", lib + "letter.scale.t", lib + "letter.scale.tr"]),
        ("digits", "logistic", ["-test", skl + "digits.test.svm", skl + "digits.train.svm"]),
        ("breast_cancer", "logistic", ["-test", skl + "breast_cancer.test.svm", skl + "breast_cancer.train.svm"]),
        ("r8", "logistic", tt("reuters21578/r8")),
        ("r52", "logistic", tt("reuters21578/r52")),
        ("trec_qc coarse", "logistic", tt("trec_qc/trec_qc.coarse")),
        ("trec_qc fine", "logistic", tt("trec_qc/trec_qc.fine")),
        ("imdb raw text", "logistic", ["-test", txt + "imdb/imdb.test.jsonl.gz", txt + "imdb/imdb.train.jsonl.gz"]),
        ("20ng raw text", "logistic", ["-test", txt + "20newsgroups/20ng.test.jsonl.gz", txt + "20newsgroups/20ng.train.jsonl.gz"]),
        ("sentence_polarity → movie_reviews (text)", "logistic",
         ["-test", txt + "movie_reviews/movie_reviews.jsonl.gz", txt + "sentence_polarity/sentence_polarity.jsonl"]),
        ("modified_huber imdb .svm", "modified_huber", imdb),
        ("modified_huber 20ng .svm", "modified_huber", ng),
        ("modified_huber a9a", "modified_huber", a9a),
    ]


def run(hp, rule, epochs, args):
    out = subprocess.run([hp, "train", "-algo", rule, "-json", "-epochs", str(epochs)] + args,
                         check=True, capture_output=True, text=True).stdout
    j = json.loads(out)
    if "cv" in j:
        return j["cv"]["mean"], j["cv"]["seconds"]
    return j["test_accuracy"], j["train_seconds"]


def main():
    hp, data = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    acc, secs = {}, collections.defaultdict(list)
    with open("logistic_epochs.jsonl", "w") as log:
        for r in range(rounds):
            order = EPOCHS[r % 3:] + EPOCHS[:r % 3]
            for name, rule, args in sets(data):
                for e in order:
                    a, s = run(hp, rule, e, args)
                    acc[name, e] = a
                    secs[name, e].append(s)
                    log.write(json.dumps({"set": name, "epochs": e, "round": r, "accuracy": a, "train_s": s}) + "\n")
                    log.flush()
    print("| set | 10 | 20 | 30 | train s, 10 | 20 | 30 | 20/10 | 30/10 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, _, _ in sets(data):
        t = lambda e: secs[name, e]
        cell = lambda v: f"{statistics.median(v):.3g} ({min(v):.3g}–{max(v):.3g})"
        ratio = lambda e: statistics.median(x / y for x, y in zip(t(e), t(10)))
        print(f"| {name} | " + " | ".join(f"{100 * acc[name, e]:.2f}" for e in EPOCHS) + " | "
              + " | ".join(cell(t(e)) for e in EPOCHS) + f" | {ratio(20):.2f} | {ratio(30):.2f} |")


if __name__ == "__main__":
    main()
