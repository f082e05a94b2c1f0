package synth_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hyperplane-ml/hyperplane/sparse/synth"
)

func ExampleText_Generate() {
	cfg := synth.Text{Rows: 2000, Dim: 1 << 16, Seed: 1}
	d, err := cfg.Generate()
	if err != nil {
		fmt.Println(err)
		return
	}
	pos := 0
	for _, y := range d.Y {
		if y > 0 {
			pos++
		}
	}
	fmt.Println(d.X.Rows, "rows,", d.X.Cols, "columns, valid:", d.Validate() == nil)
	fmt.Printf("about 75 nonzeros per row: %v\n", d.X.NNZ() > 70*2000 && d.X.NNZ() < 80*2000)
	fmt.Printf("balanced labels: %v\n", pos > 900 && pos < 1100)

	_, err = synth.Text{Classes: 1}.Generate()
	fmt.Println(err)
	// Output:
	// 2000 rows, 65536 columns, valid: true
	// about 75 nonzeros per row: true
	// balanced labels: true
	// synth: invalid configuration: Text.Classes = 1 outside [2, 256]
}

func ExampleText_Stream() {
	cfg := synth.Text{Rows: 5, Dim: 1000, MeanNNZ: 4, RankOrder: true, Seed: 2}
	s := cfg.Stream()
	for s.Scan() {
		y, x := s.Row()
		fmt.Println(s.Index(), y == 1 || y == -1, x.Dim, len(x.Ind) == len(x.Val), x.Validate() == nil)
	}
	if err := s.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 0 true 1000 true true
	// 1 true 1000 true true
	// 2 true 1000 true true
	// 3 true 1000 true true
	// 4 true 1000 true true
}

func ExampleText_WriteLIBSVM() {
	var buf bytes.Buffer
	cfg := synth.Text{Rows: 3, Dim: 100, MeanNNZ: 3, Classes: 3, Seed: 3}
	if err := cfg.WriteLIBSVM(&buf); err != nil {
		fmt.Println(err)
		return
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for _, l := range lines {
		f := strings.Fields(l)
		fmt.Println("label in {0,1,2}:", strings.Contains("012", f[0]), "features:", len(f) > 1)
	}
	// Output:
	// label in {0,1,2}: true features: true
	// label in {0,1,2}: true features: true
	// label in {0,1,2}: true features: true
}

func ExampleSeparable_Generate() {
	d, err := synth.Separable{N: 500, Dim: 20, Margin: 0.1, Seed: 1}.Generate()
	if err != nil {
		fmt.Println(err)
		return
	}
	// A perceptron (no bias) makes at most (R/γ)² mistakes.
	w := make([]float64, 20)
	mistakes := 0
	for changed := true; changed; {
		changed = false
		for i, x := range d.Dense {
			var s float64
			for j, v := range x {
				s += w[j] * float64(v)
			}
			if y := d.Data.Y[i]; y*s <= 0 {
				for j, v := range x {
					w[j] += y * float64(v)
				}
				mistakes++
				changed = true
			}
		}
	}
	fmt.Println("R ≤ 1:", d.R <= 1, " γ ≥ 0.1:", d.Gamma >= 0.1)
	fmt.Println("within the bound:", float64(mistakes) <= d.MistakeBound())
	// Output:
	// R ≤ 1: true  γ ≥ 0.1: true
	// within the bound: true
}
