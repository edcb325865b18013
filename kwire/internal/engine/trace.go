package engine

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strconv"

	"github.com/kwirelabs/kwire/internal/gotype"
	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// TraceRequest is kwire.TraceRequest.
func TraceRequest(frame []byte, newBody func(apiKey, version int16) (any, error)) (*public.Node, error) {
	rest, err := frameBody(frame)
	if err != nil {
		return nil, err
	}
	var h public.RequestHeader
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
	h.Version = public.RequestHeaderVersion(h.APIKey, h.APIVersion, pl.flexible)
	if err := hd.readRequestHeaderRest(&h); err != nil {
		return nil, headerError("RequestHeader", err)
	}
	// The header reader has accepted the header; the tracer walks it
	// again only to draw it.
	t := tracer{d: decodeState{src: frame}}
	root := &public.Node{Name: pl.typ.Name(), Type: fmt.Sprintf("message v%d", h.APIVersion), Size: len(frame)}
	root.Children = append(root.Children, t.frameNode())
	hdr := t.open("RequestHeader", fmt.Sprintf("v%d", h.Version))
	t.fixed(hdr, "request_api_key", "int16", 2, strconv.Itoa(int(h.APIKey)))
	t.fixed(hdr, "request_api_version", "int16", 2, strconv.Itoa(int(h.APIVersion)))
	t.fixed(hdr, "correlation_id", "int32", 4, strconv.Itoa(int(h.CorrelationID)))
	if h.Version >= 1 {
		o := fieldPlan{name: "ClientID", kind: kNullString, nullable: true, typ: reflect.TypeFor[*string]()}
		if err := t.value(hdr, &o, "client_id"); err != nil {
			return nil, headerError("RequestHeader", shiftOffset(within(err, o.name), -4))
		}
	}
	if h.Version >= 2 {
		if err := t.tags(hdr, &plan{flexible: true}); err != nil {
			return nil, headerError("RequestHeader", shiftOffset(err, -4))
		}
	}
	t.close(hdr)
	root.Children = append(root.Children, hdr)
	return t.finish(root, pl, h.APIVersion)
}

// TraceResponse is kwire.TraceResponse.
func TraceResponse(frame []byte, msg any, version int16) (*public.Node, error) {
	rest, pl, _, h, err := responseFrame(frame, msg, version, "layout", readValue)
	if err != nil {
		return nil, err
	}
	hd := decodeState{src: rest}
	if err := hd.readResponseHeader(&h); err != nil {
		return nil, headerError("ResponseHeader", err)
	}
	t := tracer{d: decodeState{src: frame}}
	root := &public.Node{Name: pl.typ.Name(), Type: fmt.Sprintf("message v%d", version), Size: len(frame)}
	root.Children = append(root.Children, t.frameNode())
	hdr := t.open("ResponseHeader", fmt.Sprintf("v%d", h.Version))
	t.fixed(hdr, "correlation_id", "int32", 4, strconv.Itoa(int(h.CorrelationID)))
	if h.Version >= 1 {
		if err := t.tags(hdr, &plan{flexible: true}); err != nil {
			return nil, headerError("ResponseHeader", shiftOffset(err, -4))
		}
	}
	t.close(hdr)
	root.Children = append(root.Children, hdr)
	return t.finish(root, pl, version)
}

// finish traces the body and checks that the trace covered the frame.
func (t *tracer) finish(root *public.Node, pl *plan, version int16) (*public.Node, error) {
	body, err := t.body(pl, version)
	if err != nil {
		return nil, t.failed(pl.typ.String(), err)
	}
	root.Children = append(root.Children, body)
	if t.d.off != len(t.d.src) {
		return nil, &public.Error{Op: "layout", Type: pl.typ.String(), Offset: t.d.off, Err: public.ErrTrailingBytes,
			Detail: fmt.Sprintf("%d bytes", len(t.d.src)-t.d.off)}
	}
	return root, nil
}

// failed turns a decoding error met while tracing into an *Error.
func (t *tracer) failed(typ string, err error) error { return publicError("layout", typ, err) }

// tracer walks encoded bytes with a plan and records a node per value.
// Layout is a debugging view, so it favours plain code over speed; every
// check it makes is the decoder's own (presence, arrayLength, tagCount,
// tagHeader, taggedValue, decodeValue for leaves), so the two cannot
// disagree about what is valid.
type tracer struct{ d decodeState }

func (t *tracer) open(name, typ string) *public.Node {
	return &public.Node{Name: name, Type: typ, Offset: t.d.off}
}

func (t *tracer) close(n *public.Node) { n.Size = t.d.off - n.Offset }

func (t *tracer) leaf(parent *public.Node, name, typ, value string, start int) {
	parent.Children = append(parent.Children, &public.Node{Name: name, Type: typ, Value: value, Offset: start, Size: t.d.off - start})
}

func (t *tracer) frameNode() *public.Node {
	n := t.open("Frame", "size-delimited")
	size := int32(binary.BigEndian.Uint32(t.d.src))
	t.fixed(n, "size", "int32", 4, strconv.Itoa(int(size)))
	t.close(n)
	return n
}

func (t *tracer) fixed(parent *public.Node, name, typ string, size int, value string) {
	start := t.d.off
	t.d.off += size
	t.leaf(parent, name, typ, value, start)
}

func (t *tracer) body(pl *plan, version int16) (*public.Node, error) {
	n := t.open(pl.typ.Name(), fmt.Sprintf("struct v%d", version))
	if err := t.structFields(n, pl); err != nil {
		return nil, err
	}
	t.close(n)
	return n, nil
}

