package textmodel

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/calibrate"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// corpus returns short documents of three topics.
func corpus(n int) (docs, labels []string) {
	words := map[string][]string{
		"sport":   {"match", "goal", "team", "season", "coach", "league"},
		"finance": {"market", "stock", "bank", "rates", "profit", "shares"},
		"science": {"cell", "study", "energy", "physics", "genes", "lab"},
	}
	topics := []string{"finance", "science", "sport"}
	for i := range n {
		t := topics[i%3]
		w := words[t]
		docs = append(docs, fmt.Sprintf("the %s and the %s of a %s, %d", w[i%6], w[(i/3)%6], w[(i/7)%6], i%5))
		labels = append(labels, t)
	}
	return docs, labels
}

func fit(t testing.TB) *Model {
	t.Helper()
	docs, labels := corpus(300)
	m, _, err := Fit(context.Background(), docs, labels, Config{Text: text.Config{NGrams: 2, IDF: true}, Learner: engine.Config{Rule: engine.PA2, Normalize: true}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFitClassify(t *testing.T) {
	m := fit(t)
	if got := m.Labels(); !slices.Equal(got, []string{"finance", "science", "sport"}) {
		t.Fatalf("labels %q", got)
	}
	for doc, want := range map[string]string{
		"the goal of the team this season": "sport",
		"bank shares and market rates":     "finance",
		"a lab study of genes and cells":   "science",
	} {
		if got := m.Classify(doc); got != want {
			t.Errorf("Classify(%q) = %q, want %q", doc, got, want)
		}
		s := m.Scores(doc, nil)
		if len(s) != 3 || m.Labels()[slices.Index(s, slices.Max(s))] != want {
			t.Errorf("Scores(%q) = %v", doc, s)
		}
	}
	docs, _ := corpus(500)
	batch := m.ClassifyBatch(docs, nil)
	for i, d := range docs {
		if batch[i] != m.Classify(d) {
			t.Fatalf("ClassifyBatch differs from Classify at %d", i)
		}
	}
}

// Classify allocates nothing once its encoder pool is warm.
func TestClassifyAllocs(t *testing.T) {
	m := fit(t)
	doc := "the goal of the team this season, and the market"
	m.Classify(doc)
	var s []float32
	s = m.Scores(doc, s)
	if raceOn {
		return // (the allocation counts are checked without -race)
	}
	if n := testing.AllocsPerRun(200, func() { m.Classify(doc) }); n != 0 {
		t.Errorf("Classify: %v allocations a call", n)
	}
	if n := testing.AllocsPerRun(200, func() { s = m.Scores(doc, s) }); n != 0 {
		t.Errorf("Scores: %v allocations a call", n)
	}
	var p []float64
	p = m.Proba(doc, p)
	if n := testing.AllocsPerRun(200, func() { p = m.Proba(doc, p) }); n != 0 {
		t.Errorf("Proba: %v allocations a call", n)
	}
}

// Fit calibrates on held-out documents: the probabilities are the
// calibration's map of the scores, sum to 1, and put the most weight on
// the label Classify gives; the calibration survives a file round trip,
// and a file of another version or kind is refused.
func TestCalibration(t *testing.T) {
	m := fit(t)
	c, ok := m.Calibration()
	if !ok || c.Kind() != calibrate.TemperatureScaling {
		t.Fatalf("Fit's model: calibration %v, %v; want a temperature", c, ok)
	}
	docs, _ := corpus(100)
	for _, d := range docs {
		p := m.Proba(d, nil)
		want := c.Proba(m.Scores(d, nil), nil)
		if !slices.Equal(p, want) {
			t.Fatalf("Proba(%q) = %v, the calibration of the scores %v", d, p, want)
		}
		sum := 0.0
		for _, v := range p {
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 || m.Labels()[slices.Index(p, slices.Max(p))] != m.Classify(d) {
			t.Fatalf("Proba(%q) = %v: sum %v, most likely label not Classify's %q", d, p, sum, m.Classify(d))
		}
	}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if bc, ok := back.Calibration(); !ok || bc != c {
		t.Errorf("read back: calibration %v, %v; want %v", bc, ok, c)
	}
	// Version 2 files, with a JSON featurizer, still read, calibrated, as
	// do version 3 files, with the binary featurizer compressed.
	for _, v := range []uint16{2, 3} {
		old, err := Read(bytes.NewReader(oldVersion(t, buf.Bytes(), v)))
		if err != nil {
			t.Fatalf("a version %d file: %v", v, err)
		}
		if bc, ok := old.Calibration(); !ok || bc != c {
			t.Errorf("a version %d file: calibration %v, %v; want %v", v, bc, ok, c)
		}
		if !slices.Equal(old.ClassifyBatch(docs, nil), m.ClassifyBatch(docs, nil)) {
			t.Errorf("the version %d file classifies differently", v)
		}
	}
	// Version 1 files, which had no calibration, still read.
	v1 := oldVersion(t, buf.Bytes(), 1)
	old, err := Read(bytes.NewReader(v1))
	if err != nil {
		t.Fatalf("a version 1 file: %v", err)
	}
	if _, ok := old.Calibration(); ok {
		t.Error("a version 1 file read as calibrated")
	}
	if !slices.Equal(old.ClassifyBatch(docs, nil), m.ClassifyBatch(docs, nil)) {
		t.Error("the version 1 file classifies differently")
	}

	// A Platt calibration on a multiclass model is refused.
	platt, _ := calibrate.NewPlatt(-2, 0)
	m.calib = &platt
	buf.Reset()
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bytes.NewReader(buf.Bytes())); !errors.Is(err, ErrFormat) {
		t.Errorf("a Platt calibration on a 3-class model: %v", err)
	}

	// Without calibration, Proba is the softmax of the scores.
	docs, labels := corpus(300)
	u, _, err := Fit(context.Background(), docs, labels, Config{NoCalibration: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := u.Calibration(); ok {
		t.Error("NoCalibration: calibrated")
	}
	var zero calibrate.Calibration
	if p, want := u.Proba(docs[0], nil), zero.Proba(u.Scores(docs[0], nil), nil); !slices.Equal(p, want) {
		t.Errorf("uncalibrated Proba = %v, want the softmax %v", p, want)
	}
}

// A binary model gets Platt scaling and two probabilities, in the order
// of Labels.
func TestCalibrationBinary(t *testing.T) {
	docs, topics := corpus(300)
	labels := make([]string, len(docs))
	for i, l := range topics {
		labels[i] = map[bool]string{true: "sport", false: "other"}[l == "sport"]
	}
	m, _, err := Fit(context.Background(), docs, labels, Config{})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := m.Calibration()
	if a, _, _ := c.Platt(); !ok || c.Kind() != calibrate.PlattScaling || !(a < 0) {
		t.Fatalf("calibration %v, %v; want Platt with A < 0 (a higher score, a likelier second label)", c, ok)
	}
	p := m.Proba("the goal of the team this season", nil)
	if len(p) != 2 || m.Labels()[1] != "sport" || !(p[1] > 0.5) {
		t.Errorf("Proba = %v for labels %q", p, m.Labels())
	}
}

// oldVersion turns a file of the current version into the version 1, 2,
// 3 or 4 form: version 4 ends with the checksum of every byte in place of
// the page checksums; version 3 has the binary featurizer compressed,
// version 2 its JSON document compressed, version 1 that uncompressed and
// no calibration and names parts; the checksum is redone. (Real version 3
// files hold the featurizer's binary form version 1, and real version 4
// files its version 2; testdata has one of each.)
func oldVersion(t testing.TB, cur []byte, version uint16) []byte {
	t.Helper()
	d := binary.LittleEndian.Uint64(cur[len(cur)-12:])
	v4 := slices.Clone(cur[:d])
	binary.LittleEndian.PutUint16(v4[4:], 4)
	v4 = binary.LittleEndian.AppendUint32(v4, crc32.Checksum(v4, crc32.MakeTable(crc32.Castagnoli)))
	if version == 4 {
		return v4
	}
	f := binary.LittleEndian.Uint64(v4[8:])
	fb := v4[16 : 16+f]
	var fz text.Featurizer
	if err := fz.UnmarshalBinary(fb); err != nil {
		t.Fatal(err)
	}
	var feat bytes.Buffer
	var w io.Writer = &feat
	var fw *flate.Writer
	if version == 2 || version == 3 {
		fw, _ = flate.NewWriter(&feat, flate.BestSpeed)
		w = fw
	}
	if version == 3 {
		w.Write(fb)
	} else if _, err := fz.WriteTo(w); err != nil {
		t.Fatal(err)
	}
	if fw != nil {
		fw.Close()
	}
	rest := v4[16+f:]
	if version == 1 {
		mlen := binary.LittleEndian.Uint64(rest)
		rest = rest[:8+mlen]
	} else {
		rest = rest[:len(rest)-4]
	}
	out := slices.Clone(v4[:8])
	binary.LittleEndian.PutUint16(out[4:], version)
	binary.LittleEndian.PutUint16(out[6:], map[uint16]uint16{1: 0, 2: 1, 3: 1}[version])
	out = binary.LittleEndian.AppendUint64(out, uint64(feat.Len()))
	out = append(out, feat.Bytes()...)
	out = append(out, rest...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli)))
}

// One file holds both parts; it reads back to a model that classifies
// alike, and anything else is refused.
func TestFileRoundTrip(t *testing.T) {
	m := fit(t)
	path := filepath.Join(t.TempDir(), "m.hptm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := corpus(200)
	if !slices.Equal(back.ClassifyBatch(docs, nil), m.ClassifyBatch(docs, nil)) {
		t.Error("the model read back classifies differently")
	}
	var buf bytes.Buffer
	n, err := m.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d reported, %d written, %v", n, buf.Len(), err)
	}
	data := buf.Bytes()
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("HPXX"), data[4:]...),
		"truncated": data[:len(data)/2],
		"flipped":   append(append(slices.Clone(data[:40]), data[40]^1), data[41:]...),
		"flipped in the model": func() []byte {
			d := slices.Clone(data)
			d[16+binary.LittleEndian.Uint64(d[8:])+8+20] ^= 4
			return d
		}(),
		"huge part": append(append(slices.Clone(data[:8]), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0), data[16:]...),
	} {
		if _, err := Read(bytes.NewReader(bad)); err == nil {
			t.Errorf("%s: read without error", name)
		} else if !errors.Is(err, ErrFormat) && !strings.Contains(err.Error(), "budget") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A classifier is paired only with the featurizer whose output it was
// trained on.
func TestNewRefusesMismatch(t *testing.T) {
	m := fit(t)
	docs, _ := corpus(60)
	other := make([]string, len(docs))
	for i := range other {
		other[i] = []string{"x", "y"}[i%2]
	}
	g, _, err := Fit(context.Background(), docs, other, Config{Text: text.Config{Bits: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(g.Featurizer(), m.Classifier()); !errors.Is(err, ErrMismatch) {
		t.Errorf("a model of other labels and a wider space: %v", err)
	}
	if _, err := New(m.Featurizer(), m.Classifier()); err != nil {
		t.Errorf("its own featurizer: %v", err)
	}
}

func BenchmarkClassify200Words(b *testing.B) {
	m := fit(b)
	docs, _ := corpus(300)
	doc := strings.Repeat(strings.Join(docs[:10], " ")+" ", 3)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.Classify(doc)
	}
}

// BenchmarkRead reads a model with a vocabulary of tens of thousands of terms in
// the current file form and in version 2's, whose featurizer is a
// compressed JSON document, and loads it from a file whole and for one
// document.
func BenchmarkRead(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 40_000)
	for i := range words {
		words[i] = fmt.Sprintf("w%x", r.Uint32())
	}
	docs := make([]string, 4000)
	labels := make([]string, len(docs))
	var sb strings.Builder
	for i := range docs {
		sb.Reset()
		for range 120 {
			sb.WriteString(words[int(float64(len(words))*r.Float64()*r.Float64())])
			sb.WriteByte(' ')
		}
		docs[i], labels[i] = sb.String(), fmt.Sprint("c", i%5)
	}
	m, _, err := Fit(context.Background(), docs, labels, Config{Text: text.Config{NGrams: 2, Vocabulary: true, MinDF: 2, IDF: true}, NoCalibration: true})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		b.Fatal(err)
	}
	for _, v := range []uint16{2, fileVersion} {
		data := buf.Bytes()
		if v != fileVersion {
			data = oldVersion(b, data, v)
		}
		b.Run(fmt.Sprintf("version%d", v), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Read(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(m.featurizer.Dim()), "terms")
		})
	}
	// From a file: the whole model, and the model for one document
	// (LoadFor, what a one-line predict run does).
	path := filepath.Join(b.TempDir(), "m.hptm")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		load func() (*Model, error)
	}{
		{"file/whole", func() (*Model, error) { return Load(path) }},
		{"file/for1doc", func() (*Model, error) { return LoadFor(path, docs[:1]) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.load(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
