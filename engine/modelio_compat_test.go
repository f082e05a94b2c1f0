package engine

// Compatibility: the files version 1 of each format pins, which every
// later build must read and write byte for byte.

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The encoding of a fixed model is pinned: a change to the format must
// come with a new version, not change what version 1 means.
func TestModelBinaryGolden(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "model_v1.hpm"))
	if err != nil {
		t.Fatal(err)
	}
	if got := mioEncode(t, mioSmall()); !bytes.Equal(got, want) {
		t.Error("the encoding of mioSmall differs from testdata/model_v1.hpm")
	}
	m, err := Load(filepath.Join("testdata", "model_v1.hpm"))
	if err != nil {
		t.Fatal(err)
	}
	if d := mioSame(m, mioSmall()); d != "" {
		t.Error(d)
	}
}

// The encoding of a fixed model is pinned: a change to the format must
// come with a new version, not change what version 1 means.
func TestKernelModelBinaryGolden(t *testing.T) {
	path := filepath.Join("testdata", "kmodel_v1.hpk")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := kmioEncode(t, kmioSmall()); !bytes.Equal(got, want) {
		t.Error("the encoding of kmioSmall differs from testdata/kmodel_v1.hpk")
	}
	m, err := LoadKernel(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := kmioSame(t, m, kmioSmall()); d != "" {
		t.Error(d)
	}
	// A few fields at their documented offsets.
	le := binary.LittleEndian
	switch {
	case string(want[:4]) != "HPKM" || le.Uint16(want[4:]) != 1 || le.Uint16(want[6:]) != 1:
		t.Error("magic, version or flags not where documented")
	case want[8] != byte(Voted) || want[9] != byte(BiasAugmented) || want[10] != 1 || want[11] != 0:
		t.Error("algorithm, bias mode or kernel kind not where documented")
	case math.Float64frombits(le.Uint64(want[16:])) != 2 || math.Float64frombits(le.Uint64(want[24:])) != 0.5 ||
		math.Float64frombits(le.Uint64(want[32:])) != -1:
		t.Error("kernel parameters not where documented")
	case le.Uint32(want[40:]) != 3 || le.Uint32(want[44:]) != 3 || le.Uint64(want[48:]) != 4:
		t.Error("counts not where documented")
	case math.Float64frombits(le.Uint64(want[56:])) != -2:
		t.Error("classes not where documented")
	}
}
