package engine

import (
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// Model is a trained linear classifier. A binary model has one weight row
// and scores a row x as W·x + B[0], the class Classes[1] where that is
// > 0 and Classes[0] otherwise. A multiclass model has one weight row per
// class and predicts the class of the highest score W_k·x + B[k] (the
// first one on ties).
//
// Weights are stored feature-major: W[j*K+k] is the weight of feature j
// in row k, K = m.NumRows(); one cache line serves every class of a
// feature, which is what sparse multiclass scoring needs.
//
// Scores are float32. Where a row's float32 score is not finite (values
// and weights whose products pass float32's range, 1e20·1e20), it is
// summed again in float64, so the label is the exact score's and a score
// is ±Inf when beyond float32's range, never NaN.
//
// A Model is safe for concurrent use once trained: its methods only read
// it. Prediction methods allocate nothing.
type Model struct {
	// Algorithm, Rule and Bias record how the model was trained; BiasScale
	// is the value of the constant feature the bias multiplies (the margin
	// diagnostics and the voted replay use it); 0 means 1, as in Config.
	Algorithm Algorithm
	Rule      Rule
	Bias      BiasMode
	BiasScale float32
	// Normalize says the model was trained on rows scaled to unit
	// Euclidean norm (Config.Normalize), and so scales every row it
	// scores the same way: W·x/‖x‖ + B, where ‖x‖ counts every feature
	// of the row, those past Dim too. A row of norm 0 scores B.
	Normalize bool
	// Classes are the labels, in ascending order; at least two.
	Classes []float64
	// Dim is the number of features; rows may be wider, the features past
	// Dim weigh zero.
	Dim int
	// W holds Dim×K weights, feature-major (len(Cols)×K with Cols); B
	// the K biases.
	W []float32
	B []float32
	// Cols, when not nil, lists in increasing order the features that W
	// holds weights for: W[p*K+k] is the weight of feature Cols[p] in row
	// k, and every other feature weighs zero. Fit stores a model this way
	// when its rows use few of their columns (at most half, with the
	// dense weights past a few MiB), so that the model's memory and file
	// follow the features the data has, not the widest index. Weight
	// reads either layout.
	Cols []int32
	// pos maps a feature below Dim to its row of W, −1 if absent, for a
	// model with Cols whose Dim is not much larger than W; nil means a
	// binary search of Cols.
	pos []int32
	// Votes is set for Algorithm Voted, and then decides predictions; W
	// and B then hold the averaged weights, which come free with it.
	Votes *Votes
	// Scaling, when not nil, is the feature scaling the model was trained
	// with (Config.Scale), Dim features of it. W and B already include
	// it: the model scores raw rows, and Scaling is what Warm needs to
	// continue training in the learner's units.
	Scaling *Scaling
}

// Votes is the voted perceptron's record of training. Weight vector k is
// the start vector plus the first k steps; it votes with Steps[k−1].Count,
// the start vector with Count0. Keeping the steps instead of the vectors
// costs O(nnz of the rows mistaken) instead of O(k·Dim).
type Votes struct {
	// SV holds every row on which an update was made, once each.
	SV *sparse.CSR
	// Steps lists the updates in the order they were made.
	Steps []VoteStep
	// W0 and B0 are the start weights (layout as Model.W), nil when zero.
	W0, B0 []float32
	// Count0 is the number of examples the start vector survived.
	Count0 int64
}

// VoteStep is one update: weight row Up gains A·x and, for multiclass,
// row Down loses it (Down is −1 for binary models), where x is SV row
// Row augmented with the bias feature.
type VoteStep struct {
	Row      int32
	Up, Down int32
	A        float32
	// Count is the number of examples the vector made by this step
	// survived, the step's own example included.
	Count int64
}

// NumRows returns the number of weight rows: 1 for a binary model, the
// number of classes otherwise.
func (m *Model) NumRows() int {
	if len(m.Classes) == 2 {
		return 1
	}
	return len(m.Classes)
}

// Binary reports whether m has two classes.
func (m *Model) Binary() bool { return len(m.Classes) == 2 }

// ClassValues returns a copy of Classes, the labels m predicts, ascending.
func (m *Model) ClassValues() []float64 { return slices.Clone(m.Classes) }

// NumFeatures returns Dim, the number of features m weighs; rows may be
// wider, the features past it weigh zero.
func (m *Model) NumFeatures() int { return m.Dim }

// Weight returns the weight of feature j in row k (0 ≤ k < NumRows), 0
// for a feature outside [0, Dim).
func (m *Model) Weight(k, j int) float32 {
	if j < 0 || j >= m.Dim {
		return 0
	}
	if m.Cols != nil {
		p := m.col(int32(j))
		if p < 0 {
			return 0
		}
		j = p
	}
	return m.W[j*m.NumRows()+k]
}

// col returns the row of W that holds feature j of a model with Cols, or
// −1 when j has no weights.
func (m *Model) col(j int32) int {
	if j < 0 || int(j) >= m.Dim {
		return -1
	}
	if m.pos != nil {
		return int(m.pos[j])
	}
	p, ok := slices.BinarySearch(m.Cols, j)
	if !ok {
		return -1
	}
	return p
}

// index builds pos for a model with Cols when the table costs no more
// than the weights themselves (or 4 MiB).
func (m *Model) index() {
	m.pos = nil
	if m.Cols == nil || (m.Dim > len(m.W) && m.Dim > 1<<20) {
		return
	}
	pos := make([]int32, m.Dim)
	for i := range pos {
		pos[i] = -1
	}
	for p, j := range m.Cols {
		pos[j] = int32(p)
	}
	m.pos = pos
}

// Check verifies that m is internally consistent: what a model read from
// a file or built by hand must pass before it is used, and what Save,
// WriteTo and MarshalBinary check before they write anything. Among the
// rest, every weight and bias must be finite.
func (m *Model) Check() error {
	for _, check := range [...]func() error{m.checkClasses, m.checkCols, m.checkWeights, m.checkKinds, m.checkVotes} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkClasses checks that there are two classes or more, strictly
// ascending and finite.
func (m *Model) checkClasses() error {
	if len(m.Classes) < 2 {
		return modelErr("%d classes", len(m.Classes))
	}
	for i, c := range m.Classes {
		if i > 0 && !(c > m.Classes[i-1]) || math.IsNaN(c) {
			return modelErr("classes not strictly ascending at %d", i)
		}
	}
	for i, c := range m.Classes {
		if math.IsInf(c, 0) {
			return modelErr("class %d is not finite", i)
		}
	}
	return nil
}

// checkCols checks the columns of a model that lists them: not voted,
// not empty, strictly increasing below Dim, and the column index, when
// built, of Dim entries.
func (m *Model) checkCols() error {
	if m.Cols == nil {
		return nil
	}
	if m.Votes != nil {
		return modelErr("a voted model keeps all its columns")
	}
	if len(m.Cols) == 0 {
		return modelErr("an empty column list (a model with every column has Cols nil)")
	}
	for i, j := range m.Cols {
		if j < 0 || int(j) >= m.Dim || (i > 0 && j <= m.Cols[i-1]) {
			return modelErr("column %d (%d) is not increasing in [0, %d)", i, j, m.Dim)
		}
	}
	if m.pos != nil && len(m.pos) != m.Dim {
		return modelErr("column index of %d for dim %d", len(m.pos), m.Dim)
	}
	return nil
}

// checkWeights checks the lengths of the weights and biases, and that
// they are finite: a NaN or infinite weight would make every score NaN
// or ±Inf, though Decision promises neither for finite rows.
func (m *Model) checkWeights() error {
	k := m.NumRows()
	if n := m.stored(); m.Dim < 0 || int64(len(m.W)) != int64(n)*int64(k) || len(m.B) != k {
		return modelErr("%d weights and %d biases for %d features and %d rows", len(m.W), len(m.B), n, k)
	}
	if !finite32s(m.B) {
		return modelErr("a bias is not finite (%v)", m.B)
	}
	if !finite32s(m.W) {
		i := firstNonFinite(m.W)
		f := i / k
		if m.Cols != nil {
			f = int(m.Cols[f])
		}
		return modelErr("weight of feature %d in row %d is not finite", f, i%k)
	}
	return nil
}

// checkKinds checks the algorithm, bias mode and rule, that votes come
// with the voted algorithm alone, and what a voted, normalizing or
// scaled model cannot be at once; and the scaling.
func (m *Model) checkKinds() error {
	if m.Algorithm > Batch || m.Bias > NoBias || m.Rule > lastRule {
		return modelErr("unknown algorithm %d, bias mode %d or rule %d", m.Algorithm, m.Bias, m.Rule)
	}
	if m.Rule != Perceptron && m.Algorithm != Averaged && m.Algorithm != Plain {
		return modelErr("rule %v with algorithm %v", m.Rule, m.Algorithm)
	}
	if (m.Algorithm == Voted) != (m.Votes != nil) {
		return modelErr("votes present only and always for the voted algorithm")
	}
	if m.Normalize && m.Votes != nil {
		return modelErr("a voted model does not normalize rows")
	}
	if sc := m.Scaling; sc != nil {
		if m.Votes != nil || m.Normalize {
			return modelErr("a scaled model neither votes nor normalizes rows")
		}
		if err := sc.check(m.Dim); err != nil {
			return modelErr("%v", err)
		}
	}
	return nil
}

// checkVotes checks a voted model's record: its rows, no wider than the
// model, its start weights, of the model's shape and finite, and its
// steps.
func (m *Model) checkVotes() error {
	v := m.Votes
	if v == nil {
		return nil
	}
	if v.SV == nil {
		return modelErr("voted model without its rows")
	}
	if err := v.SV.Validate(); err != nil {
		return modelErr("voted rows: %v", err)
	}
	if v.SV.Cols > m.Dim {
		return modelErr("voted rows are %d wide, model %d", v.SV.Cols, m.Dim)
	}
	k := m.NumRows()
	if (v.W0 == nil) != (v.B0 == nil) || (v.W0 != nil && (len(v.W0) != len(m.W) || len(v.B0) != k)) {
		return modelErr("start weights do not match the model")
	}
	if !finite32s(v.W0) || !finite32s(v.B0) {
		return modelErr("a start weight is not finite")
	}
	return checkVoteSteps(v.Steps, v.SV.Rows, k)
}

// checkVoteSteps checks the steps of a voted model of K weight rows (or
// functions) whose votes record rows rows: every step's row, classes and
// count in range, and its A finite.
func checkVoteSteps(steps []VoteStep, rows, K int) error {
	for i, s := range steps {
		if s.Row < 0 || int(s.Row) >= rows || s.Up < 0 || int(s.Up) >= K ||
			s.Down < -1 || int(s.Down) >= K || (K == 1) != (s.Down == -1) || s.Count < 0 || !finite32s([]float32{s.A}) {
			return modelErr("vote step %d out of range or not finite", i)
		}
	}
	return nil
}

// stored is the number of features W holds weights for: Dim, or
// len(Cols).
func (m *Model) stored() int {
	if m.Cols != nil {
		return len(m.Cols)
	}
	return m.Dim
}

// dot returns W_0·x for a binary model, ignoring features outside
// [0, Dim).
func (m *Model) dot(x sparse.Vector) float32 {
	n := len(x.Ind)
	if n == 0 {
		return 0
	}
	if m.Cols != nil {
		var s float32
		for i, j := range x.Ind {
			if p := m.col(j); p >= 0 {
				s += x.Val[i] * m.W[p]
			}
		}
		return s
	}
	if len(x.Val) == n && inRange(x.Ind, m.Dim) {
		return asm.DotIndF32(x.Val, x.Ind, m.W)
	}
	var s float32
	for k, j := range x.Ind {
		if j >= 0 && int(j) < m.Dim {
			s += x.Val[k] * m.W[j]
		}
	}
	return s
}

// rowScale is what a model multiplies W·x by: invNorm(x) for a model
// that normalizes rows, else 1.
func (m *Model) rowScale(val []float32) float32 {
	if !m.Normalize {
		return 1
	}
	return invNorm(val)
}

// invNorm returns 1/‖v‖ as float32, or 0 when ‖v‖ is 0 (such a row has
// no direction; W·x is 0 for it anyway) or when 1/‖v‖ is past float32's
// range (‖v‖ below about 3e-39), which counts as no direction too. (W·x
// itself is float32: rows of values near float32's limit can overflow it
// before it is scaled, as without Normalize.) Training (Config.Normalize)
// and prediction share it, so that a model scores its training rows as it
// saw them.
func invNorm(v []float32) float32 {
	ss := sparse.SquaredNorm(v)
	sc := float32(1 / math.Sqrt(ss))
	if ss == 0 || math.IsInf(float64(sc), 1) {
		// No direction, or none float32 can scale to unit length.
		return 0
	}
	return sc
}

// scores sets out[k] = W_k·x + B[k] for every row k (W_k·x/‖x‖ + B[k]
// for a model that normalizes rows); out has NumRows elements.
func (m *Model) scores(x sparse.Vector, out []float32) {
	if m.Normalize {
		clear(out)
		m.addWX(x, out)
		sc := invNorm(x.Val)
		for k := range out {
			out[k] = out[k]*sc + m.B[k]
		}
	} else {
		copy(out, m.B)
		m.addWX(x, out)
	}
	for k, v := range out {
		if !finite32(v) {
			out[k] = m.exact(x, k)
		}
	}
}

// firstNonFinite returns the index of the first value of w that is NaN
// or infinite, or -1.
func firstNonFinite(w []float32) int {
	for i, v := range w {
		if !finite32(v) {
			return i
		}
	}
	return -1
}

// finite32 reports whether v is neither infinite nor NaN.
func finite32(v float32) bool { return v-v == 0 }

// exact returns the score of row k for x summed in float64: what scores
// falls back on when float32 overflowed. Finite weights and values can
// overflow float32 (1e20·1e20), and +Inf and −Inf terms then make NaN,
// which would decide the label by the order of comparisons. In float64
// no sum of float32 products overflows, so the sign, and with it the
// label, is right; the score is rounded back to float32, ±Inf when it is
// beyond float32's range, never NaN.
func (m *Model) exact(x sparse.Vector, k int) float32 {
	K := m.NumRows()
	var s float64
	for i, j := range x.Ind {
		p := int(j)
		if m.Cols != nil {
			p = m.col(j)
		}
		if p >= 0 && p < m.stored() {
			s += float64(m.W[p*K+k]) * float64(x.Val[i])
		}
	}
	if m.Normalize {
		s *= invNorm64(x.Val)
	}
	return float32(s + float64(m.B[k]))
}

// exactDense is exact for a dense row.
func (m *Model) exactDense(x []float32, k int) float32 {
	K := m.NumRows()
	var s float64
	if m.Cols != nil {
		for p, j := range m.Cols {
			if int(j) < len(x) {
				s += float64(m.W[p*K+k]) * float64(x[j])
			}
		}
	} else {
		for j, v := range x[:min(len(x), m.Dim)] {
			s += float64(m.W[j*K+k]) * float64(v)
		}
	}
	if m.Normalize {
		s *= invNorm64(x)
	}
	return float32(s + float64(m.B[k]))
}

// invNorm64 is invNorm's scale in float64, for exact.
func invNorm64(v []float32) float64 { return float64(invNorm(v)) }

// addWX adds W_k·x to out[k] for every row k, ignoring features outside
// [0, Dim).
func (m *Model) addWX(x sparse.Vector, out []float32) {
	if len(out) == 1 {
		out[0] += m.dot(x)
		return
	}
	if m.Cols != nil {
		K := len(out)
		for i, j := range x.Ind {
			if p := m.col(j); p >= 0 {
				v := x.Val[i]
				for k, w := range m.W[p*K : p*K+K] {
					out[k] += v * w
				}
			}
		}
		return
	}
	if inRange(x.Ind, m.Dim) && len(x.Val) == len(x.Ind) {
		addScores(m.W, x.Ind, x.Val, out)
		return
	}
	for k, j := range x.Ind {
		if j >= 0 && int(j) < m.Dim {
			addScores(m.W, x.Ind[k:k+1], x.Val[k:k+1], out)
		}
	}
}

// inRange reports whether every index lies in [0, dim): the kernels behind
// dot and addScores panic on any other, and a feature the model never saw
// must count for nothing instead. A long row in the order the sparse
// types keep (strictly increasing) is checked by its ends and a vector
// pass over its order; any other row by a loop over its indices.
func inRange(ind []int32, dim int) bool {
	if n := len(ind); n >= 32 && ind[0] >= 0 && int(ind[n-1]) < dim && asm.IncreasingI32(ind) {
		return true
	}
	for _, j := range ind {
		if uint64(uint32(j)) >= uint64(dim) {
			return false
		}
	}
	return true
}

// biasScale is a model's BiasScale with 0 read as 1, the default (a
// hand-built model or a JSON file may leave it out).
func biasScale(a float32) float32 {
	if a == 0 {
		return 1
	}
	return a
}

// argmax returns the index of the largest element, the first on ties.
// A NaN never wins over a number, wherever it stands.
func argmax(s []float32) int {
	best := 0
	for i, v := range s[1:] {
		if v > s[best] || (s[best] != s[best] && v == v) {
			best = i + 1
		}
	}
	return best
}

// maxStack is the number of classes whose scores fit on the stack.
const maxStack = 64

// Decision returns the score of x: W·x + B for a binary model (> 0 means
// Classes[1]); for a multiclass model the highest class score; for a
// voted binary model the vote, Σ ± counts over the total count, in
// [−1, 1].
func (m *Model) Decision(x sparse.Vector) float32 {
	mustVector("Model.Decision", x)
	if m.Binary() {
		if m.Votes != nil {
			return m.vote(x, nil)
		}
		var d float32
		if m.Normalize {
			d = m.dot(x)*invNorm(x.Val) + m.B[0]
		} else {
			d = m.dot(x) + m.B[0]
		}
		if !finite32(d) {
			d = m.exact(x, 0)
		}
		return d
	}
	var buf [maxStack]float32
	s, p := m.scratch(&buf)
	m.sparseScores(x, s)
	return maxScore(s, p)
}

// sparseScores fills s with the class scores (or vote shares) of x.
func (m *Model) sparseScores(x sparse.Vector, s []float32) {
	if m.Votes != nil {
		m.vote(x, s)
	} else {
		m.scores(x, s)
	}
}

// scratch returns a slice of NumRows scores: buf's start when it fits,
// otherwise one from a pool, returned as p for release. Either way
// predictions allocate nothing.
func (m *Model) scratch(buf *[maxStack]float32) (s []float32, p *[]float32) {
	K := m.NumRows()
	if K <= maxStack {
		return buf[:K], nil
	}
	p = scorePool.Get().(*[]float32)
	if cap(*p) < K {
		*p = make([]float32, K)
	}
	return (*p)[:K], p
}

// release returns pooled scratch from scratch.
func release(p *[]float32) {
	if p != nil {
		scorePool.Put(p)
	}
}

// sized returns dst holding n values: dst resliced, or a new slice when
// its capacity is less, as the methods that fill a dst "grown if needed"
// want.
func sized[T any](dst []T, n int) []T {
	if cap(dst) < n {
		return make([]T, n)
	}
	return dst[:n]
}

// binaryLabel returns the label of a binary model's decision d: the
// second of classes when d is positive, else the first.
func binaryLabel(classes []float64, d float32) float64 {
	if d > 0 {
		return classes[1]
	}
	return classes[0]
}

// maxScore returns the highest of the scores s (the one score of a binary
// model), and releases p, their pooled scratch if any.
func maxScore(s []float32, p *[]float32) float32 {
	v := s[argmax(s)]
	release(p)
	return v
}

// argmaxLabel returns the class of the highest of the scores s, and
// releases p, their pooled scratch if any.
func (m *Model) argmaxLabel(s []float32, p *[]float32) float64 {
	c := argmax(s)
	release(p)
	return m.Classes[c]
}

// Scores writes into dst (grown if needed) the score of every class for a
// multiclass model (vote shares for a voted one), or the one score of a
// binary model, and returns it.
func (m *Model) Scores(x sparse.Vector, dst []float32) []float32 {
	mustVector("Model.Scores", x)
	dst = sized(dst, m.NumRows())
	m.sparseScores(x, dst)
	return dst
}

// Predict returns the label m gives x.
func (m *Model) Predict(x sparse.Vector) float64 {
	mustVector("Model.Predict", x)
	if m.Binary() {
		return binaryLabel(m.Classes, m.Decision(x))
	}
	var buf [maxStack]float32
	s, p := m.scratch(&buf)
	m.sparseScores(x, s)
	return m.argmaxLabel(s, p)
}

// DecisionDense is Decision for a dense row; x may be shorter or longer
// than Dim (missing features are zero, extra ones ignored).
func (m *Model) DecisionDense(x []float32) float32 {
	if m.Votes == nil && m.Binary() && m.Cols == nil {
		n := min(len(x), m.Dim)
		d := asm.DotF32(x[:n], m.W[:n])*m.rowScale(x) + m.B[0]
		if !finite32(d) {
			d = m.exactDense(x, 0)
		}
		return d
	}
	var buf [maxStack]float32
	s, p := m.scratch(&buf)
	m.scoresDense(x, s)
	return maxScore(s, p)
}

// PredictDense is Predict for a dense row.
func (m *Model) PredictDense(x []float32) float64 {
	if m.Binary() {
		return binaryLabel(m.Classes, m.DecisionDense(x))
	}
	var buf [maxStack]float32
	s, p := m.scratch(&buf)
	m.scoresDense(x, s)
	return m.argmaxLabel(s, p)
}

// scoresDense fills s (NumRows long) for a dense row.
func (m *Model) scoresDense(x []float32, s []float32) {
	if m.Votes != nil {
		sc := m.getScratch()
		n := min(len(x), m.Dim)
		copy(sc.buf, x[:n])
		m.voteDense(sc, s)
		clear(sc.buf[:n])
		m.putScratch(sc)
		return
	}
	K := len(s)
	// Without normalization the scores start from the biases, as they
	// always have (the sums round in that order); with it from zero, to
	// be scaled before the biases are added.
	if m.Normalize {
		clear(s)
	} else {
		copy(s, m.B)
	}
	n := min(len(x), m.Dim)
	if m.Cols != nil {
		for p, j := range m.Cols {
			if int(j) >= len(x) {
				break
			}
			if v := x[j]; v != 0 {
				for c, w := range m.W[p*K : p*K+K] {
					s[c] += v * w
				}
			}
		}
	} else if K == 1 {
		s[0] += asm.DotF32(x[:n], m.W[:n])
	} else {
		for j, v := range x[:n] {
			if v == 0 {
				continue
			}
			row := m.W[j*K : j*K+K]
			for c, w := range row {
				s[c] += v * w
			}
		}
	}
	if m.Normalize {
		sc := invNorm(x)
		for c := range s {
			s[c] = s[c]*sc + m.B[c]
		}
	}
	for c, v := range s {
		if !finite32(v) {
			s[c] = m.exactDense(x, c)
		}
	}
}

var scorePool = sync.Pool{New: func() any { return new([]float32) }}

// voteScratch is the working memory of one voted prediction.
type voteScratch struct {
	buf  []float32 // x scattered densely, Dim long
	dots []float32 // SV·x
	s    []float32 // running scores
	v    []float64 // votes per row
}

func (m *Model) getScratch() *voteScratch {
	p, _ := votePool.Get().(*voteScratch)
	if p == nil {
		p = new(voteScratch)
	}
	K := m.NumRows()
	if len(p.buf) < m.Dim {
		p.buf = make([]float32, m.Dim)
	}
	if len(p.dots) < m.Votes.SV.Rows {
		p.dots = make([]float32, m.Votes.SV.Rows)
	}
	if len(p.s) < K {
		p.s = make([]float32, K)
		p.v = make([]float64, K)
	}
	return p
}

func (m *Model) putScratch(p *voteScratch) { votePool.Put(p) }

// votePool holds scratch for voted predictions. A pool shared by all
// models reuses buffers that are large enough and grows small ones.
var votePool sync.Pool

// vote computes the voted prediction of x. For a binary model it returns
// the vote in [−1, 1] and, if out is not nil, stores it in out[0]; for a
// multiclass model it stores every class's share of the votes in out.
func (m *Model) vote(x sparse.Vector, out []float32) float32 {
	sc := m.getScratch()
	for k, j := range x.Ind {
		if j >= 0 && int(j) < m.Dim {
			sc.buf[j] = x.Val[k]
		}
	}
	r := m.voteDense(sc, out)
	for _, j := range x.Ind {
		if j >= 0 && int(j) < m.Dim {
			sc.buf[j] = 0
		}
	}
	m.putScratch(sc)
	return r
}

// voteDense runs the vote with x already scattered in sc.buf.
func (m *Model) voteDense(sc *voteScratch, out []float32) float32 {
	v := m.Votes
	K := m.NumRows()
	sv := v.SV
	dots := sc.dots[:sv.Rows]
	if sv.Rows > 0 {
		asm.DotRowsF32(sv.Indptr, sv.Ind, sv.Val, sc.buf[:sv.Cols], dots)
	}
	s := sc.s[:K]
	clear(s)
	if v.W0 != nil {
		copy(s, v.B0)
		for j := 0; j < m.Dim; j++ {
			if xj := sc.buf[j]; xj != 0 {
				for c := 0; c < K; c++ {
					s[c] += xj * v.W0[j*K+c]
				}
			}
		}
	}
	a := biasScale(m.BiasScale)
	bb := a * a
	if m.Bias == NoBias {
		bb = 0
	}
	return runVote(v, bb, dots, s, sc.v[:K], out)
}

// runVote replays the steps of v from the start scores s (K of them),
// with dots[r] the inner product (or kernel value) of the row voted on
// with SV row r and bb the bias feature's square. See vote for what it
// returns.
func runVote(v *Votes, bb float32, dots, s []float32, votes []float64, out []float32) float32 {
	K := len(s)
	if K == 1 {
		var total, sum float64
		sgn := func(f float32) float64 {
			if f > 0 {
				return 1
			}
			return -1
		}
		total, sum = float64(v.Count0), float64(v.Count0)*sgn(s[0])
		acc := s[0]
		for _, st := range v.Steps {
			acc += st.A * (dots[st.Row] + bb)
			total += float64(st.Count)
			sum += float64(st.Count) * sgn(acc)
		}
		r := float32(0)
		if total > 0 {
			r = float32(sum / total)
		}
		if out != nil {
			out[0] = r
		}
		return r
	}
	clear(votes)
	best := argmax(s)
	votes[best] += float64(v.Count0)
	total := float64(v.Count0)
	for _, st := range v.Steps {
		d := st.A * (dots[st.Row] + bb)
		s[st.Up] += d
		s[st.Down] -= d
		// One row rose and one fell (which is which depends on the sign
		// of d, as x may point away from the mistaken row). If the one
		// that fell led, look again; otherwise only the risen one can
		// take the lead.
		up, down := int(st.Up), int(st.Down)
		if d < 0 {
			up, down = down, up
		}
		switch {
		case down == best:
			best = argmax(s)
		case s[up] > s[best] || (s[up] == s[best] && up < best):
			best = up
		}
		votes[best] += float64(st.Count)
		total += float64(st.Count)
	}
	for c := range out {
		out[c] = 0
		if total > 0 {
			out[c] = float32(votes[c] / total)
		}
	}
	return 0
}

// PredictBatch writes the label of every row of X into dst (grown if
// needed) and returns it. Rows are split among GOMAXPROCS goroutines. X
// must be valid (sparse.CSR.Validate), as the readers make it.
func (m *Model) PredictBatch(X *sparse.CSR, dst []float64) []float64 {
	dst = rowsOut("Model.PredictBatch", X, 1, dst)
	if m.Binary() && m.Votes == nil && m.Cols == nil && X.Cols <= m.Dim {
		parallelRows(X.Rows, func(lo, hi int) {
			// Decisions in stack-sized blocks, turned into labels.
			var buf [256]float32
			for a := lo; a < hi; a += len(buf) {
				b := min(hi, a+len(buf))
				dec := buf[:b-a]
				m.binaryBlock(X, a, b, dec)
				for i, s := range dec {
					dst[a+i] = binaryLabel(m.Classes, s)
				}
			}
		})
		return dst
	}
	parallelRows(X.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = m.Predict(X.Row(i))
		}
	})
	return dst
}

