package conform

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/wire"
	"github.com/kwirelabs/kwire/messages"
)

// Robustness checks, each on a connection of its own: the broker must
// answer malformed input with an error answer or by closing the
// connection, and go on serving a connection opened before it.
const (
	checkOrder      = "order"             // pipelined requests are answered in order
	checkAboveMax   = "version-above-max" // a Metadata above the broker's newest
	checkCutShort   = "body-cut-short"    // a Metadata whose body ends early
	checkTrailing   = "trailing-bytes"    // a Metadata with bytes after its body
	checkSizeLimit  = "size-beyond-limit" // a size prefix past Kafka's default limit
	checkUnknownTag = "unknown-tag"       // a tagged field the broker does not know: ignored
	checkUnknownKey = "unknown-key"       // an API key no Kafka has
)

// sizeBeyondLimit is one byte past Kafka's default socket.request.max.bytes.
const sizeBeyondLimit = 100<<20 + 1

// RobustnessChecks are the names of the robustness checks, each run on a
// connection of its own, in the order they run.
var RobustnessChecks = []string{checkOrder, checkUnknownTag, checkAboveMax, checkCutShort, checkTrailing, checkSizeLimit, checkUnknownKey}

// unknownKey is an API key no Kafka release has.
const unknownKey = 32000

func (r *runner) robustness() {
	if r.main != nil {
		r.main.close() // the robustness checks each dial their own
		r.main = nil
	}
	metaAPI, _ := messages.Lookup(keyMetadata)
	mv := r.common[keyMetadata].MaxVersion
	metadata := func() *messages.MetadataRequest {
		m := metaAPI.NewRequest().(*messages.MetadataRequest)
		name := r.env.topic
		m.Topics = []messages.MetadataRequestTopic{{Name: &name}}
		return m
	}
	steps := []struct {
		name string
		run  func(c *client) (Verdict, string, []byte)
	}{
		{checkOrder, func(c *client) (Verdict, string, []byte) { return r.pipelined(c, metaAPI, mv, metadata()) }},
		{checkUnknownTag, func(c *client) (Verdict, string, []byte) { return r.unknownTag(c, metaAPI, mv, metadata()) }},
		{checkAboveMax, func(c *client) (Verdict, string, []byte) {
			frame, _, _ := c.request(metadata(), mv)
			offered := mv
			for _, o := range r.report.Offered {
				if o.APIKey == keyMetadata {
					offered = o.MaxVersion
				}
			}
			setHead(frame, keyMetadata, offered+1)
			return r.malformed(c, frame, fmt.Sprintf("Metadata v%d (the broker offers up to v%d)", offered+1, offered))
		}},
		{checkCutShort, func(c *client) (Verdict, string, []byte) {
			frame, _, _ := c.request(metadata(), mv)
			cut := frame[:len(frame)-len(frame[12:])/2]
			wire.FinishFrame(cut, 0)
			return r.malformed(c, cut, fmt.Sprintf("a Metadata v%d frame of %d bytes cut to %d", mv, len(frame), len(cut)))
		}},
		{checkTrailing, func(c *client) (Verdict, string, []byte) {
			frame, corr, _ := c.request(metadata(), mv)
			long := append(frame, 0xde, 0xad, 0xbe, 0xef)
			wire.FinishFrame(long, 0)
			v, detail, answer := r.malformed(c, long, fmt.Sprintf("a Metadata v%d with 4 bytes after its body", mv))
			if v == Pass && answer != nil {
				// An answer must still be a conforming one.
				if _, fs := r.judgeWith(nil, metaAPI, mv, metadata(), corr, answer, nil); len(fs) > 0 {
					return Fail, fmt.Sprintf("%s: the answer fails %s: %s", detail, fs[0].check, fs[0].detail), answer
				}
			}
			return v, detail, answer
		}},
		{checkSizeLimit, func(c *client) (Verdict, string, []byte) {
			frame, _, _ := c.request(metadata(), mv)
			wire.PutInt32(frame, sizeBeyondLimit)
			return r.malformed(c, frame, fmt.Sprintf("a size prefix of %d (Kafka's default socket.request.max.bytes is %d)", sizeBeyondLimit, sizeBeyondLimit-1))
		}},
		{checkUnknownKey, func(c *client) (Verdict, string, []byte) {
			frame, _, _ := c.request(metadata(), mv)
			setHead(frame, unknownKey, 0)
			return r.malformed(c, frame, fmt.Sprintf("API key %d v0", unknownKey))
		}},
	}
	if _, ok := r.common[keyMetadata]; !ok {
		for _, s := range steps {
			r.addBroker(s.name, Skip, "the broker offers no Metadata, which every robustness check sends", nil)
		}
		return
	}
	for _, s := range steps {
		if slices.Contains(r.opts.SkipChecks, s.name) {
			r.addBroker(s.name, Skip, "not run (-skip)", nil)
			continue
		}
		if r.down != "" {
			r.addBroker(s.name, Skip, r.down, nil)
			continue
		}
		other, err := r.dial()
		if err != nil {
			r.down = "the broker stopped taking connections: " + err.Error()
			r.addBroker(s.name, Skip, r.down, nil)
			continue
		}
		c, err := r.dial()
		if err != nil {
			other.close()
			r.down = "the broker stopped taking connections: " + err.Error()
			r.addBroker(s.name, Skip, r.down, nil)
			continue
		}
		v, detail, answer := s.run(c)
		c.close()
		if why := r.healthy(other); why != "" {
			v, detail = Fail, detail+"; then "+why
		}
		other.close()
		r.addBroker(s.name, v, detail, answer)
	}
	if r.down == "" {
		// The teardown needs a connection again.
		if c, err := r.dial(); err == nil {
			r.main = c
		}
	}
}

