package conform

import (
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/wire"
	"github.com/kwirelabs/kwire/messages"
)

// Exchange is one request and the broker's answer, as a check sees it.
type Exchange struct {
	API      messages.API
	Version  int16
	Request  any              // the request body sent
	Response any              // the answer, decoded exactly
	Frame    []byte           // the answer's frame, size prefix included
	Brokers  map[int32]string // the brokers Metadata lists, by node id
}

// failure is one check an answer failed: detail says how, at is the
// frame offset where the answer departs (-1 when no one byte does).
type failure struct {
	check, detail string
	at            int
}

// The checks every answer gets, in the order they are judged.
const (
	checkAnswer      = "answer"      // an answer arrives within the timeout
	checkCorrelation = "correlation" // it echoes the request's correlation id
	checkHeader      = "header"      // its header version is the one Kafka's rules give
	checkDecode      = "decode"      // it decodes exactly, nothing left over
	checkErrorCodes  = "error-codes" // every error code is in Kafka's table
	checkThrottle    = "throttle"    // the throttle time is not negative
)

var genericChecks = []string{checkAnswer, checkCorrelation, checkHeader, checkDecode, checkErrorCodes, checkThrottle}

var knownCodes = func() map[kerr.Code]bool {
	m := map[kerr.Code]bool{}
	for _, c := range kerr.Codes() {
		m[c] = true
	}
	return m
}()

// judge checks an answer (frame, or readErr when none came) to a request
// with correlation id corr; it returns the decoded answer, nil when it
// did not decode, and the checks it failed, at most one of the generic
// ones (each presupposes the one before).
func (r *runner) judge(api messages.API, version int16, req any, corr int32, frame []byte, readErr error) (any, []failure) {
	return r.judgeWith(Checks, api, version, req, corr, frame, readErr)
}

// judgeWith is judge with the per-API checks given.
func (r *runner) judgeWith(checks []Check, api messages.API, version int16, req any, corr int32, frame []byte, readErr error) (any, []failure) {
	if readErr != nil {
		return nil, []failure{{checkAnswer, noAnswer(readErr, r.opts.Timeout), -1}}
	}
	if len(frame) < 8 {
		return nil, []failure{{checkDecode, fmt.Sprintf("a %d-byte frame holds no correlation id", len(frame)), len(frame)}}
	}
	if got := responseCorr(frame); got != corr {
		return nil, []failure{{checkCorrelation, fmt.Sprintf("correlation id %d, the request's %d", got, corr), 4}}
	}
	resp := api.NewResponse()
	if _, err := (kwire.Decoder{Exact: true}).ReadResponse(frame, resp, version); err != nil {
		return nil, []failure{diagnose(api, version, frame, err)}
	}
	var fs []failure
	if codes, err := kerr.Find(resp, version); err == nil {
		for _, c := range codes {
			if !knownCodes[c.Code] {
				fs = append(fs, failure{checkErrorCodes, fmt.Sprintf("%s = %d, not in Kafka's error table", c.Path, int16(c.Code)), offsetOf(frame, resp, version, c.Path)})
				break
			}
		}
	}
	if t, ok := throttle(resp, version); ok && t < 0 {
		fs = append(fs, failure{checkThrottle, fmt.Sprintf("ThrottleTimeMs = %d", t), offsetOf(frame, resp, version, "ThrottleTimeMs")})
	}
	x := &Exchange{API: api, Version: version, Request: req, Response: resp, Frame: frame, Brokers: r.env.brokers}
	for _, c := range checks {
		if !c.applies(api.Key) {
			continue
		}
		if err := c.Func(x); err != nil {
			at := -1
			var pe *PathError
			if errors.As(err, &pe) {
				at = offsetOf(frame, resp, version, pe.Path)
			}
			fs = append(fs, failure{c.Name, err.Error(), at})
		}
	}
	return resp, fs
}

// diagnose names what an answer that does not decode exactly got wrong:
// its header version, when the body decodes under the other one, else
// the decode error and its offset.
func diagnose(api messages.API, version int16, frame []byte, err error) failure {
	// The header table of the response struct (its stated
	// headerVersions, or the rule Kafka derived them by).
	_, want, ok := messages.Default.HeaderVersions(api.Key, version)
	if !ok {
		want = kwire.ResponseHeaderVersion(api.Key, api.IsFlexible(version))
	}
	other := 8 // header v0: the body follows the correlation id
	if want == 0 {
		other = 9 // an empty tagged section the header v0 has not
		if len(frame) < 9 || frame[8] != 0 {
			other = -1
		}
	}
	if other > 0 {
		if uerr := (kwire.Decoder{Exact: true}).Unmarshal(frame[other:], api.NewResponse(), version); uerr == nil {
			return failure{checkHeader, fmt.Sprintf("response header v%d; Kafka's rules give v%d for %s v%d", 1-want, want, api.Name, version), 8}
		}
	}
	at := -1
	var ke *kwire.Error
	if errors.As(err, &ke) && ke.Offset >= 0 {
		at = ke.Offset
	}
	return failure{checkDecode, err.Error(), at}
}

