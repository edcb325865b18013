package record

import "github.com/kwirelabs/kwire/kwire/wire"

// Kafka's varint and varlong are zig-zag encoded base-128 integers, read
// and written through kwire/wire, the one spelling of the protocol's
// forms. The readers here keep the record package's convention for the
// count: n == 0 means b ended first, n < 0 that the varint is too long or
// does not fit its type.

// readVarint decodes an int32 varint from b.
func readVarint(b []byte) (v int32, n int) {
	v, n = wire.ConsumeVarint(b)
	return v, varintCount(n)
}

// readVarlong decodes an int64 varlong from b, with readVarint's n.
func readVarlong(b []byte) (v int64, n int) {
	v, n = wire.ConsumeVarlong(b)
	return v, varintCount(n)
}

// varintCount turns wire's count (negative: an error, ErrTruncated or
// another) into readVarint's.
func varintCount(n int) int {
	if n >= 0 {
		return n
	}
	if wire.ParseError(n) == wire.ErrTruncated {
		return 0
	}
	return -1
}

func appendVarint(dst []byte, v int32) []byte { return wire.AppendVarint(dst, v) }

func appendVarlong(dst []byte, v int64) []byte { return wire.AppendVarlong(dst, v) }

// sizeVarlong is the encoded size of v; it serves int32 varints too, whose
// zig-zag form is the same number.
func sizeVarlong(v int64) int { return wire.SizeVarlong(v) }

// The fast path of record parsing reads fields at a position p of a slice
// and returns the position after, or -1 for a failure, which every later
// read passes on; one check at the end of a record covers them all. Most
// varints in a record take one or two bytes (lengths and deltas under
// 8192), which are read without a loop.

// varintAt reads the int32 varint at b[p:].
func varintAt(b []byte, p int) (int32, int) {
	if uint(p) >= uint(len(b)) {
		return 0, -1
	}
	if c := b[p]; c < 0x80 {
		return wire.UnZigZag32(uint32(c)), p + 1
	} else if p+1 < len(b) && b[p+1] < 0x80 {
		return wire.UnZigZag32(uint32(c&0x7f) | uint32(b[p+1])<<7), p + 2
	}
	u, n := wire.ConsumeUvarint(b[p:])
	if n <= 0 {
		return 0, -1
	}
	return wire.UnZigZag32(u), p + n
}

// varlongAt reads the int64 varlong at b[p:].
func varlongAt(b []byte, p int) (int64, int) {
	if uint(p) >= uint(len(b)) {
		return 0, -1
	}
	if c := b[p]; c < 0x80 {
		return int64(wire.UnZigZag32(uint32(c))), p + 1
	} else if p+1 < len(b) && b[p+1] < 0x80 {
		return int64(wire.UnZigZag32(uint32(c&0x7f) | uint32(b[p+1])<<7)), p + 2
	}
	u, n := wire.ConsumeUvarint64(b[p:])
	if n <= 0 {
		return 0, -1
	}
	return wire.UnZigZag64(u), p + n
}

// varBytesAt reads varint-length-prefixed bytes at b[p:]: nil for null
// (length -1), and nil with -1 for a failure.
func varBytesAt(b []byte, p int) ([]byte, int) {
	n, p := varintAt(b, p)
	switch {
	case p < 0 || n < -1 || int(n) > len(b)-p:
		return nil, -1
	case n == -1:
		return nil, p
	}
	return b[p : p+int(n) : p+int(n)], p + int(n)
}
