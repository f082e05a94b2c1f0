package hpc

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// onlyReader hides every method of a reader but Read.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// ReadInfo gives File.Info's numbers from a seekable reader and from a
// plain stream, and reports a corrupt or truncated cache as ErrFormat.
func TestReadInfo(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	d := randCacheDataset(r, 3000, 12, 500, false)
	b := cacheBytes(t, d, 4096)
	c, err := openCacheBytes(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := c.Info()
	if want.Rows != 3000 || want.Blocks < 2 || want.Cols != d.X.Cols || len(want.Labels) == 0 {
		t.Fatalf("File.Info = %+v", want)
	}
	for name, rd := range map[string]io.Reader{"seekable": bytes.NewReader(b), "stream": onlyReader{bytes.NewReader(b)}} {
		got, err := ReadInfo(rd, sparse.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Rows != want.Rows || got.NNZ != want.NNZ || got.Cols != want.Cols || got.Blocks != want.Blocks ||
			got.HasQID != want.HasQID || !slices.Equal(got.Labels, want.Labels) {
			t.Fatalf("%s: %+v, want %+v", name, got, want)
		}
	}
	for _, cut := range []int{0, 10, len(b) / 2, len(b) - 1} {
		for name, rd := range map[string]io.Reader{"seekable": bytes.NewReader(b[:cut]), "stream": onlyReader{bytes.NewReader(b[:cut])}} {
			if _, err := ReadInfo(rd, sparse.ReadOptions{}); !errors.Is(err, ErrFormat) {
				t.Fatalf("%s cut at %d: %v", name, cut, err)
			}
		}
	}
	flip := bytes.Clone(b)
	flip[len(b)/2] ^= 1
	if _, err := ReadInfo(onlyReader{bytes.NewReader(flip)}, sparse.ReadOptions{}); !errors.Is(err, ErrFormat) {
		t.Fatalf("flipped payload byte: %v", err)
	}
}
