package record

import (
	"encoding/binary"
	"math"
	"testing"
)

// The hand-written int32 decoder must agree with encoding/binary on every
// value and length it accepts, and refuse what does not fit.
func TestVarintAgreesWithEncodingBinary(t *testing.T) {
	values := []int64{0, 1, -1, 63, -64, 64, -65, 8191, -8192, 1 << 20, math.MaxInt32, math.MinInt32}
	for _, v := range values {
		enc := appendVarint(nil, int32(v))
		if want := binary.AppendVarint(nil, v); string(enc) != string(want) || len(enc) != sizeVarlong(v) {
			t.Fatalf("%d: encoded %x, binary %x, size %d", v, enc, want, sizeVarlong(v))
		}
		got, n := readVarint(enc)
		if got != int32(v) || n != len(enc) {
			t.Fatalf("%d: read %d (%d bytes of %d)", v, got, n, len(enc))
		}
		if _, n := readVarint(enc[:len(enc)-1]); n != 0 {
			t.Fatalf("%d: short input gave n=%d, want 0", v, n)
		}
		got64, n := readVarlong(enc)
		if got64 != v || n != len(enc) {
			t.Fatalf("%d: varlong read %d (%d bytes)", v, got64, n)
		}
	}
	for _, tooBig := range []int64{math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt64} {
		if _, n := readVarint(binary.AppendVarint(nil, tooBig)); n >= 0 {
			t.Fatalf("%d accepted as an int32 varint", tooBig)
		}
	}
}
