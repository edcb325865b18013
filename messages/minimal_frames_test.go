package messages_test

import (
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// minimalFrames pins the size of the whole frame (4-byte size prefix +
// header + body) of kwire.FillMinimal's instance, at the lowest and highest
// version of a few APIs. Every size is worked out by hand from the JSON
// schemas (kafka-schemas for the versions it lists, kafka-schemas-legacy for
// Produce v0, Fetch v0 and Metadata v0), not taken from the codec.
//
// Sizes used: request header v2 (flexible) = ApiKey 2 + ApiVersion 2 +
// CorrelationId 4 + ClientId "" int16-length 2 + tags 1 = 11; request
// header v1 = 10. Response header v1 (flexible) = CorrelationId 4 + tags 1
// = 5; v0 = 4; ApiVersions responses always use v0. Flexible versions:
// compact string/bytes "" = 1, compact array of 1 = 1, records of 61 bytes
// = 1 + 61, one tags byte per struct. Non-flexible: string "" = 2, array
// count = 4, records length = 4 + 61, no tags bytes.
var minimalFrames = []struct {
	name    string
	key     int16
	version int16
	request bool
	size    int
}{
	// ConsumerGroupHeartbeat, key 68, flexible 0+.
	{
		// header v2 11 + body 39 = 50; frame 4 + 50 = 54.
		// body: GroupId 1 + MemberId 1 + MemberEpoch 4 + InstanceId 1 + RackId 1
		// + RebalanceTimeoutMs 4 + SubscribedTopicNames len 1 + ["" 1]
		// + ServerAssignor 1 + TopicPartitions len 1 + [TopicId 16
		// + Partitions len 1 + [4] + tags 1] + tags 1 = 39.
		"ConsumerGroupHeartbeat", 68, 0, true, 54,
	},
	{
		// header v1 5 + body 42 = 47; frame 4 + 47 = 51.
		// body: ThrottleTimeMs 4 + ErrorCode 2 + ErrorMessage 1 + MemberId 1
		// + MemberEpoch 4 + HeartbeatIntervalMs 4 + Assignment presence 1
		// + [TopicPartitions len 1 + [TopicId 16 + Partitions len 1 + [4]
		// + tags 1] + tags 1] + tags 1 = 42.
		"ConsumerGroupHeartbeat", 68, 0, false, 51,
	},
	{
		// header v2 11 + body 40 = 51; frame 4 + 51 = 55.
		// body: GroupId 1 + MemberId 1 + MemberEpoch 4 + InstanceId 1 + RackId 1
		// + RebalanceTimeoutMs 4 + SubscribedTopicNames len 1 + ["" 1]
		// + SubscribedTopicRegex 1 + ServerAssignor 1 + TopicPartitions len 1
		// + [TopicId 16 + Partitions len 1 + [4] + tags 1] + tags 1 = 40.
		"ConsumerGroupHeartbeat", 68, 1, true, 55,
	},
	{
		// header v1 5 + body 42 = 47; frame 4 + 47 = 51 (same fields as v0).
		// body: ThrottleTimeMs 4 + ErrorCode 2 + ErrorMessage 1 + MemberId 1
		// + MemberEpoch 4 + HeartbeatIntervalMs 4 + Assignment presence 1
		// + [TopicPartitions len 1 + [TopicId 16 + Partitions len 1 + [4]
		// + tags 1] + tags 1] + tags 1 = 42.
		"ConsumerGroupHeartbeat", 68, 1, false, 51,
	},

	// Produce, key 0, flexible 9+; v0 from the legacy schemas.
	{
		// header v1 10 + body 85 = 95; frame 4 + 95 = 99.
		// body: Acks 2 + TimeoutMs 4 + TopicData count 4 + [Name 2
		// + PartitionData count 4 + [Index 4 + Records len 4 + 61]] = 85.
		"Produce", 0, 0, true, 99,
	},
	{
		// header v0 4 + body 24 = 28; frame 4 + 28 = 32.
		// body: Responses count 4 + [Name 2 + PartitionResponses count 4
		// + [Index 4 + ErrorCode 2 + BaseOffset 8]] = 24.
		"Produce", 0, 0, false, 32,
	},
	{
		// header v2 11 + body 79 = 90; frame 4 + 90 = 94.
		// body: TransactionalId 1 + Acks 2 + TimeoutMs 4 + TopicData len 1
		// + [Name 1 + PartitionData len 1 + [Index 4 + Records len 1 + 61
		// + tags 1] + tags 1] + tags 1 = 79.
		"Produce", 0, 12, true, 94,
	},
	{
		// header v1 5 + body 48 = 53; frame 4 + 53 = 57.
		// body: Responses len 1 + [Name 1 + PartitionResponses len 1
		// + [Index 4 + ErrorCode 2 + BaseOffset 8 + LogAppendTimeMs 8
		// + LogStartOffset 8 + RecordErrors len 1 + [BatchIndex 4
		// + BatchIndexErrorMessage 1 + tags 1] + ErrorMessage 1 + tags 1
		// (CurrentLeader tagged, not written)] + tags 1] + ThrottleTimeMs 4
		// + tags 1 (NodeEndpoints tagged, not written) = 48.
		"Produce", 0, 12, false, 57,
	},

	// Fetch, key 1, flexible 12+; v0 from the legacy schemas.
	{
		// header v1 10 + body 38 = 48; frame 4 + 48 = 52.
		// body: ReplicaId 4 + MaxWaitMs 4 + MinBytes 4 + Topics count 4
		// + [Topic 2 + Partitions count 4 + [Partition 4 + FetchOffset 8
		// + PartitionMaxBytes 4]] = 38.
		"Fetch", 1, 0, true, 52,
	},
	{
		// header v0 4 + body 89 = 93; frame 4 + 93 = 97.
		// body: Responses count 4 + [Topic 2 + Partitions count 4
		// + [PartitionIndex 4 + ErrorCode 2 + HighWatermark 8 + Records len 4
		// + 61]] = 89.
		"Fetch", 1, 0, false, 97,
	},
	{
		// header v2 11 + body 98 = 109; frame 4 + 109 = 113.
		// body (ClusterId, ReplicaState tagged; ReplicaId only 0-14):
		// MaxWaitMs 4 + MinBytes 4 + MaxBytes 4 + IsolationLevel 1
		// + SessionId 4 + SessionEpoch 4 + Topics len 1 + [TopicId 16
		// + Partitions len 1 + [Partition 4 + CurrentLeaderEpoch 4
		// + FetchOffset 8 + LastFetchedEpoch 4 + LogStartOffset 8
		// + PartitionMaxBytes 4 + tags 1 (ReplicaDirectoryId tagged)] + tags 1]
		// + ForgottenTopicsData len 1 + [TopicId 16 + Partitions len 1 + [4]
		// + tags 1] + RackId 1 + tags 1 = 98.
		"Fetch", 1, 17, true, 113,
	},
	{
		// header v1 5 + body 145 = 150; frame 4 + 150 = 154.
		// body: ThrottleTimeMs 4 + ErrorCode 2 + SessionId 4 + Responses len 1
		// + [TopicId 16 + Partitions len 1 + [PartitionIndex 4 + ErrorCode 2
		// + HighWatermark 8 + LastStableOffset 8 + LogStartOffset 8
		// + AbortedTransactions len 1 + [ProducerId 8 + FirstOffset 8 + tags 1]
		// + PreferredReadReplica 4 + Records len 1 + 61 + tags 1
		// (DivergingEpoch, CurrentLeader, SnapshotId tagged)] + tags 1]
		// + tags 1 (NodeEndpoints tagged) = 145.
		"Fetch", 1, 17, false, 154,
	},

	// Metadata, key 3, flexible 9+; v0 from the legacy schemas.
	{
		// header v1 10 + body 6 = 16; frame 4 + 16 = 20.
		// body: Topics count 4 + [Name 2] = 6.
		"Metadata", 3, 0, true, 20,
	},
	{
		// header v0 4 + body 52 = 56; frame 4 + 56 = 60.
		// body: Brokers count 4 + [NodeId 4 + Host 2 + Port 4] + Topics count 4
		// + [ErrorCode 2 + Name 2 + Partitions count 4 + [ErrorCode 2
		// + PartitionIndex 4 + LeaderId 4 + ReplicaNodes count 4 + [4]
		// + IsrNodes count 4 + [4]]] = 52.
		"Metadata", 3, 0, false, 60,
	},
	{
		// header v2 11 + body 22 = 33; frame 4 + 33 = 37.
		// body: Topics len 1 + [TopicId 16 + Name 1 + tags 1]
		// + AllowAutoTopicCreation 1 + IncludeTopicAuthorizedOperations 1
		// + tags 1 = 22 (IncludeClusterAuthorizedOperations only 8-10).
		"Metadata", 3, 13, true, 37,
	},
	{
		// header v1 5 + body 81 = 86; frame 4 + 86 = 90.
		// body: ThrottleTimeMs 4 + Brokers len 1 + [NodeId 4 + Host 1 + Port 4
		// + Rack 1 + tags 1] + ClusterId 1 + ControllerId 4 + Topics len 1
		// + [ErrorCode 2 + Name 1 + TopicId 16 + IsInternal 1 + Partitions len 1
		// + [ErrorCode 2 + PartitionIndex 4 + LeaderId 4 + LeaderEpoch 4
		// + ReplicaNodes len 1 + [4] + IsrNodes len 1 + [4]
		// + OfflineReplicas len 1 + [4] + tags 1] + TopicAuthorizedOperations 4
		// + tags 1] + ErrorCode 2 + tags 1 = 81
		// (ClusterAuthorizedOperations only 8-10).
		"Metadata", 3, 13, false, 90,
	},

	// ApiVersions, key 18, flexible 3+; responses always header v0.
	{
		// header v1 10 + body 0 = 10; frame 4 + 10 = 14.
		// body: no fields in v0.
		"ApiVersions", 18, 0, true, 14,
	},
	{
		// header v0 4 + body 12 = 16; frame 4 + 16 = 20.
		// body: ErrorCode 2 + ApiKeys count 4 + [ApiKey 2 + MinVersion 2
		// + MaxVersion 2] = 12.
		"ApiVersions", 18, 0, false, 20,
	},
	{
		// header v2 11 + body 3 = 14; frame 4 + 14 = 18.
		// body: ClientSoftwareName 1 + ClientSoftwareVersion 1 + tags 1 = 3.
		"ApiVersions", 18, 4, true, 18,
	},
	{
		// header v0 4 + body 15 = 19; frame 4 + 19 = 23.
		// body: ErrorCode 2 + ApiKeys len 1 + [ApiKey 2 + MinVersion 2
		// + MaxVersion 2 + tags 1] + ThrottleTimeMs 4 + tags 1 = 15
		// (SupportedFeatures, FinalizedFeaturesEpoch, FinalizedFeatures,
		// ZkMigrationReady tagged).
		"ApiVersions", 18, 4, false, 23,
	},
}

func TestMinimalFrameSizes(t *testing.T) {
	require.Len(t, minimalFrames, 20)
	for _, tc := range minimalFrames {
		dir := "response"
		if tc.request {
			dir = "request"
		}
		t.Run(fmt.Sprintf("%s/v%d/%s", tc.name, tc.version, dir), func(t *testing.T) {
			api, ok := messages.Lookup(tc.key)
			require.True(t, ok, "API key %d", tc.key)

			if tc.request {
				req := api.NewRequest()
				require.NoError(t, kwire.FillMinimal(req, tc.version))
				empty := ""
				frame, err := kwire.AppendRequest(nil, req, tc.version, 0, &empty)
				require.NoError(t, err)
				assert.Len(t, frame, tc.size, "frame %s", hex.EncodeToString(frame))

				hdr, back, err := messages.ReadRequest(frame)
				require.NoError(t, err)
				assert.Equal(t, tc.key, hdr.APIKey)
				assert.Equal(t, tc.version, hdr.APIVersion)
				again, err := kwire.AppendRequest(nil, back, tc.version, hdr.CorrelationID, hdr.ClientID)
				require.NoError(t, err)
				assert.Equal(t, hex.EncodeToString(frame), hex.EncodeToString(again))
				return
			}

			resp := api.NewResponse()
			require.NoError(t, kwire.FillMinimal(resp, tc.version))
			frame, err := kwire.AppendResponse(nil, resp, tc.version, 0)
			require.NoError(t, err)
			assert.Len(t, frame, tc.size, "frame %s", hex.EncodeToString(frame))

			back := api.NewResponse()
			hdr, err := kwire.ReadResponse(frame, back, tc.version)
			require.NoError(t, err)
			again, err := kwire.AppendResponse(nil, back, tc.version, hdr.CorrelationID)
			require.NoError(t, err)
			assert.Equal(t, hex.EncodeToString(frame), hex.EncodeToString(again))
		})
	}
}
