package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Schema is one Kafka JSON message definition as read from disk.
// Keys that only document (about, entityType, mapKey, zeroCopy,
// listeners, deprecatedVersions) are read so that an unknown key is an
// error, and are otherwise ignored.
type Schema struct {
	APIKey                *int16          `json:"apiKey"`
	Type                  string          `json:"type"` // request, response, header, data
	Name                  string          `json:"name"`
	ValidVersions         string          `json:"validVersions"`
	FlexibleVersions      string          `json:"flexibleVersions"`
	LatestVersionUnstable bool            `json:"latestVersionUnstable"`
	HeaderVersions        json.RawMessage `json:"headerVersions"` // Kafka 4.5+: the header each version travels with
	DeprecatedVersions    string          `json:"deprecatedVersions"`
	Listeners             []string        `json:"listeners"`
	Fields                []*Field        `json:"fields"`
	CommonStructs         []*CommonStruct `json:"commonStructs"`

	Path     string `json:"-"` // the file it came from
	Source   []byte `json:"-"` // that file's bytes, as read
	valid    vrange
	flexible vrange
	headers  []headerRange // from HeaderVersions; nil when the schema has none
	commons  map[string]*CommonStruct
}

// CommonStruct is an entry of a schema's commonStructs.
type CommonStruct struct {
	Name     string   `json:"name"`
	Versions string   `json:"versions"`
	Fields   []*Field `json:"fields"`
}

// Field is one field of a schema.
type Field struct {
	Name               string          `json:"name"`
	Type               string          `json:"type"`
	Versions           string          `json:"versions"`
	NullableVersions   string          `json:"nullableVersions"`
	TaggedVersions     string          `json:"taggedVersions"`
	FlexibleVersions   string          `json:"flexibleVersions"`
	DeprecatedVersions string          `json:"deprecatedVersions"`
	Tag                json.RawMessage `json:"tag"` // a number or a string

	Default    json.RawMessage `json:"default"`
	Ignorable  bool            `json:"ignorable"`
	MapKey     bool            `json:"mapKey"`
	ZeroCopy   bool            `json:"zeroCopy"`
	EntityType string          `json:"entityType"`
	About      string          `json:"about"`
	Fields     []*Field        `json:"fields"`

	tag                        *int64
	versions, nullable, tagged vrange
	flexible                   *vrange // field-level flexibleVersions, nil when absent
	defaultText                *string // the default as text: "null", "-1", "0x7fffffff", "false", ""
}

// vrange is a version range as written in a schema: lo-hi, lo+ (hi = -1)
// or none.
type vrange struct {
	lo, hi int
	none   bool
}

func parseRange(s string) (vrange, error) {
	r, err := parseRangeText(s)
	// Versions are int16 on the wire; the bound also keeps a hostile
	// schema from sizing the merge's per-version tables.
	if err == nil && (r.lo > maxVersion || r.hi > maxVersion) {
		return vrange{}, fmt.Errorf("version range %q: versions go up to %d", s, maxVersion)
	}
	return r, err
}

// maxVersion is the largest version an int16 holds.
const maxVersion = 1<<15 - 1

func parseRangeText(s string) (vrange, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "none":
		return vrange{none: true}, nil
	case strings.HasSuffix(s, "+"):
		lo, err := strconv.Atoi(strings.TrimSuffix(s, "+"))
		if err != nil || lo < 0 {
			return vrange{}, fmt.Errorf("bad version range %q", s)
		}
		return vrange{lo: lo, hi: -1}, nil
	}
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		b = a
	}
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || lo < 0 || hi < lo {
		return vrange{}, fmt.Errorf("bad version range %q", s)
	}
	return vrange{lo: lo, hi: hi}, nil
}

func (r vrange) contains(v int) bool {
	return !r.none && v >= r.lo && (r.hi < 0 || v <= r.hi)
}

// primitive types of the schema language.
var primitives = map[string]bool{
	"bool": true, "int8": true, "int16": true, "uint16": true, "int32": true,
	"uint32": true, "int64": true, "float64": true, "string": true,
	"uuid": true, "bytes": true, "records": true,
}

// elemType strips the array marker: "[]Foo" gives "Foo", true.
func elemType(t string) (string, bool) {
	if strings.HasPrefix(t, "[]") {
		return t[2:], true
	}
	return t, false
}

// ParseSchema parses one schema file's contents.
func ParseSchema(path string, data []byte) (*Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(stripComments(data)))
	dec.DisallowUnknownFields()
	s := new(Schema)
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: trailing data after the schema", path)
	}
	s.Path, s.Source = path, data
	if err := s.prepare(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return s, nil
}

