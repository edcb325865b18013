package interop

import (
	"math"
	"math/rand"
	"reflect"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kwireField is one field's `kafka:"..."` tag, read here independently of
// the codec so that the filler decides versions, nulls and tags itself.
type kwireField struct {
	versions, nullable, tagged kwire.VersionRange
	tag                        int
	records                    bool
}

func parseKwireField(sf reflect.StructField) (kwireField, bool) {
	raw, ok := sf.Tag.Lookup("kafka")
	if !ok || raw == "-" || sf.Name == "_" {
		return kwireField{}, false
	}
	f := kwireField{versions: kwire.NoVersions, nullable: kwire.NoVersions, tagged: kwire.NoVersions, tag: -1}
	for _, item := range strings.Split(raw, ",") {
		key, val, _ := strings.Cut(strings.TrimSpace(item), "=")
		switch key {
		case "v":
			f.versions = mustRange(val)
		case "nullable":
			f.nullable = mustRange(val)
		case "tagged":
			f.tagged = mustRange(val)
		case "tag":
			f.tag = atoi(val)
		case "records":
			f.records = true
		}
	}
	return f, true
}

func mustRange(s string) kwire.VersionRange {
	r, err := kwire.ParseVersionRange(s)
	if err != nil {
		panic(err)
	}
	return r
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

var (
	unknownTagsType = reflect.TypeFor[kwire.UnknownTags]()
	kmsgTagsType    = reflect.TypeOf(kmsg.Tags{})
	bytesType       = reflect.TypeOf([]byte(nil))
)

// callDefault runs the Default method of the struct at addressable rv, if
// it has one (kwire's generated structs and kmsg's both do).
func callDefault(rv reflect.Value) {
	if m := rv.Addr().MethodByName("Default"); m.IsValid() && m.Type().NumIn() == 0 {
		m.Call(nil)
	}
}

// rnd draws the random values both fillers use: numbers biased to edges
// and negatives, strings of mixed length and script, arrays from empty to
// long-ish under a budget that keeps one instance a few KiB.
type rnd struct {
	*rand.Rand
	budget int // array elements left for this instance
}

func newRnd(seed int64) *rnd { return &rnd{Rand: rand.New(rand.NewSource(seed)), budget: 600} }

func (r *rnd) int64Of(bits uint) int64 {
	min, max := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
	switch r.Intn(10) {
	case 0:
		return 0
	case 1:
		return -1
	case 2:
		return min
	case 3:
		return max
	case 4, 5:
		return int64(r.Intn(21)) - 10
	default:
		return int64(r.Uint64()) >> (64 - bits) // arithmetic shift: signed, full range
	}
}

func (r *rnd) uint64Of(bits uint) uint64 {
	switch r.Intn(6) {
	case 0:
		return 0
	case 1:
		return 1<<bits - 1
	default:
		return r.Uint64() >> (64 - bits)
	}
}

func (r *rnd) float() float64 {
	switch r.Intn(8) {
	case 0:
		return 0
	case 1:
		return -r.Float64() * 1e9
	case 2:
		return math.Inf(1 - 2*r.Intn(2))
	case 3:
		return math.Float64frombits(0x7ff8000000000000 | r.Uint64()>>13) // a NaN with a payload
	default:
		return r.NormFloat64() * 1000
	}
}

var runePool = []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._ é中🙂")

func (r *rnd) str() string {
	n := r.Intn(12)
	switch r.Intn(10) {
	case 0:
		n = 0
	case 1:
		n = 50 + r.Intn(300)
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(runePool[r.Intn(len(runePool))])
	}
	return b.String()
}

func (r *rnd) bytes() []byte {
	n := r.Intn(24)
	if r.Intn(10) == 0 {
		n = 200 + r.Intn(800)
	}
	b := make([]byte, n)
	r.Read(b)
	return b
}

func (r *rnd) records(nullable bool) []byte {
	switch r.Intn(4) {
	case 0:
		if nullable {
			return nil
		}
		return []byte{}
	case 1:
		return kwire.EmptyRecordBatch()
	default:
		return r.bytes()
	}
}

// arrayLen picks a length: empty, short, or long-ish for leaf arrays near
// the top, bounded by the instance's budget.
func (r *rnd) arrayLen(depth int) int {
	var n int
	switch k := r.Intn(20); {
	case k < 4:
		n = 0
	case k < 16:
		n = 1 + r.Intn(3)
	case k < 19:
		n = 4 + r.Intn(max(1, 30>>depth))
	default:
		n = 128 + r.Intn(64) // a compact length needs two uvarint bytes
	}
	if n > r.budget {
		n = r.budget
	}
	r.budget -= n
	return n
}

func (r *rnd) chance(n int) bool { return r.Intn(n) == 0 }

// unknownTags returns a few tagged fields no schema declares. They use
// tag numbers above every known tag, so kmsg (which writes its known tags
// first, then the unknown ones) and kwire (which merges them in order)
// agree on the order.
func (r *rnd) unknownTags() []kwire.TaggedField {
	if !r.chance(5) {
		return nil
	}
	var out []kwire.TaggedField
	tag := uint32(1000)
	for i, n := 0, 1+r.Intn(3); i < n; i++ {
		tag += 1 + uint32(r.Intn(5000))
		d := make([]byte, r.Intn(10))
		r.Read(d)
		out = append(out, kwire.TaggedField{Tag: tag, Data: d})
	}
	return out
}

// fillScalar sets a number, bool, string or UUID field of either library.
func (r *rnd) fillScalar(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int8:
		v.SetInt(r.int64Of(8))
	case reflect.Int16:
		v.SetInt(r.int64Of(16))
	case reflect.Int32:
		v.SetInt(r.int64Of(32))
	case reflect.Int64:
		v.SetInt(r.int64Of(64))
	case reflect.Uint8:
		v.SetUint(r.uint64Of(8))
	case reflect.Uint16:
		v.SetUint(r.uint64Of(16))
	case reflect.Uint32:
		v.SetUint(r.uint64Of(32))
	case reflect.Float64:
		v.SetFloat(r.float())
	case reflect.Bool:
		v.SetBool(r.Intn(2) == 0)
	case reflect.String:
		v.SetString(r.str())
	case reflect.Array: // UUID
		if !r.chance(4) {
			r.Read(v.Slice(0, v.Len()).Bytes())
		}
	default:
		return false
	}
	return true
}

// ---- kwire random instances ----

// kwireFiller fills a kwire message at one version, reading the tags:
// fields off the wire keep their defaults, nulls only where nullable,
// tagged fields randomly set or left at their default.
type kwireFiller struct {
	*rnd
	version int16
	flex    bool
}

func (f *kwireFiller) fillStruct(rv reflect.Value, depth int) {
	callDefault(rv)
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Type == unknownTagsType {
			if f.flex {
				rv.Field(i).Set(reflect.ValueOf(kwire.NewUnknownTags(f.unknownTags()...)))
			}
			continue
		}
		kf, ok := parseKwireField(sf)
		if !ok || !kf.versions.Contains(f.version) {
			continue
		}
		if kf.tagged.Contains(f.version) && f.chance(2) {
			continue // leave the tagged field at its default: not written
		}
		f.fillValue(rv.Field(i), kf, kf.nullable.Contains(f.version), depth)
	}
}

