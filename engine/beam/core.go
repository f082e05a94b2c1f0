package beam

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"slices"
	"strings"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

// readHeader reads a shard's rows, width and labels.
func readHeader(r io.Reader, name string) (header, error) {
	info, err := hpc.ReadInfo(r, sparse.ReadOptions{Name: name})
	if err != nil {
		return header{}, err
	}
	if info.Labels == nil && info.Rows > 0 {
		return header{}, fmt.Errorf("%w: %s has more distinct labels than a cache lists", engine.ErrLabels, name)
	}
	return header{Labels: info.Labels, Cols: info.Cols, Rows: info.Rows}, nil
}

// initState returns the state before the first epoch: zero weights over
// every shard's classes and width.
func initState(st settings, h header) (*engine.Mix, error) {
	if len(h.Labels) < 2 {
		return nil, fmt.Errorf("%w: the shards hold %d distinct labels, want at least 2", engine.ErrLabels, len(h.Labels))
	}
	if st.InitScale != 0 {
		// Random starting weights: the state lists every feature, and a
		// learner of the whole width checks the memory that takes.
		l, err := engine.NewLearner(h.Labels, h.Cols, st.config())
		if err != nil {
			return nil, err
		}
		m, err := l.Mix()
		if err != nil {
			return nil, err
		}
		return m.Compact()
	}
	// Stored sparse, it lists no feature until the shards touch some:
	// it is the state of a learner of no feature (which checks the
	// classes and settings), widened; nothing of the job holds weights
	// as wide as the model, so none is made (a learner of the whole width
	// would clear hundreds of megabytes at 2^24 features only to drop
	// them). Writing the state checks the width.
	l0, err := engine.NewLearner(h.Labels, 0, st.config())
	if err != nil {
		return nil, err
	}
	m, err := l0.Mix()
	if err != nil {
		return nil, err
	}
	if m, err = m.Compact(); err != nil {
		return nil, err
	}
	m.Dim = h.Cols
	return m, nil
}

// weightsOf is the part of a state that the workers of its next epoch
// read, when they all read the same: every feature's weights (the state
// is sparse, so only those not zero) and the biases.
func weightsOf(m *engine.Mix) (*engine.Mix, error) {
	return m.WeightsAt(m.Features)
}

// shardSeed is the seed of the shuffle of shard index in epoch e: every
// shard and epoch get their own, and a retry the same.
func shardSeed(seed uint64, e, index int) uint64 {
	x := seed ^ uint64(e+1)*0x9e3779b97f4a7c15 ^ uint64(index+1)*0xbf58476d1ce4e5b9
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	return x ^ x>>29
}

// trainShard learns shard t.Index for one epoch from the weights in
// start and returns its delta against start, which lists every feature
// of the shard, as changed or as seen (engine.Learner.Delta), and the
// bytes it read of the shard's features.
//
// The learner works over the shard's features alone, renumbered 0..n−1
// in their order, so that an epoch costs what the shard holds and not the
// model's width. Its arithmetic is the same, value by value in the same
// order (a row's nonzeros keep their order, and the renumbered copy keeps
// the shard's blocks, which its shuffle visits), so the delta has the
// bits that a learner of the whole width would give. The first epoch
// (start holds every feature's weights, all zero) renumbers the shard and
// leaves the copy and the list of its features in the work directory; the
// later ones learn that copy, from start holding the weights of the
// shard's features only, in that order, as the mixing step wrote them
// from the shard's delta of the epoch before. A worker keeps the copy,
// with the learner that holds its rows, for its next epoch of the shard
// (workerCache, within Options.KeepBytes).
func trainShard(ctx context.Context, f *trainFn, start *engine.Mix, t task) (*engine.Mix, int64, error) {
	var w *shardWorker
	var read int64
	dim := f.Dim
	if t.Epoch == 0 {
		compact, feat, err := firstEpoch(ctx, f, start, t)
		if err != nil {
			return nil, 0, err
		}
		w = &shardWorker{c: compact, feat: feat, cleanup: func() {}}
		ws, err := start.WeightsAt(feat)
		if err != nil {
			w.close()
			return nil, 0, err
		}
		start = &engine.Mix{Classes: ws.Classes, Dim: len(feat), W: ws.W, B: ws.B}
	} else if w = takeWorker(f.Run, t.Index); w == nil {
		var err error
		if w, read, err = openShard(ctx, f, t); err != nil {
			return nil, read, err
		}
	}
	d, err := learnShard(ctx, f, w, start, t)
	if err != nil {
		w.close()
		return nil, read, err
	}
	keepWorker(f.Run, t.Index, w, f.Keep)
	for i, j := range d.Features {
		d.Features[i] = w.feat[j]
	}
	// The features the shard saw unchanged are all its features but
	// those it changed, which the mixing step has (shardFeaturesOf): the
	// delta need not list them.
	d.Seen = nil
	d.Dim = dim
	return d, read, nil
}

