package text

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// countDF counts, as a worker of a spread fit would, the documents, labels
// and buckets' document frequencies of the JSONL text src with a
// featurizer of cfg less IDF.
func countDF(t *testing.T, cfg Config, src string, df map[int32]int32, labels map[string]struct{}) int {
	t.Helper()
	plain := cfg
	plain.IDF = false
	cf, err := FromDocumentFrequencies(plain, ReadOptions{}, 1, []string{"x"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := NewScanner(strings.NewReader(src), ReadOptions{})
	n := 0
	for sc.Scan() {
		d := sc.Doc()
		for _, j := range cf.Transform(d.Text).Ind {
			df[j]++
		}
		labels[d.Label] = struct{}{}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFromDocumentFrequenciesEqualsFit(t *testing.T) {
	var parts [3]strings.Builder
	for i := range 90 {
		label := []string{"pos", "neg", "meh"}[i%3]
		fmt.Fprintf(&parts[i%3], "{\"label\":%q,\"text\":\"doc %d says %s words w%d w%d and more\"}\n", label, i, label, i%7, i%11)
	}
	var all strings.Builder
	for i := range parts {
		all.WriteString(parts[i].String())
	}
	for _, bits := range []int{0, 12} {
		cfg := Config{NGrams: 2, TF: Log, IDF: true, Bits: bits}
		want, _, err := FitReader(strings.NewReader(all.String()), ReadOptions{}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		df := map[int32]int32{}
		labels := map[string]struct{}{}
		n := 0
		for i := range parts {
			n += countDF(t, cfg, parts[i].String(), df, labels)
		}
		var ind, cnt []int32
		for j := range int32(want.Dim()) {
			if c := df[j]; c > 0 {
				ind, cnt = append(ind, j), append(cnt, c)
			}
		}
		var names []string
		for l := range labels {
			names = append(names, l)
		}
		got, err := FromDocumentFrequencies(cfg, ReadOptions{}, n, names, ind, cnt)
		if err != nil {
			t.Fatal(err)
		}
		wb, _ := want.MarshalBinary()
		gb, _ := got.MarshalBinary()
		if !bytes.Equal(wb, gb) {
			t.Errorf("bits %d: the featurizer from counted frequencies differs from the fitted one (%d and %d bytes)", bits, len(gb), len(wb))
		}
		doc := "doc 5 says pos words w5 and more unseen"
		if a, b := want.Transform(doc), got.Transform(doc); fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("bits %d: Transform %v, want %v", bits, b, a)
		}
	}
}

func TestFromDocumentFrequenciesRefuses(t *testing.T) {
	cfg := Config{IDF: true, Bits: 4}
	for _, c := range []struct {
		cfg       Config
		n         int
		ind, cnt  []int32
		wantEmpty bool
	}{
		{Config{Vocabulary: true}, 1, nil, nil, false},
		{cfg, 0, nil, nil, true},
		{cfg, 2, []int32{3, 3}, []int32{1, 1}, false},
		{cfg, 2, []int32{16}, []int32{1}, false},
		{cfg, 2, []int32{1}, []int32{3}, false},
		{cfg, 2, []int32{1}, nil, false},
		{Config{Bits: 4}, 2, []int32{1}, []int32{1}, false},
	} {
		_, err := FromDocumentFrequencies(c.cfg, ReadOptions{}, c.n, []string{"a"}, c.ind, c.cnt)
		want := ErrConfig
		if c.wantEmpty {
			want = ErrEmpty
		}
		if !errors.Is(err, want) {
			t.Errorf("%+v: err %v, want %v", c, err, want)
		}
	}
}
