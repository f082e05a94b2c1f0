package engine

// Model files that must be refused: truncated, corrupt, garbage, huge
// claims, bad headers, failing readers, and models that cannot be written.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/kernels"
)

// TestModelFileLoadErrors: a loader names the file and says what is
// wrong with it, and a missing file or a directory is no format error.
func TestModelFileLoadErrors(t *testing.T) {
	dir := t.TempDir()
	for i, k := range fileKinds {
		t.Run(k.name, func(t *testing.T) {
			if _, err := k.load(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("missing file: %v", err)
			}
			if _, err := k.load(dir); err == nil || errors.Is(err, ErrFormat) {
				t.Errorf("loading a directory: %v", err)
			}
			good := fileEncode(t, k.small())
			corrupt := bytes.Clone(good)
			corrupt[len(corrupt)/2] ^= 0x10
			other := fileEncode(t, fileKinds[1-i].small())
			notOne := "engine: bad model file: not a hyperplane " + k.noun + " file"
			for _, c := range []struct {
				name, want string
				data       []byte
			}{
				{"corrupt", "engine: bad model file: checksum mismatch: file is corrupt", corrupt},
				{"empty", notOne, nil},
				{"short", "engine: bad model file: truncated in", good[:len(good)-1]},
				{"long", "engine: bad model file: 1 bytes of trailing data after the model", append(bytes.Clone(good), 0)},
				{"other-kind", notOne, other},
				{"json", notOne, []byte(`{"format":"hyperplane-model"}`)},
			} {
				t.Run(c.name, func(t *testing.T) {
					path := filepath.Join(dir, k.name+"-"+c.name)
					if err := os.WriteFile(path, c.data, 0o644); err != nil {
						t.Fatal(err)
					}
					_, err := k.load(path)
					if want := path + ": " + c.want; !errors.Is(err, ErrFormat) || !strings.HasPrefix(err.Error(), want) {
						t.Errorf("err = %v, want %s…", err, want)
					}
				})
			}
		})
	}
}

// TestModelFileTruncated: every proper prefix of an encoding fails with
// ErrFormat, whether the reader knows the input's size or not, and
// nothing panics.
func TestModelFileTruncated(t *testing.T) {
	for _, k := range fileKinds {
		for i, m := range k.few() {
			t.Run(fmt.Sprintf("%s/%d", k.name, i), func(t *testing.T) {
				b := fileEncode(t, m)
				for n := 0; n < len(b); n++ {
					err := k.unmarshal(b[:n])
					if !errors.Is(err, ErrFormat) {
						t.Fatalf("prefix of %d bytes: %v", n, err)
					}
					want := "truncated in"
					if n < 4 {
						want = "not a hyperplane " + k.noun + " file"
					}
					if !strings.Contains(err.Error(), want) {
						t.Errorf("prefix of %d bytes: %v, want %q", n, err, want)
					}
					for _, r := range []io.Reader{bytes.NewReader(b[:n]), mioOnlyReader{bytes.NewReader(b[:n])}} {
						if _, err := k.read(r); !errors.Is(err, ErrFormat) {
							t.Fatalf("prefix of %d bytes, %T: %v", n, r, err)
						}
					}
				}
			})
		}
	}
}

// TestModelFileBitFlips: the checksum catches every single-bit error and
// every changed byte, if the parse did not already fail.
func TestModelFileBitFlips(t *testing.T) {
	for _, k := range fileKinds {
		t.Run(k.name, func(t *testing.T) {
			b := fileEncode(t, k.small())
			check := func(c []byte, what string) {
				if err := k.unmarshal(c); !errors.Is(err, ErrFormat) {
					t.Fatalf("%s: %v", what, err)
				}
				if _, err := k.read(mioOnlyReader{bytes.NewReader(c)}); !errors.Is(err, ErrFormat) {
					t.Fatalf("%s, stream: %v", what, err)
				}
			}
			for i := range 8 * len(b) {
				c := bytes.Clone(b)
				c[i/8] ^= 1 << (i % 8)
				check(c, fmt.Sprintf("bit %d flipped", i))
			}
			for i := range b {
				for _, x := range []byte{0xff, 0x5a} {
					c := bytes.Clone(b)
					c[i] ^= x
					check(c, fmt.Sprintf("byte %d ^ %#x", i, x))
				}
			}
			c := bytes.Clone(b)
			c[len(c)-10] ^= 0x80
			if err := k.unmarshal(c); err == nil || err.Error() != "engine: bad model file: checksum mismatch: file is corrupt" {
				t.Errorf("flipped step bit: %v", err)
			}
		})
	}
}

