// Package site builds kwire's reference pages: for each API and version,
// the smallest legal request and response frame with its byte grid,
// object tree and schema facts, as HTML that works from file://.
package site

import (
	"fmt"
	"reflect"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// Category is what a byte of a frame belongs to; the legend and the grid
// colour by it.
type Category int

const (
	CatFrame Category = iota
	CatHeader
	CatRequestBody
	CatRecordBatch
	CatRecord
	CatResponseBody
	CatTagged
	numCategories
)

// Categories lists every category in legend order.
var Categories = []Category{CatFrame, CatHeader, CatRequestBody, CatRecordBatch, CatRecord, CatResponseBody, CatTagged}

var categoryNames = [numCategories]string{"frame", "rpc header", "request body", "RecordBatch", "Record", "response body", "tagged_fields"}
var categoryClasses = [numCategories]string{"frame", "hdr", "req", "batch", "rec", "resp", "tag"}

func (c Category) String() string { return categoryNames[c] }

// Class is the CSS class of the category.
func (c Category) Class() string { return categoryClasses[c] }

// Side is one frame of a page, the request or the response: its bytes,
// its tree (kwire's layout tree, with records fields opened up into their
// batches) and the category of each byte.
type Side struct {
	Response      bool
	Message       string // Go type name, e.g. ConsumerGroupHeartbeatRequest
	HeaderVersion int16
	Frame         []byte
	Tree          *kwire.LayoutNode
	Cats          []Category    // one per byte of Frame
	Schema        *kwire.Schema // the body at the page's version, as kwire's plan encodes it
	Versions      kwire.VersionRange
	Flexible      kwire.VersionRange
}

// Title is the side's heading, as the reference page words it.
func (s *Side) Title(version int16) string {
	kind := "request"
	if s.Response {
		kind = "response"
	}
	return fmt.Sprintf("%s v%d, %s header v%d, %d bytes on the wire", s.Message, version, kind, s.HeaderVersion, len(s.Frame))
}

// Page is one API at one version.
type Page struct {
	API      messages.API
	Version  int16
	Request  Side
	Response Side
	Notes    []string // where kwire knowingly differs from the reference page
}

// FileName is the page's file name in the site.
func (p *Page) FileName() string { return PageFile(p.API, p.Version) }

// PageFile is the file name of an API's page at a version.
func PageFile(api messages.API, version int16) string {
	return fmt.Sprintf("%s-v%d.html", api.Name, version)
}

// Build makes the page of api at version from the smallest legal request
// and response (kwire.FillMinimal), encoded and traced by kwire.
func Build(api messages.API, version int16) (*Page, error) {
	p := &Page{API: api, Version: version}
	req, err := buildSide(api.NewRequest(), version, false)
	if err != nil {
		return nil, err
	}
	resp, err := buildSide(api.NewResponse(), version, true)
	if err != nil {
		return nil, err
	}
	p.Request, p.Response = *req, *resp
	p.Notes = departures(p)
	return p, nil
}

// BuildSide is one side of a page alone, for `kwire layout`.
func BuildSide(msg any, version int16, response bool) (*Side, error) {
	return buildSide(msg, version, response)
}

func buildSide(msg any, version int16, response bool) (*Side, error) {
	info, err := kwire.MessageInfoOf(msg)
	if err != nil {
		return nil, err
	}
	if err := kwire.FillMinimal(msg, version); err != nil {
		return nil, err
	}
	s := &Side{Response: response, Message: reflect.TypeOf(msg).Elem().Name(),
		Versions: info.Versions, Flexible: info.Flexible}
	if response {
		s.HeaderVersion = info.ResponseHeaders.At(version)
		s.Frame, s.Tree, err = kwire.LayoutResponse(msg, version, 0)
	} else {
		s.HeaderVersion = info.RequestHeaders.At(version)
		empty := ""
		s.Frame, s.Tree, err = kwire.LayoutRequest(msg, version, 0, &empty)
	}
	if err != nil {
		return nil, err
	}
	if err := openRecords(s.Tree, s.Frame); err != nil {
		return nil, fmt.Errorf("%s v%d: %w", s.Message, version, err)
	}
	if s.Schema, err = kwire.SchemaOf(msg, version); err != nil {
		return nil, err
	}
	s.Cats = categorize(s.Tree, len(s.Frame), response)
	return s, nil
}

// categorize gives each byte the category of the deepest node over it.
// The root's children are the frame prefix, the header and the body, in
// that order (kwire's layout tree); tagged-field sections and the nodes
// openRecords adds carry their own category.
func categorize(root *kwire.LayoutNode, n int, response bool) []Category {
	cats := make([]Category, n)
	body := CatRequestBody
	if response {
		body = CatResponseBody
	}
	var paint func(nd *kwire.LayoutNode, c Category)
	paint = func(nd *kwire.LayoutNode, c Category) {
		c = nodeCategory(nd, c)
		for i := nd.Offset; i < nd.Offset+nd.Size && i < n; i++ {
			cats[i] = c
		}
		for _, ch := range nd.Children {
			paint(ch, c)
		}
	}
	for i, ch := range root.Children {
		c := body
		switch i {
		case 0:
			c = CatFrame
		case 1:
			c = CatHeader
		}
		paint(ch, c)
	}
	return cats
}

// nodeCategory is the category of a node whose parent has category c.
func nodeCategory(nd *kwire.LayoutNode, c Category) Category {
	switch {
	case nd.Name == "tagged_fields":
		return CatTagged
	case nd.Type == typeRecordBatch:
		return CatRecordBatch
	case nd.Type == typeRecord:
		return CatRecord
	}
	return c
}