// binaryBlock sets out to W·x + B for rows [lo, hi) of X with one DotRows
// call; the model is binary and not voted, and X no wider than Dim.
func (m *Model) binaryBlock(X *sparse.CSR, lo, hi int, out []float32) {
	asm.DotRowsF32(X.Indptr[lo:hi+1], X.Ind, X.Val, m.W, out)
	b := m.B[0]
	if m.Normalize {
		for i := range out {
			r := lo + i
			out[i] = out[i]*invNorm(X.Val[X.Indptr[r]:X.Indptr[r+1]]) + b
		}
	} else {
		for i := range out {
			out[i] += b
		}
	}
	for i, v := range out {
		if !finite32(v) {
			out[i] = m.exact(X.Row(lo+i), 0)
		}
	}
}

// DecisionBatch writes Decision of every row of X into dst (grown if
// needed) and returns it, on GOMAXPROCS goroutines. Binary models use the
// DotRows kernel, one call per block of rows. X must be valid, as for
// PredictBatch.
func (m *Model) DecisionBatch(X *sparse.CSR, dst []float32) []float32 {
	dst = rowsOut("Model.DecisionBatch", X, 1, dst)
	fast := m.Binary() && m.Votes == nil && m.Cols == nil && X.Cols <= m.Dim
	parallelRows(X.Rows, func(lo, hi int) {
		if fast {
			m.binaryBlock(X, lo, hi, dst[lo:hi])
			return
		}
		for i := lo; i < hi; i++ {
			dst[i] = m.Decision(X.Row(i))
		}
	})
	return dst
}

// ScoresBatch writes Scores of every row of X into dst (grown if needed),
// NumRows values a row, row after row, and returns it, on GOMAXPROCS
// goroutines. X must be valid, as for PredictBatch.
func (m *Model) ScoresBatch(X *sparse.CSR, dst []float32) []float32 {
	K := m.NumRows()
	dst = rowsOut("Model.ScoresBatch", X, K, dst)
	parallelRows(X.Rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			m.Scores(X.Row(i), dst[i*K:(i+1)*K:(i+1)*K])
		}
	})
	return dst
}

// parallelRows runs f over [0, n) in contiguous blocks on up to
// GOMAXPROCS goroutines, inline when the work is small.
func parallelRows(n int, f func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if p > n/256 {
		p = max(1, n/256)
	}
	if p == 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for t := 0; t < p; t++ {
		lo, hi := n*t/p, n*(t+1)/p
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}
