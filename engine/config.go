package engine

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/hyperplane-ml/hyperplane/engine/internal/modelfile"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// Sentinel errors. Errors returned by this package wrap one of them, so
// callers test with errors.Is. Bad options, in a Config, a KernelConfig or
// an argument, wrap ErrConfig; bad model files ErrFormat. Errors that
// come from outside are passed on as they are, with context: the
// context's error when training is cancelled, an OnEpoch callback's, and
// those of the file system or of a reader, writer, cache or RowSource
// given to the package.
var (
	// ErrNoData: the training set has no rows.
	ErrNoData = errors.New("engine: no training rows")
	// ErrLabels: the labels do not fit the task: fewer than two classes,
	// not one label per row, a NaN or infinite label, or more classes
	// than Config.MaxClasses.
	ErrLabels = errors.New("engine: bad labels")
	// ErrUnknownLabel: an online learner was given a label it was not
	// created with.
	ErrUnknownLabel = errors.New("engine: label not among the learner's classes")
	// ErrConfig: a Config field is out of range.
	ErrConfig = errors.New("engine: bad config")
	// ErrDim: a row or model is wider than allowed, or a model does not
	// match the data it is used on.
	ErrDim = errors.New("engine: dimension mismatch or too large")
	// ErrDiverged: a weight became NaN or infinite (huge feature values or
	// learning rate), or a feature value given to Fit is not finite.
	ErrDiverged = errors.New("engine: weights or values not finite")
	// ErrFormat: a model file is not one, is truncated or corrupt, or has
	// a version this build cannot read.
	ErrFormat = modelfile.ErrFormat
	// ErrNoSubset: ReadClassifierFeatures was given a model that cannot
	// be read for part of its features (a kernel or voted model, or a
	// compact one that holds none of them); read it whole instead.
	ErrNoSubset = modelfile.ErrNoSubset
	// ErrMemory: training or a model would need more memory than the
	// budget (Config.MemoryBudget). It is budget.ErrExceeded, so one test
	// covers the refusals of every package.
	ErrMemory = budget.ErrExceeded
)

// Algorithm picks the perceptron variant.
type Algorithm uint8

const (
	// Averaged is the averaged perceptron (Freund & Schapire 1999, Collins
	// 2002): the model is the average of the weight vectors after every
	// example of training (with the rules Logistic and ModifiedHuber, of
	// the last half of a fit's epochs), computed exactly by the lazy trick
	// at no O(dim) cost per example. It generalizes much better than the
	// last vector and is the default.
	Averaged Algorithm = iota
	// Plain is Rosenblatt's perceptron: the model is the last weight vector.
	Plain
	// Voted is the voted perceptron (Freund & Schapire 1999): every weight
	// vector training went through votes with the number of examples it
	// survived. The model keeps the sequence of mistakes instead of the
	// vectors, and prediction costs a dot product with every row on which a
	// mistake was made, which is far slower than Averaged.
	Voted
	// Batch is the batch perceptron: each epoch takes one step of size
	// LearningRate along the full gradient of the perceptron risk
	// R(w) = Σ over misclassified rows of −y·(w·x+b).
	Batch
)

var algorithmNames = [...]string{"averaged", "plain", "voted", "batch"}

// String returns the name ParseAlgorithm reads.
func (a Algorithm) String() string { return enumString(a, algorithmNames[:], "Algorithm") }

// ParseAlgorithm reads "averaged", "plain", "voted" or "batch".
func ParseAlgorithm(s string) (Algorithm, error) {
	return parseEnum[Algorithm](s, algorithmNames[:], "algorithm", "averaged, plain, voted or batch")
}

// Rule is the update rule of the online linear learners: when an example
// moves the weights and by how much. Every rule runs with every averaging
// choice of Algorithm except Voted and Batch, which are perceptron forms.
type Rule uint8

