package record

import (
	"strconv"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// Control records live in batches with the control attribute set. Their key
// is an int16 version and an int16 type; for transaction markers (abort,
// commit) the value is an int16 version and an int32 coordinator epoch.

// ControlType is the type in a control record's key.
type ControlType int16

const (
	ControlAbort  ControlType = 0
	ControlCommit ControlType = 1
	// Types used by KRaft's metadata log, listed so they print by name.
	ControlLeaderChange   ControlType = 2
	ControlSnapshotHeader ControlType = 3
	ControlSnapshotFooter ControlType = 4
	ControlKRaftVersion   ControlType = 5
	ControlKRaftVoters    ControlType = 6
)

func (t ControlType) String() string {
	switch t {
	case ControlAbort:
		return "abort"
	case ControlCommit:
		return "commit"
	case ControlLeaderChange:
		return "leader-change"
	case ControlSnapshotHeader:
		return "snapshot-header"
	case ControlSnapshotFooter:
		return "snapshot-footer"
	case ControlKRaftVersion:
		return "kraft-version"
	case ControlKRaftVoters:
		return "kraft-voters"
	}
	return "control(" + strconv.Itoa(int(t)) + ")"
}

const (
	controlKeyLen   = 4
	endTxnMarkerLen = 6
)

// ControlKey is the key of a control record.
type ControlKey struct {
	Version int16
	Type    ControlType
}

// ParseControlKey decodes a control record's key. Like Kafka it ignores
// bytes after the four it knows, which later versions may add.
func ParseControlKey(key []byte) (ControlKey, error) {
	if len(key) < controlKeyLen {
		return ControlKey{}, errAt(len(key), ErrTruncated, "control key of %d bytes", len(key))
	}
	return ControlKey{
		Version: wire.Int16(key),
		Type:    ControlType(wire.Int16(key[2:])),
	}, nil
}

// AppendTo appends the key's wire form to dst.
func (k ControlKey) AppendTo(dst []byte) []byte {
	dst = wire.AppendInt16(dst, k.Version)
	return wire.AppendInt16(dst, int16(k.Type))
}

// EndTxnMarker is the value of an abort or commit control record.
type EndTxnMarker struct {
	Version          int16
	CoordinatorEpoch int32
}

// ParseEndTxnMarker decodes the value of an abort or commit control record.
func ParseEndTxnMarker(value []byte) (EndTxnMarker, error) {
	if len(value) < endTxnMarkerLen {
		return EndTxnMarker{}, errAt(len(value), ErrTruncated, "transaction marker of %d bytes", len(value))
	}
	return EndTxnMarker{
		Version:          wire.Int16(value),
		CoordinatorEpoch: wire.Int32(value[2:]),
	}, nil
}

// AppendTo appends the marker's wire form to dst.
func (m EndTxnMarker) AppendTo(dst []byte) []byte {
	dst = wire.AppendInt16(dst, m.Version)
	return wire.AppendInt32(dst, m.CoordinatorEpoch)
}

// ControlKey decodes the record's key as a control key; meaningful only for
// records of a batch whose Attributes say Control.
func (r *Record) ControlKey() (ControlKey, error) { return ParseControlKey(r.Key) }

// AppendEndTxnBatch appends a transactional control batch holding one
// transaction marker (typ ControlAbort or ControlCommit, version 0), as a
// transaction coordinator asks a partition leader to write. Pass the
// producer's id and epoch with WithProducer; the other options apply too.
func AppendEndTxnBatch(dst []byte, typ ControlType, coordinatorEpoch int32, timestamp int64, opts ...Option) ([]byte, error) {
	if typ != ControlAbort && typ != ControlCommit {
		return dst, errAt(0, ErrUnsupported, "transaction marker type %v", typ)
	}
	rec := Record{
		Timestamp: timestamp,
		Key:       ControlKey{Type: typ}.AppendTo(make([]byte, 0, controlKeyLen)),
		Value:     EndTxnMarker{CoordinatorEpoch: coordinatorEpoch}.AppendTo(make([]byte, 0, endTxnMarkerLen)),
	}
	o := collectOptions(opts)
	o.transactional, o.control = true, true
	if o.magic != 2 {
		return dst, errAt(0, ErrUnsupported, "control batch with magic %d", o.magic)
	}
	return appendEntry(dst, []Record{rec}, &o)
}
