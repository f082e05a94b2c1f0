package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

func TestFoldsStratified(t *testing.T) {
	// 30 rows of class 1, 12 of class 2, 3 of class 3.
	var y []float64
	for i := range 45 {
		switch {
		case i < 30:
			y = append(y, 1)
		case i < 42:
			y = append(y, 2)
		default:
			y = append(y, 3)
		}
	}
	fold, err := Folds(y, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	per := map[[2]int]int{}
	size := make([]int, 3)
	for i, f := range fold {
		if f < 0 || f >= 3 {
			t.Fatalf("row %d in fold %d", i, f)
		}
		per[[2]int{int(y[i]), f}]++
		size[f]++
	}
	for f := range 3 {
		if per[[2]int{1, f}] != 10 || per[[2]int{2, f}] != 4 || per[[2]int{3, f}] != 1 {
			t.Errorf("fold %d holds %d, %d, %d rows of the classes, want 10, 4, 1", f, per[[2]int{1, f}], per[[2]int{2, f}], per[[2]int{3, f}])
		}
		if size[f] != 15 {
			t.Errorf("fold %d has %d rows, want 15", f, size[f])
		}
	}
	again, _ := Folds(y, 3, 7)
	other, _ := Folds(y, 3, 8)
	same, differ := true, false
	for i := range fold {
		same = same && again[i] == fold[i]
		differ = differ || other[i] != fold[i]
	}
	if !same || !differ {
		t.Errorf("the same seed must give the same folds (%v) and another seed others (%v)", same, differ)
	}
	for _, k := range []int{0, 1, 46} {
		if _, err := Folds(y, k, 1); !errors.Is(err, ErrConfig) {
			t.Errorf("Folds(k=%d): %v, want ErrConfig", k, err)
		}
	}
}

func TestCrossValidate(t *testing.T) {
	// Separable data: the sign of feature 0 is the label; feature 1 is noise.
	var rows [][]float32
	var y []float64
	for i := range 200 {
		s := float32(1)
		if i%2 == 0 {
			s = -1
		}
		rows = append(rows, []float32{s * float32(1+i%5), float32(i%7) - 3})
		y = append(y, float64(s))
	}
	X := sparse.FromDense(rows)
	res, err := CrossValidate(context.Background(), X, y, Config{}, 4)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, r := range res {
		total += r.Rows
		if r.Rows != 50 || r.Accuracy() != 1 {
			t.Errorf("fold %d: %d rows, accuracy %v; want 50 rows, 1", i+1, r.Rows, r.Accuracy())
		}
	}
	if total != 200 {
		t.Errorf("the folds hold %d rows, want 200", total)
	}
	// Every row has a feature of its own, and random labels: a model
	// that saw a row memorizes it, one that did not can only guess. Near
	// chance means the held-out rows were really held out.
	one := make([][]float32, 200)
	yr := make([]float64, 200)
	for i := range one {
		one[i] = make([]float32, 200)
		one[i][i] = 1
		yr[i] = float64(1 - 2*int((uint32(i)*2654435761>>7)&1))
	}
	res, err = CrossValidate(context.Background(), sparse.FromDense(one), yr, Config{}, 4)
	if err != nil {
		t.Fatal(err)
	}
	correct := 0
	for _, r := range res {
		correct += r.Correct
	}
	if correct > 140 {
		t.Errorf("%d of 200 held-out rows right: a row's own feature must be unseen when it is predicted", correct)
	}
}
