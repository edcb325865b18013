package trafficlog_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/secrettest"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

func str(s string) *string { return &s }

// assertNoSecret fails when secret appears in out in any form a log
// could carry it (see secrettest).
func assertNoSecret(t *testing.T, out []byte, secret string) {
	t.Helper()
	form, found := secrettest.Find(out, []byte(secret))
	assert.False(t, found, "the secret appears (%s) in:\n%s", form, out)
}

// bothForms is e as a text line and as a JSON line.
func bothForms(e trafficlog.Event) []byte {
	return append(trafficlog.AppendText(nil, e), trafficlog.AppendJSON(nil, e)...)
}

func TestSASLAuthenticateRedacted(t *testing.T) {
	jwtPayload := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"svc-orders","exp":99}`))
	token := "eyJhbGciOiJub25lIn0." + jwtPayload + ".c2lnbmF0dXJlLXNlY3JldA"
	for _, tc := range []struct {
		mechanism, auth, secret, principal string
	}{
		{"PLAIN", "\x00alice\x00s3cret-pw", "s3cret-pw", "alice"},
		{"PLAIN", "admin\x00alice\x00s3cret-pw", "s3cret-pw", "alice"},
		{"SCRAM-SHA-256", "n,,n=bob,r=fyko+d2lbbFgONRv9qkxdawL", "fyko+d2lbbFgONRv9qkxdawL", "bob"},
		{"SCRAM-SHA-512", "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", "v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", ""},
		{"SCRAM-SHA-256", "n,,n=we=2Cird=3Dname,r=abcdefgh12345678", "abcdefgh12345678", "we,ird=name"},
		{"OAUTHBEARER", "n,,\x01auth=Bearer " + token + "\x01\x01", token, "svc-orders"},
		{"OAUTHBEARER", "n,a=carol,\x01auth=Bearer " + token + "\x01\x01", token, "carol"},
	} {
		t.Run(tc.mechanism, func(t *testing.T) {
			req := messages.NewSaslAuthenticateRequest()
			req.AuthBytes = []byte(tc.auth)
			principal := trafficlog.SASLPrincipal(tc.mechanism, req.AuthBytes)
			assert.Equal(t, tc.principal, principal)
			e := trafficlog.Event{Time: time.Unix(1, 0), Conn: 1, Dir: trafficlog.Request, Key: 36, Version: 2,
				CorrelationID: 3, Principal: principal, Msg: req}
			out := bothForms(e)
			assertNoSecret(t, out, tc.secret)
			assertNoSecret(t, out, tc.auth)
			assert.Equal(t, tc.auth, string(req.AuthBytes), "the message itself is left alone")
			assert.Contains(t, string(out), "redacted: AuthBytes")
			var j map[string]any
			require.NoError(t, json.Unmarshal(trafficlog.AppendJSON(nil, e), &j))
			assert.Equal(t, []any{"AuthBytes"}, j["redacted"])
			assert.Nil(t, j["body"].(map[string]any)["AuthBytes"])
			if tc.principal != "" {
				assert.Equal(t, tc.principal, j["principal"])
				assert.Contains(t, string(trafficlog.AppendText(nil, e)), `user="`+tc.principal+`"`)
			}
		})
	}
	resp := messages.NewSaslAuthenticateResponse()
	resp.AuthBytes = []byte("r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096")
	assertNoSecret(t, bothForms(trafficlog.Event{Dir: trafficlog.Response, Key: 36, Version: 2, Msg: resp}), "QSXCR+Q6sek8bf92")
}

func TestDelegationTokensAndCredentialsRedacted(t *testing.T) {
	hmac := "hmac-0123456789-secret"
	created := messages.NewCreateDelegationTokenResponse()
	created.TokenID, created.Hmac = "token-1", []byte(hmac)
	described := messages.NewDescribeDelegationTokenResponse()
	described.Tokens = []messages.DescribeDelegationTokenResponseDescribedDelegationToken{
		{TokenID: "t1", Hmac: []byte(hmac + "-a")}, {TokenID: "t2", Hmac: []byte(hmac + "-b")}}
	renew := messages.NewRenewDelegationTokenRequest()
	renew.Hmac = []byte(hmac)
	expire := messages.NewExpireDelegationTokenRequest()
	expire.Hmac = []byte(hmac)
	scram := messages.NewAlterUserScramCredentialsRequest()
	scram.Upsertions = []messages.AlterUserScramCredentialsRequestScramCredentialUpsertion{
		{Name: "alice", Mechanism: 1, Iterations: 8192, Salt: []byte("salt-secret-1234"), SaltedPassword: []byte(hmac)}}
	configs := messages.NewIncrementalAlterConfigsRequest()
	configs.Resources = []messages.IncrementalAlterConfigsRequestAlterConfigsResource{{ResourceType: 4, ResourceName: "1",
		Configs: []messages.IncrementalAlterConfigsRequestAlterableConfig{
			{Name: "log.retention.ms", Value: str("86400000")},
			{Name: "listener.name.internal.ssl.keystore.password", Value: str(hmac)},
			{Name: "sasl.jaas.config", Value: str(`org.apache.kafka.common.security.plain.PlainLoginModule required password="` + hmac + `";`)},
		}}}
	envelope := messages.NewEnvelopeRequest()
	envelope.RequestData = []byte("\x00\x00" + hmac)
	envelope.ClientHostAddress = []byte{127, 0, 0, 1}

	for _, tc := range []struct {
		key      int16
		version  int16
		dir      trafficlog.Dir
		msg      any
		redacted []any
	}{
		{38, 3, trafficlog.Response, created, []any{"Hmac"}},
		{41, 3, trafficlog.Response, described, []any{"Tokens[0].Hmac", "Tokens[1].Hmac"}},
		{39, 2, trafficlog.Request, renew, []any{"Hmac"}},
		{40, 2, trafficlog.Request, expire, []any{"Hmac"}},
		{51, 0, trafficlog.Request, scram, []any{"Upsertions[0].Salt", "Upsertions[0].SaltedPassword"}},
		{44, 1, trafficlog.Request, configs, []any{"Resources[0].Configs[1].Value", "Resources[0].Configs[2].Value"}},
		{58, 0, trafficlog.Request, envelope, []any{"RequestData"}},
	} {
		before, err := json.Marshal(tc.msg)
		require.NoError(t, err)
		e := trafficlog.Event{Dir: tc.dir, Key: tc.key, Version: tc.version, Msg: tc.msg}
		out := bothForms(e)
		assertNoSecret(t, out, hmac)
		assertNoSecret(t, out, "salt-secret-1234")
		var j map[string]any
		require.NoError(t, json.Unmarshal(trafficlog.AppendJSON(nil, e), &j))
		assert.Equal(t, tc.redacted, j["redacted"], trafficlog.APIName(tc.key))
		after, _ := json.Marshal(tc.msg)
		assert.Equal(t, string(before), string(after), "the message itself is left alone")
	}
	assert.Contains(t, string(trafficlog.AppendJSON(nil, trafficlog.Event{Dir: trafficlog.Request, Key: 44, Version: 1, Msg: configs})),
		`"86400000"`, "configs that are not secrets stay")

	// A message without secrets comes back as it is.
	md := messages.NewMetadataResponse()
	got, paths := trafficlog.Redact(md)
	assert.Same(t, md, got)
	assert.Empty(t, paths)
}

// TestEveryBytesFieldIsClassified fails when a message gains a []byte
// field (a new Kafka version, say) nobody has judged secret or not.
func TestEveryBytesFieldIsClassified(t *testing.T) {
	notSecret := map[string]bool{
		"Records": true, "Metadata": true, "Assignment": true, "UserData": true, "ProtocolMetadata": true,
		"Data": true, "Value": true, "Key": true, "Metrics": true, "RequestPrincipal": true, "ClientHostAddress": true,
		"Unreleased": true, "Subscription": true, "MemberMetadata": true, "MemberAssignment": true, "UnalignedRecords": true,
	}
	secret := map[string]bool{"AuthBytes": true, "Hmac": true, "Salt": true, "SaltedPassword": true, "RequestData": true, "ResponseData": true}
	var unknown []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, path string)
	walk = func(t reflect.Type, path string) {
		for t.Kind() == reflect.Pointer || (t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8) {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Uint8 {
				if !secret[f.Name] && !notSecret[f.Name] {
					unknown = append(unknown, path+"."+f.Name)
				}
				continue
			}
			walk(f.Type, path+"."+f.Name)
		}
	}
	for _, api := range messages.APIs() {
		walk(reflect.TypeOf(api.NewRequest()), api.Name+"Request")
		walk(reflect.TypeOf(api.NewResponse()), api.Name+"Response")
	}
	sort.Strings(unknown)
	assert.Empty(t, unknown, "[]byte fields not yet judged secret (trafficlog's secretBytes) or not (this test's notSecret)")
}

func TestSensitiveConfig(t *testing.T) {
	for name, want := range map[string]bool{
		"ssl.key.password": true, "sasl.jaas.config": true, "ssl.keystore.key": true,
		"delegation.token.secret.key": true, "sasl.oauthbearer.client.credentials.client.secret": true,
		"retention.ms": false, "cleanup.policy": false, "message.timestamp.type": false, "ssl.keystore.type": false,
	} {
		assert.Equal(t, want, trafficlog.SensitiveConfig(name), name)
	}
}

func TestJSONLine(t *testing.T) {
	md := messages.NewMetadataResponse()
	md.Topics = []messages.MetadataResponseTopic{{Name: str("orders"), ErrorCode: 3}}
	line := trafficlog.AppendJSON(nil, trafficlog.Event{Time: time.Unix(0, 0), Conn: 2, Dir: trafficlog.Response, Key: 3, Version: 12,
		CorrelationID: 9, ClientID: str("c1"), ClientAddr: "10.0.0.9:5000", Latency: 1500 * time.Microsecond, Msg: md})
	var got map[string]any
	require.NoError(t, json.Unmarshal(line, &got), "%s", line)
	for k, want := range map[string]any{"time": "1970-01-01T00:00:00Z", "conn": 2.0, "dir": "response", "api": "Metadata",
		"key": 3.0, "version": 12.0, "correlation_id": 9.0, "client_id": "c1", "client_addr": "10.0.0.9:5000", "latency_ms": 1.5,
		"summary": "MetadataResponse v12 ControllerID=-1 Topics=1 errors=Topics[0].ErrorCode=UNKNOWN_TOPIC_OR_PARTITION"} {
		assert.Equal(t, want, got[k], k)
	}
	assert.Equal(t, []any{"Topics[0].ErrorCode = UNKNOWN_TOPIC_OR_PARTITION"}, got["errors"])
	topic := got["body"].(map[string]any)["Topics"].([]any)[0].(map[string]any)
	assert.Equal(t, "orders", topic["Name"])
	assert.Equal(t, "00000000-0000-0000-0000-000000000000", topic["TopicID"])
	assert.Equal(t, 1, bytes.Count(line, []byte("\n")))
}

func TestTextLine(t *testing.T) {
	hb := messages.NewHeartbeatResponse()
	hb.ErrorCode = 27
	at := time.Date(2026, 1, 2, 21, 4, 5, 123456000, time.UTC)
	for _, tc := range []struct {
		e    trafficlog.Event
		want string
	}{
		{trafficlog.Event{Time: at, Conn: 3, Dir: trafficlog.Response, Key: 12, Version: 4, CorrelationID: 6, ClientID: str("kgo"),
			Principal: "alice", Latency: 412 * time.Microsecond, Msg: hb},
			`21:04:05.123456 #3 response Heartbeat v4 corr=6 client="kgo" user="alice" 0.412ms | HeartbeatResponse v4 errors=ErrorCode=REBALANCE_IN_PROGRESS` + "\n"},
		{trafficlog.Event{Time: at, Conn: 4, Dir: trafficlog.Request, Key: 999, Version: 1, CorrelationID: 4, Err: errors.New("unknown API key 999")},
			`21:04:05.123456 #4 request  key999 v1 corr=4 | UNDECODABLE: unknown API key 999` + "\n"},
		{trafficlog.Event{Time: at, Conn: 5, Dir: trafficlog.Open, Key: -1, ClientAddr: "10.0.0.1:5", Note: "from 10.0.0.1:5 to b1:9092"},
			`21:04:05.123456 #5 open     | from 10.0.0.1:5 to b1:9092` + "\n"},
	} {
		assert.Equal(t, tc.want, string(trafficlog.AppendText(nil, tc.e)))
	}
}

