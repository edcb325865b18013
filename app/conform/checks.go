package conform

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// Check is one rule of an API that its schema alone cannot say. Func
// gets an answer that decoded exactly and returns nil when the rule
// holds; a *PathError (atPath) lets the report mark the field's byte.
// Append to Checks to add one.
type Check struct {
	Keys []int16 // the APIs it applies to
	Name string
	Func func(x *Exchange) error
}

func (c Check) applies(key int16) bool { return slices.Contains(c.Keys, key) }

// Checks are the per-API checks every answer of their APIs gets, after
// the ones every answer gets (answer, correlation, header, decode,
// error-codes, throttle).
var Checks = []Check{
	{Keys: []int16{0, 1, 2, 8, 21, 23, 28}, Name: "partitions-answered", Func: partitionsAnswered},
	{Keys: []int16{3}, Name: "metadata-topics", Func: metadataTopics},
	{Keys: []int16{3}, Name: "metadata-brokers", Func: metadataBrokers},
	{Keys: []int16{10}, Name: "coordinator-listed", Func: coordinatorListed},
	{Keys: []int16{1}, Name: "fetch-batches", Func: fetchBatches},
	{Keys: []int16{18}, Name: "apiversions-self", Func: apiVersionsSelf},
}

// partitionsAnswered: one answer for every topic and partition asked,
// and none for a partition not asked (Produce, Fetch, ListOffsets,
// OffsetCommit, DeleteRecords, OffsetForLeaderEpoch, TxnOffsetCommit).
// A Fetch refused as a whole (a top-level error) answers none.
func partitionsAnswered(x *Exchange) error {
	if f, ok := x.Response.(*messages.FetchResponse); ok && f.ErrorCode != 0 {
		return nil
	}
	asked, ok := topicPartitions(x.Request, x.Version)
	if !ok {
		return nil
	}
	got, ok := topicPartitions(x.Response, x.Version)
	if !ok {
		return nil
	}
	for k, path := range asked {
		if _, ok := got[k]; !ok {
			return atPath(firstArray(x.Response, x.Version), "no answer for %s, which the request asks", k)
		}
		_ = path
	}
	var extra []string
	for k := range got {
		if _, ok := asked[k]; !ok {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return atPath(got[extra[0]], "answers %s, which the request does not ask", extra[0])
	}
	return nil
}

// topicPartitions finds a message's topics (its first array of structs
// naming a topic) and each one's partitions, as "topic/partition" keys
// with the path of their element.
func topicPartitions(msg any, version int16) (map[string]string, bool) {
	s, err := kwire.SchemaOf(msg, version)
	if err != nil {
		return nil, false
	}
	v := reflect.ValueOf(msg).Elem()
	for _, f := range s.Fields {
		if f.Elem == nil || f.Elem.Struct == nil {
			continue
		}
		ts := f.Elem.Struct
		nameAt, partsAt := -1, -1
		for i, tf := range ts.Fields {
			switch {
			case nameAt < 0 && (tf.Name == "Name" || tf.Name == "Topic" || tf.Name == "TopicName" || tf.Name == "TopicID"):
				nameAt = i
			case partsAt < 0 && tf.Elem != nil && tf.Elem.Struct != nil && partitionField(tf.Elem.Struct) >= 0:
				partsAt = i
			}
		}
		if nameAt < 0 || partsAt < 0 {
			continue
		}
		out := map[string]string{}
		arr := v.Field(f.Index)
		for i := 0; i < arr.Len(); i++ {
			t := arr.Index(i)
			name := fmt.Sprint(t.Field(ts.Fields[nameAt].Index).Interface())
			if p, ok := t.Field(ts.Fields[nameAt].Index).Interface().(*string); ok {
				name = "null"
				if p != nil {
					name = *p
				}
			}
			pf := ts.Fields[partsAt]
			ps := t.Field(pf.Index)
			pi := pf.Elem.Struct.Fields[partitionField(pf.Elem.Struct)].Index
			for j := 0; j < ps.Len(); j++ {
				key := fmt.Sprintf("%s/%d", name, ps.Index(j).Field(pi).Int())
				if _, dup := out[key]; !dup {
					out[key] = fmt.Sprintf("%s[%d].%s[%d]", f.Name, i, pf.Name, j)
				}
			}
		}
		return out, true
	}
	return nil, false
}

// partitionField is the index in s.Fields of a partition's number.
func partitionField(s *kwire.Schema) int {
	for i, f := range s.Fields {
		switch f.Name {
		case "Partition", "PartitionIndex", "Index":
			return i
		}
	}
	return -1
}

// firstArray is the name of msg's first array of structs.
func firstArray(msg any, version int16) string {
	s, err := kwire.SchemaOf(msg, version)
	if err != nil {
		return ""
	}
	for _, f := range s.Fields {
		if f.Elem != nil && f.Elem.Struct != nil {
			return f.Name
		}
	}
	return ""
}

// metadataTopics: every topic asked by name is answered.
func metadataTopics(x *Exchange) error {
	req, resp := x.Request.(*messages.MetadataRequest), x.Response.(*messages.MetadataResponse)
	got := map[string]bool{}
	for _, t := range resp.Topics {
		if t.Name != nil {
			got[*t.Name] = true
		}
	}
	for i, t := range req.Topics {
		if t.Name != nil && !got[*t.Name] {
			return atPath("Topics", "no answer for topic %q (Topics[%d] of the request)", *t.Name, i)
		}
	}
	return nil
}

// metadataBrokers: every leader, replica and in-sync replica is a listed
// broker (a replica may instead be listed offline), and so is the
// controller (or -1).
func metadataBrokers(x *Exchange) error {
	resp := x.Response.(*messages.MetadataResponse)
	listed := map[int32]bool{}
	for _, b := range resp.Brokers {
		listed[b.NodeID] = true
	}
	if x.Version >= 1 && resp.ControllerID != -1 && !listed[resp.ControllerID] {
		return atPath("ControllerID", "controller %d is not a listed broker", resp.ControllerID)
	}
	for i, t := range resp.Topics {
		for j, p := range t.Partitions {
			path := fmt.Sprintf("Topics[%d].Partitions[%d]", i, j)
			if p.ErrorCode != 0 {
				continue
			}
			if p.LeaderID != -1 && !listed[p.LeaderID] {
				return atPath(path+".LeaderID", "leader %d is not a listed broker", p.LeaderID)
			}
			for _, n := range p.ReplicaNodes {
				if !listed[n] && !slices.Contains(p.OfflineReplicas, n) {
					return atPath(path+".ReplicaNodes", "replica %d is neither a listed broker nor offline", n)
				}
			}
			for _, n := range p.IsrNodes {
				if !listed[n] {
					return atPath(path+".IsrNodes", "in-sync replica %d is not a listed broker", n)
				}
			}
		}
	}
	return nil
}

// coordinatorListed: a coordinator found is a broker Metadata lists, at
// the address it lists.
func coordinatorListed(x *Exchange) error {
	if len(x.Brokers) == 0 {
		return nil
	}
	resp := x.Response.(*messages.FindCoordinatorResponse)
	check := func(path string, code int16, node int32, host string, port int32) error {
		if code != 0 {
			return nil
		}
		addr, ok := x.Brokers[node]
		if !ok {
			return atPath(path+"NodeID", "coordinator %d is not a broker Metadata lists", node)
		}
		if got := fmt.Sprintf("%s:%d", host, port); got != addr {
			return atPath(path+"Host", "coordinator %d at %s, Metadata lists it at %s", node, got, addr)
		}
		return nil
	}
	if x.Version < 4 {
		return check("", resp.ErrorCode, resp.NodeID, resp.Host, resp.Port)
	}
	for i, c := range resp.Coordinators {
		if err := check(fmt.Sprintf("Coordinators[%d].", i), c.ErrorCode, c.NodeID, c.Host, c.Port); err != nil {
			return err
		}
	}
	return nil
}

// fetchBatches: a Fetch's records are valid batches, CRCs and all (a
// partial batch at the end is allowed, as Kafka sends one).
func fetchBatches(x *Exchange) error {
	resp := x.Response.(*messages.FetchResponse)
	for i, t := range resp.Responses {
		for j, p := range t.Partitions {
			if len(p.Records) == 0 {
				continue
			}
			if _, _, err := record.ReadBatches(p.Records); err != nil {
				return atPath(fmt.Sprintf("Responses[%d].Partitions[%d].Records", i, j), "%v", err)
			}
		}
	}
	return nil
}

// apiVersionsSelf: an ApiVersions answer without an error lists
// ApiVersions itself, at a range holding the version asked.
func apiVersionsSelf(x *Exchange) error {
	resp := x.Response.(*messages.ApiVersionsResponse)
	if resp.ErrorCode != 0 {
		return atPath("ErrorCode", "error %d to a version the broker offers", resp.ErrorCode)
	}
	for _, k := range resp.ApiKeys {
		if k.ApiKey == 18 {
			if x.Version < k.MinVersion || x.Version > k.MaxVersion {
				return atPath("ApiKeys", "lists ApiVersions v%d-%d, but answered v%d", k.MinVersion, k.MaxVersion, x.Version)
			}
			return nil
		}
	}
	return atPath("ApiKeys", "does not list ApiVersions (%s)", strings.TrimSpace(""))
}
