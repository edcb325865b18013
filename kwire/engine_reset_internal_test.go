package kwire

import (
	"reflect"
	"testing"
)

// unaligned mixes 4-byte fields with a UUID, which Go aligns to 1, and a
// byte, so that what reset clears starts at odd and 4-aligned offsets.
type unaligned struct {
	_  struct{} `kafka:"versions=0-1,flexible=0+"`
	A  int32    `kafka:"v=1+"`
	B  int32    `kafka:"v=1+"`
	F  bool     `kafka:"v=1+"`
	ID UUID     `kafka:"v=1+"`
	C  int32    `kafka:"v=0+"`
	N  [3]int16 `kafka:"-"` // off the wire: reset clears it
}

// Every store of a reset list is one Go aligns where it is, given the
// struct's alignment: an 8-byte clear at a 4-aligned address faults on
// mips64. The list still clears every byte decoding does not write.
func TestResetClearsAligned(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(unaligned{}), reflect.TypeOf(checked{}), reflect.TypeOf(pairs{})} {
		pl, err := planFor(typ, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		cleared := map[uintptr]bool{}
		for _, c := range pl.clears {
			for i := range c.size {
				cleared[c.off+i] = true
			}
			if c.size > 8 {
				continue // clear(), which aligns itself
			}
			need := min(c.size, uint64Align)
			if c.off%need != 0 || uintptr(typ.Align())%need != 0 {
				t.Errorf("%v: a %d-byte clear at offset %d of a struct aligned to %d", typ, c.size, c.off, typ.Align())
			}
		}
		if typ != reflect.TypeOf(unaligned{}) {
			continue
		}
		for _, name := range []string{"A", "B", "F", "ID", "N"} {
			f, _ := typ.FieldByName(name)
			for i := range f.Type.Size() {
				if !cleared[f.Offset+i] {
					t.Errorf("%s: byte %d is not cleared", name, i)
				}
			}
		}
	}
}
