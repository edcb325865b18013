package kwire

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// defaultValue is a field's schema default, parsed for its kind.
type defaultValue struct {
	null bool
	i    int64
	f    float64
	b    bool
	s    string
}

// fieldPlan is one field (or array element) of a plan at one version. The
// fields the hot loops read come first, the ones for errors and defaults
// last.
type fieldPlan struct {
	// What the hot loops read.
	kind     kind
	records  bool
	nullable bool // null is legal in this version
	// length is the form of the length before a string, byte string or
	// array (0 for the other kinds), chosen once here: every reader and
	// writer of the field takes it from the plan.
	length wire.LengthForm

	ignorable bool
	// nonZeroDefault is set when decoding must store def rather than
	// leave the Go zero value.
	nonZeroDefault bool
	tag            uint32
	elemMinWire    int32      // kArray: fewest wire bytes of one element
	runSize        int32      // kFixedRun: total wire size of the run
	offset         uintptr    // in the struct
	elem           *fieldPlan // kArray: the element, at offset 0
	elemSize       uintptr    // kArray: element stride
	sub            *plan      // kStruct, kStructPtr

	run []runField // kFixedRun: the fields in wire order, for errors
	// elemType is the runtime type of T for a kArray of T: decoding
	// allocates the elements through it (engine_pointer.go).
	elemType goType
	name     string
	typ      reflect.Type // the Go type of the field
	def      defaultValue
}

// runField is one fixed-width field inside a kFixedRun field plan.
type runField struct {
	offset uintptr // in the struct
	at     int     // in the run's bytes
	kind   kind
	name   string
}

// plan is how to encode and decode one struct type at one version.
type plan struct {
	typ      reflect.Type
	rtype    goType // typ's runtime type, for allocating one (engine_pointer.go)
	apiKey   int16  // from the struct's own tag, -1 if none
	version  int16
	flexible bool
	// The header versions this version travels with as a request and as
	// a response: the struct's table (header_versions.go), the one place
	// a header version is chosen.
	reqHeader, respHeader int16
	// ops holds each field plan of the plan once (see storeOps): the declared
	// fields and the kFixedRun ops fused from them. The views below are
	// into it.
	ops []fieldPlan
	// fused is ops[:len(fused)]: the fields on the wire, untagged, with
	// each stretch of fixed-width fields fused into one kFixedRun field
	// plan, what encode, decode and size run. Instruction i of prog
	// compiles fused[i].
	fused  []fieldPlan
	fields []*fieldPlan // on the wire in this version, not tagged, in order
	tagged []*fieldPlan // tagged in this version, ascending tag
	absent []*fieldPlan // declared but not on the wire in this version
	// defaults are the fields whose default is not the Go zero value:
	// set before decoding, so absent fields and tagged fields not sent
	// hold their schema default.
	defaults []*fieldPlan
	// allDefaults is every field with a non-zero default, for giving a
	// whole struct its defaults.
	allDefaults []*fieldPlan
	// flatDefaults is defaults flattened to stores, nested structs
	// included; the decoder runs its fixed part as defaultStores.
	flatDefaults flatDefaults
	// clears is what decoding a message of this plan clears first
	// (engine_reset.go).
	clears       []clearSlot
	inactiveTags []uint32 // tags declared for other versions: an error on the wire
	hasUnknown   bool
	unknownOff   uintptr
	minWire      int // fewest bytes one instance takes on the wire

	// Compiled from the above (engine_program.go): fused as instructions, and
	// flat default checks of the tagged fields and of the absent ones
	// that are not ignorable, when every one of them has a flat form.
	prog             []instr
	tagChecks        []defaultCheck
	absentChecks     []defaultCheck
	tagChecksFlat    bool
	absentChecksFlat bool
	skipAbsent       bool // no absent field needs a check
	tail             tail
	// defaultStores is flatDefaults.fixed compiled for decodeStruct;
	// hasDefaults says there is anything in flatDefaults at all.
	defaultStores defaultStores
	hasDefaults   bool
	// strHint is what the last decode of this message used of strings,
	// packed by packStrings: the bytes (at most strChunk) and whether it
	// took a *string target. The next decode allocates its first string
	// chunk of that size, and shape, before reading a byte.
	strHint atomic.Int32
}

// packStrings packs a decode's string use into a plan's strHint.
func packStrings(bytes int, ptr bool) int32 {
	h := int32(min(bytes, strChunk)) << 1
	if ptr {
		h |= 1
	}
	return h
}

