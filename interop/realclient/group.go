package realclient

import (
	"fmt"
	"sort"

	"github.com/kwirelabs/kwire/messages"
)

// The broker is also a small group coordinator, enough for one consumer
// per group (the classic protocol): JoinGroup makes the joining member the
// leader of a new generation at once (no waiting for other members, no
// MEMBER_ID_REQUIRED round trip), SyncGroup hands out what the leader
// assigned, and committed offsets are kept in memory.

const (
	errIllegalGeneration      int16 = 22
	errInconsistentGroupProto int16 = 23
	errUnknownMemberID        int16 = 25
	errRebalanceInProgress    int16 = 27
	errGroupIDNotFound        int16 = 69
)

type group struct {
	generation   int32
	protocolType string
	protocol     string
	leader       string
	members      []*member // in join order
	assignments  map[string][]byte
	offsets      map[string]map[int32]committed
}

type member struct {
	id        string
	instance  *string
	protocols []messages.JoinGroupRequestProtocol
}

type committed struct {
	offset      int64
	leaderEpoch int32
	metadata    *string
}

func (g *group) member(id string) *member {
	for _, m := range g.members {
		if m.id == id {
			return m
		}
	}
	return nil
}

func (b *Broker) groupLocked(id string) *group {
	if b.groups == nil {
		b.groups = map[string]*group{}
	}
	g := b.groups[id]
	if g == nil {
		g = &group{assignments: map[string][]byte{}, offsets: map[string]map[int32]committed{}}
		b.groups[id] = g
	}
	return g
}

// CommittedOffsets returns a group's committed offsets by topic and partition.
func (b *Broker) CommittedOffsets(groupID string) map[string]map[int32]int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]map[int32]int64{}
	g := b.groups[groupID]
	if g == nil {
		return out
	}
	for t, ps := range g.offsets {
		out[t] = map[int32]int64{}
		for p, c := range ps {
			out[t][p] = c.offset
		}
	}
	return out
}

func (b *Broker) joinGroup(req *messages.JoinGroupRequest, version int16) *messages.JoinGroupResponse {
	resp := messages.NewJoinGroupResponse()
	b.mu.Lock()
	defer b.mu.Unlock()
	if req.GroupID == "" {
		resp.ErrorCode = errGroupIDNotFound
		return resp
	}
	g := b.groupLocked(req.GroupID)
	if len(g.members) > 0 && g.protocolType != req.ProtocolType {
		resp.ErrorCode = errInconsistentGroupProto
		return resp
	}
	m := g.member(req.MemberID)
	if m == nil {
		if req.MemberID != "" {
			resp.ErrorCode = errUnknownMemberID
			return resp
		}
		b.memberSeq++
		m = &member{id: fmt.Sprintf("member-%d", b.memberSeq), instance: req.GroupInstanceID}
		g.members = append(g.members, m)
	}
	m.protocols = req.Protocols
	g.protocolType = req.ProtocolType
	g.generation++
	g.assignments = map[string][]byte{}
	if g.member(g.leader) == nil {
		g.leader = m.id
	}
	// The leader's first protocol that every member offers.
	g.protocol = ""
	for _, p := range g.member(g.leader).protocols {
		all := true
		for _, o := range g.members {
			if protocolMetadata(o, p.Name) == nil {
				all = false
			}
		}
		if all {
			g.protocol = p.Name
			break
		}
	}
	if g.protocol == "" {
		resp.ErrorCode = errInconsistentGroupProto
		return resp
	}
	proto, ptype := g.protocol, g.protocolType
	resp.GenerationID = g.generation
	resp.ProtocolName = &proto
	resp.ProtocolType = &ptype
	resp.Leader = g.leader
	resp.MemberID = m.id
	resp.Members = []messages.JoinGroupResponseMember{}
	if m.id == g.leader {
		for _, o := range g.members {
			resp.Members = append(resp.Members, messages.JoinGroupResponseMember{
				MemberID: o.id, GroupInstanceID: o.instance, Metadata: protocolMetadata(o, g.protocol),
			})
		}
	}
	return resp
}

