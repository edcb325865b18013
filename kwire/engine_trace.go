package kwire

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// tracer builds a layout tree from what a decode reports (decodeState's
// trace): each value it reads is a node, a container's parts and
// elements its children. It reads no byte itself but the frame head's,
// which the frame and header readers have checked.
type tracer struct {
	root    *LayoutNode
	stack   []*LayoutNode // the containers being read, innermost last
	version int16
	// inHeaderV3 is set while a request header v3's tagged fields are
	// read, whose ClientInstanceIDTag is a UUID the header names; tag is
	// the tagged field being read.
	inHeaderV3 bool
	tag        uint32
}

// start opens the tree of frame, a message of plan pl at version, and
// its size prefix, and returns the decode that reads on past it.
func (t *tracer) start(frame []byte, pl *plan, version int16) *decodeState {
	t.root = &LayoutNode{Name: pl.typ.Name(), Type: fmt.Sprintf("message v%d", version), Size: len(frame)}
	t.stack, t.version = append(t.stack[:0], t.root), version
	d := &decodeState{src: frame, trace: t}
	t.open("Frame", "size-delimited", 0)
	t.fixed(d, "size", "int32", 4, strconv.Itoa(int(wire.Int32(frame))))
	t.close(d.off)
	return d
}

// finish traces the body, a new value of pl's type, and checks that the
// trace covered the frame.
func (t *tracer) finish(d *decodeState, pl *plan) (*LayoutNode, error) {
	t.open(pl.typ.Name(), fmt.Sprintf("struct v%d", t.version), d.off)
	if err := d.decodeStructGeneral(pl, newValue(pl.rtype)); err != nil {
		return nil, publicError("layout", pl.typ.String(), err)
	}
	t.close(d.off)
	if d.off != len(d.src) {
		return nil, &Error{Op: "layout", Type: pl.typ.String(), Offset: d.off, Err: ErrTrailingBytes,
			Detail: fmt.Sprintf("%d bytes", len(d.src)-d.off)}
	}
	return t.root, nil
}

// traced reads one value of field plan o into fp as decodeByWireType does, and
// records it as a node named name: a leaf with its value shown, or a
// container whose decode reports its parts and elements.
func (d *decodeState) traced(o *fieldPlan, fp pointer, name string) error {
	t, w, start := d.trace, &wireTypes[o.kind], d.off
	if w.traceType != nil {
		t.open(name, w.traceType(o), start)
		if err := d.decodeByWireType(o, fp); err != nil {
			return err
		}
		t.close(d.off)
		return nil
	}
	if err := d.decodeByWireType(o, fp); err != nil {
		return err
	}
	var value string
	if w.describe != nil {
		value = w.describe(o, fp)
	} else {
		value = fmt.Sprint(fp.value(o.typ).Interface())
	}
	t.leaf(name, o.wireTypeName(), value, start, d.off)
	return nil
}

// open starts a container node at offset off, inside the innermost one.
func (t *tracer) open(name, typ string, off int) {
	t.stack = append(t.stack, &LayoutNode{Name: name, Type: typ, Offset: off})
}

// close ends the innermost container at offset end.
func (t *tracer) close(end int) {
	n := t.stack[len(t.stack)-1]
	n.Size = end - n.Offset
	t.stack = t.stack[:len(t.stack)-1]
	parent := t.stack[len(t.stack)-1]
	parent.Children = append(parent.Children, n)
}

// summary sets the innermost container's value.
func (t *tracer) summary(value string) { t.stack[len(t.stack)-1].Value = value }

func (t *tracer) leaf(name, typ, value string, start, end int) {
	parent := t.stack[len(t.stack)-1]
	parent.Children = append(parent.Children, &LayoutNode{Name: name, Type: typ, Value: value, Offset: start, Size: end - start})
}

// fixed records a frame-head field of size bytes that the frame or
// header reader has read, and steps d past it.
func (t *tracer) fixed(d *decodeState, name, typ string, size int, value string) {
	d.off += size
	t.leaf(name, typ, value, d.off-size, d.off)
}

