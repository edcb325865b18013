package record

import (
	"encoding/binary"
	"math"
)

// Kafka's varint and varlong are zig-zag encoded base-128 integers, the same
// encoding as protobuf's sint32/sint64, which encoding/binary's Varint
// functions implement. What binary does not check is the 5-byte cap on an
// int32 varint, so readVarint adds it.

const (
	maxVarintLen  = 5
	maxVarlongLen = binary.MaxVarintLen64
)

// readVarint decodes an int32 varint from b. n is the number of bytes read;
// n == 0 means b ended first, n < 0 that the varint is too long or does not
// fit an int32. Most varints in a batch are one byte, hence the loop of its
// own rather than binary.Varint.
func readVarint(b []byte) (v int32, n int) {
	var u uint64
	for i := range maxVarintLen {
		if i == len(b) {
			return 0, 0
		}
		c := b[i]
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if u > math.MaxUint32 {
				return 0, -1
			}
			return unzigzag32(uint32(u)), i + 1
		}
	}
	return 0, -1
}

func unzigzag32(u uint32) int32 { return int32(u>>1) ^ -int32(u&1) }

// readVarlong decodes an int64 varlong from b, with readVarint's n.
func readVarlong(b []byte) (v int64, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return int64(unzigzag32(uint32(b[0]))), 1
	}
	return binary.Varint(b)
}

func appendVarint(dst []byte, v int32) []byte { return binary.AppendVarint(dst, int64(v)) }

func appendVarlong(dst []byte, v int64) []byte { return binary.AppendVarint(dst, v) }

// sizeVarlong is the encoded size of v; it serves int32 varints too, whose
// zig-zag form is the same number.
func sizeVarlong(v int64) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

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
		return unzigzag32(uint32(c)), p + 1
	} else if p+1 < len(b) && b[p+1] < 0x80 {
		return unzigzag32(uint32(c&0x7f) | uint32(b[p+1])<<7), p + 2
	}
	v, n := readVarint(b[p:])
	if n <= 0 {
		return 0, -1
	}
	return v, p + n
}

// varlongAt reads the int64 varlong at b[p:].
func varlongAt(b []byte, p int) (int64, int) {
	if uint(p) >= uint(len(b)) {
		return 0, -1
	}
	if c := b[p]; c < 0x80 {
		return int64(unzigzag32(uint32(c))), p + 1
	} else if p+1 < len(b) && b[p+1] < 0x80 {
		return int64(unzigzag32(uint32(c&0x7f) | uint32(b[p+1])<<7)), p + 2
	}
	v, n := readVarlong(b[p:])
	if n <= 0 {
		return 0, -1
	}
	return v, p + n
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
