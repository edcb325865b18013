package kwire_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

// sizeCase has a field for each way Append can refuse a value: nulls a
// version does not allow and classic strings too long for an int16
// length, at the top, in arrays, in nested structs and tagged; kept
// tagged fields out of order; values in fields the version lacks. Versions 0-1 are classic, 2 flexible.
type sizeCase struct {
	_           struct{}       `kafka:"versions=0-2,flexible=2+"`
	Name        *string        `kafka:"v=0+,nullable=1+"`
	Later       *string        `kafka:"v=2+"`
	Text        string         `kafka:"v=0+"`
	Names       []string       `kafka:"v=0+"`
	Items       []sizeCaseItem `kafka:"v=0+"`
	Maybe       *sizeCaseItem  `kafka:"v=0+,nullable=1+"`
	Note        *string        `kafka:"v=2+,tag=0,tagged=2+"`
	UnknownTags kwire.UnknownTags
}

type sizeCaseItem struct {
	Label       *string `kafka:"v=0+,nullable=2+"`
	Text        string  `kafka:"v=0+"`
	Extra       int32   `kafka:"v=2+"`
	UnknownTags kwire.UnknownTags
}

// TestSizeFailsWhereAppendFails: for a value Append refuses, Size
// refuses it too, with the same sentinel, field path and detail, and
// Marshal with Append's very error; for
// the same values at a version that can carry them, Size is the length
// Append writes.
func TestSizeFailsWhereAppendFails(t *testing.T) {
	s := func(v string) *string { return &v }
	long := strings.Repeat("x", math.MaxInt16+1)
	valid := func(v int16) sizeCase {
		m := sizeCase{Name: s("n"), Items: []sizeCaseItem{{Label: s("a")}, {Label: s("b")}, {Label: s("c")}}, Maybe: &sizeCaseItem{Label: s("m")}}
		if v >= 2 {
			m.Later, m.Note = s("l"), s("note")
		}
		return m
	}
	cases := []struct {
		name     string
		v        int16
		change   func(m *sizeCase)
		sentinel error // nil: the value encodes
		path     string
	}{
		{"valid classic", 0, func(*sizeCase) {}, nil, ""},
		{"valid flexible", 2, func(*sizeCase) {}, nil, ""},
		{"null string, classic", 0, func(m *sizeCase) { m.Name = nil }, kwire.ErrNullNotAllowed, "Name"},
		{"null string allowed", 1, func(m *sizeCase) { m.Name = nil }, nil, ""},
		{"null string, compact", 2, func(m *sizeCase) { m.Later = nil }, kwire.ErrNullNotAllowed, "Later"},
		{"null string in an array element", 1, func(m *sizeCase) { m.Items[1].Label = nil }, kwire.ErrNullNotAllowed, "Items[1].Label"},
		{"null string in a nullable struct", 1, func(m *sizeCase) { m.Maybe.Label = nil }, kwire.ErrNullNotAllowed, "Maybe.Label"},
		{"null struct", 0, func(m *sizeCase) { m.Maybe = nil }, kwire.ErrNullNotAllowed, "Maybe"},
		{"null tagged string", 2, func(m *sizeCase) { m.Note = nil }, kwire.ErrNullNotAllowed, "Note"},
		{"long string", 1, func(m *sizeCase) { m.Text = long }, kwire.ErrValueOutOfRange, "Text"},
		{"long string, compact", 2, func(m *sizeCase) { m.Text = long }, nil, ""},
		{"long nullable string", 1, func(m *sizeCase) { m.Name = &long }, kwire.ErrValueOutOfRange, "Name"},
		{"long string in a string array", 0, func(m *sizeCase) { m.Names = []string{"a", long} }, kwire.ErrValueOutOfRange, "Names[1]"},
		{"long string in an array element", 0, func(m *sizeCase) { m.Items[2].Text = long }, kwire.ErrValueOutOfRange, "Items[2].Text"},
		{"long nullable string in an array element", 1, func(m *sizeCase) { m.Items[0].Label = &long }, kwire.ErrValueOutOfRange, "Items[0].Label"},
		{"a value in a field the version lacks", 1, func(m *sizeCase) { m.Later = s("l") }, kwire.ErrFieldNotInVersion, "Later"},
		{"a value in an element's field the version lacks", 1, func(m *sizeCase) { m.Items[1].Extra = 5 }, kwire.ErrFieldNotInVersion, "Items[1].Extra"},
		{"unknown tags out of order", 2, func(m *sizeCase) {
			m.UnknownTags = kwire.NewUnknownTags(kwire.TaggedField{Tag: 9}, kwire.TaggedField{Tag: 4})
		}, kwire.ErrBadTag, "UnknownTags"},
		{"unknown tags repeated, nested", 2, func(m *sizeCase) {
			m.Items[1].UnknownTags = kwire.NewUnknownTags(kwire.TaggedField{Tag: 3}, kwire.TaggedField{Tag: 3})
		}, kwire.ErrBadTag, "Items[1].UnknownTags"},
		{"unknown tag shadowed by a known one", 2, func(m *sizeCase) {
			m.UnknownTags = kwire.NewUnknownTags(kwire.TaggedField{Tag: 0}, kwire.TaggedField{Tag: 0}, kwire.TaggedField{Tag: 1})
		}, nil, ""},
	}
	for _, c := range cases {
		m := valid(c.v)
		c.change(&m)
		b, appendErr := kwire.Append(nil, &m, c.v)
		n, sizeErr := kwire.Size(&m, c.v)
		if c.sentinel == nil {
			require.NoError(t, appendErr, c.name)
			require.NoError(t, sizeErr, c.name)
			assert.Equal(t, len(b), n, c.name)
			continue
		}
		var ae, se *kwire.Error
		require.True(t, errors.As(appendErr, &ae), "%s: Append: %v", c.name, appendErr)
		require.True(t, errors.As(sizeErr, &se), "%s: Size: %v", c.name, sizeErr)
		assert.ErrorIs(t, ae, c.sentinel, c.name)
		assert.ErrorIs(t, se, c.sentinel, c.name)
		assert.Equal(t, c.path, ae.Path, c.name)
		assert.Equal(t, ae.Path, se.Path, c.name)
		assert.Equal(t, ae.Detail, se.Detail, c.name)
		assert.Equal(t, ae.Offset, se.Offset, c.name)
		// Marshal, which sizes first, reports it as Append does.
		_, marshalErr := kwire.Marshal(&m, c.v)
		assert.Equal(t, ae, marshalErr, c.name)
	}
}