// throttle is the answer's ThrottleTimeMs, when its version has one.
func throttle(resp any, version int16) (int64, bool) {
	s, err := kwire.SchemaOf(resp, version)
	if err != nil {
		return 0, false
	}
	for _, f := range s.Fields {
		if f.Name == "ThrottleTimeMs" {
			return reflect.ValueOf(resp).Elem().Field(f.Index).Int(), true
		}
	}
	return 0, false
}

// offsetOf is where the field at path (Topics[0].ErrorCode) sits in the
// frame, from its layout tree; -1 when the tree does not have it.
func offsetOf(frame []byte, resp any, version int16, path string) int {
	if path == "" {
		return -1
	}
	tree, err := kwire.TraceResponse(frame, reflect.New(reflect.TypeOf(resp).Elem()).Interface(), version)
	if err != nil {
		return -1
	}
	if n := findPath(tree, path); n != nil {
		return n.Offset
	}
	return -1
}

// findPath follows path's segments down the tree: the body's node, then
// a child named after each segment ("Topics", then "Topics[0]").
func findPath(tree *kwire.LayoutNode, path string) *kwire.LayoutNode {
	if len(tree.Children) == 0 {
		return nil
	}
	n := tree.Children[len(tree.Children)-1] // the body, after frame and header
	for _, seg := range strings.Split(path, ".") {
		name := seg
		if i := strings.IndexByte(seg, '['); i >= 0 {
			name = seg[:i]
		}
		if n = child(n, name); n == nil {
			return nil
		}
		if name != seg {
			if n = child(n, seg); n == nil {
				return nil
			}
		}
	}
	return n
}

func child(n *kwire.LayoutNode, name string) *kwire.LayoutNode {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// PathError is a check's failure at one field of the answer, so the
// report can mark its byte.
type PathError struct {
	Path, Msg string
}

func (e *PathError) Error() string { return e.Path + ": " + e.Msg }

// atPath is a PathError.
func atPath(path, format string, args ...any) error {
	return &PathError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// layout shows an answer for a report: its layout tree with the node at
// offset at marked, or, when the frame has no tree (it does not decode),
// the tree of the part that does, then a hex dump marked at at.
func layout(api messages.API, version int16, frame []byte, at int) string {
	var b strings.Builder
	tree, err := kwire.TraceResponse(frame, api.NewResponse(), version)
	if err != nil && at > 8 && at < len(frame) {
		// The part before the departure, as a frame of its own, often
		// decodes (trailing bytes): show its tree.
		head := append([]byte(nil), frame[:at]...)
		wire.FinishFrame(head, 0)
		tree, _ = kwire.TraceResponse(head, api.NewResponse(), version)
	}
	if tree != nil {
		writeTree(&b, tree, "", at)
	}
	writeHex(&b, frame, at)
	return b.String()
}

func writeTree(b *strings.Builder, n *kwire.LayoutNode, indent string, at int) {
	mark := ""
	if at >= n.Offset && at < n.Offset+n.Size && deepest(n, at) {
		mark = "   <-- departs here"
	}
	v := ""
	if n.Value != "" {
		v = " = " + n.Value
	}
	fmt.Fprintf(b, "%s%s %s%s [0x%04x, %dB]%s\n", indent, n.Name, n.Type, v, n.Offset, n.Size, mark)
	for _, c := range n.Children {
		writeTree(b, c, indent+"  ", at)
	}
}

// deepest says no child of n holds offset at.
func deepest(n *kwire.LayoutNode, at int) bool {
	for _, c := range n.Children {
		if at >= c.Offset && at < c.Offset+c.Size {
			return false
		}
	}
	return true
}

// writeHex dumps frame 16 bytes a row, the byte at at in brackets.
func writeHex(b *strings.Builder, frame []byte, at int) {
	const max = 4096
	for off := 0; off < len(frame) && off < max; off += 16 {
		fmt.Fprintf(b, "%04x ", off)
		for i := off; i < off+16 && i < len(frame); i++ {
			if i == at {
				fmt.Fprintf(b, "[%02x]", frame[i])
			} else {
				fmt.Fprintf(b, " %02x ", frame[i])
			}
		}
		b.WriteByte('\n')
	}
	if len(frame) > max {
		fmt.Fprintf(b, "... %d bytes in all\n", len(frame))
	}
	if at >= len(frame) {
		fmt.Fprintf(b, "departs at byte %d: the frame ends first (%d bytes)\n", at, len(frame))
	} else if at >= 0 {
		fmt.Fprintf(b, "departs at byte %d (0x%04x)\n", at, at)
	}
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }
