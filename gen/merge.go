package gen

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Message is one schema merged across the schema directories: every
// version is defined by the highest-precedence source that lists it.
type Message struct {
	Name     string // schema name, e.g. ProduceRequest
	Type     string // request, response, header, data
	APIKey   int    // -1 for headers and data
	Min, Max int
	Flexible vset
	// Headers[v] is the header version version v travels with (requests
	// and responses; -1 below Min and for the others): the defining
	// source's headerVersions, or derived as Kafka did.
	Headers  []int
	Unstable bool // the schema marks its latest version unstable
	Fields   []*MField
	Commons  []*MStruct // merged commonStructs, in the newest source's order

	Sources []*Schema // lowest precedence first
	def     []int     // def[v]: index in Sources defining version v (-1 below Min)
}

// MField is a merged field. Its version sets are per version: Present[v]
// says whether the field is on the wire in version v.
type MField struct {
	Name       string // schema name
	Type       string // schema type from the newest source, e.g. "[]TopicData"
	Present    vset
	Nullable   vset
	Tagged     vset
	Tag        int64 // -1 unless tagged
	Compact    vset  // only when HasCompact: the field's own flexibleVersions
	HasCompact bool
	Default    *string
	Ignorable  bool
	MapKey     bool     // the key of its array's elements (a fact kept in the extract)
	Struct     *MStruct // the struct type of a struct or []struct field

	GoName string
	suffix string // set when a same-named field of another type exists
}

// MStruct is a merged struct type (inline or common).
type MStruct struct {
	SchemaName string // the struct type's name in the schema
	Common     bool
	Fields     []*MField

	GoName string
	parent *MStruct // containing struct (nil for commons and top level)
	field  *MField  // the field this inline struct is the type of
}

// vset is a set of versions, indexed by version.
type vset []bool

func (s vset) empty() bool {
	for _, b := range s {
		if b {
			return false
		}
	}
	return true
}

// bounds returns the lowest and highest member and whether the members
// form one contiguous range.
func (s vset) bounds() (lo, hi int, contiguous bool) {
	lo, hi = -1, -1
	for v, b := range s {
		if b {
			if lo < 0 {
				lo = v
			}
			hi = v
		}
	}
	if lo < 0 {
		return lo, hi, true
	}
	for v := lo; v <= hi; v++ {
		if !s[v] {
			return lo, hi, false
		}
	}
	return lo, hi, true
}

