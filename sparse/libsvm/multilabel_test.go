package libsvm

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

func TestReadMultiLabel(t *testing.T) {
	in := "\xef\xbb\xbf1,3,5 1:0.5 4:1\r\n 2:2\n\n# comment\n7 3:1 # tail\n2,2 1:1\n0\n"
	d, err := ReadMultiLabel(strings.NewReader(in), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{1, 3, 5}, {}, {7}, {2}, {0}}
	if !reflect.DeepEqual(d.Labels, want) {
		t.Errorf("labels %v, want %v", d.Labels, want)
	}
	X := d.X
	if X.Rows != 5 || X.Cols != 4 || !reflect.DeepEqual(X.Indptr, []int64{0, 2, 3, 4, 5, 5}) ||
		!reflect.DeepEqual(X.Ind, []int32{0, 3, 1, 2, 0}) || !reflect.DeepEqual(X.Val, []float32{0.5, 1, 2, 1, 1}) {
		t.Errorf("rows %+v", X)
	}
}

func TestReadMultiLabelErrors(t *testing.T) {
	for _, tc := range []struct {
		in        string
		want      error
		line, col int
	}{
		{"1,,3 1:1\n", sparse.ErrSyntax, 1, 3},
		{"1, 3 1:1\n", sparse.ErrSyntax, 1, 3},
		{"-1 1:1\n", sparse.ErrSyntax, 1, 1},
		{"1.5 1:1\n", sparse.ErrSyntax, 1, 2},
		{"1 1:1\n99999999999 1:1\n", sparse.ErrValue, 2, 1},
		{"1 2:1 1:1\n", sparse.ErrIndexOrder, 1, 7},
		{"1,2 0:1\n", sparse.ErrIndex, 1, 5},
	} {
		_, err := ReadMultiLabel(strings.NewReader(tc.in), sparse.ReadOptions{Name: "m.svm"})
		var pe *sparse.ParseError
		if !errors.Is(err, tc.want) || !errors.As(err, &pe) || pe.Line != tc.line || pe.Col != tc.col || pe.File != "m.svm" {
			t.Errorf("%q: %v, want %v at line %d col %d", tc.in, err, tc.want, tc.line, tc.col)
		}
	}
	if _, err := ReadMultiLabel(strings.NewReader(strings.Repeat("1", 100)), sparse.ReadOptions{MaxLineBytes: 10}); !errors.Is(err, sparse.ErrLineTooLong) {
		t.Errorf("long line: %v", err)
	}
}

func TestWriteMultiLabelRoundTrip(t *testing.T) {
	in := "3,1,5 1:0.5 4:2\n 2:1\n0 1:1 7:-1.25\n2,0\n"
	d, err := ReadMultiLabel(strings.NewReader(in), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteMultiLabel(&buf, d); err != nil {
		t.Fatal(err)
	}
	if buf.String() != in {
		t.Errorf("wrote %q, want %q", buf.String(), in)
	}
	back, err := ReadMultiLabel(&buf, sparse.ReadOptions{})
	if err != nil || !reflect.DeepEqual(back, d) {
		t.Errorf("read back %+v, %v; want %+v", back, err, d)
	}
	empty := &MultiLabelDataset{X: sparse.NewBuilder(2).Build(), Labels: [][]int{{}}}
	empty.X.Rows, empty.X.Indptr = 1, []int64{0, 0}
	if err := WriteMultiLabel(&buf, empty); !errors.Is(err, sparse.ErrShape) {
		t.Errorf("a row of nothing: %v", err)
	}
	neg := &MultiLabelDataset{X: d.X, Labels: [][]int{{-1}, {}, {0}, {1}}}
	if err := WriteMultiLabel(&buf, neg); !errors.Is(err, sparse.ErrValue) {
		t.Errorf("a negative label: %v", err)
	}
}