// TestModelFileGarbage: random bytes, with and without the right magic,
// are refused with ErrFormat.
func TestModelFileGarbage(t *testing.T) {
	for ki, k := range fileKinds {
		t.Run(k.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2+uint64(ki)))
			for i := range 2000 {
				n := rng.IntN(300)
				b := make([]byte, n)
				for j := range b {
					b[j] = byte(rng.Uint32())
				}
				if i%2 == 1 && n >= 4 {
					copy(b, k.magic) // get past the magic
				}
				if err := k.unmarshal(b); !errors.Is(err, ErrFormat) {
					t.Fatalf("%d random bytes: %v", n, err)
				}
				if _, err := k.read(bytes.NewReader(b)); !errors.Is(err, ErrFormat) {
					t.Fatalf("%d random bytes, stream: %v", n, err)
				}
			}
			if err := k.unmarshal(nil); !errors.Is(err, ErrFormat) {
				t.Errorf("empty input: %v", err)
			}
			if _, err := k.read(strings.NewReader("")); !errors.Is(err, ErrFormat) {
				t.Errorf("empty stream: %v", err)
			}
		})
	}
}

// TestModelFileReadIOError: a read error is passed on, not mistaken for a
// bad file, wherever it comes.
func TestModelFileReadIOError(t *testing.T) {
	for _, k := range fileKinds {
		t.Run(k.name, func(t *testing.T) {
			b := fileEncode(t, k.small())
			for _, n := range []int{0, 2, 40, 100} {
				_, err := k.read(io.MultiReader(bytes.NewReader(b[:n]), mioErrReader{}))
				if err == nil || errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "device on fire") {
					t.Errorf("error after %d bytes: %v", n, err)
				}
			}
		})
	}
}

func TestModelBinaryHeaderErrors(t *testing.T) {
	good := mioEncode(t, mioSmall())
	withCRC := func(b []byte) []byte { return mioFixCRC(append(b, 0, 0, 0, 0)) }
	patch := func(off int, v ...byte) []byte {
		b := bytes.Clone(good)
		copy(b[off:], v)
		return mioFixCRC(b)
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "engine: bad model file: not a hyperplane model file"},
		{"magic", []byte("HPLX0123456789"), "engine: bad model file: not a hyperplane model file"},
		{"newer", withCRC(mioHeader(7, 0, 0, 0, 2, 1, 0)), "engine: bad model file: format version 7 is newer than this build reads (1)"},
		{"version0", withCRC(mioHeader(0, 0, 0, 0, 2, 1, 0)), "format version 0 does not exist"},
		{"flags", withCRC(mioHeader(1, 64, 0, 0, 2, 1, 0)), "unknown flags 0x40"},
		{"normalized-voted", withCRC(mioHeader(1, 5, 2, 0, 2, 1, 0)), "a voted model does not normalize rows"},
		{"start-without-votes", withCRC(mioHeader(1, 2, 0, 0, 2, 1, 0)), "start weights flagged without votes"},
		{"reserved", patch(11, 1), "reserved header byte is not zero"},
		{"rule", patch(10, byte(lastRule+1)), fmt.Sprintf("rule %d", lastRule+1)},
		{"rule-voted", patch(10, 1), "rule pa with algorithm voted"},
		{"algorithm", withCRC(mioHeader(1, 0, 9, 0, 2, 1, 0)), "unknown algorithm 9"},
		{"bias", withCRC(mioHeader(1, 0, 0, 3, 2, 1, 0)), "bias mode 3"},
		{"votes-not-voted", withCRC(mioHeader(1, 1, 0, 0, 2, 1, 0)), "votes present only and always for the voted algorithm"},
		{"voted-no-votes", withCRC(mioHeader(1, 0, 2, 0, 2, 1, 0)), "votes present only and always for the voted algorithm"},
		{"one-class", withCRC(mioHeader(1, 0, 0, 0, 1, 1, 0)), "1 classes"},
		{"rows", withCRC(mioHeader(1, 0, 0, 0, 3, 1, 0)), "1 weight rows for 3 classes"},
		{"binary-rows", withCRC(mioHeader(1, 0, 0, 0, 2, 2, 0)), "2 weight rows for 2 classes"},
		{"dim", withCRC(mioHeader(1, 0, 0, 0, 2, 1, 1<<31)), "dim 2147483648 is beyond the limit 2147483647"},
		{"dim-times-rows", withCRC(mioHeader(1, 0, 0, 0, 1<<31-1, 1<<31-1, 1<<31-1)), "is beyond any model"},
		{"classes", withCRC(mioHeader(1, 0, 0, 0, 1<<20, 1<<20, 0)), "truncated in classes: 8388608 bytes needed, 4 left"},
		{"weights", append(mioHeader(1, 0, 0, 0, 2, 1, 1<<31-1), make([]byte, 104)...), "truncated in weights: 8589934588 bytes needed, 84 left"},
		{"unsorted-classes", patch(32, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f), "classes not strictly ascending"},
		{"checksum", append(bytes.Clone(good[:len(good)-1]), good[len(good)-1]^1), "engine: bad model file: checksum mismatch: file is corrupt"},
		{"trailing", append(bytes.Clone(good), 1, 2, 3), "engine: bad model file: 3 bytes of trailing data after the model"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m Model
			err := m.UnmarshalBinary(c.data)
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want …%s…", err, c.want)
			}
		})
	}
}

