package record

import "github.com/kwirelabs/kwire/kwire/wire"

// The fast path of record parsing reads fields at a position p of a slice
// and returns the position after, or -1 for a failure, which a later read
// passes on. Most varints in a record take one or two bytes (lengths and
// deltas under 8192).

// uvarintShort reads a one- or two-byte unsigned varint at b[p:] and
// reports -1 for anything else (p out of b, a longer varint), which the
// caller reads again with varintAt or varlongAt. It is small enough to
// inline.
func uvarintShort(b []byte, p int) (uint32, int) {
	if uint(p) < uint(len(b)) {
		u := uint32(b[p])
		if u < 0x80 {
			return u, p + 1
		}
		if uint(p+1) < uint(len(b)) {
			if u = u&0x7f | uint32(b[p+1])<<7; u < 1<<14 {
				return u, p + 2
			}
		}
	}
	return 0, -1
}

// varintAt reads the int32 varint at b[p:]: the slow path, after
// uvarintShort has declined it.
func varintAt(b []byte, p int) (int32, int) {
	if uint(p) >= uint(len(b)) {
		return 0, -1
	}
	v, n := wire.ConsumeVarint(b[p:])
	if n < 0 {
		return 0, -1
	}
	return v, p + n
}

// varlongAt reads the int64 varlong at b[p:], as varintAt does.
func varlongAt(b []byte, p int) (int64, int) {
	if uint(p) >= uint(len(b)) {
		return 0, -1
	}
	v, n := wire.ConsumeVarlong(b[p:])
	if n < 0 {
		return 0, -1
	}
	return v, p + n
}
