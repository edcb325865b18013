package record

import (
	"encoding/binary"
	"math"
	"testing"
)

// The positional readers (uvarintShort for one- and two-byte varints,
// varintAt, varlongAt) agree with encoding/binary (an independent reader
// of the same zig-zag varints) at every value and cut, refuse an int32
// varint that does not fit, and pass a failure on.
func TestVarintAtAgrees(t *testing.T) {
	values := []int64{0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, 1 << 20, math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt32 - 1, math.MinInt64, math.MaxInt64}
	for _, v := range values {
		enc := append([]byte{0xaa}, binary.AppendVarint(nil, v)...)
		for cut := 1; cut <= len(enc); cut++ {
			b := enc[:cut]
			want, n := binary.Varint(b[1:])
			fits32 := n > 0 && want >= math.MinInt32 && want <= math.MaxInt32
			got32, p := varintAt(b, 1)
			if fits32 != (p >= 0) || (fits32 && (int64(got32) != want || p != 1+n)) {
				t.Fatalf("%d cut %d: varintAt %d at %d; encoding/binary %d, %d", v, cut, got32, p, want, n)
			}
			got64, p := varlongAt(b, 1)
			if (n > 0) != (p >= 0) || (n > 0 && (got64 != want || p != 1+n)) {
				t.Fatalf("%d cut %d: varlongAt %d at %d; encoding/binary %d, %d", v, cut, got64, p, want, n)
			}
			short := n == 1 || n == 2
			u, p := uvarintShort(b, 1)
			if short != (p >= 0) || (short && (int64(u>>1)^-int64(u&1) != want || p != 1+n)) {
				t.Fatalf("%d cut %d: uvarintShort %d at %d; encoding/binary %d, %d", v, cut, u, p, want, n)
			}
		}
	}
	if _, p := uvarintShort([]byte{0}, -1); p != -1 {
		t.Fatal("a failed position is not passed on")
	}
	if _, p := varintAt([]byte{0}, -1); p != -1 {
		t.Fatal("a failed position is not passed on")
	}
}
