package kwire

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// LayoutNode is one piece of an encoded message as Layout shows it: where it
// sits in the bytes, how long it is, its wire type and its value.
type LayoutNode struct {
	Name     string
	Type     string
	Value    string // empty for containers
	Offset   int
	Size     int
	Children []*LayoutNode
}

// Format writes the tree as indented text, one node a line, with the
// offset and size of each node.
func (n *LayoutNode) Format() string {
	var b strings.Builder
	n.format(&b, "", "")
	return b.String()
}

func (n *LayoutNode) format(b *strings.Builder, first, rest string) {
	b.WriteString(first)
	b.WriteString(n.Name)
	b.WriteString(" ")
	b.WriteString(n.Type)
	if n.Value != "" {
		b.WriteString(" = ")
		b.WriteString(n.Value)
	}
	fmt.Fprintf(b, " [0x%04x, %dB]\n", n.Offset, n.Size)
	for i, c := range n.Children {
		if i == len(n.Children)-1 {
			c.format(b, rest+"+-- ", rest+"    ")
		} else {
			c.format(b, rest+"+-- ", rest+"|   ")
		}
	}
}

// LayoutRequest encodes msg as a request frame and returns the frame and
// its tree: the frame's size prefix, the request header and the body.
func LayoutRequest(msg any, version int16, correlationID int32, clientID *string) ([]byte, *LayoutNode, error) {
	frame, err := AppendRequest(nil, msg, version, correlationID, clientID)
	if err != nil {
		return nil, nil, err
	}
	root, err := TraceRequest(frame, func(int16, int16) (any, error) { return msg, nil })
	return frame, root, err
}

// LayoutResponse is LayoutRequest for a response frame.
func LayoutResponse(msg any, version int16, correlationID int32) ([]byte, *LayoutNode, error) {
	frame, err := AppendResponse(nil, msg, version, correlationID)
	if err != nil {
		return nil, nil, err
	}
	root, err := TraceResponse(frame, msg, version)
	return frame, root, err
}

// TraceRequest returns the tree of a request frame someone else wrote
// (captured traffic, say). newBody is asked for the body struct of the API
// key and version in the header, as with ReadRequest. The trace is a
// decode (the decoder's general path, reporting each value it reads), so
// a frame traces if and only if ReadRequest reads it, and a frame it
// refuses fails with the same error (sentinel, offset and field path),
// naming where the trace stopped.
func TraceRequest(frame []byte, newBody func(apiKey, version int16) (any, error)) (*LayoutNode, error) {
	rest, err := frameBody(frame)
	if err != nil {
		return nil, err
	}
	var h RequestHeader
	hd := decodeState{src: rest}
	if err := hd.readRequestHead(&h); err != nil {
		return nil, headerError("RequestHeader", err)
	}
	body, err := newBody(h.APIKey, h.APIVersion)
	if err != nil {
		return nil, err
	}
	pl, _, err := requestBodyPlan(body, h.APIVersion, "layout", readValue)
	if err != nil {
		return nil, err
	}
	h.Version = pl.reqHeader
	if err := hd.readRequestHeaderRest(&h); err != nil {
		return nil, headerError("RequestHeader", err)
	}
	// The header reader has accepted the header; the trace reads it
	// again only to draw it.
	var t tracer
	d := t.start(frame, pl, h.APIVersion)
	t.open("RequestHeader", fmt.Sprintf("v%d", h.Version), d.off)
	t.fixed(d, "request_api_key", "int16", 2, strconv.Itoa(int(h.APIKey)))
	t.fixed(d, "request_api_version", "int16", 2, strconv.Itoa(int(h.APIVersion)))
	t.fixed(d, "correlation_id", "int32", 4, strconv.Itoa(int(h.CorrelationID)))
	if h.Version >= 1 {
		var clientID *string
		o := fieldPlan{name: "ClientID", kind: kNullString, nullable: true, length: wire.Int16Length, typ: reflect.TypeFor[*string]()}
		if err := d.decodeOrTrace(&o, pointerOf(&clientID), "client_id"); err != nil {
			return nil, headerError("RequestHeader", shiftOffset(within(err, o.name), -wire.FrameSizeLen))
		}
	}
	if h.Version >= 2 {
		t.inHeaderV3 = h.Version >= requestHeaderWithInsID
		if err := d.decodeTaggedFields(&plan{flexible: true}, pointer{}); err != nil {
			return nil, headerError("RequestHeader", shiftOffset(err, -wire.FrameSizeLen))
		}
		t.inHeaderV3 = false
	}
	t.close(d.off)
	return t.finish(d, pl)
}

// TraceResponse returns the tree of a response frame of msg's type (a
// pointer to the response struct) at version, reaching ReadResponse's
// verdict as TraceRequest reaches ReadRequest's.
func TraceResponse(frame []byte, msg any, version int16) (*LayoutNode, error) {
	rest, pl, _, h, err := responseFrame(frame, msg, version, "layout", readValue)
	if err != nil {
		return nil, err
	}
	hd := decodeState{src: rest}
	if err := hd.readResponseHeader(&h); err != nil {
		return nil, headerError("ResponseHeader", err)
	}
	var t tracer
	d := t.start(frame, pl, version)
	t.open("ResponseHeader", fmt.Sprintf("v%d", h.Version), d.off)
	t.fixed(d, "correlation_id", "int32", 4, strconv.Itoa(int(h.CorrelationID)))
	if h.Version >= 1 {
		if err := d.decodeTaggedFields(&plan{flexible: true}, pointer{}); err != nil {
			return nil, headerError("ResponseHeader", shiftOffset(err, -wire.FrameSizeLen))
		}
	}
	t.close(d.off)
	return t.finish(d, pl)
}
