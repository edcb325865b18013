package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/proxy"
	"github.com/kwirelabs/kwire/app/testbroker"
	"github.com/kwirelabs/kwire/app/testcerts"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
	"github.com/kwirelabs/kwire/messages/release"
)

func TestAPIsKafkaRelease(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"apis", "-kafka", "v3.7.1"}, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Equal(t, "# Kafka 3.7, broker in ZooKeeper mode: 61 APIs", lines[0])
	assert.Len(t, lines, 2+61)
	assert.Regexp(t, `^0 +Produce +0-10$`, lines[2])
	assert.Regexp(t, `^68 +ConsumerGroupHeartbeat +0$`, lines[len(lines)-1])

	out.Reset()
	require.NoError(t, run([]string{"apis", "-kafka", "3.9", "-since", "3.8"}, &out))
	assert.Equal(t, "# Kafka 3.8 → 3.9: 4 APIs changed", strings.SplitN(out.String(), "\n", 2)[0])
	assert.Regexp(t, `(?m)^18 +ApiVersions +0-3 +0-4$`, out.String())

	out.Reset()
	require.NoError(t, run([]string{"apis", "-kafka", "3.7", "-since", "3.7.2"}, &out))
	assert.Equal(t, "# Kafka 3.7 → 3.7: 0 APIs changed\n", out.String(), "no empty table")

	out.Reset()
	require.NoError(t, run([]string{"apis", "-kafka", "4.0-controller", "-since", "3.9-controller"}, &out))
	assert.Regexp(t, `(?m)^7 +ControlledShutdown +0-3 +-$`, out.String(), "a dropped API")

	out.Reset()
	require.NoError(t, run([]string{"apis", "-releases"}, &out))
	assert.Equal(t, 1+len(release.Releases()), strings.Count(out.String(), "\n"))
	assert.Regexp(t, `(?m)^3\.7-controller +KRaft controller +\d+$`, out.String())

	assert.ErrorContains(t, run([]string{"apis", "-kafka", "2.9"}, &out), "no such Kafka release")
	assert.ErrorContains(t, run([]string{"apis", "-since", "2.8"}, &out), "-since needs -kafka")
}

// serveApiVersions answers every ApiVersions with table, at the version
// asked.
func serveApiVersions(t *testing.T, table []kwire.APIVersionRange, features []release.Feature) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return serveApiVersionsOn(t, ln, table, features)
}

// serveApiVersionsOn is serveApiVersions on a listener of the caller's.
func serveApiVersionsOn(t *testing.T, ln net.Listener, table []kwire.APIVersionRange, features []release.Feature) string {
	testbroker.Serve(t, ln, func(kwire.RequestHeader, any) any {
		resp := messages.NewApiVersionsResponse()
		for _, a := range table {
			resp.ApiKeys = append(resp.ApiKeys, messages.ApiVersionsResponseApiVersion{ApiKey: a.APIKey, MinVersion: a.MinVersion, MaxVersion: a.MaxVersion})
		}
		for _, f := range features {
			resp.SupportedFeatures = append(resp.SupportedFeatures, messages.ApiVersionsResponseSupportedFeatureKey{Name: f.Name, MinVersion: f.Min, MaxVersion: f.Max})
		}
		return resp
	})
	return ln.Addr().String()
}

