package main

import (
	"fmt"
	"strings"

	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
)

// byteSpan is a run of a frame's bytes, [start, end).
type byteSpan struct{ start, end int }

// blankSecrets replaces in tree the values trafficlog keeps out of logs
// (msg is the frame's body, decoded) by their length, and returns where
// their bytes are in the frame so the hex dump can blank them too. A
// secret it cannot place in the tree is an error: the tree is then not
// shown rather than shown with the secret.
func blankSecrets(tree *kwire.LayoutNode, msg any) ([]byteSpan, error) {
	secrets := trafficlog.SecretFields(msg)
	if len(secrets) == 0 {
		return nil, nil
	}
	if len(tree.Children) == 0 {
		return nil, fmt.Errorf("decode: the tree has no body to hide secrets in (-show-secrets shows it as it is)")
	}
	byPath := map[string]*kwire.LayoutNode{}
	indexNodes(tree.Children[len(tree.Children)-1], "", byPath)
	var spans []byteSpan
	for _, s := range secrets {
		n, ok := byPath[s.Path]
		if !ok || s.Len > n.Size {
			return nil, fmt.Errorf("decode: the secret field %s is not where the tree has it (-show-secrets shows the tree as it is)", s.Path)
		}
		n.Value = fmt.Sprintf("<redacted %d bytes>", s.Len)
		n.Children = nil
		// A string or bytes value ends its node, after its length.
		spans = append(spans, byteSpan{n.Offset + n.Size - s.Len, n.Offset + n.Size})
	}
	return spans, nil
}

// indexNodes records the nodes under n by their path as trafficlog names
// fields (Tokens[2].Hmac): array elements add their index, and a tagged
// field sits at the path of the struct it belongs to.
func indexNodes(n *kwire.LayoutNode, path string, byPath map[string]*kwire.LayoutNode) {
	for _, c := range n.Children {
		if c.Name == "tagged_fields" || c.Type == "tagged field" {
			indexNodes(c, path, byPath)
			continue
		}
		p := c.Name
		if i := strings.IndexByte(c.Name, '['); i >= 0 && strings.HasSuffix(c.Name, "]") {
			p = path + c.Name[i:]
		} else if path != "" {
			p = path + "." + c.Name
		}
		if _, dup := byPath[p]; !dup {
			byPath[p] = c
		}
		indexNodes(c, p, byPath)
	}
}
