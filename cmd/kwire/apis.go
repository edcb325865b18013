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
		versions := fmt.Sprintf("%d-%d", a.MinVersion, a.MaxVersion)
		if a.LatestVersionUnstable {
			// Brokers do not offer it by default; MaxStable is the one before.
			versions += fmt.Sprintf(" (v%d unstable)", a.MaxVersion)
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", a.Key, a.Name, versions, flex)
	}
	return w.Flush()
}
