package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/secrettest"
	"github.com/kwirelabs/kwire/app/sniff/capturetest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

const plainSecret = "s3cret-pw"

// saslCapture holds a SASL PLAIN login both ways Kafka allows (raw
// tokens after SaslHandshake v0; SaslAuthenticate after v1), a TLS
// ClientHello on a Kafka port, and a Metadata exchange with an error.
func saslCapture(t *testing.T) *capturetest.Capture {
	c := capturetest.New()
	client := "kcat"
	frame := func(b []byte, err error) []byte {
		require.NoError(t, err)
		return b
	}
	plain := []byte("\x00alice\x00" + plainSecret)

	v0 := c.Dial("10.0.0.5:40001", "10.0.0.9:9092", true)
	v0.Send(true, frame(kwire.AppendRequest(nil, &messages.SaslHandshakeRequest{Mechanism: "PLAIN"}, 0, 1, &client)), 1460)
	v0.Send(false, frame(kwire.AppendResponse(nil, &messages.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}}, 0, 1)), 1460)
	v0.Send(true, binary.BigEndian.AppendUint32(nil, uint32(len(plain))), 1460)
	v0.Send(true, plain, 1460)
	v0.Send(false, []byte{0, 0, 0, 0}, 1460) // the broker's empty answer
	md := &messages.MetadataRequest{}
	require.NoError(t, kwire.FillMinimal(md, 12))
	v0.Send(true, frame(kwire.AppendRequest(nil, md, 12, 2, &client)), 1460)
	mdr := &messages.MetadataResponse{}
	require.NoError(t, kwire.FillMinimal(mdr, 12))
	mdr.Topics[0].ErrorCode = 3 // UNKNOWN_TOPIC_OR_PARTITION
	v0.Send(false, frame(kwire.AppendResponse(nil, mdr, 12, 2)), 1460)
	v0.Close()

	v1 := c.Dial("10.0.0.6:40002", "10.0.0.9:9092", true)
	v1.Send(true, frame(kwire.AppendRequest(nil, &messages.SaslHandshakeRequest{Mechanism: "PLAIN"}, 1, 1, &client)), 1460)
	v1.Send(false, frame(kwire.AppendResponse(nil, &messages.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}}, 1, 1)), 1460)
	v1.Send(true, frame(kwire.AppendRequest(nil, &messages.SaslAuthenticateRequest{AuthBytes: plain}, 2, 2, &client)), 1460)
	v1.Send(false, frame(kwire.AppendResponse(nil, &messages.SaslAuthenticateResponse{AuthBytes: []byte{}}, 2, 2)), 1460)
	v1.Close()

	tls := c.Dial("10.0.0.7:51234", "10.0.0.9:9093", true)
	hello := append([]byte{0x16, 0x03, 0x01, 0x00, 0x40, 0x01, 0x00, 0x00, 0x3c, 0x03, 0x03}, make([]byte, 61)...)
	tls.Send(true, hello, 1460)
	tls.Close()
	return c
}

func writeCapture(t *testing.T, data []byte, name string) string {
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// noSecret fails if the PLAIN password shows in out in any encoding.
func noSecret(t *testing.T, out string) {
	if form, found := secrettest.Find([]byte(out), []byte(plainSecret)); found {
		t.Errorf("the password is in the output as %s", form)
	}
}

func TestSniffTextAndJSON(t *testing.T) {
	c := saslCapture(t)
	for _, format := range []string{"pcap", "pcapng"} {
		data := c.Pcap()
		if format == "pcapng" {
			data = c.Pcapng()
		}
		path := writeCapture(t, data, "sasl."+format)

		var out bytes.Buffer
		require.NoError(t, runSniff([]string{"-r", path}, nil, &out, &out))
		text := out.String()
		noSecret(t, text)
		assert.Contains(t, text, "TLS ClientHello on 10.0.0.7:51234 → :9093: encrypted, not decodable")
		assert.Equal(t, 2, strings.Count(text, "raw SASL token"), text)
		assert.Contains(t, text, "SaslAuthenticate v2 corr=2")
		assert.Contains(t, text, "Metadata v12 corr=2")
		assert.Contains(t, text, "UNKNOWN_TOPIC_OR_PARTITION")
		assert.Contains(t, text, "-- summary")

		out.Reset()
		require.NoError(t, runSniff([]string{"-r", "-", "-json"}, bytes.NewReader(data), &out, &out))
		noSecret(t, out.String())
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var responses int
		for _, l := range lines {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(l), &m), l)
			if m["dir"] == "response" && m["api"] != nil {
				responses++
				assert.NotNil(t, m["latency_ms"], l)
				assert.Equal(t, "kcat", m["client_id"], l)
			}
		}
		assert.Equal(t, 4, responses)
		assert.Contains(t, out.String(), `"principal":"alice"`)
		assert.Contains(t, lines[len(lines)-1], `"summary"`)

		out.Reset()
		require.NoError(t, runSniff([]string{"-r", path, "-errors"}, nil, &out, &out))
		lines = strings.Split(strings.TrimSpace(strings.Split(out.String(), "\n-- summary")[0]), "\n")
		assert.Len(t, lines, 2, out.String()) // the Metadata response, the TLS connection
		assert.Contains(t, lines[0], "Metadata v12")

		out.Reset()
		require.NoError(t, runSniff([]string{"-r", path, "-api", "SaslAuthenticate", "-client", "kcat"}, nil, &out, &out))
		shown := strings.Split(out.String(), "\n-- summary")[0]
		assert.Equal(t, 2, strings.Count(shown, "SaslAuthenticate v2"), out.String())
		assert.NotContains(t, shown, "Metadata v12")
	}
}