func protocolMetadata(m *member, name string) []byte {
	for _, p := range m.protocols {
		if p.Name == name {
			if p.Metadata == nil {
				return []byte{}
			}
			return p.Metadata
		}
	}
	return nil
}

// checkMember is the error for a request naming a member and generation.
func (g *group) checkMember(id string, generation int32) int16 {
	switch {
	case g.member(id) == nil:
		return errUnknownMemberID
	case generation != g.generation:
		return errIllegalGeneration
	}
	return errNone
}

func (b *Broker) syncGroup(req *messages.SyncGroupRequest) *messages.SyncGroupResponse {
	resp := messages.NewSyncGroupResponse()
	resp.Assignment = []byte{}
	b.mu.Lock()
	defer b.mu.Unlock()
	g := b.groupLocked(req.GroupID)
	if resp.ErrorCode = g.checkMember(req.MemberID, req.GenerationID); resp.ErrorCode != errNone {
		return resp
	}
	if req.MemberID == g.leader {
		for _, a := range req.Assignments {
			g.assignments[a.MemberID] = a.Assignment
		}
	}
	if a, ok := g.assignments[req.MemberID]; ok && a != nil {
		resp.Assignment = a
	}
	proto, ptype := g.protocol, g.protocolType
	resp.ProtocolName, resp.ProtocolType = &proto, &ptype
	return resp
}

func (b *Broker) heartbeat(req *messages.HeartbeatRequest) *messages.HeartbeatResponse {
	resp := messages.NewHeartbeatResponse()
	b.mu.Lock()
	defer b.mu.Unlock()
	g := b.groupLocked(req.GroupID)
	resp.ErrorCode = g.checkMember(req.MemberID, req.GenerationID)
	if resp.ErrorCode == errIllegalGeneration {
		resp.ErrorCode = errRebalanceInProgress // a newer generation: rejoin
	}
	return resp
}

func (b *Broker) leaveGroup(req *messages.LeaveGroupRequest, version int16) *messages.LeaveGroupResponse {
	resp := messages.NewLeaveGroupResponse()
	b.mu.Lock()
	defer b.mu.Unlock()
	g := b.groupLocked(req.GroupID)
	leave := func(id string) int16 {
		for i, m := range g.members {
			if m.id == id {
				g.members = append(g.members[:i], g.members[i+1:]...)
				delete(g.assignments, id)
				if g.leader == id {
					g.leader = ""
				}
				return errNone
			}
		}
		return errUnknownMemberID
	}
	if version < 3 {
		resp.ErrorCode = leave(req.MemberID)
		return resp
	}
	for _, m := range req.Members {
		resp.Members = append(resp.Members, messages.LeaveGroupResponseMemberResponse{
			MemberID: m.MemberID, GroupInstanceID: m.GroupInstanceID, ErrorCode: leave(m.MemberID),
		})
	}
	return resp
}

func (b *Broker) offsetCommit(req *messages.OffsetCommitRequest, version int16) *messages.OffsetCommitResponse {
	resp := messages.NewOffsetCommitResponse()
	b.mu.Lock()
	defer b.mu.Unlock()
	g := b.groupLocked(req.GroupID)
	groupErr := errNone
	// A member's commit must be from the current generation; a commit with
	// no member (generation -1, or v0) is a standalone consumer's.
	if version >= 1 && (req.MemberID != "" || req.GenerationIDOrMemberEpoch >= 0) {
		groupErr = g.checkMember(req.MemberID, req.GenerationIDOrMemberEpoch)
	}
	for _, t := range req.Topics {
		tr := messages.OffsetCommitResponseTopic{Name: t.Name}
		for _, p := range t.Partitions {
			code := groupErr
			if code == errNone && b.partitionLocked(t.Name, p.PartitionIndex) == nil {
				code = errUnknownTopicOrPartition
			}
			if code == errNone {
				if g.offsets[t.Name] == nil {
					g.offsets[t.Name] = map[int32]committed{}
				}
				g.offsets[t.Name][p.PartitionIndex] = committed{p.CommittedOffset, p.CommittedLeaderEpoch, p.CommittedMetadata}
			}
			tr.Partitions = append(tr.Partitions, messages.OffsetCommitResponsePartition{PartitionIndex: p.PartitionIndex, ErrorCode: code})
		}
		resp.Topics = append(resp.Topics, tr)
	}
	return resp
}

