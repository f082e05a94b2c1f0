package engine

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// KernelModel is a trained kernel perceptron: support vectors, their
// coefficients, the kernel and the bias. A binary model scores x as
// f(x) = Σ_j Coef[j]·K(SV_j, x) + B[0] and predicts Classes[1] where
// f(x) > 0; a multiclass model has one such function per class and
// predicts the class of the highest (the first on ties). Prediction
// touches only the support vectors.
//
// A KernelModel is safe for concurrent use once built. Its prediction
// methods allocate nothing with the built-in kernels (scratch comes from a
// pool); do not modify its fields after the first prediction. A model
// from FitKernel or a model file always passes Check; predicting with a
// hand-built one that does not may panic, like a slice index.
type KernelModel struct {
	// Kernel is the kernel function.
	Kernel kernels.Kernel
	// Algorithm, Rule and Bias record how the model was trained;
	// BiasScale is the constant feature's value (unused with NoBias; 0
	// means 1, as in KernelConfig).
	Algorithm Algorithm
	Rule      Rule
	Bias      BiasMode
	BiasScale float32
	// Classes are the labels, ascending; at least two.
	Classes []float64
	// Dim is the width of the training rows.
	Dim int
	// SV holds the support vectors, one per row.
	SV *sparse.CSR
	// Coef holds SV.Rows × K coefficients, row-major (K = NumRows()): the
	// signed weight of each support vector in each class's function; B
	// the K biases.
	Coef []float32
	B    []float32
	// Votes is set for the voted kernel perceptron and then decides
	// predictions (Votes.SV is SV); Coef and B then hold the averaged
	// coefficients.
	Votes *Votes

	once sync.Once
	prep *kprep
}

// kprep is what prediction derives from the model once.
type kprep struct {
	data  *kernels.Data
	width int       // features the support vectors use
	coefT []float32 // K × nsv, class-major
	bb    float32
	pool  sync.Pool // *kscratch
}

type kscratch struct {
	buf []float32 // kprep.width zeros
	kv  []float32 // one kernel value per support vector
	s   []float32
	v   []float64
}

// NumRows returns the number of functions: 1 for binary, else the number
// of classes.
func (m *KernelModel) NumRows() int {
	if len(m.Classes) == 2 {
		return 1
	}
	return len(m.Classes)
}

// NumSV returns the number of support vectors.
func (m *KernelModel) NumSV() int {
	if m.SV == nil {
		return 0
	}
	return m.SV.Rows
}

// Binary reports whether the model has two classes.
func (m *KernelModel) Binary() bool { return len(m.Classes) == 2 }

// ClassValues returns a copy of Classes, the labels m predicts, ascending.
func (m *KernelModel) ClassValues() []float64 { return slices.Clone(m.Classes) }

// NumFeatures returns Dim, the width of the training rows; features past
// it meet no support vector.
func (m *KernelModel) NumFeatures() int { return m.Dim }

// Check reports whether the model's fields are consistent, with an error
// wrapping ErrFormat if not.
func (m *KernelModel) Check() error {
	bad := func(f string, a ...any) error { return fmt.Errorf("%w: "+f, append([]any{ErrFormat}, a...)...) }
	if len(m.Classes) < 2 {
		return bad("%d classes", len(m.Classes))
	}
	for i, c := range m.Classes {
		if math.IsNaN(c) || math.IsInf(c, 0) || (i > 0 && !(c > m.Classes[i-1])) {
			return bad("classes not finite and ascending")
		}
	}
	if err := kernels.Check(m.Kernel); err != nil {
		return bad("%v", err)
	}
	if m.SV == nil || m.Dim < 0 || m.SV.Cols != m.Dim {
		return bad("support vectors missing or of width other than Dim %d", m.Dim)
	}
	if err := m.SV.Validate(); err != nil {
		return bad("support vectors: %v", err)
	}
	K := m.NumRows()
	if len(m.Coef) != m.SV.Rows*K || len(m.B) != K {
		return bad("%d coefficients and %d biases for %d support vectors and %d functions", len(m.Coef), len(m.B), m.SV.Rows, K)
	}
	if !finite32s(m.Coef) || !finite32s(m.B) {
		return bad("coefficients not finite")
	}
	if !finite32s([]float32{m.BiasScale}) {
		return bad("bias scale %v not finite", m.BiasScale)
	}
	if m.Algorithm > Voted || m.Bias > NoBias || m.Rule > PA2 {
		return bad("algorithm %v, bias mode %v or rule %v has no kernel model", m.Algorithm, m.Bias, m.Rule)
	}
	if m.Rule != Perceptron && m.Algorithm == Voted {
		return bad("rule %v with algorithm %v", m.Rule, m.Algorithm)
	}
	if (m.Votes != nil) != (m.Algorithm == Voted) {
		return bad("votes present only and always for the voted algorithm")
	}
	if v := m.Votes; v != nil {
		if err := checkVoteSteps(v.Steps, m.SV.Rows, K); err != nil {
			return err
		}
		switch {
		case v.Count0 < 0:
			return bad("negative vote count %d of the start vector", v.Count0)
		case v.SV != nil && v.SV != m.SV:
			return bad("the votes' rows are not the model's support vectors (Votes.SV must be SV or nil)")
		case v.W0 != nil || v.B0 != nil:
			return bad("a kernel model's votes start from zero (W0 and B0 must be nil)")
		}
	}
	return nil
}