func TestKernelModelBinaryHeaderErrors(t *testing.T) {
	small := kmioSmall()
	good := kmioEncode(t, small)
	if len(kmioHeader(1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0)) != kmodelHeaderSize {
		t.Fatal("kmioHeader is not a header")
	}
	withCRC := func(b []byte) []byte { return mioFixCRC(append(b, 0, 0, 0, 0)) }
	le := binary.LittleEndian
	patch := func(off int, v ...byte) []byte {
		b := bytes.Clone(good)
		copy(b[off:], v)
		return mioFixCRC(b)
	}
	f64 := func(x float64) []byte { return le.AppendUint64(nil, math.Float64bits(x)) }
	u64 := func(x uint64) []byte { return le.AppendUint64(nil, x) }
	u32 := func(x uint32) []byte { return le.AppendUint32(nil, x) }
	svOff := kmodelHeaderSize + 8*len(small.Classes)
	coefOff := svOff + 24 + 8*(small.SV.Rows+1) + 8*len(small.SV.Ind)
	votesOff := coefOff + 4*len(small.Coef) + 4*len(small.B)
	stepOff := votesOff + 16
	h := func(kind byte, degree, gamma, coef0 float64) []byte {
		return withCRC(kmioHeader(1, 0, 0, 0, kind, degree, gamma, coef0, 2, 1, 0))
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "engine: bad model file: not a hyperplane kernel model file"},
		{"magic", []byte("HPKX0123456789"), "not a hyperplane kernel model file"},
		{"linear-magic", append([]byte(modelMagic), make([]byte, 60)...), "not a hyperplane kernel model file"},
		{"header", []byte("HPKM\x01\x00"), "truncated in header"},
		{"newer", withCRC(kmioHeader(7, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0)), "engine: bad model file: format version 7 is newer than this build reads (1)"},
		{"version0", withCRC(kmioHeader(0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0)), "format version 0 does not exist"},
		{"flags", withCRC(kmioHeader(1, 2, 0, 0, 0, 0, 0, 0, 2, 1, 0)), "unknown flags 0x2"},
		{"rule", patch(11, 4), "unknown rule 4"},
		{"algorithm-batch", withCRC(kmioHeader(1, 0, byte(Batch), 0, 0, 0, 0, 0, 2, 1, 0)), "unknown algorithm 3"},
		{"bias", withCRC(kmioHeader(1, 0, 0, 3, 0, 0, 0, 0, 2, 1, 0)), "bias mode 3"},
		{"votes-not-voted", withCRC(kmioHeader(1, 1, 0, 0, 0, 0, 0, 0, 2, 1, 0)), "votes present only and always for the voted algorithm"},
		{"voted-no-votes", withCRC(kmioHeader(1, 0, 2, 0, 0, 0, 0, 0, 2, 1, 0)), "votes present only and always for the voted algorithm"},
		{"kind", h(4, 0, 0, 0), "unknown kernel kind 4"},
		{"linear-gamma", h(0, 0, 1, 0), "linear kernel with gamma 1: a parameter it does not have must be 0"},
		{"linear-neg-zero", h(0, math.Copysign(0, -1), 0, 0), "linear kernel with degree -0"},
		{"rbf-degree", h(2, 3, 1, 0), "rbf kernel with degree 3"},
		{"rbf-coef0", h(2, 0, 1, 2), "rbf kernel with coef0 2"},
		{"rbf-gamma0", h(2, 0, 0, 0), "rbf kernel with gamma 0"},
		{"rbf-gamma-neg-zero", h(2, 0, math.Copysign(0, -1), 0), "rbf kernel with gamma 0"},
		{"rbf-gamma-negative", h(2, 0, -1, 0), "RBF gamma -1 is negative"},
		{"rbf-gamma-inf", h(2, 0, math.Inf(1), 0), "gamma +Inf is not finite"},
		{"poly-degree0", h(1, 0, 1, 0), "poly kernel with degree 0, not a whole number in [1, 32]"},
		{"poly-degree-fraction", h(1, 2.5, 1, 0), "degree 2.5"},
		{"poly-degree-big", h(1, 33, 1, 0), "degree 33"},
		{"poly-degree-nan", h(1, math.NaN(), 1, 0), "degree NaN"},
		{"poly-gamma0", h(1, 2, 0, 0), "poly kernel with gamma 0"},
		{"poly-coef0-nan", h(1, 2, 1, math.NaN()), "coef0 NaN is not finite"},
		{"sigmoid-degree", h(3, 1, 1, 0), "sigmoid kernel with degree 1"},
		{"sigmoid-gamma-nan", h(3, 0, math.NaN(), 0), "gamma NaN is not finite"},
		{"one-class", withCRC(kmioHeader(1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0)), "1 classes"},
		{"rows", withCRC(kmioHeader(1, 0, 0, 0, 0, 0, 0, 0, 3, 1, 0)), "1 functions for 3 classes"},
		{"binary-rows", withCRC(kmioHeader(1, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0)), "2 functions for 2 classes"},
		{"dim", withCRC(kmioHeader(1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1<<31)), "dim 2147483648 is beyond the limit 2147483647"},
		{"classes", withCRC(kmioHeader(1, 0, 0, 0, 0, 0, 0, 0, 1<<20, 1<<20, 0)), "truncated in classes: 8388608 bytes needed, 4 left"},
		{"unsorted-classes", patch(kmodelHeaderSize, f64(100)...), "classes not finite and ascending"},
		{"nan-class", patch(kmodelHeaderSize, f64(math.NaN())...), "classes not finite and ascending"},
		{"sv-rows", patch(svOff, u64(1<<31)...), "2147483648 support vectors is beyond the limit"},
		{"sv-rows-truncated", patch(svOff, u64(1<<30)...), "truncated in support vector row pointers"},
		{"sv-cols", patch(svOff+8, u64(5)...), "support vectors are 5 wide, model 4"},
		{"nnz", patch(svOff+16, u64(1<<40)...), "truncated in support vectors"},
		{"nnz-limit", patch(svOff+16, u64(1<<62)...), "beyond any model"},
		{"indptr", patch(svOff+24+8, u64(3)...), "support vectors:"},
		{"sv-index", patch(svOff+24+8*4, u32(4)...), "index 4 outside [0, 4)"},
		{"sv-nan", patch(svOff+24+8*4+4*5, u32(0x7fc00000)...), "support vectors:"},
		{"coef-nan", patch(coefOff, u32(0x7f800000)...), "coefficients not finite"},
		{"count0", patch(votesOff, u64(1<<63)...), "negative vote count"},
		{"steps", patch(votesOff+8, u64(1<<58)...), "truncated in vote steps: 6917529027641081856 bytes needed"},
		{"step-row", patch(stepOff, u32(3)...), "vote step 0 out of range"},
		{"step-count", patch(stepOff+16, u64(1<<63)...), "vote step 0 out of range"},
		{"checksum", append(bytes.Clone(good[:len(good)-1]), good[len(good)-1]^1), "engine: bad model file: checksum mismatch: file is corrupt"},
		{"trailing", append(bytes.Clone(good), 1, 2, 3), "engine: bad model file: 3 bytes of trailing data after the model"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m KernelModel
			err := m.UnmarshalBinary(c.data)
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want …%s…", err, c.want)
			}
			if _, err := ReadKernelModel(mioOnlyReader{bytes.NewReader(c.data)}); !errors.Is(err, ErrFormat) && c.name != "trailing" {
				t.Errorf("stream: %v", err)
			}
		})
	}
}

