package conform

import (
	"fmt"
	"time"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
	"github.com/kwirelabs/kwire/messages/release"
)

const (
	keyApiVersions  = 18
	keyMetadata     = 3
	keyCreateTopics = 19
	keyDeleteTopics = 20
)

// negotiate opens the main connection and asks what the broker speaks:
// the ranges it offers (compared with Kafka's release tables) and the
// KIP-511 answer to an ApiVersions above its newest.
func (r *runner) negotiate() error {
	c, err := r.dial()
	if err != nil {
		return fmt.Errorf("conform: %s: %w: %v", r.addr, ErrUnreachable, err)
	}
	r.main = c
	c.conn.SetDeadline(time.Now().Add(r.opts.Timeout))
	resp, version, err := release.Ask(c.conn, r.opts.ClientID)
	c.conn.SetDeadline(time.Time{})
	c.corr = 100 // Ask used the first ids
	if err != nil {
		c.close()
		return fmt.Errorf("conform: %s: %w: %v", r.addr, ErrUnreachable, err)
	}
	// Ask read on its own frame reader: start a fresh connection for the rest.
	c.close()
	if r.main, err = r.dial(); err != nil {
		return fmt.Errorf("conform: %s: %w: %v", r.addr, ErrUnreachable, err)
	}
	var offered []kwire.APIVersionRange
	for _, k := range resp.ApiKeys {
		offered = append(offered, kwire.APIVersionRange{APIKey: k.ApiKey, MinVersion: k.MinVersion, MaxVersion: k.MaxVersion})
	}
	r.report.Offered = offered
	r.common = map[int16]kwire.APIVersionRange{}
	for _, v := range kwire.IntersectVersions(offered, messages.Versions(false)) {
		r.common[v.APIKey] = v
	}
	m := release.Guess(resp)
	r.report.Release = m.String()
	r.add(Result{API: "ApiVersions", Key: keyApiVersions, Version: -1, Check: "release", Verdict: Info,
		Detail: fmt.Sprintf("answered at v%d; offers %d APIs; %s", version, len(offered), m.String())})
	var unknownToKwire []string
	for _, o := range offered {
		if _, ok := messages.Lookup(o.APIKey); !ok {
			unknownToKwire = append(unknownToKwire, fmt.Sprint(o.APIKey))
		}
	}
	if len(unknownToKwire) > 0 {
		r.add(Result{API: "ApiVersions", Key: keyApiVersions, Version: -1, Check: "offered-unknown", Verdict: Info,
			Detail: fmt.Sprintf("offers keys kwire has no schema for: %v (not checked)", unknownToKwire)})
	}
	r.kip511(offered)
	return nil
}

// kip511: an ApiVersions above the broker's newest gets a v0 answer
// (header v0) with UNSUPPORTED_VERSION and the broker's ApiVersions
// range, so a newer client can ask again.
func (r *runner) kip511(offered []kwire.APIVersionRange) {
	res := Result{API: "ApiVersions", Key: keyApiVersions, Version: -1, Check: "kip-511"}
	var top int16 = -1
	for _, o := range offered {
		if o.APIKey == keyApiVersions {
			top = o.MaxVersion
		}
	}
	if top < 0 {
		res.Verdict, res.Detail = Fail, "the broker's ApiVersions does not list ApiVersions"
		r.add(res)
		return
	}
	api, _ := messages.Lookup(keyApiVersions)
	ask := top + 1
	res.Detail = fmt.Sprintf("asked v%d", ask)
	// A body kwire can write (its newest flexible version) under the
	// version the broker does not know: ApiVersions' body is the same
	// from v3 on, and a broker must not read it anyway.
	req := api.NewRequest().(*messages.ApiVersionsRequest)
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kwire-conform", "1"
	body := min(max(ask, 0), api.MaxVersion)
	c, err := r.dial()
	if err != nil {
		res.Verdict, res.Detail = Fail, "dial: "+err.Error()
		r.add(res)
		return
	}
	defer c.close()
	frame, corr, err := c.request(req, body)
	if err != nil {
		res.Verdict, res.Detail = Skip, err.Error()
		r.add(res)
		return
	}
	setHead(frame, keyApiVersions, ask)
	if err := c.write(frame); err != nil {
		res.Verdict, res.Detail = Fail, "write: "+err.Error()
		r.add(res)
		return
	}
	answer, err := c.read()
	v0 := api
	got, fs := r.judgeWith(nil, v0, 0, req, corr, answer, err) // an error answer, by design
	if len(fs) > 0 {
		res.Verdict, res.Detail = Fail, fmt.Sprintf("asked v%d, read as v0: %s: %s", ask, fs[0].check, fs[0].detail)
		res.Response, res.Layout = hexOf(answer), layout(api, 0, answer, fs[0].at)
		r.add(res)
		return
	}
	resp := got.(*messages.ApiVersionsResponse)
	switch {
	case kerr.Code(resp.ErrorCode) != kerr.UnsupportedVersion:
		res.Verdict, res.Detail = Fail, fmt.Sprintf("asked v%d: error code %d, not UNSUPPORTED_VERSION (35)", ask, resp.ErrorCode)
	case !listsApiVersions(resp):
		res.Verdict, res.Detail = Fail, fmt.Sprintf("asked v%d: UNSUPPORTED_VERSION without the broker's ApiVersions range", ask)
	default:
		res.Verdict = Pass
		res.Detail = fmt.Sprintf("asked v%d: a v0 answer, UNSUPPORTED_VERSION, %d keys", ask, len(resp.ApiKeys))
	}
	if res.Verdict == Fail {
		res.Response, res.Layout = hexOf(answer), layout(api, 0, answer, 8)
	}
	r.add(res)
}

