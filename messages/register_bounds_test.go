package messages_test

import (
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// openEnded has no versions= tag: every version 0-32767 is its own.
type openEnded struct {
	_           struct{} `kafka:"api=1001,flexible=0+"`
	N           int32    `kafka:"v=0+"`
	UnknownTags kwire.UnknownTags
}

// TestRegisterUpToTheLastVersion: an API whose versions reach 32767 is
// checked and registered (the version loop must not wrap and run forever).
func TestRegisterUpToTheLastVersion(t *testing.T) {
	api := messages.API{Key: 1001, Name: "OpenEnded", MinVersion: 0, MaxVersion: 32767, FlexibleFrom: 0,
		NewRequest: func() any { return new(openEnded) }, NewResponse: func() any { return new(openEnded) }}
	if err := messages.NewRegistry().Register(api); err != nil {
		t.Fatal(err)
	}
}
