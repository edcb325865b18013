package realclient

import (
	"encoding/binary"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSlowClientPinsNoClaimedSize: a client that sends a size prefix
// claiming the limit and then a trickle of bytes costs the broker what
// arrived, not what was claimed (the old reader allocated 4+n at once).
func TestSlowClientPinsNoClaimedSize(t *testing.T) {
	b := startBroker(t, 1)
	client, server := net.Pipe() // a Write returns once the broker has read it all
	defer client.Close()
	client.SetDeadline(time.Now().Add(30 * time.Second)) // a broker that stops reading fails the test, not hangs it
	b.mu.Lock()
	b.conns[server] = struct{}{}
	b.wg.Add(1)
	b.mu.Unlock()
	go b.serve(server, 1)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := client.Write(binary.BigEndian.AppendUint32(nil, MaxFrameSize))
	require.NoError(t, err)
	for range 10 {
		_, err = client.Write(make([]byte, 100))
		require.NoError(t, err)
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	require.Less(t, allocated, uint64(1<<20), "bytes allocated after 1,004 bytes of a %d-byte frame", MaxFrameSize)
}
