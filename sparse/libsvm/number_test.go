package libsvm

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// randomDecimal returns a random decimal number string in the grammar
// parseNumber accepts, biased towards the fast path's edges.
func randomDecimal(rng *rand.Rand) string {
	var b strings.Builder
	switch rng.IntN(3) {
	case 0:
		b.WriteByte('-')
	case 1:
		if rng.IntN(4) == 0 {
			b.WriteByte('+')
		}
	}
	nd := 1 + rng.IntN(25)
	dot := -1
	if rng.IntN(3) > 0 {
		dot = rng.IntN(nd + 1)
	}
	for k := 0; k < nd; k++ {
		if k == dot {
			b.WriteByte('.')
		}
		if k == 0 && rng.IntN(4) == 0 {
			b.WriteByte('0')
		} else {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
	}
	if dot == nd {
		b.WriteByte('.')
	}
	if rng.IntN(2) == 0 {
		b.WriteByte("eE"[rng.IntN(2)])
		if rng.IntN(2) == 0 {
			b.WriteByte("+-"[rng.IntN(2)])
		}
		e := rng.IntN(40)
		if rng.IntN(10) == 0 {
			e = rng.IntN(400)
		}
		b.WriteString(strconv.Itoa(e))
	}
	return b.String()
}

func TestParseNumberMatchesStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(s string) {
		t.Helper()
		want, werr := strconv.ParseFloat(s, 64)
		got, end, st := parseNumber([]byte(s+" "), 0)
		if end != len(s) {
			t.Fatalf("%q: end %d, want %d", s, end, len(s))
		}
		if werr != nil || math.IsInf(want, 0) {
			if st != numNotFinit {
				t.Fatalf("%q: status %d, strconv %v %v", s, st, want, werr)
			}
			return
		}
		// A number with a nonzero digit that strconv rounds to zero is an
		// underflow; a zero written with zeros is not.
		if under := want == 0 && nonzeroMantissa(s); under != (st == numUnderflow) {
			t.Fatalf("%q: status %d, strconv %v", s, st, want)
		} else if under {
			return
		}
		if st != numOK || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: got %v (%#x, status %d), want %v (%#x)", s, got, math.Float64bits(got), st, want, math.Float64bits(want))
		}
	}
	decimals, values := 300000, 100000
	if testing.Short() {
		t.Log("-short: a tenth of the random decimals and values")
		decimals, values = 30000, 10000
	}
	for range decimals {
		check(randomDecimal(rng))
	}
	// Random float64 and float32 values in their shortest and other forms.
	for range values {
		f := math.Float64frombits(rng.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		check(strconv.FormatFloat(f, 'g', -1, 64))
		check(strconv.FormatFloat(f, 'e', rng.IntN(20), 64))
		g := float64(math.Float32frombits(rng.Uint32()))
		if !math.IsNaN(g) && !math.IsInf(g, 0) {
			check(strconv.FormatFloat(g, 'g', -1, 32))
			check(strconv.FormatFloat(g, 'f', -1, 32))
		}
	}
	for _, s := range []string{
		"0", "-0", "+0", "0.0", "00", "1", "9007199254740991", "9007199254740992", "9007199254740993",
		"1e22", "1e23", "1e-22", "1e-23", "123456789e22", "9007199254740991e22", "9007199254740991e37",
		"1e37", "1e38", "1e-300", "1e-400", "4.9e-324", "2.5e-324", "1.7976931348623157e308", "1.8e308",
		"1e999", "0e999", "0.000000000000000000000000000001", "1234567890123456789", "12345678901234567890",
		"0.1", "0.2", "0.3", ".5", "5.", "1.e5", "1e+05", "1E-05", "99999999999999999999e-20",
	} {
		check(s)
	}
}

func TestParseNumberSyntax(t *testing.T) {
	for _, s := range []string{"", "+", "-", ".", "+.", "e5", ".e5", "1e", "1e+", "x", "--1", "+-1"} {
		if _, _, st := parseNumber([]byte(s), 0); st != numSyntax {
			t.Errorf("%q: status %d, want syntax", s, st)
		}
	}
	for _, s := range []string{"nan", "NaN", "-nan", "inf", "+Inf", "-INFINITY", "Infinity"} {
		if _, end, st := parseNumber([]byte(s), 0); st != numNotFinit || end != len(s) {
			t.Errorf("%q: status %d end %d, want not finite", s, st, end)
		}
	}
	for _, s := range []string{"nanx", "info", "in"} {
		if _, _, st := parseNumber([]byte(s), 0); st != numSyntax {
			t.Errorf("%q: status %d, want syntax", s, st)
		}
	}
}

// TestFloat32RoundTrip checks that every float32 written by appendValue
// reads back to the same bits through float32(parseNumber(...)).
func TestFloat32RoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var buf []byte
	for k := 0; k < 500000; k++ {
		bits := rng.Uint32()
		if k < 1000 {
			bits = uint32(k) // denormals
		}
		v := math.Float32frombits(bits)
		if !finite32(v) {
			continue
		}
		buf = appendValue(buf[:0], v)
		f, end, st := parseNumber(buf, 0)
		if st != numOK || end != len(buf) || math.Float32bits(float32(f)) != bits {
			t.Fatalf("%v (%#x) written as %q read back as %v", v, bits, buf, float32(f))
		}
	}
}

