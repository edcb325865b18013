package filters

import (
	"github.com/kwirelabs/kwire/app/proxy"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// Refusal is why a partition's records are refused: a Kafka error code
// and a message for the client (Produce v8+ carries it).
type Refusal struct {
	Code    kerr.Code
	Message string
}

// RefuseProduce lets refuse judge each partition of a Produce request
// (topic by name, or by ID from v13) and answers the refused ones with
// their error, as a broker does: the other partitions go upstream, and
// their response gets the refused partitions added back. When every
// partition is refused nothing goes upstream and the proxy answers.
// Requests of other APIs pass.
func RefuseProduce(r *proxy.Request, refuse func(topic string, id kwire.UUID, partition int32, records []byte) *Refusal) proxy.Action {
	p, ok := r.Body.(*messages.ProduceRequest)
	if !ok {
		return proxy.Pass
	}
	type refused struct {
		topic     int // index in the response's topics
		partition int32
		why       *Refusal
	}
	var out []refused
	var topics []messages.ProduceResponseTopicProduceResponse
	kept := p.TopicData[:0:0]
	for _, t := range p.TopicData {
		var keptParts []messages.ProduceRequestPartitionProduceData
		ti := -1
		for _, part := range t.PartitionData {
			why := refuse(t.Name, t.TopicID, part.Index, part.Records)
			if why == nil {
				keptParts = append(keptParts, part)
				continue
			}
			if ti < 0 {
				ti = len(topics)
				topics = append(topics, messages.ProduceResponseTopicProduceResponse{Name: t.Name, TopicID: t.TopicID})
			}
			out = append(out, refused{ti, part.Index, why})
		}
		if len(keptParts) > 0 {
			t.PartitionData = keptParts
			kept = append(kept, t)
		}
	}
	if len(out) == 0 {
		return proxy.Pass
	}
	for _, o := range out {
		msg := o.why.Message
		topics[o.topic].PartitionResponses = append(topics[o.topic].PartitionResponses, messages.ProduceResponsePartitionProduceResponse{
			Index: o.partition, ErrorCode: int16(o.why.Code), BaseOffset: -1, LogAppendTimeMs: -1, LogStartOffset: -1, ErrorMessage: &msg,
		})
	}
	if len(kept) == 0 {
		resp := messages.NewProduceResponse()
		resp.Responses = topics
		return proxy.Answer(resp)
	}
	p.TopicData = kept
	r.Changed()
	r.OnResponse(func(_ *proxy.Conn, resp *proxy.Response) {
		if pr, ok := resp.Body.(*messages.ProduceResponse); ok {
			pr.Responses = append(pr.Responses, topics...)
			resp.Changed()
		}
	})
	return proxy.Pass
}
