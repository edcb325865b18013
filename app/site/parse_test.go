package site

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// parsedPage is what a test reads back from a page's HTML.
type parsedPage struct {
	root   *html.Node
	facts  [][2]string // dt, dd
	legend []string
	notes  []string
	sides  []parsedSide
	order  []string // the page's parts in document order
}

type parsedSide struct {
	id    string
	size  int
	title string
	cells []parsedCell
	lines []parsedLine
}

type parsedCell struct {
	hex, class, node string
	off              int
}

type parsedLine struct {
	id                string
	start, end, depth int
	text              string
}

func parseFile(t *testing.T, path string) *parsedPage {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	root, err := html.Parse(f)
	require.NoError(t, err, path)
	return parsePage(t, root)
}

func parsePage(t *testing.T, root *html.Node) *parsedPage {
	t.Helper()
	p := &parsedPage{root: root}
	var side *parsedSide
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			cls := attr(n, "class")
			switch {
			case n.Data == "dl" && cls == "facts":
				p.order = append(p.order, "facts")
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode && c.Data == "dt" {
						p.facts = append(p.facts, [2]string{text(c), ""})
					}
					if c.Type == html.ElementNode && c.Data == "dd" {
						p.facts[len(p.facts)-1][1] = text(c)
					}
				}
				return
			case n.Data == "div" && cls == "legend":
				p.order = append(p.order, "legend")
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode {
						p.legend = append(p.legend, attr(c, "class")+":"+text(c))
					}
				}
				return
			case n.Data == "p" && cls == "note":
				p.notes = append(p.notes, text(n))
			case n.Data == "section" && cls == "side":
				p.order = append(p.order, "side "+attr(n, "id"))
				size, err := strconv.Atoi(attr(n, "data-size"))
				require.NoError(t, err)
				p.sides = append(p.sides, parsedSide{id: attr(n, "id"), size: size})
				side = &p.sides[len(p.sides)-1]
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					walk(c)
				}
				side = nil
				return
			case side != nil && n.Data == "h3" && cls == "title":
				p.order = append(p.order, "title")
				side.title = text(n)
			case side != nil && n.Data == "table" && cls == "grid":
				p.order = append(p.order, "grid")
			case side != nil && n.Data == "pre" && cls == "tree":
				p.order = append(p.order, "tree")
			case side != nil && n.Data == "table" && cls == "fields":
				p.order = append(p.order, "schema")
			case side != nil && n.Data == "td" && hasAttr(n, "data-o"):
				off, err := strconv.Atoi(attr(n, "data-o"))
				require.NoError(t, err)
				side.cells = append(side.cells, parsedCell{hex: text(n), class: cls, node: attr(n, "data-n"), off: off})
				return
			case side != nil && n.Data == "span" && cls == "n":
				l := parsedLine{id: attr(n, "id"), text: text(n)}
				var err1, err2, err3 error
				l.start, err1 = strconv.Atoi(attr(n, "data-s"))
				l.end, err2 = strconv.Atoi(attr(n, "data-e"))
				l.depth, err3 = strconv.Atoi(attr(n, "data-d"))
				require.NoError(t, err1)
				require.NoError(t, err2)
				require.NoError(t, err3)
				side.lines = append(side.lines, l)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return p
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

// frameOf is the side's bytes as the grid shows them.
func (s *parsedSide) frameOf(t *testing.T) []byte {
	t.Helper()
	out := make([]byte, 0, len(s.cells))
	for _, c := range s.cells {
		b, err := strconv.ParseUint(c.hex, 16, 8)
		require.NoError(t, err, "cell %d: %q", c.off, c.hex)
		out = append(out, byte(b))
	}
	return out
}