func (s *Schema) prepare() error {
	if s.Name == "" {
		return fmt.Errorf("schema has no name")
	}
	switch s.Type {
	case "request", "response":
		if s.APIKey == nil {
			return fmt.Errorf("%s %s has no apiKey", s.Type, s.Name)
		}
	case "header", "data":
	default:
		return fmt.Errorf("unknown schema type %q", s.Type)
	}
	var err error
	if s.valid, err = parseRange(s.ValidVersions); err != nil {
		return fmt.Errorf("validVersions: %v", err)
	}
	// "none" marks an API a newer Kafka removed: the schema defines no
	// version, and an older schema directory may still define them.
	if !s.valid.none && s.valid.hi < 0 {
		return fmt.Errorf("validVersions %q must be a closed range or none", s.ValidVersions)
	}
	if s.flexible, err = parseRange(s.FlexibleVersions); err != nil {
		return fmt.Errorf("flexibleVersions: %v", err)
	}
	if len(s.HeaderVersions) > 0 {
		if s.Type != "request" && s.Type != "response" {
			return fmt.Errorf("%s %s has headerVersions: only requests and responses travel with a header", s.Type, s.Name)
		}
		if s.headers, err = parseHeaderVersions(s.HeaderVersions, s); err != nil {
			return fmt.Errorf("%s: %v", s.Name, err)
		}
	}
	s.commons = map[string]*CommonStruct{}
	for _, c := range s.CommonStructs {
		if _, dup := s.commons[c.Name]; dup {
			return fmt.Errorf("common struct %s defined twice", c.Name)
		}
		s.commons[c.Name] = c
	}
	for _, c := range s.CommonStructs {
		if err := s.prepareFields(c.Fields, c.Name); err != nil {
			return err
		}
	}
	if err := s.prepareFields(s.Fields, s.Name); err != nil {
		return err
	}
	// A common struct that holds itself would be an infinite message:
	// every tool walking the schema would recurse for ever.
	for _, c := range s.CommonStructs {
		if s.holds(c.Fields, c.Name, map[string]bool{}) {
			return fmt.Errorf("common struct %s contains itself", c.Name)
		}
	}
	return nil
}

// holds reports whether fields reach common struct name, directly or
// through inline and common structs; seen stops at commons visited.
func (s *Schema) holds(fields []*Field, name string, seen map[string]bool) bool {
	for _, f := range fields {
		et, _ := elemType(f.Type)
		if c := s.commons[et]; c != nil {
			if et == name {
				return true
			}
			if !seen[et] {
				seen[et] = true
				if s.holds(c.Fields, name, seen) {
					return true
				}
			}
		}
		if s.holds(f.Fields, name, seen) {
			return true
		}
	}
	return false
}

func (s *Schema) prepareFields(fields []*Field, where string) error {
	seen := map[string]bool{}
	for _, f := range fields {
		if f.Name == "" {
			return fmt.Errorf("%s: field without a name", where)
		}
		if seen[f.Name] {
			return fmt.Errorf("%s: field %s defined twice", where, f.Name)
		}
		seen[f.Name] = true
		path := where + "." + f.Name
		var err error
		vs := f.Versions
		if vs == "" {
			vs = f.TaggedVersions // Kafka lets a tagged field leave out versions
		}
		if vs == "" {
			return fmt.Errorf("%s: no versions", path)
		}
		if f.versions, err = parseRange(vs); err != nil {
			return fmt.Errorf("%s: versions: %v", path, err)
		}
		if f.nullable, err = parseRange(f.NullableVersions); err != nil {
			return fmt.Errorf("%s: nullableVersions: %v", path, err)
		}
		if f.tagged, err = parseRange(f.TaggedVersions); err != nil {
			return fmt.Errorf("%s: taggedVersions: %v", path, err)
		}
		if len(f.Tag) > 0 {
			t, err := defaultText(f.Tag)
			if err != nil {
				return fmt.Errorf("%s: tag: %v", path, err)
			}
			n, err := strconv.ParseInt(t, 10, 32)
			if err != nil || n < 0 {
				return fmt.Errorf("%s: bad tag %s", path, f.Tag)
			}
			f.tag = &n
		}
		if (f.tag != nil) != !f.tagged.none {
			return fmt.Errorf("%s: tag and taggedVersions go together", path)
		}
		if f.FlexibleVersions != "" {
			r, err := parseRange(f.FlexibleVersions)
			if err != nil {
				return fmt.Errorf("%s: flexibleVersions: %v", path, err)
			}
			f.flexible = &r
		}
		if len(f.Default) > 0 {
			t, err := defaultText(f.Default)
			if err != nil {
				return fmt.Errorf("%s: default: %v", path, err)
			}
			f.defaultText = &t
		}
		et, _ := elemType(f.Type)
		switch {
		case f.Type == "":
			return fmt.Errorf("%s: no type", path)
		case primitives[et]:
			if len(f.Fields) > 0 {
				return fmt.Errorf("%s: a %s field cannot have fields", path, f.Type)
			}
		case len(f.Fields) > 0:
			if s.commons[et] != nil {
				return fmt.Errorf("%s: struct %s is both inline and common", path, et)
			}
			if err := s.prepareFields(f.Fields, path); err != nil {
				return err
			}
		case s.commons[et] != nil:
		default:
			return fmt.Errorf("%s: unknown type %s", path, f.Type)
		}
	}
	return nil
}

// defaultText turns a JSON default (string, number or boolean) into its
// text form.
func defaultText(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err == nil {
		return strconv.FormatBool(b), nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("unsupported default %s", raw)
}

// LoadDir reads every *.json schema in dir.
func LoadDir(dir string) ([]*Schema, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s: no *.json schemas", dir)
	}
	sort.Strings(paths)
	var out []*Schema
	names := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		s, err := ParseSchema(p, data)
		if err != nil {
			return nil, err
		}
		if prev, dup := names[s.Name]; dup {
			return nil, fmt.Errorf("%s and %s both define %s", prev, p, s.Name)
		}
		names[s.Name] = p
		out = append(out, s)
	}
	return out, nil
}
