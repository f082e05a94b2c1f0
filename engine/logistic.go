package engine

import (
	"errors"
	"fmt"
	"math"

	"github.com/hyperplane-ml/hyperplane/engine/calibrate"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// The rule Logistic is logistic regression: it minimizes the regularized
// log loss
//
//	λ/2·‖w‖² + mean(log(1 + exp(−y·(w·x+b))))
//
// by stochastic gradient descent with the hinge SGD rule's step
// η = 1/(λ(t+t0)), scaled weights and averaging: at example t,
// w ← (1 − λη)·w + η·g·y·x with g = 1/(1 + exp(y·(w·x+b))), so every
// example moves the weights, by less the better it is already
// classified. The offset is t0 = 10·λ^(−3/4), ten times scikit-learn's
// "optimal" one, so that the first steps are ten times smaller: at the
// small default λ the optimal offset starts with steps of λ^(−1/4) ≈ 30,
// far past the log loss's curvature on unit-length rows, which cost 1 to
// 1.5 points of test accuracy on 20 Newsgroups after 10 to 20 epochs and
// 0.1 to 0.2 on IMDB; on a9a the two starts were as accurate. Alpha is λ, the bias is
// regularized like a weight, and Algorithm Averaged (the default)
// returns the average of the weights after every example of the last
// ⌈E/2⌉ of a fit's E epochs (see state.startEpoch; an online Learner
// averages them all, as scikit-learn's SGDClassifier(loss="log_loss",
// average=True) does). At the small default λ the steps stay near
// 1/(λ·t0) through a fit, so the weights are still moving towards the
// optimum in its last epochs, and the first half's only held the
// average back: leaving it out gained 0.5 points of test accuracy on
// 20 Newsgroups at 10 epochs (0.3 on average over six shuffles), 0.06
// on IMDB, 0.4 on letter and 1 on a shift from sentence polarity to
// movie reviews, and lost 0.2 to 0.4 on dna
// (bench/reports/logistic_vs_sklearn.md).
//
// For the same reason a fit runs 30 epochs unless Config.Epochs is set
// (ruleSpec.epochs, Rule.DefaultEpochs), three times the other rules'
// 10, at three times their training time: on 20 Newsgroups 10 epochs
// reached 79.95% of test accuracy and 20 80.06%, short of scikit-learn's
// best LogisticRegression less half a point (80.09%), and 30 reached
// 80.30% (80.16 to 80.34 over three other shuffles). On IMDB and a9a,
// which met that mark at 10, 30 cost 0.13 and 0.07 points. Over the 17
// shared sets with a test split 30 gained on eight (1 point on TREC's
// fine classes, 0.55 on a shift from sentence polarity to movie
// reviews), tied on two and lost on seven, by 0.13 points or less but on
// dna (0.43) and breast cancer (three of 169 test rows)
// (bench/reports/logistic_vs_sklearn.md).
//
// Multiclass data is learned by the multinomial (softmax) log loss: with
// p the softmax of the class scores, every class k moves by
// η·([k = y] − p_k)·x. One-vs-rest would train K binary models whose
// probabilities do not sum to one; the softmax gives the model's
// probabilities directly, at the same cost per row as one-vs-rest (every
// class moves on every row), and is what LogisticRegression fits.
//
// A model of this rule has probabilities of its own (Model.Proba): the
// logistic of a binary model's score, the softmax of a multiclass model's
// scores. They are the zero calibrate.Calibration's map, which is what
// scores turn into when no calibration was fitted.
var logisticSpec = ruleSpec{sgd: true, gain: logisticGain, softmax: true, proba: true, alpha: DefaultLogisticAlpha, t0Scale: 10, suffixAverage: true, epochs: 30}

// DefaultLogisticAlpha is logistic regression's λ when Config.Alpha is 0:
// 100 times below scikit-learn's SGDClassifier default, which
// regularizes unit-length rows of text so strongly that it scored 5
// (IMDB) and 10 (20 Newsgroups) points of test accuracy below
// LogisticRegression's best C (bench/logistic_vs_sklearn.py). It is λ = 1/(C·n) for C = 100 and
// n = 10,000 rows, or C = 10 and n = 100,000.
const DefaultLogisticAlpha = 1e-6

// logisticGain is −ℓ'(z) of the log loss ℓ(z) = log(1 + exp(−z)) at
// z = m/d: 1/(1 + exp(z)), in [0, 1].
func logisticGain(m float32, d float64) float32 { return float32(1 / (1 + math.Exp(float64(m)/d))) }

// ErrNoProba: a model's scores are not probabilities (Model.Proba); only
// logistic regression's are. Calibrate the scores instead
// (engine/calibrate).
var ErrNoProba = errors.New("engine: the model's scores are not probabilities")

// Probabilistic reports whether m's scores are log-odds, so that Proba
// gives its probabilities: whether it is a logistic regression model.
func (m *Model) Probabilistic() bool {
	return int(m.Rule) < len(ruleSpecs) && ruleSpecs[m.Rule].proba && m.Votes == nil
}

// Proba writes into dst (grown if needed) the probability of every class
// of m, in the order of m.Classes, for x, and returns it: for a binary
// model [1 − σ(s), σ(s)] with s = Decision(x) and σ the logistic
// function; for a multiclass one the softmax of Scores(x). A model that
// is not Probabilistic returns ErrNoProba.
func (m *Model) Proba(x sparse.Vector, dst []float64) ([]float64, error) {
	if !m.Probabilistic() {
		return dst, fmt.Errorf("%w: rule %v", ErrNoProba, m.Rule)
	}
	var buf [maxStack]float32
	s := m.Scores(x, buf[:0])
	return calibrate.Calibration{}.Proba(s, dst), nil
}
