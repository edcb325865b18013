package conform

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"net"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/saslclient"
	"github.com/kwirelabs/kwire/app/testcerts"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

const (
	keyProduce, keyFetch, keyListOffsets, keyFindCoordinator = 0, 1, 2, 10
)

func TestMain(m *testing.M) {
	healthPause = 10 * time.Millisecond // the fake stops serving before it answers
	os.Exit(m.Run())
}

// run checks f with a short timeout, 3 random requests per version.
func run(t *testing.T, f *fake, apis ...int16) Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, f.addr(), Options{APIs: apis, N: 3, Seed: 7, Timeout: 400 * time.Millisecond})
	require.NoError(t, err)
	return rep
}

// failedChecks are the distinct checks rep failed, sorted.
func failedChecks(rep Report) []string {
	var out []string
	for _, r := range rep.Results {
		if r.Verdict == Fail && !slices.Contains(out, r.Check) {
			out = append(out, r.Check)
		}
	}
	sort.Strings(out)
	return out
}

func dump(rep Report) string {
	var b bytes.Buffer
	rep.WriteText(&b)
	return b.String()
}

// TestConformingFakePasses: the fake, unmutated, passes every check:
// none of them fires on a broker that keeps the rules.
func TestConformingFakePasses(t *testing.T) {
	t.Parallel()
	f := startFake(t, mutation{})
	rep := run(t, f)
	require.Empty(t, failedChecks(rep), dump(rep))
	assert.False(t, rep.Failed())
	var checked []string
	for _, r := range rep.Results {
		if r.Verdict == Pass && !slices.Contains(checked, r.Check) {
			checked = append(checked, r.Check)
		}
	}
	// Every check ran and passed somewhere.
	for _, c := range append(append([]string{"kip-511", checkOrder, checkAboveMax, checkCutShort, checkTrailing, checkSizeLimit, checkUnknownTag, checkUnknownKey}, genericChecks...), checkNames()...) {
		assert.Contains(t, checked, c)
	}
}

func checkNames() []string {
	var out []string
	for _, c := range Checks {
		out = append(out, c.Name)
	}
	return out
}

