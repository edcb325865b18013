package filters

import (
	"reflect"
	"strings"
	"sync"

	"github.com/kwirelabs/kwire/app/proxy"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// DenyTopics keeps clients off a set of topics: the client gets Kafka's
// TOPIC_AUTHORIZATION_FAILED for them, as from a broker's ACLs, and
// everything else as usual. It covers the APIs that read and write
// topics' data and name them to clients: Metadata (denied topics asked
// for get the error; listing all topics leaves them out), Produce and
// Fetch (denied partitions get the error; the rest are served). Topic IDs
// (Produce v13+, Fetch v13+) are matched through the names Metadata
// responses give them. Any other request that names a denied topic
// (ListOffsets, OffsetCommit, DeleteTopics, a config or ACL of the topic,
// ...) closes the connection: the filter fails closed where it cannot
// answer as a broker would.
type DenyTopics struct {
	denied map[string]bool
	ids    sync.Map // kwire.UUID -> topic name, from Metadata responses
}

// NewDenyTopics denies the named topics.
func NewDenyTopics(topics ...string) *DenyTopics {
	d := &DenyTopics{denied: map[string]bool{}}
	for _, t := range topics {
		d.denied[t] = true
	}
	return d
}

func (d *DenyTopics) isDenied(name string, id kwire.UUID) (string, bool) {
	if name == "" && id != (kwire.UUID{}) {
		if n, ok := d.ids.Load(id); ok {
			name = n.(string)
		}
	}
	return name, d.denied[name]
}

func (d *DenyTopics) Request(c *proxy.Conn, r *proxy.Request) proxy.Action {
	switch m := r.Body.(type) {
	case *messages.ProduceRequest:
		return RefuseProduce(r, func(topic string, id kwire.UUID, partition int32, _ []byte) *Refusal {
			if name, denied := d.isDenied(topic, id); denied {
				return &Refusal{kerr.TopicAuthorizationFailed, "topic " + name + " is denied by the proxy"}
			}
			return nil
		})
	case *messages.MetadataRequest:
		d.metadata(r, m)
	case *messages.FetchRequest:
		d.fetch(r, m)
	default:
		if name, ok := d.namesDenied(reflect.ValueOf(r.Body)); ok {
			return proxy.CloseConn(trafficlog.APIName(r.Header.APIKey) + " names the denied topic " + name)
		}
	}
	return proxy.Pass
}

// namesDenied looks for a denied topic anywhere in a request: a Name,
// Topic or TopicName (or a TopicID) of a struct whose type is about
// topics, a []string called Topics or TopicNames, or the ResourceName of
// a topic resource (ResourceType 2: configs, ACLs).
func (d *DenyTopics) namesDenied(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			return d.namesDenied(v.Elem())
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return "", false // bytes: records, metadata
		}
		for i := range v.Len() {
			if name, ok := d.namesDenied(v.Index(i)); ok {
				return name, true
			}
		}
	case reflect.Struct:
		t := v.Type()
		topical := strings.Contains(t.Name(), "Topic")
		if rt, rn := v.FieldByName("ResourceType"), v.FieldByName("ResourceName"); rt.IsValid() && rn.IsValid() &&
			rt.Kind() == reflect.Int8 && rt.Int() == resourceTopic && rn.Kind() == reflect.String && d.denied[rn.String()] {
			return rn.String(), true
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			fv := v.Field(i)
			switch {
			case topical && (f.Name == "Name" || f.Name == "Topic" || f.Name == "TopicName"):
				if s, ok := stringOf(fv); ok && d.denied[s] {
					return s, true
				}
			case topical && f.Name == "TopicID" && f.Type == reflect.TypeOf(kwire.UUID{}):
				if name, no := d.isDenied("", fv.Interface().(kwire.UUID)); no {
					return name, true
				}
			case (f.Name == "Topics" || f.Name == "TopicNames") && f.Type == reflect.TypeOf([]string(nil)):
				for _, s := range fv.Interface().([]string) {
					if d.denied[s] {
						return s, true
					}
				}
			default:
				if name, ok := d.namesDenied(fv); ok {
					return name, true
				}
			}
		}
	}
	return "", false
}

// resourceTopic is Kafka's ResourceType for a topic (configs and ACLs).
const resourceTopic = 2

func stringOf(v reflect.Value) (string, bool) {
	switch {
	case v.Kind() == reflect.String:
		return v.String(), true
	case v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.String:
		return v.Elem().String(), true
	}
	return "", false
}

func (d *DenyTopics) Response(c *proxy.Conn, r *proxy.Response) proxy.Action {
	if m, ok := r.Body.(*messages.MetadataResponse); ok {
		for _, t := range m.Topics {
			if t.Name != nil && t.TopicID != (kwire.UUID{}) {
				d.ids.Store(t.TopicID, *t.Name)
			}
		}
	}
	return proxy.Pass
}

// metadata takes denied topics out of the request and puts them back
// into the response with the error; a request for all topics gets them
// left out of its response.
func (d *DenyTopics) metadata(r *proxy.Request, m *messages.MetadataRequest) {
	var denied []messages.MetadataResponseTopic
	if m.Topics != nil {
		kept := m.Topics[:0:0]
		for _, t := range m.Topics {
			name := ""
			if t.Name != nil {
				name = *t.Name
			}
			if n, no := d.isDenied(name, t.TopicID); no {
				denied = append(denied, messages.MetadataResponseTopic{ErrorCode: int16(kerr.TopicAuthorizationFailed),
					Name: &n, TopicID: t.TopicID, TopicAuthorizedOperations: -2147483648})
				continue
			}
			kept = append(kept, t)
		}
		if len(denied) > 0 {
			m.Topics = kept
			r.Changed()
		}
	}
	r.OnResponse(func(_ *proxy.Conn, resp *proxy.Response) {
		mr, ok := resp.Body.(*messages.MetadataResponse)
		if !ok {
			return
		}
		kept := mr.Topics[:0:0]
		for _, t := range mr.Topics {
			if t.Name != nil && d.denied[*t.Name] {
				resp.Changed()
				continue
			}
			kept = append(kept, t)
		}
		if len(denied) > 0 {
			kept = append(kept, denied...)
			resp.Changed()
		}
		mr.Topics = kept
	})
}

// fetch takes denied topics out of the request and answers their
// partitions with the error in the response.
func (d *DenyTopics) fetch(r *proxy.Request, m *messages.FetchRequest) {
	var denied []messages.FetchResponseFetchableTopicResponse
	kept := m.Topics[:0:0]
	for _, t := range m.Topics {
		if _, no := d.isDenied(t.Topic, t.TopicID); !no {
			kept = append(kept, t)
			continue
		}
		dt := messages.FetchResponseFetchableTopicResponse{Topic: t.Topic, TopicID: t.TopicID}
		for _, p := range t.Partitions {
			dt.Partitions = append(dt.Partitions, messages.FetchResponsePartitionData{PartitionIndex: p.Partition,
				ErrorCode: int16(kerr.TopicAuthorizationFailed), HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1,
				PreferredReadReplica: -1})
		}
		denied = append(denied, dt)
	}
	if len(denied) == 0 {
		return
	}
	m.Topics = kept
	r.Changed()
	r.OnResponse(func(_ *proxy.Conn, resp *proxy.Response) {
		if fr, ok := resp.Body.(*messages.FetchResponse); ok {
			fr.Responses = append(fr.Responses, denied...)
			resp.Changed()
		}
	})
}
