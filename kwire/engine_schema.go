package kwire

import (
	"reflect"
	"sync"
)

// schemas caches the Schema of each plan; plans are immutable and live
// for the program, so the cache is keyed by their address.
var (
	schemas   sync.Map // *plan -> *Schema
	schemasMu sync.Mutex
)

func schemaOfPlan(pl *plan) *Schema {
	if s, ok := schemas.Load(pl); ok {
		return s.(*Schema)
	}
	schemasMu.Lock()
	defer schemasMu.Unlock()
	building := map[*plan]*Schema{}
	s := buildSchema(pl, building)
	for p, bs := range building {
		schemas.LoadOrStore(p, bs)
	}
	return s
}

// buildSchema converts pl and the plans it contains; building holds the
// schemas under construction, so recursive types end in a cycle of
// pointers rather than an endless descent.
func buildSchema(pl *plan, building map[*plan]*Schema) *Schema {
	if s, ok := schemas.Load(pl); ok {
		return s.(*Schema)
	}
	if s, ok := building[pl]; ok {
		return s
	}
	s := &Schema{Type: pl.typ, Version: pl.version, Flexible: pl.flexible, UnknownTags: -1}
	building[pl] = s
	ti := infoFor(pl.typ)
	if pl.hasUnknown {
		s.UnknownTags = ti.unknown
	}
	s.Fields = make([]Field, 0, len(pl.fields)+len(pl.tagged))
	for _, list := range [][]*fieldPlan{pl.fields, pl.tagged} {
		for _, o := range list {
			f := fieldOfOp(o, building)
			for _, fs := range ti.fields {
				if fs.sf.Name == o.name {
					f.Index = fs.sf.Index[0]
					if fs.tag.defaultRaw != nil {
						f.Default = *fs.tag.defaultRaw
					}
				}
			}
			s.Fields = append(s.Fields, f)
		}
	}
	for i := len(pl.fields); i < len(s.Fields); i++ {
		s.Fields[i].Tag = int(pl.tagged[i-len(pl.fields)].tag)
	}
	return s
}

func fieldOfOp(o *fieldPlan, building map[*plan]*Schema) Field {
	f := Field{Name: o.name, Index: -1, Type: o.typ, Wire: o.wireTypeName(), Tag: -1, Nullable: o.nullable,
		Records: o.records, Ignorable: o.ignorable}
	if wireTypes[o.kind].lengthPrefixed {
		f.Compact = o.compact()
	}
	if o.elem != nil {
		e := fieldOfOp(o.elem, building)
		e.Nullable = false
		f.Elem = &e
	}
	if o.sub != nil {
		f.Struct = buildSchema(o.sub, building)
	}
	return f
}

// schemaValue is the schema of msg (as Walk takes it) at version, and the
// struct msg holds or points to.
func schemaValue(msg any, version int16) (*Schema, reflect.Value, error) {
	pl, p, err := messagePlan(msg, version, "walk", readValue)
	if err != nil {
		return nil, reflect.Value{}, err
	}
	return schemaOfPlan(pl), p.value(pl.typ), nil
}
