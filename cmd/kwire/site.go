package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/kwirelabs/kwire/app/site"
	"github.com/kwirelabs/kwire/gen"
)

func runSite(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("site", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("o", "", "output directory")
	var schemaDirs gen.DirList
	fs.Var(&schemaDirs, "schemas", "Kafka JSON schema directories, lowest precedence first (optional)")
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	if *dir == "" || fs.NArg() > 0 {
		return fmt.Errorf("site: usage: kwire site -o DIR [-schemas DIR[,DIR]]")
	}
	schemas, err := loadSchemas(schemaDirs)
	if err != nil {
		return err
	}
	st, err := site.Write(*dir, schemas)
	if err != nil {
		return fmt.Errorf("site: %w", err)
	}
	fmt.Fprintf(out, "wrote %s/index.html and %d pages, %d bytes\n", *dir, st.Pages, st.Bytes)
	return nil
}

func loadSchemas(dirs []string) (*site.Schemas, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	s, err := site.LoadSchemas(dirs)
	if err != nil {
		return nil, fmt.Errorf("schemas: %w", err)
	}
	return s, nil
}