func (f *kwireFiller) fillValue(v reflect.Value, kf kwireField, nullable bool, depth int) {
	if f.fillScalar(v) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if nullable && f.chance(5) {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		if p.Elem().Kind() == reflect.String {
			p.Elem().SetString(f.str())
		} else {
			f.fillStruct(p.Elem(), depth+1)
		}
		v.Set(p)
	case reflect.Struct:
		f.fillStruct(v, depth+1)
	case reflect.Slice:
		if v.Type() == bytesType {
			switch {
			case kf.records:
				v.SetBytes(f.records(nullable))
			case nullable && f.chance(5):
				v.SetZero()
			default:
				v.SetBytes(f.bytes())
			}
			return
		}
		if nullable && f.chance(6) {
			v.SetZero()
			return
		}
		n := f.arrayLen(depth)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			f.fillValue(s.Index(i), kwireField{}, false, depth)
		}
		v.Set(s)
	default:
		panic("kwire filler: unhandled type " + v.Type().String())
	}
}

// ---- kmsg random instances ----

// kwireTagged lists a kwire message's tagged fields by nesting depth and
// tag number, so the kmsg filler can learn in which versions a kmsg tagged
// field exists (kmsg's source does not say).
type taggedKey struct{ depth, tag int }

type taggedField struct {
	name   string
	tagged kwire.VersionRange
}

func kwireTaggedFields(t reflect.Type) map[taggedKey][]taggedField {
	out := map[taggedKey][]taggedField{}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || t == reflect.TypeOf(kwire.UUID{}) {
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			kf, ok := parseKwireField(sf)
			if !ok {
				continue
			}
			if kf.tag >= 0 {
				k := taggedKey{depth, kf.tag}
				out[k] = append(out[k], taggedField{sf.Name, kf.tagged})
			}
			walk(sf.Type, depth+1)
		}
	}
	walk(t, 0)
	return out
}