// produceLine is the first Produce request line of sniff -json output.
func produceLine(t *testing.T, out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"api":"Produce"`) && strings.Contains(l, `"dir":"request"`) {
			return l
		}
	}
	t.Fatalf("no Produce request line in:\n%s", out)
	return ""
}

// TestSniffRawRecords (issue 27, case 14): with -json -raw-records a
// Produce request's line carries its records as bytes, and kwire encode
// turns the line back into the frame the capture holds.
func TestSniffRawRecords(t *testing.T) {
	c := capturetest.New()
	k := c.Dial("10.0.0.5:40001", "10.0.0.9:9092", true)
	client := "producer"
	batch, err := record.Build([]record.Record{{Key: []byte("k"), Value: []byte("hello")}})
	require.NoError(t, err)
	p := messages.NewProduceRequest()
	p.Acks, p.TimeoutMs = -1, 1000
	p.TopicData = []messages.ProduceRequestTopicProduceData{{Name: "orders",
		PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: 0, Records: batch}}}}
	req, err := kwire.AppendRequest(nil, p, 9, 7, &client)
	require.NoError(t, err)
	k.Send(true, req, 1460)
	k.Close()
	path := writeCapture(t, c.Pcap(), "produce.pcap")

	var out bytes.Buffer
	require.NoError(t, runSniff([]string{"-r", path, "-json", "-raw-records"}, nil, &out, &out))
	line := produceLine(t, out.String())
	var frame bytes.Buffer
	require.NoError(t, runEncode([]string{"-raw"}, strings.NewReader(line), &frame))
	assert.Equal(t, req, frame.Bytes(), "the line re-encodes to the captured frame")

	out.Reset()
	require.NoError(t, runSniff([]string{"-r", path, "-json"}, nil, &out, &out))
	line = produceLine(t, out.String())
	assert.Error(t, runEncode([]string{"-raw"}, strings.NewReader(line), &frame), "a records summary does not re-encode")

	assert.Error(t, runSniff([]string{"-r", path, "-raw-records"}, nil, &out, &out), "-raw-records needs -json")
}

// TestSniffDirectory (issue 27, case 14): -r DIR says it is a directory,
// not "not a capture: 0 bytes".
func TestSniffDirectory(t *testing.T) {
	err := runSniff([]string{"-r", t.TempDir()}, nil, &bytes.Buffer{}, &bytes.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a directory")
}

// TestSniffJSONSummaryErrorsList (issue 27, case 14): the JSON summary
// lists no errors as [], not null.
func TestSniffJSONSummaryErrorsList(t *testing.T) {
	c := capturetest.New()
	k := c.Dial("10.0.0.5:40001", "10.0.0.9:9092", true)
	req, err := kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 1, nil)
	require.NoError(t, err)
	k.Send(true, req, 1460)
	k.Close()
	var out bytes.Buffer
	require.NoError(t, runSniff([]string{"-r", "-", "-json", "-summary"}, bytes.NewReader(c.Pcap()), &out, &out))
	assert.Contains(t, out.String(), `"errors":[]`)
	assert.NotContains(t, out.String(), `"errors":null`)
}
