package conform

import (
	"reflect"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// class says what a request may do to a broker others use.
type class uint8

const (
	// readOnly requests change nothing others see.
	readOnly class = iota + 1
	// own requests act only on what they name, and prepare names only
	// the checker's own topics, groups and transactions.
	own
	// destructive requests may change the cluster for everyone (configs,
	// ACLs, quotas, reassignments) or speak for a broker or controller;
	// they are sent only with Options.Destructive.
	destructive
)

// classes are the APIs a default run sends; every API not named here is
// destructive.
var classes = map[string]class{
	"Produce": own, "Fetch": readOnly, "ListOffsets": readOnly, "Metadata": own, // Metadata may create its (own) topics
	"OffsetCommit": own, "OffsetFetch": readOnly, "FindCoordinator": readOnly,
	"JoinGroup": own, "Heartbeat": own, "LeaveGroup": own, "SyncGroup": own,
	"DescribeGroups": readOnly, "ListGroups": readOnly, "SaslHandshake": readOnly, "ApiVersions": readOnly,
	"CreateTopics": own, "DeleteTopics": own, "DeleteRecords": own, "InitProducerId": own,
	"OffsetForLeaderEpoch": readOnly, "AddPartitionsToTxn": own, "AddOffsetsToTxn": own, "EndTxn": own,
	"TxnOffsetCommit": own, "DescribeAcls": readOnly, "DescribeConfigs": readOnly, "DescribeLogDirs": readOnly,
	"SaslAuthenticate": readOnly, "CreatePartitions": own, "DescribeDelegationToken": readOnly,
	"DeleteGroups": own, "ListPartitionReassignments": readOnly, "OffsetDelete": own,
	"DescribeClientQuotas": readOnly, "DescribeUserScramCredentials": readOnly, "DescribeQuorum": readOnly,
	"DescribeCluster": readOnly, "DescribeProducers": readOnly, "DescribeTransactions": readOnly,
	"ListTransactions": readOnly, "ConsumerGroupHeartbeat": own, "ConsumerGroupDescribe": readOnly,
	"GetTelemetrySubscriptions": readOnly, "PushTelemetry": own, "ListConfigResources": readOnly,
	"DescribeTopicPartitions": readOnly, "ShareGroupHeartbeat": own, "ShareGroupDescribe": readOnly,
	"ShareFetch": own, "ShareAcknowledge": own, "StreamsGroupHeartbeat": own, "StreamsGroupDescribe": readOnly,
	"DescribeShareGroupOffsets": readOnly, "AlterShareGroupOffsets": own, "DeleteShareGroupOffsets": own,
}

func classOf(api messages.API) class {
	if c, ok := classes[api.Name]; ok {
		return c
	}
	return destructive
}

// ownConnection are the APIs that change a connection's state (a SASL
// exchange in progress), so each of their requests gets a connection of
// its own.
var ownConnection = map[int16]bool{17: true, 36: true}

// env is what the checker made for itself: the names prepare puts in
// requests and what invariants compare answers with.
type env struct {
	prefix     string
	topic      string // created by setup with partitions partitions
	scratch    string // a topic DeleteTopics may delete
	group      string
	txn        string
	partitions int32
	topicID    kwire.UUID
	brokers    map[int32]string // node id to host:port, from Metadata
	created    bool
}

func newEnv(prefix string) env {
	return env{prefix: prefix, topic: prefix + "topic", scratch: prefix + "scratch", group: prefix + "group",
		txn: prefix + "txn", partitions: 3}
}

// prepare makes a generated request safe and meaningful: every name of a
// topic, group or transaction becomes the checker's own, partitions fall
// among its topic's, a replica id is a client's (-1), waits shrink to at most maxWaitMs so no request
// parks the connection, Produce asks for an answer and carries a real
// batch, Fetch asks without a session. It is idempotent.
func (e *env) prepare(api messages.API, msg any, version int16) {
	s, err := kwire.SchemaOf(msg, version)
	if err != nil {
		return
	}
	e.rewrite(api, reflect.ValueOf(msg).Elem(), s, "")
	switch m := msg.(type) {
	case *messages.ProduceRequest:
		if m.Acks == 0 {
			m.Acks = -1 // an acks=0 Produce has no answer to check
		}
		for i := range m.TopicData {
			for j := range m.TopicData[i].PartitionData {
				m.TopicData[i].PartitionData[j].Records = produceBatch
			}
		}
	case *messages.ApiVersionsRequest:
		// Kafka refuses a client software name or version outside
		// [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?
		m.ClientSoftwareName, m.ClientSoftwareVersion = "kwire-conform", "1"
		// A client, not a broker of some cluster (v5's KIP-1242 fields).
		m.ClusterID, m.NodeID = nil, -1
	case *messages.FetchRequest:
		m.SessionID, m.SessionEpoch = 0, -1
	case *messages.DeleteTopicsRequest:
		for i := range m.TopicNames {
			m.TopicNames[i] = e.scratch
		}
		for i := range m.Topics {
			n := e.scratch
			m.Topics[i].Name, m.Topics[i].TopicID = &n, kwire.UUID{}
		}
	}
}

// maxWaitMs bounds every wait a request asks of the broker.
const maxWaitMs = 50

// produceBatch is the one batch every Produce sends: a record the
// checker's Fetch later reads back.
var produceBatch = func() []byte {
	b, err := record.Build([]record.Record{{Key: []byte("kwire"), Value: []byte("conform"), Timestamp: 1700000000000}})
	if err != nil {
		panic(err)
	}
	return b
}()

// rewrite walks v (of schema s, at path) and sets names, partitions and
// waits as prepare says.
func (e *env) rewrite(api messages.API, v reflect.Value, s *kwire.Schema, parent string) {
	for i := range s.Fields {
		f := &s.Fields[i]
		fv := v.Field(f.Index)
		kind := nameKind(f.Name, parent)
		switch {
		case f.Struct != nil && f.Elem == nil: // a struct or nullable struct
			if fv.Kind() == reflect.Pointer {
				if !fv.IsNil() {
					e.rewrite(api, fv.Elem(), f.Struct, f.Name)
				}
			} else {
				e.rewrite(api, fv, f.Struct, f.Name)
			}
		case f.Elem != nil && f.Elem.Struct != nil:
			for j := 0; j < fv.Len(); j++ {
				e.rewrite(api, fv.Index(j), f.Elem.Struct, f.Name)
			}
		case f.Elem != nil && fv.Type().Elem().Kind() == reflect.String:
			if kind != "" {
				for j := 0; j < fv.Len(); j++ {
					fv.Index(j).SetString(e.nameFor(kind))
				}
			}
		case f.Elem != nil && fv.Type().Elem().Kind() == reflect.Int32 && isPartitionList(f.Name):
			for j := 0; j < fv.Len(); j++ {
				fv.Index(j).SetInt(e.partition(fv.Index(j).Int()))
			}
		case fv.Kind() == reflect.String && kind != "":
			fv.SetString(e.nameFor(kind))
		case fv.Kind() == reflect.Pointer && fv.Type().Elem().Kind() == reflect.String && kind != "":
			if !fv.IsNil() {
				fv.Elem().SetString(e.nameFor(kind))
			}
		case fv.Type() == uuidType && kind == "topic":
			fv.Set(reflect.ValueOf(e.topicID))
		case fv.Kind() == reflect.Int32 && isPartition(f.Name, parent):
			fv.SetInt(e.partition(fv.Int()))
		case fv.CanInt() && (f.Name == "ReplicaID" || f.Name == "ReplicaEpoch"):
			// A client's -1: 0 and up is a follower of that id, whose
			// fetches move a leader's view of its replicas.
			fv.SetInt(-1)
		case fv.CanInt() && isCount(f.Name):
			// A random count of partitions or replicas in the millions
			// would have a broker build them all.
			if fv.Int() > maxCount || fv.Int() < -1 {
				fv.SetInt(maxCount)
			}
		case (fv.Kind() == reflect.Int32 || fv.Kind() == reflect.Int64) && isWait(f.Name):
			if fv.Int() > maxWaitMs || fv.Int() < 0 {
				fv.SetInt(maxWaitMs)
			}
		}
	}
}

var uuidType = reflect.TypeOf(kwire.UUID{})

// nameKind says which of the checker's names a string field holds:
// "topic", "group", "txn" or "" (none).
func nameKind(field, parent string) string {
	f, p := strings.ToLower(field), strings.ToLower(parent)
	switch {
	case strings.Contains(f, "topic"):
		return "topic"
	case strings.Contains(f, "group") && !strings.Contains(f, "instance") && !strings.Contains(f, "epoch"):
		return "group"
	case strings.Contains(f, "transactional"):
		return "txn"
	case (f == "name" || f == "names") && strings.Contains(p, "topic"):
		return "topic"
	case (f == "name" || f == "names") && strings.Contains(p, "group"):
		return "group"
	}
	return ""
}

func (e *env) nameFor(kind string) string {
	switch kind {
	case "topic":
		return e.topic
	case "group":
		return e.group
	}
	return e.txn
}

func isPartition(field, parent string) bool {
	f := strings.ToLower(field)
	switch f {
	case "partition", "partitionindex", "partitionid":
		return true
	case "index":
		return strings.Contains(strings.ToLower(parent), "partition")
	}
	return false
}

func isPartitionList(field string) bool {
	switch strings.ToLower(field) {
	case "partitions", "partitionindexes":
		return true
	}
	return false
}

// maxCount bounds the partitions and replicas a request asks for.
const maxCount = 4

func isCount(field string) bool {
	switch strings.ToLower(field) {
	case "numpartitions", "count", "replicationfactor":
		return true
	}
	return false
}

func isWait(field string) bool {
	f := strings.ToLower(field)
	return strings.HasSuffix(f, "timeoutms") || strings.HasSuffix(f, "waitms")
}

// partition maps any number onto one of the topic's partitions.
func (e *env) partition(p int64) int64 {
	if p < 0 {
		p = -p
	}
	return p % int64(e.partitions)
}