// noteStrings records that a decode of this message used n string bytes,
// ptr saying whether it took a *string target. It writes only on a
// change, so that decoders on many cores do not all write the shared plan.
func (pl *plan) noteStrings(n int, ptr bool) {
	if h := packStrings(n, ptr); n > 0 && pl.strHint.Load() != h {
		pl.strHint.Store(h)
	}
}

// typeInfo is what kwire knows of one struct type, for every version: its
// parsed tags and, once built, its plans. It is the entry of the plan
// cache (engine_cache.go).
type typeInfo struct {
	typ     reflect.Type
	msg     messageTag
	fields  []fieldSpec
	err     error
	unknown int // index of the UnknownTags field or -1

	// validOnce checks the type as a top-level message at every version
	// it declares, the first time it is used as one.
	validOnce sync.Once
	validErr  error

	// ptrType is *T's runtime type: how the hot front (engine_cache.go) knows a
	// message passed by pointer.
	ptrType goType
	// plans is every plan built, by version and flexibility; roots holds
	// the ones rootPlan has checked as a top-level message's, as the hot
	// front reads them. See engine_cache.go.
	plans atomic.Pointer[[]planSlots]
	roots atomic.Pointer[rootPlans]
}

// unknownTagsType is the type of a field that keeps unknown tagged fields.
var unknownTagsType = reflect.TypeFor[UnknownTags]()

type fieldSpec struct {
	sf  reflect.StructField
	tag fieldTag
}

func parseType(t reflect.Type) *typeInfo {
	ti := &typeInfo{typ: t, ptrType: runtimeType(reflect.PointerTo(t)), unknown: -1, msg: messageTag{apiKey: -1, versions: AllVersions, flexible: NoVersions}}
	ti.msg.request, ti.msg.response = ti.msg.headersOf()
	fail := func(f reflect.StructField, err *tagError) *typeInfo {
		err.typ, err.field = t, f.Name
		ti.err = err
		return ti
	}
	hasMsgTag := false
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, ok, err := kafkaTag(f)
		if err != nil {
			return fail(f, keyError("", "malformed struct tag: %v", err))
		}
		if f.Name == "_" {
			if ok {
				if hasMsgTag {
					return fail(f, keyError("", "a second message tag (one _ field carries api, versions and flexible)"))
				}
				var terr *tagError
				if ti.msg, terr = parseMessageTag(tag); terr != nil {
					return fail(f, terr)
				}
				hasMsgTag = true
			}
			continue
		}
		if f.Type == unknownTagsType {
			switch {
			case !f.IsExported():
				return fail(f, keyError("", "an unexported UnknownTags field is never filled: export it"))
			case ok:
				return fail(f, keyError("", "an UnknownTags field takes no kafka tag"))
			case ti.unknown >= 0:
				return fail(f, keyError("", "a second UnknownTags field"))
			}
			ti.unknown = i
			continue
		}
		if !ok || tag.Name == "-" {
			switch {
			case f.Name == "UnknownTags" && !ok:
				return fail(f, keyError("", "type %s: a field named UnknownTags must have type kwire.UnknownTags", f.Type))
			case f.IsExported() && !ok:
				// A forgotten tag would otherwise drop the field from the wire unseen.
				return fail(f, keyError("", "an exported field without a kafka tag is never on the wire: tag it (v=0+), or write kafka:\"-\" to keep it off"))
			}
			continue
		}
		if !f.IsExported() {
			return fail(f, keyError("", "unexported field has a kafka tag"))
		}
		ft, terr := parseFieldTag(tag)
		if terr != nil {
			return fail(f, terr)
		}
		ti.fields = append(ti.fields, fieldSpec{sf: f, tag: ft})
	}
	if hasMsgTag {
		for _, fs := range ti.fields {
			if r := fs.tag.versions; !r.Empty() && (r.Min > ti.msg.versions.Max || r.Max < ti.msg.versions.Min) {
				e := keyError("v", "v=%s is outside the message's versions=%s", r, ti.msg.versions)
				e.version = r.Min
				return fail(fs.sf, e)
			}
		}
	}
	return ti
}

