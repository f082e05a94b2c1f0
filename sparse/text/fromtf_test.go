package text

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// termCorpus returns JSONL documents of three labels whose words (and
// so pairs) repeat across documents at many frequencies, ties included.
func termCorpus(docs int) []string {
	r := rand.New(rand.NewPCG(3, 4))
	labels := []string{"pos", "neg", "meh"}
	lines := make([]string, docs)
	for i := range lines {
		l := r.IntN(len(labels))
		var words []string
		for range 4 + r.IntN(12) {
			if r.IntN(3) == 0 {
				words = append(words, fmt.Sprintf("%s%d", labels[l], r.IntN(15)))
			} else {
				words = append(words, fmt.Sprintf("W%d", r.IntN(120)))
			}
		}
		lines[i] = fmt.Sprintf("{\"label\":%q,\"text\":%q}\n", labels[l], strings.Join(words, " "))
	}
	return lines
}

// summedCounts counts the terms of every file in files with its own
// TermCounter, as the workers of a spread fit would, and sums them by
// term; the terms come back in a shuffled order.
func summedCounts(t *testing.T, cfg Config, files []string) (int, []string, []string, []int32, []int64) {
	t.Helper()
	df, cf := map[string]int32{}, map[string]int64{}
	labels := map[string]bool{}
	n := 0
	for _, name := range files {
		c, err := ReadFile(name, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tc, err := NewTermCounter(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range c.Docs {
			if err := tc.Add(d.Text); err != nil {
				t.Fatal(err)
			}
			labels[d.Label] = true
		}
		n += tc.Docs()
		terms, tdf, tcf := tc.Counts()
		if (tcf != nil) != (cfg.MaxFeatures > 0) {
			t.Fatalf("MaxFeatures %d: occurrences counted %v", cfg.MaxFeatures, tcf != nil)
		}
		for k, term := range terms {
			if k > 0 && terms[k-1] >= term {
				t.Fatalf("Counts: terms not sorted at %d: %q, %q", k, terms[k-1], term)
			}
			df[term] += tdf[k]
			if tcf != nil {
				cf[term] += tcf[k]
			}
		}
	}
	var names, terms []string
	for l := range labels {
		names = append(names, l)
	}
	for term := range df {
		terms = append(terms, term)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(terms), func(a, b int) { terms[a], terms[b] = terms[b], terms[a] })
	tdf, tcf := make([]int32, len(terms)), make([]int64, len(terms))
	for k, term := range terms {
		tdf[k], tcf[k] = df[term], cf[term]
	}
	return n, names, terms, tdf, tcf
}

// TestFromTermFrequenciesEqualsFitFile: the term counts of 2 and 3 files
// (the last gzip-compressed), summed, make the featurizer FitFile fits on
// all of them, bit for bit, whatever MinDF and MaxFeatures.
func TestFromTermFrequenciesEqualsFitFile(t *testing.T) {
	lines := termCorpus(400)
	dir := t.TempDir()
	all := filepath.Join(dir, "all.jsonl")
	if err := os.WriteFile(all, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgs := []Config{
		{NGrams: 2, TF: Log, IDF: true, Vocabulary: true, MinDF: 2},
		{NGrams: 2, TF: Log, IDF: true, Vocabulary: true, MaxFeatures: 150},
		{NGrams: 3, Vocabulary: true, MinDF: 2, MaxFeatures: 300},
		{Vocabulary: true},
	}
	for _, n := range []int{2, 3} {
		var files []string
		for k := range n {
			part := strings.Join(lines[k*len(lines)/n:(k+1)*len(lines)/n], "")
			name := filepath.Join(dir, fmt.Sprintf("part%d-of-%d.jsonl", k, n))
			b := []byte(part)
			if k == n-1 {
				b, name = gz(t, part), name+".gz"
			}
			if err := os.WriteFile(name, b, 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, name)
		}
		for _, cfg := range cfgs {
			want, _, err := FitFile(all, ReadOptions{}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			docs, labels, terms, df, cf := summedCounts(t, cfg, files)
			got, err := FromTermFrequencies(cfg, ReadOptions{}, docs, labels, terms, df, cf)
			if err != nil {
				t.Fatal(err)
			}
			wb, _ := want.MarshalBinary()
			gb, _ := got.MarshalBinary()
			if !bytes.Equal(wb, gb) {
				t.Errorf("%d parts, %+v: the featurizer of summed counts differs from FitFile's (%d terms and %d)", n, cfg, got.Dim(), want.Dim())
			}
			if cfg.MaxFeatures > 0 && want.Dim() != cfg.MaxFeatures {
				t.Errorf("%+v: %d terms, want MaxFeatures of them", cfg, want.Dim())
			}
		}
	}
}

func TestFromTermFrequenciesRefuses(t *testing.T) {
	voc := Config{Vocabulary: true, NGrams: 2}
	top := Config{Vocabulary: true, MaxFeatures: 1}
	for _, c := range []struct {
		cfg   Config
		n     int
		terms []string
		df    []int32
		cf    []int64
		want  error
	}{
		{Config{}, 2, []string{"a"}, []int32{1}, nil, ErrConfig},
		{voc, 0, nil, nil, nil, ErrEmpty},
		{voc, 2, []string{"a", "a"}, []int32{1, 1}, nil, ErrConfig},
		{voc, 2, []string{"a"}, []int32{0}, nil, ErrConfig},
		{voc, 2, []string{"a"}, []int32{3}, nil, ErrConfig},
		{voc, 2, []string{"a"}, nil, nil, ErrConfig},
		{voc, 2, []string{"a b c"}, []int32{1}, nil, ErrConfig},
		{voc, 2, []string{"Ab"}, []int32{1}, nil, ErrConfig},
		{voc, 2, []string{"a  b"}, []int32{1}, nil, ErrConfig},
		{top, 2, []string{"a"}, []int32{2}, nil, ErrConfig},
		{top, 2, []string{"a"}, []int32{2}, []int64{1}, ErrConfig},
	} {
		_, err := FromTermFrequencies(c.cfg, ReadOptions{}, c.n, []string{"x"}, c.terms, c.df, c.cf)
		if !errors.Is(err, c.want) {
			t.Errorf("%+v: err %v, want %v", c, err, c.want)
		}
	}
	if _, err := NewTermCounter(Config{}); !errors.Is(err, ErrConfig) {
		t.Errorf("NewTermCounter of a hashing configuration: err %v", err)
	}
}

// TestTermCountsOverBudget: counting terms and fitting on counts both
// refuse what would take more memory than the budget.
func TestTermCountsOverBudget(t *testing.T) {
	defer budget.Set(budget.Set(1 << 20))
	tc, err := NewTermCounter(Config{Vocabulary: true, NGrams: 3})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "w%d ", i)
	}
	doc := b.String()
	for i := 0; err == nil && i < 100; i++ {
		err = tc.Add(strings.ReplaceAll(doc, "w", fmt.Sprintf("v%d", i)))
	}
	if !errors.Is(err, budget.ErrExceeded) {
		t.Errorf("counting: err %v, want budget.ErrExceeded", err)
	}
	terms := strings.Fields(doc)
	for i := range terms {
		terms[i] += strings.Repeat("x", 200)
	}
	df := make([]int32, len(terms))
	for i := range df {
		df[i] = 1
	}
	if _, err := FromTermFrequencies(Config{Vocabulary: true}, ReadOptions{}, 1, []string{"a"}, terms, df, nil); !errors.Is(err, budget.ErrExceeded) {
		t.Errorf("fitting: err %v, want budget.ErrExceeded", err)
	}
}