// presence records a nullable struct's presence marker, the bytes b at
// start (none when the struct cannot be null in the version).
func (t *tracer) presence(o *fieldPlan, b []byte, start int) {
	if o.nullable {
		t.leaf("present", "int8", strconv.Itoa(int(int8(b[0]))), start, start+len(b))
	}
}

// arrayLength records array o's length, n elements (-1: null), read from
// start to end.
func (t *tracer) arrayLength(o *fieldPlan, n, start, end int) {
	lenType, lenValue := o.length.String(), strconv.Itoa(n)
	if o.compact() {
		lenValue = fmt.Sprintf("%d (compact, n+1)", n+1)
	}
	t.leaf("length", lenType, lenValue, start, end)
	switch {
	case n < 0:
		t.summary("null")
	case n == 1:
		t.summary("1 element")
	default:
		t.summary(fmt.Sprintf("%d elements", n))
	}
}

// elemName names element i of the innermost container, an array: by the
// array's name for containers, by their wire type for leaves
// (Topics[0], uuid[0]).
func (t *tracer) elemName(o *fieldPlan, i int) string {
	name := t.stack[len(t.stack)-1].Name
	if wireTypes[o.elem.kind].traceType == nil {
		name = o.elem.wireTypeName()
	}
	return fmt.Sprintf("%s[%d]", name, i)
}

// tagSection records a tagged-field section's count, read from start to
// end: a leaf when it is 0, else a section node the fields go into (the
// decode closes it after the last).
func (t *tracer) tagSection(count uint32, start, end int) {
	if count == 0 {
		t.leaf("tagged_fields", "uvarint", "0", start, end)
		return
	}
	t.open("tagged_fields", "section", start)
	t.leaf("count", "uvarint", strconv.Itoa(int(count)), start, end)
}

// taggedField opens the node of a tagged field whose tag and size were
// read from start to at, its value ending at end.
func (t *tracer) taggedField(tag uint32, start, at, end int) {
	t.tag = tag
	t.open(fmt.Sprintf("tag %d", tag), "tagged field", start)
	t.leaf("tag+size", "uvarint,uvarint", fmt.Sprintf("%d, %d", tag, end-at), start, at)
}

// unknownTag records the value of a tagged field the struct does not
// declare, the bytes b at start.
func (t *tracer) unknownTag(b []byte, start int) {
	if t.inHeaderV3 && t.tag == ClientInstanceIDTag && len(b) == len(UUID{}) {
		t.leaf("client_instance_id", "uuid", UUID(b).String(), start, start+len(b))
		return
	}
	t.leaf("unknown", "bytes", fmt.Sprintf("%x", b), start, start+len(b))
}

// lenNote shows how the length of a string or bytes value of n bytes
// was written.
func lenNote(o *fieldPlan, n int) string {
	if o.compact() {
		return fmt.Sprintf(" (compact, len+1=%d)", n+1)
	}
	return fmt.Sprintf(" (%s len=%d)", o.length, n)
}

func describeString(o *fieldPlan, s string) string {
	return strconv.Quote(s) + lenNote(o, len(s))
}

func describeBytes(o *fieldPlan, p pointer) string {
	bs := *p.bytes()
	if bs == nil {
		return "null"
	}
	if o.records {
		return fmt.Sprintf("%d bytes of record batches", len(bs)) + lenNote(o, len(bs))
	}
	shown := fmt.Sprintf("%x", bs)
	if len(shown) > 32 {
		shown = shown[:32] + "..."
	}
	return "0x" + shown + lenNote(o, len(bs))
}

// goTypeName spells a Go type without its package, as traces and
// Field.TypeName show it: []T, *T, T; an unnamed type as Go spells it.
func goTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		return "[]" + goTypeName(t.Elem())
	case reflect.Pointer:
		return "*" + goTypeName(t.Elem())
	}
	if t.Name() == "" && t.Kind() == reflect.Struct {
		return "struct" // a struct built at run time would print every field and tag
	}
	if t.Name() == "" {
		return t.String()
	}
	return t.Name()
}
