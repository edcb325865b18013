package kwire_test

import (
	"testing"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quotedDefaults holds defaults the bare grammar cannot say.
type quotedDefaults struct {
	_     struct{} `kafka:"versions=0-1"`
	After int32    `kafka:"v=0+,default=7"`
	List  string   `kafka:"v=1+,default='a,b'"`
	Quote string   `kafka:"v=1+,default='it''s'"`
	Dq    *string  `kafka:"v=1+,nullable=1+,default='say \"hi\", twice'"`
}

// TestQuotedDefaults decodes version 0, which lacks the quoted fields, so
// they hold their defaults.
func TestQuotedDefaults(t *testing.T) {
	var q quotedDefaults
	require.NoError(t, kwire.Unmarshal(wiretest.Hex(t, "00000009"), &q, 0))
	assert.Equal(t, int32(9), q.After)
	assert.Equal(t, "a,b", q.List)
	assert.Equal(t, "it's", q.Quote)
	require.NotNil(t, q.Dq)
	assert.Equal(t, `say "hi", twice`, *q.Dq)
}