const (
	// Perceptron updates by η·y·x when y·(w·x+b) ≤ Margin (a mistake, with
	// Margin 0). It is the default.
	Perceptron Rule = iota
	// PA is the passive-aggressive learner of Crammer, Dekel, Keshet,
	// Shalev-Shwartz and Singer (JMLR 2006): on an example with hinge loss
	// ℓ = max(0, 1 − y·(w·x+b)) > 0 it takes the smallest step that
	// brings the loss to zero, τ = ℓ/‖x‖². For multiclass data the margin
	// is the true class's score less the best other's, and the step
	// τ = ℓ/(2‖x‖²) goes up for the true class and down for the other.
	// ‖x‖² counts the bias's constant feature (BiasScale², or 1 with
	// BiasSeparate; 0 with NoBias), since the bias moves with the weights.
	PA
	// PA1 is PA-I: the step is capped at C, τ = min(C, ℓ/‖x‖²), which
	// tolerates noisy labels (the hinge loss with a box constraint).
	PA1
	// PA2 is PA-II: τ = ℓ/(‖x‖² + 1/(2C)), the squared hinge loss.
	PA2
	// Pegasos minimizes the regularized hinge loss
	// λ/2·‖w‖² + mean(max(0, 1 − y·(w·x+b))) by the stochastic
	// sub-gradient step of Shalev-Shwartz, Singer, Srebro and Cotter
	// (2007/2011): at example t, with η = 1/(λ(t+t0)),
	// w ← (1 − λη)·w + η·y·x when the margin is at most 1, and
	// w ← (1 − λη)·w otherwise (multiclass: the true class gains η·x and
	// the best other loses it, Crammer and Singer's hinge). The offset
	// t0 = λ^(−3/4) is Bottou's, as in scikit-learn's "optimal" schedule:
	// it keeps the first steps from overshooting, where the paper's t0 = 0
	// starts with a step of 1/λ. This is a linear SVM (the bias is
	// regularized like a weight, as LIBLINEAR's -B 1 does). The weights
	// are kept as w = v/(λ(t−1+t0)), so no example costs O(dim): v only
	// changes by ±x, and the average has a lazy form too. v is float32 and
	// grows like λ·t·‖w‖: once that is some 10^6 times a row's values, the
	// updates begin to round away (after 10^7 examples at λ = 1 the
	// weights were a few per cent off the exact ones).
	Pegasos
	// Logistic is logistic regression: the L2-regularized log loss by
	// Pegasos's stochastic steps, scaled weights and averaging, with λ
	// DefaultLogisticAlpha unless Alpha is set, and 30 epochs unless
	// Epochs is set (Rule.DefaultEpochs: at its small λ the weights still
	// move after 10); the multinomial (softmax) loss for multiclass data.
	// Its scores are log-odds, so its models have probabilities of their
	// own (Model.Proba).
	Logistic
	// ModifiedHuber is the L2-regularized modified Huber loss
	// (scikit-learn's "modified_huber"), quadratic near the margin and
	// linear far from it, by the same steps and averaging, with λ
	// DefaultModifiedHuberAlpha unless Alpha is set, and 10 epochs unless
	// Epochs is set.
	ModifiedHuber
)

// ruleNames are the rules' names, as ParseRule reads them (the new
// losses' are scikit-learn's).
var ruleNames = [...]string{"perceptron", "pa", "pa1", "pa2", "pegasos", "logistic", "modified_huber"}

// lastRule is the highest Rule value.
const lastRule = Rule(len(ruleNames) - 1)

// ruleSpecs holds what the learners ask of a rule beyond the
// passive-aggressive steps, and which options it takes: one entry per
// rule, indexed by it.
var ruleSpecs = [len(ruleNames)]ruleSpec{
	PA1: {takesC: true}, PA2: {takesC: true},
	Pegasos: pegasosSpec, Logistic: logisticSpec, ModifiedHuber: modifiedHuberSpec,
}

