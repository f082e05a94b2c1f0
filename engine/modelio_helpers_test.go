package engine

// Fixtures the model file tests share: models of both kinds built by hand
// or trained, comparisons bit for bit, encoders, header builders, and
// readers and writers that fail or hide their size.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
	"github.com/hyperplane-ml/hyperplane/sparse"
)

// mioFloats returns n float32s drawn from rng, mixing ordinary values
// with the awkward ones: ±0, subnormals and the extremes, and when special
// is set more of the extremes (a model's weights are finite: Check
// refuses NaNs and infinities, which TestModelNonFinite covers).
func mioFloats(rng *rand.Rand, n int, special bool) []float32 {
	s := make([]float32, n)
	for i := range s {
		var x float32
		switch r := rng.IntN(12); {
		case r == 0:
			x = float32(math.Copysign(0, -1))
		case r == 1:
			x = 0
		case r == 2:
			x = math.Float32frombits(rng.Uint32N(0x7fffff) + 1) // subnormal
		case r == 3:
			x = -math.Float32frombits(1) // smallest subnormal
		case r == 4:
			x = math.MaxFloat32
		case r == 5:
			x = -math.SmallestNonzeroFloat32 * (1 << 23) // smallest normal
		case r == 6 && special:
			x = -math.MaxFloat32
		case r == 7 && special:
			x = math.Float32frombits(0x7fffff) // largest subnormal
		default:
			x = float32(rng.NormFloat64() * 3)
		}
		s[i] = x
	}
	return s
}

// mioModel builds a valid model by hand: nc classes, dim features, the
// voted record (with start weights if start) for Voted, and more of the
// extreme values among the weights if special.
func mioModel(seed uint64, alg Algorithm, nc, dim int, start, special bool) *Model {
	rng := rand.New(rand.NewPCG(seed, 7))
	classes := make([]float64, nc)
	for i := range classes {
		classes[i] = float64(i) - 1
	}
	if nc == 2 {
		classes[0] = -1
		classes[1] = 1
	}
	m := &Model{
		Algorithm: alg,
		Bias:      BiasMode(rng.IntN(3)),
		BiasScale: float32(rng.Float64() * 2),
		Classes:   classes,
		Dim:       dim,
	}
	K := m.NumRows()
	m.W = mioFloats(rng, dim*K, special)
	m.B = mioFloats(rng, K, special)
	if alg != Voted {
		return m
	}
	v := &Votes{Count0: rng.Int64N(100)}
	if start {
		v.W0 = mioFloats(rng, dim*K, special)
		v.B0 = mioFloats(rng, K, special)
	}
	cols := dim
	if dim > 2 {
		cols = dim - 1
	}
	b := sparse.NewBuilder(cols)
	for i := 0; i < 5; i++ {
		var ind []int32
		for j := 0; j < cols; j++ {
			if rng.IntN(3) == 0 {
				ind = append(ind, int32(j))
			}
		}
		val := mioFloats(rng, len(ind), false)
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
	}
	v.SV = b.Build()
	v.SV.Cols = cols
	for i := 0; i < 9; i++ {
		s := VoteStep{Row: int32(rng.IntN(v.SV.Rows)), Down: -1, A: float32(rng.NormFloat64()), Count: rng.Int64N(1000)}
		if K > 1 {
			s.Up = int32(rng.IntN(K))
			s.Down = int32((int(s.Up) + 1 + rng.IntN(K-1)) % K)
		}
		v.Steps = append(v.Steps, s)
	}
	m.Votes = v
	if err := m.Check(); err != nil {
		panic(err)
	}
	return m
}

type mioCase struct {
	name string
	m    *Model
}

