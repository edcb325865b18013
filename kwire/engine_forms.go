package kwire

import (
	"github.com/kwirelabs/kwire/kwire/wire"
)

// The wire forms as the hot loops' fast cases write and read them: on the
// engine's pointer, into room the case has checked, for the short values
// the cases take. internal/genforms/forms.go names these functions for
// each form; the generated cases hold a copy of each one-statement body
// (an inlined call measured more instructions) and call the others
// (which the compiler inlines), but for the one marked //genforms:inline,
// whose body genforms copies too. The general path and the other
// packages use package wire, which engine_forms_test.go checks every
// function here against.

// The compact length: a uvarint of n+1, 0 for null. A fast case's length
// is under 0x7f, one byte.

func compactPut(at pointer, n int) { *at.uint8() = byte(n + 1) }

func compactPutNull(at pointer) { *at.uint8() = 0 }

func compactSize(n int) int { return wire.SizeUvarint(uint32(n + 1)) }

// compactPutLong writes any length l at base.at(n), returning the offset
// after it: records' lengths, written before one memmove.
func compactPutLong(base pointer, n, l int) int {
	v := uint32(l + 1)
	for ; v >= 0x80; v >>= 7 {
		*base.at(n).uint8() = byte(v) | 0x80
		n++
	}
	*base.at(n).uint8() = byte(v)
	return n + 1
}

// compactLength reads a one-byte compact length at off: the length (-1
// null) and the offset after it, or -2 when the length takes more bytes
// or the input is short (the general path reads those).
func compactLength(src []byte, off int) (n, next int) {
	if off < len(src) && src[off] < 0x80 {
		return int(src[off]) - 1, off + 1
	}
	return -2, off
}

// compactRecordsLength reads a records length at off: up to 2 MiB, in
// three bytes at most; n is -2 for any other form, which takes the
// general path (TestRecordsLengthAgrees). Over the inliner's budget
// (cost 114 of 80), so genforms copies its body into the case:
//
//genforms:inline
func compactRecordsLength(src []byte, off int) (n, next int) {
	n, next = -2, off
	if len(src)-off >= 3 {
		b0, b1, b2 := uint32(src[off]), uint32(src[off+1]), uint32(src[off+2])
		switch {
		case b0 < 0x80:
			n, next = int(b0)-1, off+1
		case b1 < 0x80 && b1 != 0:
			n, next = int(b0&0x7f|b1<<7)-1, off+2
		case b1 >= 0x80 && b2 < 0x80 && b2 != 0:
			n, next = int(b0&0x7f|(b1&0x7f)<<7|b2<<14)-1, off+3
		}
	}
	return n, next
}

// The classic int16 length (strings): -1 for null.

func int16Put(at pointer, n int) { put16(at, uint16(n)) }

func int16PutNull(at pointer) { put16(at, 0xffff) }

func int16Size(int) int { return 2 }

// int16Length reads a classic int16 length at off, as compactLength
// reads a compact one (-2: the input is short).
func int16Length(src []byte, off int) (n, next int) {
	if len(src)-off < 2 {
		return -2, off
	}
	return int(wire.Int16(src[off:])), off + 2
}

// The classic int32 length (byte strings, arrays): -1 for null.

func int32Put(at pointer, n int) { put32(at, uint32(n)) }

func int32PutNull(at pointer) { put32(at, 0xffffffff) }

func int32Size(int) int { return 4 }

func int32PutLong(base pointer, n, l int) int {
	put32(base.at(n), uint32(l))
	return n + 4
}

// int32Length reads a classic int32 length at off, as compactLength
// reads a compact one (-2: the input is short).
func int32Length(src []byte, off int) (n, next int) {
	if len(src)-off < 4 {
		return -2, off
	}
	return int(wire.Int32(src[off:])), off + 4
}

// The fixed widths: stores at a pointer (put16, put32 and put64 are
// engine_pointer.go's), loads from the input at off, which the case has
// checked holds the width.

func put8(at pointer, v uint8) { *at.uint8() = v }

func putUUID(at pointer, v UUID) { *at.uuid() = v }

func int8Get(src []byte, off int) uint8 { return src[off] }

func int16Get(src []byte, off int) uint16 { return wire.Uint16(src[off:]) }

func int32Get(src []byte, off int) uint32 { return wire.Uint32(src[off:]) }

func int64Get(src []byte, off int) uint64 { return wire.Uint64(src[off:]) }

func uuidGet(src []byte, off int) UUID { return UUID(src[off : off+16]) }

// A Go bool is 0 or 1; a byte over 1 is true (boolGet), and an exact
// decode refuses it (boolAccepted).

func boolGet(src []byte, off int) bool { return src[off] != 0 }

func boolAccepted(d *decodeState, src []byte, off int) bool { return src[off] <= 1 || !d.exact }