func (t *tracer) structFields(n *public.Node, pl *plan) error {
	for _, o := range pl.fields {
		if err := t.value(n, o, o.name); err != nil {
			return within(err, o.name)
		}
	}
	if pl.flexible {
		return t.tags(n, pl)
	}
	return nil
}

// tags records the tagged-field section; known fields get their own node.
func (t *tracer) tags(parent *public.Node, pl *plan) error {
	start := t.d.off
	count, err := t.d.tagCount()
	if err != nil {
		return err
	}
	if count == 0 {
		t.leaf(parent, "tagged_fields", "uvarint", "0", start)
		return nil
	}
	sec := &public.Node{Name: "tagged_fields", Type: "section", Offset: start}
	t.leaf(sec, "count", "uvarint", strconv.Itoa(int(count)), start)
	last := int64(-1)
	for i := uint32(0); i < count; i++ {
		fs := t.d.off
		tag, end, err := t.d.tagHeader(pl, &last)
		if err != nil {
			return err
		}
		f := &public.Node{Name: fmt.Sprintf("tag %d", tag), Type: "tagged field", Offset: fs}
		t.leaf(f, "tag+size", "uvarint,uvarint", fmt.Sprintf("%d, %d", tag, end-t.d.off), fs)
		if o := pl.fieldWithTag(tag); o != nil {
			if err := t.d.taggedValue(o, end, func() error { return t.value(f, o, o.name) }); err != nil {
				return err
			}
		} else {
			vs := t.d.off
			t.d.off = end
			t.leaf(f, "unknown", "bytes", fmt.Sprintf("%x", t.d.src[vs:t.d.off]), vs)
		}
		t.close(f)
		sec.Children = append(sec.Children, f)
	}
	t.close(sec)
	parent.Children = append(parent.Children, sec)
	return nil
}

func (t *tracer) value(parent *public.Node, o *fieldPlan, name string) error {
	if trace := wireTypes[o.kind].trace; trace != nil {
		return trace(t, parent, o, name)
	}
	start := t.d.off
	scratch := reflect.New(o.typ)
	if err := t.d.decodeValue(o, valuePointer(scratch)); err != nil {
		return err
	}
	var value string
	if describe := wireTypes[o.kind].describe; describe != nil {
		value = describe(o, valuePointer(scratch))
	} else {
		value = fmt.Sprint(scratch.Elem().Interface())
	}
	t.leaf(parent, name, o.wireTypeName(), value, start)
	return nil
}

func (t *tracer) structValue(parent *public.Node, o *fieldPlan, name string) error {
	return t.structBody(parent, t.open(name, gotype.Name(o.typ)), o)
}

// structBody traces the fields of struct o into its open node n and adds
// n to parent.
func (t *tracer) structBody(parent, n *public.Node, o *fieldPlan) error {
	n.Value = "struct"
	if err := t.structFields(n, o.sub); err != nil {
		return err
	}
	t.close(n)
	parent.Children = append(parent.Children, n)
	return nil
}

func (t *tracer) nullableStruct(parent *public.Node, o *fieldPlan, name string) error {
	start := t.d.off
	n := t.open(name, gotype.Name(o.typ.Elem()))
	present, err := t.d.presence(o)
	if err != nil {
		return err
	}
	if o.nullable {
		t.leaf(n, "present", "int8", strconv.Itoa(int(int8(t.d.src[start]))), start)
	}
	if !present {
		n.Value = "null"
		t.close(n)
		parent.Children = append(parent.Children, n)
		return nil
	}
	return t.structBody(parent, n, o)
}

func (t *tracer) array(parent *public.Node, o *fieldPlan, name string) error {
	// Containers are labelled by the field and their Go type, leaves by
	// their wire type as Kafka's schemas spell it ([]uuid, uuid[0]).
	typ, elemName := gotype.Name(o.typ), name
	if wireTypes[o.elem.kind].trace == nil {
		typ, elemName = "[]"+o.elem.wireTypeName(), o.elem.wireTypeName()
	}
	n := t.open(name, typ)
	start := t.d.off
	count, err := t.d.arrayLength(o)
	if err != nil {
		return err
	}
	lenType, lenValue := "int32", strconv.Itoa(count)
	if o.compact {
		lenType, lenValue = "uvarint", fmt.Sprintf("%d (compact, n+1)", count+1)
	}
	t.leaf(n, "length", lenType, lenValue, start)
	switch {
	case count < 0:
		n.Value = "null"
	case count == 1:
		n.Value = "1 element"
	default:
		n.Value = fmt.Sprintf("%d elements", count)
	}
	for i := 0; i < count; i++ {
		label := fmt.Sprintf("%s[%d]", elemName, i)
		if err := t.value(n, o.elem, label); err != nil {
			return withinIndex(err, i)
		}
	}
	t.close(n)
	parent.Children = append(parent.Children, n)
	return nil
}

// lenNote shows how the length of a string or bytes value of n bytes
// was written.
func lenNote(o *fieldPlan, n int, wide bool) string {
	switch {
	case o.compact:
		return fmt.Sprintf(" (compact, len+1=%d)", n+1)
	case wide:
		return fmt.Sprintf(" (int32 len=%d)", n)
	}
	return fmt.Sprintf(" (int16 len=%d)", n)
}

func describeString(o *fieldPlan, s string) string {
	return strconv.Quote(s) + lenNote(o, len(s), false)
}

func describeBytes(o *fieldPlan, p pointer) string {
	bs := *p.bytes()
	if bs == nil {
		return "null"
	}
	if o.records {
		return fmt.Sprintf("%d bytes of record batches", len(bs)) + lenNote(o, len(bs), true)
	}
	shown := fmt.Sprintf("%x", bs)
	if len(shown) > 32 {
		shown = shown[:32] + "..."
	}
	return "0x" + shown + lenNote(o, len(bs), true)
}