// learnShard learns the renumbered shard of w for epoch t.Epoch from
// start, the weights of its features in their order, with w's learner
// restarted from them (or a new one), and returns its delta over the
// renumbered features.
func learnShard(ctx context.Context, f *trainFn, w *shardWorker, start *engine.Mix, t task) (*engine.Mix, error) {
	if start.Features != nil || start.Dim != len(w.feat) {
		return nil, fmt.Errorf("%w: the weights file holds %d features, the shard %s %d (files of another run?)", ErrWeights, start.Dim, renumberedPath(f.Workdir, t.Index), len(w.feat))
	}
	from := &engine.Mix{Classes: start.Classes, Dim: len(w.feat), W: start.W, B: start.B}
	cfg := f.Settings.config()
	cfg.Seed = shardSeed(f.Settings.Seed, t.Epoch, t.Index)
	if w.l != nil {
		if err := w.l.Restart(from, cfg); err != nil {
			return nil, err
		}
	} else {
		l, err := engine.NewLearnerFrom(from, cfg)
		if err != nil {
			return nil, err
		}
		w.l = l
		w.bytes = w.learnerBytes(len(start.B))
	}
	if _, err := w.l.PartialFitCache(ctx, w.c); err != nil {
		return nil, err
	}
	return w.l.Delta()
}

// firstEpoch renumbers shard t's features (start holds every feature's
// weights, f.Dim of them), leaves the renumbered copy and the list of the
// features in the work directory, keeps the list for the job's run, and
// returns the copy, open, and the list.
func firstEpoch(ctx context.Context, f *trainFn, start *engine.Mix, t task) (*hpc.File, []int32, error) {
	local, cleanup, err := localCopy(ctx, t.Shard)
	if err != nil {
		return nil, nil, err
	}
	defer cleanup()
	c, err := hpc.Open(local, hpc.Options{ReadOptions: sparse.ReadOptions{Name: t.Shard}, Map: true})
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	if start.Dim != f.Dim || c.Cols() > start.Dim {
		return nil, nil, fmt.Errorf("%w: %s has %d columns, the weights %d and the model %d (did the shard change?)", ErrWeights, t.Shard, c.Cols(), start.Dim, f.Dim)
	}
	feat, path, done, err := renumber(c, t.Shard)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	if err := copyTo(ctx, path, renumberedPath(f.Workdir, t.Index)); err != nil {
		return nil, nil, err
	}
	if _, err := writeAll(ctx, featuresPath(f.Workdir, t.Index), encodeFeatures(feat)); err != nil {
		return nil, nil, err
	}
	keepFeatures(f.Run, t.Index, feat)
	compact, err := hpc.Open(path, hpc.Options{ReadOptions: sparse.ReadOptions{Name: t.Shard}, Map: true})
	return compact, feat, err
}

