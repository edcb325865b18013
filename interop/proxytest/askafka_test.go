package proxytest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwirelabs/kwire/messages/release"
)

// TestKgoAsKafka: kgo produces and consumes through `kwire proxy
// -as-kafka R` in front of kfake (which speaks the newest versions), and
// sends every request at a version release R offers: the proxy's clamped
// ApiVersions is all kgo negotiates from.
func TestKgoAsKafka(t *testing.T) {
	for _, name := range []string{"3.7", "2.8", "4.0"} {
		t.Run(name, func(t *testing.T) {
			r, err := release.ByName(name)
			require.NoError(t, err)
			cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "as-kafka"))
			require.NoError(t, err)
			defer cluster.Close()
			p := startProxy(t, cluster.ListenAddrs()[0], "-as-kafka", name)
			ctx := withTimeout(t, time.Minute)

			cl, err := kgo.NewClient(kgo.SeedBrokers(p.Addr), kgo.DefaultProduceTopic("as-kafka"),
				kgo.ConsumeTopics("as-kafka"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			require.NoError(t, err)
			const n = 20
			for i := range n {
				require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, "record %d", i)}).FirstErr())
			}
			got := 0
			for got < n {
				fs := cl.PollFetches(ctx)
				require.NoError(t, ctx.Err(), "consumed %d of %d", got, n)
				fs.EachError(func(topic string, p int32, err error) { t.Fatalf("fetch %s/%d: %v", topic, p, err) })
				got += fs.NumRecords()
			}
			cl.Close()

			lines := p.Stop(t)
			byAPI := checkLog(t, lines)
			require.NotZero(t, byAPI["Produce"])
			require.NotZero(t, byAPI["Fetch"])
			seen := map[string]int16{}
			for _, l := range lines {
				if l.Dir != "request" || *l.Key == 18 { // ApiVersions comes before any clamping
					continue
				}
				offer, ok := r.Lookup(*l.Key)
				require.True(t, ok, "kgo sent %s, which Kafka %s does not offer", l.API, name)
				require.True(t, *l.Version >= offer.MinVersion && *l.Version <= offer.MaxVersion,
					"kgo sent %s v%d; Kafka %s offers %s", l.API, *l.Version, name, release.RangeString(offer))
				seen[l.API] = max(seen[l.API], *l.Version)
			}
			t.Logf("as Kafka %s, kgo sent (newest version each): %v", name, seen)
		})
	}
}
