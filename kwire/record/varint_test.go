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

// The fast path's positional readers agree with readVarint and
// readVarlong at every position, length and cut, and pass a failure on.
func TestVarintAtAgrees(t *testing.T) {
	values := []int64{0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, 1 << 20, math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt64, math.MaxInt64}
	for _, v := range values {
		enc := append([]byte{0xaa}, binary.AppendVarint(nil, v)...)
		for cut := 1; cut <= len(enc); cut++ {
			b := enc[:cut]
			want32, n32 := readVarint(b[1:])
			got32, p := varintAt(b, 1)
			if (n32 <= 0) != (p < 0) || (n32 > 0 && (got32 != want32 || p != 1+n32)) {
				t.Fatalf("%d cut %d: varintAt %d at %d; readVarint %d, %d", v, cut, got32, p, want32, n32)
			}
			want64, n64 := readVarlong(b[1:])
			got64, p := varlongAt(b, 1)
			if (n64 <= 0) != (p < 0) || (n64 > 0 && (got64 != want64 || p != 1+n64)) {
				t.Fatalf("%d cut %d: varlongAt %d at %d; readVarlong %d, %d", v, cut, got64, p, want64, n64)
			}
		}
	}
	if _, p := varintAt([]byte{0}, -1); p != -1 {
		t.Fatal("a failed position is not passed on")
	}
	if b, p := varBytesAt([]byte{0x01}, 0); b != nil || p != 1 {
		t.Fatalf("null: %v at %d", b, p)
	}
	if b, p := varBytesAt([]byte{0x04, 'a'}, 0); b != nil || p != -1 {
		t.Fatalf("length past the end: %v at %d", b, p)
	}
}
