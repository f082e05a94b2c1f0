package bench

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/metrics"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

var (
	reutersOnce sync.Once
	reuters     struct {
		X, TX *sparse.CSR // training and test rows
		Y, TY [][]int     // their classes (test topics unseen in training dropped)
		K     int
	}
	reutersErr error
)

func readCorpus(path string) (*text.Corpus, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		r = z
	}
	return text.Read(r, text.ReadOptions{MultiLabel: true})
}

// reutersModApte featurizes the Reuters-21578 ModApte splits from
// ../shared/data as train does by default (words and word pairs, log tf,
// IDF, a vocabulary of the training terms in two documents or more, unit
// rows), or skips the benchmark when the shared data is not there.
func reutersModApte(b *testing.B) {
	dir := "../../shared/data/text/reuters21578/"
	if _, err := os.Stat(dir + "reuters.modapte.train.jsonl.gz"); err != nil {
		b.Skip("no shared data: ", err)
	}
	reutersOnce.Do(func() { reutersErr = readReuters(dir) })
	if reutersErr != nil {
		b.Fatal(reutersErr)
	}
}

func readReuters(dir string) error {
	tr, err := readCorpus(dir + "reuters.modapte.train.jsonl.gz")
	if err != nil {
		return err
	}
	te, err := readCorpus(dir + "reuters.modapte.test.jsonl")
	if err != nil {
		return err
	}
	index := map[string]int{}
	classes := func(c *text.Corpus, grow bool) [][]int {
		Y := make([][]int, len(c.Docs))
		for i, ls := range c.Labels {
			for _, l := range ls {
				k, ok := index[l]
				if !ok && grow {
					k, ok = len(index), true
					index[l] = k
				}
				if ok {
					Y[i] = append(Y[i], k)
				}
			}
			c.Docs[i].Label = "_"
		}
		return Y
	}
	reuters.Y = classes(tr, true)
	reuters.TY = classes(te, false)
	reuters.K = len(index)
	fz, err := text.Fit(tr, text.Config{NGrams: 2, TF: text.Log, IDF: true, Vocabulary: true, MinDF: 2})
	if err != nil {
		return err
	}
	for _, c := range []struct {
		in  *text.Corpus
		out **sparse.CSR
	}{{tr, &reuters.X}, {te, &reuters.TX}} {
		d, err := fz.Vectorize(c.in)
		if err != nil {
			return err
		}
		*c.out = d.X
	}
	return nil
}

// BenchmarkFitMultiLabelReuters: FitMultiLabel with its defaults but the
// rule train picks (one-vs-rest PA1, thresholds fitted on held-out rows)
// on Reuters-21578 ModApte, features prebuilt: the learning part of
// bench/multilabel_vs_sklearn.sh.
func BenchmarkFitMultiLabelReuters(b *testing.B) {
	reutersModApte(b)
	X, Y, K := reuters.X, reuters.Y, reuters.K
	for _, c := range []struct {
		name string
		cfg  engine.MultiLabelConfig
	}{
		{"pa1", engine.MultiLabelConfig{Rule: engine.PA1}},
		{"ranking", engine.MultiLabelConfig{Ranking: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var m *engine.MultiLabelModel
			for b.Loop() {
				var err error
				if m, err = engine.FitMultiLabel(context.Background(), X, Y, K, c.cfg); err != nil {
					b.Fatal(err)
				}
			}
			pred := make([][]int, reuters.TX.Rows)
			for i := range pred {
				pred[i] = m.Predict(reuters.TX.Row(i), nil)
			}
			r, err := metrics.NewMultiLabel(reuters.TY, pred, K)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(r.Micro.F1, "micro-F1")
			b.ReportMetric(r.Macro.F1, "macro-F1")
		})
	}
}
