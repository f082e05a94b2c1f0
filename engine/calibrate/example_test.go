package calibrate_test

import (
	"fmt"

	"github.com/hyperplane-ml/hyperplane/engine/calibrate"
)

func ExampleFitPlatt() {
	// Held-out scores of a binary model and whether each row's true
	// class is the second one, the class a positive score predicts.
	scores := []float32{-2.1, -1.3, -0.8, -0.4, -0.1, 0.2, 0.3, 0.9, 1.4, 2.2}
	second := []bool{false, false, true, false, false, true, false, true, true, true}
	c, err := calibrate.FitPlatt(scores, second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	p := c.Proba([]float32{1.5}, nil)
	fmt.Printf("score 1.5: p(first) %.3f, p(second) %.3f\n", p[0], p[1])
	// Output:
	// platt(A=-0.881, B=0.0226)
	// score 1.5: p(first) 0.214, p(second) 0.786
}

func ExampleFitTemperature() {
	// Held-out scores of a 3-class model, a row of 3 per example, and the
	// index of each row's true class. The model is right on 4 rows of 5,
	// but its scores are so far apart that softmax would give its top
	// class over 0.99 on every row; a temperature above 1 tempers them.
	scores := []float32{
		9, 1, 0,
		0, 8, 2,
		1, 0, 7,
		8, 0, 1,
		0, 9, 1,
	}
	truth := []int{0, 1, 2, 1, 1}
	c, err := calibrate.FitTemperature(scores, 3, truth)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	p := c.Proba([]float32{9, 1, 0}, nil)
	fmt.Printf("%.3f %.3f %.3f\n", p[0], p[1], p[2])
	// Output:
	// temperature(T=3.8)
	// 0.823 0.100 0.077
}

func ExampleCalibration_Proba() {
	// The zero value is uncalibrated: the logistic of one score, the
	// softmax of several.
	var c calibrate.Calibration
	buf := make([]float64, 0, 3) // reused: Proba allocates nothing
	buf = c.Proba([]float32{0}, buf)
	fmt.Printf("%.3f\n", buf)
	buf = c.Proba([]float32{2, 0, 0}, buf)
	fmt.Printf("%.3f\n", buf)
	// Output:
	// [0.500 0.500]
	// [0.787 0.107 0.107]
}

func ExampleCalibration_MarshalBinary() {
	c, err := calibrate.NewTemperature(0.5)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := c.MarshalBinary()
	fmt.Printf("%x\n", b)
	var back calibrate.Calibration
	if err := back.UnmarshalBinary(b); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back)
	// Output:
	// 0102000000000000e03f
	// temperature(T=0.5)
}
