package beam

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"slices"
	"testing"

	"github.com/hyperplane-ml/hyperplane/engine"
)

// TestFeaturesFile checks that a shard's features file decodes to what
// was encoded, and that a file cut short, grown, corrupted, of features
// out of order or beyond the model's width, or of another kind is refused
// with engine.ErrFormat, without allocating what its count claims.
func TestFeaturesFile(t *testing.T) {
	feat := []int32{0, 3, 4, 99}
	good := encodeFeatures(feat)
	got, err := decodeFeatures(good, "f", 100)
	if err != nil || !slices.Equal(got, feat) {
		t.Fatalf("decoded %v, %v; want %v", got, err, feat)
	}
	if got, err := decodeFeatures(encodeFeatures(nil), "f", 1); err != nil || len(got) != 0 {
		t.Fatalf("no features: %v, %v", got, err)
	}
	// reseal recomputes the checksum of a changed file, so that the
	// check after it is the one tested.
	reseal := func(b []byte) []byte {
		end := len(b) - 4
		binary.LittleEndian.PutUint32(b[end:], crc32.Checksum(b[:end], crc32c))
		return b
	}
	withFeature := func(i int, j uint32) []byte {
		b := slices.Clone(good)
		binary.LittleEndian.PutUint32(b[len(featuresMagic)+8+4*i:], j)
		return reseal(b)
	}
	huge := slices.Clone(good)
	binary.LittleEndian.PutUint64(huge[len(featuresMagic):], 1<<60)
	flipped := slices.Clone(good)
	flipped[len(featuresMagic)+9] ^= 1
	for name, b := range map[string][]byte{
		"empty":          nil,
		"cut short":      good[:len(good)-1],
		"grown":          append(slices.Clone(good), 0),
		"other magic":    reseal(append([]byte("HPMIX01\n"), good[8:]...)),
		"huge count":     reseal(huge),
		"checksum":       flipped,
		"out of order":   withFeature(2, 3),
		"negative":       withFeature(0, 1<<31),
		"beyond the dim": withFeature(3, 100),
	} {
		if _, err := decodeFeatures(b, "f", 100); !errors.Is(err, engine.ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}
