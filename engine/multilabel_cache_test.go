package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// TestFitMultiLabelFromCacheSameModel trains a multi-label model from a
// multi-label LIBSVM file and from the cache with label lists converted
// from it (in small blocks): the two model files are the same bytes.
func TestFitMultiLabelFromCacheSameModel(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		var ls, fs []string
		for c := range 6 {
			if (i*5+c*7)%6 < 2 {
				ls = append(ls, strconv.Itoa(5-c))
				fs = append(fs, strconv.Itoa(c+1)+":"+strconv.FormatFloat(0.1+float64(i%11)/9, 'g', -1, 32))
			}
		}
		fs = append(fs, strconv.Itoa(8+i%13)+":0.75")
		b.WriteString(strings.Join(ls, ",") + " " + strings.Join(fs, " ") + "\n")
	}
	src := b.String()
	fromSVM, err := libsvm.ReadMultiLabel(strings.NewReader(src), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cache bytes.Buffer
	if err := hpc.ConvertLIBSVM(&cache, strings.NewReader(src), sparse.ReadOptions{}, hpc.WriterOptions{LabelLists: true, BlockSize: 512}); err != nil {
		t.Fatal(err)
	}
	fromCache, err := hpc.ReadMultiLabel(&cache, sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []MultiLabelConfig{{Epochs: 3, Seed: 1}, {Rule: PA1, Epochs: 2}, {Ranking: true, Epochs: 2}} {
		var files [2][]byte
		for k, d := range []*libsvm.MultiLabelDataset{fromSVM, fromCache} {
			m, err := FitMultiLabel(context.Background(), d.X, d.Labels, 6, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if files[k], err = m.MarshalBinary(); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%+v: the model from the cache differs from the LIBSVM file's", cfg)
		}
	}
}

// TestFitCacheRefusesLabelLists checks that the learners of one label per
// row do not take a cache with label lists for one: its Y are counts.
func TestFitCacheRefusesLabelLists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.hpc")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	b := sparse.NewBuilder(3)
	b.Add([]int32{0, 2}, []float32{1, 1})
	b.Add([]int32{1}, []float32{1})
	d := &libsvm.MultiLabelDataset{X: b.Build(), Labels: [][]int{{1, 2}, {0}}}
	if err := hpc.WriteMultiLabel(f, d); err != nil {
		t.Fatal(err)
	}
	f.Close()
	c, err := hpc.Open(path, hpc.Options{LabelLists: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, _, err := FitCache(context.Background(), c, Config{Algorithm: Averaged}); !errors.Is(err, ErrLabels) || !strings.Contains(err.Error(), "label lists") {
		t.Errorf("FitCache: %v", err)
	}
	l, err := NewLearner([]float64{-1, 1}, 3, Config{Algorithm: Averaged})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.PartialFitCache(context.Background(), c); !errors.Is(err, ErrLabels) {
		t.Errorf("PartialFitCache: %v", err)
	}
}
