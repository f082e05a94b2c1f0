package libsvm

import (
	"math"
	"strconv"
	"unsafe"
)

// numStatus is the outcome of parseNumber.
type numStatus uint8

const (
	numOK        numStatus = iota
	numSyntax              // not a decimal number
	numNotFinit            // NaN, Inf or overflow
	numUnderflow           // not zero as written, but rounds to float64 zero
)

// pow10 holds the powers of ten that are exact in float64.
var pow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// parseNumber parses the decimal number that starts at b[i]:
//
//	[+-] ( digits [ '.' [digits] ] | '.' digits ) [ [eE] [+-] digits ]
//
// It returns the correctly rounded float64 value and end, the index of the
// first byte after the number (the caller checks what follows). The common
// case — at most 19 significant digits forming a mantissa below 2^53 with a
// decimal exponent in [-22, 22] — is computed exactly with one float64
// multiplication or division by an exact power of ten (Clinger's fast
// path); every other number goes to strconv.ParseFloat through a
// zero-copy string view. NaN and infinities, spelled out or by overflow,
// yield numNotFinit; a number with a nonzero digit whose value rounds to
// zero (1e-400) yields numUnderflow, with f = ±0; anything else that is
// not a decimal number yields numSyntax. Only the slow path can
// underflow: the fast path's mantissa is nonzero or every digit was 0.
func parseNumber(b []byte, i int) (f float64, end int, st numStatus) {
	start := i
	n := len(b)
	neg := false
	if i < n && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	// The mantissa: integer digits, then after a '.' fraction digits, in
	// one loop. mant takes the first 19 significant digits (leading zeros
	// are taken but not counted); a dropped integer digit raises the
	// exponent, a taken fraction digit lowers it.
	intStart := i
	var mant uint64
	nd := 0  // significant digits held in mant
	exp := 0 // decimal exponent to apply to mant
	exact := true
	frac := 0 // 1 once past the '.'
	for ; i < n; i++ {
		c := b[i] - '0'
		if c > 9 {
			if b[i] == '.' && frac == 0 {
				frac = 1
				continue
			}
			break
		}
		if nd < 19 {
			mant = mant*10 + uint64(c)
			if mant != 0 {
				nd++
			}
			exp -= frac
		} else {
			exp += 1 - frac
			if c != 0 {
				exact = false
			}
		}
	}
	digits := i-intStart > frac
	if !digits {
		if isNonFinite(b[i:]) {
			return 0, wordEnd(b, i), numNotFinit
		}
		return 0, i, numSyntax
	}
	mantEnd := i
	bigExp := false // the exponent as written is 10000 or more
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		var e int
		var ok bool
		if e, bigExp, i, ok = exponent(b, i+1); !ok {
			return 0, i, numSyntax
		}
		exp += e
	}
	end = i
	if exact && mant < 1<<53 {
		f, ok := exactValue(mant, exp)
		if !ok {
			f, ok = surplusValue(mant, exp)
		}
		if ok {
			if neg {
				f = -f
			}
			return f, end, numOK
		}
	}
	if bigExp {
		return bigExponent(b[start:mantEnd], neg, mant, exp+nd, end)
	}
	// mant holds the leading significant digits: nonzero unless every
	// digit was 0.
	f, st = slowNumber(b[start:end], mant != 0)
	return f, end, st
}

// slowNumber finishes parseNumber for the number num, whose grammar it
// checked, that the fast path does not take, with strconv.ParseFloat
// through a zero-copy string view; nonzero tells whether a significant
// digit is not 0.
func slowNumber(num []byte, nonzero bool) (float64, numStatus) {
	f, err := strconv.ParseFloat(unsafe.String(&num[0], len(num)), 64)
	if err != nil || math.IsInf(f, 0) {
		// The grammar was checked, so the only possible error is
		// ErrRange from overflow (underflow rounds to zero without error).
		return f, numNotFinit
	}
	if f == 0 && nonzero {
		return f, numUnderflow
	}
	return f, numOK
}

// exponent parses the exponent digits of a number, [+-] digits, at b[i:]
// just after its 'e'. It returns the signed exponent, big if it is
// written as 10000 or more, the index after it, and false if no digit
// follows the sign (then end is where a digit was wanted).
func exponent(b []byte, i int) (e int, big bool, end int, ok bool) {
	n := len(b)
	neg := false
	if i < n && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i >= n || b[i]-'0' > 9 {
		return 0, false, i, false
	}
	for ; i < n; i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		// Saturated far beyond any line's count of digits, which
		// offsets it, so that exp stays exact for the value's
		// magnitude (a cap at 10^5 let 99990 leading zeros bring
		// 1e100000000 back into range as 1e9).
		if e < 1<<40 {
			e = e*10 + int(c)
		}
	}
	big = e >= 10000
	if neg {
		e = -e
	}
	return e, big, i, true
}

