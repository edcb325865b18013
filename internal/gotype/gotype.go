// Package gotype spells a Go type as kwire shows it to people, in layout
// traces (kwire.TraceRequest) and on the reference pages (app/site),
// so that both name a field's type alike.
package gotype

import "reflect"

// Name writes a Go type without its package: []T, *T, T; an unnamed type
// as Go spells it.
func Name(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		return "[]" + Name(t.Elem())
	case reflect.Pointer:
		return "*" + Name(t.Elem())
	}
	if t.Name() == "" && t.Kind() == reflect.Struct {
		return "struct" // a struct built at run time would print every field and tag
	}
	if t.Name() == "" {
		return t.String()
	}
	return t.Name()
}
