package gen

import (
	"fmt"
	"go/token"
	"reflect"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// LoadAPIs reads schema directories as kwire gen does (lowest precedence
// first) and builds, at run time, the structs kwire gen would write for
// each request and response pair: the same fields, the same kafka tags,
// so kwire encodes and decodes them as it does generated structs. The
// result is ready for messages.Registry.Register: a tool can decode an
// API (a vendor's, a future Kafka's) from its schemas without compiling
// Go for it.
//
// The structs are anonymous: %T prints their fields, not a name. Their
// NewRequest and NewResponse return zero values, not schema defaults
// (there is no Default method); a decode fills absent fields with the
// defaults all the same. A request or response without its other half is
// an error here, where kwire gen only warns.
func LoadAPIs(dirs ...string) ([]messages.API, error) {
	msgs, _, err := MergeDirs(dirs)
	if err != nil {
		return nil, err
	}
	if err := checkHeaderWire(msgs); err != nil {
		return nil, err
	}
	apis, lones, err := pairAPIs(msgs)
	if err != nil {
		return nil, err
	}
	if len(lones) > 0 {
		l := lones[0]
		return nil, fmt.Errorf("%s: API key %d has a %s and no %s", sourcePaths(l), l.APIKey, l.Type,
			map[string]string{"request": "response", "response": "request"}[l.Type])
	}
	var out []messages.API
	for _, a := range apis {
		rq, err := runtimeType(a.req)
		if err != nil {
			return nil, err
		}
		rs, err := runtimeType(a.resp)
		if err != nil {
			return nil, err
		}
		if a.key > 1<<15-1 || a.max > 1<<15-1 {
			return nil, fmt.Errorf("%s: API key %d or version %d exceeds int16", sourcePaths(a.req), a.key, a.max)
		}
		out = append(out, messages.API{
			Key: int16(a.key), Name: a.name,
			MinVersion: int16(a.min), MaxVersion: int16(a.max), FlexibleFrom: int16(a.flexFrom),
			LatestVersionUnstable: a.req.Unstable || a.resp.Unstable,
			NewRequest:            func() any { return reflect.New(rq).Interface() },
			NewResponse:           func() any { return reflect.New(rs).Interface() },
		})
	}
	return out, nil
}

// checkHeaderWire checks the set's RequestHeader and ResponseHeader, when
// it has them, against the headers kwire reads: request header v0-v3,
// v3 being v2 and a tagged uuid ClientInstanceId at
// kwire.ClientInstanceIDTag (KIP-1313), response header v0-v1. The APIs'
// header tables were checked against the set's headers (checkHeaders):
// this is where a set whose headers kwire would misread is refused.
func checkHeaderWire(msgs []*Message) error {
	for _, m := range msgs {
		switch {
		case m.Type != "header":
		case m.Name == "ResponseHeader" && m.Max > 1:
			return fmt.Errorf("%s: ResponseHeader has versions up to %d; kwire reads 0-1", sourcePaths(m), m.Max)
		case m.Name == "RequestHeader" && m.Max > 3:
			return fmt.Errorf("%s: RequestHeader has versions up to %d; kwire reads 0-3", sourcePaths(m), m.Max)
		case m.Name == "RequestHeader" && m.Max == 3:
			var added []*MField
			for _, f := range m.Fields {
				if f.Present[3] && !f.Present[2] {
					added = append(added, f)
				}
			}
			if len(added) != 1 || added[0].Name != "ClientInstanceId" || added[0].Type != "uuid" || !added[0].Tagged[3] || added[0].Tag != kwire.ClientInstanceIDTag {
				return fmt.Errorf("%s: RequestHeader v3 must be v2 and a tagged uuid ClientInstanceId at tag %d, which is what kwire reads (KIP-1313)", sourcePaths(m), kwire.ClientInstanceIDTag)
			}
		}
	}
	return nil
}

// sourcePaths names the files a message was merged from.
func sourcePaths(m *Message) string {
	paths := make([]string, len(m.Sources))
	for i, s := range m.Sources {
		paths[i] = s.Path
	}
	return strings.Join(paths, ", ")
}

// runtimeType builds the struct type of message m with reflect.StructOf.
// Errors name the schema files.
func runtimeType(m *Message) (t reflect.Type, err error) {
	b := &typeBuilder{m: m, built: map[*MStruct]reflect.Type{}, building: map[*MStruct]bool{}}
	t, err = b.structType(m.Name, m.Fields, true)
	if err == nil {
		// The same check Register makes, here so the error names the file.
		err = kwire.Validate(t)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", sourcePaths(m), err)
	}
	return t, nil
}

// typeBuilder builds one message's struct types; identical structs are
// identical reflect types already, as StructOf returns one type per shape.
type typeBuilder struct {
	m        *Message
	built    map[*MStruct]reflect.Type
	building map[*MStruct]bool // on the path from the top, to refuse a struct holding itself
}

var (
	uuidType    = reflect.TypeFor[kwire.UUID]()
	unknownTags = reflect.TypeFor[kwire.UnknownTags]()
	primitiveGo = map[string]reflect.Type{
		"bool": reflect.TypeFor[bool](), "int8": reflect.TypeFor[int8](), "int16": reflect.TypeFor[int16](),
		"uint16": reflect.TypeFor[uint16](), "int32": reflect.TypeFor[int32](), "uint32": reflect.TypeFor[uint32](),
		"int64": reflect.TypeFor[int64](), "float64": reflect.TypeFor[float64](), "string": reflect.TypeFor[string](),
		"bytes": reflect.TypeFor[[]byte](), "records": reflect.TypeFor[[]byte](), "uuid": uuidType,
	}
)

func (b *typeBuilder) structType(where string, fields []*MField, top bool) (reflect.Type, error) {
	var sfs []reflect.StructField
	if top {
		// An unexported blank field carries the message tag, as in
		// generated code; StructOf accepts it given a package path.
		sfs = append(sfs, reflect.StructField{Name: "_", PkgPath: "github.com/kwirelabs/kwire/gen",
			Type: reflect.TypeFor[struct{}](), Tag: reflect.StructTag(`kafka:"` + messageTag(b.m) + `"`)})
	}
	flexible := !b.m.Flexible.empty()
	names := map[string]bool{}
	for _, f := range fields {
		name := f.goFieldName()
		path := where + "." + f.Name
		if !token.IsIdentifier(name) || !token.IsExported(name) {
			return nil, fmt.Errorf("%s: %q is not an exported Go name", path, name)
		}
		if names[name] || name == "UnknownTags" && flexible {
			return nil, fmt.Errorf("%s: field name %s is taken", path, name)
		}
		names[name] = true
		typ, err := b.fieldType(path, f)
		if err != nil {
			return nil, err
		}
		tag, err := fieldTag(b.m, f)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		sfs = append(sfs, reflect.StructField{Name: name, Type: typ, Tag: reflect.StructTag(`kafka:"` + tag + `"`)})
	}
	if flexible {
		sfs = append(sfs, reflect.StructField{Name: "UnknownTags", Type: unknownTags})
	}
	return reflect.StructOf(sfs), nil
}

func (b *typeBuilder) fieldType(path string, f *MField) (reflect.Type, error) {
	et, shape, err := shapeOf(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var t reflect.Type
	if et != "" {
		t = primitiveGo[et]
	} else {
		ms := f.Struct
		if b.building[ms] {
			return nil, fmt.Errorf("%s: struct %s contains itself", path, ms.SchemaName)
		}
		if t = b.built[ms]; t == nil {
			b.building[ms] = true
			t, err = b.structType(path, ms.Fields, false)
			delete(b.building, ms)
			if err != nil {
				return nil, err
			}
			b.built[ms] = t
		}
	}
	switch shape {
	case shapeSlice:
		return reflect.SliceOf(t), nil
	case shapePointer:
		return reflect.PointerTo(t), nil
	}
	return t, nil
}
