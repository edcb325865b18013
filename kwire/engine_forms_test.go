package kwire

import (
	"bytes"
	"math"
	"testing"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// Each length form of the fast cases writes the bytes wire.LengthForm
// writes, sizes them as it does, and reads back what it reads, at every
// length the fast cases take (and null); the readers give -2 where wire
// needs more than the fast case reads, and never read past the input.
func TestFastLengthFormsAgreeWithWire(t *testing.T) {
	type form struct {
		wire    wire.LengthForm
		w       int // the bytes a fast put writes
		put     func(pointer, int)
		putNull func(pointer)
		size    func(int) int
		read    func([]byte, int) (int, int)
	}
	forms := []form{
		{wire.CompactLength, 1, compactPut, compactPutNull, compactSize, compactLength},
		{wire.Int16Length, 2, int16Put, int16PutNull, int16Size, int16Length},
		{wire.Int32Length, 4, int32Put, int32PutNull, int32Size, int32Length},
	}
	for _, f := range forms {
		for _, n := range []int{-1, 0, 1, 0x7d, 0x7e} {
			want := f.wire.Append(nil, n)
			got := make([]byte, f.w)
			if n < 0 {
				f.putNull(sliceData(got))
			} else {
				f.put(sliceData(got), n)
				if f.size(n) != len(want) {
					t.Errorf("%v %d: size %d, wire %d", f.wire, n, f.size(n), len(want))
				}
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%v %d: % x, wire % x", f.wire, n, got, want)
			}
			in := append([]byte{9}, want...)
			if m, next := f.read(in, 1); m != n || next != len(in) {
				t.Errorf("%v %d read back as %d, next %d", f.wire, n, m, next)
			}
			// Cut short: -2 at the same offset.
			if m, next := f.read(in[:len(in)-1], 1); m != -2 || next != 1 {
				t.Errorf("%v %d cut: %d, %d", f.wire, n, m, next)
			}
		}
		for _, n := range []int{0x7f, 0x3fff, math.MaxInt16} {
			if f.size(n) != f.wire.Size(n) {
				t.Errorf("%v: size(%d) %d, wire %d", f.wire, n, f.size(n), f.wire.Size(n))
			}
		}
	}
	// A compact length of two bytes is the general path's.
	if n, next := compactLength([]byte{0x80, 0x01}, 0); n != -2 || next != 0 {
		t.Errorf("two-byte compact: %d, %d", n, next)
	}
}

// The long puts (records' lengths) and the records reader agree with
// wire at every byte count of a compact length up to 2 MiB; longer or
// overlong compact lengths are left to the general path (-2).
func TestRecordsLengthFormsAgreeWithWire(t *testing.T) {
	for _, n := range []int{0, 1, 0x7e, 0x7f, 0x3ffe, 0x3fff, 0x1ffffe, 0x1fffff, 0xfffffff} {
		for _, f := range []struct {
			wire wire.LengthForm
			put  func(pointer, int, int) int
			read func([]byte, int) (int, int)
		}{
			{wire.CompactLength, compactPutLong, compactRecordsLength},
			{wire.Int32Length, int32PutLong, int32Length},
		} {
			want := f.wire.Append(nil, n)
			buf := make([]byte, 2+5+3)
			end := f.put(sliceData(buf), 2, n)
			if got := buf[2:end]; !bytes.Equal(got, want) {
				t.Errorf("%v long %d: % x, wire % x", f.wire, n, got, want)
			}
			m, next := f.read(buf, 2)
			switch {
			case f.wire == wire.CompactLength && len(want) > 3:
				if m != -2 || next != 2 {
					t.Errorf("%v records %d (%d bytes): %d, %d, want the general path", f.wire, n, len(want), m, next)
				}
			case m != n || next != end:
				t.Errorf("%v records %d: %d, next %d, want next %d", f.wire, n, m, next, end)
			}
		}
	}
	for _, in := range [][]byte{{0x80, 0x00, 0}, {0x80, 0x80, 0x00}, {0x80}, {1, 2}} { // overlong, or short
		if m, _ := compactRecordsLength(in, 0); m != -2 {
			t.Errorf("records % x: %d, want -2", in, m)
		}
	}
}

// The fixed widths' stores and loads against wire's.
func TestFixedFormsAgreeWithWire(t *testing.T) {
	b := make([]byte, 1+2+4+8+16)
	at := sliceData(b)
	put8(at, 0xfe)
	put16(at.at(1), 0xfedc)
	put32(at.at(3), 0xfedcba98)
	put64(at.at(7), 0x0123456789abcdef)
	id := UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	putUUID(at.at(15), id)
	want := wire.AppendUint64(wire.AppendUint32(wire.AppendUint16(wire.AppendInt8(nil, -2), 0xfedc), 0xfedcba98), 0x0123456789abcdef)
	want = append(want, id[:]...)
	if !bytes.Equal(b, want) {
		t.Fatalf("% x\nwire % x", b, want)
	}
	if int8Get(b, 0) != 0xfe || int16Get(b, 1) != 0xfedc || int32Get(b, 3) != 0xfedcba98 || int64Get(b, 7) != 0x0123456789abcdef || uuidGet(b, 15) != id {
		t.Errorf("loads: %x %x %x %x %v", int8Get(b, 0), int16Get(b, 1), int32Get(b, 3), int64Get(b, 7), uuidGet(b, 15))
	}
	exact, lax := &decodeState{exact: true}, &decodeState{}
	for _, c := range []struct {
		b                   byte
		v, exactOK, wireStr bool
	}{{0, false, true, true}, {1, true, true, true}, {2, true, false, false}, {0xff, true, false, false}} {
		wv, strict, _ := wire.ConsumeBool([]byte{c.b})
		if boolGet([]byte{c.b}, 0) != c.v || wv != c.v || strict != c.wireStr ||
			boolAccepted(exact, []byte{c.b}, 0) != c.exactOK || !boolAccepted(lax, []byte{c.b}, 0) {
			t.Errorf("bool byte %#x", c.b)
		}
	}
}