func normName(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

// kmsgFiller fills a kmsg message at one version by reflection, using the
// version comments of kmsg's source. kmsg writes a nil pointer or slice
// as empty in versions where null is not allowed, so nil is drawn freely.
type kmsgFiller struct {
	*rnd
	version int16
	flex    bool
	meta    map[string]kmsgFieldMeta
	tagged  map[taggedKey][]taggedField // the kwire side's tagged fields
}

func (f *kmsgFiller) taggedIn(name string, depth, tag int) bool {
	cands := f.tagged[taggedKey{depth, tag}]
	for _, c := range cands {
		if len(cands) == 1 || normName(c.name) == normName(name) {
			return c.tagged.Contains(f.version)
		}
	}
	return false // unknown to kwire: leave at its default
}

func (f *kmsgFiller) fillStruct(rv reflect.Value, depth int) {
	callDefault(rv)
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() || (depth == 0 && sf.Name == "Version") {
			continue
		}
		if sf.Type == kmsgTagsType {
			if f.flex {
				var tags kmsg.Tags
				for _, u := range f.unknownTags() {
					tags.Set(u.Tag, u.Data)
				}
				rv.Field(i).Set(reflect.ValueOf(tags))
			}
			continue
		}
		m := kmsgField(f.meta, t, sf)
		if !m.versions.Contains(f.version) {
			continue
		}
		if m.tag >= 0 && (!f.flex || !f.taggedIn(sf.Name, depth, m.tag) || f.chance(2)) {
			continue
		}
		f.fillValue(rv.Field(i), t, sf, depth)
	}
}

func (f *kmsgFiller) fillValue(v reflect.Value, parent reflect.Type, sf reflect.StructField, depth int) {
	if f.fillScalar(v) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if f.chance(5) {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		if p.Elem().Kind() == reflect.String {
			p.Elem().SetString(f.str())
		} else {
			f.fillStruct(p.Elem(), depth+1)
		}
		v.Set(p)
	case reflect.Struct:
		f.fillStruct(v, depth+1)
	case reflect.Slice:
		if v.Type() == bytesType {
			switch {
			case isKmsgRecords(parent, sf):
				v.SetBytes(f.records(true))
			case f.chance(5):
				v.SetZero()
			default:
				v.SetBytes(f.bytes())
			}
			return
		}
		if f.chance(6) {
			v.SetZero()
			return
		}
		n := f.arrayLen(depth)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			f.fillValue(s.Index(i), parent, sf, depth)
		}
		v.Set(s)
	default:
		panic("kmsg filler: unhandled type " + v.Type().String())
	}
}

// kmsgRecordsFields are kmsg's []byte fields that hold record batches
// (Kafka's "records" type). kmsg gives them no type of their own; the
// differential test checks this list against kwire's `records` tags.
var kmsgRecordsFields = map[string]bool{
	"ProduceRequestTopicPartition.Records":      true,
	"FetchResponseTopicPartition.RecordBatches": true,
	"FetchSnapshotResponseTopicPartition.Bytes": true,
	"ShareFetchResponseTopicPartition.Records":  true,
}

func isKmsgRecords(parent reflect.Type, sf reflect.StructField) bool {
	return sf.Type == bytesType && kmsgRecordsFields[parent.Name()+"."+sf.Name]
}

// ---- kmsg smallest instances ----

// kmsgMinimal fills a kmsg message the way kwire.FillMinimal fills a
// kwire one: after Default, every field that is not tagged gets zero, the
// empty string (also behind a pointer), empty bytes, exactly one element
// per array, a present nullable struct, or one empty RecordBatch for
// records. Tagged fields keep kmsg's defaults. kmsg skips the fields a
// version lacks when it encodes, so they are filled regardless.
func kmsgMinimal(rv reflect.Value, meta map[string]kmsgFieldMeta, depth int) {
	callDefault(rv)
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Type == kmsgTagsType || (depth == 0 && sf.Name == "Version") {
			continue
		}
		if kmsgField(meta, t, sf).tag >= 0 {
			continue
		}
		kmsgMinimalValue(rv.Field(i), t, sf, meta, depth)
	}
}

func kmsgMinimalValue(v reflect.Value, parent reflect.Type, sf reflect.StructField, meta map[string]kmsgFieldMeta, depth int) {
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if p.Elem().Kind() == reflect.Struct {
			kmsgMinimal(p.Elem(), meta, depth+1)
		}
		v.Set(p)
	case reflect.Struct:
		kmsgMinimal(v, meta, depth+1)
	case reflect.Slice:
		if v.Type() == bytesType {
			if isKmsgRecords(parent, sf) {
				v.SetBytes(kwire.EmptyRecordBatch())
			} else {
				v.SetBytes([]byte{})
			}
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		kmsgMinimalValue(s.Index(0), parent, sf, meta, depth)
		v.Set(s)
	default:
		v.SetZero()
	}
}
