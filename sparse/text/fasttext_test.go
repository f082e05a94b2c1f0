package text

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

func TestFastTextRead(t *testing.T) {
	in := "__label__pos great movie\n\n  __label__neg\tdull , slow\r\nfine __label__pos film\n"
	c, err := Read(strings.NewReader(in), ReadOptions{Name: "ft"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Doc{{"pos", "great movie", 1}, {"neg", "dull , slow", 3}, {"pos", "fine film", 4}}
	if !reflect.DeepEqual(c.Docs, want) {
		t.Fatalf("got %+v, want %+v", c.Docs, want)
	}
	// Forced format, and a prefix of one's own.
	c, err = Read(strings.NewReader("#A one two\n#B three\n"), ReadOptions{Format: FastText, LabelPrefix: "#"})
	if err != nil || len(c.Docs) != 2 || c.Docs[0].Label != "A" || c.Docs[1].Text != "three" {
		t.Fatalf("prefix #: %+v, %v", c, err)
	}
}

func TestFastTextLabels(t *testing.T) {
	s := NewScanner(strings.NewReader("__label__a __label__b text here\n__label__c more\n"), ReadOptions{MultiLabel: true})
	var got [][]string
	for s.Scan() {
		got = append(got, append([]string(nil), s.Labels()...))
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"a", "b"}, {"c"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
	s = NewScanner(strings.NewReader("pos\tgood\n"), ReadOptions{})
	if !s.Scan() || !reflect.DeepEqual(s.Labels(), []string{"pos"}) {
		t.Fatalf("TSV labels %v (%v)", s.Labels(), s.Err())
	}
}

func TestFastTextErrors(t *testing.T) {
	for _, c := range []struct {
		in        string
		opt       ReadOptions
		line, col int
		err       error
		msg       string
	}{
		{"__label__a ok\nno label here\n", ReadOptions{}, 2, 1, ErrMissingField, "no label"},
		{"__label__a ok\n  __label__ empty\n", ReadOptions{}, 2, 3, ErrLabel, "empty label"},
		{"__label__a ok\n__label__a __label__b two\n", ReadOptions{}, 2, 12, ErrMultiLabel, "multi-label"},
		{"__label__a o\x00k\n", ReadOptions{}, 1, 13, ErrSyntax, "NUL"},
		{"pos\tfine\n__label__a x\n", ReadOptions{}, 2, 1, ErrMissingField, "fastText lines start with __label__"},
		{"x\n", ReadOptions{Format: FastText, LabelPrefix: "#"}, 1, 1, ErrMissingField, `"#"`},
	} {
		_, err := Read(strings.NewReader(c.in), c.opt)
		var pe *sparse.ParseError
		if !errors.As(err, &pe) || !errors.Is(err, c.err) || pe.Line != c.line || pe.Col != c.col || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: got %v, want line %d col %d %v with %q", c.in, err, c.line, c.col, c.err, c.msg)
		}
	}
}
