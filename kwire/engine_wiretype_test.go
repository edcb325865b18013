package kwire

import (
	"reflect"
	"strings"
	"testing"
)

// TestWireTypesComplete: every value kind has its whole entry, so a new
// wire type cannot be half added.
func TestWireTypesComplete(t *testing.T) {
	for k := kind(0); k < kFixedRun; k++ {
		if missing := wireTypes[k].lacks(); len(missing) > 0 {
			t.Errorf("kind %d (%q) lacks %v", k, wireTypes[k].name, missing)
		}
	}
}

// A wire type that lacks a piece fails the plan of any type holding it,
// with the piece named, rather than encode or decode without it.
func TestWireTypeLackingAPieceFailsThePlan(t *testing.T) {
	type lackingFlatCheck struct {
		_ struct{} `kafka:"versions=0"`
		N int64    `kafka:"v=0+,varint"`
	}
	type lackingDecode struct {
		_ struct{} `kafka:"versions=0"`
		N int64    `kafka:"v=0+,varint"`
	}
	for _, c := range []struct {
		piece  string
		typ    reflect.Type
		remove func(w *wireType)
	}{
		{"flatCheck", reflect.TypeFor[lackingFlatCheck](), func(w *wireType) { w.flatCheck = nil }},
		{"decode", reflect.TypeFor[lackingDecode](), func(w *wireType) { w.decode = nil }},
	} {
		saved := wireTypes[kVarlong]
		c.remove(&wireTypes[kVarlong])
		_, err := planFor(c.typ, 0, false)
		wireTypes[kVarlong] = saved
		if err == nil || !strings.Contains(err.Error(), "wire type varlong lacks "+c.piece) {
			t.Errorf("got %v, want the missing %s named", err, c.piece)
		}
	}
}
