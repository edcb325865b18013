package proxy

import (
	"reflect"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/messages"
)

// TestResponsesWithBrokerAddresses pins which responses the proxy
// rewrites: a schema update that adds a broker endpoint elsewhere shows
// up here.
func TestResponsesWithBrokerAddresses(t *testing.T) {
	var got []string
	for _, a := range messages.APIs() {
		if hasEndpoints(reflect.TypeOf(a.NewResponse())) {
			got = append(got, a.Name)
		}
	}
	sort.Strings(got)
	assert.Equal(t, []string{"DescribeCluster", "Fetch", "FindCoordinator", "Metadata", "Produce",
		"ShareAcknowledge", "ShareFetch", "UpdateRaftVoter"}, got)
}

func TestRewriteAddresses(t *testing.T) {
	locals := map[string]string{}
	localFor := func(up string) (string, error) {
		if _, ok := locals[up]; !ok {
			locals[up] = "127.0.0.1:" + []string{"30001", "30002", "30003"}[len(locals)]
		}
		return locals[up], nil
	}

	fc3 := &messages.FindCoordinatorResponse{NodeID: 2, Host: "b2", Port: 9092}
	fc4 := &messages.FindCoordinatorResponse{Coordinators: []messages.FindCoordinatorResponseCoordinator{
		{Key: "g", NodeID: 2, Host: "b2", Port: 9092}, {Key: "none", NodeID: -1, Host: "", Port: -1}}}
	dc := &messages.DescribeClusterResponse{Brokers: []messages.DescribeClusterResponseBroker{{BrokerID: 3, Host: "b3", Port: 9093}}}
	pr := &messages.ProduceResponse{NodeEndpoints: []messages.ProduceResponseNodeEndpoint{{NodeID: 1, Host: "b1", Port: 9091}}}
	sg := &messages.StreamsGroupHeartbeatResponse{PartitionsByUserEndpoint: []messages.StreamsGroupHeartbeatResponseEndpointToPartitions{
		{UserEndpoint: messages.StreamsGroupHeartbeatResponseEndpoint{Host: "app-1", Port: 8080}}}}

	for _, tc := range []struct {
		msg  any
		want int
	}{{fc3, 1}, {fc4, 1}, {dc, 1}, {pr, 1}, {sg, 0}} {
		n, err := rewriteAddresses(tc.msg, localFor)
		require.NoError(t, err)
		assert.Equal(t, tc.want, n, "%T", tc.msg)
	}
	assert.Equal(t, []any{"127.0.0.1", int32(30001)}, []any{fc3.Host, fc3.Port})
	assert.Equal(t, []any{"127.0.0.1", int32(30001)}, []any{fc4.Coordinators[0].Host, fc4.Coordinators[0].Port}, "same broker, same listener")
	assert.Equal(t, []any{"", int32(-1)}, []any{fc4.Coordinators[1].Host, fc4.Coordinators[1].Port}, "no coordinator: left alone")
	assert.Equal(t, []any{"127.0.0.1", int32(30002)}, []any{dc.Brokers[0].Host, dc.Brokers[0].Port})
	assert.Equal(t, []any{"127.0.0.1", int32(30003)}, []any{pr.NodeEndpoints[0].Host, pr.NodeEndpoints[0].Port})
	assert.Equal(t, "app-1", sg.PartitionsByUserEndpoint[0].UserEndpoint.Host, "a Kafka Streams application endpoint is not a broker")
	assert.Len(t, locals, 3)
}
