package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode"
)

var (
	defaultOnce   sync.Once
	defaultCorpus *Corpus
)

// corpus is the default parameters' Corpus, made once for all tests.
func corpus(t *testing.T) *Corpus {
	t.Helper()
	defaultOnce.Do(func() {
		c, err := NewCorpus(DefaultParams)
		if err != nil {
			panic(err)
		}
		defaultCorpus = c
	})
	return defaultCorpus
}

func gen(t *testing.T, c *Corpus, stream uint64, maxBytes, maxDocs int64, threads int) ([]byte, []byte, stats) {
	t.Helper()
	var js, ft bytes.Buffer
	st, err := generate(c, stream, maxBytes, maxDocs, &js, &ft, threads)
	if err != nil {
		t.Fatal(err)
	}
	return js.Bytes(), ft.Bytes(), st
}

// The same parameters give the same bytes whatever the goroutines, a
// smaller corpus is the beginning of a larger one, and the bytes are the
// ones this generator has always written (a change to the laws, the
// tables or the layout changes the hash: the benchmark's corpora would no
// longer be comparable with earlier ones).
func TestDeterministic(t *testing.T) {
	c := corpus(t)
	a, aft, ast := gen(t, c, 0, 3e6, -1, 1)
	b, bft, bst := gen(t, c, 0, 3e6, -1, 3)
	if !bytes.Equal(a, b) || !bytes.Equal(aft, bft) || ast != bst {
		t.Fatalf("1 and 3 goroutines wrote different corpora: %v and %v", ast, bst)
	}
	small, _, _ := gen(t, c, 0, 1e6, -1, 2)
	if !bytes.HasPrefix(a, small) {
		t.Fatal("the 1 MB corpus is not the beginning of the 3 MB one")
	}
	test, _, _ := gen(t, c, 1, -1, 100, 2)
	if bytes.Contains(a, test[bytes.Index(test, []byte(`"text"`)):bytes.IndexByte(test, '\n')]) {
		t.Fatal("the test stream's first document is in the training stream")
	}
	sum := sha256.Sum256(a)
	const want = "60524e46d18576e441158b34a237935602e68f0702e4d449e756242064263f72"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("SHA-256 of the first 3 MB: %s, want %s", got, want)
	}
}

// The training file is the shortest run of documents of at least the
// size asked; the test file has the documents asked.
func TestSizes(t *testing.T) {
	c := corpus(t)
	js, ft, st := gen(t, c, 0, 500000, -1, 2)
	if int64(len(js)) != st.bytes || int64(len(ft)) != st.ftBytes || st.bytes < 500000 {
		t.Fatalf("%d bytes (stats %v), want at least 500000", len(js), st)
	}
	lines := bytes.Split(bytes.TrimSuffix(js, []byte("\n")), []byte("\n"))
	if int64(len(lines)) != st.docs || st.bytes-int64(len(lines[len(lines)-1])+1) >= 500000 {
		t.Fatalf("%d lines for %d documents, or the last one was not needed", len(lines), st.docs)
	}
	if n := bytes.Count(ft, []byte("\n")); int64(n) != st.docs {
		t.Fatalf("%d fastText lines for %d documents", n, st.docs)
	}
	_, _, st = gen(t, c, 1, -1, 777, 2)
	if st.docs != 777 {
		t.Fatalf("%d test documents, want 777", st.docs)
	}
}

type jsonDoc struct {
	Label string `json:"label"`
	ID    int64  `json:"id"`
	Text  string `json:"text"`
}

// words splits text into its lowercased words as a tokenizer would, the
// paragraph breaks' "br" aside.
func words(text string) []string {
	text = strings.ReplaceAll(text, "<br /><br />", " ")
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) })
}

// sample is n training documents, parsed, with what Append reported.
func sample(t *testing.T, n int) ([]jsonDoc, []Doc, []string) {
	t.Helper()
	c := corpus(t)
	var s scratch
	var docs []jsonDoc
	var info []Doc
	var fts []string
	for i := range uint64(n) {
		js, ft, d := c.Append(nil, []byte{}, 0, i, &s)
		var jd jsonDoc
		if err := json.Unmarshal(js, &jd); err != nil {
			t.Fatalf("document %d is not JSON: %v\n%s", i, err, js)
		}
		if jd.ID != int64(i) || js[len(js)-1] != '\n' || bytes.Count(js, []byte("\n")) != 1 {
			t.Fatalf("document %d: id %d or not one line", i, jd.ID)
		}
		docs, info, fts = append(docs, jd), append(info, d), append(fts, string(ft))
	}
	return docs, info, fts
}

