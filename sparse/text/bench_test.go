package text

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// synthCorpus generates n review-like documents of about size bytes each:
// words drawn from a Zipf-distributed vocabulary, some capitalized, a few
// with accents, with punctuation and the odd HTML tag, as in IMDB reviews.
func synthCorpus(n, size int, seed uint64) *Corpus {
	r := rand.New(rand.NewPCG(seed, 1))
	const vocabSize = 20000
	vocab := make([]string, vocabSize)
	letters := "etaoinshrdlcumwfgypbvkjxqz"
	for i := range vocab {
		l := 1 + int(r.ExpFloat64()*4)
		var sb strings.Builder
		for range l {
			sb.WriteByte(letters[min(int(r.ExpFloat64()*6), len(letters)-1)])
		}
		if i%97 == 0 {
			sb.WriteString("é")
		}
		vocab[i] = sb.String()
	}
	zipf := rand.NewZipf(r, 1.1, 2, vocabSize-1)
	c := &Corpus{Name: "synth"}
	for i := range n {
		var sb strings.Builder
		sentenceStart := true
		for sb.Len() < size {
			w := vocab[zipf.Uint64()]
			if sentenceStart {
				w = strings.ToUpper(w[:1]) + w[1:]
				sentenceStart = false
			}
			sb.WriteString(w)
			switch x := r.IntN(100); {
			case x < 7:
				sb.WriteString(". ")
				sentenceStart = true
			case x < 11:
				sb.WriteString(", ")
			case x == 11:
				sb.WriteString("<br /><br />")
			default:
				sb.WriteByte(' ')
			}
		}
		label := "neg"
		if i%2 == 1 {
			label = "pos"
		}
		c.Docs = append(c.Docs, Doc{Label: label, Text: sb.String(), Line: i + 1})
	}
	return c
}

func corpusBytes(c *Corpus) int64 {
	var n int64
	for _, d := range c.Docs {
		n += int64(len(d.Text))
	}
	return n
}

// BenchmarkVectorize measures Vectorize in MB/s of raw text, on one
// worker and on all cores, for the default configuration and for
// bigrams with tf-idf.
func BenchmarkVectorize(b *testing.B) {
	c := synthCorpus(4000, 1300, 1)
	configs := []struct {
		name string
		cfg  Config
	}{
		{"unigram", Config{}},
		{"bigram-tfidf-22", Config{NGrams: 2, Bits: 22, IDF: true}},
		{"bigram-vocab", Config{NGrams: 2, Vocabulary: true, IDF: true}},
	}
	for _, tc := range configs {
		for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(b *testing.B) {
				cfg := tc.cfg
				cfg.Workers = workers
				f, err := Fit(c, cfg)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(corpusBytes(c))
				b.ResetTimer()
				for range b.N {
					if _, err := f.Vectorize(c); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// fitBenchConfigs are the fits BenchmarkFit and BenchmarkFitCache
// measure: hashed document frequencies, and a vocabulary.
var fitBenchConfigs = []struct {
	name string
	cfg  Config
}{
	{"bigram-tfidf-22", Config{NGrams: 2, Bits: 22, IDF: true}},
	{"bigram-vocab", Config{NGrams: 2, Vocabulary: true, IDF: true}},
}

// BenchmarkFit measures fitting (document frequencies or vocabulary).
func BenchmarkFit(b *testing.B) {
	c := synthCorpus(4000, 1300, 1)
	for _, tc := range fitBenchConfigs {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(corpusBytes(c))
			for range b.N {
				if _, err := Fit(c, tc.cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFitCache measures FitCache's two passes over TSV text, its
// rows written to nowhere: the vocabulary's shared counts, or the
// hashed document frequencies.
func BenchmarkFitCache(b *testing.B) {
	c := synthCorpus(4000, 1300, 1)
	var in strings.Builder
	for _, d := range c.Docs {
		fmt.Fprintf(&in, "%s\t%s\n", d.Label, strings.ReplaceAll(d.Text, "\n", " "))
	}
	text := in.String()
	for _, tc := range fitBenchConfigs {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			co := CacheOptions{TempDir: b.TempDir()}
			for range b.N {
				if _, err := FitCache(context.Background(), strings.NewReader(text), ReadOptions{Format: TSV}, tc.cfg, io.Discard, co); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTransform measures one document at a time through an Encoder
// (it should not allocate).
func BenchmarkTransform(b *testing.B) {
	c := synthCorpus(200, 1300, 2)
	f, err := Fit(c, Config{NGrams: 2, IDF: true})
	if err != nil {
		b.Fatal(err)
	}
	e := f.NewEncoder()
	b.SetBytes(corpusBytes(c) / int64(len(c.Docs)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		e.Transform(c.Docs[i%len(c.Docs)].Text)
	}
}

func synthJSONL(c *Corpus) []byte {
	var buf bytes.Buffer
	for i, d := range c.Docs {
		t, _ := json.Marshal(d.Text)
		fmt.Fprintf(&buf, `{"label": %q, "split": "train", "id": %d, "rating": 7, "text": %s}`+"\n", d.Label, i, t)
	}
	return buf.Bytes()
}

// BenchmarkReadJSONL measures Read on JSONL input in MB/s of input, and
// decoding the same lines with encoding/json for comparison.
func BenchmarkReadJSONL(b *testing.B) {
	data := synthJSONL(synthCorpus(4000, 1300, 3))
	b.Run("Read", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			if _, err := Read(bytes.NewReader(data), ReadOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			var docs []Doc
			for line := range bytes.Lines(data) {
				var v struct {
					Label string `json:"label"`
					Text  string `json:"text"`
				}
				if err := json.Unmarshal(line, &v); err != nil {
					b.Fatal(err)
				}
				docs = append(docs, Doc{Label: v.Label, Text: v.Text})
			}
		}
	})
}

// BenchmarkTransformSparseIDF is BenchmarkTransform with 2^26 buckets, of
// which the documents touch few: the idf weights are a hash table of
// those (it should not allocate either).
func BenchmarkTransformSparseIDF(b *testing.B) {
	c := synthCorpus(200, 1300, 2)
	f, err := Fit(c, Config{NGrams: 2, Bits: 26, IDF: true})
	if err != nil {
		b.Fatal(err)
	}
	e := f.NewEncoder()
	b.SetBytes(corpusBytes(c) / int64(len(c.Docs)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		e.Transform(c.Docs[i%len(c.Docs)].Text)
	}
}
