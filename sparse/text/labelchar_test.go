package text

import (
	"errors"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// A label holding any character that some tool takes for a line end or
// that a terminal acts on (C0 and C1 controls, DEL, U+2028, U+2029) is
// refused where it is read, with the file, line and column, and by Fit;
// printable labels, non-ASCII letters included, are not.
func TestLabelControlCharacterClass(t *testing.T) {
	bad := []string{"a\tb", "a\nb", "x\r", "\x1b[31m", "x\x7f", "next\u0085line", "\u009b", "line\u2028sep", "para\u2029sep"}
	for _, l := range bad {
		for _, in := range []string{
			"{\"label\":\"ok\",\"text\":\"a\"}\n{\"label\":" + jsonQuote(l) + ",\"text\":\"b\"}\n",
			"ok\ta\n" + l + "\tb\n",
		} {
			if !strings.HasPrefix(in, "{") && strings.ContainsAny(l, "\t\n\r") {
				continue // no TSV label field can hold these
			}
			_, err := Read(strings.NewReader(in), ReadOptions{Name: "in"})
			var pe *sparse.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrLabel) || pe.File != "in" || pe.Line != 2 || pe.Col < 1 {
				t.Errorf("label %q in %q: %v, want a ParseError at in:2 wrapping ErrLabel", l, in, err)
			}
		}
		c := &Corpus{Name: "c", Docs: []Doc{{Label: "ok", Text: "a"}, {Label: l, Text: "b"}}}
		if _, err := Fit(c, Config{}); !errors.Is(err, ErrLabel) {
			t.Errorf("Fit with label %q: %v, want ErrLabel", l, err)
		}
	}
	c := &Corpus{Docs: []Doc{{Label: "a b", Text: "a"}, {Label: "é", Text: "b"}, {Label: "日本\u00a0x", Text: "c"}}}
	if _, err := Fit(c, Config{}); err != nil {
		t.Errorf("printable labels: %v", err)
	}
}

// jsonQuote writes s as a JSON string, every non-ASCII or control
// character escaped.
func jsonQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r < 0x20 || r >= 0x7f || r == '"' || r == '\\' {
			b.WriteString(`\u`)
			const hex = "0123456789abcdef"
			b.WriteByte(hex[r>>12&15])
			b.WriteByte(hex[r>>8&15])
			b.WriteByte(hex[r>>4&15])
			b.WriteByte(hex[r&15])
			continue
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