// exactValue is Clinger's fast path: mant·10^exp computed with one
// correctly rounded float64 operation, for mant < 2^53 and exp within the
// exact powers of ten. ok is false for the numbers it cannot compute so;
// surplusValue takes some of them.
func exactValue(mant uint64, exp int) (f float64, ok bool) {
	switch {
	case mant == 0:
		return 0, true
	case exp >= 0 && exp <= 22:
		return float64(mant) * pow10[exp], true
	case exp < 0 && exp >= -22:
		return float64(mant) / pow10[-exp], true
	}
	return 0, false
}

// surplusValue extends exactValue to 22 < exp <= 22+15: it moves the
// surplus power of ten into the mantissa while it stays exact, then makes
// one rounding multiplication. ok is false outside that range or when
// mant would grow past 2^53.
func surplusValue(mant uint64, exp int) (f float64, ok bool) {
	if exp <= 22 || exp > 22+15 {
		return 0, false
	}
	for k := exp - 22; k > 0; k-- {
		if mant >= (1<<53)/10 {
			return 0, false
		}
		mant *= 10
	}
	return float64(mant) * 1e22, true
}

// bigExponent finishes parseNumber for a number written with an exponent
// of 10000 or more, which strconv.ParseFloat caps (it takes 1e100000 with
// enough leading zeros before the 1 for 0). lead is the decimal exponent
// of the leading digit plus one (the value lies in [10^(lead-1), 10^lead)),
// m the mantissa part as written. A number far out of range is decided
// here; one in range is passed to strconv as 0.DIGITS e LEAD, an exponent
// it takes.
func bigExponent(m []byte, neg bool, mant uint64, lead, end int) (float64, int, numStatus) {
	zero := 0.0
	if neg {
		zero = math.Copysign(0, -1)
	}
	switch {
	case mant == 0:
		return zero, end, numOK
	case lead > 310:
		return 0, end, numNotFinit
	case lead < -330:
		return zero, end, numUnderflow
	}
	s := make([]byte, 0, len(m)+16)
	if neg {
		s = append(s, '-')
	}
	s = append(s, '0', '.')
	leading := true
	for _, c := range m {
		if c < '0' || c > '9' || (leading && c == '0') {
			continue
		}
		leading = false
		s = append(s, c)
	}
	s = append(s, 'e')
	s = strconv.AppendInt(s, int64(lead), 10)
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil || math.IsInf(f, 0) {
		return f, end, numNotFinit
	}
	if f == 0 {
		return f, end, numUnderflow // mant != 0 here
	}
	return f, end, numOK
}

// isNonFinite reports whether b starts with "nan", "inf" or "infinity" in any
// letter case, followed by a non-letter.
func isNonFinite(b []byte) bool {
	w := b[:wordEnd(b, 0)]
	if len(w) != 3 && len(w) != 8 {
		return false
	}
	var low [8]byte
	for k, c := range w {
		low[k] = c | 0x20
	}
	s := string(low[:len(w)])
	return s == "nan" || s == "inf" || s == "infinity"
}

// wordEnd returns the index of the first byte at or after i that is not an
// ASCII letter.
func wordEnd(b []byte, i int) int {
	for i < len(b) && (b[i]|0x20) >= 'a' && (b[i]|0x20) <= 'z' {
		i++
	}
	return i
}

// toFloat32 returns the decimal s as a float32, given f, its correctly
// rounded float64. Rounding f again gives the float32 nearest to s except
// when f lies exactly halfway between two float32 values while s does not
// (s was a hair off the midpoint and the first rounding landed on it):
// the tie then breaks to even where s is nearer the other side, as for
// 7.038531e-26, which Write writes for the float32 0x15ae43fd. There
// s is parsed again, straight to float32.
func toFloat32(f float64, s []byte) float32 {
	if !halfway32(f) {
		return float32(f)
	}
	v, err := strconv.ParseFloat(string(s), 32)
	if err != nil && !math.IsInf(v, 0) {
		return float32(f) // not a plain decimal (the callers checked it)
	}
	return float32(v)
}

// halfway32 reports whether f lies exactly halfway between two adjacent
// float32 values.
func halfway32(f float64) bool {
	a := math.Abs(f)
	if a >= 0x1p-126 {
		// A normal float32 has 29 fewer mantissa bits than a float64:
		// halfway, those bits are 1 followed by zeros.
		return math.Float64bits(a)&(1<<29-1) == 1<<28
	}
	// Below, float32 steps by 2^-149: halfway is an odd multiple of
	// 2^-150 (a·2^150 < 2^24 is exact).
	m := a * 0x1p150
	return m == math.Trunc(m) && math.Mod(m, 2) == 1
}
