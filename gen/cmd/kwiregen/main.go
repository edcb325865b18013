// Command kwiregen is `kwire gen` without the rest of the kwire command:
// it imports only package gen, so messages/generate.go can regenerate the
// messages package even when that package does not compile.
package main

import (
	"fmt"
	"os"

	"github.com/kwirelabs/kwire/gen"
)

func main() {
	if err := gen.Command(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "kwiregen:", err)
		os.Exit(1)
	}
}