// A header claiming a huge model fails on its few bytes, allocating
// little, whether the reader knows the input's size or not.
func TestModelBinaryHugeClaims(t *testing.T) {
	tiny := append(mioHeader(1, 0, 0, 0, 2, 1, 1<<31-1), make([]byte, 100)...)
	manyClasses := append(mioHeader(1, 0, 0, 0, 1<<31-1, 1<<31-1, 0), make([]byte, 100)...)

	// A voted model whose counts of voted entries or steps are huge.
	m := mioModel(3, Voted, 3, 4, false, false)
	enc := mioEncode(t, m)
	off := modelHeaderSize + 8*3 + 4*3 + 4*12 + 8 + 16 // nnz
	hugeNNZ := bytes.Clone(enc)
	binary.LittleEndian.PutUint64(hugeNNZ[off:], 1<<40)
	hugeNNZ = mioFixCRC(hugeNNZ)
	hugeSteps := bytes.Clone(enc)
	binary.LittleEndian.PutUint64(hugeSteps[len(enc)-4-modelStepSize*len(m.Votes.Steps)-8:], 1<<58)
	hugeSteps = mioFixCRC(hugeSteps)
	hugeRows := bytes.Clone(enc)
	binary.LittleEndian.PutUint64(hugeRows[off-16:], 1<<31-2)
	hugeRows = mioFixCRC(hugeRows)

	for name, data := range map[string][]byte{
		"dim": tiny, "classes": manyClasses, "nnz": hugeNNZ, "steps": hugeSteps, "rows": hugeRows,
	} {
		t.Run(name, func(t *testing.T) {
			for _, sized := range []bool{true, false} {
				decode := func() error {
					if sized {
						var m Model
						return m.UnmarshalBinary(data)
					}
					_, err := ReadModel(mioOnlyReader{bytes.NewReader(data)})
					return err
				}
				if err := decode(); !errors.Is(err, ErrFormat) {
					t.Fatalf("sized %v: %v", sized, err)
				}
				if per := decodeAllocs(func() { _ = decode() }); per >= 1<<20 {
					t.Errorf("sized %v: allocated %d bytes per decode", sized, per)
				}
			}
		})
	}
}

