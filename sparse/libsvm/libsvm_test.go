package libsvm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/klauspost/compress/gzip"
)

type wantRow struct {
	y   float64
	ind []int32
	val []float32
}

func checkRows(t *testing.T, d *sparse.Dataset, want []wantRow) {
	t.Helper()
	if d.X.Rows != len(want) || len(d.Y) != len(want) {
		t.Fatalf("rows = %d, want %d", d.X.Rows, len(want))
	}
	for i, w := range want {
		if math.Float64bits(d.Y[i]) != math.Float64bits(w.y) {
			t.Errorf("row %d: label %v, want %v", i, d.Y[i], w.y)
		}
		v := d.X.Row(i)
		if fmt.Sprint(v.Ind) != fmt.Sprint(w.ind) && !(len(v.Ind) == 0 && len(w.ind) == 0) {
			t.Errorf("row %d: ind %v, want %v", i, v.Ind, w.ind)
		}
		if len(v.Val) != len(w.val) {
			t.Errorf("row %d: val %v, want %v", i, v.Val, w.val)
			continue
		}
		for k := range w.val {
			if math.Float32bits(v.Val[k]) != math.Float32bits(w.val[k]) {
				t.Errorf("row %d: val %v, want %v", i, v.Val, w.val)
				break
			}
		}
	}
}

func r(y float64, iv ...float64) wantRow {
	w := wantRow{y: y}
	for k := 0; k < len(iv); k += 2 {
		w.ind = append(w.ind, int32(iv[k]))
		w.val = append(w.val, float32(iv[k+1]))
	}
	return w
}