func (m *KernelModel) prepared() *kprep {
	m.once.Do(func() {
		K, n := m.NumRows(), m.NumSV()
		p := &kprep{coefT: make([]float32, K*n)}
		if m.SV != nil {
			// The scratch a prediction scatters x into spans the support
			// vectors' features only, not Dim: a wide sparse model (or a
			// file claiming a huge Dim) costs no more per prediction than
			// its support vectors. Features past them count in ‖x‖² only.
			sv := *m.SV
			sv.Cols = 0
			if len(sv.Indptr) <= sv.Rows || len(sv.Ind) < int(sv.Indptr[sv.Rows]) {
				panic(fmt.Sprintf("engine: KernelModel.SV is not a valid CSR (%d row pointers for %d rows); see Check", len(sv.Indptr), sv.Rows))
			}
			if nnz := sv.Indptr[sv.Rows]; nnz > 0 {
				for _, j := range sv.Ind[sv.Indptr[0]:nnz] {
					sv.Cols = max(sv.Cols, int(j)+1)
				}
			}
			p.width = sv.Cols
			p.data = kernels.NewData(&sv)
		}
		for j := range n {
			for k := range K {
				p.coefT[k*n+j] = m.Coef[j*K+k]
			}
		}
		if m.Bias != NoBias {
			a := biasScale(m.BiasScale)
			p.bb = a * a
		}
		m.prep = p
	})
	return m.prep
}

func (m *KernelModel) scratch(p *kprep) *kscratch {
	sc, _ := p.pool.Get().(*kscratch)
	if sc == nil {
		K := m.NumRows()
		sc = &kscratch{buf: make([]float32, p.width), kv: make([]float32, m.NumSV()), s: make([]float32, K), v: make([]float64, K)}
	}
	return sc
}

// fromKV turns the kernel values sc.kv into the K scores in sc.s (or the
// vote shares, for a voted model) and returns the binary decision.
func (m *KernelModel) fromKV(p *kprep, sc *kscratch) float32 {
	K, n := m.NumRows(), m.NumSV()
	s := sc.s
	if m.Votes != nil {
		clear(s)
		return runVote(m.Votes, p.bb, sc.kv, s, sc.v, s)
	}
	for k := range K {
		s[k] = m.B[k]
		if n > 0 {
			s[k] += asm.DotF32(sc.kv, p.coefT[k*n:(k+1)*n])
		}
	}
	return s[0]
}

// evalSparse returns the prepared model and pooled scratch holding the
// kernel values of x with every support vector; put sc back when done.
func (m *KernelModel) evalSparse(x sparse.Vector) (*kprep, *kscratch) {
	p := m.prepared()
	sc := m.scratch(p)
	if m.NumSV() > 0 {
		p.data.EvalSparse(m.Kernel, x, sc.kv, sc.buf)
	}
	return p, sc
}

// evalDense is evalSparse for a dense row.
func (m *KernelModel) evalDense(x []float32) (*kprep, *kscratch) {
	p := m.prepared()
	sc := m.scratch(p)
	if m.NumSV() > 0 {
		p.data.EvalDense(m.Kernel, x, sc.kv, sc.buf)
	}
	return p, sc
}

// Decision returns f(x) for a binary model (for a voted one, the vote in
// [−1, 1]) and the highest class score for a multiclass one.
func (m *KernelModel) Decision(x sparse.Vector) float32 {
	mustVector("KernelModel.Decision", x)
	p, sc := m.evalSparse(x)
	return kernelRow(m, p, sc, (*KernelModel).decide)
}

// kernelRow returns f of one row's kernel values in sc and hands sc back to
// its pool.
func kernelRow[T float32 | float64](m *KernelModel, p *kprep, sc *kscratch, f func(*KernelModel, *kprep, *kscratch) T) T {
	r := f(m, p, sc)
	p.pool.Put(sc)
	return r
}

