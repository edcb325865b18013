package gotype_test

import (
	"reflect"
	"testing"

	"github.com/kwirelabs/kwire/internal/gotype"
	"github.com/kwirelabs/kwire/kwire"
)

type topic struct{}

func TestName(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{int32(0), "int32"},
		{"", "string"},
		{[]byte(nil), "[]uint8"},
		{(*string)(nil), "*string"},
		{[]topic(nil), "[]topic"},
		{[]*topic(nil), "[]*topic"},
		{kwire.UUID{}, "UUID"},
		{struct{ A int }{}, "struct"},
		{[]struct{ A int }(nil), "[]struct"},
		{map[string]int(nil), "map[string]int"},
	}
	for _, c := range cases {
		if got := gotype.Name(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("Name(%T) = %q, want %q", c.v, got, c.want)
		}
	}
}