// The labels follow the planted rule, recomputed from the text as a
// learner sees it, except for a share of flips near the noise rate.
func TestPlantedRule(t *testing.T) {
	c := corpus(t)
	weight := map[string]int64{}
	for r := range sentEnd {
		if c.weight[r] != 0 {
			weight[string(appendWord(nil, r, false))] = int64(c.weight[r])
		}
	}
	if len(weight) < 500 || len(weight) > 3000 {
		t.Fatalf("%d sentiment words, want about a thousand", len(weight))
	}
	docs, info, _ := sample(t, 20000)
	flips, pos, ties := 0, 0, 0
	for i, d := range docs {
		var score int64
		for _, w := range words(d.Text) {
			score += weight[w]
		}
		rule := score > 0
		if score == 0 {
			ties++
		}
		got := d.Label == "pos"
		if d.Label != "pos" && d.Label != "neg" {
			t.Fatalf("document %d: label %q", i, d.Label)
		}
		if (got != rule) != info[i].Flipped || got != info[i].Pos || len(words(d.Text)) != info[i].Words {
			t.Fatalf("document %d: label %s, rule %v, Append said %+v, %d words", i, d.Label, rule, info[i], len(words(d.Text)))
		}
		if got != rule {
			flips++
		}
		if got {
			pos++
		}
	}
	t.Logf("%d documents: flipped %d, pos %d, no sentiment %d", len(docs), flips, pos, ties)
	// Binomial standard deviations: 0.0019 for the flips, 0.0035 for
	// the share of "pos".
	if rate := float64(flips) / float64(len(docs)); math.Abs(rate-DefaultParams.Noise) > 0.01 {
		t.Errorf("labels flipped in %.4f of documents, want %.2f", rate, DefaultParams.Noise)
	}
	if share := float64(pos) / float64(len(docs)); math.Abs(share-0.5) > 0.03 {
		t.Errorf("pos share %.4f, want about 0.5", share)
	}
	if share := float64(ties) / float64(len(docs)); share > 0.02 {
		t.Errorf("%.4f of documents have no sentiment (score 0), want under 0.02", share)
	}
}

// Word frequencies follow Zipf's law: the most frequent word's share is
// 1/H(V, s), and the tenth's is 10^-s of the first's, less the share of
// the words that the leaning replaces by sentiment words (which these two
// are not).
func TestZipf(t *testing.T) {
	docs, _, _ := sample(t, 5000)
	count := map[string]int{}
	total := 0
	for _, d := range docs {
		for _, w := range words(d.Text) {
			count[w]++
			total++
		}
	}
	p := DefaultParams
	var h float64
	for r := p.Vocab; r >= 1; r-- {
		h += math.Pow(float64(r), -p.Zipf)
	}
	h /= 1 - leanP/256.0
	first := float64(count[string(appendWord(nil, 0, false))]) / float64(total)
	tenth := float64(count[string(appendWord(nil, 9, false))]) / float64(total)
	t.Logf("shares: first %.4f (1/H %.4f), tenth %.5f; %d distinct words in %d", first, 1/h, tenth, len(count), total)
	// Over about 1.2M words: standard deviations about 0.0003 and 0.0001.
	if math.Abs(first-1/h) > 0.003 {
		t.Errorf("most frequent word's share %.4f, want 1/H = %.4f", first, 1/h)
	}
	if want := math.Pow(10, -p.Zipf) / h; math.Abs(tenth-want) > 0.001 {
		t.Errorf("tenth word's share %.5f, want %.5f", tenth, want)
	}
	if len(count) < 100000 {
		t.Errorf("%d distinct words in %d, want a long tail", len(count), total)
	}
}

