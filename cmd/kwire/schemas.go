package main

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/kwirelabs/kwire/gen"
	"github.com/kwirelabs/kwire/messages"
)

// registerSchemas adds to r the APIs that the schema directories dirs
// (DIR[,DIR], lowest precedence first, as kwire gen takes them) define,
// built at run time.
func registerSchemas(r *messages.Registry, dirs string) error {
	apis, err := gen.LoadAPIs(strings.Split(dirs, ",")...)
	if err != nil {
		return fmt.Errorf("-schemas: %v", err)
	}
	for _, a := range apis {
		if old, ok := r.Lookup(a.Key); ok && sameAPI(old, a) {
			continue // the same schemas loaded again (decode's -schemas into messages.Default)
		}
		if err := r.Register(a); err != nil {
			return fmt.Errorf("-schemas: %v", err)
		}
	}
	return nil
}

// sameAPI reports whether a and b are one API: name, versions and
// message types (StructOf returns one type for one list of fields).
func sameAPI(a, b messages.API) bool {
	return a.Name == b.Name && a.MinVersion == b.MinVersion && a.MaxVersion == b.MaxVersion && a.FlexibleFrom == b.FlexibleFrom &&
		reflect.TypeOf(a.NewRequest()) == reflect.TypeOf(b.NewRequest()) &&
		reflect.TypeOf(a.NewResponse()) == reflect.TypeOf(b.NewResponse())
}