func TestProbe(t *testing.T) {
	r, err := release.ByName("3.7-kraft")
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, run([]string{"probe", "-b", serveApiVersions(t, r.APIs, nil)}, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2, out.String())
	assert.Regexp(t, `^127\.0\.0\.1:\d+ answered ApiVersions v5: 59 APIs$`, lines[0])
	assert.Equal(t, "looks like Kafka 3.7-kraft (KRaft broker)", lines[1])

	// A 3.3 KRaft broker offers what a 3.4 one does; without its
	// metadata.version the two cannot be told apart, with it they can.
	r, err = release.ByName("3.4-kraft")
	require.NoError(t, err)
	out.Reset()
	require.NoError(t, run([]string{"probe", "-b", serveApiVersions(t, r.APIs, nil)}, &out))
	assert.Contains(t, out.String(), "looks like Kafka 3.4-kraft (KRaft broker); the same table as 3.3-kraft\n")
	out.Reset()
	require.NoError(t, run([]string{"probe", "-b", serveApiVersions(t, r.APIs, r.Features)}, &out))
	assert.Contains(t, out.String(), ": 49 APIs, metadata.version 1-8\nlooks like Kafka 3.4-kraft (KRaft broker)\n")
	out.Reset()
	require.NoError(t, run([]string{"probe", "-b", serveApiVersions(t, r.APIs, []release.Feature{{Name: "metadata.version", Min: 1, Max: 9}})}, &out))
	assert.Contains(t, out.String(), "nearest Kafka 3.4-kraft (KRaft broker), 0 APIs differ; as near: 3.3-kraft; metadata.version 1-9 here, 1-8 in 3.4-kraft\n")

	// A 3.8 broker with Produce v12 and no DescribeProducers.
	r, err = release.ByName("3.8")
	require.NoError(t, err)
	var custom []kwire.APIVersionRange
	for _, a := range r.APIs {
		switch a.APIKey {
		case 0:
			a.MaxVersion = 12
		case 61:
			continue
		}
		custom = append(custom, a)
	}
	out.Reset()
	require.NoError(t, run([]string{"probe", "-b", serveApiVersions(t, custom, nil), "-apis"}, &out))
	assert.Contains(t, out.String(), "nearest Kafka 3.8 (broker in ZooKeeper mode), 2 APIs differ\n")
	assert.Regexp(t, `(?m)^0 +Produce +0-11 +0-12$`, out.String())
	assert.Regexp(t, `(?m)^61 +DescribeProducers +0 +-$`, out.String())
	assert.Regexp(t, `(?m)^69 +ConsumerGroupDescribe +0$`, out.String(), "-apis lists what the node offers")

	assert.ErrorContains(t, run([]string{"probe"}, &out), "usage: kwire probe -b HOST:PORT")

	// A node that closes the connection on ApiVersions: older than 0.10.0.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		if conn, err := ln.Accept(); err == nil {
			buf := make([]byte, 4)
			_, _ = conn.Read(buf)
			conn.Close()
		}
	}()
	assert.ErrorContains(t, run([]string{"probe", "-b", ln.Addr().String()}, &out), "older than 0.10.0")
}

// TestProbeTLS: -tls with the node's CA, or -tls-insecure, reaches a TLS
// listener; a certificate nobody vouches for is refused.
func TestProbeTLS(t *testing.T) {
	ca, err := testcerts.NewCA("kwire probe test CA")
	require.NoError(t, err)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(caFile, ca.PEM, 0o600))
	leaf, err := ca.Server("broker", "127.0.0.1")
	require.NoError(t, err)
	cert, err := leaf.TLS()
	require.NoError(t, err)

	r, err := release.ByName("4.4")
	require.NoError(t, err)
	serve := func() string {
		ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
		require.NoError(t, err)
		return serveApiVersionsOn(t, ln, r.APIs, r.Features)
	}
	var out bytes.Buffer
	require.NoError(t, run([]string{"probe", "-tls", "-tls-ca", caFile, "-b", serve()}, &out))
	assert.Contains(t, out.String(), "looks like Kafka 4.4 (KRaft broker)\n")
	out.Reset()
	require.NoError(t, run([]string{"probe", "-tls", "-tls-insecure", "-b", serve()}, &out))
	assert.Contains(t, out.String(), "looks like Kafka 4.4 (KRaft broker)\n")
	assert.ErrorContains(t, run([]string{"probe", "-tls", "-b", serve()}, &out), "certificate")
	out.Reset()
	require.NoError(t, run([]string{"probe", "-tls-insecure", "-b", serve()}, &out), "-tls-insecure implies -tls, as -upstream-insecure does for the proxy")
	assert.Contains(t, out.String(), "looks like Kafka 4.4 (KRaft broker)\n")
}

