package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/kwirelabs/kwire/app/sniff"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// progressAbove is the capture size from which sniff reports progress
// on stderr.
const progressAbove = 100 << 20

// runSniff reads a packet capture and prints every Kafka request and
// response in it, decoded and paired, then a summary.
func runSniff(args []string, stdin io.Reader, out, errOut io.Writer) error {
	fs := flag.NewFlagSet("sniff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	file := fs.String("r", "", "the capture (libpcap or pcapng); - for standard input")
	ports := fs.String("port", "", "only connections with an end on these ports (comma-separated): the broker's")
	asJSON := fs.Bool("json", false, "one JSON object a line, as kwire proxy -json writes")
	apis := fs.String("api", "", "only these APIs (names or keys, comma-separated)")
	onlyErrors := fs.Bool("errors", false, "only responses with an error code, frames that did not decode, gaps and skipped connections")
	client := fs.String("client", "", "only requests and responses of this client id")
	maxFrame := fs.Int("max-frame", kwire.DefaultMaxFrameSize, "the largest frame decoded (size prefix); larger ones are named and skipped")
	quiet := fs.Bool("summary", false, "print only the summary")
	records := fs.Bool("records", false, "with -json, show records fields in full rather than summed up")
	rawRecords := fs.Bool("raw-records", false, "with -json, show records fields as their bytes in base64, so that a line's body re-encodes to the frame (kwire encode)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run here (go tool pprof reads it)")
	var schemas schemaFlags
	schemas.register(fs, "decode")
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	if *cpuProfile != "" {
		pf, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("sniff: %v", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("sniff: %v", err)
		}
		defer pprof.StopCPUProfile()
	}
	reg, err := schemas.registry(errOut)
	if err != nil {
		return fmt.Errorf("sniff: %v", err)
	}
	if *file == "" || fs.NArg() > 0 {
		return fmt.Errorf("sniff: usage: kwire sniff -r FILE|- [-port LIST] [-json] [-api LIST] [-errors] [-client ID]")
	}
	if !*asJSON && (*records || *rawRecords) {
		return fmt.Errorf("sniff: -records and -raw-records go with -json")
	}
	bodyOpts, err := recordsOptions(*records, *rawRecords)
	if err != nil {
		return fmt.Errorf("sniff: %w", err)
	}
	opt := sniff.Options{MaxFrame: *maxFrame, Registry: reg}
	if *ports != "" {
		for _, p := range strings.Split(*ports, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(p), 10, 16)
			if err != nil {
				return fmt.Errorf("sniff: -port: %q is not a port", p)
			}
			opt.Ports = append(opt.Ports, uint16(n))
		}
	}
	f := sniffFilter{onlyErrors: *onlyErrors, all: *apis == ""}
	if *apis != "" {
		f.keys = map[int16]bool{}
		for _, name := range strings.Split(*apis, ",") {
			key, ok := apiKeyByName(reg, strings.TrimSpace(name))
			if !ok {
				return fmt.Errorf("sniff: -api: no API %q", name)
			}
			f.keys[key] = true
		}
	}
	if *client != "" {
		f.client = client
	}

	in := stdin
	if *file != "-" {
		fh, err := os.Open(*file)
		if err != nil {
			return fmt.Errorf("sniff: %v", err)
		}
		if st, err := fh.Stat(); err == nil && st.IsDir() {
			fh.Close()
			return fmt.Errorf("sniff: %s is a directory: -r takes a capture file (pcap or pcapng) or -", *file)
		}
		defer fh.Close()
		in = fh
	}
	progressed := false
	if st, err := statOf(in); err == nil && st.Size() > progressAbove {
		total := st.Size()
		opt.Progress = func(read int64) {
			progressed = true
			fmt.Fprintf(errOut, "\rkwire sniff: %d of %d MB (%d%%)", read>>20, total>>20, read*100/total)
		}
	} else if *file == "-" {
		opt.Progress = func(read int64) {
			if read > progressAbove {
				progressed = true
				fmt.Fprintf(errOut, "\rkwire sniff: %d MB read", read>>20)
			}
		}
	}

	w := bufio.NewWriterSize(out, 64<<10)
	defer w.Flush()
	var line []byte
	stats, err := sniff.Read(in, opt, func(r *sniff.Record) {
		if *quiet || !f.keep(r) {
			return
		}
		e := sniffEvent(r)
		if a, ok := reg.Lookup(r.Key); ok && r.Key >= 0 {
			e.API = a.Name // the log would name it after messages.Default's
		}
		if *asJSON {
			line = trafficlog.AppendJSON(line[:0], e, bodyOpts...)
		} else {
			line = trafficlog.AppendText(line[:0], e)
		}
		w.Write(line)
	})
	if progressed {
		fmt.Fprint(errOut, "\r\033[K")
	}
	if stats != nil {
		if *asJSON {
			j, _ := json.Marshal(map[string]any{"summary": stats.Summary()})
			w.Write(append(j, '\n'))
		} else {
			stats.WriteText(w)
		}
	}
	if err != nil {
		return fmt.Errorf("sniff: %v", err)
	}
	return nil
}

// sniffEvent is a capture record as a line of the traffic log.
func sniffEvent(r *sniff.Record) trafficlog.Event {
	return trafficlog.Event{Time: r.Time, Conn: r.Conn, Dir: trafficlog.Dir(r.Kind), Key: r.Key, Version: r.Version,
		CorrelationID: r.CorrelationID, ClientID: r.ClientID, ClientInstanceID: r.ClientInstanceID, Latency: r.Latency, ClientAddr: r.Client,
		Principal: r.Principal, Msg: r.Msg, Summary: r.Summary, ErrorCodes: r.ErrorCodes, Err: r.Err, Note: r.Note}
}

// sniffFilter is what -api, -errors and -client keep.
type sniffFilter struct {
	all        bool
	keys       map[int16]bool
	onlyErrors bool
	client     *string
}

func (f sniffFilter) keep(r *sniff.Record) bool {
	aboutAPI := r.Kind == sniff.Request || r.Kind == sniff.Response
	if !f.all && (!aboutAPI || !f.keys[r.Key]) {
		return false
	}
	if f.client != nil && (!aboutAPI || r.ClientID == nil || *r.ClientID != *f.client) {
		return false
	}
	if f.onlyErrors {
		return r.Err != nil || len(r.ErrorCodes) > 0 || r.Kind == sniff.Gap || r.Kind == sniff.Skip || r.Kind == sniff.Close
	}
	return true
}

// apiKeyByName finds an API by name (case-insensitive) or key number.
func apiKeyByName(reg *messages.Registry, name string) (int16, bool) {
	if n, err := strconv.ParseInt(name, 10, 16); err == nil {
		_, ok := reg.Lookup(int16(n))
		return int16(n), ok
	}
	for _, a := range reg.APIs() {
		if strings.EqualFold(a.Name, name) {
			return a.Key, true
		}
	}
	return 0, false
}

// statOf is the file behind r, when it is a regular file.
func statOf(r io.Reader) (os.FileInfo, error) {
	f, ok := r.(*os.File)
	if !ok {
		return nil, os.ErrInvalid
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	return st, err
}
