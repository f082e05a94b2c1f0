package calibrate

import (
	"encoding/binary"
	"fmt"
	"math"
)

// binaryVersion is the version of the binary form that AppendBinary
// writes and UnmarshalBinary reads.
const binaryVersion = 1

// AppendBinary appends the binary form of c to b and returns the result;
// it never fails. The form is, in version 1:
//
//	byte 0    version, 1
//	byte 1    kind: 0 uncalibrated, 1 Platt, 2 temperature
//	then      for Platt, A and B; for temperature, T; for uncalibrated,
//	          nothing: each the IEEE 754 bits of a float64, little-endian
//
// so 2, 18 or 10 bytes. Parameters are stored bit for bit, so decoding
// gives back exactly the same Calibration.
func (c Calibration) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, binaryVersion, byte(c.kind))
	switch c.kind {
	case PlattScaling:
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(c.a))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(c.b))
	case TemperatureScaling:
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(c.t))
	}
	return b, nil
}

// MarshalBinary returns the binary form of c described at AppendBinary;
// it never fails.
func (c Calibration) MarshalBinary() ([]byte, error) {
	return c.AppendBinary(make([]byte, 0, 18))
}

// UnmarshalBinary decodes the binary form written by MarshalBinary or
// AppendBinary into c. data must hold exactly one calibration; anything
// else, whether empty, truncated, followed by more bytes, of a newer
// version or an unknown kind, or with a parameter NaN, infinite or (for
// T) not positive, gives an error wrapping ErrFormat and leaves c as it
// was.
func (c *Calibration) UnmarshalBinary(data []byte) error {
	if len(data) < 2 {
		return fmt.Errorf("%w: %d bytes, a header takes 2", ErrFormat, len(data))
	}
	if data[0] != binaryVersion {
		return fmt.Errorf("%w: version %d, this build reads %d", ErrFormat, data[0], binaryVersion)
	}
	kind := Kind(data[1])
	var want int
	switch kind {
	case Uncalibrated:
		want = 0
	case PlattScaling:
		want = 2
	case TemperatureScaling:
		want = 1
	default:
		return fmt.Errorf("%w: unknown kind %d", ErrFormat, data[1])
	}
	if len(data) != 2+8*want {
		return fmt.Errorf("%w: %d bytes for a %s calibration, want %d", ErrFormat, len(data), kind, 2+8*want)
	}
	var v [2]float64
	for i := range want {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[2+8*i:]))
	}
	d := Calibration{kind: kind}
	switch kind {
	case PlattScaling:
		d.a, d.b = v[0], v[1]
		if !finite(d.a) || !finite(d.b) {
			return fmt.Errorf("%w: Platt A=%v, B=%v", ErrFormat, d.a, d.b)
		}
	case TemperatureScaling:
		d.t = v[0]
		if !finite(d.t) || d.t <= 0 {
			return fmt.Errorf("%w: temperature %v", ErrFormat, d.t)
		}
	}
	*c = d
	return nil
}
