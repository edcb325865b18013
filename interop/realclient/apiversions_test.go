package realclient

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// The broker advertises only versions the messages package calls stable:
// never an unstable newest version (InitProducerId v6 in Kafka 4.4).
func TestSupportedWithinStableVersions(t *testing.T) {
	for key, r := range Supported {
		api, ok := messages.Lookup(key)
		require.True(t, ok, "key %d", key)
		require.True(t, r[0] >= api.MinVersion && r[1] <= api.MaxStable() && r[0] <= r[1],
			"%s: advertises %d-%d, stable versions are %d-%d", api.Name, r[0], r[1], api.MinVersion, api.MaxStable())
	}
}

// ApiVersions v5 (KIP-1242): a client naming another cluster or node is
// told REBOOTSTRAP_REQUIRED; naming this one, or neither, it gets the list.
func TestApiVersionsV5ChecksClusterAndNode(t *testing.T) {
	b := startBroker(t, 1)
	other, ours := "another-cluster", clusterID
	for _, c := range []struct {
		cluster *string
		node    int32
		want    int16
	}{
		{nil, -1, errNone},
		{&ours, NodeID, errNone},
		{&other, -1, errRebootstrapRequired},
		{&ours, NodeID + 1, errRebootstrapRequired},
	} {
		req := messages.NewApiVersionsRequest()
		req.ClusterID, req.NodeID = c.cluster, c.node
		client := "v5-test"
		frame, err := kwire.AppendRequest(nil, req, 5, 3, &client)
		require.NoError(t, err)
		_, body, err := messages.ReadResponse(exchange(t, b.Addr(), frame), 18, 5)
		require.NoError(t, err)
		resp := body.(*messages.ApiVersionsResponse)
		require.Equal(t, c.want, resp.ErrorCode, "cluster %v node %d", c.cluster, c.node)
		require.Len(t, resp.ApiKeys, len(Supported))
	}
}

// exchange sends one request frame on a new connection and reads one
// response frame.
func exchange(t *testing.T, addr string, frame []byte) []byte {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = c.Write(frame)
	require.NoError(t, err)
	var size [4]byte
	_, err = io.ReadFull(c, size[:])
	require.NoError(t, err)
	resp := make([]byte, 4+binary.BigEndian.Uint32(size[:]))
	copy(resp, size[:])
	_, err = io.ReadFull(c, resp[4:])
	require.NoError(t, err)
	return resp
}
