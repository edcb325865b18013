package realclient

import (
	"time"

	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// The broker is also a transaction coordinator, enough for a transactional
// producer's produce-and-commit: InitProducerId with a transactional id,
// AddPartitionsToTxn, and EndTxn, which writes the commit or abort marker
// (a control batch built with record.AppendEndTxnBatch) to every partition
// of the transaction. Fetch and ListOffsets honour read_committed with the
// last stable offset and the aborted transactions.

const (
	errInvalidProducerEpoch int16 = 47
	errInvalidTxnState      int16 = 48
	errInvalidProducerIDMap int16 = 49
)

type txn struct {
	producerID int64
	epoch      int16
	partitions map[topicPartition]bool
}

type topicPartition struct {
	topic     string
	partition int32
}

type abortedTxn struct {
	producerID, firstOffset, lastOffset int64
}

// lastStable is the partition's last stable offset: the first offset of
// its oldest open transaction, or the log end.
func (p *partition) lastStable() int64 {
	lso := p.next
	for _, first := range p.openTxns {
		lso = min(lso, first)
	}
	return lso
}

func (b *Broker) initTransactional(req *messages.InitProducerIDRequest, resp *messages.InitProducerIDResponse) {
	if b.txns == nil {
		b.txns = map[string]*txn{}
	}
	t := b.txns[*req.TransactionalID]
	if t == nil {
		b.producerID++
		t = &txn{producerID: b.producerID, partitions: map[topicPartition]bool{}}
		b.txns[*req.TransactionalID] = t
	} else {
		// A new session of the same transactional id fences the old one
		// and aborts what it left open.
		b.endTxnLocked(t, false)
		t.epoch++
	}
	resp.ProducerID, resp.ProducerEpoch = t.producerID, t.epoch
}

// txnLocked finds the transaction and checks the producer id and epoch.
func (b *Broker) txnLocked(id string, producerID int64, epoch int16) (*txn, int16) {
	t := b.txns[id]
	switch {
	case t == nil || t.producerID != producerID:
		return nil, errInvalidProducerIDMap
	case t.epoch != epoch:
		return nil, errInvalidProducerEpoch
	}
	return t, errNone
}

func (b *Broker) addPartitionsToTxn(req *messages.AddPartitionsToTxnRequest) *messages.AddPartitionsToTxnResponse {
	resp := messages.NewAddPartitionsToTxnResponse()
	b.mu.Lock()
	defer b.mu.Unlock()
	t, code := b.txnLocked(req.V3AndBelowTransactionalID, req.V3AndBelowProducerID, req.V3AndBelowProducerEpoch)
	for _, rt := range req.V3AndBelowTopics {
		tr := messages.AddPartitionsToTxnResponseTopicResult{Name: rt.Name}
		for _, p := range rt.Partitions {
			c := code
			if c == errNone && b.partitionLocked(rt.Name, p) == nil {
				c = errUnknownTopicOrPartition
			}
			if c == errNone {
				t.partitions[topicPartition{rt.Name, p}] = true
			}
			tr.ResultsByPartition = append(tr.ResultsByPartition, messages.AddPartitionsToTxnResponsePartitionResult{
				PartitionIndex: p, PartitionErrorCode: c,
			})
		}
		resp.ResultsByTopicV3AndBelow = append(resp.ResultsByTopicV3AndBelow, tr)
	}
	return resp
}

func (b *Broker) endTxn(req *messages.EndTxnRequest) *messages.EndTxnResponse {
	resp := messages.NewEndTxnResponse()
	b.mu.Lock()
	defer b.mu.Unlock()
	t, code := b.txnLocked(req.TransactionalID, req.ProducerID, req.ProducerEpoch)
	if resp.ErrorCode = code; code != errNone {
		return resp
	}
	if resp.ErrorCode = b.endTxnLocked(t, req.Committed); resp.ErrorCode == errNone {
		resp.ProducerID, resp.ProducerEpoch = t.producerID, t.epoch
	}
	return resp
}

// endTxnLocked writes the commit or abort marker to each partition of the
// transaction and closes it there.
func (b *Broker) endTxnLocked(t *txn, commit bool) int16 {
	typ := record.ControlAbort
	if commit {
		typ = record.ControlCommit
	}
	now := time.Now().UnixMilli()
	for tp := range t.partitions {
		p := b.partitionLocked(tp.topic, tp.partition)
		if p == nil {
			continue
		}
		raw, err := record.AppendEndTxnBatch(nil, typ, 0, now,
			record.WithProducer(t.producerID, t.epoch, -1), record.WithBaseOffset(p.next))
		if err != nil {
			b.logf("end transaction on %s/%d: %v", tp.topic, tp.partition, err)
			return errInvalidTxnState
		}
		if first, open := p.openTxns[t.producerID]; open {
			if !commit {
				p.aborted = append(p.aborted, abortedTxn{t.producerID, first, p.next})
			}
			delete(p.openTxns, t.producerID)
		}
		p.batches = append(p.batches, storedBatch{base: p.next, last: p.next, raw: raw})
		p.next++
	}
	t.partitions = map[topicPartition]bool{}
	close(b.changed)
	b.changed = make(chan struct{})
	return errNone
}