func (b *Broker) offsetFetch(req *messages.OffsetFetchRequest, version int16) *messages.OffsetFetchResponse {
	resp := messages.NewOffsetFetchResponse()
	b.mu.Lock()
	defer b.mu.Unlock()
	if version >= 8 {
		for _, rg := range req.Groups {
			gr := messages.OffsetFetchResponseGroup{GroupID: rg.GroupID}
			var topics map[string][]int32
			if rg.Topics != nil {
				topics = map[string][]int32{}
				for _, t := range rg.Topics {
					topics[t.Name] = t.PartitionIndexes
				}
			}
			for _, t := range b.committedLocked(rg.GroupID, topics) {
				rt := messages.OffsetFetchResponseTopics{Name: t.name}
				for _, p := range t.partitions {
					rt.Partitions = append(rt.Partitions, messages.OffsetFetchResponsePartitions{
						PartitionIndex: p.index, CommittedOffset: p.offset, CommittedLeaderEpoch: p.leaderEpoch,
						Metadata: p.metadata, ErrorCode: p.errorCode,
					})
				}
				gr.Topics = append(gr.Topics, rt)
			}
			resp.Groups = append(resp.Groups, gr)
		}
		return resp
	}
	var topics map[string][]int32
	if req.Topics != nil || version < 2 { // null (v2+): every committed topic
		topics = map[string][]int32{}
		for _, t := range req.Topics {
			topics[t.Name] = t.PartitionIndexes
		}
	}
	resp.Topics = []messages.OffsetFetchResponseTopic{}
	for _, t := range b.committedLocked(req.GroupID, topics) {
		rt := messages.OffsetFetchResponseTopic{Name: t.name}
		for _, p := range t.partitions {
			rt.Partitions = append(rt.Partitions, messages.OffsetFetchResponsePartition{
				PartitionIndex: p.index, CommittedOffset: p.offset, CommittedLeaderEpoch: p.leaderEpoch,
				Metadata: p.metadata, ErrorCode: p.errorCode,
			})
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

type fetchedTopic struct {
	name       string
	partitions []fetchedPartition
}

type fetchedPartition struct {
	index       int32
	offset      int64
	leaderEpoch int32
	metadata    *string
	errorCode   int16
}

// committedLocked lists a group's offsets for the topics and partitions
// asked (nil: every committed one); a partition with no commit gets -1 and
// empty metadata, as Kafka answers.
func (b *Broker) committedLocked(groupID string, topics map[string][]int32) []fetchedTopic {
	g := b.groupLocked(groupID)
	if topics == nil {
		topics = map[string][]int32{}
		for t, ps := range g.offsets {
			for p := range ps {
				topics[t] = append(topics[t], p)
			}
		}
	}
	names := make([]string, 0, len(topics))
	for n := range topics {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []fetchedTopic
	for _, n := range names {
		ps := append([]int32(nil), topics[n]...)
		sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
		ft := fetchedTopic{name: n}
		for _, p := range ps {
			fp := fetchedPartition{index: p, offset: -1, leaderEpoch: -1}
			if c, ok := g.offsets[n][p]; ok {
				fp.offset, fp.leaderEpoch, fp.metadata = c.offset, c.leaderEpoch, c.metadata
			}
			if fp.metadata == nil {
				empty := ""
				fp.metadata = &empty
			}
			ft.partitions = append(ft.partitions, fp)
		}
		out = append(out, ft)
	}
	return out
}
