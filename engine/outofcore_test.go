package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// fxCache writes X, y to a cache file of small blocks and opens it.
func fxCache(t *testing.T, X *sparse.CSR, y []float64, blockBytes int) (*hpc.File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.hpc")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := hpc.NewWriter(f, hpc.WriterOptions{Dim: X.Cols, BlockSize: blockBytes})
	for i := range X.Rows {
		r := X.Row(i)
		if err := w.Add(y[i], r.Ind, r.Val); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := hpc.Open(path, hpc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if c.NumBlocks() < 3 && blockBytes < 1<<20 {
		t.Fatalf("only %d blocks: the test wants several", c.NumBlocks())
	}
	return c, path
}

// TestFitCacheEqualsFit: in file order, training from the cache visits the
// rows Fit visits, so the models are bit-identical, for both algorithms,
// binary and multiclass.
func TestFitCacheEqualsFit(t *testing.T) {
	Xb, yb := fxIntBinary(51, 700, 50, 7, 0.1)
	Xm, ym := fxIntMulti(52, 700, 50, 7, 4, 0.1)
	for _, d := range []struct {
		name string
		X    *sparse.CSR
		y    []float64
	}{{"binary", Xb, yb}, {"multiclass", Xm, ym}} {
		t.Run(d.name, func(t *testing.T) {
			c, _ := fxCache(t, d.X, d.y, 2000)
			for _, a := range []Algorithm{Averaged, Plain} {
				cfg := Config{Algorithm: a, NoShuffle: true, Epochs: 5, Margin: 0.5}
				want, ws := fxFit(t, d.X, d.y, cfg)
				got, gs, err := FitCache(context.Background(), c, cfg)
				if err != nil {
					t.Fatalf("%s %v: %v", d.name, a, err)
				}
				fxSameModel(t, d.name+" "+a.String()+": FitCache vs Fit", got, want)
				if len(gs) != len(ws) {
					t.Fatalf("%s %v: %d epochs, Fit ran %d", d.name, a, len(gs), len(ws))
				}
				for e := range gs {
					if gs[e].Mistakes != ws[e].Mistakes || gs[e].Updates != ws[e].Updates || gs[e].Rows != ws[e].Rows {
						t.Fatalf("%s %v epoch %d: %+v, Fit %+v", d.name, a, e+1, gs[e], ws[e])
					}
				}
			}
		})
	}
}

// TestFitCacheShuffled: shuffled blocks and rows still learn, converge on
// separable data, and repeat bit for bit with the same seed.
func TestFitCacheShuffled(t *testing.T) {
	X, y := fxDenseSeparable(53, 600, 12, 2, 0.05)
	c, _ := fxCache(t, X, y, 3000)
	m1, st, err := FitCache(context.Background(), c, Config{Algorithm: Plain, Epochs: 300, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if st[len(st)-1].Updates != 0 {
		t.Fatalf("separable data did not converge in %d epochs", len(st))
	}
	if acc := accuracyOn(m1, X, y, fxAll(X.Rows)); acc != 1 {
		t.Fatalf("training accuracy %v after convergence", acc)
	}
	m2, _, err := FitCache(context.Background(), c, Config{Algorithm: Plain, Epochs: 300, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	fxSameModel(t, "FitCache, same seed", m1, m2)
	m3, _, err := FitCache(context.Background(), c, Config{Algorithm: Plain, Epochs: 300, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	same := true
	for i := range m1.W {
		same = same && m1.W[i] == m3.W[i]
	}
	if same {
		t.Fatal("seeds 4 and 5 gave the same model: the order is not shuffled")
	}
}

// TestFitCacheErrors: refused configurations, a cancelled context, and a
// cache file damaged after it was opened.
func TestFitCacheErrors(t *testing.T) {
	X, y := fxIntBinary(54, 500, 40, 6, 0.2)
	c, path := fxCache(t, X, y, 2000)
	for _, bad := range []Config{{Algorithm: Voted}, {Algorithm: Batch}, {Workers: 2}, {Validation: 0.1}, {Balanced: true}, {TrainLoss: true}, {SampleWeight: y}} {
		if _, _, err := FitCache(context.Background(), c, bad); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: err %v, want ErrConfig", bad, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if m, _, err := FitCache(ctx, c, Config{}); !errors.Is(err, context.Canceled) || m == nil {
		t.Fatalf("cancelled: model %v, err %v", m != nil, err)
	}

	// Flip a byte in the middle of the file: some block's checksum fails
	// during the first epoch.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x40
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c2, err := hpc.Open(path, hpc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	m, st, err := FitCache(context.Background(), c2, Config{NoShuffle: true})
	if !errors.Is(err, hpc.ErrFormat) || m == nil || len(st) != 0 {
		t.Fatalf("corrupt block: model %v, %d epochs, err %v", m != nil, len(st), err)
	}
}

// TestFitCacheSortedByLabel: a file sorted by label (as many data sets
// are) must still be learned as shuffled data is: rows of a window of
// blocks are shuffled together, and blocks come from all over the file.
func TestFitCacheSortedByLabel(t *testing.T) {
	X, y := fxIntBinary(55, 3000, 60, 8, 0.05)
	idx := fxAll(X.Rows)
	slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(y[a], y[b]) })
	Xs := X.SelectRows(toInts(idx))
	ys := make([]float64, len(idx))
	for k, i := range idx {
		ys[k] = y[i]
	}
	c, _ := fxCache(t, Xs, ys, 1500)
	if c.NumBlocks() <= CacheWindow {
		t.Fatalf("%d blocks: the test wants more than a window of %d", c.NumBlocks(), CacheWindow)
	}
	mem, _ := fxFit(t, Xs, ys, Config{Seed: 3})
	got, st, err := FitCache(context.Background(), c, Config{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	am := accuracyOn(mem, Xs, ys, fxAll(Xs.Rows))
	ac := accuracyOn(got, Xs, ys, fxAll(Xs.Rows))
	if ac < am-0.02 {
		t.Fatalf("sorted file: training accuracy %.4f from the cache, %.4f in memory", ac, am)
	}
	// In file order the first epoch sees one class, then the other: a
	// couple of mistakes. Shuffled, it errs like on shuffled data.
	_, ns, err := FitCache(context.Background(), c, Config{NoShuffle: true, Epochs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Mistakes < 5*ns[0].Mistakes {
		t.Fatalf("first-epoch mistakes: %d shuffled, %d in file order: the windows do not mix the classes", st[0].Mistakes, ns[0].Mistakes)
	}
}

func toInts(a []int32) []int {
	r := make([]int, len(a))
	for i, v := range a {
		r[i] = int(v)
	}
	return r
}

// TestFitCacheResident: a file of one window or less is read once and
// kept; training from it equals Fit in file order, and a corrupt block is
// reported before any learning, with the initial model.
func TestFitCacheResident(t *testing.T) {
	X, y := fxIntMulti(56, 900, 50, 7, 3, 0.1)
	c, path := fxCache(t, X, y, 8000)
	if n := c.NumBlocks(); n < 2 || n > CacheWindow {
		t.Fatalf("%d blocks: the test wants 2..%d", n, CacheWindow)
	}
	cfg := Config{NoShuffle: true, Epochs: 4}
	want, _ := fxFit(t, X, y, cfg)
	got, _, err := FitCache(context.Background(), c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fxSameModel(t, "resident FitCache vs Fit", got, want)
	s1, _, err := FitCache(context.Background(), c, Config{Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	s2, _, err := FitCache(context.Background(), c, Config{Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	fxSameModel(t, "resident FitCache, same seed", s1, s2)

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/3] ^= 0x10
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c2, err := hpc.Open(path, hpc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	m, st, err := FitCache(context.Background(), c2, Config{})
	if !errors.Is(err, hpc.ErrFormat) || m == nil || len(st) != 0 {
		t.Fatalf("corrupt resident block: model %v, %d epochs, err %v", m != nil, len(st), err)
	}
}

// TestFitCacheHugeEpochs: with Epochs = math.MaxInt, FitCache counts the
// epochs left after convergence as Fit does (saturated), so the averaged
// models are bit-identical.
func TestFitCacheHugeEpochs(t *testing.T) {
	X := sparse.FromDense([][]float32{{1, 0, 1}, {0, 1, 1}, {1, 0, 0}, {0, 1, 0}})
	y := []float64{1, -1, 1, -1}
	c, _ := fxCache(t, X, y, 1<<20)
	cfg := Config{NoShuffle: true, Epochs: math.MaxInt}
	want, _, err := Fit(context.Background(), X, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := FitCache(context.Background(), c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fxSameModel(t, "FitCache vs Fit, Epochs MaxInt", got, want)
}

// A memory-mapped cache truncated while FitCache trains from it must end
// training with an error, not kill the program with SIGBUS, and return
// the model so far: both when its blocks are read once and kept (a small
// file) and when they are streamed every epoch.
func TestFitCacheTruncatedWhileMapped(t *testing.T) {
	X, y := fxIntMulti(57, 3000, 50, 7, 3, 0.1)
	for _, c := range []struct {
		name  string
		block int
	}{{"resident", 16000}, {"streamed", 1500}} {
		t.Run(c.name, func(t *testing.T) {
			_, path := fxCache(t, X, y, c.block)
			mc, err := hpc.Open(path, hpc.Options{Map: true})
			if err != nil {
				t.Fatal(err)
			}
			defer mc.Close()
			if !mc.Mapped() {
				t.Fatal("the cache is not mapped on this platform")
			}
			if resident := mc.NumBlocks() <= CacheWindow; resident != (c.name == "resident") {
				t.Fatalf("%d blocks for the %s case", mc.NumBlocks(), c.name)
			}
			cfg := Config{Epochs: 5, OnEpoch: func(es EpochStats) error {
				if es.Epoch == 1 {
					return os.Truncate(path, 0)
				}
				return nil
			}}
			m, st, err := FitCache(context.Background(), mc, cfg)
			if !errors.Is(err, hpc.ErrChanged) || !errors.Is(err, hpc.ErrFormat) || !strings.Contains(err.Error(), "changed while in use") {
				t.Fatalf("after %d epochs: %v", len(st), err)
			}
			if m == nil || len(st) != 1 {
				t.Fatalf("%d epochs, model %v: want the model of epoch 1 with the error", len(st), m != nil)
			}
		})
	}
}

// fxRewriteBad rewrites the cache at path in place, same size: in every
// block, row 0's last index becomes one far beyond the columns, and the
// block's checksums are recomputed so that it verifies.
func fxRewriteBad(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	footer := int(le.Uint64(b[len(b)-24:]))
	for off := 16; off < footer; {
		h := b[off : off+40]
		rows, n := int(le.Uint32(h[8:])), int(le.Uint64(h[24:]))
		payload := b[off+40 : off+40+n]
		p := 8 * rows
		if le.Uint32(h[4:])&1 != 0 {
			p += 8 * rows
		}
		ind := p + 8*(rows+1)
		if end := int(le.Uint64(payload[p+8:])); end > 0 {
			le.PutUint32(payload[ind+4*(end-1):], 1<<20)
		}
		le.PutUint32(h[32:], crc32.Checksum(payload, castagnoli))
		le.PutUint32(h[36:], crc32.Checksum(h[:36], castagnoli))
		off += 40 + n
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A cache rewritten in place between two epochs (same size, every block
// still verifying, an index beyond the columns in each) stops FitCache
// with hpc.ErrChanged and the model of the epoch before, both when its
// blocks are kept (a small file) and when they are streamed. Kept blocks
// used to view the mapping, so that the next epoch fed the new index to
// a SIMD kernel, which panicked; streamed ones were read again and failed
// as corrupt, not as changed.
func TestFitCacheRewrittenInPlace(t *testing.T) {
	X, y := fxIntMulti(58, 3000, 50, 7, 3, 0.1)
	for _, c := range []struct {
		name  string
		block int
	}{{"resident", 16000}, {"streamed", 1500}} {
		for _, mapped := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/mapped=%v", c.name, mapped), func(t *testing.T) {
				orig, path := fxCache(t, X, y, c.block)
				want, _, err := FitCache(context.Background(), orig, Config{Epochs: 1})
				if err != nil {
					t.Fatal(err)
				}
				// A file made a while ago, as caches are: the rewrite then
				// moves its time, whatever the clock's granularity.
				old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
				if err := os.Chtimes(path, old, old); err != nil {
					t.Fatal(err)
				}
				mc, err := hpc.Open(path, hpc.Options{Map: mapped})
				if err != nil {
					t.Fatal(err)
				}
				defer mc.Close()
				if resident := mc.NumBlocks() <= CacheWindow; resident != (c.name == "resident") {
					t.Fatalf("%d blocks for the %s case", mc.NumBlocks(), c.name)
				}
				cfg := Config{Epochs: 5, OnEpoch: func(es EpochStats) error {
					if es.Epoch == 1 {
						fxRewriteBad(t, path)
					}
					return nil
				}}
				m, st, err := FitCache(context.Background(), mc, cfg)
				if !errors.Is(err, hpc.ErrChanged) || !errors.Is(err, hpc.ErrFormat) || !strings.HasPrefix(err.Error(), path+": ") {
					t.Fatalf("after %d epochs: %v, want hpc.ErrChanged naming the file", len(st), err)
				}
				if len(st) != 1 || m == nil {
					t.Fatalf("%d epochs, model %v: want the model of epoch 1", len(st), m != nil)
				}
				fxSameModel(t, "the model so far vs one epoch", m, want)
			})
		}
	}
}

// A Learner keeps a cache's File from one PartialFitCache call to the
// next (the Beam layer's workers make their epochs so), and a small
// file's blocks with it. A file rewritten in place between two calls (an
// index beyond the columns in every block, each block resealed) is
// reported by the next call as hpc.ErrChanged naming the file, never a
// panic, and learns nothing from it: the learner stays the one of the
// first pass, kept blocks or streamed, mapped or not.
func TestPartialFitCacheRewrittenInPlace(t *testing.T) {
	X, y := fxIntMulti(59, 3000, 50, 7, 3, 0.1)
	for _, c := range []struct {
		name  string
		block int
	}{{"resident", 16000}, {"streamed", 1500}} {
		for _, mapped := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/mapped=%v", c.name, mapped), func(t *testing.T) {
				orig, path := fxCache(t, X, y, c.block)
				want, err := NewLearner(orig.Labels(), orig.Cols(), Config{})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := want.PartialFitCache(context.Background(), orig); err != nil {
					t.Fatal(err)
				}
				old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
				if err := os.Chtimes(path, old, old); err != nil {
					t.Fatal(err)
				}
				mc, err := hpc.Open(path, hpc.Options{Map: mapped})
				if err != nil {
					t.Fatal(err)
				}
				defer mc.Close()
				if resident := mc.NumBlocks() <= CacheWindow; resident != (c.name == "resident") {
					t.Fatalf("%d blocks for the %s case", mc.NumBlocks(), c.name)
				}
				l, err := NewLearner(mc.Labels(), mc.Cols(), Config{})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := l.PartialFitCache(context.Background(), mc); err != nil {
					t.Fatal(err)
				}
				fxRewriteBad(t, path)
				for pass := 2; pass <= 3; pass++ {
					es, err := l.PartialFitCache(context.Background(), mc)
					if !errors.Is(err, hpc.ErrChanged) || !strings.HasPrefix(err.Error(), path+": ") {
						t.Fatalf("pass %d over the rewritten file: %v, want hpc.ErrChanged naming %s", pass, err, path)
					}
					if es.Rows != 0 {
						t.Fatalf("pass %d learned %d rows of the rewritten file", pass, es.Rows)
					}
				}
				fxSameModel(t, "after the rewrite vs one pass", l.Model(), want.Model())
			})
		}
	}
}