// copyTo copies the local file path to name on any Beam file system.
func copyTo(ctx context.Context, path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = writeWith(ctx, name, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
	return err
}

// renumber returns the features of the rows of the cache c (of the shard
// name), ascending, and the path of c rewritten with every index j
// replaced by its place in that list, block by block as c's, in a
// temporary file that done removes.
func renumber(c *hpc.File, name string) (feat []int32, path string, done func(), err error) {
	seen := make([]uint64, (c.Cols()+63)/64)
	var b hpc.Block
	for i := range c.NumBlocks() {
		if err := c.ReadBlock(i, &b); err != nil {
			return nil, "", nil, err
		}
		for _, j := range b.X.Ind {
			seen[j>>6] |= 1 << (uint(j) & 63)
		}
	}
	// below[i] counts the features before word i of seen.
	below := make([]int32, len(seen))
	n := 0
	for i, w := range seen {
		below[i] = int32(n)
		n += bits.OnesCount64(w)
	}
	feat = make([]int32, 0, n)
	for i, w := range seen {
		for w != 0 {
			feat = append(feat, int32(i*64+bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
	f, err := os.CreateTemp("", "hyperplane-renumbered-*.hpc")
	if err != nil {
		return nil, "", nil, err
	}
	remove := func() { f.Close(); os.Remove(f.Name()) }
	bw := bufio.NewWriterSize(f, 1<<20)
	// Blocks end where c's end (Flush), not by size.
	w := hpc.NewWriter(bw, hpc.WriterOptions{Dim: n, BlockSize: 1 << 30})
	var ind []int32
	for i := range c.NumBlocks() {
		if err := c.ReadBlock(i, &b); err != nil {
			remove()
			return nil, "", nil, err
		}
		X := b.X
		for r := range b.Rows() {
			lo, hi := X.Indptr[r], X.Indptr[r+1]
			ind = ind[:0]
			for _, j := range X.Ind[lo:hi] {
				ind = append(ind, below[j>>6]+int32(bits.OnesCount64(seen[j>>6]&(1<<(uint(j)&63)-1))))
			}
			if err := w.Add(b.Y[r], ind, X.Val[lo:hi]); err != nil {
				remove()
				return nil, "", nil, fmt.Errorf("%s: renumbering row %d: %w", name, b.Start+int64(r)+1, err)
			}
		}
		if err := w.Flush(); err != nil {
			remove()
			return nil, "", nil, err
		}
	}
	err = w.Close()
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		remove()
		return nil, "", nil, fmt.Errorf("%s: renumbering: %w", name, err)
	}
	return feat, f.Name(), func() { os.Remove(f.Name()) }, nil
}

// ErrWeights is wrapped by the error of a shard whose weights file does
// not match its features: the shard's file changed during training, or
// the work directory holds files of another run.
var ErrWeights = errors.New("beam: the weights do not cover the shard")

// localCopy returns a local path holding the file name: name itself when
// it is local, else a temporary copy that cleanup removes (a cache is
// learned through an hpc.File, which reads at offsets).
func localCopy(ctx context.Context, name string) (string, func(), error) {
	if !strings.Contains(name, "://") {
		return name, func() {}, nil
	}
	f, err := os.CreateTemp("", "hyperplane-shard-*.hpc")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { f.Close(); os.Remove(f.Name()) }
	_, err = readWith(ctx, name, func(r io.Reader) error {
		_, err := io.Copy(f, r)
		return err
	})
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return f.Name(), cleanup, nil
}

// writeMix writes m in its binary form (engine's "HPMX") to name, streamed
// rather than encoded whole first, and returns the bytes written; a Mix
// that engine refuses is refused before anything is written.
func writeMix(ctx context.Context, name string, m *engine.Mix) (int64, error) {
	return writeWith(ctx, name, func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	})
}

// decodeMix decodes a Mix's binary form.

func decodeMix(b []byte, name string) (*engine.Mix, error) {
	m, err := engine.ReadMix(bytes.NewReader(b), 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// readMix reads and decodes the state file name, and returns the bytes
// read.
func readMix(ctx context.Context, name string) (*engine.Mix, int64, error) {
	b, n, err := readAll(ctx, name)
	if err != nil {
		return nil, n, err
	}
	m, err := decodeMix(b, name)
	return m, n, err
}

var errNoParts = errors.New("beam: an epoch ended with no shard's delta")

// orderParts sorts an epoch's deltas into shard order, the order Merge
// needs for Fit's bits, and checks that every shard is there once.
func orderParts(parts []part, shards int) ([]part, error) {
	slices.SortFunc(parts, func(a, b part) int { return a.Index - b.Index })
	if len(parts) == 0 {
		return nil, errNoParts
	}
	if len(parts) == 1 && parts[0].Index < 0 {
		return parts, nil
	}
	if len(parts) != shards {
		return nil, fmt.Errorf("beam: an epoch gathered %d deltas for %d shards", len(parts), shards)
	}
	for i, p := range parts {
		if p.Index != i {
			return nil, fmt.Errorf("beam: an epoch gathered no delta of shard %d", i)
		}
	}
	return parts, nil
}

// unchanged returns, for each shard of rows[k] rows, the delta of an
// epoch that learned them from st without an update.
func unchanged(st *engine.Mix, rows []int64) []*engine.Mix {
	d := make([]*engine.Mix, len(rows))
	for k, n := range rows {
		d[k] = &engine.Mix{Classes: st.Classes, Dim: st.Dim, Features: []int32{}, W: []float32{},
			B: slices.Clone(st.B), N: float64(n), U: []float64{}, UB: make([]float64, len(st.B))}
	}
	return d
}
