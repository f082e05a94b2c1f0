package csv

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

func TestReadHeaderAndLabel(t *testing.T) {
	for _, c := range []struct {
		in    string
		opt   Options
		y     []float64
		x     []float32
		names []string
	}{
		{"a,b,target\n1,2,0\n3,0,1\n", Options{}, []float64{0, 1}, []float32{1, 2, 3, 0}, []string{"a", "b"}},
		{"a,\"b, quoted\",label\n1,2,0\n3,0,1\n", Options{Label: "a"}, []float64{1, 3}, []float32{2, 0, 0, 1}, []string{"b, quoted", "label"}},
		{"5,1,2\n7,3,4\n", Options{}, []float64{5, 7}, []float32{1, 2, 3, 4}, nil},
		{"5,1,2\n7,3,4\n", Options{Label: "3"}, []float64{2, 4}, []float32{5, 1, 7, 3}, nil},
		{"a\tb\n1\t2\n", Options{Comma: '\t', Label: "2"}, []float64{2}, []float32{1}, []string{"a"}},
	} {
		tb, err := Read(strings.NewReader(c.in), c.opt)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if !reflect.DeepEqual(tb.Y, c.y) || !reflect.DeepEqual(tb.X.Data, c.x) || !reflect.DeepEqual(tb.Names, c.names) {
			t.Errorf("%q: y %v x %v names %v", c.in, tb.Y, tb.X.Data, tb.Names)
		}
	}
	tb, _ := Read(strings.NewReader("a,b,y\n1,0,1\n0,2,-1\n"), Options{})
	d := tb.Dataset()
	if d.X.NNZ() != 2 || !reflect.DeepEqual(d.X.Ind, []int32{0, 1}) || d.Y[1] != -1 {
		t.Fatalf("Dataset %+v", d.X)
	}
}

func TestReadErrors(t *testing.T) {
	for _, c := range []struct {
		in        string
		opt       Options
		line, col int
		err       error
	}{
		{"a,b,label\n1,2,0\n3,,1\n", Options{}, 3, 3, ErrMissing},
		{"a,b,label\n1,2,0\n3,NA,1\n", Options{}, 3, 3, ErrMissing},
		{"a,b,label\n1,x2,0\n", Options{}, 2, 3, sparse.ErrValue},
		{"a,b,label\n1,2,1e999\n", Options{}, 2, 5, sparse.ErrValue},
		{"a,b,label\n1,2,0\n1,2\n", Options{}, 3, 1, sparse.ErrSyntax},
		{"a,b,c\n1,2,0\n", Options{}, 1, 1, ErrLabelColumn},
		{"a,b,c\n1,2,0\n", Options{Label: "d"}, 1, 1, ErrLabelColumn},
		{"1,2,0\n", Options{Label: "4"}, 1, 1, ErrLabelColumn},
	} {
		c.opt.Name = "t.csv"
		_, err := Read(strings.NewReader(c.in), c.opt)
		var pe *sparse.ParseError
		if !errors.As(err, &pe) || !errors.Is(err, c.err) || pe.Line != c.line || pe.Col != c.col || pe.File != "t.csv" {
			t.Errorf("%q: got %v, want t.csv:%d:%d %v", c.in, err, c.line, c.col, c.err)
		}
	}
	if _, err := Read(strings.NewReader("a,b,label\n"), Options{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("header only: %v", err)
	}
}
