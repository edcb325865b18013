package filters_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/proxy/filters"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// roundTrip sends req at version and reads its answer, within a deadline.
func roundTrip(t *testing.T, addr string, req any, key, version int16) any {
	t.Helper()
	c := dialT(t, addr)
	defer c.Close()
	_, err := c.Write(must(kwire.AppendRequest(nil, req, version, 1, nil)))
	require.NoError(t, err)
	f, err := kwire.NewFrameReader(c, 0).Next()
	require.NoError(t, err)
	_, body, err := messages.ReadResponse(f, key, version)
	require.NoError(t, err)
	return body
}

// TestDenyAPIs (issue 27, case 6): a denied API is answered by the proxy
// with its own response, CLUSTER_AUTHORIZATION_FAILED for each topic the
// request named; nothing goes upstream; ApiVersions no longer offers the
// key; other APIs pass.
func TestDenyAPIs(t *testing.T) {
	b := startBroker(t)
	deny, err := filters.DenyAPIs(19, 21) // CreateTopics, DeleteRecords
	require.NoError(t, err)
	addr := serve(t, b.ln.Addr().String(), deny)

	ct := messages.NewCreateTopicsRequest()
	ct.Topics = []messages.CreateTopicsRequestCreatableTopic{{Name: "orders"}, {Name: "audit"}}
	resp := roundTrip(t, addr, ct, 19, 7).(*messages.CreateTopicsResponse)
	require.Len(t, resp.Topics, 2)
	for i, name := range []string{"orders", "audit"} {
		assert.Equal(t, name, resp.Topics[i].Name)
		assert.EqualValues(t, kerr.ClusterAuthorizationFailed, resp.Topics[i].ErrorCode)
		require.NotNil(t, resp.Topics[i].ErrorMessage)
		assert.Contains(t, *resp.Topics[i].ErrorMessage, "CreateTopics is refused by the proxy's -deny-api policy")
	}

	dr := messages.NewDeleteRecordsRequest()
	dr.Topics = []messages.DeleteRecordsRequestTopic{{Name: "orders",
		Partitions: []messages.DeleteRecordsRequestPartition{{PartitionIndex: 3, Offset: 10}}}}
	drr := roundTrip(t, addr, dr, 21, 2).(*messages.DeleteRecordsResponse)
	require.Len(t, drr.Topics, 1)
	require.Len(t, drr.Topics[0].Partitions, 1)
	assert.EqualValues(t, 3, drr.Topics[0].Partitions[0].PartitionIndex)
	assert.EqualValues(t, kerr.ClusterAuthorizationFailed, drr.Topics[0].Partitions[0].ErrorCode)

	av := roundTrip(t, addr, messages.NewApiVersionsRequest(), 18, 3).(*messages.ApiVersionsResponse)
	offered := map[int16]bool{}
	for _, k := range av.ApiKeys {
		offered[k.ApiKey] = true
	}
	assert.False(t, offered[19], "CreateTopics still offered")
	assert.False(t, offered[21], "DeleteRecords still offered")
	assert.True(t, offered[3], "Metadata kept")

	roundTrip(t, addr, messages.NewMetadataRequest(), 3, 12)
	b.mu.Lock()
	defer b.mu.Unlock()
	assert.Equal(t, []int16{18, 3}, b.keys, "only ApiVersions and Metadata went upstream")

	_, err = filters.DenyAPIs(18)
	assert.Error(t, err, "ApiVersions cannot be denied")
}

// TestAllowAPIs: an allow-list refuses the rest (Produce too, per
// partition) but never what a client needs to connect.
func TestAllowAPIs(t *testing.T) {
	b := startBroker(t)
	addr := serve(t, b.ln.Addr().String(), filters.AllowAPIs(3, 1)) // Metadata, Fetch
	req := messages.NewProduceRequest()
	req.Acks, req.TimeoutMs = -1, 1000
	req.TopicData = []messages.ProduceRequestTopicProduceData{{Name: "orders",
		PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: 0, Records: batch(t, []byte("k"))}}}}
	got := codes(produce(t, addr, req))
	assert.Equal(t, map[string]kerr.Code{"orders/0": kerr.ClusterAuthorizationFailed}, got)
	roundTrip(t, addr, messages.NewApiVersionsRequest(), 18, 3)
	p := filters.AllowAPIs(3)
	assert.False(t, p.Refuses(17) || p.Refuses(18) || p.Refuses(36), "the connect APIs are always allowed")
}
