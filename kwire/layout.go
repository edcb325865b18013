package kwire

import (
	"fmt"
	"strings"

	"github.com/kwirelabs/kwire/kwire/internal/engine"
	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// Node is one piece of an encoded message as Layout shows it: where it
// sits in the bytes, how long it is, its wire type and its value.
type Node struct {
	Name     string
	Type     string
	Value    string // empty for containers
	Offset   int
	Size     int
	Children []*Node
}

// Format writes the tree as indented text, one node a line, with the
// offset and size of each node.
func (n *Node) Format() string {
	var b strings.Builder
	n.format(&b, "", "")
	return b.String()
}

func (n *Node) format(b *strings.Builder, first, rest string) {
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

// nodeOf copies the engine's tree n (nil for nil).
func nodeOf(n *public.Node) *Node {
	if n == nil {
		return nil
	}
	c := &Node{Name: n.Name, Type: n.Type, Value: n.Value, Offset: n.Offset, Size: n.Size}
	if n.Children != nil {
		c.Children = make([]*Node, len(n.Children))
		for i, child := range n.Children {
			c.Children[i] = nodeOf(child)
		}
	}
	return c
}

// LayoutRequest encodes msg as a request frame and returns the frame and
// its tree: the frame's size prefix, the request header and the body.
func LayoutRequest(msg any, version int16, correlationID int32, clientID *string) ([]byte, *Node, error) {
	frame, err := AppendRequest(nil, msg, version, correlationID, clientID)
	if err != nil {
		return nil, nil, err
	}
	root, err := TraceRequest(frame, func(int16, int16) (any, error) { return msg, nil })
	return frame, root, err
}

// LayoutResponse is LayoutRequest for a response frame.
func LayoutResponse(msg any, version int16, correlationID int32) ([]byte, *Node, error) {
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
func TraceRequest(frame []byte, newBody func(apiKey, version int16) (any, error)) (*Node, error) {
	n, err := engine.TraceRequest(frame, newBody)
	return nodeOf(n), err
}

// TraceResponse returns the tree of a response frame of msg's type (a
// pointer to the response struct) at version, reaching ReadResponse's
// verdict as TraceRequest reaches ReadRequest's.
func TraceResponse(frame []byte, msg any, version int16) (*Node, error) {
	n, err := engine.TraceResponse(frame, msg, version)
	return nodeOf(n), err
}