// mioCases returns the models the round-trip tests use; special puts
// NaNs and infinities among their weights.
func mioCases(special bool) []mioCase {
	return []mioCase{
		{"binary", mioModel(1, Averaged, 2, 9, false, special)},
		{"binary-dim0", mioModel(2, Plain, 2, 0, false, special)},
		{"multiclass3", mioModel(3, Averaged, 3, 7, false, special)},
		{"multiclass70", mioModel(4, Batch, 70, 33, false, special)},
		{"voted-binary", mioModel(5, Voted, 2, 6, false, special)},
		{"voted-binary-start", mioModel(6, Voted, 2, 6, true, special)},
		{"voted-multiclass", mioModel(7, Voted, 4, 5, false, special)},
		{"voted-multiclass-start", mioModel(8, Voted, 3, 8, true, special)},
		{"voted-dim0-start", mioModel(9, Voted, 3, 0, true, special)},
	}
}

// mioSmall is the small voted multiclass model whose encoding the
// truncation, bit-flip and golden-file tests use.
func mioSmall() *Model { return mioModel(42, Voted, 3, 3, true, true) }

func mioSameF32(a, b []float32) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// mioSame reports how got differs from want, bit for bit, or "".
func mioSame(got, want *Model) string {
	switch {
	case got.Algorithm != want.Algorithm || got.Bias != want.Bias:
		return fmt.Sprintf("algorithm %v/%v, want %v/%v", got.Algorithm, got.Bias, want.Algorithm, want.Bias)
	case math.Float32bits(got.BiasScale) != math.Float32bits(want.BiasScale):
		return fmt.Sprintf("bias scale %v, want %v", got.BiasScale, want.BiasScale)
	case got.Dim != want.Dim:
		return fmt.Sprintf("dim %d, want %d", got.Dim, want.Dim)
	case len(got.Classes) != len(want.Classes):
		return fmt.Sprintf("classes %v, want %v", got.Classes, want.Classes)
	case !mioSameF32(got.W, want.W):
		return "weights differ"
	case !mioSameF32(got.B, want.B):
		return "biases differ"
	case (got.Votes == nil) != (want.Votes == nil):
		return "votes present in one only"
	}
	for i := range got.Classes {
		if math.Float64bits(got.Classes[i]) != math.Float64bits(want.Classes[i]) {
			return fmt.Sprintf("classes %v, want %v", got.Classes, want.Classes)
		}
	}
	g, w := got.Votes, want.Votes
	if g == nil {
		return ""
	}
	switch {
	case g.Count0 != w.Count0:
		return fmt.Sprintf("count0 %d, want %d", g.Count0, w.Count0)
	case !mioSameF32(g.W0, w.W0) || !mioSameF32(g.B0, w.B0):
		return "start weights differ"
	case g.SV.Rows != w.SV.Rows || g.SV.Cols != w.SV.Cols:
		return fmt.Sprintf("voted rows %d×%d, want %d×%d", g.SV.Rows, g.SV.Cols, w.SV.Rows, w.SV.Cols)
	case fmt.Sprint(g.SV.Indptr) != fmt.Sprint(w.SV.Indptr) || fmt.Sprint(g.SV.Ind) != fmt.Sprint(w.SV.Ind):
		return "voted row structure differs"
	case len(g.SV.Val) != len(w.SV.Val) || (len(g.SV.Val) > 0 && !mioSameF32(g.SV.Val, w.SV.Val)):
		return "voted row values differ"
	case len(g.Steps) != len(w.Steps):
		return fmt.Sprintf("%d steps, want %d", len(g.Steps), len(w.Steps))
	}
	for i := range g.Steps {
		a, b := g.Steps[i], w.Steps[i]
		if a.Row != b.Row || a.Up != b.Up || a.Down != b.Down || a.Count != b.Count ||
			math.Float32bits(a.A) != math.Float32bits(b.A) {
			return fmt.Sprintf("step %d is %+v, want %+v", i, a, b)
		}
	}
	return ""
}

// mioOnlyReader hides every method but Read, so the reader cannot learn
// the input's size.
type mioOnlyReader struct{ r io.Reader }

