package text

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
)

// FuzzReadTSV: label<TAB>text input read whole and by the Scanner gives
// the same documents or the same error; an error is a *sparse.ParseError
// with a line (or, for gzip input, may be the decompressor's); a document's label and text never hold a line break.
//
//	go test -run '^$' -fuzz '^FuzzReadTSV$' -fuzztime 60s ./sparse/text/
func FuzzReadTSV(f *testing.F) {
	for _, s := range []string{"pos\tgreat film\nneg\tdull\n", "\ufeffa\tb\r\nc\td\te\n", "no tab here\n", "\tempty label\n", "x\t\n\n\ny\tz", "1\t\xff\xfe bytes\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		for _, opt := range []ReadOptions{{Format: TSV, Name: "fuzz.tsv"}, {Format: TSV, MaxLineBytes: 16}} {
			c, err := Read(bytes.NewReader(data), opt)
			sc := NewScanner(bytes.NewReader(data), opt)
			var docs []Doc
			for sc.Scan() {
				docs = append(docs, sc.Doc())
			}
			serr := sc.Err()
			if (err == nil) != (serr == nil) || (err != nil && err.Error() != serr.Error()) {
				t.Fatalf("Read error %v, Scanner error %v", err, serr)
			}
			if err != nil {
				var pe *sparse.ParseError
				gz := bytes.HasPrefix(data, []byte{0x1f, 0x8b}) // a gzip stream's own errors are not parse errors
				if !gz && (!errors.As(err, &pe) || pe.Line < 1) {
					t.Fatalf("error %v is not a ParseError with a line", err)
				}
				continue
			}
			if !slices.EqualFunc(c.Docs, docs, func(a, b Doc) bool { return a == b }) {
				t.Fatalf("Read and Scanner disagree: %v vs %v", c.Docs, docs)
			}
			for _, d := range docs {
				if strings.ContainsAny(d.Label, "\n\t") || strings.Contains(d.Text, "\n") {
					t.Fatalf("document %+v holds a separator", d)
				}
			}
		}
	})
}

// FuzzLoadFeaturizer: any file Load accepts is a featurizer that
// transforms text into valid rows of its width and saves back to a file
// that loads the same; anything else is an error, ErrFormat or, for what
// would not fit in the memory budget, budget.ErrExceeded, never a panic.
// Load never allocates by a size the file claims (2^bits buckets, a
// vocabulary's length) but in proportion to the file: the seeds include
// both forms of document frequencies (dense, version 1, and sparse,
// version 2) with up to 30 bits, and claims that do not match the data.
//
//	go test -run '^$' -fuzz '^FuzzLoadFeaturizer$' -fuzztime 60s ./sparse/text/
func FuzzLoadFeaturizer(f *testing.F) {
	dir := f.TempDir()
	c := &Corpus{Docs: []Doc{{Label: "a", Text: "red apple pie"}, {Label: "b", Text: "blue sky pie"}}}
	for _, cfg := range []Config{{}, {NGrams: 2, Bits: 8, TF: Log, IDF: true}, {Vocabulary: true, MinDF: 1},
		{Bits: 3, IDF: true}, {NGrams: 2, Bits: MaxBits, IDF: true}, {Vocabulary: true, IDF: true, MaxFeatures: 3}} {
		ft, err := Fit(c, cfg)
		if err != nil {
			f.Fatal(err)
		}
		p := filepath.Join(dir, "f.json")
		if err := ft.Save(p); err != nil {
			f.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	head := `{"format":"hyperplane.text.Featurizer","hash":"xxh64-gram1","ngrams":1,"tf":"count","idf":true,"normalize":true,"labels":{"numeric":false,"names":["a"]},`
	for _, tail := range []string{
		`"version":1,"bits":30,"docs":1,"df":[1,0,1]}`,                                           // claims 2^30 frequencies, holds 3
		`"version":2,"bits":30,"docs":1,"df_sparse":{"features":[0,1073741823],"counts":[1,1]}}`, // the widest buckets
		`"version":2,"bits":30,"docs":1,"df_sparse":{"features":[1073741824],"counts":[1]}}`,     // beyond them
		`"version":2,"bits":4,"docs":2,"df_sparse":{"features":[0,1,2,3,4,5,6,7,8],"counts":[1,2,1,2,1,2,1,2,1]}}`,
		`"version":2,"bits":20,"docs":2147483647,"df_sparse":{"features":[5],"counts":[2147483647]}}`,
		`"version":2,"bits":20,"docs":1,"df_sparse":{"features":[],"counts":[]}}`,
		`"version":1,"vocabulary":["a","b"],"min_df":1,"max_features":2147483647,"docs":2147483647,"df":[1,2]}`,
		`"version":1,"vocabulary":[],"min_df":9223372036854775807,"max_features":9223372036854775807,"docs":1,"df":[]}`,
	} {
		f.Add([]byte(head + tail))
	}
	f.Add([]byte("{}"))
	f.Add([]byte("not json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		p := filepath.Join(t.TempDir(), "f.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		defer budget.Set(budget.Set(256 << 20))
		var ft *Featurizer
		var err error
		n := allocated(func() { ft, err = Load(p) })
		// (An idf table of up to denseFloorBytes is dense whatever the data.)
		if limit := 64*uint64(len(data)) + uint64(denseFloorBytes) + 1<<20; n > limit {
			t.Fatalf("Load of %d bytes allocated %d bytes", len(data), n)
		}
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, budget.ErrExceeded) {
				t.Fatalf("error %v is neither ErrFormat nor budget.ErrExceeded", err)
			}
			return
		}
		v := ft.Transform("Red apple, blue SKY pie! ünï 42")
		if err := v.Validate(); err != nil || v.Dim != ft.Dim() {
			t.Fatalf("loaded featurizer makes an invalid row %+v (dim %d): %v", v, ft.Dim(), err)
		}
		q := filepath.Join(t.TempDir(), "g.json")
		if err := ft.Save(q); err != nil {
			t.Fatalf("a loaded featurizer does not save: %v", err)
		}
		ft2, err := Load(q)
		if err != nil {
			t.Fatalf("saved featurizer does not load: %v", err)
		}
		v2 := ft2.Transform("Red apple, blue SKY pie! ünï 42")
		if !slices.Equal(v.Ind, v2.Ind) || !slices.Equal(v.Val, v2.Val) {
			t.Fatalf("save and load changed the features: %v vs %v", v, v2)
		}
	})
}
