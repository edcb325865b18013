package kwire

import (
	"errors"
	"testing"
)

type absentDefaults struct {
	_ struct{}   `kafka:"versions=0-1"`
	A int32      `kafka:"v=1+,default=7"`
	B string     `kafka:"v=1+,default=x,ignorable"`
	S inDefaults `kafka:"v=0+"`
}

type inDefaults struct {
	C int16 `kafka:"v=1+,default=-1"`
}

// A field the version lacks may hold its schema default or Go's zero
// value (isUnset), in a nested struct too (structIsDefault); anything
// else is ErrFieldNotInVersion unless the field is ignorable. Decoding
// that version gives such fields their defaults.
func TestAbsentFieldsHoldTheirDefaults(t *testing.T) {
	for _, c := range []struct {
		m  absentDefaults
		ok bool
	}{
		{absentDefaults{A: 7, B: "x", S: inDefaults{C: -1}}, true},
		{absentDefaults{}, true},
		{absentDefaults{A: 8}, false},
		{absentDefaults{S: inDefaults{C: 3}}, false},
		{absentDefaults{B: "other"}, true}, // ignorable
	} {
		_, err := Marshal(&c.m, 0)
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, ErrFieldNotInVersion)) {
			t.Errorf("%+v at v0: %v, want ok %v", c.m, err, c.ok)
		}
	}
	m := absentDefaults{A: 1, B: "y", S: inDefaults{C: 2}}
	if err := Unmarshal(nil, &m, 0); err != nil {
		t.Fatal(err)
	}
	if m != (absentDefaults{A: 7, B: "x", S: inDefaults{C: -1}}) {
		t.Errorf("decoded v0 into %+v, want the defaults", m)
	}
}
