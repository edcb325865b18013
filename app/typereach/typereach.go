// Package typereach answers, once per type, whether a value of a message
// type can hold a struct of some kind, so that a walk over a message (the
// proxy's endpoint rewrite, the traffic log's redaction) skips what cannot
// (records, partition lists) without looking.
package typereach

import (
	"reflect"
	"sync"
)

// Finder knows which types can hold a struct its match accepts, through
// exported fields, pointers and slices. It is safe for concurrent use.
type Finder struct {
	match func(t reflect.Type) bool // t is a struct type
	found sync.Map                  // reflect.Type -> bool
}

// New returns a Finder of the struct types match accepts.
func New(match func(t reflect.Type) bool) *Finder {
	return &Finder{match: match}
}

// CanHold reports whether a value of t can hold a struct f matches.
func (f *Finder) CanHold(t reflect.Type) bool {
	if v, ok := f.found.Load(t); ok {
		return v.(bool)
	}
	found := f.find(t, map[reflect.Type]bool{})
	f.found.Store(t, found)
	return found
}

func (f *Finder) find(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false // a recursive type: its other fields decide
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		return f.find(t.Elem(), seen)
	case reflect.Struct:
		if f.match(t) {
			return true
		}
		for i := range t.NumField() {
			if t.Field(i).IsExported() && f.find(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}
