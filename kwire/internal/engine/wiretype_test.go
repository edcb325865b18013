package engine

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
// with the piece named, rather than encode without it.
func TestWireTypeLackingAPieceFailsThePlan(t *testing.T) {
	saved := wireTypes[kVarlong]
	defer func() { wireTypes[kVarlong] = saved }()
	wireTypes[kVarlong].flatCheck = nil
	type lacking struct {
		_ struct{} `kafka:"versions=0"`
		N int64    `kafka:"v=0+,varint"`
	}
	_, err := planFor(reflect.TypeOf(lacking{}), 0, false)
	if err == nil || !strings.Contains(err.Error(), "wire type varlong lacks flatCheck") {
		t.Fatalf("got %v, want the missing flatCheck named", err)
	}
}
