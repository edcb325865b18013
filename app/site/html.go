package site

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/kwirelabs/kwire/internal/sizes"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

//go:embed page.css
var pageCSS string

// CSS is the style sheet of the site's pages, for other pages of kwire's
// (kwire conform -html) to look like them.
func CSS() template.CSS { return template.CSS(pageCSS) }

//go:embed page.js
var pageJS string

//go:embed page.html.tmpl
var pageTemplateText string

//go:embed index.html.tmpl
var indexTemplateText string

var (
	pageTemplate  = template.Must(template.New("page").Parse(pageTemplateText))
	indexTemplate = template.Must(template.New("index").Parse(indexTemplateText))
)

// RenderOptions says how a page links to the rest of the site.
type RenderOptions struct {
	// Standalone: a page on its own (kwire layout -html), with no links to
	// an index or other versions.
	Standalone bool
	Schemas    *Schemas // nil: kwire's own schema facts only
}

type pageView struct {
	Page       *Page
	Standalone bool
	Facts      []fact
	Legend     []legendItem
	Versions   []versionLink
	Sides      []sideView
	CSS        template.CSS
	JS         template.JS
}

type fact struct{ Name, Value string }

type legendItem struct{ Name, Class string }

type versionLink struct {
	Version  int16
	File     string
	Current  bool
	Unstable bool // the schema marks it under development
}

func encodedAt(p *Page) string {
	if p.Version > p.API.MaxStable() {
		return fmt.Sprintf("v%d (unstable: not offered by default)", p.Version)
	}
	return fmt.Sprintf("v%d", p.Version)
}

type sideView struct {
	ID, Heading, Title string
	Size               int
	Rows               []gridRow
	Lines              []treeLine
	Fields             []fieldRow
	SchemaPath         string
	SchemaJSON         string
}

type gridRow struct {
	Offset string
	Cells  []cell
}

type cell struct {
	Hex, Class, Node string
	Off              int
}

type treeLine struct {
	ID         string
	Start, End int
	Depth      int
	Text       string
	About      string
}

type fieldRow struct {
	Indent                    string
	Name, GoType, Wire, Notes string
}

// WritePage writes the page as HTML.
func WritePage(w io.Writer, p *Page, opts RenderOptions) error {
	v := pageView{Page: p, Standalone: opts.Standalone, CSS: template.CSS(pageCSS), JS: template.JS(pageJS)}
	v.Facts = []fact{
		{"API key", fmt.Sprint(p.API.Key)},
		{"Encoded at", encodedAt(p)},
		{"Flexible versions", p.Request.Flexible.String()},
		{"Headers", fmt.Sprintf("req v%d, resp v%d", p.Request.HeaderVersion, p.Response.HeaderVersion)},
		{"Request versions", p.Request.Versions.String()},
		{"Response versions", p.Response.Versions.String()},
		{"Request size", fmt.Sprintf("%d bytes", len(p.Request.Frame))},
		{"Response size", fmt.Sprintf("%d bytes", len(p.Response.Frame))},
	}
	for _, c := range Categories {
		v.Legend = append(v.Legend, legendItem{c.String(), c.Class()})
	}
	for ver := p.API.MinVersion; ver <= p.API.MaxVersion; ver++ {
		v.Versions = append(v.Versions, versionLink{ver, PageFile(p.API, ver), ver == p.Version, ver > p.API.MaxStable()})
	}
	v.Sides = []sideView{
		sideViewOf(&p.Request, "q", "request", "Request", p.Version, opts.Schemas.lookup(p.API.Key, p.Version, false)),
		sideViewOf(&p.Response, "r", "response", "Response", p.Version, opts.Schemas.lookup(p.API.Key, p.Version, true)),
	}
	return pageTemplate.Execute(w, v)
}

func sideViewOf(s *Side, prefix, id, heading string, version int16, schema *schemaSource) sideView {
	sv := sideView{ID: id, Heading: heading, Title: s.Title(version), Size: len(s.Frame)}
	nodes := flatten(s.Tree)
	// The tree's text is kwire's own (Node.Format), one line a node in
	// the order flatten visits them.
	lines := strings.Split(strings.TrimSuffix(s.Tree.Format(), "\n"), "\n")
	deepest := make([]int, len(s.Frame))
	for i, fn := range nodes {
		tl := treeLine{ID: fmt.Sprintf("%s%d", prefix, i), Start: fn.n.Offset, End: fn.n.Offset + fn.n.Size, Depth: fn.depth}
		if i < len(lines) {
			tl.Text = lines[i]
		}
		if schema != nil && fn.path != "" {
			tl.About = schema.about[fn.path]
		}
		sv.Lines = append(sv.Lines, tl)
		for b := tl.Start; b < tl.End && b < len(deepest); b++ {
			deepest[b] = i // later nodes in pre-order are deeper or to the right
		}
	}
	for row := 0; row < len(s.Frame); row += 16 {
		r := gridRow{Offset: fmt.Sprintf("%04x", row)}
		for i := row; i < row+16 && i < len(s.Frame); i++ {
			r.Cells = append(r.Cells, cell{Hex: fmt.Sprintf("%02x", s.Frame[i]), Class: s.Cats[i].Class(),
				Node: fmt.Sprintf("%s%d", prefix, deepest[i]), Off: i})
		}
		sv.Rows = append(sv.Rows, r)
	}
	sv.Fields = fieldRows(s.Schema, 0, nil)
	if schema != nil {
		sv.SchemaPath, sv.SchemaJSON = schema.path, schema.json
	}
	return sv
}

