package beam

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// writeTextShards writes a JSONL corpus of docs documents of three
// labels, whose words lean towards their label, as n contiguous shards
// (the last gzip-compressed) in dir, and returns the shards' glob and the
// whole text.
func writeTextShards(t *testing.T, dir string, n, docs int) (string, string) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 8))
	labels := []string{"sports", "science", "arts"}
	lines := make([]string, docs)
	for i := range lines {
		l := r.IntN(len(labels))
		var words []string
		for range 6 + r.IntN(10) {
			if r.IntN(3) == 0 {
				words = append(words, fmt.Sprintf("%s%d", labels[l][:3], r.IntN(20)))
			} else {
				words = append(words, fmt.Sprintf("w%d", r.IntN(200)))
			}
		}
		lines[i] = fmt.Sprintf("{\"label\":%q,\"text\":%q}\n", labels[l], strings.Join(words, " "))
	}
	for k := range n {
		part := []byte(strings.Join(lines[k*docs/n:(k+1)*docs/n], ""))
		name := filepath.Join(dir, fmt.Sprintf("part%d.jsonl", k))
		if k == n-1 {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(part)
			zw.Close()
			part, name = b.Bytes(), name+".gz"
		}
		if err := os.WriteFile(name, part, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "part*"), strings.Join(lines, "")
}

// TestTrainTextMatchesOneProcess trains on text shards on Prism and
// checks that the featurizer is the one fitted on all the text in one
// process, bit for bit, and that the model is engine.Fit's with as many
// workers as shards on that featurizer's output (without shuffling,
// Fit's workers learn the same contiguous shards).
func TestTrainTextMatchesOneProcess(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			trainTextLikeOneProcess(t, n, text.Config{NGrams: 2, TF: text.Log, IDF: true})
		})
	}
}

// TestTrainTextVocabulary is TestTrainTextMatchesOneProcess with a
// vocabulary fitted on the term counts of the shards, summed: with MinDF
// on 2 shards, with MaxFeatures (which ranks terms by their occurrences)
// on 3.
func TestTrainTextVocabulary(t *testing.T) {
	for n, tcfg := range map[int]text.Config{
		2: {NGrams: 2, TF: text.Log, IDF: true, Vocabulary: true, MinDF: 2},
		3: {NGrams: 2, TF: text.Log, IDF: true, Vocabulary: true, MinDF: 2, MaxFeatures: 150},
	} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			f := trainTextLikeOneProcess(t, n, tcfg)
			if f.Dim() < 100 || tcfg.MaxFeatures > 0 && f.Dim() != tcfg.MaxFeatures {
				t.Errorf("%d vocabulary terms", f.Dim())
			}
		})
	}
}

// trainTextLikeOneProcess trains on n text shards with tcfg on Prism and
// checks that the featurizer is the one fitted on all the text in one
// process, bit for bit, and that the model is engine.Fit's with as many
// workers as shards on that featurizer's output (without shuffling,
// Fit's workers learn the same contiguous shards). It returns the
// featurizer.
func trainTextLikeOneProcess(t *testing.T, n int, tcfg text.Config) *text.Featurizer {
	t.Helper()
	glob, all := writeTextShards(t, t.TempDir(), n, 300)
	cfg := engine.Config{Algorithm: engine.Averaged, Rule: engine.PA2, Normalize: true, Epochs: 3, NoShuffle: true}
	got, _, err := TrainText(context.Background(), TextOptions{Options: Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: cfg}, Text: tcfg})
	if err != nil {
		t.Fatal(err)
	}
	f, d, err := text.FitReader(strings.NewReader(all), text.ReadOptions{}, tcfg)
	if err != nil {
		t.Fatal(err)
	}
	wb, _ := f.MarshalBinary()
	gb, _ := got.Featurizer().MarshalBinary()
	if !bytes.Equal(wb, gb) {
		t.Fatalf("the featurizer differs from the one fitted in one process")
	}
	cfg.Workers = n
	want, _, err := engine.Fit(context.Background(), d.X, d.Y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sameWeights(t, "TrainText against Fit with Workers", got.Classifier().(*engine.Model), want, 0)
	if l := got.Classify("sci3 sci7 w1"); l != "science" {
		t.Errorf("classified a science document as %q", l)
	}
	return f
}

func TestTrainTextRefuses(t *testing.T) {
	glob, _ := writeTextShards(t, t.TempDir(), 2, 20)
	for _, c := range []TextOptions{
		{Options: Options{Shards: []string{glob}, Workdir: t.TempDir()}, Text: text.Config{Vocabulary: true, Bits: 12}},
		{Options: Options{Shards: []string{glob}, Workdir: t.TempDir()}, Text: text.Config{MinDF: 2}},
		{Options: Options{Shards: []string{glob}, Workdir: t.TempDir()}, Text: text.Config{Bits: 99}},
		{Options: Options{Workdir: t.TempDir()}, Text: text.Config{Vocabulary: true}},
		{Options: Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: engine.Config{Workers: 2}}},
	} {
		if _, _, err := TrainText(context.Background(), c); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: err %v, want ErrOptions", c.Text, err)
		}
	}
}

