package proxytest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestLogToFullDisk (defect 1): with its log on a full disk (/dev/full)
// the proxy still relays; the loss is reported on stderr as it happens
// and the exit status at the end is non-zero.
func TestLogToFullDisk(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "full"))
	require.NoError(t, err)
	defer cluster.Close()
	p := startProxy(t, cluster.ListenAddrs()[0], "-log", "/dev/full")
	ctx := withTimeout(t, time.Minute)
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Addr), kgo.DefaultProduceTopic("full"))
	require.NoError(t, err)
	for range 10 {
		require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Value: []byte("x")}).FirstErr())
	}
	cl.Close()
	require.Error(t, p.Interrupt(t), "the proxy exited 0 having lost its log")
	require.Contains(t, p.Stderr(), "no space left on device")
	require.Contains(t, p.Stderr(), "lines lost to write errors")
}