func listsApiVersions(resp *messages.ApiVersionsResponse) bool {
	for _, k := range resp.ApiKeys {
		if k.ApiKey == keyApiVersions {
			return true
		}
	}
	return false
}

// setup creates the checker's topic (CreateTopics on its own prefix,
// when the broker offers it) and learns the brokers and the topic's id
// from Metadata.
func (r *runner) setup() {
	r.env = newEnv(r.opts.Prefix)
	if _, ok := r.common[keyCreateTopics]; ok {
		api, _ := messages.Lookup(keyCreateTopics)
		v := r.common[keyCreateTopics].MaxVersion
		req := api.NewRequest().(*messages.CreateTopicsRequest)
		for _, name := range []string{r.env.topic, r.env.scratch} {
			req.Topics = append(req.Topics, messages.CreateTopicsRequestCreatableTopic{Name: name, NumPartitions: r.env.partitions, ReplicationFactor: -1})
		}
		if v < 4 { // -1 (the broker's default) arrived in v4
			for i := range req.Topics {
				req.Topics[i].ReplicationFactor = 1
			}
		}
		req.TimeoutMs = 5000
		if resp, err := r.call(api, v, req); err == nil {
			r.env.created = true
			for _, t := range resp.(*messages.CreateTopicsResponse).Topics {
				if t.ErrorCode != 0 && t.ErrorCode != 36 { // 36: it exists already (an earlier run)
					r.env.created = false
				}
			}
		}
	}
	if _, ok := r.common[keyMetadata]; ok {
		api, _ := messages.Lookup(keyMetadata)
		v := r.common[keyMetadata].MaxVersion
		req := api.NewRequest().(*messages.MetadataRequest)
		name := r.env.topic
		req.Topics = []messages.MetadataRequestTopic{{Name: &name}}
		if resp, err := r.call(api, v, req); err == nil {
			m := resp.(*messages.MetadataResponse)
			r.env.brokers = map[int32]string{}
			for _, b := range m.Brokers {
				r.env.brokers[b.NodeID] = fmt.Sprintf("%s:%d", b.Host, b.Port)
			}
			for _, t := range m.Topics {
				if t.Name != nil && *t.Name == r.env.topic && t.ErrorCode == 0 {
					r.env.topicID = t.TopicID
					if n := int32(len(t.Partitions)); n > 0 {
						r.env.partitions = n
					}
				}
			}
		}
	}
	res := Result{API: "CreateTopics", Key: keyCreateTopics, Version: -1, Check: "setup", Verdict: Info}
	if r.env.created {
		res.Detail = fmt.Sprintf("created %s (%d partitions) and %s", r.env.topic, r.env.partitions, r.env.scratch)
	} else {
		res.Detail = fmt.Sprintf("could not create %s: requests name it anyway", r.env.topic)
	}
	r.add(res)
}

// teardown deletes the checker's topics.
func (r *runner) teardown() {
	if _, ok := r.common[keyDeleteTopics]; !ok || r.down != "" || r.main == nil {
		return
	}
	api, _ := messages.Lookup(keyDeleteTopics)
	v := r.common[keyDeleteTopics].MaxVersion
	req := api.NewRequest().(*messages.DeleteTopicsRequest)
	req.TimeoutMs = 5000
	for _, name := range []string{r.env.topic, r.env.scratch} {
		if v >= 6 {
			n := name
			req.Topics = append(req.Topics, messages.DeleteTopicsRequestDeleteTopicState{Name: &n})
		} else {
			req.TopicNames = append(req.TopicNames, name)
		}
	}
	r.call(api, v, req)
	r.main.close()
}

// call sends one request on the main connection and returns its answer,
// decoded, when it conforms.
func (r *runner) call(api messages.API, v int16, req any) (any, error) {
	frame, corr, err := r.main.request(req, v)
	if err != nil {
		return nil, err
	}
	if err := r.main.write(frame); err != nil {
		return nil, err
	}
	answer, err := r.main.read()
	resp, fs := r.judge(api, v, req, corr, answer, err)
	if len(fs) > 0 {
		r.reconnect()
		return resp, fmt.Errorf("%s: %s", fs[0].check, fs[0].detail)
	}
	return resp, nil
}