// TestFeaturizeDealsRows checks that a shard sorted by label goes to its
// cache in a shuffled order, the same rows, unless NoShuffle: a cache is
// shuffled a block at a time, which leaves runs of one class.
func TestFeaturizeDealsRows(t *testing.T) {
	dir, work := t.TempDir(), t.TempDir()
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "{\"label\":\"%d\",\"text\":\"w%d x%d\"}\n", i/100, i/100, i%13)
	}
	name := filepath.Join(dir, "sorted.jsonl")
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	fit := textFit{Config: text.Config{NGrams: 2, TF: text.Log, IDF: true, Bits: 10}}
	f, _, err := text.FitFile(name, text.ReadOptions{}, fit.Config)
	if err != nil {
		t.Fatal(err)
	}
	fb, _ := f.MarshalBinary()
	if err := os.WriteFile(featurizerPath(work), fb, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, noShuffle := range []bool{true, false} {
		fn := &featurizeFn{Fit: fit, Shards: []string{name}, Featurizer: featurizerPath(work), Workdir: work, NoShuffle: noShuffle, Seed: 3}
		if err := fn.ProcessElement(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		d, err := sparse.ReadFile(textShardPath(work, 0, 1), sparse.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		runs, ones := 1, 0
		for i, y := range d.Y {
			if i > 0 && y != d.Y[i-1] {
				runs++
			}
			if y == 1 {
				ones++
			}
		}
		if d.X.Rows != 200 || ones != 100 {
			t.Fatalf("NoShuffle %v: %d rows, %d of label 1", noShuffle, d.X.Rows, ones)
		}
		if noShuffle && runs != 2 || !noShuffle && runs < 50 {
			t.Errorf("NoShuffle %v: %d runs of one label in 200 rows", noShuffle, runs)
		}
	}
}

// TestTextWorkFiles: TrainText's files in the work directory are work
// files, which the command refuses as its model file.
func TestTextWorkFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{textCountsPath(dir), featurizerPath(dir), textShardPath(dir, 1, 4)} {
		if !WorkFile(dir, name) {
			t.Errorf("%s is not a work file", name)
		}
	}
	if WorkFile(dir, filepath.Join(dir, "text-model.hptm")) {
		t.Error("text-model.hptm is a work file")
	}
}

// TestTrainTextEmptyShard: a text shard without documents is an error
// that names it, with hashing and with a vocabulary.
func TestTrainTextEmptyShard(t *testing.T) {
	dir := t.TempDir()
	glob, _ := writeTextShards(t, dir, 2, 40)
	empty := filepath.Join(dir, "part9.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, vocab := range []bool{false, true} {
		opt := TextOptions{Options: Options{Shards: []string{glob}, Workdir: t.TempDir(), Config: engine.Config{Epochs: 1}},
			Text: text.Config{Vocabulary: vocab}}
		_, _, err := TrainText(context.Background(), opt)
		if err == nil || !strings.Contains(err.Error(), "part9.jsonl holds no documents") {
			t.Errorf("vocabulary %v: err %v, want the empty shard named", vocab, err)
		}
	}
}

// TestSumTermCounts: the sum of term counts is the same, term by term,
// whatever order the counts are merged in.
func TestSumTermCounts(t *testing.T) {
	parts := []textCounts{
		{Docs: 2, Labels: []string{"a"}, Terms: []string{"x", "y z", "z"}, TermDF: []int32{1, 2, 1}, TermCF: []int64{1, 3, 1}},
		{Docs: 3, Labels: []string{"b"}, Terms: []string{"w", "y z"}, TermDF: []int32{3, 1}, TermCF: []int64{4, 1}},
		{Docs: 1, Labels: []string{"a"}, Terms: []string{"x", "zz"}, TermDF: []int32{1, 1}, TermCF: []int64{2, 1}},
	}
	want := textCounts{Docs: 6, Labels: []string{"a", "b"}, Terms: []string{"w", "x", "y z", "z", "zz"},
		TermDF: []int32{3, 2, 3, 1, 1}, TermCF: []int64{4, 3, 4, 1, 1}}
	var fn sumCountsFn
	merge := func(a, b textCounts) textCounts {
		s, err := fn.MergeAccumulators(a, b)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, got := range []textCounts{
		merge(merge(parts[0], parts[1]), parts[2]),
		merge(parts[2], merge(parts[1], parts[0])),
		merge(merge(parts[2], parts[0]), parts[1]),
	} {
		got.Ind, got.DF = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("sum %+v, want %+v", got, want)
		}
	}
	kept := keepTerms(want, 2)
	if !reflect.DeepEqual(kept.Terms, []string{"w", "x", "y z"}) || !reflect.DeepEqual(kept.TermCF, []int64{4, 3, 4}) {
		t.Errorf("terms in 2 documents or more: %v %v", kept.Terms, kept.TermCF)
	}
}