// planFor returns the plan of struct type t at version v, building and
// caching it on first use.
func planFor(t reflect.Type, v int16, flex bool) (*plan, error) {
	ti := infoFor(t)
	if ti.err != nil {
		return nil, ti.err
	}
	if p := ti.cached(v, flex); p != nil {
		return p, nil
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	b := builder{building: map[buildKey]*plan{}}
	p, err := b.build(ti, v, flex)
	if err != nil {
		return nil, err
	}
	for _, bp := range b.building {
		bp.minWire = computeMinWire(bp, map[*plan]bool{})
		flattenDefaults(bp.defaults, 0, &bp.flatDefaults)
		compileProgram(bp)
	}
	for _, bp := range b.building {
		bp.clears = resetList(bp, 0, nil)
	}
	for _, bp := range b.building {
		for i := range bp.ops {
			setElemMinWire(&bp.ops[i])
		}
	}
	for k, bp := range b.building {
		infoFor(k.t).publish(k.v, k.flex, bp)
	}
	return p, nil
}

type buildKey struct {
	t    reflect.Type
	v    int16
	flex bool
}

// builder builds the plans for a type and the types it contains. Plans
// under construction are visible to themselves, so recursive types work.
type builder struct {
	building map[buildKey]*plan
}

func (b *builder) build(ti *typeInfo, v int16, flex bool) (*plan, error) {
	if ti.err != nil {
		return nil, ti.err
	}
	key := buildKey{ti.typ, v, flex}
	if p, ok := b.building[key]; ok {
		return p, nil
	}
	if p := ti.cached(v, flex); p != nil {
		return p, nil
	}
	p := &plan{typ: ti.typ, rtype: runtimeType(ti.typ), apiKey: ti.msg.apiKey, version: v, flexible: flex,
		reqHeader: ti.msg.request.At(v), respHeader: ti.msg.response.At(v)}
	b.building[key] = p
	if ti.unknown >= 0 {
		p.hasUnknown = true
		p.unknownOff = ti.typ.Field(ti.unknown).Offset
	}
	d := declared{ops: make([]fieldPlan, 0, len(ti.fields))}
	for _, fs := range ti.fields {
		o, err := b.resolveField(ti, fs, v, flex)
		if err != nil {
			return nil, err
		}
		i := len(d.ops)
		switch {
		case !fs.tag.versions.Contains(v):
			d.absent = append(d.absent, i)
			if o.nonZeroDefault {
				d.defaults = append(d.defaults, i)
			}
			if fs.tag.tag >= 0 {
				p.inactiveTags = append(p.inactiveTags, uint32(fs.tag.tag))
			}
		case fs.tag.tagged.Contains(v):
			if !flex {
				return nil, &tagError{typ: ti.typ, field: fs.sf.Name, key: "tagged", version: v,
					msg: "tagged in a version that is not flexible (tagged fields exist only in flexible versions)"}
			}
			o.tag = uint32(fs.tag.tag)
			d.tagged = append(d.tagged, i)
			if o.nonZeroDefault {
				d.defaults = append(d.defaults, i)
			}
		default:
			if fs.tag.tag >= 0 {
				p.inactiveTags = append(p.inactiveTags, uint32(fs.tag.tag))
			}
			d.onWire = append(d.onWire, i)
		}
		d.ops = append(d.ops, o)
		if o.nonZeroDefault {
			d.allDefaults = append(d.allDefaults, i)
			// A type that contains itself sees, while it is built, the
			// non-zero defaults of the fields declared so far: kStruct's
			// nonZeroDefault reads len(sub.allDefaults). d.ops does not
			// grow past its capacity, so these pointers hold until
			// storeOps points allDefaults into p.ops.
			p.allDefaults = append(p.allDefaults, &d.ops[i])
		}
	}
	p.storeOps(&d)
	sort.SliceStable(p.tagged, func(i, j int) bool { return p.tagged[i].tag < p.tagged[j].tag })
	for i := 1; i < len(p.tagged); i++ {
		if p.tagged[i].tag == p.tagged[i-1].tag {
			return nil, &tagError{typ: ti.typ, field: p.tagged[i].name, key: "tag", version: v,
				msg: fmt.Sprintf("tag %d is also the tag of %s", p.tagged[i].tag, p.tagged[i-1].name)}
		}
	}
	return p, nil
}

// resolveField resolves one field at version v. Every check that depends on
// the version is here, so that building a type's plans at each version
// where its tags change finds every mistake (see validateRoot).
func (b *builder) resolveField(ti *typeInfo, fs fieldSpec, v int16, flex bool) (fieldPlan, error) {
	t := fs.tag
	fail := func(key, format string, args ...any) (fieldPlan, error) {
		at := v
		if !t.versions.Empty() && t.versions.Min > v {
			at = t.versions.Min // the first version the field is on the wire
		}
		return fieldPlan{}, &tagError{typ: ti.typ, field: fs.sf.Name, key: key, version: at, msg: fmt.Sprintf(format, args...)}
	}
	o := fieldPlan{
		name:      fs.sf.Name,
		offset:    fs.sf.Offset,
		typ:       fs.sf.Type,
		records:   t.records,
		nullable:  t.nullable.Contains(v),
		ignorable: t.ignorable,
	}
	compact := flex
	if t.compact != nil {
		compact = t.compact.Contains(v)
	}
	if t.tagged.Contains(v) {
		compact = true // tagged fields only exist in flexible versions
	}
	if err := b.resolveKind(&o, fs.sf.Type, t, v, flex, compact); err != nil {
		if te, ok := err.(*tagError); ok && te.typ != nil {
			return fieldPlan{}, err // a mistake inside a nested type: it names itself
		}
		if ke, ok := err.(*tagError); ok {
			return fail(ke.key, "%s", ke.msg)
		}
		return fail("", "%v", err)
	}
	switch {
	case o.nullable && !wireTypes[o.kind].canBeNull:
		return fail("nullable", "type %s cannot be null (null needs *string, []byte, a slice or a pointer to a struct)", fs.sf.Type)
	case t.nullable.Contains(v) && !t.versions.Contains(v) && v < t.versions.Min:
		return fieldPlan{}, &tagError{typ: ti.typ, field: fs.sf.Name, key: "nullable", version: v,
			msg: fmt.Sprintf("nullable=%s starts before the field is on the wire (v=%s)", t.nullable, t.versions)}
	case t.tagged.Contains(v) && !t.versions.Contains(v):
		return fieldPlan{}, &tagError{typ: ti.typ, field: fs.sf.Name, key: "tagged", version: v,
			msg: fmt.Sprintf("tagged=%s reaches a version the field is not on the wire in (v=%s)", t.tagged, t.versions)}
	case t.compact != nil && !wireTypes[o.kind].lengthPrefixed:
		return fail("compact", "type %s has no length to make compact (compact is for strings, bytes and arrays)", fs.sf.Type)
	case t.compact != nil && t.compact.Contains(v) && !flex && t.versions.Contains(v):
		return fail("compact", "compact in a version that is not flexible (Kafka writes compact lengths only in flexible versions)")
	case t.compact != nil && !o.compact() && flex && o.kind == kArray && t.versions.Contains(v):
		return fail("compact", "compact=%s leaves the array non-compact in a flexible version (an array is compact in every flexible version; only strings and bytes opt out)", t.compact)
	}
	if t.defaultRaw != nil {
		d, err := parseDefault(&o, *t.defaultRaw)
		if err != nil {
			return fail("default", "%v", err)
		}
		o.def = d
		if d.null && !o.nullable && t.versions.Contains(v) {
			return fail("default", "null, but the field is not nullable in this version (nullable= must hold wherever the field is on the wire)")
		}
	}
	o.nonZeroDefault = hasNonZeroDefault(&o)
	return o, nil
}

// lengthFormOf is the length form of kind k: compact in a flexible
// version (or where the tag asks), else an int16 before a string and an
// int32 before a byte string or an array; 0 for a kind without a length.
func lengthFormOf(k kind, compact bool) wire.LengthForm {
	switch {
	case !wireTypes[k].lengthPrefixed:
		return 0
	case compact:
		return wire.CompactLength
	case k == kString || k == kNullString:
		return wire.Int16Length
	}
	return wire.Int32Length
}

// compact reports whether o's length is compact.
func (o *fieldPlan) compact() bool { return o.length == wire.CompactLength }

// resolveKind sets o.kind (and elem or sub) from Go type gt, and the
// form of its length: compact, or the kind's classic one.
func (b *builder) resolveKind(o *fieldPlan, gt reflect.Type, t fieldTag, v int16, flex, compact bool) error {
	k, ok := kindOf(gt, t)
	if !ok {
		switch gt.Kind() {
		case reflect.Array:
			return fmt.Errorf("unsupported array type %s (only kwire.UUID)", gt)
		case reflect.Pointer:
			return fmt.Errorf("unsupported pointer type %s", gt)
		}
		return fmt.Errorf("unsupported Go type %s", gt)
	}
	o.kind = k
	o.length = lengthFormOf(k, compact)
	w := &wireTypes[k]
	if missing := w.lacks(); len(missing) > 0 {
		return fmt.Errorf("wire type %s lacks %s", w.name, strings.Join(missing, ", "))
	}
	if t.records && !w.accepts("records") {
		return keyError("records", "records needs a []byte field, not %s", gt)
	}
	if w.resolve != nil {
		if err := w.resolve(b, o, gt, t, v, flex); err != nil {
			return err
		}
	}
	if (t.varint && !w.accepts("varint")) || (t.uvarint && !w.accepts("uvarint")) {
		key, want := "varint", "int32 or int64"
		if t.uvarint {
			key, want = "uvarint", "uint32 or int32"
		}
		return keyError(key, "%s on %s (it applies to %s, or a slice of them)", key, gt, want)
	}
	return nil
}

func (b *builder) resolveStruct(o *fieldPlan, gt reflect.Type, _ fieldTag, v int16, flex bool) (err error) {
	o.sub, err = b.build(infoFor(gt), v, flex)
	return err
}

func (b *builder) resolveStructPtr(o *fieldPlan, gt reflect.Type, t fieldTag, v int16, flex bool) error {
	return b.resolveStruct(o, gt.Elem(), t, v, flex)
}

func (b *builder) resolveArray(o *fieldPlan, gt reflect.Type, t fieldTag, v int16, flex bool) error {
	elem := &fieldPlan{name: o.name, typ: gt.Elem()}
	// Element flags: the wire form of an element follows the
	// field's varint/uvarint keys; null elements are not a thing.
	et := fieldTag{varint: t.varint, uvarint: t.uvarint}
	if err := b.resolveKind(elem, gt.Elem(), et, v, flex, o.compact()); err != nil {
		return err
	}
	if wireTypes[elem.kind].notAnElement {
		return fmt.Errorf("%s: arrays of nullable elements are not part of the protocol", gt)
	}
	o.elem = elem
	o.elemSize = gt.Elem().Size()
	o.elemType = runtimeType(gt.Elem())
	return nil
}

// computeMinWire sums the smallest wire size of each field; a type that
// contains itself counts its inner occurrences as zero.
func computeMinWire(pl *plan, visiting map[*plan]bool) int {
	if visiting[pl] {
		return 0
	}
	visiting[pl] = true
	defer delete(visiting, pl)
	n := 0
	if pl.flexible {
		n = 1
	}
	subMin := func(sub *plan) int { return computeMinWire(sub, visiting) }
	for _, o := range pl.fields {
		n += wireTypes[o.kind].minWire(o, subMin)
	}
	return n
}

// declared is a plan's fields in declaration order, and the plan's views
// as indices into them, while the plan is built.
type declared struct {
	ops                                           []fieldPlan
	onWire, tagged, absent, defaults, allDefaults []int
}

// storeOps lays out p.ops, each field plan once: first fused, the fields on the
// wire with each stretch of two or more fixed-width fields fused into one
// kFixedRun field plan, so that the hot loops check room and dispatch once per
// stretch rather than once per field; then the fields inside those runs,
// the tagged fields and the absent ones. The views point into it.
func (p *plan) storeOps(d *declared) {
	decl, onWire := d.ops, d.onWire
	var fused []fieldPlan
	var inRuns []int
	at := make([]int, len(decl)) // where decl[i] goes in p.ops
	for i := 0; i < len(onWire); {
		j := i
		for j < len(onWire) && decl[onWire[j]].kind.fixedSize() > 0 {
			j++
		}
		if j-i < 2 {
			at[onWire[i]] = len(fused)
			fused = append(fused, decl[onWire[i]])
			i++
			continue
		}
		run := fieldPlan{name: decl[onWire[i]].name, kind: kFixedRun}
		for _, k := range onWire[i:j] {
			f := &decl[k]
			run.run = append(run.run, runField{offset: f.offset, at: int(run.runSize), kind: f.kind, name: f.name})
			run.runSize += int32(f.kind.fixedSize())
		}
		fused = append(fused, run)
		inRuns = append(inRuns, onWire[i:j]...)
		i = j
	}
	p.ops = make([]fieldPlan, 0, len(fused)+len(inRuns)+len(d.tagged)+len(d.absent))
	p.ops = append(p.ops, fused...)
	for _, list := range [][]int{inRuns, d.tagged, d.absent} {
		for _, i := range list {
			at[i] = len(p.ops)
			p.ops = append(p.ops, decl[i])
		}
	}
	p.fused = p.ops[:len(fused):len(fused)]
	view := func(list []int) []*fieldPlan {
		if len(list) == 0 {
			return nil
		}
		v := make([]*fieldPlan, len(list))
		for k, i := range list {
			v[k] = &p.ops[at[i]]
		}
		return v
	}
	p.fields, p.tagged, p.absent = view(onWire), view(d.tagged), view(d.absent)
	p.defaults, p.allDefaults = view(d.defaults), view(d.allDefaults)
}

// setElemMinWire records, for arrays (and arrays of arrays), the smallest
// wire size of an element, which bounds the lengths decode accepts.
func setElemMinWire(o *fieldPlan) {
	for ; o != nil && o.elem != nil; o = o.elem {
		o.elemMinWire = int32(o.elem.minWire())
	}
}
