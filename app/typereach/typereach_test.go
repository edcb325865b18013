package typereach_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kwirelabs/kwire/app/typereach"
)

type target struct{ Host string }

type tree struct {
	Children []*tree
	Leaf     *target
}

type loop struct{ Next *loop }

// hidden holds a target only in an unexported field, which a walk over
// exported fields never reaches.
type hidden struct{ t target }

var _ = hidden{}.t

func TestCanHold(t *testing.T) {
	f := typereach.New(func(t reflect.Type) bool { return t == reflect.TypeOf(target{}) })
	cases := []struct {
		v    any
		want bool
	}{
		{target{}, true},
		{&[]*target{}, true},
		{tree{}, true},    // through a pointer field of a recursive type
		{[]tree{}, true},  // and a slice of it
		{loop{}, false},   // recursive with nothing else: ends
		{hidden{}, false}, // unexported fields are not walked
		{[]byte(nil), false},
		{"", false},
	}
	for _, c := range cases {
		for range 2 { // the second answer is the cached one
			assert.Equal(t, c.want, f.CanHold(reflect.TypeOf(c.v)), "%T", c.v)
		}
	}
}