type flatNode struct {
	n     *kwire.LayoutNode
	depth int
	path  string // lower-case field path in the body, for schema lookups; "" outside it
}

// flatten lists the tree in pre-order, the order LayoutNode.Format prints.
func flatten(root *kwire.LayoutNode) []flatNode {
	var out []flatNode
	var walk func(n *kwire.LayoutNode, depth int, path string, inBody bool)
	walk = func(n *kwire.LayoutNode, depth int, path string, inBody bool) {
		out = append(out, flatNode{n, depth, path})
		for _, c := range n.Children {
			cp := ""
			if inBody {
				cp = path
				if !strings.Contains(c.Name, "[") { // an array element stands for its array
					if cp != "" {
						cp += "/"
					}
					cp += strings.ToLower(c.Name)
				}
			}
			walk(c, depth+1, cp, inBody)
		}
	}
	out = append(out, flatNode{root, 0, ""})
	for i, c := range root.Children {
		// The third child of the root is the body (kwire's layout tree).
		walk(c, 1, "", i == 2)
	}
	return out
}

// maxFieldDepth stops a recursive type (a struct holding itself) from
// filling the table forever.
const maxFieldDepth = 32

// fieldRows is the schema table: a row a field, in wire order then the
// tagged fields, the fields of structs and of arrays of structs indented
// under them.
func fieldRows(s *kwire.Schema, depth int, out []fieldRow) []fieldRow {
	if depth > maxFieldDepth {
		return out
	}
	for _, f := range s.Fields {
		wire, sub := f.Wire, f.Struct
		if f.Elem != nil {
			wire, sub = "array of "+f.Elem.Wire, f.Elem.Struct
		}
		var notes []string
		if f.Compact {
			notes = append(notes, "compact")
		}
		if f.Nullable {
			notes = append(notes, "nullable")
		}
		if f.Tag >= 0 {
			notes = append(notes, fmt.Sprintf("tagged, tag %d", f.Tag))
		}
		if f.Default != "" {
			notes = append(notes, "default "+f.Default)
		}
		if f.Ignorable {
			notes = append(notes, "ignorable")
		}
		out = append(out, fieldRow{Indent: strings.Repeat("\u00a0\u00a0", depth), Name: f.Name, GoType: f.TypeName(),
			Wire: wire, Notes: strings.Join(notes, ", ")})
		if sub != nil {
			out = fieldRows(sub, depth+1, out)
		}
	}
	return out
}

// IndexEntry is one API's row of the index.
type IndexEntry struct {
	Page  *Page // at the newest version
	Files []versionLink
}

// SizeEntry is one row of the index's minimal-sizes table: an API at one
// version.
type SizeEntry struct {
	sizes.Row
	File     string // the version's page
	First    bool   // the API's first version: the row shows its key and name
	Unstable bool
}

// WriteIndex writes index.html: every API with its versions and the
// sizes of its smallest frames at the newest version, then the
// minimal-sizes table, every version of every API.
func WriteIndex(w io.Writer, newest []*Page, table []sizes.Row) error {
	var rows []IndexEntry
	for _, p := range newest {
		e := IndexEntry{Page: p}
		for ver := p.API.MinVersion; ver <= p.API.MaxVersion; ver++ {
			e.Files = append(e.Files, versionLink{Version: ver, File: PageFile(p.API, ver), Unstable: ver > p.API.MaxStable()})
		}
		rows = append(rows, e)
	}
	var sizeRows []SizeEntry
	for i, r := range table {
		e := SizeEntry{Row: r, First: i == 0 || table[i-1].Key != r.Key}
		if api, ok := messages.Lookup(r.Key); ok {
			e.File = PageFile(api, r.Version)
			e.Unstable = r.Version > api.MaxStable()
		}
		sizeRows = append(sizeRows, e)
	}
	return indexTemplate.Execute(w, struct {
		Rows  []IndexEntry
		Sizes []SizeEntry
		CSS   template.CSS
	}{rows, sizeRows, template.CSS(pageCSS)})
}
