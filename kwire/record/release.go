package record

// decompress sets b.records to src decompressed, in a buffer from the
// Reader's pool sized from what src declares, within the Reader's limit on
// one batch and its budget. Errors are placed at pos, naming a batch's
// records or a legacy wrapper's value.
func (b *Batch) decompress(codec Codec, src []byte, pos int, legacy bool, lim *limits) error {
	// A Budget charges an LZ4 batch's exact size before decompressing it;
	// otherwise the size is guessed from the Reader's last LZ4 batch.
	var ratio int64
	if lim.budget == nil && lim.lz4Ratio != nil {
		ratio = *lim.lz4Ratio
	}
	claim, sentinel, cause := claimSize(codec, src, lim.decompressed, ratio)
	if sentinel != nil {
		return decompressError(pos, decompressWhat(codec, legacy), sentinel, cause)
	}
	allowed := lim.decompressed
	if claim.min > int64(allowed) {
		return decompressError(pos, decompressWhat(codec, legacy), ErrTooLarge, nil)
	}
	size := claim.start(allowed)
	budget := lim.budget
	if budget != nil && !budget.take(size) {
		return errAt(pos, ErrTooLarge, "%s: %d bytes would pass the memory budget (%d of %d bytes in use)", decompressWhat(codec, legacy), size, budget.InUse(), budget.Limit())
	}
	var buf []byte
	switch {
	case size == 0: // empty batches are common, and need no buffer
	case lim.pool != nil:
		buf = lim.pool.Get(size)[:0]
		b.pool = lim.pool
	default:
		b.holder = getBuffer(size)
		buf = *b.holder
	}
	if budget != nil {
		// The budget counts the buffer's capacity, what it really holds.
		b.budget, b.charged = budget, size
		if extra := cap(buf) - size; extra > 0 {
			if !budget.take(extra) {
				b.records, b.compressed = buf, true
				b.Release()
				return errAt(pos, ErrTooLarge, "%s: %d bytes would pass the memory budget (%d of %d bytes in use)", decompressWhat(codec, legacy), cap(buf), budget.InUse(), budget.Limit())
			}
			b.charged = cap(buf)
		}
		if !claim.exact() {
			allowed = min(allowed, cap(buf)+budget.available())
		}
	}
	out, sentinel, cause := decodeInto(buf, codec, src, claim, allowed, lim.decompressed)
	if sentinel == nil && cap(out) != cap(buf) {
		// The output outgrew the buffer (a stream of unknown size): the
		// batch holds the larger one, and the budget counts it.
		if b.budget != nil && !b.budget.take(cap(out)-cap(buf)) {
			sentinel = ErrTooLarge
		} else {
			b.charged = cap(out)
		}
		if b.pool != nil && cap(buf) > 0 {
			b.pool.Put(buf)
		} // a holder takes the larger buffer, the collector the smaller
		buf = out
	}
	if sentinel != nil {
		b.records, b.compressed = buf, true
		b.Release()
		return decompressError(pos, decompressWhat(codec, legacy), sentinel, cause)
	}
	b.records, b.compressed = out, true
	if codec == CodecLZ4 && lim.lz4Ratio != nil {
		*lim.lz4Ratio = lz4NextRatio(len(out), len(src))
	}
	return nil
}

// Release gives back the buffer a compressed batch was decompressed into,
// to the Reader's BufferPool (or the package's) and its bytes to the
// Reader's Budget. The batch's records (keys, values, header values,
// whatever Iter or Records returned) alias that buffer: release a batch
// only when nothing uses them any more, and only once; its records cannot
// be read after. Releasing is optional (an unreleased buffer is garbage
// collected, but neither reused nor, for a Budget, given back) and does
// nothing for an uncompressed batch, whose records alias the Reader's
// input. Batch.Release and a Reader's Next may run on different
// goroutines.
func (b *Batch) Release() {
	if !b.compressed || b.released {
		return
	}
	b.released = true
	if b.budget != nil {
		b.budget.give(b.charged)
		b.budget, b.charged = nil, 0
	}
	b.putBuffer(b.records)
	b.records = nil
}

// putBuffer gives buf back to where b's buffers come from.
func (b *Batch) putBuffer(buf []byte) {
	switch {
	case cap(buf) == 0:
	case b.pool != nil:
		b.pool.Put(buf[:0])
	case b.holder != nil:
		*b.holder = buf[:0]
		putBuffer(b.holder)
		b.holder = nil
	}
}

// decompressWhat names what decompress failed on; it is built only for an
// error, so that a batch read allocates no name.
func decompressWhat(codec Codec, legacy bool) string {
	if legacy {
		return "legacy wrapper " + codec.String() + " value"
	}
	return codec.String() + " records"
}
