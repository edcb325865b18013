package filters_test

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/proxy"
	"github.com/kwirelabs/kwire/app/proxy/filters"
	"github.com/kwirelabs/kwire/app/testbroker"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// broker answers Produce requests, every partition with offset 100, and
// keeps the requests it got.
type broker struct {
	ln   net.Listener
	mu   sync.Mutex
	got  []*messages.ProduceRequest
	keys []int16 // of every request
}

func startBroker(t *testing.T) *broker {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	b := &broker{ln: ln}
	testbroker.Serve(t, ln, b.answer)
	return b
}

func (b *broker) answer(h kwire.RequestHeader, msg any) any {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.keys = append(b.keys, h.APIKey)
	if _, ok := msg.(*messages.ApiVersionsRequest); ok {
		resp := messages.NewApiVersionsResponse()
		for _, v := range messages.Versions(false) {
			resp.ApiKeys = append(resp.ApiKeys, messages.ApiVersionsResponseApiVersion{ApiKey: v.APIKey, MinVersion: v.MinVersion, MaxVersion: v.MaxVersion})
		}
		return resp
	}
	req, ok := msg.(*messages.ProduceRequest)
	if !ok {
		return testbroker.Empty(h, msg)
	}
	b.got = append(b.got, req)
	resp := messages.NewProduceResponse()
	for _, td := range req.TopicData {
		tr := messages.ProduceResponseTopicProduceResponse{Name: td.Name}
		for _, p := range td.PartitionData {
			tr.PartitionResponses = append(tr.PartitionResponses, messages.ProduceResponsePartitionProduceResponse{Index: p.Index, BaseOffset: 100})
		}
		resp.Responses = append(resp.Responses, tr)
	}
	return resp
}

func serve(t *testing.T, upstream string, fs ...proxy.Filter) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := proxy.New(proxy.Config{Upstream: upstream, Filters: fs})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.ServeListener(ctx, ln); close(done) }()
	select {
	case <-p.Ready():
	case <-done:
		t.Fatal("the proxy stopped before it was ready")
	case <-time.After(testDeadline):
		t.Fatalf("the proxy was not ready after %v", testDeadline)
	}
	t.Cleanup(func() {
		stop()
		select {
		case <-done:
		case <-time.After(testDeadline):
			t.Errorf("the proxy did not stop within %v", testDeadline)
		}
	})
	return ln.Addr().String()
}

// testDeadline bounds every wait of these tests, so that a proxy that
// stops answering fails the test instead of hanging it.
const testDeadline = 20 * time.Second

// dialT connects to addr with every read and write bounded by
// testDeadline.
func dialT(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testDeadline)
	require.NoError(t, err)
	c.SetDeadline(time.Now().Add(testDeadline))
	return c
}

func batch(t *testing.T, keys ...[]byte) []byte {
	var recs []record.Record
	for _, k := range keys {
		recs = append(recs, record.Record{Key: k, Value: []byte("v")})
	}
	b, err := record.Build(recs)
	require.NoError(t, err)
	return b
}

func produce(t *testing.T, addr string, req *messages.ProduceRequest) *messages.ProduceResponse {
	c := dialT(t, addr)
	defer c.Close()
	_, err := c.Write(must(kwire.AppendRequest(nil, req, 9, 1, nil)))
	require.NoError(t, err)
	f, err := kwire.NewFrameReader(c, 0).Next()
	require.NoError(t, err)
	_, body, err := messages.ReadResponse(f, 0, 9)
	require.NoError(t, err)
	return body.(*messages.ProduceResponse)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// codes is topic/partition -> error code.
func codes(r *messages.ProduceResponse) map[string]kerr.Code {
	out := map[string]kerr.Code{}
	for _, t := range r.Responses {
		for _, p := range t.PartitionResponses {
			out[t.Name+"/"+string(rune('0'+p.Index))] = kerr.Code(p.ErrorCode)
		}
	}
	return out
}

// TestDenyAndRequireKeysSplitProduce: in one Produce request, the denied
// topic's partition gets TOPIC_AUTHORIZATION_FAILED and the keyless
// partition INVALID_RECORD, both from the proxy, while the good partition
// goes upstream alone and its answer comes back beside theirs.
func TestDenyAndRequireKeysSplitProduce(t *testing.T) {
	b := startBroker(t)
	addr := serve(t, b.ln.Addr().String(), filters.NewDenyTopics("payroll"), filters.RequireKeys{})
	req := messages.NewProduceRequest()
	req.Acks, req.TimeoutMs = -1, 1000
	req.TopicData = []messages.ProduceRequestTopicProduceData{
		{Name: "orders", PartitionData: []messages.ProduceRequestPartitionProduceData{
			{Index: 0, Records: batch(t, []byte("k1"), []byte("k2"))},
			{Index: 1, Records: batch(t, []byte("k3"), nil)},
		}},
		{Name: "payroll", PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: 0, Records: batch(t, []byte("k"))}}},
	}
	resp := produce(t, addr, req)
	assert.Equal(t, map[string]kerr.Code{"orders/0": kerr.None, "orders/1": kerr.InvalidRecord, "payroll/0": kerr.TopicAuthorizationFailed}, codes(resp))
	b.mu.Lock()
	defer b.mu.Unlock()
	require.Len(t, b.got, 1)
	require.Len(t, b.got[0].TopicData, 1)
	assert.Equal(t, "orders", b.got[0].TopicData[0].Name)
	require.Len(t, b.got[0].TopicData[0].PartitionData, 1)
	assert.EqualValues(t, 0, b.got[0].TopicData[0].PartitionData[0].Index)
}

