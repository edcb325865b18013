package gen

import (
	"fmt"
	"strings"
)

// CheckVersions checks that the merged message, seen at each of its
// versions, is exactly its defining source seen at that version: the same
// fields in the same order, with the same types, nullability, tags,
// compactness and defaults, recursively.
func (m *Message) CheckVersions() error {
	for v := m.Min; v <= m.Max; v++ {
		got := m.At(v)
		s := m.Sources[m.def[v]]
		want := SchemaAt(s, v)
		if got != want {
			return fmt.Errorf("%s v%d: merged message differs from %s:\n%s", m.Name, v, s.Path, lineDiff(want, got))
		}
	}
	return nil
}

// At describes the merged message as seen at version v, one line per
// field, nested fields indented.
func (m *Message) At(v int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "v%d flexible=%v\n", v, m.Flexible[v]) // no name: an API may be renamed
	var walk func(fs []*MField, depth int)
	walk = func(fs []*MField, depth int) {
		for _, f := range fs {
			if !f.Present[v] {
				continue
			}
			compact := m.Flexible[v]
			if f.HasCompact {
				compact = f.Compact[v]
			}
			tag := int64(-1)
			if f.Tagged[v] {
				tag = f.Tag
			}
			describe(&b, depth, f.Name, kind(f.Type), f.Nullable[v], tag, compact, f.Default)
			if f.Struct != nil {
				walk(f.Struct.Fields, depth+1)
			}
		}
	}
	walk(m.Fields, 0)
	return b.String()
}

// SchemaAt describes one source schema as seen at version v, in the form
// of Message.At.
func SchemaAt(s *Schema, v int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "v%d flexible=%v\n", v, s.flexible.contains(v))
	var walk func(fs []*Field, depth int)
	walk = func(fs []*Field, depth int) {
		for _, f := range fs {
			if !f.versions.contains(v) {
				continue
			}
			compact := s.flexible.contains(v)
			if f.flexible != nil {
				compact = f.flexible.contains(v)
			}
			tag := int64(-1)
			if f.tagged.contains(v) {
				tag = *f.tag
			}
			describe(&b, depth, f.Name, kind(f.Type), f.nullable.contains(v), tag, compact, f.defaultText)
			sub := f.Fields
			if et, _ := elemType(f.Type); len(sub) == 0 && s.commons[et] != nil {
				sub = s.commons[et].Fields
			}
			walk(sub, depth+1)
		}
	}
	walk(s.Fields, 0)
	return b.String()
}

// describe writes one present field. Ignorability is left out: it only
// matters in versions without the field (Merge checks it there).
func describe(b *strings.Builder, depth int, name, kind string, nullable bool, tag int64, compact bool, def *string) {
	fmt.Fprintf(b, "%s%s %s nullable=%v tag=%d compact=%v default=%s\n",
		strings.Repeat("  ", depth), name, kind, nullable, tag, compact, showDefault(def))
}

// lineDiff shows the lines of want and got that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "  line %d: source %q, merged %q\n", i+1, a, c)
		}
	}
	return b.String()
}
