// Command scaletext writes a deterministic labelled text corpus of a given
// size for bench/scale_text.sh: JSONL lines as imdb's,
// {"label": "pos", "id": 7, "text": "..."}, of synthetic but word-like
// text.
//
//	scaletext [flags] -size SIZE DIR
//
// writes DIR/train.jsonl (the shortest run of documents of at least SIZE
// bytes: 200MB, 1.5GB, 2GiB, or a number of bytes), DIR/test.jsonl
// (-test-docs documents drawn apart from the training ones, by the same
// laws), with -fasttext the same documents in fastText's format as
// DIR/train.ft and DIR/test.ft, and last DIR/manifest.txt, the parameters
// and what was written (removed first, so a manifest names complete
// files). The summary goes to standard output too.
//
// The text: words from a vocabulary of -vocab syllable strings whose
// frequencies follow Zipf's law with exponent -zipf; document lengths in
// words log-normal with -len-mu and -len-sigma (by default imdb train's);
// sentences with commas, capitals, '.', '!' and '?', and paragraph
// breaks written "<br /><br />" as in imdb. The labels: a planted linear
// rule over about 1,300 words with signed weights (see corpus.go), each
// label then flipped with probability -noise, so the best accuracy any
// classifier can expect is 1 − noise; the summary gives the rule's own
// accuracy on the test file, the ceiling for that file.
//
// The same flags give the same bytes, whatever -threads, and a corpus is
// the beginning of any larger one of the same parameters.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

func main() {
	p := DefaultParams
	flag.IntVar(&p.Vocab, "vocab", p.Vocab, "distinct words")
	flag.Float64Var(&p.Zipf, "zipf", p.Zipf, "Zipf exponent of word frequencies")
	flag.Float64Var(&p.LenMu, "len-mu", p.LenMu, "mean of ln(document length in words)")
	flag.Float64Var(&p.LenSigma, "len-sigma", p.LenSigma, "standard deviation of ln(document length in words)")
	flag.Float64Var(&p.Noise, "noise", p.Noise, "probability of a label flip")
	flag.Uint64Var(&p.Seed, "seed", p.Seed, "seed")
	size := flag.String("size", "", "training file size: bytes, or a number with kB, MB, GB, KiB, MiB or GiB")
	testDocs := flag.Int64("test-docs", 25000, "documents in the test file")
	ft := flag.Bool("fasttext", false, "also write train.ft and test.ft in fastText's format")
	printParams := flag.Bool("print-params", false, "print the manifest's parameters line for these flags (without fasttext=) and exit")
	threads := flag.Int("threads", runtime.GOMAXPROCS(0), "goroutines drawing documents (the bytes do not depend on it)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: scaletext [flags] -size SIZE DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *printParams && *size != "" {
		n, err := parseSize(*size)
		if err != nil {
			fmt.Fprintln(os.Stderr, "scaletext:", err)
			os.Exit(2)
		}
		fmt.Println(paramsLine(p, n, *testDocs))
		return
	}
	if flag.NArg() != 1 || *size == "" {
		flag.Usage()
		os.Exit(2)
	}
	n, err := parseSize(*size)
	if err == nil && *testDocs < 0 {
		err = fmt.Errorf("-test-docs %d is negative", *testDocs)
	}
	if err == nil {
		err = run(os.Stdout, p, n, *testDocs, *ft, max(1, *threads), flag.Arg(0))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaletext:", err)
		os.Exit(1)
	}
}

// parseSize reads 200MB, 1.5GB, 2GiB or 12345 as a number of bytes
// (kB, MB, GB, TB decimal; KiB, MiB, GiB, TiB binary).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	num, mult := s, 1.0
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || !(x > 0) || x*mult > 1<<50 {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, e.g. 200MB, 1.5GB, 2GiB", s)
	}
	return int64(x * mult), nil
}

// stats sums what a file holds.
type stats struct {
	docs, bytes, ftBytes, words, pos, flipped int64
}

func (s stats) String() string {
	return fmt.Sprintf("docs=%d bytes=%d words=%d pos_share=%.4f flipped=%.4f rule_accuracy=%.4f fasttext_bytes=%d",
		s.docs, s.bytes, s.words, float64(s.pos)/float64(s.docs), float64(s.flipped)/float64(s.docs),
		1-float64(s.flipped)/float64(s.docs), s.ftBytes)
}

