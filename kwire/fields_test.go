package kwire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

// TestFieldsFollowThePlan reads Heartbeat, the README example in example_test.go.
func TestFieldsFollowThePlan(t *testing.T) {
	v0, err := kwire.Fields(&Heartbeat{}, 0)
	require.NoError(t, err)
	var names []string
	for _, f := range v0 {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"GroupID", "MemberEpoch", "InstanceID", "Owned"}, names, "v0 lacks Regex and the tagged Rack")

	v1, err := kwire.Fields(&Heartbeat{}, 1)
	require.NoError(t, err)
	require.Len(t, v1, 6)
	assert.Equal(t, kwire.FieldInfo{Name: "InstanceID", GoType: "*string", Type: "nullable_string", Nullable: true,
		Compact: true, Tag: -1, Default: "null"}, v1[2])
	owned := v1[4]
	assert.Equal(t, "[]Owned", owned.GoType)
	assert.Equal(t, "array", owned.Type)
	assert.Equal(t, "struct", owned.Elem)
	require.Len(t, owned.Fields, 2)
	assert.Equal(t, "uuid", owned.Fields[0].Type)
	assert.Equal(t, "[]int32", owned.Fields[1].GoType)
	assert.Equal(t, "Rack", v1[5].Name)
	assert.Equal(t, 0, v1[5].Tag, "tagged fields come last, with their tag")

	_, err = kwire.Fields(&Heartbeat{}, 2)
	assert.ErrorIs(t, err, kwire.ErrUnsupportedVersion)
}
