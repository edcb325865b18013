package gen

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// DirList is a -schemas flag (kwire gen, site and layout -html):
// comma-separated and repeatable, in precedence order (later directories
// win).
type DirList []string

func (d *DirList) String() string { return strings.Join(*d, ",") }

func (d *DirList) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*d = append(*d, p)
		}
	}
	return nil
}

// Command runs the generator's command line (`kwire gen ARGS`, or the
// standalone gen/cmd/kwiregen that messages/generate.go runs, which does
// not import the messages package it writes). Warnings go to stderr.
func Command(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dirs DirList
	fs.Var(&dirs, "schemas", "schema `DIR[,DIR]`; repeatable; a version listed by a later directory is defined by it")
	out := fs.String("out", ".", "output `DIR`")
	pkg := fs.String("package", "messages", "Go package `NAME` of the output")
	kw := fs.String("import-kwire", DefaultKwireImport, "import `PATH` of the kwire codec package")
	reg := fs.Bool("registry", true, "also write apis.go, the API table (needs the package's hand-written API type: the messages package itself)")
	register := fs.Bool("register", false, "for a package of one's own (with -registry=false): write apis.go with APIs and Register(*messages.Registry)")
	msgsImport := fs.String("import-messages", DefaultMessagesImport, "import `PATH` of package messages, for -register")
	check := fs.Bool("check", false, "write nothing; fail if -out differs from what would be written (for CI)")
	extract := fs.String("extract", "", "instead of Go, write the merged schemas' facts to `DIR` (one JSON file per message, no prose); DIR then serves as -schemas")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: kwire gen -schemas DIR[,DIR] [-out DIR] [-package NAME] [-import-kwire PATH] [-registry=false [-register [-import-messages PATH]]] [-check]\n"+
			"       kwire gen -schemas DIR[,DIR] -extract DIR\n")
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
	if *extract != "" {
		return runExtract(dirs, *extract, stderr)
	}
	cfg := Config{SchemaDirs: dirs, Package: *pkg, KwireImport: *kw, Registry: *reg}
	if *register {
		if *reg {
			return fmt.Errorf("gen: -register is for a package of one's own: add -registry=false")
		}
		cfg.MessagesImport = *msgsImport
	}
	res, err := Generate(cfg)
	if err != nil {
		return fmt.Errorf("gen: %v", err)
	}
	printWarnings(stderr, res.Warnings)
	if *check {
		if err := CheckFiles(*out, res.Files); err != nil {
			return fmt.Errorf("gen: -check: %v", err)
		}
		return nil
	}
	if err := WriteFiles(*out, res.Files); err != nil {
		return fmt.Errorf("gen: %v", err)
	}
	return nil
}

func runExtract(dirs []string, out string, stderr io.Writer) error {
	// The extract directory is rewritten whole: never one of the inputs.
	for _, d := range dirs {
		if sameDir(d, out) {
			return fmt.Errorf("gen: -extract %s is also a -schemas directory", out)
		}
	}
	files, warnings, err := Extract(dirs)
	if err != nil {
		return fmt.Errorf("gen: %v", err)
	}
	printWarnings(stderr, warnings)
	if err := WriteExtract(out, files); err != nil {
		return fmt.Errorf("gen: %v", err)
	}
	return nil
}

func sameDir(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	return errA == nil && errB == nil && a == b
}

func printWarnings(w io.Writer, warnings []Warning) {
	for _, x := range warnings {
		fmt.Fprintf(w, "kwire gen: warning: %s\n", x)
	}
}
