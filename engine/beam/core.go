package beam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
	// A learner checks the classes, width and memory the state needs.
	l, err := engine.NewLearner(h.Labels, h.Cols, st.config())
	if err != nil {
		return nil, err
	}
	return l.Mix()
}

// weightsOf is the part of a state that the workers read: classes, width,
// weights and biases.
func weightsOf(m *engine.Mix) *engine.Mix {
	return &engine.Mix{Classes: m.Classes, Dim: m.Dim, W: m.W, B: m.B}
}

// shardSeed is the seed of the shuffle of shard index in epoch e: every
// shard and epoch get their own, and a retry the same.
func shardSeed(seed uint64, e, index int) uint64 {
	x := seed ^ uint64(e+1)*0x9e3779b97f4a7c15 ^ uint64(index+1)*0xbf58476d1ce4e5b9
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	return x ^ x>>29
}

// trainShard learns the shard at name for one epoch from the weights in
// start and returns its delta against start.
func trainShard(ctx context.Context, st settings, start *engine.Mix, name string, e, index int) (*engine.Mix, error) {
	local, cleanup, err := localCopy(ctx, name)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	c, err := hpc.Open(local, hpc.Options{ReadOptions: sparse.ReadOptions{Name: name}, Map: true})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	cfg := st.config()
	cfg.Seed = shardSeed(st.Seed, e, index)
	l, err := engine.NewLearnerFrom(start, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := l.PartialFitCache(ctx, c); err != nil {
		return nil, err
	}
	m, err := l.Mix()
	if err != nil {
		return nil, err
	}
	return m.Delta(start)
}

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
	err = readWith(ctx, name, func(r io.Reader) error {
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

// encodeMix and decodeMix are a Mix's binary form (engine's "HPMX").
func encodeMix(m *engine.Mix) ([]byte, error) { return m.MarshalBinary() }

func decodeMix(b []byte, name string) (*engine.Mix, error) {
	m, err := engine.ReadMix(bytes.NewReader(b), 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// readMix reads and decodes the state file name.
func readMix(ctx context.Context, name string) (*engine.Mix, error) {
	b, err := readAll(ctx, name)
	if err != nil {
		return nil, err
	}
	return decodeMix(b, name)
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
