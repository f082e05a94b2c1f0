package engine

import (
	"bytes"
	"context"
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