// format writes the set in the tag grammar; a range reaching max is N+.
func (s vset) format(max int) string {
	lo, hi, _ := s.bounds()
	switch {
	case lo < 0:
		return "none"
	case hi == max:
		return strconv.Itoa(lo) + "+"
	case lo == hi:
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

func (s vset) equal(t vset) bool {
	for i := 0; i < len(s) || i < len(t); i++ {
		if (i < len(s) && s[i]) != (i < len(t) && t[i]) {
			return false
		}
	}
	return true
}

// Warning is something the merge noticed and handled; the CLI prints them.
type Warning string

// merger merges one message's sources.
type merger struct {
	m        *Message
	warnings *[]Warning
}

// src pairs a source index with one of its field lists.
type src struct {
	idx    int
	fields []*Field
}

// entry collects one field's definitions in the sources.
type entry struct {
	name string
	kind string // type with struct names erased: "int32", "[]struct"
	defs []srcField
}

type srcField struct {
	idx int
	f   *Field
}

// Merge merges the definitions of one schema name, lowest precedence
// first.
func Merge(sources []*Schema) (*Message, []Warning, error) {
	if len(sources) == 0 {
		return nil, nil, fmt.Errorf("no sources")
	}
	top := sources[len(sources)-1]
	m := &Message{Name: top.Name, Type: top.Type, APIKey: -1, Sources: sources}
	for _, s := range sources {
		if s.Type != top.Type {
			return nil, nil, fmt.Errorf("%s is a %s in %s but a %s in %s", top.Name, s.Type, s.Path, top.Type, top.Path)
		}
		if (s.APIKey == nil) != (top.APIKey == nil) || s.APIKey != nil && *s.APIKey != *top.APIKey {
			return nil, nil, fmt.Errorf("%s: apiKey differs between %s and %s", top.Name, s.Path, top.Path)
		}
	}
	if top.APIKey != nil {
		m.APIKey = int(*top.APIKey)
	}
	maxV := -1
	for _, s := range sources {
		if !s.valid.none {
			maxV = max(maxV, s.valid.hi)
		}
	}
	if maxV < 0 {
		return nil, nil, fmt.Errorf("%s: no source defines a version", top.Name)
	}
	m.def = make([]int, maxV+1)
	m.Min = -1
	for v := range m.def {
		m.def[v] = -1
		for i := len(sources) - 1; i >= 0; i-- {
			if sources[i].valid.contains(v) {
				m.def[v] = i
				break
			}
		}
		if m.def[v] >= 0 && m.Min < 0 {
			m.Min = v
		}
		if m.Min >= 0 && m.def[v] < 0 {
			return nil, nil, fmt.Errorf("%s: version %d is in no source but lies between valid versions", m.Name, v)
		}
	}
	m.Max = maxV
	m.Flexible = m.newSet()
	for v := m.Min; v <= m.Max; v++ {
		m.Flexible[v] = sources[m.def[v]].flexible.contains(v)
	}
	if _, _, ok := m.Flexible.bounds(); !ok {
		return nil, nil, fmt.Errorf("%s: merged flexible versions are not one range", m.Name)
	}
	m.Unstable = sources[m.def[m.Max]].LatestVersionUnstable
	m.Headers = make([]int, m.Max+1)
	for v := range m.Headers {
		m.Headers[v] = -1
		if v >= m.Min && (m.Type == "request" || m.Type == "response") {
			m.Headers[v] = sources[m.def[v]].headerAt(v)
		}
	}

	var warnings []Warning
	mg := &merger{m: m, warnings: &warnings}

	// Common structs first, so fields can point at them.
	commons := map[string]*MStruct{}
	var names []string
	seen := map[string]bool{}
	for i := len(sources) - 1; i >= 0; i-- {
		if !mg.used(i) {
			continue
		}
		for _, c := range sources[i].CommonStructs {
			if !seen[c.Name] {
				seen[c.Name] = true
				names = append(names, c.Name)
			}
		}
	}
	for _, name := range names {
		commons[name] = &MStruct{SchemaName: name, Common: true}
	}
	for _, name := range names {
		var srcs []src
		for i, s := range sources {
			if c := s.commons[name]; c != nil && mg.used(i) {
				srcs = append(srcs, src{i, c.Fields})
			}
		}
		ms := commons[name]
		fields, err := mg.mergeFields(srcs, name, ms, commons)
		if err != nil {
			return nil, nil, err
		}
		ms.Fields = fields
		m.Commons = append(m.Commons, ms)
	}
	var srcs []src
	for i, s := range sources {
		if mg.used(i) {
			srcs = append(srcs, src{i, s.Fields})
		}
	}
	fields, err := mg.mergeFields(srcs, m.Name, nil, commons)
	if err != nil {
		return nil, nil, err
	}
	m.Fields = fields
	// Drop commons no field uses in any version.
	used := map[*MStruct]bool{}
	var mark func([]*MField)
	mark = func(fs []*MField) {
		for _, f := range fs {
			if f.Struct != nil && !used[f.Struct] {
				used[f.Struct] = true
				mark(f.Struct.Fields)
			}
		}
	}
	mark(m.Fields)
	kept := m.Commons[:0]
	for _, c := range m.Commons {
		if used[c] {
			kept = append(kept, c)
		}
	}
	m.Commons = kept
	return m, warnings, nil
}

func (m *Message) newSet() vset { return make(vset, m.Max+1) }

// used reports whether source i defines any version.
func (g *merger) used(i int) bool {
	for _, d := range g.m.def {
		if d == i {
			return true
		}
	}
	return false
}

// definesWithout reports whether source i defines a version of the
// message in which field f is absent.
func (g *merger) definesWithout(i int, f *Field) bool {
	for v, d := range g.m.def {
		if d == i && !f.versions.contains(v) {
			return true
		}
	}
	return false
}

func (g *merger) warn(format string, args ...any) {
	*g.warnings = append(*g.warnings, Warning(fmt.Sprintf(format, args...)))
}

// kind erases struct names from a type: "[]TopicData" gives "[]struct".
func kind(t string) string {
	et, arr := elemType(t)
	if !primitives[et] {
		et = "struct"
	}
	if arr {
		return "[]" + et
	}
	return et
}

// mergeFields merges the field lists srcs (lowest precedence first) of
// one struct. Fields match by name and kind; the newest source gives the
// order, and a field only older sources have goes after the field that
// precedes it there.
func (g *merger) mergeFields(srcs []src, where string, parent *MStruct, commons map[string]*MStruct) ([]*MField, error) {
	m := g.m
	var order []*entry
	find := func(name, k string) int {
		for i, e := range order {
			if e.name == name && e.kind == k {
				return i
			}
		}
		return -1
	}
	for j := len(srcs) - 1; j >= 0; j-- {
		s := srcs[j]
		pos := 0
		for _, f := range s.fields {
			present := false
			for v := m.Min; v <= m.Max; v++ {
				if m.def[v] == s.idx && f.versions.contains(v) {
					present = true
					break
				}
			}
			if !present {
				continue
			}
			k := kind(f.Type)
			if i := find(f.Name, k); i >= 0 {
				order[i].defs = append(order[i].defs, srcField{s.idx, f})
				pos = i + 1
				continue
			}
			e := &entry{name: f.Name, kind: k, defs: []srcField{{s.idx, f}}}
			order = append(order, nil)
			copy(order[pos+1:], order[pos:])
			order[pos] = e
			pos++
		}
	}
	var out []*MField
	byName := map[string][]*MField{}
	for _, e := range order {
		f, err := g.mergeField(e, where, parent, commons)
		if err != nil {
			return nil, err
		}
		byName[f.Name] = append(byName[f.Name], f)
		out = append(out, f)
	}
	done := map[string]bool{}
	for _, f := range out {
		fs := byName[f.Name]
		if len(fs) < 2 || done[f.Name] {
			continue
		}
		done[f.Name] = true
		// Same name, different types: the one reaching the highest
		// version keeps the name, the others get a suffix naming their
		// first version.
		sort.SliceStable(fs, func(i, j int) bool {
			_, hi, _ := fs[i].Present.bounds()
			_, hj, _ := fs[j].Present.bounds()
			return hi > hj
		})
		for _, o := range fs[1:] {
			lo, _, _ := o.Present.bounds()
			o.suffix = fmt.Sprintf("V%d", lo)
		}
		g.warn("%s.%s has different types across sources (%s); kept as separate fields", where, f.Name, fieldKinds(fs))
	}
	return out, nil
}

func fieldKinds(fs []*MField) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s in %s", f.Type, f.Present.format(len(f.Present)-1)))
	}
	return strings.Join(parts, ", ")
}

