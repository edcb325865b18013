// Package sizes is the table of minimal-instance sizes: for every API and
// version of the registry, removed versions included, the size of the
// smallest legal request and response frame (kwire.FillMinimal), counted
// as the reference page counts them: the whole frame, size prefix
// included, request header with an empty client ID, correlation ID 0.
//
// The table is committed as messages/testdata/minimal-sizes.tsv (written
// by `go generate ./messages`, which runs ./sizestable; `kwire apis -sizes`
// prints the same), checked by
// the main module's property suite and, against franz-go's kmsg, by the
// interop module.
package sizes

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// Header is the TSV table's first line.
const Header = "key\tname\tversion\trequest_size\tresponse_size\tnote"

// Reference is what the reference page
// (shared/spec/ConsumerGroupHeartbeat-minimal-instance.txt) says: the one
// API and version it shows and its two frame sizes. Its response leaves
// out the presence marker of the nullable struct Assignment.
var Reference = struct {
	Key, Version      int16
	Request, Response int
}{Key: 68, Version: 1, Request: 55, Response: 50}

// Row is one (API key, version) of the table.
type Row struct {
	Key      int16
	Name     string
	Version  int16
	Request  int    // bytes of the smallest request frame, size prefix included
	Response int    // bytes of the smallest response frame, size prefix included
	Note     string // where kwire knowingly differs from the reference page; empty if nowhere
}

// Table measures every API and version of the registry, in key and
// version order.
func Table() ([]Row, error) {
	var rows []Row
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			r, err := Measure(api, v)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// Measure encodes the smallest request and response of api at version
// and says how kwire's frames depart from the reference page's counting.
func Measure(api messages.API, version int16) (Row, error) {
	r := Row{Key: api.Key, Name: api.Name, Version: version}
	req := api.NewRequest()
	if err := kwire.FillMinimal(req, version); err != nil {
		return r, fmt.Errorf("%s v%d request: %w", api.Name, version, err)
	}
	empty := ""
	reqFrame, reqTree, err := kwire.LayoutRequest(req, version, 0, &empty)
	if err != nil {
		return r, fmt.Errorf("%s v%d request: %w", api.Name, version, err)
	}
	resp := api.NewResponse()
	if err := kwire.FillMinimal(resp, version); err != nil {
		return r, fmt.Errorf("%s v%d response: %w", api.Name, version, err)
	}
	respFrame, respTree, err := kwire.LayoutResponse(resp, version, 0)
	if err != nil {
		return r, fmt.Errorf("%s v%d response: %w", api.Name, version, err)
	}
	r.Request, r.Response = len(reqFrame), len(respFrame)
	var notes []string
	if n := presenceNote("request", reqTree, r.Key, r.Version, r.Request, Reference.Request); n != "" {
		notes = append(notes, n)
	}
	if n := presenceNote("response", respTree, r.Key, r.Version, r.Response, Reference.Response); n != "" {
		notes = append(notes, n)
	}
	r.Note = strings.Join(notes, "; ")
	return r, nil
}

// presenceNote says which presence markers a frame holds: Kafka writes an
// int8 marker before every nullable struct and so does kwire, but the
// reference page leaves it out, so each one is a byte the page's counting
// would not have. At the page's own API and version it also gives the
// page's figure.
func presenceNote(side string, tree *kwire.LayoutNode, key, version int16, size, pageSize int) string {
	var paths []string
	var walk func(n *kwire.LayoutNode, path string)
	walk = func(n *kwire.LayoutNode, path string) {
		for _, c := range n.Children {
			if c.Name == "present" {
				paths = append(paths, path)
				continue
			}
			p := c.Name
			switch {
			case strings.HasSuffix(c.Name, "]") && strings.HasPrefix(c.Name, lastSegment(path)+"["):
				p = strings.TrimSuffix(path, lastSegment(path)) + c.Name // Topics, Topics[0]: one step
			case path != "":
				p = path + "." + c.Name
			}
			walk(c, p)
		}
	}
	if len(tree.Children) < 3 {
		return ""
	}
	walk(tree.Children[2], "") // the body: after the size prefix and the header
	if len(paths) == 0 {
		return ""
	}
	what := "marker"
	if len(paths) > 1 {
		what = "markers"
	}
	note := fmt.Sprintf("%s includes %d presence %s (%s), which the reference page's counting leaves out", side, len(paths), what, strings.Join(paths, ", "))
	if key == Reference.Key && version == Reference.Version {
		note += fmt.Sprintf(": the page says %d, kwire writes %d as Kafka does", pageSize, size)
	}
	return note
}

func lastSegment(path string) string {
	return path[strings.LastIndexByte(path, '.')+1:]
}

// WriteTSV writes the table with its header line.
func WriteTSV(w io.Writer, rows []Row) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, Header)
	for _, r := range rows {
		fmt.Fprintf(bw, "%d\t%s\t%d\t%d\t%d\t%s\n", r.Key, r.Name, r.Version, r.Request, r.Response, r.Note)
	}
	return bw.Flush()
}

// ReadTSV reads a table WriteTSV wrote; a line that is not a row is an
// error naming its line number.
func ReadTSV(rd io.Reader) ([]Row, error) {
	sc := bufio.NewScanner(rd)
	if !sc.Scan() || sc.Text() != Header {
		return nil, fmt.Errorf("minimal sizes: line 1: want the header %q", Header)
	}
	var rows []Row
	for line := 2; sc.Scan(); line++ {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 6 {
			return nil, fmt.Errorf("minimal sizes: line %d: %d columns, want 6", line, len(f))
		}
		var nums [4]int
		for i, s := range []string{f[0], f[2], f[3], f[4]} {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("minimal sizes: line %d: %q is not a size, key or version", line, s)
			}
			nums[i] = n
		}
		if nums[0] > 1<<15-1 || nums[1] > 1<<15-1 {
			return nil, fmt.Errorf("minimal sizes: line %d: key or version out of int16 range", line)
		}
		rows = append(rows, Row{Key: int16(nums[0]), Name: f[1], Version: int16(nums[1]),
			Request: nums[2], Response: nums[3], Note: f[5]})
	}
	return rows, sc.Err()
}