// stalled is an output that takes no bytes until released.
type stalled struct{ release chan struct{} }

func (s stalled) Write(p []byte) (int, error) { <-s.release; return len(p), nil }

// TestWriterNeverBlocks: with an output that takes nothing, Write keeps
// returning (dropping and counting), and Close gives up after its
// timeout and says what was lost.
func TestWriterNeverBlocks(t *testing.T) {
	out := stalled{release: make(chan struct{})}
	defer close(out.release)
	var mu sync.Mutex
	var notices []string
	drops := 0
	w := trafficlog.NewWriter(out, trafficlog.Options{Queue: 16, FlushTimeout: time.Millisecond,
		Notice: func(m string) { mu.Lock(); notices = append(notices, m); mu.Unlock() },
		OnDrop: func() { drops++ }})
	for i := range 5000 {
		w.Write(trafficlog.Event{Conn: i, Dir: trafficlog.Request, Key: 18})
	}
	// what the queue and the writer's buffer hold is kept; the rest is dropped
	assert.Positive(t, w.Dropped())
	assert.EqualValues(t, w.Dropped(), drops)
	err := w.Close()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stopped taking bytes")
	mu.Lock()
	assert.Equal(t, []string{"log: falling behind; dropping lines (counted at exit)"}, notices)
	mu.Unlock()
}

