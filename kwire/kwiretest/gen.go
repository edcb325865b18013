package kwiretest

import (
	"fmt"
	"reflect"

	"github.com/leanovate/gopter"

	"github.com/kwirelabs/kwire/kwire"
)

// Gen is a gopter generator of random legal instances of msg's type (a
// pointer to a tagged struct) at version, built on kwire.FillRandom: each
// result is a new pointer of msg's type. Arrays and strings grow with the
// generator's size. It panics if the type's tags are invalid or the type
// does not declare version: a mistake in the test, not in the data.
func Gen(msg any, version int16) gopter.Gen {
	t := reflect.TypeOf(msg)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("kwiretest.Gen: need a pointer to a struct, not %v", t))
	}
	info, err := kwire.MessageInfoOf(msg)
	if err != nil {
		panic(fmt.Sprintf("kwiretest.Gen: %v", err))
	}
	if !info.Versions.Contains(version) {
		panic(fmt.Sprintf("kwiretest.Gen: %s has versions %s, not %d", t.Elem(), info.Versions, version))
	}
	return func(p *gopter.GenParameters) *gopter.GenResult {
		m := reflect.New(t.Elem()).Interface()
		if err := kwire.FillRandom(p.Rng, m, version, kwire.RandomOptions{MaxLen: 1 + p.MaxSize/12}); err != nil {
			panic(err) // checked above: cannot happen
		}
		return gopter.NewGenResult(m, gopter.NoShrinker)
	}
}
