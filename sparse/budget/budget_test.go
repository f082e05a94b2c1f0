package budget

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestMulAddSaturate(t *testing.T) {
	for _, c := range []struct {
		f    []int64
		want int64
	}{
		{[]int64{2147483647, 1000, 12}, 25769803764000},
		{[]int64{1 << 40, 1 << 30}, math.MaxInt64},
		{[]int64{-1, 5}, math.MaxInt64},
		{[]int64{1 << 62, 0}, 0},
		{nil, 1},
	} {
		if got := Mul(c.f...); got != c.want {
			t.Errorf("Mul(%v) = %d, want %d", c.f, got, c.want)
		}
	}
	if got := Add(math.MaxInt64-1, 2); got != math.MaxInt64 {
		t.Errorf("Add saturates to %d", got)
	}
	if got := Add(3, 4); got != 7 {
		t.Errorf("Add(3, 4) = %d", got)
	}
}

func TestCheck(t *testing.T) {
	if err := Check(100, 100, "x"); err != nil {
		t.Fatal(err)
	}
	err := Check(1<<30, 3<<30, "the weights")
	if !errors.Is(err, ErrExceeded) || !strings.Contains(err.Error(), "the weights needs 3.00 GiB, the budget is 1.00 GiB") {
		t.Fatalf("got %v", err)
	}
}

func TestSetDefault(t *testing.T) {
	auto := Default()
	if auto <= 0 {
		t.Fatalf("Default() = %d", auto)
	}
	prev := Set(12345)
	if prev != auto || Default() != 12345 || Resolve(0) != 12345 || Resolve(7) != 7 {
		t.Fatalf("Set: prev %d, Default %d", prev, Default())
	}
	Set(0)
	if Default() != auto {
		t.Fatalf("Set(0) left %d, want %d", Default(), auto)
	}
}

func TestParseFormat(t *testing.T) {
	for s, want := range map[string]int64{"512MiB": 512 << 20, "8g": 8 << 30, "1.5 GiB": 3 << 29, "1e9": 1e9, "100": 100, "2TB": 2 << 40} {
		got, err := Parse(s)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "GiB", "-1G", "0", "1 XB", "1e30G", "NaN"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) accepted", s)
		}
	}
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.50 KiB", 24 << 30: "24.0 GiB", 200 << 20: "200 MiB", math.MaxInt64: "more than 8 EiB"} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestMeter(t *testing.T) {
	m := NewMeter(100)
	if err := m.Take(60, "a"); err != nil {
		t.Fatal(err)
	}
	err := m.Take(50, "the terms")
	if !errors.Is(err, ErrExceeded) || !strings.Contains(err.Error(), "the terms needs 50 B (110 B with what was taken before it), the budget is 100 B") {
		t.Fatalf("got %v", err)
	}
	if m.Used() != 60 {
		t.Fatalf("a refused Take counted: %d", m.Used())
	}
	if err := m.Take(40, "b"); err != nil || m.Used() != 100 {
		t.Fatalf("Take to the limit: %v, %d", err, m.Used())
	}
	if err := m.Take(math.MaxInt64, "c"); !errors.Is(err, ErrExceeded) {
		t.Fatalf("a huge Take: %v", err)
	}
	prev := Set(1 << 20)
	defer Set(prev)
	if NewMeter(0).limit != 1<<20 {
		t.Fatal("NewMeter(0) is not the Default budget")
	}
}