func TestReadAccepted(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	tests := []struct {
		name string
		in   string
		opt  sparse.ReadOptions
		want []wantRow
		cols int
		qid  []int64
	}{
		{name: "basic", in: "1 1:2 3:4\n-1 2:0.5\n", want: []wantRow{r(1, 0, 2, 2, 4), r(-1, 1, 0.5)}, cols: 3},
		{name: "plus label", in: "+1 1:1\n", want: []wantRow{r(1, 0, 1)}, cols: 1},
		{name: "zero label", in: "0 2:1\n", want: []wantRow{r(0, 1, 1)}, cols: 2},
		{name: "multiclass", in: "3 1:1\n17 1:1\n-4 1:1\n", want: []wantRow{r(3, 0, 1), r(17, 0, 1), r(-4, 0, 1)}, cols: 1},
		{name: "float labels", in: "2.5 1:1\n1e3 1:1\n-.25 1:1\n7. 1:1\n", want: []wantRow{r(2.5, 0, 1), r(1000, 0, 1), r(-0.25, 0, 1), r(7, 0, 1)}, cols: 1},
		{name: "labels past 2^53 a float64 holds", in: "9007199254740992 1:1\n-9007199254740994 1:1\n1e20 1:1\n9007199254740996.0 1:1\n1e300 1:1\n",
			want: []wantRow{r(1<<53, 0, 1), r(-(1<<53)-2, 0, 1), r(1e20, 0, 1), r(1<<53+4, 0, 1), r(1e300, 0, 1)}, cols: 1},
		{name: "qid", in: "1 qid:3 1:1\n2 qid:4 2:1\n", want: []wantRow{r(1, 0, 1), r(2, 1, 1)}, cols: 2, qid: []int64{3, 4}},
		{name: "qid partial", in: "1 qid:3 1:1\n2 2:1\n", want: []wantRow{r(1, 0, 1), r(2, 1, 1)}, cols: 2, qid: []int64{3, 0}},
		{name: "qid no features", in: "1 qid:9\n", want: []wantRow{r(1)}, cols: 0, qid: []int64{9}},
		{name: "end comment", in: "1 1:1 # a comment: 5:5\n", want: []wantRow{r(1, 0, 1)}, cols: 1},
		{name: "comment glued", in: "1 1:1#x\n2#y\n", want: []wantRow{r(1, 0, 1), r(2)}, cols: 1},
		{name: "whole line comment", in: "# header\n  # indented\n1 1:1\n", want: []wantRow{r(1, 0, 1)}, cols: 1},
		{name: "empty row", in: "-1\n", want: []wantRow{r(-1)}, cols: 0},
		{name: "empty row blank", in: "-1 \n1\t\n", want: []wantRow{r(-1), r(1)}, cols: 0},
		{name: "trailing blanks", in: "1 1:1  \t \n", want: []wantRow{r(1, 0, 1)}, cols: 1},
		{name: "CRLF", in: "1 1:1\r\n2 2:2\r\n\r\n-1\r\n", want: []wantRow{r(1, 0, 1), r(2, 1, 2), r(-1)}, cols: 2},
		{name: "BOM", in: "\xef\xbb\xbf1 1:1\n", want: []wantRow{r(1, 0, 1)}, cols: 1},
		{name: "blank lines", in: "\n\n1 1:1\n   \n\t\n2 1:2\n\n", want: []wantRow{r(1, 0, 1), r(2, 0, 2)}, cols: 1},
		{name: "no final newline", in: "1 1:1\n2 5:3", want: []wantRow{r(1, 0, 1), r(2, 4, 3)}, cols: 5},
		{name: "many blanks", in: "1  1:1\t\t2:2 \t 3:3", want: []wantRow{r(1, 0, 1, 1, 2, 2, 3)}, cols: 3},
		{name: "leading blanks", in: "  \t1 1:1\n", want: []wantRow{r(1, 0, 1)}, cols: 1},
		{name: "values", in: "1 1:-0.5 2:1e-3 3:+4 4:.5 5:5. 6:0 7:1E2 8:-7 9:123456789012\n",
			want: []wantRow{r(1, 0, -0.5, 1, 1e-3, 2, 4, 3, .5, 4, 5, 5, 0, 6, 100, 7, -7, 8, 123456789012)}, cols: 9},
		{name: "negative zero", in: "1 1:-0\n", want: []wantRow{{y: 1, ind: []int32{0}, val: []float32{negZero}}}, cols: 1},
		{name: "float32 extremes", in: "1 1:3.4028235e38 2:1.4e-45 3:-7.1e-46\n", want: []wantRow{r(1, 0, math.MaxFloat32, 1, math.SmallestNonzeroFloat32, 2, -math.SmallestNonzeroFloat32)}, cols: 3},
		// Zero written any way is an explicit zero (only a nonzero digit
		// that float32 rounds away is refused).
		{name: "zeros", in: "0 1:0 2:0.0 3:0e5 4:0.000e-999 5:.0e400 6:0.00000000000000000000000000\n", want: []wantRow{r(0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0)}, cols: 6},
		{name: "label 1e-300", in: "1e-300 1:1\n", want: []wantRow{r(1e-300, 0, 1)}, cols: 1},
		{name: "MaxLineBytes exact", in: "1 1:1 2:2\n-1 3:1\r\n1 1:1 2:2", opt: sparse.ReadOptions{MaxLineBytes: 9}, want: []wantRow{r(1, 0, 1, 1, 2), r(-1, 2, 1), r(1, 0, 1, 1, 2)}, cols: 3},
		{name: "long mantissa", in: "1 1:0.1000000000000000000000000001 2:123456789012345678901234567890\n",
			want: []wantRow{r(1, 0, 0.1, 1, 123456789012345678901234567890)}, cols: 2},
		{name: "leading zeros index", in: "1 007:1\n", want: []wantRow{r(1, 6, 1)}, cols: 7},
		{name: "empty", in: "", want: nil, cols: 0},
		{name: "only comments", in: "# nothing\n\n# here\n", want: nil, cols: 0},
		{name: "BOM only", in: "\xef\xbb\xbf", want: nil, cols: 0},
		{name: "Dim", in: "1 3:1\n", opt: sparse.ReadOptions{Dim: 5}, want: []wantRow{r(1, 2, 1)}, cols: 5},
		{name: "index at Dim", in: "1 5:1\n", opt: sparse.ReadOptions{Dim: 5}, want: []wantRow{r(1, 4, 1)}, cols: 5},
		{name: "index at MaxDim", in: "1 10:1\n", opt: sparse.ReadOptions{MaxDim: 10}, want: []wantRow{r(1, 9, 1)}, cols: 10},
		{name: "int32 max index", in: "1 2147483647:1\n", want: []wantRow{r(1, math.MaxInt32-1, 1)}, cols: math.MaxInt32},
		{name: "MaxRowNNZ exact", in: "1 1:1 2:1\n", opt: sparse.ReadOptions{MaxRowNNZ: 2}, want: []wantRow{r(1, 0, 1, 1, 1)}, cols: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := readAllWays(t, tc.in, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, d, tc.want)
			if d.X.Cols != tc.cols {
				t.Errorf("Cols = %d, want %d", d.X.Cols, tc.cols)
			}
			if fmt.Sprint(d.QID) != fmt.Sprint(tc.qid) || (d.QID == nil) != (tc.qid == nil) {
				t.Errorf("QID = %v, want %v", d.QID, tc.qid)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		in        string
		opt       sparse.ReadOptions
		err       error
		line, col int
	}{
		{"x 1:1\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 1},
		{"1:1 2:2\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 1},                 // missing label
		{"qid:1 1:1\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 1},               // missing label
		{"1 1:1\n1 2 3\n", sparse.ReadOptions{}, sparse.ErrSyntax, 2, 3},            // missing colon
		{"1 :5\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 3},                    // value without index
		{"1 1:\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 3},                    // missing value
		{"1 1: 2:3\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 3},                // missing value
		{"1 1:1 2:#c\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 7},              // missing value
		{"1 1:abc\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 5},                 // text value
		{"1 1:2x\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 5},                  // junk after value
		{"1 1:2:3\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 5},                 // two colons
		{"1 1:1e\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 5},                  // bad exponent
		{"1 1:.\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 5},                   // lone dot
		{"1 1:0x10\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 5},                // hex not accepted
		{"1 1:1_000\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 5},               // underscores not accepted
		{"1 a:1\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 3},                   // text index
		{"1 1.5:2\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 3},                 // fractional index
		{"1 +1:2\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 3},                  // signed index
		{"abc\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 1},                     // garbage label
		{"1x 1:1\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 1},                  // garbage label
		{"1\v1:1\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 1},                  // vertical tab is no blank
		{"1 1:1\r2:2\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 5},              // lone CR
		{"1 1:1\n\x00\x01\x02\x03\n", sparse.ReadOptions{}, sparse.ErrSyntax, 2, 1}, // binary
		{"1 1:1 \x00\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 7},              // NUL
		{"\x7fELF\x02\x01\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 1},         // binary
		{"1 qid:x 1:1\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 3},             // bad qid
		{"1 qid:-1 1:1\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 3},            // negative qid
		{"1 qid: 1:1\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 3},              // empty qid
		{"1 1:1 qid:3\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 7},             // misplaced qid
		{"1 qid:99999999999999999999 1:1\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 3},
		{"1 0:1\n", sparse.ReadOptions{}, sparse.ErrIndex, 1, 3},
		{"1 -1:1\n", sparse.ReadOptions{}, sparse.ErrIndex, 1, 3},
		{"1 2:1 -3:1\n", sparse.ReadOptions{}, sparse.ErrIndex, 1, 7},
		{"1 2:1 1:1\n", sparse.ReadOptions{}, sparse.ErrIndexOrder, 1, 7},
		{"1 2:1 2:1\n", sparse.ReadOptions{}, sparse.ErrIndexOrder, 1, 7},
		{"1 1:1 3:1 3:1\n", sparse.ReadOptions{}, sparse.ErrIndexOrder, 1, 11},
		{"1 4000000000:1\n", sparse.ReadOptions{}, sparse.ErrIndexRange, 1, 3},
		{"1 2147483648:1\n", sparse.ReadOptions{}, sparse.ErrIndexRange, 1, 3},
		{"1 99999999999999999999999999999:1\n", sparse.ReadOptions{}, sparse.ErrIndexRange, 1, 3},
		{"1 6:1\n", sparse.ReadOptions{Dim: 5}, sparse.ErrIndexRange, 1, 3},
		{"1 11:1\n", sparse.ReadOptions{MaxDim: 10}, sparse.ErrIndexRange, 1, 3},
		{"1 1:nan\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 5},
		{"1 1:NaN\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 5},
		{"1 1:inf\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 5},
		{"1 1:-Infinity\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 5},
		{"1 1:1e999\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 5},
		{"1 1:-1e999\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 5},
		{"1 1:1e39\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 5}, // overflows float32
		// Nonzero values that float32 rounds to zero.
		{"1 1:1e-50\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 5},
		{"1 1:1 2:-1e-46\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 9},
		{"1 1:7.006492321624085e-46\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 5}, // 2^-150, ties to zero
		{"1 1:1e-400\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 5},
		{"1 1:0.0000000000000000000000000000000000000000000000001\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 5},
		{"1 1:1e-99999\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 5},
		{"1e-400 1:1\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 1}, // label underflows float64
		{"1 1:1e-50x\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 5},
		// Lines longer than MaxLineBytes, '\r' included, '\n' not.
		{"1 1:1 2:2\n", sparse.ReadOptions{MaxLineBytes: 8}, sparse.ErrLineTooLong, 1, 9},
		{"1 1:1\n\n1 1:1 2:2 3:3\n1 1:1\n", sparse.ReadOptions{MaxLineBytes: 8}, sparse.ErrLineTooLong, 3, 9},
		{"1 1:1\n1 1:1 2:3", sparse.ReadOptions{MaxLineBytes: 8}, sparse.ErrLineTooLong, 2, 9}, // last line, no newline
		{"1 1:1 2:\r\n", sparse.ReadOptions{MaxLineBytes: 8}, sparse.ErrLineTooLong, 1, 9},
		{"1 1:1\n" + strings.Repeat("1 1:1 2:2 3:3 4:4 5:5 ", 20) + "\n", sparse.ReadOptions{MaxLineBytes: 100}, sparse.ErrLineTooLong, 2, 101},
		{"nan 1:1\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 1},
		{"-inf 1:1\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 1},
		{"1e999 1:1\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 1},
		// Labels float64 would round to another's class.
		{"9007199254740992 1:1\n9007199254740993 1:1\n", sparse.ReadOptions{}, sparse.ErrValue, 2, 1},
		{"1 1:1\n-9007199254740995 1:1\n", sparse.ReadOptions{}, sparse.ErrValue, 2, 1},
		{"9.007199254740993e15 1:1\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 1},
		{"1.0000000000000001e300 1:1\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 1},
		{"9007199254740992" + strings.Repeat("0", 60) + "e-60 1:1\n", sparse.ReadOptions{}, sparse.ErrValue, 1, 1}, // too long to check
		{"1 1:1 2:1 3:1\n", sparse.ReadOptions{MaxRowNNZ: 2}, sparse.ErrRowTooLong, 1, 11},
		// Line numbers count blank, comment and CRLF lines.
		{"1 1:1\n\n# c\r\n  \nx\n", sparse.ReadOptions{}, sparse.ErrSyntax, 5, 1},
		{"\xef\xbb\xbfx\n", sparse.ReadOptions{}, sparse.ErrSyntax, 1, 1},
		{"1 1:1\r\n1 0:1\r\n", sparse.ReadOptions{}, sparse.ErrIndex, 2, 3},
		{"1 1:1\n2 1:x", sparse.ReadOptions{}, sparse.ErrSyntax, 2, 5}, // last line without newline
		// The earliest error wins.
		{"1 0:1\n1 1:nan\n", sparse.ReadOptions{}, sparse.ErrIndex, 1, 3},
	}
	for _, tc := range tests {
		t.Run(strconv.Quote(tc.in), func(t *testing.T) {
			_, err := readAllWays(t, tc.in, tc.opt)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			var pe *sparse.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *sparse.ParseError", err)
			}
			if pe.Line != tc.line || pe.Col != tc.col {
				t.Errorf("error at %d:%d, want %d:%d (%v)", pe.Line, pe.Col, tc.line, tc.col, err)
			}
			if want := fmt.Sprintf("<input>:%d:%d: ", tc.line, tc.col); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("message %q does not start with %q", err, want)
			}
		})
	}
}

func TestParseErrorName(t *testing.T) {
	_, err := Read(strings.NewReader("1 1:1\n1 0:1\n"), sparse.ReadOptions{Name: "train.svm"})
	if err == nil || !strings.HasPrefix(err.Error(), "train.svm:2:3: ") {
		t.Fatalf("error %v", err)
	}
}

func TestBadOptions(t *testing.T) {
	for _, opt := range []sparse.ReadOptions{
		{Dim: -1}, {MaxDim: -1}, {MaxRowNNZ: -1}, {Workers: -1},
		{Dim: 11, MaxDim: 10}, {Dim: math.MaxInt32 + 1},
		{MaxLineBytes: -1}, {MemoryBudget: -1},
	} {
		if _, err := Read(strings.NewReader("1 1:1\n"), opt); !errors.Is(err, sparse.ErrBadOption) {
			t.Errorf("%+v: Read error %v, want sparse.ErrBadOption", opt, err)
		}
		sc := NewScanner(strings.NewReader("1 1:1\n"), opt)
		if sc.Scan() || !errors.Is(sc.Err(), sparse.ErrBadOption) {
			t.Errorf("%+v: Scanner error %v, want sparse.ErrBadOption", opt, sc.Err())
		}
	}
}

// randomCorpus returns n random valid LIBSVM lines, with blank and comment
// lines, CRLF ends, qids and assorted number spellings mixed in.
func randomCorpus(rng *rand.Rand, n int) []string {
	lines := make([]string, n)
	for i := range lines {
		var b strings.Builder
		switch rng.IntN(20) {
		case 0:
			lines[i] = ""
			continue
		case 1:
			lines[i] = "# comment " + strconv.Itoa(i)
			continue
		}
		labels := []string{"1", "-1", "+1", "0", "3", "2.5", "-1e-2"}
		b.WriteString(labels[rng.IntN(len(labels))])
		if rng.IntN(4) == 0 {
			b.WriteString(" qid:" + strconv.Itoa(rng.IntN(100)))
		}
		idx := 0
		for range rng.IntN(30) {
			idx += 1 + rng.IntN(1000)
			b.WriteString([]string{" ", "\t", "  "}[rng.IntN(3)])
			b.WriteString(strconv.Itoa(idx) + ":")
			switch rng.IntN(4) {
			case 0:
				b.WriteString(strconv.Itoa(rng.IntN(10)))
			case 1:
				b.WriteString(strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64))
			case 2:
				b.WriteString(strconv.FormatFloat(rng.NormFloat64()*1e10, 'e', rng.IntN(12), 64))
			default:
				b.WriteString(strconv.FormatFloat(float64(float32(rng.Float64())), 'f', -1, 32))
			}
		}
		if rng.IntN(5) == 0 {
			b.WriteString(" # tail")
		}
		if rng.IntN(5) == 0 {
			b.WriteString(" \t")
		}
		if rng.IntN(6) == 0 {
			b.WriteString("\r")
		}
		lines[i] = b.String()
	}
	return lines
}

func TestChunkBoundaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	lines := randomCorpus(rng, 3000)
	input := strings.Join(lines, "\n")
	ref, err := scanAll(strings.NewReader(input), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref.X.Rows < 2500 || ref.QID == nil {
		t.Fatalf("corpus too small: %d rows", ref.X.Rows)
	}
	for _, cs := range []int{16, 17, 64, 100, 1000, 4096, 1 << 20} {
		t.Run(fmt.Sprintf("chunk=%d", cs), func(t *testing.T) {
			for _, w := range []int{1, 2, 7} {
				d, err := read(strings.NewReader(input), sparse.ReadOptions{Workers: w}, cs)
				if err != nil {
					t.Fatalf("chunk %d workers %d: %v", cs, w, err)
				}
				if diff := diffDatasets(ref, d); diff != "" {
					t.Fatalf("chunk %d workers %d: %s", cs, w, diff)
				}
			}
		})
	}
	// Gzip input, one byte per Read, tiny blocks.
	var zbuf bytes.Buffer
	zw := gzip.NewWriter(&zbuf)
	zw.Write([]byte(input))
	zw.Close()
	d, err := read(oneByteReader{bytes.NewReader(zbuf.Bytes())}, sparse.ReadOptions{Workers: 3}, 50)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffDatasets(ref, d); diff != "" {
		t.Fatalf("gzip: %s", diff)
	}
	d, err = scanAll(bytes.NewReader(zbuf.Bytes()), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffDatasets(ref, d); diff != "" {
		t.Fatalf("gzip scanner: %s", diff)
	}
}

func TestErrorLineLateChunk(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	lines := randomCorpus(rng, 3000)
	bad := append([]string(nil), lines...)
	bad[2400] = "1 5:1 3:1"
	bad[2900] = "garbage"
	input := strings.Join(bad, "\n")
	for _, cs := range []int{16, 300, 1 << 20} {
		for _, w := range []int{1, 4} {
			_, err := read(strings.NewReader(input), sparse.ReadOptions{Workers: w}, cs)
			var pe *sparse.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, sparse.ErrIndexOrder) || pe.Line != 2401 || pe.Col != 7 {
				t.Fatalf("chunk %d workers %d: error %v, want sparse.ErrIndexOrder at 2401:7", cs, w, err)
			}
		}
	}
	_, err := scanAll(strings.NewReader(input), sparse.ReadOptions{})
	var pe *sparse.ParseError
	if !errors.As(err, &pe) || pe.Line != 2401 {
		t.Fatalf("scanner: %v", err)
	}
}

// errReader returns data, then err.
type errReader struct {
	data []byte
	err  error
}

func (e *errReader) Read(p []byte) (int, error) {
	if len(e.data) == 0 {
		return 0, e.err
	}
	n := copy(p, e.data)
	e.data = e.data[n:]
	return n, nil
}

func TestReadIOErrors(t *testing.T) {
	boom := errors.New("boom")
	in := strings.Repeat("1 1:1 2:2\n", 1000)
	if _, err := read(&errReader{[]byte(in), boom}, sparse.ReadOptions{Workers: 2}, 100); !errors.Is(err, boom) {
		t.Errorf("Read: %v, want boom", err)
	}
	if _, err := scanAll(&errReader{[]byte(in), boom}, sparse.ReadOptions{}); !errors.Is(err, boom) {
		t.Errorf("Scanner: %v, want boom", err)
	}
	// A parse error before the failing read wins.
	bad := "1 0:1\n" + in
	if _, err := read(&errReader{[]byte(bad), boom}, sparse.ReadOptions{}, 100); !errors.Is(err, sparse.ErrIndex) {
		t.Errorf("Read: %v, want sparse.ErrIndex", err)
	}
	// Truncated and corrupted gzip.
	var zbuf bytes.Buffer
	zw := gzip.NewWriter(&zbuf)
	zw.Write([]byte(in))
	zw.Close()
	z := zbuf.Bytes()
	if _, err := Read(bytes.NewReader(z[:len(z)/2]), sparse.ReadOptions{}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated gzip: %v", err)
	}
	if _, err := scanAll(bytes.NewReader(z[:len(z)/2]), sparse.ReadOptions{}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated gzip scanner: %v", err)
	}
	corrupt := append([]byte(nil), z...)
	corrupt[len(corrupt)-6] ^= 0xff // CRC
	if _, err := Read(bytes.NewReader(corrupt), sparse.ReadOptions{}); err == nil {
		t.Errorf("corrupt gzip: no error")
	}
	if _, err := Read(bytes.NewReader([]byte{0x1f, 0x8b, 0}), sparse.ReadOptions{}); err == nil {
		t.Errorf("bad gzip header: no error")
	}
}

// TestHugeIndexNoAlloc checks that a huge index fails fast without
// allocating in proportion to its value, and that no number in the input
// sizes an allocation.
func TestHugeIndexNoAlloc(t *testing.T) {
	for _, in := range []string{"1 4000000000:1\n", "1 2147483647:1 2147483648:1\n", "1 qid:4000000000 99999999999:1\n"} {
		t.Run(strings.TrimSpace(in), func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Read(strings.NewReader(in), sparse.ReadOptions{})
			runtime.ReadMemStats(&after)
			if !errors.Is(err, sparse.ErrIndexRange) {
				t.Fatalf("%q: %v", in, err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
				t.Errorf("%q: Read allocated %d bytes", in, got)
			}
			runtime.ReadMemStats(&before)
			_, err = scanAll(strings.NewReader(in), sparse.ReadOptions{})
			runtime.ReadMemStats(&after)
			if !errors.Is(err, sparse.ErrIndexRange) {
				t.Fatalf("%q: scanner %v", in, err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
				t.Errorf("%q: Scanner allocated %d bytes", in, got)
			}
		})
	}
	// The largest valid index gives a matrix with 2^31-1 columns but
	// allocates only for its single entry.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, err := Read(strings.NewReader("1 2147483647:1\n"), sparse.ReadOptions{})
	runtime.ReadMemStats(&after)
	if err != nil || d.X.Cols != math.MaxInt32 {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("allocated %d bytes", got)
	}
}

func TestScannerZeroAllocs(t *testing.T) {
	line := "1 qid:2 1:1 5:2.5 70:3 1000:-1e-3 # c\n"
	in := strings.Repeat(line, 5000)
	sc := NewScanner(strings.NewReader(in), sparse.ReadOptions{})
	for range 100 { // warm up the buffers
		if !sc.Scan() {
			t.Fatal(sc.Err())
		}
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if !sc.Scan() {
			t.Fatal(sc.Err())
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per row", allocs)
	}
	y, v := sc.Row()
	if q, ok := sc.QID(); y != 1 || !ok || q != 2 || v.NNZ() != 4 || v.Dim != 1000 || v.Ind[3] != 999 || v.Val[3] != -1e-3 {
		t.Errorf("row %v %v", y, v)
	}
	if sc.Line() != 1101 { // 100 + 1000 + AllocsPerRun's warm-up call
		t.Errorf("Line = %d", sc.Line())
	}
}

func TestReadLargeLine(t *testing.T) {
	// One line much longer than the blocks and buffers.
	var b strings.Builder
	b.WriteString("1 1:1\n2")
	for k := 1; k <= 50000; k++ {
		b.WriteString(" " + strconv.Itoa(k) + ":1")
	}
	b.WriteString("\n3 2:1\n")
	d, err := readAllWays(t, b.String(), sparse.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.X.Rows != 3 || d.X.Row(1).NNZ() != 50000 {
		t.Fatalf("rows %d", d.X.Rows)
	}
	_, err = readAllWays(t, b.String(), sparse.ReadOptions{MaxRowNNZ: 49999})
	var pe *sparse.ParseError
	if !errors.Is(err, sparse.ErrRowTooLong) || !errors.As(err, &pe) || pe.Line != 2 {
		t.Fatalf("error %v", err)
	}
}

// TestFeaturesMatchStrconv checks the parser's fast paths (counts,
// fractions, blanks, comments, MaxRowNNZ, and through readAllWays the
// Scanner's capacity growth) against strconv: each value must be
// float32(strconv.ParseFloat(s, 64)), bit for bit.
func TestFeaturesMatchStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	digits := func(n int) string {
		b := make([]byte, n)
		for k := range b {
			b[k] = byte('0' + rng.IntN(10))
		}
		return string(b)
	}
	value := func() string {
		switch rng.IntN(8) {
		case 0, 1, 2:
			return strconv.Itoa(1 + rng.IntN(20))
		case 3:
			return digits(1 + rng.IntN(17)) // up to and past 15 digits
		case 4:
			return digits(1+rng.IntN(8)) + "." + digits(rng.IntN(12))
		case 5:
			return digits(1+rng.IntN(3)) + "." + digits(10+rng.IntN(8)) // around 15 digits in all
		case 6:
			return "0." + strings.Repeat("0", rng.IntN(20)) + digits(1+rng.IntN(6))
		}
		return []string{"-1", "+2", "1e3", "2.5E-3", "-0", "0.0", "1.", ".5", "-.25"}[rng.IntN(9)]
	}
	seps := []string{" ", " ", " ", "\t", "  ", " \t "}
	for _, maxRow := range []int{0, 3} {
		t.Run(fmt.Sprintf("maxRow=%d", maxRow), func(t *testing.T) {
			var in strings.Builder
			var want []wantRow
			for range 400 {
				w := wantRow{y: 1}
				in.WriteString("1")
				idx := 0
				nf := rng.IntN(12)
				if maxRow > 0 {
					nf = rng.IntN(maxRow + 1)
				}
				for range nf {
					idx += 1 + rng.IntN(1000)
					s := value()
					f, err := strconv.ParseFloat(s, 64)
					if err != nil {
						t.Fatal(err)
					}
					in.WriteString(seps[rng.IntN(len(seps))] + strconv.Itoa(idx) + ":" + s)
					w.ind = append(w.ind, int32(idx-1))
					w.val = append(w.val, float32(f))
				}
				in.WriteString([]string{"", " ", "\t", " # c", "#c", "\r"}[rng.IntN(6)] + "\n")
				want = append(want, w)
			}
			d, err := readAllWays(t, in.String(), sparse.ReadOptions{MaxRowNNZ: maxRow})
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, d, want)
			if maxRow > 0 {
				_, err := readAllWays(t, in.String()+"1 1:1 2:0.5 3:3 4:4\n", sparse.ReadOptions{MaxRowNNZ: maxRow})
				var pe *sparse.ParseError
				if !errors.Is(err, sparse.ErrRowTooLong) || !errors.As(err, &pe) || pe.Line != len(want)+1 || pe.Col != 17 {
					t.Fatalf("row too long: %v", err)
				}
			}
		})
	}
}
