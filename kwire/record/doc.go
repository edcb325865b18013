// Package record builds, reads, verifies and compresses Kafka records: the
// bytes of a Produce request's Records field and of a Fetch response's.
//
// # Formats
//
// Magic 2 is the RecordBatch of Kafka 0.11 and later: a 61-byte header
// (offsets, a CRC-32C over everything from the attributes on, producer
// fields for idempotence and transactions) followed by varint-encoded
// records with headers, the whole record section compressed as one. Magic 0
// and 1 are the legacy message sets: one CRC-32 (IEEE) protected message per
// record, with compression as a wrapper message whose value is the inner
// message set, compressed.
//
// # Reading
//
// A Reader walks a record set entry by entry, whatever the magic, checks
// CRCs and lengths, and decompresses. A broker cuts the last batch of a
// Fetch response short at its size limit; the Reader stops before it and
// says so through Partial, which is not an error. Keys, values and header
// values alias the input, or the batch's decompressed buffer.
//
// Compressed batches are decompressed into pooled buffers sized from what
// the compressed data declares (snappy's block lengths, an lz4 frame's
// blocks, a zstd frame's content size, gzip's size trailer), checked
// against the bytes present before anything is decoded. Batch.Release
// gives a batch's buffer back for the next batch once its records are no
// longer used; Reader.Buffers takes the caller's own BufferPool, and
// Decompress writes into the caller's buffer. A Budget shared by a
// consumer's Readers bounds the decompressed bytes they hold at once,
// refusing with ErrTooLarge the batch that would pass it.
//
// A batch's RecordIter checks each record, headers included, without
// building anything: RecordWithoutHeaders and Headers read a batch with no
// allocation beyond its decompressed bytes. Record builds one record's
// headers; Records builds them all, allocating what it returns and nothing
// more. A legacy wrapper's inner messages are decoded the same way, one at
// a time.
//
// Hostile input is expected: no input panics the reader or loops it; every
// length is checked against the bytes that remain before it is used; and
// each batch is held to the Reader's limits: MaxDecompressedSize
// (DefaultMaxDecompressedSize, 64 MiB), MaxRecords (DefaultMaxRecords,
// 1 Mi; a compressed batch claiming more is refused before it is
// decompressed) and MaxHeaders (DefaultMaxHeaders, 4 Mi), so that a few KiB
// of zstd cannot stand for millions of records. math.MaxInt lifts a limit.
// Errors are *Error values that give the byte offset and wrap a sentinel
// (ErrCRCMismatch, ErrTruncated, ErrBadVarint, ErrInvalidLength,
// ErrTooLarge, ErrUnknownCodec, ErrUnknownMagic, ErrCorrupt) for errors.Is.
//
// # Building
//
// Build and AppendBatch turn []Record into one entry, with Options for the
// codec, magic, base offset, producer id/epoch/sequence, transactions,
// LogAppendTime and the partition leader epoch. AppendEndTxnBatch writes a
// transaction marker; ParseControlKey and ParseEndTxnMarker read them.
//
// # Compression
//
// gzip, snappy, lz4 and zstd come from github.com/klauspost/compress and
// github.com/pierrec/lz4/v4, written the way Kafka's Java producer writes
// them (xerial-framed snappy, LZ4 frames with 64 KiB blocks). Snappy is read
// in both the xerial and the raw form other clients use.
package record