// The sampler past the exact ranks: the blocks together draw the Zipf
// mass of their ranks, the ranks within a block equally, up to the last
// rank.
func TestRankTail(t *testing.T) {
	c := corpus(t)
	p := DefaultParams
	var h, tail float64
	for r := p.Vocab; r >= 1; r-- {
		h += math.Pow(float64(r), -p.Zipf)
		if r > exactRanks {
			tail += math.Pow(float64(r), -p.Zipf)
		}
	}
	const n = 4 << 20
	g := rng(3)
	inTail, offsets, last := 0, 0, 0
	for range n {
		r := c.rank(g.next())
		if r < 0 || r >= p.Vocab {
			t.Fatalf("rank %d out of [0, %d)", r, p.Vocab)
		}
		if r >= exactRanks {
			inTail++
			offsets += (r - exactRanks) % blockRanks
			last = max(last, r)
		}
	}
	share, want := float64(inTail)/n, tail/h
	mean := float64(offsets) / float64(inTail)
	t.Logf("tail share %.4f (Zipf %.4f), mean offset in a block %.2f, largest rank %d", share, want, mean, last)
	// Standard deviations: 0.0002 for the share, 0.04 for the mean offset.
	if math.Abs(share-want) > 0.002 || math.Abs(mean-(blockRanks-1)/2.0) > 0.3 || last < p.Vocab-20000 {
		t.Errorf("tail share %.4f, want %.4f; mean offset %.2f, want %.1f; largest rank %d", share, want, mean, (blockRanks-1)/2.0, last)
	}
}

// Document lengths are log-normal with the parameters' mu and sigma.
func TestLengths(t *testing.T) {
	c := corpus(t)
	var s scratch
	const n = 20000
	var sum, sum2 float64
	for i := range uint64(n) {
		_, _, d := c.Append(nil, nil, 0, i, &s)
		l := math.Log(float64(d.Words))
		sum += l
		sum2 += l * l
	}
	mu := sum / n
	sigma := math.Sqrt(sum2/n - mu*mu)
	t.Logf("ln(length): mean %.4f, sd %.4f", mu, sigma)
	// Standard error of mu: 0.645/√20000 = 0.0046.
	if math.Abs(mu-DefaultParams.LenMu) > 0.02 || math.Abs(sigma-DefaultParams.LenSigma) > 0.02 {
		t.Errorf("ln(length): mean %.4f, sd %.4f; want %g, %g", mu, sigma, DefaultParams.LenMu, DefaultParams.LenSigma)
	}
}

// Two ranks never give the same word, and the fastText form is the JSONL
// text lowercased with punctuation split off.
func TestWordsAndForms(t *testing.T) {
	seen := map[string]int{}
	check := func(r int) {
		w := string(appendWord(nil, r, false))
		if q, ok := seen[w]; ok && q != r {
			t.Fatalf("ranks %d and %d both give %q", q, r, w)
		}
		seen[w] = r
		if tw := string(appendWord(nil, r, true)); tw != strings.ToUpper(w[:1])+w[1:] {
			t.Fatalf("rank %d: title form %q of %q", r, tw, w)
		}
	}
	for r := range 70000 {
		check(r)
	}
	g := rng(7)
	for range 100000 {
		check(70000 + int(g.next()%uint64(DefaultParams.Vocab-70000)))
	}
	docs, _, fts := sample(t, 200)
	for i, d := range docs {
		text := strings.ReplaceAll(d.Text, "<br /><br />", " < br / > < br / > ")
		for _, p := range []string{",", ".", "!", "?"} {
			text = strings.ReplaceAll(text, p, " "+p+" ")
		}
		want := "__label__" + d.Label + " " + strings.Join(strings.Fields(strings.ToLower(text)), " ") + "\n"
		if fts[i] != want {
			t.Fatalf("document %d's fastText line\n%q\nwant\n%q", i, fts[i], want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"200MB": 200e6, "1.5GB": 1.5e9, "2GiB": 2 << 30, "12345": 12345, "10kB": 10e3, "3B": 3} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MB", "-1GB", "0", "1XB", "NaN", "1e20GB"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
}

func TestBadParams(t *testing.T) {
	for _, p := range []Params{{Vocab: 100, Zipf: 1}, {Vocab: 1 << 20, Zipf: 0}, {Vocab: 1 << 20, Zipf: 1, Noise: 0.7},
		{Vocab: 1 << 20, Zipf: 1, LenMu: math.NaN()}, {Vocab: 1 << 20, Zipf: 1, LenSigma: -1}} {
		if _, err := NewCorpus(p); !errors.Is(err, ErrParams) {
			t.Errorf("NewCorpus(%+v): %v, want ErrParams", p, err)
		}
	}
}

// run writes the files and a manifest naming them.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	p := DefaultParams
	p.Vocab = 1 << 16
	var out bytes.Buffer
	if err := run(&out, p, 200000, 50, true, 2, dir); err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(filepath.Join(dir, "manifest.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"train.jsonl", "test.jsonl", "train.ft", "test.ft"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(string(m), "vocab=65536 zipf=1.07") || !strings.Contains(string(m), "test docs=50 ") {
		t.Errorf("manifest:\n%s", m)
	}
}