// ruleSpec is what a learner asks of a rule: whether it takes C, and the
// loss of a rule of regularized stochastic gradient descent (sgd), the
// rules that keep Pegasos's scaled weights, schedule and averaging clock
// and differ in their loss.
type ruleSpec struct {
	// takesC: the rule takes Config.C, its aggressiveness (PA1, PA2).
	takesC bool
	// sgd: the rule minimizes λ/2·‖w‖² plus the mean of a loss by the
	// step η = 1/(λ(t+t0)) (see Pegasos).
	sgd bool
	// gain is the multiple of the row an example adds to v: the loss's
	// −ℓ'(z) at its margin z = y·(w·x+b) = m/d, given as m, the margin
	// in v's units, and d = λ(c+t0). nil is the hinge loss's, hingeGain,
	// which the step calls directly: at a few nanoseconds a row it is
	// the one cheap enough for an indirect call to show.
	gain func(m float32, d float64) float32
	// softmax: a multiclass learner moves every class k by
	// ([k = y] − p_k)·x, p the softmax of the scores (the multinomial log
	// loss), rather than the true class and the best other.
	softmax bool
	// proba: the model's scores are log-odds, so the logistic of a binary
	// score and the softmax of multiclass scores are its probabilities.
	proba bool
	// alpha is the rule's λ when Config.Alpha is 0.
	alpha float64
	// t0Scale, when not 0, multiplies the step offset t0 = λ^(−3/4), so
	// that the first step 1/(λ·t0) is smaller by that factor.
	t0Scale float64
	// suffixAverage: the average of a fit (Fit, FitDense, FitCache) of
	// E epochs leaves out the first ⌊E/2⌋: the model is the mean of the
	// weights after every example of the last ⌈E/2⌉ epochs (suffix
	// averaging; see state.startEpoch). An online Learner, which has no
	// epochs, averages from its first example.
	suffixAverage bool
	// epochs is the rule's number of epochs when Config.Epochs is 0
	// (Rule.DefaultEpochs); 0 means defaultEpochs.
	epochs int
}

// defaultEpochs is the number of epochs of a rule that has no default
// of its own (ruleSpec.epochs).
const defaultEpochs = 10

// DefaultEpochs returns the number of epochs a fit with rule r runs when
// Config.Epochs is 0: 10, the perceptron's and the passive-aggressive
// rules' classic count, except for rules whose steps were measured to
// need more to converge (Logistic). A command line that defaults its
// epochs should ask the rule, as train -epochs does. An unknown rule
// gets 10.
func (r Rule) DefaultEpochs() int {
	if int(r) < len(ruleSpecs) && ruleSpecs[r].epochs > 0 {
		return ruleSpecs[r].epochs
	}
	return defaultEpochs
}

// SGD reports whether r is a rule of regularized stochastic gradient
// descent (pegasos, logistic, modified_huber): its weights shrink with
// every example and its steps follow the number of examples seen, which a
// model does not keep, so it trains sequentially and does not start from
// a model or a Mix.
func (r Rule) SGD() bool { return int(r) < len(ruleSpecs) && ruleSpecs[r].sgd }

// String returns the name ParseRule reads.
func (r Rule) String() string { return enumString(r, ruleNames[:], "Rule") }

// ParseRule reads "perceptron", "pa", "pa1", "pa2", "pegasos", "logistic"
// or "modified_huber".
func ParseRule(s string) (Rule, error) {
	return parseEnum[Rule](s, ruleNames[:], "rule", strings.Join(ruleNames[:], ", "))
}

// ParseLearner reads a learner's name as the command line's -algo takes
// it: an algorithm ("averaged", "plain", "voted", "batch"), which learns
// by the perceptron rule, or a rule other than the perceptron's ("pa",
// "pa1", "pa2", "pegasos", "logistic", "modified_huber"), which the
// averaged algorithm runs. The error of a name that is neither wraps
// ErrConfig.
func ParseLearner(s string) (Algorithm, Rule, error) {
	if alg, err := ParseAlgorithm(s); err == nil {
		return alg, Perceptron, nil
	}
	if rule, err := ParseRule(s); err == nil && rule != Perceptron {
		return Averaged, rule, nil
	}
	return 0, 0, fmt.Errorf("%w: unknown learner %q (want one of %s, %s)", ErrConfig, s,
		strings.Join(algorithmNames[:], ", "), strings.Join(ruleNames[1:], ", "))
}

// DefaultC is the aggressiveness parameter of PA1 and PA2 when Config.C is
// 0, as scikit-learn's PassiveAggressiveClassifier and LIBLINEAR default.
const DefaultC = 1.0

