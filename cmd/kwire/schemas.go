package main

import (
	"fmt"
	"strings"

	"github.com/kwirelabs/kwire/gen"
	"github.com/kwirelabs/kwire/messages"
)

// toolRegistry is the registry a command looks messages up in:
// messages.Default, or with -schemas DIR[,DIR] a copy of it holding the
// schemas' APIs too, so that no command changes Default.
func toolRegistry(schemas string) (*messages.Registry, error) {
	if schemas == "" {
		return messages.Default, nil
	}
	r := messages.Default.Clone()
	return r, registerSchemas(r, schemas)
}

// registerSchemas adds to r the APIs that the schema directories dirs
// (DIR[,DIR], lowest precedence first, as kwire gen takes them) define,
// built at run time.
func registerSchemas(r *messages.Registry, dirs string) error {
	apis, err := gen.LoadAPIs(strings.Split(dirs, ",")...)
	if err != nil {
		return fmt.Errorf("-schemas: %v", err)
	}
	for _, a := range apis {
		if err := r.Register(a); err != nil {
			return fmt.Errorf("-schemas: %v", err)
		}
	}
	return nil
}