func (r *runner) addBroker(check string, v Verdict, detail string, answer []byte) {
	res := Result{API: "broker", Key: -1, Version: -1, Check: check, Verdict: v, Detail: detail}
	if answer != nil && v == Fail {
		res.Response = hexOf(answer)
	}
	r.add(res)
}

// malformed sends frame, which the broker must refuse, and waits for an
// answer with frame's correlation id (an error answer) or the
// connection's close; what it does is the detail.
func (r *runner) malformed(c *client, frame []byte, what string) (Verdict, string, []byte) {
	corr := requestHead(frame).CorrelationID
	if err := c.write(frame); err != nil {
		return Pass, what + ": the broker closed the connection while it was sent", nil
	}
	answer, err := c.read()
	switch {
	case err == nil && len(answer) >= 8 && responseCorr(answer) == corr:
		return Pass, what + fmt.Sprintf(": answered (%d bytes)", len(answer)), answer
	case err == nil:
		return Fail, what + fmt.Sprintf(": answered a %d-byte frame with another correlation id", len(answer)), answer
	case errors.Is(err, os.ErrDeadlineExceeded):
		return Fail, what + fmt.Sprintf(": neither answered nor closed the connection within %s", r.opts.Timeout), nil
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), isReset(err):
		return Pass, what + ": the broker closed the connection", nil
	}
	return Fail, what + ": " + err.Error(), nil
}

// healthy says why the broker no longer serves c, a connection opened
// before the malformed input, or a new one, or "" when it serves both.
// It asks Metadata, which a proxy in front must relay, after a pause: a
// process that dies of the input may take a moment to go.
func (r *runner) healthy(c *client) string {
	time.Sleep(healthPause)
	api, _ := messages.Lookup(keyMetadata)
	v := r.common[keyMetadata].MaxVersion
	if why := r.serves(c, api, v); why != "" {
		why = "a connection opened before it no longer serves: " + why
		if c2, err := r.dial(); err != nil {
			r.down = "the broker stopped taking connections: " + err.Error()
		} else {
			if why2 := r.serves(c2, api, v); why2 != "" {
				r.down = "the broker stopped serving: a new connection: " + why2
			}
			c2.close()
		}
		if r.down != "" {
			why += "; " + r.down
		}
		return why
	}
	return ""
}