// TestProxyAsKafka: behind kwire proxy -as-kafka, a 4.4 cluster answers
// ApiVersions as the release named: exactly 4.0's table, or for 3.7 its
// APIs no wider than 3.7's (the cluster has no ZooKeeper-mode APIs, and
// refuses the versions 4.0 removed), and metadata.version as that release
// advertises it, or not at all.
func TestProxyAsKafka(t *testing.T) {
	upstream, err := release.ByName("4.4")
	require.NoError(t, err)
	require.Equal(t, []release.Feature{{Name: "metadata.version", Min: 7, Max: 33}}, upstream.Features)
	ask := func(asKafka string) *messages.ApiVersionsResponse {
		return askThroughAsKafka(t, upstream, asKafka)
	}
	resp := ask("4.0")
	m := release.Guess(resp)
	assert.True(t, m.Exact, m.String())
	assert.Equal(t, "4.0", m.Release.Name())
	assert.Equal(t, map[string]string{"metadata.version": "7-25", "group.version": "0-1"}, featuresOf(resp), "the top level is 4.0's; a feature the table does not follow passes")

	// A 3.7 KRaft broker's metadata.version is 1-19, the 4.4 cluster's
	// 7-33: the proxy offers 7-19, the levels both have (a client may
	// pick any level offered). It and the APIs differ from 3.7's only in
	// minimums the 4.4 cluster raised (4.0 removed those levels and
	// versions), which a proxy cannot lower.
	resp = ask("3.7-kraft")
	m = release.Guess(resp)
	assert.Equal(t, "3.7-kraft", m.Release.Name(), m.String())
	assert.Equal(t, "7-19 here, 1-19 in 3.7-kraft", m.MetadataVersion, m.String())
	assert.Equal(t, map[string]string{"metadata.version": "7-19", "group.version": "0-1"}, featuresOf(resp))
	r37, err := release.ByName("3.7-kraft")
	require.NoError(t, err)
	for _, c := range m.Differences {
		require.NotNil(t, c.New, "%s: 3.7 has it, the cluster too", c)
		old, ok := r37.Lookup(c.Key)
		assert.True(t, ok && c.New.MinVersion > old.MinVersion && c.New.MaxVersion == old.MaxVersion, "%s: only minimums the cluster raised differ", c)
	}
	// In front of a 3.8 cluster, which removed nothing, 3.7-kraft is
	// matched exactly (metadata.version 1-20 narrowed to 1-19).
	r38, err := release.ByName("3.8-kraft")
	require.NoError(t, err)
	m = release.Guess(askThroughAsKafka(t, r38, "3.7-kraft"))
	assert.True(t, m.Exact, m.String())
	assert.Equal(t, "3.7-kraft", m.Release.Name(), m.String())

	// 3.3's metadata.version (1-7) meets 4.4's (7-33) at 7 alone; a
	// cluster whose levels start at 8 shares none with it, and the proxy
	// offers no metadata.version at all rather than levels the cluster
	// lacks.
	assert.Equal(t, map[string]string{"metadata.version": "7-7", "group.version": "0-1"}, featuresOf(ask("3.3-kraft")))
	past := upstream
	past.Features = []release.Feature{{Name: "metadata.version", Min: 8, Max: 33}}
	assert.Equal(t, map[string]string{"group.version": "0-1"}, featuresOf(askThroughAsKafka(t, past, "3.3-kraft")))

	// 3.7 names the ZooKeeper-mode broker, and 3.2-kraft predates
	// metadata.version: neither advertises it.
	for _, name := range []string{"3.7", "3.2-kraft"} {
		resp = ask(name)
		m = release.Guess(resp)
		assert.Equal(t, map[string]string{"group.version": "0-1"}, featuresOf(resp), name)
		assert.Empty(t, m.MetadataVersion, m.String())
		want, err := release.ByName(name)
		require.NoError(t, err)
		assert.Equal(t, want.Version, m.Release.Version, m.String())
	}

	f := proxyFlags{AsKafka: "3.7", Unstable: true}
	assert.ErrorContains(t, f.applyAsKafka(&proxy.Config{}), "-as-kafka and -unstable")
	f = proxyFlags{AsKafka: "2.9"}
	assert.ErrorContains(t, f.applyAsKafka(&proxy.Config{}), "no such Kafka release")
}