// A tiny file claiming a huge model fails on its few bytes, allocating
// little, whether the reader knows the input's size or not.
func TestKernelModelBinaryHugeClaims(t *testing.T) {
	le := binary.LittleEndian
	manyClasses := append(kmioHeader(1, 0, 0, 0, 0, 0, 0, 0, 1<<31-1, 1<<31-1, 0), make([]byte, 100)...)
	wide := append(kmioHeader(1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1<<31-1), make([]byte, 100)...)

	m := kmioModel(3, kernels.RBF{}, Voted, 3, 4, 5, 0.5)
	enc := kmioEncode(t, m)
	svOff := kmodelHeaderSize + 8*3
	edit := func(off int, x uint64) []byte {
		b := bytes.Clone(enc)
		le.PutUint64(b[off:], x)
		return mioFixCRC(b)
	}
	stepsOff := len(enc) - 4 - modelStepSize*len(m.Votes.Steps) - 8
	cases := map[string][]byte{
		"classes":   manyClasses,
		"dim":       wide,
		"rows":      edit(svOff, 1<<31-2),
		"nnz":       edit(svOff+16, 1<<40),
		"nnz-limit": edit(svOff+16, 1<<61),
		"steps":     edit(stepsOff, 1<<58),
		"steps-big": edit(stepsOff, 1<<40),
	}
	// A wide model with many support vectors claimed: Indptr and Coef.
	wideSV := append(kmioHeader(1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1<<31-1), make([]byte, 16)...)
	wideSV = le.AppendUint64(wideSV, 1<<31-1)
	wideSV = le.AppendUint64(wideSV, 1<<31-1)
	wideSV = le.AppendUint64(wideSV, 0)
	cases["wide-sv"] = append(wideSV, make([]byte, 64)...)
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			for _, sized := range []bool{true, false} {
				decode := func() error {
					if sized {
						var m KernelModel
						return m.UnmarshalBinary(data)
					}
					_, err := ReadKernelModel(mioOnlyReader{bytes.NewReader(data)})
					return err
				}
				if err := decode(); !errors.Is(err, ErrFormat) {
					t.Fatalf("sized %v: %v", sized, err)
				}
				if per := decodeAllocs(func() { _ = decode() }); per >= 1<<20 {
					t.Errorf("sized %v: allocated %d bytes per decode", sized, per)
				}
			}
		})
	}
	// The same through a file, whose size LoadKernel and LoadClassifier
	// know.
	path := filepath.Join(t.TempDir(), "huge.hpk")
	if err := os.WriteFile(path, cases["rows"], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, load := range []func(string) error{
		func(p string) error { _, err := LoadKernel(p); return err },
		func(p string) error { _, err := LoadClassifier(p); return err },
	} {
		if err := load(path); !errors.Is(err, ErrFormat) {
			t.Fatal(err)
		}
		if per := decodeAllocs(func() { _ = load(path) }); per >= 1<<20 {
			t.Errorf("loading: allocated %d bytes per decode", per)
		}
	}
}

