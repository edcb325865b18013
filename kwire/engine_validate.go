package kwire

import (
	"reflect"
	"sort"
)

// validType validates struct type t as a top-level message, once.
func validType(t reflect.Type) error {
	ti := infoFor(t)
	ti.validOnce.Do(func() { ti.validErr = publicSpecError(t, validateRoot(ti)) })
	return ti.validErr
}

// validateRoot builds the plans of a top-level type at every version in
// which any of its tags, or those of a type inside it, changes meaning:
// between two such versions every range in every tag either holds or does
// not, so the checks the builder runs at one version hold for all of them.
// A type declaring versions 0-15 is checked at a handful of versions, not
// sixteen, and a type without a `_` tag (every version) at a finite set.
func validateRoot(ti *typeInfo) error {
	if ti.err != nil {
		return ti.err
	}
	cuts := map[int16]bool{}
	addRangeCuts(cuts, ti.msg.versions)
	addRangeCuts(cuts, ti.msg.flexible)
	collectCuts(ti.typ, cuts, map[reflect.Type]bool{})
	versions := make([]int16, 0, len(cuts))
	for v := range cuts {
		if ti.msg.versions.Contains(v) {
			versions = append(versions, v)
		}
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i] < versions[j] })
	for _, v := range versions {
		if _, err := planFor(ti.typ, v, ti.msg.flexible.Contains(v)); err != nil {
			return err
		}
	}
	return nil
}

// addRangeCuts adds the versions where r starts to hold and stops holding.
func addRangeCuts(cuts map[int16]bool, r VersionRange) {
	if r.Empty() {
		return
	}
	cuts[r.Min] = true
	if r.Max < AllVersions.Max {
		cuts[r.Max+1] = true
	}
}

// collectCuts adds the cuts of every range in the tags of t and of the
// struct types its fields hold.
func collectCuts(t reflect.Type, cuts map[int16]bool, seen map[reflect.Type]bool) {
	if seen[t] {
		return
	}
	seen[t] = true
	ti := infoFor(t)
	if ti.err != nil {
		return // the build reports it
	}
	for _, fs := range ti.fields {
		for _, r := range []VersionRange{fs.tag.versions, fs.tag.nullable, fs.tag.tagged} {
			addRangeCuts(cuts, r)
		}
		if fs.tag.compact != nil {
			addRangeCuts(cuts, *fs.tag.compact)
		}
		inner := fs.sf.Type
		for inner.Kind() == reflect.Pointer || inner.Kind() == reflect.Slice {
			inner = inner.Elem()
		}
		if inner.Kind() == reflect.Struct {
			collectCuts(inner, cuts, seen)
		}
	}
}

// publicSpecError turns a mistake found while building plans into the
// *Error callers see.
func publicSpecError(t reflect.Type, err error) error {
	switch e := err.(type) {
	case nil:
		return nil
	case *tagError:
		if e.typ == nil {
			e.typ = t
		}
		return e.public()
	}
	if _, ok := err.(*Error); ok {
		return err
	}
	return &Error{Op: "plan", Type: t.String(), Offset: -1, Err: ErrInvalidSpec, Detail: err.Error()}
}