type failing struct{}

func (failing) Write(p []byte) (int, error) { return 0, errors.New("no space left on device") }

// TestWriterReportsWriteErrors: a log onto a full disk is not lost in
// silence.
func TestWriterReportsWriteErrors(t *testing.T) {
	var notice string
	w := trafficlog.NewWriter(failing{}, trafficlog.Options{Notice: func(m string) { notice = m }})
	for range 10 {
		w.Write(trafficlog.Event{Dir: trafficlog.Request, Key: 18})
	}
	err := w.Close()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no space left on device")
	assert.Contains(t, notice, "no space left on device")
}

// TestWriterCountsLinesLost (issue 27, case 8): every line a write error
// loses reaches OnLost, so a metric can count it as it happens.
func TestWriterCountsLinesLost(t *testing.T) {
	var lost atomic.Int64
	w := trafficlog.NewWriter(failing{}, trafficlog.Options{OnLost: func(n int) { lost.Add(int64(n)) }})
	for range 22 {
		w.Write(trafficlog.Event{Dir: trafficlog.Request, Key: 18})
	}
	require.Error(t, w.Close())
	assert.EqualValues(t, 22, lost.Load()+int64(w.Dropped()))
}

func TestWriterWritesEverythingInOrder(t *testing.T) {
	var b bytes.Buffer
	w := trafficlog.NewWriter(&b, trafficlog.Options{JSON: true, Queue: 100000})
	for i := range 1000 {
		w.Write(trafficlog.Event{Conn: i, Dir: trafficlog.Close, Key: -1, Note: "x"})
	}
	require.NoError(t, w.Close())
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 1000)
	for i, l := range lines {
		var j struct{ Conn int }
		require.NoError(t, json.Unmarshal([]byte(l), &j))
		assert.Equal(t, i, j.Conn)
	}
	_ = io.Discard
}