// TestDenyAnswersWhollyDeniedProduce: nothing goes upstream when every
// partition is refused.
func TestDenyAnswersWhollyDeniedProduce(t *testing.T) {
	b := startBroker(t)
	addr := serve(t, b.ln.Addr().String(), filters.NewDenyTopics("payroll"))
	req := messages.NewProduceRequest()
	req.Acks, req.TimeoutMs = 1, 1000
	req.TopicData = []messages.ProduceRequestTopicProduceData{
		{Name: "payroll", PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: 0, Records: batch(t, []byte("k"))}, {Index: 1, Records: batch(t, []byte("k"))}}},
	}
	resp := produce(t, addr, req)
	assert.Equal(t, map[string]kerr.Code{"payroll/0": kerr.TopicAuthorizationFailed, "payroll/1": kerr.TopicAuthorizationFailed}, codes(resp))
	assert.Equal(t, "topic payroll is denied by the proxy", *resp.Responses[0].PartitionResponses[0].ErrorMessage)
	b.mu.Lock()
	defer b.mu.Unlock()
	assert.Empty(t, b.got)
}

// TestDenyClosesOnOtherAPIs: a request of an API the deny-list cannot
// answer for (DeleteTopics by name at v5 and v6, a config of the topic)
// closes the connection before anything goes upstream; the same request
// for another topic passes.
func TestDenyClosesOnOtherAPIs(t *testing.T) {
	b := startBroker(t)
	addr := serve(t, b.ln.Addr().String(), filters.NewDenyTopics("payroll"))
	payroll, orders := "payroll", "orders"
	del6 := messages.NewDeleteTopicsRequest()
	del6.Topics = []messages.DeleteTopicsRequestDeleteTopicState{{Name: &payroll}}
	del5 := messages.NewDeleteTopicsRequest()
	del5.TopicNames = []string{"orders", "payroll"}
	cfg := messages.NewIncrementalAlterConfigsRequest()
	cfg.Resources = []messages.IncrementalAlterConfigsRequestAlterConfigsResource{{ResourceType: 2, ResourceName: "payroll"}}
	brokerCfg := messages.NewIncrementalAlterConfigsRequest()
	brokerCfg.Resources = []messages.IncrementalAlterConfigsRequestAlterConfigsResource{{ResourceType: 4, ResourceName: "payroll"}}
	okDel := messages.NewDeleteTopicsRequest()
	okDel.Topics = []messages.DeleteTopicsRequestDeleteTopicState{{Name: &orders}}
	for _, tc := range []struct {
		name    string
		req     any
		version int16
		passes  bool
	}{
		{"DeleteTopics v6 payroll", del6, 6, false},
		{"DeleteTopics v5 orders, payroll", del5, 5, false},
		{"IncrementalAlterConfigs topic payroll", cfg, 1, false},
		{"IncrementalAlterConfigs broker named payroll", brokerCfg, 1, true},
		{"DeleteTopics v6 orders", okDel, 6, true},
	} {
		c := dialT(t, addr)
		_, err := c.Write(must(kwire.AppendRequest(nil, tc.req, tc.version, 1, nil)))
		require.NoError(t, err)
		_, err = kwire.NewFrameReader(c, 0).Next()
		if tc.passes {
			assert.NoError(t, err, tc.name)
		} else {
			assert.ErrorIs(t, err, io.EOF, tc.name)
		}
		c.Close()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	assert.Equal(t, []int16{44, 20}, b.keys, "only the requests that pass reach the broker")
}
