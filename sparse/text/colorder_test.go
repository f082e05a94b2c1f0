package text

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/internal/colorder"
)

// A hashed fit with IDF asked to record (colorder.WithRecorder) records
// how many documents use each bucket and the buckets in the order the
// rows it returns first use them, across chunks and workers; a fit that
// has no document frequencies to give records nothing.
func TestFitRecordsColumnOrder(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "%d\tcommon w%d w%d x%d%s\n", i%2, i%97, i%1013, i, strings.Repeat(" pad", 30))
	}
	src := b.String()
	for _, c := range []struct {
		cfg    Config
		record bool
	}{
		{Config{Bits: 16, IDF: true, NGrams: 2, Workers: 3}, true},
		{Config{Bits: 12, IDF: true, Workers: 1}, true},
		{Config{Bits: 14, IDF: true, TF: Log, NGrams: 2, Workers: 2}, true},
		{Config{Bits: 16, Workers: 3}, false},
		{Config{Vocabulary: true, IDF: true, Workers: 3}, false},
	} {
		ctx, rec := colorder.WithRecorder(context.Background())
		_, d, err := FitReaderContext(ctx, strings.NewReader(src), ReadOptions{Format: TSV}, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !c.record {
			if rec.Count != nil || rec.First != nil {
				t.Errorf("%+v: recorded %d counts", c.cfg, len(rec.Count))
			}
			continue
		}
		X := d.X
		count := make([]int32, X.Cols)
		var first []int32
		for _, j := range X.Ind {
			if count[j] == 0 {
				first = append(first, j)
			}
			count[j]++
		}
		if rec.Dim != X.Cols || !slices.Equal(rec.Count, count) || !slices.Equal(rec.First, first) {
			t.Errorf("%+v: recorded dim %d, %d counts, %d first (want %d, %d, %d); counts equal %v, order equal %v", c.cfg,
				rec.Dim, len(rec.Count), len(rec.First), X.Cols, len(count), len(first), slices.Equal(rec.Count, count), slices.Equal(rec.First, first))
		}
		p := rec.NewPlan(X.Indptr, nil, nil)
		if p == nil || len(p.Cols) != len(first) {
			t.Fatalf("%+v: no plan of the recorded counts", c.cfg)
		}
		// The rows' indices, numbered as the plan numbers their columns.
		if len(p.Ind) != len(X.Ind) {
			t.Fatalf("%+v: %d numbered indices for %d values", c.cfg, len(p.Ind), len(X.Ind))
		}
		for q, j := range X.Ind {
			if p.Ind[q] != -1-p.Code[j] {
				t.Fatalf("%+v: value %d of column %d numbered %d, want %d", c.cfg, q, j, p.Ind[q], -1-p.Code[j])
			}
		}
	}
}
