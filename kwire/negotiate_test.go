package kwire_test

import (
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/wire"
)

// The error code AppendUnsupportedAPIVersions writes is kerr's
// UnsupportedVersion (kwire keeps its own copy: kerr imports kwire).
func TestUnsupportedAPIVersionsCode(t *testing.T) {
	frame := kwire.AppendUnsupportedAPIVersions(nil, 7, kwire.APIVersionRange{APIKey: 18, MaxVersion: 3})
	if code := kerr.Code(wire.Int16(frame[8:])); code != kerr.UnsupportedVersion {
		t.Fatalf("error code %d (%s), want %s", code, code.Name(), kerr.UnsupportedVersion.Name())
	}
}