func BenchmarkParseNumber(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	var inputs [][]byte
	for range 1000 {
		inputs = append(inputs, []byte(strconv.FormatFloat(float64(float32(rng.NormFloat64())), 'g', -1, 32)))
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		parseNumber(inputs[i%len(inputs)], 0)
	}
}

// TestParseIntegerWidths parses rows whose indices and integer values
// have every width from 1 to 12 digits, at every position in the line
// (the integer shortcut for values takes up to 15 digits, parseNumber the rest).
func TestParseIntegerWidths(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 9))
	for it := range 3000 {
		var line []byte
		line = append(line, "+1"...)
		var wantInd []int32
		var wantVal []float32
		idx := int64(0)
		for range 1 + r.IntN(6) {
			idx += 1 + r.Int64N(int64(math.Pow10(1+r.IntN(9))))
			if idx > math.MaxInt32 {
				break
			}
			v := r.Int64N(int64(math.Pow10(1 + r.IntN(12))))
			line = append(line, ' ')
			line = strconv.AppendInt(line, idx, 10)
			line = append(line, ':')
			line = strconv.AppendInt(line, v, 10)
			wantInd = append(wantInd, int32(idx-1))
			wantVal = append(wantVal, float32(v))
		}
		if it%3 == 0 {
			line = append(line, " # tail"...)
		}
		d, err := Read(bytes.NewReader(line), sparse.ReadOptions{})
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got := d.X.Row(0)
		if !slices.Equal(got.Ind, wantInd) || !slices.Equal(got.Val, wantVal) {
			t.Fatalf("%q: got %v %v, want %v %v", line, got.Ind, got.Val, wantInd, wantVal)
		}
	}
}

