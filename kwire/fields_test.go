package kwire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

type fieldsProbe struct {
	_        struct{}           `kafka:"api=68,versions=0-1,flexible=0+"`
	GroupID  string             `kafka:"v=0+"`
	Instance *string            `kafka:"v=0+,nullable=0+,default=null"`
	Regex    *string            `kafka:"v=1+,nullable=1+,default=null"`
	Owned    []fieldsProbeOwned `kafka:"v=0+"`
	Rack     string             `kafka:"v=1+,tag=0,tagged=1+"`
	Unknown  kwire.UnknownTags
}

type fieldsProbeOwned struct {
	TopicID    kwire.UUID `kafka:"v=0+"`
	Partitions []int32    `kafka:"v=0+"`
}

func TestFieldsFollowThePlan(t *testing.T) {
	v0, err := kwire.Fields(&fieldsProbe{}, 0)
	require.NoError(t, err)
	var names []string
	for _, f := range v0 {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"GroupID", "Instance", "Owned"}, names, "v0 lacks Regex and the tagged Rack")

	v1, err := kwire.Fields(&fieldsProbe{}, 1)
	require.NoError(t, err)
	require.Len(t, v1, 5)
	assert.Equal(t, kwire.FieldInfo{Name: "Instance", GoType: "*string", Type: "nullable_string", Nullable: true,
		Compact: true, Tag: -1, Default: "null"}, v1[1])
	owned := v1[3]
	assert.Equal(t, "[]fieldsProbeOwned", owned.GoType)
	assert.Equal(t, "array", owned.Type)
	assert.Equal(t, "struct", owned.Elem)
	require.Len(t, owned.Fields, 2)
	assert.Equal(t, "uuid", owned.Fields[0].Type)
	assert.Equal(t, "[]int32", owned.Fields[1].GoType)
	assert.Equal(t, "Rack", v1[4].Name)
	assert.Equal(t, 0, v1[4].Tag, "tagged fields come last, with their tag")

	_, err = kwire.Fields(&fieldsProbe{}, 2)
	assert.ErrorIs(t, err, kwire.ErrUnsupportedVersion)
}