// DefaultAlpha is Pegasos's regularization λ when Config.Alpha is 0, as
// scikit-learn's SGDClassifier defaults its alpha. The other SGD rules
// have defaults of their own (DefaultLogisticAlpha,
// DefaultModifiedHuberAlpha).
const DefaultAlpha = 1e-4

// BiasMode says how the model gets its bias (intercept).
type BiasMode uint8

const (
	// BiasSeparate learns b beside w, with the same learning rate: the
	// update for a mistake on (x, y) is w += η·y·x, b += η·y.
	BiasSeparate BiasMode = iota
	// BiasAugmented appends a constant feature of value BiasScale to every
	// row, so the bias is one more weight: b += η·y·BiasScale². With
	// BiasScale 1 training is the same as BiasSeparate; the two differ in
	// the geometry the margin diagnostics report (‖w‖ and the radius R
	// include the constant feature).
	BiasAugmented
	// NoBias fixes b = 0: the hyperplane passes through the origin, as in
	// the perceptron convergence theorem.
	NoBias
)

var biasNames = [...]string{"separate", "augmented", "none"}

// String returns the name ParseBiasMode reads.
func (b BiasMode) String() string { return enumString(b, biasNames[:], "BiasMode") }

// ParseBiasMode reads "separate", "augmented" or "none".
func ParseBiasMode(s string) (BiasMode, error) {
	return parseEnum[BiasMode](s, biasNames[:], "bias mode", "separate, augmented or none")
}

// enumString returns the name of v, an enumeration value, in names, or
// typ(v) for a value that has none.
func enumString[T ~uint8](v T, names []string, typ string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(v))
}

