package textmodel

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// A model loaded for some documents classifies, scores and explains each
// of them as the whole model does, to the bit, whatever it is: a
// vocabulary's (read in part) or a hashing or kernel model (read whole).
func TestLoadFor(t *testing.T) {
	docs, labels := corpus(300)
	binLabels := make([]string, len(labels))
	for i, l := range labels {
		binLabels[i] = map[bool]string{true: "sport", false: "other"}[l == "sport"]
	}
	vocab := text.Config{Vocabulary: true, NGrams: 2, IDF: true}
	cases := map[string]struct {
		labels []string
		cfg    Config
		part   bool // read in part
	}{
		"vocabulary, multiclass": {labels, Config{Text: vocab, Learner: engine.Config{Rule: engine.PA2, Normalize: true}}, true},
		"vocabulary, binary":     {binLabels, Config{Text: vocab}, true},
		"vocabulary, plain":      {labels, Config{Text: text.Config{Vocabulary: true, NoNormalize: true}, Learner: engine.Config{Algorithm: engine.Plain}, NoCalibration: true}, true},
		"hashing":                {labels, Config{Text: text.Config{NGrams: 2}}, false},
		"kernel":                 {binLabels, Config{Text: vocab, Kernel: &engine.KernelConfig{}}, false},
	}
	query := []string{
		"the goal of the team this season",
		"bank shares and market rates, and a lab",
		"nothing the vocabulary knows: zzz qqq",
		"",
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			m, _, err := Fit(context.Background(), docs, c.labels, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "m.hptm")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			whole, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			part, err := LoadFor(path, query)
			if err != nil {
				t.Fatal(err)
			}
			if d := part.Featurizer().Dim(); c.part != (d < whole.Featurizer().Dim()) {
				t.Fatalf("read in part: %v, want %v (dim %d of %d)", !c.part, c.part, d, whole.Featurizer().Dim())
			}
			if !slices.Equal(part.Labels(), whole.Labels()) {
				t.Fatalf("labels %q, whole model %q", part.Labels(), whole.Labels())
			}
			for _, q := range query {
				if a, b := part.Classify(q), whole.Classify(q); a != b {
					t.Errorf("%q: %s, whole model %s", q, a, b)
				}
				s, ws := part.Scores(q, nil), whole.Scores(q, nil)
				p, wp := part.Proba(q, nil), whole.Proba(q, nil)
				for k := range ws {
					if math.Float32bits(s[k]) != math.Float32bits(ws[k]) {
						t.Errorf("%q: score %d is %v, whole model %v", q, k, s[k], ws[k])
					}
				}
				for k := range wp {
					if math.Float64bits(p[k]) != math.Float64bits(wp[k]) {
						t.Errorf("%q: probability %d is %v, whole model %v", q, k, p[k], wp[k])
					}
				}
				if _, isKernel := m.Classifier().(*engine.KernelModel); isKernel {
					continue
				}
				l, b, terms, err := part.Explain(q, -1)
				wl, wb, wterms, werr := whole.Explain(q, -1)
				if err != nil || werr != nil || l != wl || b != wb || len(terms) != len(wterms) {
					t.Fatalf("%q: explained as %s %v %d terms (%v), whole model %s %v %d terms (%v)", q, l, b, len(terms), err, wl, wb, len(wterms), werr)
				}
				for i := range terms {
					if terms[i].Term != wterms[i].Term || terms[i].Value != wterms[i].Value {
						t.Errorf("%q: term %d %+v, whole model %+v", q, i, terms[i], wterms[i])
					}
				}
			}
		})
	}
}

// LoadFor checks the file as Load does: a corrupt file is refused, also
// where it lies in a part that is read but not kept.
func TestLoadForRefusesCorrupt(t *testing.T) {
	docs, labels := corpus(300)
	m, _, err := Fit(context.Background(), docs, labels, Config{Text: text.Config{Vocabulary: true, NGrams: 2}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.hptm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{len(data) - 30, len(data) / 2, 40} {
		bad := slices.Clone(data)
		bad[at] ^= 0x10
		p := filepath.Join(t.TempDir(), "bad.hptm")
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadFor(p, []string{"the goal"}); !errors.Is(err, ErrFormat) {
			t.Errorf("byte %d flipped: %v, want ErrFormat", at, err)
		}
	}
}
