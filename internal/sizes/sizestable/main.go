// Command sizestable writes the minimal-sizes table (package sizes) to the
// file -o names, or to standard output. `go generate ./messages` runs it to
// keep messages/testdata/minimal-sizes.tsv current; it lives in the codec's
// module so that regenerating messages needs none of the tools.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kwirelabs/kwire/internal/sizes"
)

func main() {
	out := flag.String("o", "", "write the table to this file (default: standard output)")
	flag.Parse()
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "sizestable:", err)
		os.Exit(1)
	}
}

func write(file string) error {
	rows, err := sizes.Table()
	if err != nil {
		return err
	}
	if file == "" {
		return sizes.WriteTSV(os.Stdout, rows)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := sizes.WriteTSV(f, rows); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
