package site

import (
	"fmt"
	"strings"

	"github.com/kwirelabs/kwire/internal/sizes"
	"github.com/kwirelabs/kwire/kwire"
)

// departures says where the page knowingly differs from the reference.
func departures(p *Page) []string {
	ref := sizes.Reference // the reference page's API, version and sizes
	if p.API.Key != ref.Key || p.Version != ref.Version {
		return nil
	}
	marker := findNode(p.Response.Tree, func(n *kwire.LayoutNode) bool { return n.Name == "present" })
	if marker == nil || len(p.Response.Frame) == ref.Response {
		return nil
	}
	return []string{fmt.Sprintf("The reference page shows this response as %d bytes; kwire writes %d, "+
		"with the nullable struct %s's presence marker (%02x) at 0x%04x, "+
		"because Kafka writes an int8 marker (1 present, -1 null) before every nullable struct and the page leaves this one out.",
		ref.Response, len(p.Response.Frame), parentName(p.Response.Tree, marker),
		p.Response.Frame[marker.Offset], marker.Offset)}
}

func findNode(n *kwire.LayoutNode, match func(*kwire.LayoutNode) bool) *kwire.LayoutNode {
	if match(n) {
		return n
	}
	for _, c := range n.Children {
		if m := findNode(c, match); m != nil {
			return m
		}
	}
	return nil
}

func parentName(root, child *kwire.LayoutNode) string {
	p := findNode(root, func(n *kwire.LayoutNode) bool {
		for _, c := range n.Children {
			if c == child {
				return true
			}
		}
		return false
	})
	if p == nil {
		return "?"
	}
	return strings.TrimSpace(p.Name)
}