func TestModelMarshalInvalid(t *testing.T) {
	invalid := []*Model{
		{Classes: []float64{1}, B: []float32{0}},
		{Classes: []float64{1, 0}, B: []float32{0}},
		{Classes: []float64{0, 1}, Dim: 2, W: []float32{1}, B: []float32{0}},
		{Classes: []float64{0, 1}, B: []float32{0}, Algorithm: Voted},
		{Classes: []float64{0, 1}, B: []float32{0}, Algorithm: 7},
	}
	neg := mioModel(1, Voted, 2, 3, false, false)
	neg.Votes.Count0 = -1
	invalid = append(invalid, neg)
	for i, m := range invalid {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if _, err := m.MarshalBinary(); !errors.Is(err, ErrFormat) {
				t.Errorf("MarshalBinary: %v", err)
			}
			var buf bytes.Buffer
			if n, err := m.WriteTo(&buf); !errors.Is(err, ErrFormat) || n != 0 || buf.Len() != 0 {
				t.Errorf("WriteTo: %d bytes, %v", n, err)
			}
			if _, err := m.MarshalJSON(); !errors.Is(err, ErrFormat) {
				t.Errorf("MarshalJSON: %v", err)
			}
		})
	}
}

func TestKernelModelMarshalInvalid(t *testing.T) {
	base := func() *KernelModel { return kmioModel(1, kernels.RBF{}, Voted, 3, 4, 3, 0.5) }
	var invalid []*KernelModel
	for _, mod := range []func(m *KernelModel){
		func(m *KernelModel) { m.Kernel = nil },
		func(m *KernelModel) { m.Kernel = kernels.Poly{Degree: 40} },
		func(m *KernelModel) { m.Kernel = kernels.RBF{Gamma: math.NaN()} },
		func(m *KernelModel) { m.Classes = m.Classes[:1] },
		func(m *KernelModel) { m.Coef = m.Coef[1:] },
		func(m *KernelModel) { m.Coef[2] = float32(math.Inf(1)) },
		func(m *KernelModel) { m.SV = nil },
		func(m *KernelModel) { m.Algorithm = Batch },
		func(m *KernelModel) { m.Algorithm = Averaged },
		func(m *KernelModel) { m.Votes = nil },
		func(m *KernelModel) { m.Bias = 7 },
		func(m *KernelModel) { m.Votes.Count0 = -1 },
		func(m *KernelModel) { m.Votes.SV = m.SV.Slice(0, 2) },
		func(m *KernelModel) { m.Votes.Steps[0].Row = 4 },
		func(m *KernelModel) { m.Votes.W0 = []float32{} },
	} {
		m := base()
		mod(m)
		invalid = append(invalid, m)
	}
	for i, m := range invalid {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if _, err := m.MarshalBinary(); !errors.Is(err, ErrFormat) {
				t.Errorf("MarshalBinary: %v", err)
			}
			var buf bytes.Buffer
			if n, err := m.WriteTo(&buf); !errors.Is(err, ErrFormat) || n != 0 || buf.Len() != 0 {
				t.Errorf("WriteTo: %d bytes, %v", n, err)
			}
			if _, err := m.MarshalJSON(); !errors.Is(err, ErrFormat) {
				t.Errorf("MarshalJSON: %v", err)
			}
		})
	}
	// Votes.SV may be left nil: it is SV.
	m := base()
	m.Votes.SV = nil
	var got KernelModel
	if err := got.UnmarshalBinary(kmioEncode(t, m)); err != nil {
		t.Fatal(err)
	}
	if got.Votes.SV != got.SV {
		t.Error("Votes.SV is not SV after decoding")
	}
}