// parseEnum returns the value whose name in names is s, ignoring case,
// or an error wrapping ErrConfig that names what is parsed and the names
// wanted.
func parseEnum[T ~uint8](s string, names []string, what, want string) (T, error) {
	for i, n := range names {
		if strings.EqualFold(s, n) {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown %s %q (want %s)", ErrConfig, what, s, want)
}

// Config sets up training. Its zero value is the documented default: the
// averaged perceptron, 10 epochs, learning rate 1, a separate bias, zero
// initial weights, rows shuffled every epoch with seed 0, an update only
// on a mistake, stop after an epoch without updates. The command line's
// train learns by default with the averaged PA-II on rows of unit length
// (Config{Rule: PA2, Normalize: true}), which measured more accurate on
// the shared data sets; the zero value stays the classic perceptron.
type Config struct {
	// Algorithm is the variant; the zero value is Averaged.
	Algorithm Algorithm
	// Rule is the update rule; the zero value is Perceptron. The other
	// rules take Algorithm Averaged or Plain, no LearningRate, Margin or
	// InitScale (their steps are set by the loss), and the SGD rules
	// (Rule.SGD) train sequentially (Workers at most 1).
	Rule Rule
	// C is the aggressiveness of PA1 and PA2 (as scikit-learn and
	// LIBLINEAR name it): the larger, the bigger the steps on noisy
	// examples. 0 means DefaultC. Class and sample weights multiply it
	// (for PA, which has no C, they multiply the step).
	C float64
	// Alpha is the regularization λ of the SGD rules (Rule.SGD;
	// scikit-learn's alpha; LIBLINEAR's C is 1/(λn) for n rows). 0 means
	// the rule's default: DefaultAlpha for Pegasos, DefaultLogisticAlpha
	// and DefaultModifiedHuberAlpha for the others.
	Alpha float64
	// Normalize scales every row to unit Euclidean norm, in training and
	// in the model's predictions (Model.Normalize), as TF-IDF features
	// usually are (scikit-learn's norm="l2"). It makes the large-margin
	// rules, whose margin of 1 is in the units of the features,
	// independent of a row's scale: raw word counts of long and short
	// documents then weigh alike. The data passed in are not changed. A
	// row whose 1/‖x‖ is past float32's range (‖x‖ below about 3e-39)
	// counts as a row of norm 0. Voted refuses it.
	Normalize bool
	// Epochs is the most passes over the data; 0 means the rule's
	// default, Rule.DefaultEpochs: 10, or more for a rule that needs
	// them (Logistic). Training stops sooner after an epoch with no
	// update, or by early stopping.
	Epochs int
	// LearningRate η scales every update; 0 means 1. For the online
	// variants with zero initial weights and no bias scale it only scales
	// the model, so it matters with InitScale, Margin or BiasAugmented.
	LearningRate float64
	// Bias picks how the intercept is learned; the zero value is
	// BiasSeparate.
	Bias BiasMode
	// BiasScale is the constant feature's value for BiasAugmented; 0
	// means 1.
	BiasScale float64
	// InitScale, when > 0, starts the weights (and bias) uniformly at
	// random in [−InitScale, InitScale], drawn from Seed; 0 starts them at
	// zero.
	InitScale float64
	// Margin τ ≥ 0 makes an update happen whenever y·(w·x+b) ≤ τ, not only
	// on a mistake (for multiclass: when the true class's score beats the
	// best other class by no more than τ). 0 is the classic rule.
	Margin float64
	// NoShuffle visits rows in their order; otherwise every epoch visits
	// them in a fresh random order drawn from Seed. Above 2^25 nonzeros
	// (256 MiB of data) the order is windowed for locality: chunks of 256
	// consecutive rows in random order, and the rows of every 64 chunks in
	// one random order, which keeps a shuffled epoch from waiting on page
	// walks at every row.
	NoShuffle bool
	// Seed seeds shuffling, the random start and the validation split. The
	// same seed, data and SIMD tier give a bit-identical model.
	Seed uint64
	// Validation, when in (0, 1), holds out that fraction of the rows
	// (drawn from Seed) and stops early when their accuracy has not
	// improved for Patience epochs; the model returned is the one of the
	// best epoch. 0 trains on every row.
	Validation float64
	// Patience is the number of epochs without improvement that early
	// stopping waits; 0 means 5.
	Patience int
	// ClassWeight multiplies the update of rows of a class, keyed by label
	// (for imbalanced data such as spam); labels not in the map weigh 1. A
	// key that is none of the classes is an error (ErrConfig): a weight
	// keyed by a label the data does not use would silently do nothing.
	ClassWeight map[float64]float64
	// Balanced weighs each class by n/(k·n_c), as scikit-learn's
	// class_weight="balanced": n rows, k classes, n_c rows of the class.
	// It multiplies ClassWeight where both are set.
	Balanced bool
	// SampleWeight, when not nil, has one weight ≥ 0 per row that multiplies
	// its update; a row of weight 0 is never learned.
	SampleWeight []float64
	// TrainLoss computes, after every epoch, the perceptron loss and the
	// mistakes of the model of that moment over the whole training set (one
	// more pass over the data per epoch); EpochStats.TrainLoss is NaN
	// otherwise.
	TrainLoss bool
	// OnEpoch, when not nil, is called after every epoch of Fit, FitDense,
	// FitCache and FitKernel (which runs KernelConfig.OnKernelEpoch
	// first); a non-nil error stops training and the fit returns it with
	// the model so far. It serves progress reports. A Learner, whose
	// caller makes its passes, does not call it.
	OnEpoch func(EpochStats) error
	// MaxClasses caps the number of distinct labels (a regression target
	// read by mistake would otherwise ask for one weight vector per value);
	// 0 means 1024.
	MaxClasses int
	// MaxDim caps the width an online Learner grows to; 0 means 1<<27.
	MaxDim int
	// MemoryBudget caps, in bytes, what training allocates for the
	// weights, their averaging sums and the workers' copies, which the
	// data's width and classes size: more is ErrMemory, before anything
	// is allocated. 0 means budget.Default(), half of the machine's
	// memory unless the process set another.
	MemoryBudget int64
	// Workers > 1 trains Plain and Averaged with iterative parameter
	// mixing (McDonald, Hall & Mann 2010) on that many goroutines: every
	// epoch the shuffled rows are cut into Workers shards, each worker runs
	// the online learner over its shard starting from the current weights,
	// and the workers' weights are then averaged, weighted by shard size.
	// The averaged model is the average of every weight vector any worker
	// went through, as in the sequential averaged perceptron. Fit alone
	// uses it (a Learner is sequential); Voted refuses it, Batch ignores it
	// (its decisions already use all cores). 0 or 1 trains sequentially.
	// Results depend on Seed and Workers only, not on the machine's cores.
	Workers int
	// Warm, when not nil, starts training from that state instead of
	// zero weights: its weights and biases, and for the averaged
	// perceptron the weight vectors it has averaged so far, so that the
	// model averages them with those of the new epochs. Its classes are
	// the model's (every label must be one of them) and its Dim the
	// model's width (no row may be wider). Fit, FitDense, FitCache and
	// NewLearner take it; Voted, the SGD rules and InitScale refuse it. A
	// state of zero weights and no examples trains exactly as a cold
	// start. Training does not change the Mix.
	Warm *Mix
	// Scale, when not NoScale, makes Fit (and CrossValidate, per fold)
	// measure that scaling of the features on the training rows, learn
	// from the scaled rows and fold the scaling into the model, which
	// records it (Model.Scaling) and scores raw rows. It replaces
	// Normalize (set one) and is Fit's alone: FitDense, FitCache,
	// NewLearner, the voted perceptron and the kernel learners refuse it.
	Scale Scale
	// Scaling, when not nil, is the scaling Fit applies instead of
	// measuring one: a warm start's (Model.Warm), so that new rows are
	// scaled as the rows the model learned from. Scale is then ignored;
	// rows may not be wider than its features.
	Scaling *Scaling
}

// MaxWorkers caps Config.Workers: every worker holds its own copy of the
// weights.
const MaxWorkers = 256

// EpochStats reports one pass of training.
type EpochStats struct {
	// Epoch counts from 1.
	Epoch int
	// Mistakes counts the rows misclassified when visited, before their
	// update: the progressive validation error of the epoch. For Batch it
	// is the number of misclassified rows at the start of the step.
	Mistakes int
	// Updates counts the rows that changed the weights (mistakes and,
	// with Margin > 0, margin violations).
	Updates int
	// Loss is the mean perceptron loss max(0, −y·(w·x+b)) of the rows,
	// each measured before it was learned: the progressive validation loss
	// (for multiclass: max(0, best wrong score − true score)). For Batch,
	// Loss·Rows is the perceptron risk R(w) at the start of the step.
	Loss float64
	// Rows is the number of rows trained on in the epoch.
	Rows int
	// TrainLoss and TrainMistakes are the loss and mistakes of the model
	// at the end of the epoch over the training rows, when
	// Config.TrainLoss is set; otherwise TrainLoss is NaN and
	// TrainMistakes −1.
	TrainLoss     float64
	TrainMistakes int
	// ValidAccuracy is the held-out accuracy with Config.Validation, NaN
	// otherwise.
	ValidAccuracy float64
}

// settings is a Config with defaults filled in and checked.
type settings struct {
	Config
	eta       float32
	biasScale float32 // value of the constant feature; 0 with NoBias
	tau       float32
	epochs    int
	patience  int
	maxClass  int
	maxDim    int
	cAgg      float32 // C of PA1 and PA2
	lambda    float64 // λ of the SGD rules
	t0        float64 // their step offset
	spec      ruleSpec
}

// Check reports whether Fit, FitDense, FitCache and NewLearner accept c,
// before any data: nil, or an error wrapping ErrConfig that names the
// option. They call it first themselves; a caller that wants a bad option
// to fail before it reads data (a command line, a service validating a
// request) calls it too. A Warm state is checked too: its shape, its
// values (a weight that is not finite wraps ErrDiverged) and whether the
// algorithm can start from it.
func (c Config) Check() error {
	s, err := c.settle()
	if err == nil && c.Warm != nil {
		err = s.checkWarm(c.Warm)
	}
	return err
}

// settle checks c and fills in its defaults. The checks run in a fixed
// order, so that a Config with several bad options always names the same
// one: the ranges of the options, then the algorithm's, the rule's and
// the weights' refusals.
func (c Config) settle() (settings, error) {
	for _, check := range [...]func() error{c.checkRanges, c.checkAlgorithm, c.checkRule, c.checkWeights} {
		if err := check(); err != nil {
			return settings{}, err
		}
	}
	s := settings{Config: c}
	s.setLimits()
	s.setSteps()
	s.setRule()
	s.setBias()
	return s, nil
}

// badConfig is an error wrapping ErrConfig with a message of format.
func badConfig(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
}

// checkRanges refuses an option out of its range: an unknown algorithm or
// bias mode, a negative count, a step size, scale or margin that is not
// finite, past 1e30 or too small for float32.
func (c Config) checkRanges() error {
	switch {
	case c.Algorithm > Batch:
		return badConfig("unknown algorithm %d", c.Algorithm)
	case c.Bias > NoBias:
		return badConfig("unknown bias mode %d", c.Bias)
	case c.Epochs < 0:
		return badConfig("Epochs %d < 0", c.Epochs)
	case !(c.LearningRate >= 0) || c.LearningRate > 1e30:
		return badConfig("LearningRate %v", c.LearningRate)
	case !(c.BiasScale >= 0) || c.BiasScale > 1e15:
		return badConfig("BiasScale %v", c.BiasScale)
	case c.LearningRate > 0 && float32(c.LearningRate) == 0, c.BiasScale > 0 && float32(c.BiasScale*c.BiasScale) == 0:
		// The updates are made in float32: such a value would be 0 there
		// (and 0 means the default), and training would silently not move.
		return badConfig("LearningRate %v or BiasScale %v is too small for float32", c.LearningRate, c.BiasScale)
	case !(c.InitScale >= 0) || c.InitScale > 1e30:
		return badConfig("InitScale %v", c.InitScale)
	case !(c.Margin >= 0) || c.Margin > 1e30:
		return badConfig("Margin %v", c.Margin)
	case !(c.Validation >= 0 && c.Validation < 1):
		return badConfig("Validation %v is not in [0, 1)", c.Validation)
	case c.Patience < 0, c.MaxClasses < 0, c.MaxDim < 0, c.MemoryBudget < 0:
		return badConfig("negative Patience, MaxClasses, MaxDim or MemoryBudget")
	case c.Workers < 0 || c.Workers > MaxWorkers:
		return badConfig("Workers %d is not in [0, %d]", c.Workers, MaxWorkers)
	}
	return nil
}

// checkAlgorithm refuses what the algorithm cannot do: the voted
// perceptron learns sequentially from raw rows, and a scaling replaces
// Normalize.
func (c Config) checkAlgorithm() error {
	switch {
	case c.Normalize && c.Algorithm == Voted:
		return badConfig("the voted perceptron does not normalize rows")
	case c.Scale > MaxAbs:
		return badConfig("unknown scaling %d", c.Scale)
	case (c.Scale != NoScale || c.Scaling != nil) && (c.Normalize || c.Algorithm == Voted):
		return badConfig("Scale replaces Normalize, and the voted perceptron learns from raw rows: set one")
	case c.Workers > 1 && c.Algorithm == Voted:
		return badConfig("the voted perceptron cannot mix parameters (Workers %d); use Averaged", c.Workers)
	}
	return nil
}

// checkRule refuses an unknown rule, a C or Alpha out of range or given
// to a rule that does not take it (ruleSpec.takesC, Rule.SGD), and the
// perceptron's options given to a rule that sets its own steps.
func (c Config) checkRule() error {
	switch {
	case int(c.Rule) >= len(ruleNames):
		return badConfig("unknown rule %d", c.Rule)
	case !(c.C >= 0) || c.C > 1e30 || (c.C > 0 && c.C < 1e-30):
		// (Below that, PA-II's 1/(2C) leaves float32's range.)
		return badConfig("C %v", c.C)
	case !(c.Alpha >= 0) || c.Alpha > 1e30 || (c.Alpha > 0 && c.Alpha < 1e-30):
		return badConfig("Alpha %v", c.Alpha)
	case c.Rule != Perceptron && c.Algorithm != Averaged && c.Algorithm != Plain:
		return badConfig("rule %v needs Algorithm Averaged or Plain, not %v", c.Rule, c.Algorithm)
	case c.Rule != Perceptron && (c.LearningRate != 0 || c.Margin != 0 || c.InitScale != 0):
		return badConfig("rule %v sets its own steps and margin: LearningRate, Margin and InitScale must be 0", c.Rule)
	case c.Rule.SGD() && c.Workers > 1:
		return badConfig("rule %v trains sequentially (Workers %d); use PA1 to mix parameters", c.Rule, c.Workers)
	case c.C != 0 && !ruleSpecs[c.Rule].takesC:
		return badConfig("C is the parameter of rules PA1 and PA2, not %v", c.Rule)
	case c.Alpha != 0 && !c.Rule.SGD():
		return badConfig("Alpha is the parameter of rules pegasos, logistic and modified_huber, not %v", c.Rule)
	}
	return nil
}

// checkWeights refuses a class weight that is negative, not finite or
// past 1e30, and a given Scaling that is not one.
func (c Config) checkWeights() error {
	for k, v := range c.ClassWeight {
		if !(v >= 0) || v > 1e30 {
			return badConfig("ClassWeight[%v] = %v", k, v)
		}
	}
	if sc := c.Scaling; sc != nil {
		if err := sc.check(len(sc.Factor)); err != nil {
			return badConfig("Scaling: %v", err)
		}
	}
	return nil
}

// setLimits fills in the defaults of the counts and caps: the rule's
// epochs (Rule.DefaultEpochs), a patience of 5, 1024 classes, a width of
// 1<<27.
func (s *settings) setLimits() {
	s.epochs, s.patience, s.maxClass, s.maxDim = s.Epochs, s.Patience, s.MaxClasses, s.MaxDim
	if s.epochs == 0 {
		s.epochs = s.Rule.DefaultEpochs()
	}
	if s.patience == 0 {
		s.patience = 5
	}
	if s.maxClass == 0 {
		s.maxClass = 1024
	}
	if s.maxDim == 0 {
		s.maxDim = 1 << 27
	}
}

// setSteps fills in the perceptron's learning rate (1 by default) and
// margin, in float32, the precision of the updates.
func (s *settings) setSteps() {
	s.eta = float32(s.LearningRate)
	if s.LearningRate == 0 {
		s.eta = 1
	}
	s.tau = float32(s.Margin)
}

// setRule fills in the rule's parameters: PA's C (DefaultC by default),
// the SGD rules' λ (the rule's default) and step offset t0, and the
// rule's spec.
func (s *settings) setRule() {
	s.spec = ruleSpecs[s.Rule]
	s.cAgg = float32(s.C)
	if s.C == 0 {
		s.cAgg = DefaultC
	}
	s.lambda = s.Alpha
	if s.Alpha == 0 {
		s.lambda = DefaultAlpha
		if a := s.spec.alpha; a > 0 {
			s.lambda = a
		}
	}
	s.t0 = math.Pow(s.lambda, -0.75)
	if f := s.spec.t0Scale; f != 0 {
		s.t0 *= f
	}
}

// setBias fills in the value of the bias's constant feature: 1 for
// BiasSeparate, BiasScale (1 by default) for BiasAugmented, 0 for NoBias.
func (s *settings) setBias() {
	switch s.Bias {
	case BiasSeparate:
		s.biasScale = 1
	case BiasAugmented:
		s.biasScale = float32(s.BiasScale)
		if s.BiasScale == 0 {
			s.biasScale = 1
		}
	}
}

// scaled reports whether s asks Fit to scale the rows (Config.Scale or
// Config.Scaling).
func (s *settings) scaled() bool { return s.Scale != NoScale || s.Scaling != nil }

// fitOnly refuses a scaling for a learner other than Fit's.
func (s *settings) fitOnly(who string) error {
	if s.scaled() {
		return fmt.Errorf("%w: %s does not scale features (Scale, Scaling); use Fit", ErrConfig, who)
	}
	return nil
}

// converged reports whether an epoch left the learner where it was, so
// that further epochs would change nothing but the average: an epoch
// without updates. The SGD rules' weights shrink with every example,
// updated or not, so for them no epoch is the last.
func (s *settings) converged(es EpochStats) bool {
	return es.Updates == 0 && !s.Rule.SGD()
}
