package kwire

import "github.com/kwirelabs/kwire/kwire/internal/engine"

// FillMinimal sets msg (a pointer to a message struct) to the smallest
// legal instance at version: numbers zero, strings and bytes empty (also
// when nullable), every array one sample element, nullable structs
// present, tagged fields and fields the version lacks at their defaults,
// and records fields one empty RecordBatch v2.
func FillMinimal(msg any, version int16) error { return engine.FillMinimal(msg, version) }

// EmptyRecordBatch returns a RecordBatch v2 holding no records: 61 bytes,
// every field zero but the batch length (49), the magic (2) and the
// CRC-32C over the attributes and everything after them.
func EmptyRecordBatch() []byte { return engine.EmptyRecordBatch() }
