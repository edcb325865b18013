package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/kwirelabs/kwire/gen"
)

// dirList is a -schemas flag: comma-separated and repeatable, in
// precedence order (later directories win).
type dirList []string

func (d *dirList) String() string { return strings.Join(*d, ",") }

func (d *dirList) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*d = append(*d, p)
		}
	}
	return nil
}

// runGen implements `kwire gen`: generate message structs from Kafka JSON
// schemas.
func runGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	var dirs dirList
	fs.Var(&dirs, "schemas", "schema `DIR[,DIR]`; repeatable; a version listed by a later directory is defined by it")
	out := fs.String("out", ".", "output `DIR`")
	pkg := fs.String("package", "messages", "Go package `NAME` of the output")
	kw := fs.String("import-kwire", gen.DefaultKwireImport, "import `PATH` of the kwire codec package")
	reg := fs.Bool("registry", true, "also write apis.go, the API table (needs the package's hand-written API type)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: kwire gen -schemas DIR[,DIR] [-out DIR] [-package NAME] [-import-kwire PATH] [-registry=false]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("gen: unexpected arguments %q", fs.Args())
	}
	if len(dirs) == 0 {
		fs.Usage()
		return fmt.Errorf("gen: -schemas is required")
	}
	res, err := gen.Generate(gen.Config{SchemaDirs: dirs, Package: *pkg, KwireImport: *kw, Registry: *reg})
	if err != nil {
		return fmt.Errorf("gen: %v", err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(os.Stderr, "kwire gen: warning: %s\n", w)
	}
	if err := gen.WriteFiles(*out, res.Files); err != nil {
		return fmt.Errorf("gen: %v", err)
	}
	return nil
}
