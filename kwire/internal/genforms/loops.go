//go:build ignore

package kwire

import (
	"encoding/binary"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// The skeletons of the engine's hot loops. genforms copies them into
// engine_codec_gen.go with each //genforms: marker replaced by the cases the
// wire forms (forms.go) give.

// code is an instruction's wire form: the loops' own codes here, and
// between them cStruct (plan ref) and a code for each wire form, in
// genforms' codeOrder.
type code uint8

const (
	cSlow     code = iota // the general path over pl.fused[i]
	cFixedRun             // a stretch of fixed-width fields: n bytes
	//genforms:codes

	// The end of a program, past the end of pl.prog: the tail
	// (see tail, in its order), decided once. Every code from cEndNone on
	// is an end.
	cEndNone
	cEndEmpty
	cEndUnknown // off is the unknown-tags field's
	cEndGeneral
	// cEndChecks is cEndGeneral with the tag checks as words: n
	// wordChecks at ref; hasUnknown says there is an unknown-tags field
	// at off.
	cEndChecks
)

//genforms:compile

// sizeStruct is the number of bytes encodeStruct would append, from the
// same compiled program, or the error encodeStruct would return. The
// cases below count the common forms; the rest (varints, values too long
// or null where the version refuses them, and their errors) go to the
// wire-type table's size, as encodeStruct sends them to its appendTo.
func sizeStruct(pl *plan, p pointer) (int, error) {
	if !pl.skipAbsent {
		if _, err := checkAbsent(nil, pl, p); err != nil {
			return 0, err
		}
	}
	n := 0
	prog := pl.prog
	for i := range prog {
		in := &prog[i]
		fp := p.add(in.off)
		switch in.code {
		case cFixedRun:
			n += int(in.n)
			continue
		//genforms:size
		case cStruct:
			s, err := sizeStruct(in.plan(), fp)
			if err != nil {
				return 0, within(err, pl.fused[i].name)
			}
			n += s
			continue
		}
		s, err := sizeValue(&pl.fused[i], fp)
		if err != nil {
			return 0, within(err, pl.fused[i].name)
		}
		n += s
	}
	switch {
	case pl.tail == tailNone:
		return n, nil
	case pl.tail == tailEmpty || (pl.tail == tailUnknown && *p.add(pl.unknownOff).unknownFields() == nil) || nothingTagged(pl, p):
		return n + 1, nil // nothing tagged: one zero count
	}
	count := 0
	for _, o := range pl.tagged {
		fp := p.add(o.offset)
		if isDefault(o, fp) {
			continue
		}
		s, err := sizeValue(o, fp)
		if err != nil {
			return 0, within(err, o.name)
		}
		n += wire.SizeTaggedField(o.tag, s)
		count++
	}
	if pl.hasUnknown {
		// Kept fields that are written must rise in tag order. None has
		// the tag of a known field that is written, so the merge that
		// encodeTaggedFields writes rises exactly when they do, and fails
		// at the same kept field when they do not. (A value that is also
		// refused in a known tagged field fails first here; there, in tag
		// order.)
		last := int64(-1)
		for _, u := range p.add(pl.unknownOff).unknownTags().Fields() {
			if pl.shadowed(p, u.Tag) {
				continue
			}
			if int64(u.Tag) <= last {
				return 0, unknownTagOutOfOrder(u.Tag)
			}
			last = int64(u.Tag)
			n += wire.SizeTaggedField(u.Tag, len(u.Data))
			count++
		}
	}
	return n + wire.SizeUvarint(uint32(count)), nil
}

// encodeStruct appends the struct at p as plan pl describes it, running
// the plan's compiled program (engine_program.go) up to its end instruction.
//
// Its cases write through pointers into room they have checked and make
// no call (short strings and byte strings go through copyShort), so that
// the common forms cost no more than kmsg's generated code
// (interop/README.md has the rows). Nested structs and arrays of them run
// in the same loop, their parents kept on a small stack. Long byte strings
// (records) go to copyLong for one memmove; everything else (growing, long
// strings, null values, the rare forms, structs nested deeper than the
// stack, errors) goes through the one call to encodeInstr.
func encodeStruct(b []byte, pl *plan, p pointer) ([]byte, error) {
	if !pl.skipAbsent {
		var err error
		if b, err = checkAbsent(b, pl, p); err != nil {
			return b, err
		}
	}
	var st structStack // the parents of the struct at p
	base, n, c := sliceData(b), len(b), cap(b)
	in := first(pl.prog) // the program ends with an end instruction
	var long []byte      // a byte string for copyLong
	for {
		switch in.code {
		case cSlow: // the general path, below the switch
		case cFixedRun:
			if n+int(in.n) <= c {
				// One walk over the slots, a store for each by its width, up
				// to the spare slot past the last (width 0).
				dst, s := base.at(n), first(as[fixedRunCode](in.ref).slots)
				for ; s.width != 0; s = advance(s) {
					//genforms:encode-run
				}
				n, in = n+int(in.n), advance(in)
				continue
			}
		//genforms:encode
		case cStruct:
			if sub := in.plan(); sub.skipAbsent && st.depth < stackDepth {
				st.push(pl, p, in, 1)
				pl, p, in = sub, p.add(in.off), first(sub.prog)
				continue
			}
		case cEndNone:
			goto end
		case cEndEmpty:
			if n < c {
				*base.at(n).uint8() = wire.EmptyTaggedFields
				n++
				goto end
			}
		case cEndUnknown:
			if *p.add(in.off).unknownFields() == nil && n < c {
				*base.at(n).uint8() = wire.EmptyTaggedFields
				n++
				goto end
			}
		case cEndChecks:
			if (!in.hasUnknown || *p.add(in.off).unknownFields() == nil) && n < c {
				k := 0
				for k < int(in.n) {
					w := elemAt[wordCheck](in.ref, k)
					if *p.add(w.off).word()&w.mask != w.bits {
						break
					}
					k++
				}
				if k == int(in.n) { // nothing tagged
					*base.at(n).uint8() = wire.EmptyTaggedFields
					n++
					goto end
				}
			}
		}
		// The general path: one call site for every case above that did
		// not fit, and for the codes that have no case; it hands back the
		// buffer, plan, struct and next instruction for the loop to go on.
		{
			b, err := base.bytesOf(n, c), error(nil)
			if b, pl, p, in, err = encodeInstr(b, pl, p, in); err != nil {
				return b, st.within(err)
			}
			base, n, c = sliceData(b), len(b), cap(b)
			if in != nil {
				continue
			}
			goto end
		}
	copyLong: // a long byte string, at n, where its length leaves room
		copy(base.at(n).bytesOf(len(long), len(long)), long)
		n += len(long)
		continue
	end: // of a struct: the next element, back to the parent, or done
		if st.depth == 0 {
			return base.bytesOf(n, c), nil
		}
		if f := &st.frames[st.depth-1]; f.left > 1 {
			f.left--
			p, in = p.add(uintptr(f.in.n)), first(pl.prog)
			continue
		}
		st.depth--
		f := &st.frames[st.depth]
		pl, p, in = f.pl, f.p, advance(f.in)
	}
}

// decodeStruct reads the struct at p as plan pl describes it, running the
// plan's compiled program (engine_program.go) up to its end instruction, with
// the input and the offset in locals. Each case is the common form only (a
// one-byte compact length, a value that fits, room left in the arena);
// anything else, errors included, reads the field again from its start
// through the general path over its field plan (decodeInstrOutOfLine), so both give the
// same values and errors.
//
// Nested structs and arrays of them run in the same loop, their parents
// kept on a small stack (structStack, as encode keeps them); deeper ones
// recurse through the general path. The cases make no call, and every
// call (the general path, the tag section, defaults, an array's storage)
// takes the loop's state and hands it back: keeping the input across
// calls measured more instructions (interop/README.md, issue #11).
func (d *decodeState) decodeStruct(pl *plan, p pointer) error {
	if pl.hasDefaults {
		pl, p = pl.withDefaults(p)
	}
	var st structStack // the parents of the struct at p
	var err error
	off := d.off
	in := first(pl.prog) // the program ends with an end instruction
	for {
		src := d.src
		switch in.code {
		case cSlow: // the general path, below the switch
		case cFixedRun:
			if len(src)-off < int(in.n) {
				break
			}
			b := sliceData(src[off:])
			rc := as[fixedRunCode](in.ref)
			run := rc.slots
			j, end := 0, rc.n16
			for ; j < end; j++ {
				*p.add(uintptr(run[j].off)).uuid() = *b.add(uintptr(run[j].at)).uuid()
			}
			for end += rc.n8; j < end; j++ {
				*p.add(uintptr(run[j].off)).uint64() = binary.BigEndian.Uint64(b.add(uintptr(run[j].at)).block8()[:])
			}
			for end += rc.n4; j < end; j++ {
				*p.add(uintptr(run[j].off)).uint32() = get32(b.add(uintptr(run[j].at)))
			}
			for end += rc.n2; j < end; j++ {
				*p.add(uintptr(run[j].off)).uint16() = get16(b.add(uintptr(run[j].at)))
			}
			for ; j < len(run); j++ {
				v := *b.add(uintptr(run[j].at)).uint8()
				if run[j].boolean {
					if v > 1 && d.exact {
						goto slow
					}
					v = min(v, 1)
				}
				*p.add(uintptr(run[j].off)).uint8() = v
			}
			off, in = off+int(in.n), advance(in)
			continue
		//genforms:decode
		case cStruct:
			if sub := in.plan(); !sub.hasDefaults && st.depth < stackDepth {
				st.push(pl, p, in, 1)
				pl, p, in = sub, p.add(in.off), first(sub.prog)
				continue
			}
		case cEndNone:
			goto end
		case cEndEmpty, cEndUnknown, cEndGeneral, cEndChecks: // flexible
			if off < len(src) && src[off] == wire.EmptyTaggedFields {
				off++ // no tagged fields, the common case
				goto end
			}
		}
	slow:
		// The general path: one call site for every case above that did
		// not take its common form, and for the codes that have no case.
		if pl, p, in, off, err = d.decodeInstrOutOfLine(pl, p, in, off, &st); err != nil {
			return st.within(err)
		}
		if in != nil {
			continue
		}
	end: // of a struct: the next element, back to the parent, or done
		if st.depth == 0 {
			d.off = off
			return nil
		}
		if f := &st.frames[st.depth-1]; f.left > 1 {
			f.left--
			p = p.add(uintptr(f.in.n))
			if pl.hasDefaults {
				pl, p = pl.withDefaults(p)
			}
			in = first(pl.prog)
			continue
		}
		st.depth--
		f := &st.frames[st.depth]
		pl, p, in = f.pl, f.p, advance(f.in)
	}
}
