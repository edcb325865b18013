package conform

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// cell is one API version's row of the text table: its checks' verdicts
// folded into one.
type cell struct {
	api     string
	key     int16
	version int16
	passed  int
	failed  []string
	skipped string
	info    []string
}

func (r *Report) cells() []*cell {
	var out []*cell
	index := map[[2]int16]*cell{}
	for _, x := range r.Results {
		k := [2]int16{x.Key, x.Version}
		c := index[k]
		if c == nil {
			c = &cell{api: x.API, key: x.Key, version: x.Version}
			index[k] = c
			out = append(out, c)
		}
		switch x.Verdict {
		case Pass:
			c.passed++
		case Fail:
			c.failed = append(c.failed, x.Check)
		case Skip:
			c.skipped = x.Check + ": " + x.Detail
		case Info:
			c.info = append(c.info, x.Check+": "+x.Detail)
		}
	}
	return out
}

// WriteText writes the report as people read it: a line per API and
// version (pass, FAIL with the checks failed, or skipped with the
// reason), then every failure with its request and answer.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "kwire conform %s  seed %d  %d random requests per version  %s\n", r.Addr, r.Seed, r.N, r.Elapsed.Round(1e6))
	fmt.Fprintf(w, "release: %s\n\n", r.Release)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "API\tkey\tversion\tverdict")
	var infos []string
	for _, c := range r.cells() {
		v := "-"
		if c.version >= 0 {
			v = fmt.Sprint(c.version)
		}
		verdict := ""
		switch {
		case len(c.failed) > 0:
			verdict = fmt.Sprintf("FAIL %s (%d passed)", strings.Join(c.failed, ", "), c.passed)
		case c.skipped != "":
			verdict = "skipped (" + c.skipped + ")"
		case c.passed > 0:
			verdict = fmt.Sprintf("pass (%d checks)", c.passed)
		}
		if verdict != "" {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", c.api, c.key, v, verdict)
		}
		for _, i := range c.info {
			infos = append(infos, c.api+" "+i)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, i := range infos {
		fmt.Fprintln(w, i)
	}
	fmt.Fprintf(w, "\n%d checks passed, %d failed, %d skipped\n", r.Count(Pass), r.Count(Fail), r.Count(Skip))
	for _, x := range r.Results {
		if x.Verdict != Fail {
			continue
		}
		at := x.API
		if x.Version >= 0 {
			at += fmt.Sprintf(" v%d", x.Version)
		}
		fmt.Fprintf(w, "\n--- FAIL %s %s: %s\n", at, x.Check, x.Detail)
		if x.Request != nil {
			shrunk := ""
			if x.Shrunk > 0 {
				shrunk = fmt.Sprintf(" (shrunk in %d steps)", x.Shrunk)
			}
			fmt.Fprintf(w, "request%s: %s\n", shrunk, x.Request)
			fmt.Fprintf(w, "resend: echo '%s' | kwire send -b %s -k %d -v %d\n", x.Request, r.Addr, x.Key, x.Version)
		}
		if x.Layout != "" {
			fmt.Fprintf(w, "answer:\n%s", x.Layout)
		} else if x.Response != "" {
			fmt.Fprintf(w, "answer (hex): %s\n", x.Response)
		}
	}
	return nil
}

// jsonLine is one -json line.
type jsonLine struct {
	API      string          `json:"api"`
	Key      int16           `json:"key"`
	Version  int16           `json:"version"`
	Check    string          `json:"check"`
	Verdict  Verdict         `json:"verdict"`
	Detail   string          `json:"detail,omitempty"`
	Request  json.RawMessage `json:"request,omitempty"`
	Response string          `json:"response,omitempty"`
	Seed     int64           `json:"seed"`
}

// WriteJSON writes one JSON object a line per result: api, key,
// version (-1: the broker as a whole), check, verdict, detail, and for
// a failure the request (as `kwire send` takes it) and the answer's hex.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, x := range r.Results {
		l := jsonLine{API: x.API, Key: x.Key, Version: x.Version, Check: x.Check, Verdict: x.Verdict, Detail: x.Detail, Response: x.Response, Seed: r.Seed}
		l.Request = x.Request
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return nil
}

// Findings are the failed checks as "API vVERSION check" lines, sorted:
// what a list of a broker's known departures is compared with.
func (r *Report) Findings() []string {
	var out []string
	for _, x := range r.Results {
		if x.Verdict == Fail {
			out = append(out, fmt.Sprintf("%s v%d %s", x.API, x.Version, x.Check))
		}
	}
	sort.Strings(out)
	return out
}