// cutFrame returns frame without the byte at i, its size prefix fixed.
func cutFrame(frame []byte, i int) []byte {
	out := append(append([]byte(nil), frame[:i]...), frame[i+1:]...)
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

func flexibleListOffsets(h kwire.RequestHeader) bool {
	return h.APIKey == keyListOffsets && h.APIVersion >= 6
}

// TestEveryCheckFires: for each check, a fake that breaks exactly that
// rule fails exactly that check.
func TestEveryCheckFires(t *testing.T) {
	cases := []struct {
		name  string
		check string
		apis  []int16
		m     mutation
	}{
		{"silent FindCoordinator", checkAnswer, []int16{keyFindCoordinator}, mutation{
			frame: func(h kwire.RequestHeader, f []byte) []byte {
				if h.APIKey == keyFindCoordinator {
					return nil
				}
				return f
			}}},
		{"wrong correlation id", checkCorrelation, []int16{keyListOffsets}, mutation{
			frame: func(h kwire.RequestHeader, f []byte) []byte {
				if h.APIKey == keyListOffsets {
					binary.BigEndian.PutUint32(f[4:], uint32(h.CorrelationID+1))
				}
				return f
			}}},
		{"header v0 on a flexible answer", checkHeader, []int16{keyListOffsets}, mutation{
			frame: func(h kwire.RequestHeader, f []byte) []byte {
				if flexibleListOffsets(h) {
					return cutFrame(f, 8) // the header's empty tagged section
				}
				return f
			}}},
		{"missing tagged section", checkDecode, []int16{keyListOffsets}, mutation{
			frame: func(h kwire.RequestHeader, f []byte) []byte {
				if flexibleListOffsets(h) {
					return cutFrame(f, len(f)-1) // the body's tagged section
				}
				return f
			}}},
		{"trailing bytes", checkDecode, []int16{keyListOffsets}, mutation{
			frame: func(h kwire.RequestHeader, f []byte) []byte {
				if h.APIKey == keyListOffsets {
					f = append(f, 0, 0)
					binary.BigEndian.PutUint32(f, uint32(len(f)-4))
				}
				return f
			}}},
		{"non-canonical varint", checkDecode, []int16{keyListOffsets}, mutation{
			frame: func(h kwire.RequestHeader, f []byte) []byte {
				if flexibleListOffsets(h) {
					// The body's tagged-section count 0 in two bytes.
					f = append(f[:len(f)-1], 0x80, 0x00)
					binary.BigEndian.PutUint32(f, uint32(len(f)-4))
				}
				return f
			}}},
		{"unknown error code", checkErrorCodes, []int16{keyListOffsets}, mutation{
			answer: func(h kwire.RequestHeader, _, resp any) {
				if r, ok := resp.(*messages.ListOffsetsResponse); ok {
					for i := range r.Topics {
						for j := range r.Topics[i].Partitions {
							r.Topics[i].Partitions[j].ErrorCode = 32000
						}
					}
				}
			}}},
		{"negative throttle", checkThrottle, []int16{keyListOffsets}, mutation{
			answer: func(h kwire.RequestHeader, _, resp any) {
				if r, ok := resp.(*messages.ListOffsetsResponse); ok && h.APIVersion >= 2 {
					r.ThrottleTimeMs = -5
				}
			}}},
		{"dropped partition", "partitions-answered", []int16{keyProduce}, mutation{
			answer: func(h kwire.RequestHeader, _, resp any) {
				if r, ok := resp.(*messages.ProduceResponse); ok && len(r.Responses) > 0 {
					last := &r.Responses[len(r.Responses)-1]
					if n := len(last.PartitionResponses); n > 0 {
						last.PartitionResponses = last.PartitionResponses[:n-1]
					}
				}
			}}},
		{"partition not asked", "partitions-answered", []int16{keyListOffsets}, mutation{
			answer: func(h kwire.RequestHeader, _, resp any) {
				if r, ok := resp.(*messages.ListOffsetsResponse); ok && len(r.Topics) > 0 {
					r.Topics[0].Partitions = append(r.Topics[0].Partitions, messages.ListOffsetsResponsePartitionResponse{PartitionIndex: 99})
				}
			}}},
		{"topic asked not answered", "metadata-topics", []int16{keyMetadata}, mutation{
			answer: func(h kwire.RequestHeader, req, resp any) {
				if r, ok := resp.(*messages.MetadataResponse); ok && len(req.(*messages.MetadataRequest).Topics) > 0 {
					r.Topics = r.Topics[:0]
				}
			}}},
		{"leader not a listed broker", "metadata-brokers", []int16{keyMetadata}, mutation{
			answer: func(h kwire.RequestHeader, _, resp any) {
				if r, ok := resp.(*messages.MetadataResponse); ok && len(r.Topics) > 0 && len(r.Topics[0].Partitions) > 0 {
					r.Topics[0].Partitions[0].LeaderID = 99
				}
			}}},
		{"replica neither listed nor offline", "metadata-brokers", []int16{keyMetadata}, mutation{
			answer: func(h kwire.RequestHeader, _, resp any) {
				if r, ok := resp.(*messages.MetadataResponse); ok && len(r.Topics) > 0 && len(r.Topics[0].Partitions) > 0 {
					p := &r.Topics[0].Partitions[0]
					p.ReplicaNodes = append(p.ReplicaNodes, 98)
				}
			}}},
		{"in-sync replica not a listed broker", "metadata-brokers", []int16{keyMetadata}, mutation{
			answer: func(h kwire.RequestHeader, _, resp any) {
				if r, ok := resp.(*messages.MetadataResponse); ok && len(r.Topics) > 0 && len(r.Topics[0].Partitions) > 0 {
					p := &r.Topics[0].Partitions[0]
					p.IsrNodes = append(p.IsrNodes, 98)
				}
			}}},
		{"controller not a listed broker", "metadata-brokers", []int16{keyMetadata}, mutation{
			answer: func(h kwire.RequestHeader, _, resp any) {
				if r, ok := resp.(*messages.MetadataResponse); ok {
					r.ControllerID = 97
				}
			}}},
		{"coordinator not a listed broker", "coordinator-listed", []int16{keyFindCoordinator}, mutation{
			answer: func(h kwire.RequestHeader, _, resp any) {
				if r, ok := resp.(*messages.FindCoordinatorResponse); ok {
					if h.APIVersion < 4 {
						r.NodeID = 7
					}
					for i := range r.Coordinators {
						r.Coordinators[i].NodeID = 7
					}
				}
			}}},
		{"coordinator at another address", "coordinator-listed", []int16{keyFindCoordinator}, mutation{
			answer: func(h kwire.RequestHeader, _, resp any) {
				if r, ok := resp.(*messages.FindCoordinatorResponse); ok {
					if h.APIVersion < 4 {
						r.Port++
					}
					for i := range r.Coordinators {
						r.Coordinators[i].Port++
					}
				}
			}}},
		{"batch with a bad CRC", "fetch-batches", []int16{keyFetch}, mutation{
			answer: func(h kwire.RequestHeader, _, resp any) {
				if r, ok := resp.(*messages.FetchResponse); ok {
					for i := range r.Responses {
						for j := range r.Responses[i].Partitions {
							p := &r.Responses[i].Partitions[j]
							p.Records = append([]byte(nil), p.Records...)
							p.Records[len(p.Records)-1] ^= 0xff
						}
					}
				}
			}}},
		{"ApiVersions not listing the version answered", "apiversions-self", []int16{keyApiVersions}, mutation{
			answer: func(h kwire.RequestHeader, _, resp any) {
				if r, ok := resp.(*messages.ApiVersionsResponse); ok && h.APIVersion >= 1 && h.APIVersion <= 3 {
					for i := range r.ApiKeys {
						if r.ApiKeys[i].ApiKey == keyApiVersions {
							r.ApiKeys[i].MinVersion = 4
						}
					}
				}
			}}},
		{"KIP-511 answer without ApiVersions' range", "kip-511", []int16{keyApiVersions}, mutation{kip511NoVersions: true}},
		{"reordered answers", checkOrder, []int16{keyApiVersions}, mutation{reorder: true}},
		{"silent on a version above the offer", checkAboveMax, []int16{keyApiVersions}, mutation{silentAboveMax: true}},
		{"silent on a body cut short", checkCutShort, []int16{keyApiVersions}, mutation{silentOn: kwire.ErrInvalidLength}},
		{"silent on trailing bytes", checkTrailing, []int16{keyApiVersions}, mutation{silentOn: kwire.ErrTrailingBytes}},
		{"waits for a size past the limit", checkSizeLimit, []int16{keyApiVersions}, mutation{waitOnHugeSize: true}},
		{"closes on an unknown tag", checkUnknownTag, []int16{keyApiVersions}, mutation{closeOnTags: true}},
		{"crash on an unknown key", checkUnknownKey, []int16{keyApiVersions}, mutation{crashOnUnknown: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := startFake(t, c.m)
			rep := run(t, f, c.apis...)
			assert.Equal(t, []string{c.check}, failedChecks(rep), dump(rep))
			assert.True(t, rep.Failed())
		})
	}
}

// dropBeyondFirst answers only the first partition of each topic a
// Fetch asks (kfake's departure when MaxBytes is spent, made
// unconditional).
var dropBeyondFirst = mutation{answer: func(h kwire.RequestHeader, _, resp any) {
	r, ok := resp.(*messages.FetchResponse)
	if !ok {
		return
	}
	for i := range r.Responses {
		r.Responses[i].Partitions = r.Responses[i].Partitions[:min(1, len(r.Responses[i].Partitions))]
	}
}}

// TestShrinksToTheSmallestRequest: a Fetch that fails only when it asks
// two partitions of a topic or more is reported shrunk to one topic of
// two partitions, every number zero but what prepare sets, as JSON
// `kwire send` reads back.
func TestShrinksToTheSmallestRequest(t *testing.T) {
	t.Parallel()
	f := startFake(t, dropBeyondFirst)
	rep := run(t, f, keyFetch)
	require.Equal(t, []string{"partitions-answered"}, failedChecks(rep), dump(rep))
	shrunk := 0
	for _, r := range rep.Results {
		if r.Verdict != Fail {
			continue
		}
		require.NotEmpty(t, r.Request, "%s v%d", r.API, r.Version)
		req := messages.NewFetchRequest()
		require.NoError(t, pretty.ParseJSON(r.Request, req, r.Version), "%s", r.Request)
		n := 0
		for _, tp := range req.Topics {
			n += len(tp.Partitions)
			for _, p := range tp.Partitions {
				assert.Zero(t, p.FetchOffset, "%s", r.Request)
				assert.Zero(t, p.PartitionMaxBytes, "%s", r.Request)
			}
		}
		assert.Len(t, req.Topics, 1, "v%d: topics left after shrinking: %s", r.Version, r.Request)
		assert.Equal(t, 2, n, "v%d: partitions left after shrinking: %s", r.Version, r.Request)
		assert.Zero(t, req.MaxBytes, "%s", r.Request)
		assert.Contains(t, r.Layout, "<-- departs here", r.Layout)
		if strings.Contains(r.Detail, "random request") {
			shrunk += r.Shrunk
		}
	}
	assert.Positive(t, shrunk, "some failure was shrunk")
}

// TestSameSeedSameReport: two runs with one seed find the same, request
// for request; another seed sends other random requests.
func TestSameSeedSameReport(t *testing.T) {
	t.Parallel()
	f := startFake(t, dropBeyondFirst)
	a, b := run(t, f, keyFetch, keyListOffsets), run(t, f, keyFetch, keyListOffsets)
	require.True(t, a.Failed())
	assert.Equal(t, a.Results, b.Results)
	assert.Equal(t, int64(7), a.Seed)
}

// TestReports: the text table, the JSON lines and the HTML page carry
// the seed, each check's verdict, and a failure's request and answer.
func TestReports(t *testing.T) {
	t.Parallel()
	f := startFake(t, dropBeyondFirst)
	rep := run(t, f, keyFetch)
	text := dump(rep)
	assert.Contains(t, text, "seed 7")
	assert.Contains(t, text, "FAIL partitions-answered")
	assert.Contains(t, text, "kwire send -b "+f.addr()+" -k 1 -v ")

	var js bytes.Buffer
	require.NoError(t, rep.WriteJSON(&js))
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	require.Len(t, lines, len(rep.Results))
	fails := 0
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		for _, k := range []string{"api", "key", "version", "check", "verdict", "seed"} {
			assert.Contains(t, m, k, l)
		}
		if m["verdict"] == "fail" {
			fails++
			assert.Contains(t, m, "request", l)
			assert.Contains(t, m, "response", l)
		}
	}
	assert.Equal(t, rep.Count(Fail), fails)

	var page bytes.Buffer
	require.NoError(t, rep.WriteHTML(&page))
	assert.Contains(t, page.String(), "table.grid{border-collapse:collapse", "the site's style sheet")
	assert.Contains(t, page.String(), "Fetch v")
	assert.Contains(t, page.String(), "&lt;-- departs here")
}