func (o mioOnlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// mioFixCRC returns b with its last 4 bytes replaced by the checksum of
// the rest.
func mioFixCRC(b []byte) []byte {
	b = bytes.Clone(b)
	if len(b) >= 4 {
		n := len(b) - 4
		binary.LittleEndian.PutUint32(b[n:], crc32.Checksum(b[:n], crc32.MakeTable(crc32.Castagnoli)))
	}
	return b
}

func mioEncode(t testing.TB, m *Model) []byte {
	t.Helper()
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type mioFailWriter struct{ n int }

func (w *mioFailWriter) Write(p []byte) (int, error) {
	if w.n < len(p) {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

// mioHeader returns a header with the given fields.
func mioHeader(version, flags uint16, alg, bias byte, nc, K uint32, dim uint64) []byte {
	b := []byte(modelMagic)
	b = binary.LittleEndian.AppendUint16(b, version)
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = append(b, alg, bias, 0, 0)
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(1))
	b = binary.LittleEndian.AppendUint32(b, nc)
	b = binary.LittleEndian.AppendUint32(b, K)
	return binary.LittleEndian.AppendUint64(b, dim)
}

type mioErrReader struct{}

func (mioErrReader) Read([]byte) (int, error) { return 0, errors.New("device on fire") }

// failingWriter fails every write and counts them.
type failingWriter struct{ calls int }

func (w *failingWriter) Write([]byte) (int, error) {
	w.calls++
	return 0, errors.New("disk full")
}

// mioThin zeroes all but about keep (a fraction) of the weights of w,
// leaving a −0 and a subnormal with odd bits among those kept when w is
// long enough.
func mioThin(rng *rand.Rand, w []float32, keep float64) {
	for i := range w {
		if rng.Float64() >= keep {
			w[i] = 0
		}
	}
	if len(w) >= 4 {
		w[1] = float32(math.Copysign(0, -1))
		w[len(w)-2] = mioOdd
	}
}

// mioSparse returns mioModel's model with most of its weights (and start
// weights) zero.
func mioSparse(seed uint64, alg Algorithm, nc, dim int, start bool, keep float64) *Model {
	m := mioModel(seed, alg, nc, dim, start, true)
	rng := rand.New(rand.NewPCG(seed, 11))
	mioThin(rng, m.W, keep)
	if m.Votes != nil && m.Votes.W0 != nil {
		mioThin(rng, m.Votes.W0, keep)
	}
	return m
}

// mioFlags returns the flags of an encoding.
func mioFlags(b []byte) uint16 { return binary.LittleEndian.Uint16(b[6:]) }

// mioMarshalAs encodes m with W and W0 dense or sparse as told, whether
// or not that is the smaller encoding.
func mioMarshalAs(m *Model, sparseW bool) []byte {
	dense, sparse := m.weightBytes()
	f := linearFile{m: m, sparse: sparseW, wb: dense}
	if sparseW {
		f.wb = sparse
	}
	return marshalSections(f)
}

// mioSparseSmall is a small sparse-encoded binary model of 20 weights
// (a bitmap of 3 bytes, the last with 4 bits of padding) whose
// corruptions the tests below try.
func mioSparseSmall() *Model {
	m := &Model{Classes: []float64{-1, 1}, Dim: 20, W: make([]float32, 20), B: []float32{0.5}, Algorithm: Averaged}
	m.W[3] = 1.5
	m.W[9] = float32(math.Copysign(0, -1))
	m.W[17] = mioOdd
	return m
}

// kmioData returns n rows of width dim around nc cluster centres, each
// entry present with probability density, and their labels.
func kmioData(seed uint64, n, dim, nc int, density float64) (*sparse.CSR, []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	centres := make([][]float64, nc)
	for c := range centres {
		centres[c] = make([]float64, dim)
		for j := range centres[c] {
			centres[c][j] = rng.NormFloat64() * 2
		}
	}
	b := sparse.NewBuilder(dim)
	y := make([]float64, n)
	for i := range y {
		c := i % nc
		var ind []int32
		var val []float32
		for j := range dim {
			if rng.Float64() < density {
				ind = append(ind, int32(j))
				val = append(val, float32(centres[c][j]+rng.NormFloat64()*0.7))
			}
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
		y[i] = float64(c)*1.5 - 1
	}
	return b.Build(), y
}

type kmioCase struct {
	name string
	m    *KernelModel
}

// kmioTrained returns models trained by FitKernel on small generated
// data: every built-in kernel (with default and explicit parameters),
// every kernel algorithm, binary and multiclass, sparse and dense-ish
// rows, every bias mode, and a budgeted one.
var kmioTrained = sync.OnceValue(func() []kmioCase {
	ks := []kernels.Kernel{
		kernels.Linear{},
		kernels.Poly{Degree: 2, Coef0: 1},
		kernels.Poly{},
		kernels.RBF{},
		kernels.RBF{Gamma: 0.3},
		kernels.Sigmoid{Gamma: 0.05, Coef0: -0.5},
	}
	var cases []kmioCase
	i := 0
	for _, k := range ks {
		for _, alg := range []Algorithm{Averaged, Plain, Voted} {
			for _, nc := range []int{2, 4} {
				for _, kind := range []string{"sparse", "dense"} {
					i++
					density := 0.2
					if kind == "dense" {
						density = 0.95
					}
					X, y := kmioData(uint64(i), 40, 8, nc, density)
					cfg := KernelConfig{Config: Config{Algorithm: alg, Epochs: 3, Seed: uint64(i), Bias: BiasMode(i % 3)}, Kernel: k}
					if cfg.Bias == BiasAugmented {
						cfg.BiasScale = 0.5
					}
					m, _, err := FitKernel(context.Background(), X, y, cfg)
					if err != nil {
						panic(fmt.Sprintf("%v %v %d: %v", k, alg, nc, err))
					}
					name := fmt.Sprintf("%s/%v/%dclass/%s/%v", strings.ReplaceAll(k.String(), ":", "-"), alg, nc, kind, cfg.Bias)
					cases = append(cases, kmioCase{name, m})
				}
			}
		}
	}
	X, y := kmioData(99, 60, 5, 3, 0.6)
	m, _, err := FitKernel(context.Background(), X, y, KernelConfig{Config: Config{Algorithm: Plain, Epochs: 4}, MaxSupportVectors: 6})
	if err != nil {
		panic(err)
	}
	cases = append(cases, kmioCase{"default-rbf/budget", m})
	return cases
})

// kmioModel builds a valid model by hand: nsv support vectors of width
// dim with entries present with probability density, nc classes, the
// voted record for Voted.
func kmioModel(seed uint64, k kernels.Kernel, alg Algorithm, nc, nsv, dim int, density float64) *KernelModel {
	rng := rand.New(rand.NewPCG(seed, 13))
	classes := make([]float64, nc)
	for i := range classes {
		classes[i] = float64(i)*0.75 - 1
	}
	m := &KernelModel{
		Kernel:    k,
		Algorithm: alg,
		Bias:      BiasMode(rng.IntN(3)),
		BiasScale: float32(rng.Float64() * 2),
		Classes:   classes,
		Dim:       dim,
	}
	K := m.NumRows()
	b := sparse.NewBuilder(dim)
	for range nsv {
		var ind []int32
		var val []float32
		for j := range dim {
			if rng.Float64() < density {
				ind = append(ind, int32(j))
				val = append(val, float32(rng.NormFloat64()))
			}
		}
		if err := b.Add(ind, val); err != nil {
			panic(err)
		}
	}
	m.SV = b.Build()
	m.SV.Cols = dim
	m.Coef = make([]float32, nsv*K)
	for i := range m.Coef {
		m.Coef[i] = float32(rng.NormFloat64())
	}
	m.B = make([]float32, K)
	for i := range m.B {
		m.B[i] = float32(rng.NormFloat64())
	}
	if alg == Voted {
		v := &Votes{SV: m.SV, Count0: rng.Int64N(50), Steps: []VoteStep{}}
		for range 2 * nsv {
			s := VoteStep{Row: int32(rng.IntN(nsv)), Down: -1, A: float32(rng.NormFloat64()), Count: rng.Int64N(100)}
			if K > 1 {
				s.Up = int32(rng.IntN(K))
				s.Down = int32((int(s.Up) + 1 + rng.IntN(K-1)) % K)
			}
			v.Steps = append(v.Steps, s)
		}
		m.Votes = v
	}
	if _, err := m.checkFile(); err != nil {
		panic(err)
	}
	return m
}

// kmioSmall is the small voted multiclass model, of awkward values, whose
// encoding the golden-file, truncation and bit-flip tests use. It is
// written out in full so that it never changes.
func kmioSmall() *KernelModel {
	negZero := float32(math.Copysign(0, -1))
	sv := &sparse.CSR{
		Rows: 3, Cols: 4,
		Indptr: []int64{0, 2, 2, 5},
		Ind:    []int32{0, 3, 0, 1, 2},
		Val:    []float32{1.5, negZero, math.Float32frombits(1), math.MaxFloat32, -0.25},
	}
	return &KernelModel{
		Kernel:    kernels.Poly{Degree: 2, Gamma: 0.5, Coef0: -1},
		Algorithm: Voted,
		Bias:      BiasAugmented,
		BiasScale: 0.75,
		Classes:   []float64{-2, 0.5, 7},
		Dim:       4,
		SV:        sv,
		Coef:      []float32{0.5, -0.5, 0, negZero, 1e-40, -1, 2, -2, 0.125},
		B:         []float32{0.25, -0.125, math.SmallestNonzeroFloat32},
		Votes: &Votes{SV: sv, Count0: 5, Steps: []VoteStep{
			{Row: 0, Up: 1, Down: 0, A: 1, Count: 3},
			{Row: 2, Up: 2, Down: 1, A: 0.5, Count: 0},
			{Row: 0, Up: 0, Down: 2, A: -1, Count: 1 << 40},
			{Row: 1, Up: 1, Down: 2, A: 2.5, Count: 7},
		}},
	}
}

// kmioEffective returns k with its parameters explicit.
func kmioEffective(t testing.TB, k kernels.Kernel) kernels.Kernel {
	t.Helper()
	e, err := kmodelEffective(k)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func kmioSameF64(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// kmioSame reports how got differs from want, bit for bit, or "". The
// kernel is compared with want's effective parameters, which is what a
// file stores.
func kmioSame(t testing.TB, got, want *KernelModel) string {
	t.Helper()
	same32 := func(a, b []float32) bool { return len(a) == len(b) && (len(a) == 0 || mioSameF32(a, b)) }
	switch {
	case got.Kernel != kmioEffective(t, want.Kernel):
		return fmt.Sprintf("kernel %#v, want %#v", got.Kernel, kmioEffective(t, want.Kernel))
	case got.Algorithm != want.Algorithm || got.Bias != want.Bias:
		return fmt.Sprintf("algorithm %v/%v, want %v/%v", got.Algorithm, got.Bias, want.Algorithm, want.Bias)
	case math.Float32bits(got.BiasScale) != math.Float32bits(want.BiasScale):
		return fmt.Sprintf("bias scale %v, want %v", got.BiasScale, want.BiasScale)
	case got.Dim != want.Dim:
		return fmt.Sprintf("dim %d, want %d", got.Dim, want.Dim)
	case !kmioSameF64(got.Classes, want.Classes):
		return fmt.Sprintf("classes %v, want %v", got.Classes, want.Classes)
	case got.SV.Rows != want.SV.Rows || got.SV.Cols != want.SV.Cols:
		return fmt.Sprintf("support vectors %d×%d, want %d×%d", got.SV.Rows, got.SV.Cols, want.SV.Rows, want.SV.Cols)
	case fmt.Sprint(got.SV.Indptr) != fmt.Sprint(want.SV.Indptr) || fmt.Sprint(got.SV.Ind) != fmt.Sprint(want.SV.Ind):
		return "support vector structure differs"
	case !same32(got.SV.Val, want.SV.Val):
		return "support vector values differ"
	case !same32(got.Coef, want.Coef):
		return "coefficients differ"
	case !same32(got.B, want.B):
		return "biases differ"
	case (got.Votes == nil) != (want.Votes == nil):
		return "votes present in one only"
	}
	g, w := got.Votes, want.Votes
	if g == nil {
		return ""
	}
	switch {
	case g.SV != got.SV:
		return "the votes' rows are not the model's support vectors"
	case g.Count0 != w.Count0:
		return fmt.Sprintf("count0 %d, want %d", g.Count0, w.Count0)
	case g.W0 != nil || g.B0 != nil:
		return "start weights"
	case len(g.Steps) != len(w.Steps):
		return fmt.Sprintf("%d steps, want %d", len(g.Steps), len(w.Steps))
	}
	for i := range g.Steps {
		a, b := g.Steps[i], w.Steps[i]
		if a.Row != b.Row || a.Up != b.Up || a.Down != b.Down || a.Count != b.Count ||
			math.Float32bits(a.A) != math.Float32bits(b.A) {
			return fmt.Sprintf("step %d is %+v, want %+v", i, a, b)
		}
	}
	return ""
}

// kmioSamePredictions reports whether got and want predict the same on
// fresh rows, bit for bit.
func kmioSamePredictions(t testing.TB, got, want *KernelModel) string {
	t.Helper()
	X, _ := kmioData(777, 50, want.Dim+2, 3, 0.5) // wider than Dim: extra features
	pg, pw := got.PredictBatch(X, nil), want.PredictBatch(X, nil)
	dg, dw := got.DecisionBatch(X, nil), want.DecisionBatch(X, nil)
	for i := range X.Rows {
		x := X.Row(i)
		switch {
		case pg[i] != pw[i]:
			return fmt.Sprintf("row %d: PredictBatch %v, want %v", i, pg[i], pw[i])
		case math.Float32bits(dg[i]) != math.Float32bits(dw[i]):
			return fmt.Sprintf("row %d: DecisionBatch %v, want %v", i, dg[i], dw[i])
		case got.Predict(x) != want.Predict(x):
			return fmt.Sprintf("row %d: Predict %v, want %v", i, got.Predict(x), want.Predict(x))
		case math.Float32bits(got.Decision(x)) != math.Float32bits(want.Decision(x)):
			return fmt.Sprintf("row %d: Decision %v, want %v", i, got.Decision(x), want.Decision(x))
		case !mioSameF32(got.Scores(x, nil), want.Scores(x, nil)):
			return fmt.Sprintf("row %d: Scores %v, want %v", i, got.Scores(x, nil), want.Scores(x, nil))
		}
	}
	return ""
}

func kmioEncode(t testing.TB, m *KernelModel) []byte {
	t.Helper()
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func kmioCheckedEncodedSize(t *testing.T, m *KernelModel, b []byte) {
	t.Helper()
	if int64(len(b)) != m.encodedSize() {
		t.Errorf("encoding is %d bytes, encodedSize says %d", len(b), m.encodedSize())
	}
}

func kmioCoef0(k kernels.Kernel) float64 {
	switch k := k.(type) {
	case kernels.Poly:
		return k.Coef0
	case kernels.Sigmoid:
		return k.Coef0
	}
	return 0
}

// kmioBig is a model whose encoding takes several of the encoder's
// buffers.
func kmioBig() *KernelModel {
	return kmioModel(5, kernels.RBF{Gamma: 0.1}, Voted, 5, 2000, 30, 0.5)
}

// kmioUserKernel is a user-defined kernel.
type kmioUserKernel struct{}

func (kmioUserKernel) Dense(x, z []float32) float64 { return kernels.Dot(x, z) + 1 }

func (kmioUserKernel) Sparse(x, z sparse.Vector) float64 { return kernels.SparseDot(x, z) + 1 }

func (kmioUserKernel) String() string { return "user" }

// kmioHeader returns a kernel model header with the given fields.
func kmioHeader(version, flags uint16, alg, bias, kind byte, degree, gamma, coef0 float64, nc, K uint32, dim uint64) []byte {
	le := binary.LittleEndian
	b := []byte(kmodelMagic)
	b = le.AppendUint16(b, version)
	b = le.AppendUint16(b, flags)
	b = append(b, alg, bias, kind, 0)
	b = le.AppendUint32(b, math.Float32bits(1))
	b = le.AppendUint64(b, math.Float64bits(degree))
	b = le.AppendUint64(b, math.Float64bits(gamma))
	b = le.AppendUint64(b, math.Float64bits(coef0))
	b = le.AppendUint32(b, nc)
	b = le.AppendUint32(b, K)
	return le.AppendUint64(b, dim)
}

// decodeAllocs returns the bytes decode allocates per call, on average.
func decodeAllocs(decode func()) uint64 {
	const runs = 10
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		decode()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / runs
}

// kmioLinear is a small linear model.
func kmioLinear() *Model {
	return &Model{Classes: []float64{-1, 1}, Dim: 2, W: []float32{2, -1}, B: []float32{-0.5}, BiasScale: 1}
}

// fileKind is one model file format as the tests that hold for both
// drive it: its magic, its readers, and models to write.
type fileKind struct {
	name  string // "linear" or "kernel"
	magic string
	noun  string // as in "not a hyperplane <noun> file"
	// small returns the fixed small model of awkward values the
	// corruption tests start from; few a handful of others, cases every
	// model the round trips cover.
	small func() Classifier
	few   func() []Classifier
	cases func() []Classifier
	// big returns a model whose encoding takes several of the encoder's
	// buffers.
	big       func() Classifier
	unmarshal func([]byte) error
	read      func(io.Reader) (Classifier, error)
	load      func(string) (Classifier, error)
}

var fileKinds = []fileKind{
	{
		name: "linear", magic: modelMagic, noun: "model",
		small: func() Classifier { return mioSmall() },
		few:   func() []Classifier { return []Classifier{mioSmall(), mioModel(11, Averaged, 2, 4, false, false)} },
		cases: func() []Classifier {
			var out []Classifier
			for _, c := range mioCases(true) {
				out = append(out, c.m)
			}
			return out
		},
		big:       func() Classifier { return mioModel(3, Averaged, 70, 2000, false, false) },
		unmarshal: func(b []byte) error { return new(Model).UnmarshalBinary(b) },
		read:      func(r io.Reader) (Classifier, error) { return ReadModel(r) },
		load:      func(p string) (Classifier, error) { return Load(p) },
	},
	{
		name: "kernel", magic: kmodelMagic, noun: "kernel model",
		small: func() Classifier { return kmioSmall() },
		few: func() []Classifier {
			return []Classifier{kmioSmall(), kmioModel(11, kernels.RBF{}, Averaged, 2, 3, 4, 0.5), kmioTrained()[5].m}
		},
		cases: func() []Classifier {
			out := []Classifier{kmioSmall()}
			for _, c := range kmioTrained() {
				out = append(out, c.m)
			}
			return out
		},
		big:       func() Classifier { return kmioBig() },
		unmarshal: func(b []byte) error { return new(KernelModel).UnmarshalBinary(b) },
		read:      func(r io.Reader) (Classifier, error) { return ReadKernelModel(r) },
		load:      func(p string) (Classifier, error) { return LoadKernel(p) },
	},
}

// fileEncode returns the file encoding of c, as WriteTo writes it.
func fileEncode(t testing.TB, c Classifier) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fileSame says how got differs from want, or "" when it encodes to the
// same bytes: the encoding holds every field, floats as their bits.
func fileSame(t testing.TB, got, want Classifier) string {
	t.Helper()
	if fmt.Sprintf("%T", got) != fmt.Sprintf("%T", want) {
		return fmt.Sprintf("read back a %T, want a %T", got, want)
	}
	if !bytes.Equal(fileEncode(t, got), fileEncode(t, want)) {
		return "the model read back encodes differently"
	}
	return ""
}
