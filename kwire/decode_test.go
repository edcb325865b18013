package kwire_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

type wideElem struct {
	A int16 `kafka:"v=0+"`
	B int16 `kafka:"v=0+"`
}

// An array length whose bytes (length times the element's smallest wire
// size) pass what an int holds on a 32-bit machine is refused as too long
// for the input, as it is on a 64-bit one: no guard may multiply in an
// int and overflow.
func TestDecodeArrayLengthPastTheWord(t *testing.T) {
	type structs struct {
		_     struct{}   `kafka:"versions=0-1,flexible=1+"`
		Elems []wideElem `kafka:"v=0+"`
	}
	type strs struct {
		_     struct{} `kafka:"versions=0-1,flexible=1+"`
		Elems []string `kafka:"v=0+"`
	}
	type ints struct {
		_     struct{} `kafka:"versions=0-1,flexible=1+"`
		Elems []int64  `kafka:"v=0+"`
	}
	zeros := make([]byte, 16)
	for _, tc := range []struct {
		name   string
		msg    any
		v      int16
		length []byte
	}{
		// 0x40000001 elements of 4 bytes: 2^32+4, 4 in 32 bits.
		{"structs", new(structs), 0, []byte{0x40, 0, 0, 1}},
		// 0x80000001 elements of 2 bytes: 2^32+2.
		{"strings", new(strs), 0, []byte{0x80, 0, 0, 1}},
		{"strings", new(strs), 0, []byte{0x7f, 0xff, 0xff, 0xff}},
		{"int64s", new(ints), 0, []byte{0x20, 0, 0, 1}},
		// Compact: 2^32-2 elements, which no 32-bit int holds.
		{"structs", new(structs), 1, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"strings", new(strs), 1, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"strings", new(strs), 1, []byte{0x81, 0x80, 0x80, 0x80, 0x08}},
		{"int64s", new(ints), 1, []byte{0x82, 0x80, 0x80, 0x80, 0x02}},
	} {
		body := append(append([]byte(nil), tc.length...), zeros...)
		err := kwire.Unmarshal(body, tc.msg, tc.v)
		require.ErrorIs(t, err, kwire.ErrInvalidLength, "%s v%d %x", tc.name, tc.v, tc.length)
		require.ErrorContains(t, err, "Elems", "%s v%d %x", tc.name, tc.v, tc.length)
	}
}

// A tagged field's size or a tag section's count past 2^31 is refused as
// too long for the input, not read as a negative int.
func TestDecodeTagSizePastTheWord(t *testing.T) {
	type tagged struct {
		_ struct{} `kafka:"versions=0,flexible=0+"`
		N int32    `kafka:"v=0+,tag=0,tagged=0+"`
	}
	for _, body := range [][]byte{
		{1, 0, 0x80, 0x80, 0x80, 0x80, 0x08, 0, 0, 0, 0}, // tag 0 of 2^31 bytes
		{1, 5, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0}, // tag 5 of 2^32-1 bytes
		{0x80, 0x80, 0x80, 0x80, 0x08, 0, 0, 0, 0, 0, 0}, // 2^31 tagged fields
	} {
		err := kwire.Unmarshal(body, new(tagged), 0)
		require.ErrorIs(t, err, kwire.ErrInvalidLength, "%x", body)
	}
}