func (m *KernelModel) decide(p *kprep, sc *kscratch) float32 {
	r := m.fromKV(p, sc)
	if !m.Binary() {
		r = sc.s[argmax(sc.s)]
	}
	return r
}

// Scores writes the K function values of x (vote shares for a voted
// model) into dst, grown if needed, and returns it.
func (m *KernelModel) Scores(x sparse.Vector, dst []float32) []float32 {
	mustVector("KernelModel.Scores", x)
	p, sc := m.evalSparse(x)
	m.fromKV(p, sc)
	dst = append(dst[:0], sc.s...)
	p.pool.Put(sc)
	return dst
}

// Predict returns the label m gives x.
func (m *KernelModel) Predict(x sparse.Vector) float64 {
	mustVector("KernelModel.Predict", x)
	p, sc := m.evalSparse(x)
	return kernelRow(m, p, sc, (*KernelModel).label)
}

func (m *KernelModel) label(p *kprep, sc *kscratch) float64 {
	d := m.fromKV(p, sc)
	if m.Binary() {
		return binaryLabel(m.Classes, d)
	}
	return m.Classes[argmax(sc.s)]
}

// PredictDense is Predict for a dense row, which may be shorter or longer
// than Dim (missing features are zero; extra ones count in ‖x‖²).
func (m *KernelModel) PredictDense(x []float32) float64 {
	p, sc := m.evalDense(x)
	return kernelRow(m, p, sc, (*KernelModel).label)
}

// DecisionDense is Decision for a dense row.
func (m *KernelModel) DecisionDense(x []float32) float32 {
	p, sc := m.evalDense(x)
	return kernelRow(m, p, sc, (*KernelModel).decide)
}

// kblock is the number of rows PredictBatch computes kernel blocks for at
// once.
const kblock = 64

// PredictBatch writes the label of every row of X into dst (grown if
// needed) and returns it. The kernel values come in blocks of rows × all
// support vectors, computed as matrix products, on all cores.
func (m *KernelModel) PredictBatch(X *sparse.CSR, dst []float64) []float64 {
	dst = rowsOut("KernelModel.PredictBatch", X, 1, dst)
	m.batch(X, func(p *kprep, sc *kscratch, i int) { dst[i] = m.label(p, sc) })
	return dst
}

// DecisionBatch writes Decision of every row of X into dst (grown if
// needed) and returns it. Its kernel values come from matrix products, so
// they may differ from Decision's in the last bits (and a score that
// cancels to near zero may then change sign); PredictBatch likewise.
func (m *KernelModel) DecisionBatch(X *sparse.CSR, dst []float32) []float32 {
	dst = rowsOut("KernelModel.DecisionBatch", X, 1, dst)
	m.batch(X, func(p *kprep, sc *kscratch, i int) { dst[i] = m.decide(p, sc) })
	return dst
}

// ScoresBatch writes Scores of every row of X into dst (grown if needed),
// NumRows values a row, row after row, and returns it. Its kernel values
// come from matrix products, as DecisionBatch's do.
func (m *KernelModel) ScoresBatch(X *sparse.CSR, dst []float32) []float32 {
	K := m.NumRows()
	dst = rowsOut("KernelModel.ScoresBatch", X, K, dst)
	m.batch(X, func(p *kprep, sc *kscratch, i int) {
		m.fromKV(p, sc)
		copy(dst[i*K:(i+1)*K], sc.s)
	})
	return dst
}

func (m *KernelModel) batch(X *sparse.CSR, f func(p *kprep, sc *kscratch, i int)) {
	p := m.prepared()
	nsv := m.NumSV()
	data := kernels.NewData(X)
	nb := (X.Rows + kblock - 1) / kblock
	workers := min(runtime.GOMAXPROCS(0), nb)
	var next sync.Mutex
	blk := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := m.scratch(p)
			own := sc.kv
			defer func() { sc.kv = own; p.pool.Put(sc) }()
			kv := make([]float32, kblock*nsv)
			for {
				next.Lock()
				b := blk
				blk++
				next.Unlock()
				if b >= nb {
					return
				}
				lo, hi := b*kblock, min((b+1)*kblock, X.Rows)
				if nsv > 0 {
					kernels.Block(m.Kernel, data, lo, hi, p.data, 0, nsv, kv, nsv)
				}
				for i := lo; i < hi; i++ {
					sc.kv = kv[(i-lo)*nsv : (i-lo+1)*nsv]
					f(p, sc, i)
				}
			}
		}()
	}
	wg.Wait()
}