// SecretFields names every value Redact clears, past Redact's cap on the
// paths it lists, with each one's length.
func TestSecretFieldsListsAll(t *testing.T) {
	resp := &messages.DescribeDelegationTokenResponse{}
	for i := range 10 {
		resp.Tokens = append(resp.Tokens, messages.DescribeDelegationTokenResponseDescribedDelegationToken{Hmac: make([]byte, i+1)})
	}
	resp.Tokens[4].Hmac = nil
	fields := trafficlog.SecretFields(resp)
	require.Len(t, fields, 9)
	assert.Equal(t, trafficlog.SecretField{Path: "Tokens[0].Hmac", Len: 1}, fields[0])
	assert.Equal(t, trafficlog.SecretField{Path: "Tokens[9].Hmac", Len: 10}, fields[8])
	_, paths := trafficlog.Redact(resp)
	assert.Equal(t, "(and 1 more)", paths[len(paths)-1])

	conf := &messages.AlterConfigsRequest{Resources: []messages.AlterConfigsRequestResource{{
		Configs: []messages.AlterConfigsRequestAlterableConfig{{Name: "ssl.key.password", Value: str("pw12")}, {Name: "retention.ms", Value: str("1")}}}}}
	assert.Equal(t, []trafficlog.SecretField{{Path: "Resources[0].Configs[0].Value", Len: 4}}, trafficlog.SecretFields(conf))
	assert.Empty(t, trafficlog.SecretFields(&messages.MetadataRequest{}))
}