func (g *merger) mergeField(e *entry, where string, parent *MStruct, commons map[string]*MStruct) (*MField, error) {
	m := g.m
	path := where + "." + e.name
	newest := e.defs[0] // defs run newest first
	f := &MField{
		Name: e.name, Type: newest.f.Type, Tag: -1,
		Present: m.newSet(), Nullable: m.newSet(), Tagged: m.newSet(), Compact: m.newSet(),
		Default: newest.f.defaultText, Ignorable: newest.f.Ignorable, MapKey: newest.f.MapKey,
	}
	for _, d := range e.defs {
		sf := d.f
		contributes, tagged := false, false
		for v := m.Min; v <= m.Max; v++ {
			if m.def[v] != d.idx || !sf.versions.contains(v) {
				continue
			}
			contributes = true
			f.Present[v] = true
			f.Nullable[v] = sf.nullable.contains(v)
			f.Tagged[v] = sf.tagged.contains(v)
			tagged = tagged || f.Tagged[v]
			if sf.flexible != nil {
				f.HasCompact = true
				f.Compact[v] = sf.flexible.contains(v)
			} else {
				f.Compact[v] = m.Flexible[v]
			}
		}
		if !contributes {
			continue
		}
		if tagged {
			if f.Tag >= 0 && f.Tag != *sf.tag {
				return nil, fmt.Errorf("%s: tag %d in %s but %d in a newer source", path, *sf.tag, m.Sources[d.idx].Path, f.Tag)
			}
			f.Tag = *sf.tag
		}
		if d.idx != newest.idx {
			if (sf.defaultText == nil) != (f.Default == nil) || sf.defaultText != nil && *sf.defaultText != *f.Default {
				g.warn("%s: default %s in %s differs from the newer %s; the newer one is used", path, showDefault(sf.defaultText), m.Sources[d.idx].Path, showDefault(f.Default))
			}
			// Ignorable only matters where the field is absent: a
			// difference counts if this source defines such a version.
			if sf.Ignorable != f.Ignorable && g.definesWithout(d.idx, sf) {
				g.warn("%s: ignorable=%v in %s differs from the newer %v; the newer one is used", path, sf.Ignorable, m.Sources[d.idx].Path, f.Ignorable)
			}
		}
	}
	for name, s := range map[string]vset{"versions": f.Present, "nullable versions": f.Nullable, "tagged versions": f.Tagged, "flexible versions": f.Compact} {
		if _, _, ok := s.bounds(); !ok {
			return nil, fmt.Errorf("%s: merged %s %v are not one range", path, name, s)
		}
	}
	if !f.HasCompact {
		f.Compact = nil
	}
	et, _ := elemType(f.Type)
	if primitives[et] {
		return f, nil
	}
	// A struct field: inline (fields given) or a common struct.
	inline := len(newest.f.Fields) > 0
	for _, d := range e.defs[1:] {
		if (len(d.f.Fields) > 0) != inline {
			return nil, fmt.Errorf("%s: struct is inline in one source and common in another", path)
		}
	}
	if !inline {
		f.Struct = commons[et]
		if f.Struct == nil {
			return nil, fmt.Errorf("%s: unknown struct %s", path, et)
		}
		for _, d := range e.defs[1:] {
			if t, _ := elemType(d.f.Type); t != et {
				return nil, fmt.Errorf("%s: refers to common struct %s in one source and %s in another", path, et, t)
			}
		}
		return f, nil
	}
	ms := &MStruct{SchemaName: et, parent: parent, field: f}
	var srcs []src
	for i := len(e.defs) - 1; i >= 0; i-- {
		srcs = append(srcs, src{e.defs[i].idx, e.defs[i].f.Fields})
	}
	fields, err := g.mergeFields(srcs, path, ms, commons)
	if err != nil {
		return nil, err
	}
	ms.Fields = fields
	f.Struct = ms
	return f, nil
}

func showDefault(d *string) string {
	if d == nil {
		return "(none)"
	}
	return strconv.Quote(*d)
}
