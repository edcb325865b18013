package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/kwirelabs/kwire/internal/sizes"
	"github.com/kwirelabs/kwire/messages"
)

func runAPIs(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("apis", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	withSizes := fs.Bool("sizes", false, "print the minimal-sizes table (TSV): every API and version, smallest request and response frame in bytes")
	file := fs.String("o", "", "with -sizes: write the table to this file instead of standard output")
	kafka := fs.String("kafka", "", "print what a Kafka release offers: 3.7, 0.10.2, 3.7-kraft, 4.0-controller (see -releases)")
	since := fs.String("since", "", "with -kafka: print only what changed since this release")
	releases := fs.Bool("releases", false, "list the Kafka releases and node roles -kafka knows")
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	switch {
	case *releases:
		return printReleases(out)
	case *kafka != "":
		return printRelease(out, *kafka, *since)
	case *since != "":
		return fmt.Errorf("apis: -since needs -kafka")
	}
	if fs.NArg() > 0 || (*file != "" && !*withSizes) {
		return fmt.Errorf("apis: usage: kwire apis [-sizes [-o FILE]]")
	}
	if *withSizes {
		return writeSizes(*file, out)
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KEY\tNAME\tVERSIONS\tFLEXIBLE FROM")
	for _, a := range messages.APIs() {
		flex := "never"
		if a.FlexibleFrom >= 0 {
			flex = fmt.Sprint(a.FlexibleFrom)
		}
		versions := fmt.Sprintf("%d-%d", a.MinVersion, a.MaxVersion)
		if a.LatestVersionUnstable {
			// Brokers do not offer it by default; MaxStable is the one before.
			versions += fmt.Sprintf(" (v%d unstable)", a.MaxVersion)
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", a.Key, a.Name, versions, flex)
	}
	return w.Flush()
}

// writeSizes writes the minimal-sizes table to file, or to out if file is
// empty: the table `go generate ./messages` writes to
// messages/testdata/minimal-sizes.tsv (through internal/sizes/sizestable).
func writeSizes(file string, out io.Writer) error {
	rows, err := sizes.Table()
	if err != nil {
		return fmt.Errorf("apis -sizes: %w", err)
	}
	if file == "" {
		return sizes.WriteTSV(out, rows)
	}
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("apis -sizes: %w", err)
	}
	if err := sizes.WriteTSV(f, rows); err != nil {
		f.Close()
		return fmt.Errorf("apis -sizes: %w", err)
	}
	return f.Close()
}
