#!/bin/sh
# interop/scripts/wireforms/count.sh ROOT (a checkout): per wire form, the non-test lines under ROOT that spell it
# outside its definition. DEF is the definitions, left out: kwire/wire,
# kwire/engine_forms.go, kwire/internal/genforms and the generated
# kwire/engine_codec_gen.go (at 42033ab: kwire/internal/engine/wire.go,
# .../engine/genforms, .../engine/codec_gen.go); the engine pointer file's
# put16/put32/put64 (the unsafe stores the forms call) too.
# The counts are raw: the hit lists (OUT=DIR keeps them, form.<tree>.<form>)
# also hold non-Kafka forms (sniff's Ethernet/IP/TCP, xerial, zstd and gzip
# framing) and interop's tools, which issue 25's note set apart by hand.
root=$1
here=$(cd "$(dirname "$0")" && pwd)
DEF='^kwire/wire/|^kwire/engine_forms\.go|^kwire/internal/genforms/|^kwire/engine_codec_gen\.go|^kwire/internal/engine/wire\.go|^kwire/internal/engine/genforms/|^kwire/internal/engine/codec_gen\.go|^kwire/(internal/engine/|engine_)pointer\.go:[0-9]+:.*(func put(16|32|64)|b\[[04]\], b\[[15]\])'
hits() { sh "$here/hits.sh" "$root" "$1" | grep -Ev "$DEF"; }
form() { name=$1; shift; hits "$1" > "${OUT:-/tmp}/form.$(basename $root).$name"; }
form fixed16 'binary\.BigEndian\.(Put|Append)?Uint16|\bbe\.(Put|Append)?Uint16'
form fixed32 'binary\.BigEndian\.(Put|Append)?Uint32|\bbe\.(Put|Append)?Uint32'
form fixed64 'binary\.BigEndian\.(Put|Append)?Uint64|\bbe\.(Put|Append)?Uint64'
form shifts 'byte\([a-zA-Z_.()]+ ?>> ?(8|24|56)\)|\[[^]]*\]\) ?<< ?(8|24|56)'
form varint 'binary\.(Put|Append)?U?[vV]arint|binary\.MaxVarint|u >= 0x80|v >= 0x80|c&0x7f|& ?0x7f\)|\^ ?-int(32|64)\(|v<<1\) \^|v >> ?63|v >> ?31'
form boolw 'append\([a-zA-Z_.]+, 1\)'
form boolr '(src|b|d\.src|p)\[[^]]*\] != 0\b'
form presence 'append\([a-zA-Z_.]+, (0xff|255)\)|int8\([^)]*\) < 0|\] == 0xff|== 0xff\b'
form compactwide 'compact, wide|compact bool|wide bool|\(compact, wide'
form unsupported '= 35\b|errUnsupportedVersion|UnsupportedVersion *= '
form frame4 'append\([a-zA-Z_.]+, 0, 0, 0, 0\)|- ?4\)\)|start-4|start - 4|len\([a-z]+\)-4\b|\[4:8\]'
form taggedw '(appendUvarint|AppendUvarint|uvarintSize|SizeUvarint)\([^)]*([Tt]ag|uint32\(size\)|len\(data\)|tags\.Len)'
form taggedr '(readUvarint|ConsumeUvarint)\(.*\).*// *(tag|count)|numTags|tagCount|[Tt]ag, [a-z]+ := .*[Uu]varint'
form reqhead '<< ?48|>> ?48|\[6:\]\)|\[4:\], unknown|APIKey\)\)|uint16\(h\.APIKey\)|uint16\(h\.APIVersion\)'
for f in ${OUT:-/tmp}/form.$(basename $root).*; do printf '%-12s %3d\n' "${f##*.}" "$(wc -l < $f)"; done
