package kwire

import (
	"fmt"
	"strings"
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