// healthPause is how long healthy waits before it asks (a variable for
// the tests, whose fake broker fails at once).
var healthPause = 200 * time.Millisecond

// serves asks Metadata v for the checker's topic on c and says what went
// wrong, or "".
func (r *runner) serves(c *client, api messages.API, v int16) string {
	req := api.NewRequest().(*messages.MetadataRequest)
	name := r.env.topic
	req.Topics = []messages.MetadataRequestTopic{{Name: &name}}
	frame, corr, err := c.request(req, v)
	if err != nil {
		return err.Error()
	}
	var answer []byte
	if err = c.write(frame); err == nil {
		answer, err = c.read()
	}
	// Serving is answering in form; what the answer says is the
	// per-API checks' business.
	if _, fs := r.judgeWith(nil, api, v, req, corr, answer, err); len(fs) > 0 {
		return fs[0].detail
	}
	return ""
}

// pipelined writes four requests at once and reads the answers: they
// must come in the order asked.
func (r *runner) pipelined(c *client, api messages.API, v int16, req any) (Verdict, string, []byte) {
	var all []byte
	var corrs []int32
	for range 4 {
		frame, corr, err := c.request(req, v)
		if err != nil {
			return Skip, err.Error(), nil
		}
		all = append(all, frame...)
		corrs = append(corrs, corr)
	}
	if err := c.write(all); err != nil {
		return Fail, "write: " + err.Error(), nil
	}
	var got []int32
	for i := range corrs {
		answer, err := c.read()
		if err != nil {
			return Fail, fmt.Sprintf("answer %d of 4: %s", i+1, noAnswer(err, r.opts.Timeout)), nil
		}
		got = append(got, responseCorr(answer))
	}
	for i := range corrs {
		if got[i] != corrs[i] {
			return Fail, fmt.Sprintf("4 Metadata v%d pipelined as correlation ids %v, answered as %v", v, corrs, got), nil
		}
	}
	return Pass, fmt.Sprintf("4 Metadata v%d pipelined, answered in order", v), nil
}

// unknownTag sends req with a tagged field no schema has in its body
// (and, in header v2, its header): a flexible reader must skip it.
func (r *runner) unknownTag(c *client, api messages.API, v int16, req *messages.MetadataRequest) (Verdict, string, []byte) {
	if !api.IsFlexible(v) {
		return Skip, fmt.Sprintf("Metadata v%d is not flexible", v), nil
	}
	req.UnknownTags = kwire.NewUnknownTags(kwire.TaggedField{Tag: 9999, Data: []byte{0xca, 0xfe}})
	corr := c.nextCorr()
	id := c.id
	h := kwire.RequestHeader{APIVersion: v, CorrelationID: corr, ClientID: &id,
		UnknownTags: kwire.NewUnknownTags(kwire.TaggedField{Tag: 9998, Data: []byte{1}})}
	frame, err := kwire.AppendRequestWithHeader(nil, h, req)
	if err != nil {
		return Skip, err.Error(), nil
	}
	if err := c.write(frame); err != nil {
		return Fail, "write: " + err.Error(), nil
	}
	answer, err := c.read()
	_, fs := r.judgeWith(nil, api, v, req, corr, answer, err)
	if len(fs) > 0 {
		return Fail, fmt.Sprintf("Metadata v%d with tag 9999 in its body and 9998 in its header: %s: %s", v, fs[0].check, fs[0].detail), answer
	}
	return Pass, fmt.Sprintf("Metadata v%d with unknown tags 9999 (body) and 9998 (header): answered as without", v), nil
}

func isReset(err error) bool {
	var op interface{ Timeout() bool }
	return errors.As(err, &op) && !op.Timeout()
}
