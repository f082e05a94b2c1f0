package text

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// docGrams totals a document's n-grams into its distinct terms, each
// with its first n-gram and its count, and sorts them by shard.
func TestDocGrams(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var d docGrams
	for _, n := range []int{0, 1, 2, 7, 16, 17, 100, 1000, 5000} {
		for _, distinct := range []int{1, 3, n/2 + 1, n + 1} {
			keys := make([]uint64, distinct)
			for i := range keys {
				keys[i] = r.Uint64()
				if i%5 == 1 {
					keys[i] = keys[i-1] + 1 // neighbours: long probe runs
				}
			}
			grams := make([]gramRef, n)
			wantCount := map[uint64]float32{}
			wantFirst := map[uint64]int32{}
			var order []uint64
			for i := range grams {
				h := keys[r.IntN(distinct)]
				grams[i] = gramRef{h: h, end: int32(i), n: 1}
				if _, ok := wantCount[h]; !ok {
					wantFirst[h] = int32(i)
					order = append(order, h)
				}
				wantCount[h]++
			}
			d.total(grams)
			if len(d.grams) != len(order) {
				t.Fatalf("n=%d: %d distinct terms, want %d", n, len(d.grams), len(order))
			}
			for i, g := range d.grams {
				if g.h != order[i] || g.end != wantFirst[g.h] || d.counts[i] != wantCount[g.h] {
					t.Fatalf("n=%d: term %d is %+v ×%v, want %#x first at %d ×%v", n, i, g, d.counts[i], order[i], wantFirst[order[i]], wantCount[order[i]])
				}
			}
			for _, mask := range []uint64{0, 1, 7, 15} {
				d.byShard(mask)
				if len(d.starts) != int(mask)+2 || d.starts[0] != 0 || int(d.starts[mask+1]) != len(d.grams) {
					t.Fatalf("mask %d: starts %v for %d terms", mask, d.starts, len(d.grams))
				}
				seen := map[uint64]bool{}
				for k := range int(mask) + 1 {
					for i := d.starts[k]; i < d.starts[k+1]; i++ {
						g := d.shardGrams[i]
						if g.h&mask != uint64(k) || d.shardCounts[i] != wantCount[g.h] || seen[g.h] {
							t.Fatalf("mask %d: shard %d holds %+v ×%v", mask, k, g, d.shardCounts[i])
						}
						seen[g.h] = true
					}
				}
				if len(seen) != len(order) {
					t.Fatalf("mask %d: %d terms sorted of %d", mask, len(seen), len(order))
				}
			}
		}
	}
}

// Encoders counting at once in shared counts hold each term once, in the
// shard its hash picks, with the document frequencies and occurrences of
// all they counted; each row holds its distinct terms' hashes and counts.
func TestSharedCountsHoldEachTermOnce(t *testing.T) {
	c := bigCorpus(2, 300)
	cfg, err := Config{Vocabulary: true, NGrams: 2, MaxFeatures: 1}.normalize()
	if err != nil {
		t.Fatal(err)
	}
	f := &Featurizer{cfg: cfg}
	const workers = 4
	counts := newSharedCounts(workers, &vocabBudget{f: f}, true)
	pieces := make([]piece, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { pieces[w] = f.NewEncoder().sharedPiece(c.Docs, counts) })
	}
	wg.Wait()
	ref := f.NewEncoder()
	df, cf := map[uint64]int32{}, map[uint64]int64{}
	for r, d := range c.Docs {
		want := map[uint64]float32{}
		for _, g := range ref.w.appendGrams(nil, &ref.toks, d.Text) {
			want[g.h]++
		}
		for h, n := range want {
			df[h]++
			cf[h] += int64(n)
		}
		for w, pc := range pieces {
			if pc.err != nil {
				t.Fatalf("encoder %d: %v", w, pc.err)
			}
			got := map[uint64]float32{}
			for k := pc.indptr[r]; k < pc.indptr[r+1]; k++ {
				got[pc.hs[k]] = pc.val[k]
			}
			if !maps.Equal(got, want) {
				t.Fatalf("encoder %d, document %d: %d terms, want %d", w, r, len(got), len(want))
			}
		}
	}
	total := 0
	for k := range counts.shards {
		tc := &counts.shards[k].tc
		total += len(tc.stats)
		for i, st := range tc.stats {
			if st.h&counts.mask != uint64(k) || tc.hot[i].df != workers*df[st.h] || st.cf != workers*cf[st.h] {
				t.Fatalf("shard %d holds %#x in %d documents, %d times; want shard %d, %d and %d", k, st.h, tc.hot[i].df, st.cf, st.h&counts.mask, workers*df[st.h], workers*cf[st.h])
			}
		}
	}
	if total != len(df) {
		t.Errorf("%d terms held, %d distinct", total, len(df))
	}
}

// FitCache's workers count a vocabulary in counts they share, so that a
// term they all meet is held once: on a corpus whose every document holds
// the same terms, counts bounded to 1.5 times what the terms take drop
// none, however many workers count them (each holding its own counts,
// four workers would hold four times as much and drop terms).
func TestFitCacheHoldsATermOnce(t *testing.T) {
	words := make([]string, 600)
	need := int64(0)
	for i := range words {
		words[i] = fmt.Sprintf("word%d", i)
		need += termBytes(len(words[i]))
	}
	r := rand.New(rand.NewPCG(5, 6))
	var in strings.Builder
	for i := range 1500 {
		r.Shuffle(len(words), func(a, b int) { words[a], words[b] = words[b], words[a] })
		fmt.Fprintf(&in, "%d\t%s\n", i%2, strings.Join(words, " "))
	}
	cfg := Config{Vocabulary: true, IDF: true, Workers: 4}
	opt := ReadOptions{Format: TSV}
	exact, _, err := FitReader(strings.NewReader(in.String()), opt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res, err := FitCache(context.Background(), strings.NewReader(in.String()), opt, cfg, &buf, CacheOptions{TempDir: t.TempDir(), VocabBytes: need * 3 / 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pruned != 0 {
		t.Errorf("terms in up to %d documents dropped, of counts that needed %d bytes under a limit of %d", res.Pruned, need, need*3/2)
	}
	f := res.Featurizer
	if !slices.Equal(f.Vocabulary(), exact.Vocabulary()) || !slices.Equal(f.dfs(), exact.dfs()) {
		t.Errorf("vocabulary of %d terms, want FitReader's %d", f.Dim(), exact.Dim())
	}
}
