package release

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// pipe is net.Pipe with both ends' reads and writes bounded, so that a
// side that stops answering fails the test instead of hanging it.
func pipe() (client, server net.Conn) {
	client, server = net.Pipe()
	deadline := time.Now().Add(30 * time.Second)
	client.SetDeadline(deadline)
	server.SetDeadline(deadline)
	return client, server
}

// fakeBroker answers ApiVersions on conn as a broker of table r that reads
// ApiVersions up to maxV does: above it, UNSUPPORTED_VERSION with its own
// range (kip511) or with none (as before Kafka 2.4). With noApiVersions it
// closes the connection, as brokers before 0.10.0 do. It records the
// versions it was asked.
func fakeBroker(t *testing.T, conn net.Conn, r Release, maxV int16, kip511, noApiVersions bool, asked *[]int16) {
	defer conn.Close()
	frames := kwire.NewFrameReader(conn, 0)
	for {
		frame, err := frames.Next()
		if err != nil {
			return
		}
		key, v, corr, err := kwire.PeekRequest(frame)
		if !assert.NoError(t, err) || !assert.EqualValues(t, 18, key) {
			return
		}
		*asked = append(*asked, v)
		if noApiVersions {
			return
		}
		if v > maxV {
			if kip511 {
				_, err = conn.Write(kwire.AppendUnsupportedAPIVersions(nil, corr, kwire.APIVersionRange{APIKey: 18, MaxVersion: maxV}))
			} else {
				resp := messages.NewApiVersionsResponse()
				resp.ErrorCode = 35
				var out []byte
				out, err = kwire.AppendResponse(nil, resp, 0, corr)
				if err == nil {
					_, err = conn.Write(out)
				}
			}
			if !assert.NoError(t, err) {
				return
			}
			continue
		}
		hdr, req, err := kwire.ReadRequest(frame, func(int16, int16) (any, error) { return messages.NewApiVersionsRequest(), nil })
		if !assert.NoError(t, err) {
			return
		}
		if v >= 3 {
			assert.Equal(t, "kwire-test", req.(*messages.ApiVersionsRequest).ClientSoftwareName)
		}
		assert.Equal(t, "kwire-test", *hdr.ClientID)
		out, err := kwire.AppendResponse(nil, r.ApiVersionsResponse(), v, corr)
		if !assert.NoError(t, err) {
			return
		}
		if _, err := conn.Write(out); !assert.NoError(t, err) {
			return
		}
	}
}

func TestAskAndGuess(t *testing.T) {
	newest := messages.Versions(false)
	var kwireMax int16
	for _, a := range newest {
		if a.APIKey == 18 {
			kwireMax = a.MaxVersion
		}
	}
	for _, tc := range []struct {
		release string
		maxV    int16
		kip511  bool
		asked   []int16
		readAt  int16
	}{
		{"4.4", 5, true, []int16{kwireMax}, kwireMax},
		{"3.7-kraft", 3, true, []int16{kwireMax, 3}, 3},
		{"2.4", 3, true, []int16{kwireMax, 3}, 3},
		{"2.1", 2, false, []int16{kwireMax, 0}, 0}, // before KIP-511: no range named, so v0
		{"0.10.0", 0, false, []int16{kwireMax, 0}, 0},
		{"4.0-controller", 4, true, []int16{kwireMax, 4}, 4},
	} {
		t.Run(tc.release, func(t *testing.T) {
			r, err := ByName(tc.release)
			require.NoError(t, err)
			client, server := pipe()
			var asked []int16
			done := make(chan struct{})
			go func() { defer close(done); fakeBroker(t, server, r, tc.maxV, tc.kip511, false, &asked) }()
			resp, v, err := Ask(client, "kwire-test")
			client.Close()
			<-done
			require.NoError(t, err)
			assert.Equal(t, tc.readAt, v)
			assert.Equal(t, tc.asked, asked)
			m := Guess(resp)
			assert.True(t, m.Exact, m.String())
			assert.Equal(t, r.Name(), m.Release.Name())
		})
	}
	t.Run("0.9.0", func(t *testing.T) {
		r, err := ByName("0.9.0")
		require.NoError(t, err)
		client, server := pipe()
		var asked []int16
		done := make(chan struct{})
		go func() { defer close(done); fakeBroker(t, server, r, 0, false, true, &asked) }()
		_, _, err = Ask(client, "kwire-test")
		client.Close()
		<-done
		assert.ErrorIs(t, err, ErrNoApiVersions)
		assert.Equal(t, []int16{kwireMax}, asked)
	})
}

// A node that answers with something other than an ApiVersions answer
// gets an error that says what it sent, not a guess at its age.
func TestAskHostileAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer []byte
		want   string
	}{
		{"cut mid-frame", []byte{0, 0, 3, 232, 0, 0, 0, 1, 0, 0}, "in the middle of its ApiVersions"},
		{"size past 1 MiB", []byte{0, 0x10, 0, 1, 0, 0, 0, 1}, "frame larger than the limit"},
		{"negative size", []byte{0xff, 0xff, 0xff, 0xfb}, "invalid length"},
		{"truncated body", []byte{0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0}, "ApiVersions v"},
	} {
		client, server := pipe()
		go func() {
			defer server.Close()
			if _, err := kwire.NewFrameReader(server, 0).Next(); err == nil {
				_, _ = server.Write(tc.answer)
			}
		}()
		_, _, err := Ask(client, "kwire-test")
		client.Close()
		if assert.Error(t, err, tc.name) {
			assert.Contains(t, err.Error(), tc.want, tc.name)
			assert.NotErrorIs(t, err, ErrNoApiVersions, tc.name)
		}
	}
}
