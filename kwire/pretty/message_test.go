package pretty_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

// TestNotAMessage: JSON, which reads a message, takes a struct or a
// non-nil pointer to one; ParseJSON, which writes one, a non-nil pointer.
// Anything else is kwire.ErrNotAMessage, worded as kwire words it.
func TestNotAMessage(t *testing.T) {
	var nilPtr *messages.HeartbeatRequest
	for _, m := range []any{nil, 42, nilPtr} {
		_, err := pretty.JSON(m, 0)
		var e *kwire.Error
		if assert.ErrorAs(t, err, &e, "JSON(%#v)", m) {
			assert.ErrorIs(t, err, kwire.ErrNotAMessage)
		}
	}
	_, err := pretty.JSON(nilPtr, 0)
	assert.ErrorContains(t, err, "need a struct or a non-nil pointer to one")
	for _, m := range []any{nil, 42, nilPtr, messages.HeartbeatRequest{}} {
		err := pretty.ParseJSON([]byte(`{}`), m, 0)
		assert.ErrorIs(t, err, kwire.ErrNotAMessage, "ParseJSON(%#v)", m)
	}
	err = pretty.ParseJSON([]byte(`{}`), messages.HeartbeatRequest{}, 0)
	assert.ErrorContains(t, err, "need a non-nil pointer to a struct")
	_, err = pretty.JSON(messages.HeartbeatRequest{GroupID: "g"}, 0)
	assert.NoError(t, err, "a struct by value is read")
}
