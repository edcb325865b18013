package site

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

type tableMsg struct {
	_           struct{}     `kafka:"api=1002,versions=0-1,flexible=0+"`
	GroupID     string       `kafka:"v=0+"`
	InstanceID  *string      `kafka:"v=0+,nullable=0+,default=null"`
	Regex       *string      `kafka:"v=1+,nullable=1+,default=null"`
	Owned       []tableOwned `kafka:"v=0+"`
	Rack        string       `kafka:"v=1+,tag=0,tagged=1+"`
	UnknownTags kwire.UnknownTags
}

type tableOwned struct {
	TopicID     kwire.UUID `kafka:"v=0+"`
	Partitions  []int32    `kafka:"v=0+"`
	UnknownTags kwire.UnknownTags
}

// TestFieldRowsFollowThePlan: the schema table has the fields the version
// has, in wire order, then the tagged ones; struct elements' fields sit
// indented under their array.
func TestFieldRowsFollowThePlan(t *testing.T) {
	rows := func(v int16) []fieldRow {
		s, err := kwire.SchemaOf(&tableMsg{}, v)
		require.NoError(t, err)
		return fieldRows(s, 0, nil)
	}
	names := func(rs []fieldRow) (out []string) {
		for _, r := range rs {
			out = append(out, r.Indent+r.Name)
		}
		return out
	}
	const in = "\u00a0\u00a0"
	assert.Equal(t, []string{"GroupID", "InstanceID", "Owned", in + "TopicID", in + "Partitions"}, names(rows(0)),
		"v0 lacks Regex and the tagged Rack")
	v1 := rows(1)
	assert.Equal(t, []string{"GroupID", "InstanceID", "Regex", "Owned", in + "TopicID", in + "Partitions", "Rack"}, names(v1))
	assert.Equal(t, fieldRow{Name: "InstanceID", GoType: "*string", Wire: "nullable_string", Notes: "compact, nullable, default null"}, v1[1])
	assert.Equal(t, fieldRow{Name: "Owned", GoType: "[]tableOwned", Wire: "array of struct", Notes: "compact"}, v1[3])
	assert.Equal(t, fieldRow{Indent: in, Name: "Partitions", GoType: "[]int32", Wire: "array of int32", Notes: "compact"}, v1[5])
	assert.Equal(t, fieldRow{Name: "Rack", GoType: "string", Wire: "string", Notes: "compact, tagged, tag 0"}, v1[6])
}
