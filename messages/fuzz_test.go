package messages_test

import (
	"bytes"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// FuzzReadRequest feeds arbitrary frames to the registry's reader. Seeds
// are the smallest legal request of every API and version. Whatever is
// read must encode again, to a frame that reads back to the same bytes.
// Run longer with: go test ./messages -run '^$' -fuzz FuzzReadRequest -fuzztime 5m
func FuzzReadRequest(f *testing.F) {
	empty := ""
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			req := api.NewRequest()
			if err := kwire.FillMinimal(req, v); err != nil {
				f.Fatal(err)
			}
			frame, err := kwire.AppendRequest(nil, req, v, 1, &empty)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(frame)
		}
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		hdr, body, err := messages.ReadRequest(frame)
		if err != nil {
			return
		}
		again, err := kwire.AppendRequest(nil, body, hdr.APIVersion, hdr.CorrelationID, hdr.ClientID)
		if err != nil {
			t.Fatalf("read but cannot write back: %v", err)
		}
		hdr2, body2, err := messages.ReadRequest(again)
		if err != nil {
			t.Fatalf("re-encoded frame does not read: %v", err)
		}
		third, err := kwire.AppendRequest(nil, body2, hdr2.APIVersion, hdr2.CorrelationID, hdr2.ClientID)
		if err != nil || !bytes.Equal(again, third) {
			t.Fatalf("encoding is not stable: %v", err)
		}
	})
}
