package kwire

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
)

// SkipChildren, returned by a Walk function for a struct or array field,
// skips what the field contains; the walk goes on with the next field.
//
//lint:ignore ST1012 a signal to Walk, as fs.SkipDir is to WalkDir, not an error to report
var SkipChildren = errors.New("skip the children of this field")

// Walk calls fn for every field msg has at version, depth first in wire
// order: each field of a struct, then, for a struct or nullable struct,
// its fields, and for an array of structs, the fields of each element.
// Null structs and the elements of arrays of non-structs are not visited.
// fn gets the field's path, its schema and its value; an error from fn
// other than SkipChildren stops the walk and is returned.
func Walk(msg any, version int16, fn func(path *Path, f *Field, v reflect.Value) error) error {
	s, rv, err := schemaValue(msg, version)
	if err != nil {
		return err
	}
	w := walker{fn: fn}
	return w.walkStruct(s, rv)
}

type walker struct {
	fn   func(path *Path, f *Field, v reflect.Value) error
	path Path
}

func (w *walker) walkStruct(s *Schema, sv reflect.Value) error {
	for i := range s.Fields {
		f := &s.Fields[i]
		fv := sv.Field(f.Index)
		w.path.push(f.Name, -1)
		err := w.fn(&w.path, f, fv)
		if err == nil {
			err = w.walkChildren(f, fv)
		} else if err == SkipChildren {
			err = nil
		}
		w.path.pop()
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) walkChildren(f *Field, v reflect.Value) error {
	switch {
	case f.Struct != nil && v.Kind() == reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return w.walkStruct(f.Struct, v.Elem())
	case f.Struct != nil:
		return w.walkStruct(f.Struct, v)
	case f.Elem != nil && f.Elem.Struct != nil:
		for i := 0; i < v.Len(); i++ {
			w.path.push("", i)
			err := w.walkStruct(f.Elem.Struct, v.Index(i))
			w.path.pop()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// Path is where a field sits in a message, such as
// Topics[2].Partitions[0].ErrorCode. Walk reuses one Path for the whole
// walk: call String to keep it.
type Path struct{ steps []pathStep }

type pathStep struct {
	name  string // empty for an array index
	index int
}

func (p *Path) push(name string, index int) { p.steps = append(p.steps, pathStep{name, index}) }
func (p *Path) pop()                        { p.steps = p.steps[:len(p.steps)-1] }

// Depth is the number of struct levels above the field: 0 for a field of
// the message itself.
func (p *Path) Depth() int {
	n := 0
	for _, s := range p.steps {
		if s.name != "" {
			n++
		}
	}
	return n - 1
}

// Names is the path without array indexes, such as Topics.Partitions.ErrorCode.
func (p *Path) Names() string { return p.format(false) }

// String is the path with array indexes, such as Topics[2].Partitions[0].ErrorCode.
func (p *Path) String() string { return p.format(true) }

func (p *Path) format(indexes bool) string {
	var b strings.Builder
	for _, s := range p.steps {
		switch {
		case s.name == "" && indexes:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		case s.name != "":
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		}
	}
	return b.String()
}