func TestKernelModelUserKernel(t *testing.T) {
	X, y := kmioData(4, 30, 4, 2, 0.7)
	m, _, err := FitKernel(context.Background(), X, y, KernelConfig{Config: Config{Epochs: 2}, Kernel: kmioUserKernel{}})
	if err != nil {
		t.Fatal(err)
	}
	rbf := kernels.RBF{Gamma: 2}
	ptr := kmioModel(1, rbf, Averaged, 2, 4, 3, 0.5)
	ptr.Kernel = &rbf
	for _, m := range []*KernelModel{m, ptr} {
		t.Run(fmt.Sprintf("%T", m.Kernel), func(t *testing.T) {
			if _, err := m.MarshalBinary(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "cannot be saved") {
				t.Errorf("MarshalBinary: %v", err)
			}
			var buf bytes.Buffer
			if n, err := m.WriteTo(&buf); !errors.Is(err, ErrConfig) || n != 0 || buf.Len() != 0 {
				t.Errorf("WriteTo: %d bytes, %v", n, err)
			}
			if _, err := m.MarshalJSON(); !errors.Is(err, ErrConfig) {
				t.Errorf("MarshalJSON: %v", err)
			}
		})
	}
	_, err = m.MarshalBinary()
	if want := "user-defined kernel engine.kmioUserKernel cannot be saved"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v does not say %q", err, want)
	}
}

// TestModelNonFinite: a model file whose bias or weights are NaN or
// infinite, with a checksum that matches, is refused on load, and a model
// holding one is refused on save with nothing written, so that Decision
// never returns NaN for a model that was read.
func TestModelNonFinite(t *testing.T) {
	m := mioModel(5, Averaged, 2, 4, false, false)
	const mark = float32(1.2345678)
	m.B[0] = mark
	enc := mioEncode(t, m)
	var pat [4]byte
	binary.LittleEndian.PutUint32(pat[:], math.Float32bits(mark))
	at := bytes.Index(enc, pat[:])
	if at < 0 {
		t.Fatal("the bias is not in the encoding")
	}
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		b := bytes.Clone(enc)
		binary.LittleEndian.PutUint32(b[at:], math.Float32bits(v))
		b = mioFixCRC(b)
		var got Model
		if err := got.UnmarshalBinary(b); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "not finite") {
			t.Errorf("bias %v: UnmarshalBinary: %v, want ErrFormat saying it is not finite", v, err)
		}
		if _, err := ReadModel(bytes.NewReader(b)); !errors.Is(err, ErrFormat) {
			t.Errorf("bias %v: ReadModel: %v", v, err)
		}
	}
	// A file written before weights were checked, with NaNs and
	// infinities among its weights.
	if _, err := Load(filepath.Join("testdata", "model_v1_nan.hpm")); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("model_v1_nan.hpm: %v, want ErrFormat saying a weight is not finite", err)
	}
	dir := t.TempDir()
	for name, bad := range map[string]func(*Model){
		"NaN bias":     func(m *Model) { m.B[0] = float32(math.NaN()) },
		"Inf weight":   func(m *Model) { m.W[2] = float32(math.Inf(-1)) },
		"NaN start W0": func(m *Model) { m.Votes.W0[0] = float32(math.NaN()) },
	} {
		m := mioModel(6, Voted, 2, 4, true, false)
		bad(m)
		path := filepath.Join(dir, "m.hpm")
		if err := m.Save(path); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Save: %v", name, err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: Save left a file: %v", name, err)
		}
		var buf bytes.Buffer
		if n, err := m.WriteTo(&buf); !errors.Is(err, ErrFormat) || n != 0 || buf.Len() != 0 {
			t.Errorf("%s: WriteTo: %d bytes, %v", name, n, err)
		}
	}
}
