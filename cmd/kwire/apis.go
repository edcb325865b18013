package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/kwirelabs/kwire/messages"
)

func runAPIs(out io.Writer) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KEY\tNAME\tVERSIONS\tFLEXIBLE FROM")
	for _, a := range messages.APIs() {
		flex := "never"
		if a.FlexibleFrom >= 0 {
			flex = fmt.Sprint(a.FlexibleFrom)
		}
		fmt.Fprintf(w, "%d\t%s\t%d-%d\t%s\n", a.Key, a.Name, a.MinVersion, a.MaxVersion, flex)
	}
	return w.Flush()
}