// TestUnreachable: a broker no one listens for is ErrUnreachable.
func TestUnreachable(t *testing.T) {
	f := startFake(t, mutation{})
	addr := f.addr()
	f.crash()
	_, err := Run(context.Background(), addr, Options{Timeout: time.Second})
	assert.ErrorIs(t, err, ErrUnreachable)
}

// TestOverTLSAndSASL: with Options.TLS and Options.SASL every connection
// of a run (the robustness checks' and the health checks' too) speaks
// TLS, verified against the CA given for the host dialled, and logs in
// with SASL PLAIN before its first request: the conforming fake behind
// both, which closes a connection that skips the login, passes every
// check. Wrong credentials make the broker unreachable.
func TestOverTLSAndSASL(t *testing.T) {
	t.Parallel()
	ca, err := testcerts.NewCA("kwire-conform-test-ca")
	require.NoError(t, err)
	leaf, err := ca.Server("broker", "127.0.0.1")
	require.NoError(t, err)
	cert, err := leaf.TLS()
	require.NoError(t, err)
	wrap := func(ln net.Listener) net.Listener {
		return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}})
	}
	f := startFakeWith(t, mutation{}, wrap, "\x00conform\x00s3cret")
	opts := Options{N: 2, Seed: 7, Timeout: 2 * time.Second, TLS: &tls.Config{RootCAs: ca.Pool()},
		SASL: &saslclient.Credentials{Mechanism: "PLAIN", User: "conform", Password: "s3cret"}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, f.addr(), opts)
	require.NoError(t, err)
	require.Empty(t, failedChecks(rep), dump(rep))
	assert.Zero(t, rep.Count(Skip), dump(rep))
	var passed []string
	for _, r := range rep.Results {
		if r.Verdict == Pass && !slices.Contains(passed, r.Check) {
			passed = append(passed, r.Check)
		}
	}
	for _, c := range []string{"kip-511", checkOrder, checkAboveMax, checkCutShort, checkTrailing, checkSizeLimit, checkUnknownTag, checkUnknownKey, "partitions-answered"} {
		assert.Contains(t, passed, c)
	}

	opts.SASL = &saslclient.Credentials{Mechanism: "PLAIN", User: "conform", Password: "wrong"}
	_, err = Run(ctx, f.addr(), opts)
	assert.ErrorIs(t, err, ErrUnreachable)
	opts.SASL, opts.TLS = nil, nil
	_, err = Run(ctx, f.addr(), opts)
	assert.ErrorIs(t, err, ErrUnreachable, "plaintext to a TLS listener")
}