func run(stdout io.Writer, p Params, size, testDocs int64, ft bool, threads int, dir string) error {
	c, err := NewCorpus(p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	manifest := filepath.Join(dir, "manifest.txt")
	if err := os.Remove(manifest); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	lines := []string{fmt.Sprintf("params %s fasttext=%t", paramsLine(p, size, testDocs), ft)}
	for _, f := range []struct {
		name   string
		stream uint64
		bytes  int64
		docs   int64
	}{{"train", 0, size, -1}, {"test", 1, -1, testDocs}} {
		t0 := time.Now()
		st, err := writeFiles(c, dir, f.name, ft, f.stream, f.bytes, f.docs, threads)
		if err != nil {
			return err
		}
		secs := time.Since(t0).Seconds()
		line := fmt.Sprintf("%s %v", f.name, st)
		lines = append(lines, line)
		fmt.Fprintf(stdout, "%s seconds=%.2f MB/s=%.0f\n", line, secs, float64(st.bytes+st.ftBytes)/secs/1e6)
	}
	return os.WriteFile(manifest, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// paramsLine names a corpus in its manifest.
func paramsLine(p Params, size, testDocs int64) string {
	return fmt.Sprintf("vocab=%d zipf=%g len_mu=%g len_sigma=%g noise=%g seed=%d size=%d test_docs=%d",
		p.Vocab, p.Zipf, p.LenMu, p.LenSigma, p.Noise, p.Seed, size, testDocs)
}

// writeFiles writes name.jsonl (and name.ft) in dir.
func writeFiles(c *Corpus, dir, name string, ft bool, stream uint64, maxBytes, maxDocs int64, threads int) (stats, error) {
	js, err := os.Create(filepath.Join(dir, name+".jsonl"))
	if err != nil {
		return stats{}, err
	}
	defer js.Close()
	var ftw io.Writer
	var ftf *os.File
	if ft {
		if ftf, err = os.Create(filepath.Join(dir, name+".ft")); err != nil {
			return stats{}, err
		}
		defer ftf.Close()
		ftw = ftf
	}
	st, err := generate(c, stream, maxBytes, maxDocs, js, ftw, threads)
	if err != nil {
		return st, fmt.Errorf("writing %s: %w", js.Name(), err)
	}
	if err := js.Close(); err != nil {
		return st, err
	}
	if ftf != nil {
		if err := ftf.Close(); err != nil {
			return st, err
		}
	}
	return st, nil
}

// chunkDocs documents are drawn at a time by one goroutine.
const chunkDocs = 256

// chunk is chunkDocs documents from first on, drawn by one goroutine.
type chunk struct {
	js, ft        []byte
	jsEnd, ftEnd  []int // each document's end in js and ft
	docs          []Doc
	scratch       scratch
	first, stream uint64
	withFT        bool
}

func (ch *chunk) fill(c *Corpus) {
	ch.js, ch.ft = ch.js[:0], ch.ft[:0]
	ch.jsEnd, ch.ftEnd, ch.docs = ch.jsEnd[:0], ch.ftEnd[:0], ch.docs[:0]
	var ft []byte
	if ch.withFT {
		if ch.ft == nil {
			ch.ft = make([]byte, 0, 1<<19)
		}
		ft = ch.ft
	}
	for i := ch.first; i < ch.first+chunkDocs; i++ {
		var d Doc
		ch.js, ft, d = c.Append(ch.js, ft, ch.stream, i, &ch.scratch)
		ch.jsEnd = append(ch.jsEnd, len(ch.js))
		ch.ftEnd = append(ch.ftEnd, len(ft))
		ch.docs = append(ch.docs, d)
	}
	ch.ft = ft
}

// generate writes the documents of stream in order, from index 0, to js
// (and ft when not nil) until maxBytes bytes of js (when maxBytes ≥ 0) or
// maxDocs documents (when maxDocs ≥ 0) are written. Goroutine w draws the
// chunks w, w+threads, …; the writer takes them in turn.
func generate(c *Corpus, stream uint64, maxBytes, maxDocs int64, js, ft io.Writer, threads int) (stats, error) {
	var st stats
	if maxDocs == 0 || maxBytes == 0 {
		return st, nil
	}
	done := make(chan struct{})
	defer close(done)
	outs := make([]chan *chunk, threads)
	free := make([]chan *chunk, threads)
	for w := range outs {
		outs[w] = make(chan *chunk, 2)
		free[w] = make(chan *chunk, 3)
		for range 3 {
			free[w] <- &chunk{stream: stream, withFT: ft != nil}
		}
		go func(w int) {
			for k := uint64(w); ; k += uint64(threads) {
				var ch *chunk
				select {
				case ch = <-free[w]:
				case <-done:
					return
				}
				ch.first = k * chunkDocs
				ch.fill(c)
				select {
				case outs[w] <- ch:
				case <-done:
					return
				}
			}
		}(w)
	}
	jb := bufio.NewWriterSize(js, 1<<20)
	var fb *bufio.Writer
	if ft != nil {
		fb = bufio.NewWriterSize(ft, 1<<20)
	}
	for k := 0; ; k++ {
		w := k % threads
		ch := <-outs[w]
		n := len(ch.docs)
		stop := false
		for i, d := range ch.docs {
			st.docs++
			st.words += int64(d.Words)
			if d.Pos {
				st.pos++
			}
			if d.Flipped {
				st.flipped++
			}
			if (maxDocs >= 0 && st.docs >= maxDocs) || (maxBytes >= 0 && st.bytes+int64(ch.jsEnd[i]) >= maxBytes) {
				n, stop = i+1, true
				break
			}
		}
		st.bytes += int64(ch.jsEnd[n-1])
		if _, err := jb.Write(ch.js[:ch.jsEnd[n-1]]); err != nil {
			return st, err
		}
		if fb != nil {
			st.ftBytes += int64(ch.ftEnd[n-1])
			if _, err := fb.Write(ch.ft[:ch.ftEnd[n-1]]); err != nil {
				return st, err
			}
		}
		free[w] <- ch
		if stop {
			break
		}
	}
	if err := jb.Flush(); err != nil {
		return st, err
	}
	if fb != nil {
		return st, fb.Flush()
	}
	return st, nil
}