// TestJSONLineBody: AppendJSON keeps what b held, writes the body as
// pretty.JSON does, byte for byte, and gives a message it cannot write
// an error object for a body, on a line that is still one JSON object.
func TestJSONLineBody(t *testing.T) {
	md := messages.NewMetadataResponse()
	md.Topics = []messages.MetadataResponseTopic{{Name: str("orders"), Partitions: []messages.MetadataResponsePartition{{PartitionIndex: 4}}}}
	want, err := pretty.JSON(md, 12)
	require.NoError(t, err)
	prefix := []byte("earlier line\n")
	line := trafficlog.AppendJSON(append([]byte(nil), prefix...), trafficlog.Event{Time: time.Unix(0, 0), Conn: 1, Dir: trafficlog.Response, Key: 3, Version: 12, Msg: md})
	require.True(t, bytes.HasPrefix(line, prefix), "%s", line)
	line = line[len(prefix):]
	var got map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(line, &got), "%s", line)
	assert.Equal(t, string(want), string(got["body"]))
	assert.True(t, bytes.HasSuffix(line, append([]byte(`"body":`), append(want, '}', '\n')...)), "%s", line)

	_, wantErr := pretty.JSON(md, 99)
	require.Error(t, wantErr)
	line = trafficlog.AppendJSON(nil, trafficlog.Event{Time: time.Unix(0, 0), Conn: 1, Dir: trafficlog.Response, Key: 3, Version: 99, Msg: md})
	var bad struct {
		Body struct{ Error string }
	}
	require.NoError(t, json.Unmarshal(line, &bad), "%s", line)
	assert.Equal(t, wantErr.Error(), bad.Body.Error)
	assert.Equal(t, 1, bytes.Count(line, []byte("\n")))
}

// TestGivenSummary: a line takes the summary and error codes its Event
// carries (from a writer that walked the message already) instead of
// walking the message again, unless the message holds a secret: then
// they may name what redaction clears, and the line walks the redacted
// message itself.
func TestGivenSummary(t *testing.T) {
	md := messages.NewMetadataResponse()
	md.Topics = []messages.MetadataResponseTopic{{Name: str("orders"), ErrorCode: 3}}
	e := trafficlog.Event{Time: time.Unix(0, 0), Conn: 1, Dir: trafficlog.Response, Key: 3, Version: 12, Msg: md,
		Summary: "MetadataResponse v12 given", ErrorCodes: []kerr.FieldCode{{Path: "Given[0].ErrorCode", Code: 3}}}
	var got struct {
		Summary string
		Errors  []string
	}
	require.NoError(t, json.Unmarshal(trafficlog.AppendJSON(nil, e), &got))
	assert.Equal(t, "MetadataResponse v12 given", got.Summary)
	assert.Equal(t, []string{"Given[0].ErrorCode = UNKNOWN_TOPIC_OR_PARTITION"}, got.Errors)
	assert.Contains(t, string(trafficlog.AppendText(nil, e)), "| MetadataResponse v12 given\n")

	resp := messages.NewSaslAuthenticateResponse()
	resp.AuthBytes = []byte("s=QSXCR+Q6sek8bf92")
	e = trafficlog.Event{Dir: trafficlog.Response, Key: 36, Version: 2, Msg: resp, Summary: "SaslAuthenticateResponse v2 AuthBytes=18"}
	want := trafficlog.Describe(resp, 2, false).Summary
	require.NotEqual(t, e.Summary, want)
	got.Summary = ""
	require.NoError(t, json.Unmarshal(trafficlog.AppendJSON(nil, e), &got))
	assert.Equal(t, want, got.Summary)
	assert.Contains(t, string(trafficlog.AppendText(nil, e)), "| "+want+" | redacted: AuthBytes\n")
}