// TestSkipRobustnessChecks: a robustness check named in SkipChecks is not
// sent: a broker that dies on an unknown key, checked with unknown-key
// skipped, is still serving at the end and fails nothing; every name in
// RobustnessChecks is one the run reports.
func TestSkipRobustnessChecks(t *testing.T) {
	t.Parallel()
	f := startFake(t, mutation{crashOnUnknown: true})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := Run(ctx, f.addr(), Options{APIs: []int16{keyApiVersions}, N: 1, Seed: 7, Timeout: 400 * time.Millisecond, SkipChecks: []string{checkUnknownKey}})
	require.NoError(t, err)
	require.Empty(t, failedChecks(rep), dump(rep))
	var skipped []string
	for _, r := range rep.Results {
		if r.Check == checkUnknownKey {
			assert.Equal(t, Skip, r.Verdict)
			assert.Equal(t, "not run (-skip)", r.Detail)
			skipped = append(skipped, r.Check)
		}
	}
	assert.Equal(t, []string{checkUnknownKey}, skipped)
	c, err := net.DialTimeout("tcp", f.addr(), 5*time.Second)
	require.NoError(t, err, "the broker died: the unknown key was sent")
	c.Close()

	rep, err = Run(ctx, f.addr(), Options{APIs: []int16{keyApiVersions}, N: -1, Timeout: 400 * time.Millisecond, SkipChecks: RobustnessChecks})
	require.NoError(t, err)
	var reported []string
	for _, r := range rep.Results {
		if r.API == "broker" && r.Verdict == Skip && r.Detail == "not run (-skip)" {
			reported = append(reported, r.Check)
		}
	}
	assert.Equal(t, RobustnessChecks, reported)
}
