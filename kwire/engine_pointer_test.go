package kwire

import (
	"encoding/binary"
	"reflect"
	"testing"
)

// The header types agree with the runtime on this machine (init panics
// otherwise; the test says so by name), and the length words sit where
// the flat checks and the reset list read them.
func TestLayoutOfGoValues(t *testing.T) {
	if err := checkLayout(); err != nil {
		t.Fatal(err)
	}
	v := struct {
		S string
		B []byte
		T UnknownTags
	}{S: "abc", B: make([]byte, 2, 7), T: NewUnknownTags(TaggedField{Tag: 1})}
	p := pointerOf(&v)
	offB := uintptr(reflect.TypeOf(v).Field(1).Offset)
	if got := *p.add(stringLenOff).word(); got != 3 {
		t.Errorf("string length word %d, want 3", got)
	}
	if got := *p.add(offB + sliceLenOff).word(); got != 2 {
		t.Errorf("slice length word %d, want 2", got)
	}
	if got := p.add(offB).slice().cap; got != 7 {
		t.Errorf("slice cap %d, want 7", got)
	}
}

// The big-endian loads and stores agree with encoding/binary whatever the
// machine's byte order.
func TestBigEndianAccess(t *testing.T) {
	var buf [8]byte
	p := pointerOf(&buf)
	put16(p, 0x0102)
	if binary.BigEndian.Uint16(buf[:]) != 0x0102 || get16(p) != 0x0102 {
		t.Errorf("put16/get16: % x", buf)
	}
	put32(p, 0x01020304)
	if binary.BigEndian.Uint32(buf[:]) != 0x01020304 || get32(p) != 0x01020304 {
		t.Errorf("put32/get32: % x", buf)
	}
	put64(p, 0x0102030405060708)
	if binary.BigEndian.Uint64(buf[:]) != 0x0102030405060708 || get64(p) != 0x0102030405060708 {
		t.Errorf("put64/get64: % x", buf)
	}
}