// featuresOf lists an ApiVersions response's supported features.
func featuresOf(resp *messages.ApiVersionsResponse) map[string]string {
	out := map[string]string{}
	for _, f := range resp.SupportedFeatures {
		out[f.Name] = fmt.Sprintf("%d-%d", f.MinVersion, f.MaxVersion)
	}
	return out
}

// askThroughAsKafka asks for ApiVersions through kwire proxy -as-kafka
// in front of a broker that answers as upstream does, with a vendor API
// key and a group.version feature (which no table follows) added.
func askThroughAsKafka(t *testing.T, upstream release.Release, asKafka string) *messages.ApiVersionsResponse {
	t.Helper()
	withVendorKey := append(slices.Clone(upstream.APIs), kwire.APIVersionRange{APIKey: 1000, MaxVersion: 3})
	features := append(slices.Clone(upstream.Features), release.Feature{Name: "group.version", Min: 0, Max: 1})
	f := proxyFlags{AsKafka: asKafka}
	cfg := proxy.Config{Upstream: serveApiVersions(t, withVendorKey, features)}
	require.NoError(t, f.applyAsKafka(&cfg))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := proxy.New(cfg)
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.ServeListener(ctx, ln) }()
	defer func() {
		stop()
		select {
		case err := <-served:
			require.NoError(t, err)
		case <-time.After(30 * time.Second):
			t.Error("the proxy did not stop in 30 s")
		}
	}()
	select {
	case <-p.Ready():
	case err := <-served:
		t.Fatalf("the proxy stopped before it was ready: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the proxy was not ready in 30 s")
	}
	conn, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
	resp, _, err := release.Ask(conn, "kwire-test")
	require.NoError(t, err)
	for _, k := range resp.ApiKeys {
		require.NotEqual(t, int16(1000), k.ApiKey, "the vendor key is stripped")
	}
	return resp
}

// TestProbeDialect: an Inkless-shaped broker (Kafka 4.1's table plus
// DisklessCommit at key 93 and DescribeMirrors at 99) looks like a later
// release to a plain probe, which reads 93 as Apache's
// StreamsGroupTopologyDescriptionUpdate and 99 as a key 4.1 lacks; with
// -schemas and -replace 93 both vendor keys are left out and the broker
// is 4.1, and -apis names them.
func TestProbeDialect(t *testing.T) {
	requireDefaultUnchanged(t)
	r, err := release.ByName("4.1")
	require.NoError(t, err)
	table := append(slices.Clone(r.APIs), kwire.APIVersionRange{APIKey: 93}, kwire.APIVersionRange{APIKey: 99})
	addr := serveApiVersions(t, table, nil)
	var out bytes.Buffer
	require.NoError(t, run([]string{"probe", "-b", addr}, &out))
	assert.NotContains(t, out.String(), "looks like Kafka 4.1 ")
	out.Reset()
	require.NoError(t, run([]string{"probe", "-b", addr, "-apis", "-schemas", dialectDir + "inkless", "-replace", "93"}, &out))
	assert.Contains(t, out.String(), "looks like Kafka 4.1 (KRaft broker); key 93 (DisklessCommit, -replace) left out; key 99 (DescribeMirrors, -schemas) left out\n")
	assert.Regexp(t, `(?m)^93 +DisklessCommit +0$`, out.String())
	assert.Regexp(t, `(?m)^99 +DescribeMirrors +0$`, out.String())
	assert.ErrorContains(t, run([]string{"probe", "-b", addr, "-schemas", dialectDir + "inkless"}, &out), "key 93 is StreamsGroupTopologyDescriptionUpdate already")
}