// TestFloat32DoubleRounding: a decimal whose float64 lands exactly halfway
// between two float32 values, though the decimal itself is not halfway,
// reads as the float32 nearest to it (strconv.ParseFloat with bitSize 32),
// not as the even one a second rounding picks. The writer's shortest form
// of 0x15ae43fd is such a decimal.
func TestFloat32DoubleRounding(t *testing.T) {
	read := func(s string) float32 {
		t.Helper()
		d, err := Read(strings.NewReader("1 1:"+s+"\n"), sparse.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return d.X.Val[0]
	}
	for _, bits := range []uint32{0x15ae43fd, 0x95ae43fd} {
		t.Run(fmt.Sprintf("%#x", bits), func(t *testing.T) {
			v := math.Float32frombits(bits)
			d := &sparse.Dataset{X: &sparse.CSR{Rows: 1, Cols: 1, Indptr: []int64{0, 1}, Ind: []int32{0}, Val: []float32{v}}, Y: []float64{1}}
			var buf bytes.Buffer
			if err := Write(&buf, d); err != nil {
				t.Fatal(err)
			}
			back, err := Read(&buf, sparse.ReadOptions{})
			if err != nil || math.Float32bits(back.X.Val[0]) != bits {
				t.Fatalf("%#x written and read back: %#x, %v", bits, math.Float32bits(back.X.Val[0]), err)
			}
		})
	}
	if v := read("1.00000005960464477539062500000001"); math.Float32bits(v) != 0x3f800001 {
		t.Fatalf("just above the midpoint of 1 and its successor: %#x", math.Float32bits(v))
	}
	// Decimals of the reader's fast path (digits and a point, 16
	// characters at most) a hair off float32 midpoints, and the same with
	// more digits, which parseNumber takes; count the ones whose float64
	// is exactly halfway, so the test is sure to reach the case.
	r := rand.New(rand.NewPCG(5, 6))
	hits := 0
	draws := 20000
	if testing.Short() {
		t.Log("-short: 2000 values instead of 20000")
		draws = 2000
	}
	for range draws {
		v := float32(r.Float64()*2 - 1)
		if v <= 0 {
			continue
		}
		mid := (float64(v) + float64(math.Nextafter32(v, 2))) / 2
		long := strconv.FormatFloat(mid, 'f', 17, 64) // "0." and 17 digits
		s := long[:2+14]
		for _, c := range []string{s, s[:len(s)-1] + string(s[len(s)-1]^1), long} {
			want, _ := strconv.ParseFloat(c, 32)
			if got := read(c); got != float32(want) {
				t.Fatalf("%s: read %v (%#x), nearest float32 %v", c, got, math.Float32bits(got), want)
			}
			f, _ := strconv.ParseFloat(c, 64)
			if halfway32(f) {
				hits++
			}
		}
	}
	if hits == 0 {
		t.Fatal("no decimal landed on a midpoint: the search tests nothing")
	}
	t.Logf("%d decimals landed halfway", hits)
}

// TestParseNumberHugeExponent: an exponent of 10000 or more (which
// strconv caps) together with the leading zeros or digits that offset it
// gives the true value: out of range is an overflow or zero, in range the
// number itself.
func TestParseNumberHugeExponent(t *testing.T) {
	z := func(n int) string { return strings.Repeat("0", n) }
	for _, c := range []struct {
		s    string
		want float64
		st   numStatus
	}{
		{"0." + z(99990) + "1e100000000", 0, numNotFinit}, // 1e99900009, read as 1e9 by a capped exponent
		{"0." + z(99990) + "1e99995", 1e4, numOK},
		{"-0." + z(20000) + "5e20001", -5, numOK},
		{"0." + z(20000) + "123456789012345678901234567e20003", 123.456789012345678901234567, numOK},
		{"1" + z(10000) + "e-10000", 1, numOK},
		{"25" + z(30000) + "e-30001", 2.5, numOK},
		{"1e100000", 0, numNotFinit},
		{"-1e100000", 0, numNotFinit},
		{"1e-100000", 0, numUnderflow},
		{"0e999999999999999999999", 0, numOK},
		{"0.000e-999999", 0, numOK},
		{"7e-99999999999999999999999999", 0, numUnderflow},
		{"0." + z(20000) + "1e19000", 0, numUnderflow}, // 1e-1001: leading zeros and a big exponent
		{"1" + z(20000) + "e-20400", 0, numUnderflow},  // 1e-400
	} {
		f, end, st := parseNumber([]byte(c.s), 0)
		if st != c.st || end != len(c.s) || (st == numOK && f != c.want) {
			short := c.s
			if len(short) > 40 {
				short = short[:20] + "…" + short[len(short)-20:]
			}
			t.Errorf("%s: %v, end %d of %d, status %d; want %v, status %d", short, f, end, len(c.s), st, c.want, c.st)
		}
	}
}

// nonzeroMantissa reports whether the decimal s has a nonzero digit
// before its exponent.
func nonzeroMantissa(s string) bool {
	if k := strings.IndexAny(s, "eE"); k >= 0 {
		s = s[:k]
	}
	return strings.ContainsAny(s, "123456789")
}

// TestParseNumberUnderflow: a number written with a nonzero digit that
// rounds to float64 zero is numUnderflow, on every path (the fast path
// never is one, strconv's, and the big-exponent path); a zero written in
// any form is numOK.
func TestParseNumberUnderflow(t *testing.T) {
	for _, c := range []struct {
		s  string
		st numStatus
	}{
		{"1e-400", numUnderflow},
		{"-1e-400", numUnderflow},
		{"2e-324", numUnderflow}, // below half the smallest float64
		{"3e-324", numOK},        // rounds up to 4.9e-324
		{"4.9e-324", numOK},
		{"0.0000000000000000000000000001e-300", numUnderflow},
		{"1e-50", numOK},
		{"0", numOK}, {"-0", numOK}, {"0.0", numOK}, {"0e5", numOK}, {"0e-999", numOK}, {"-0.000E+0", numOK}, {".0", numOK},
	} {
		f, end, st := parseNumber([]byte(c.s), 0)
		if st != c.st || end != len(c.s) {
			t.Errorf("%s: %v, end %d, status %d; want status %d", c.s, f, end, st, c.st)
		}
		if st == numUnderflow && f != 0 {
			t.Errorf("%s: underflow with value %v", c.s, f)
		}
	}
}
