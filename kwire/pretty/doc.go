// Package pretty shows kwire messages to people: version-aware JSON and a
// one-line summary for logs. It works on any tagged struct (the generated
// messages or your own), through the schema the codec itself uses.
//
// # JSON
//
// JSON writes one object per struct with the Go field names as keys, and
// only the fields the version has, in wire order (tagged fields last).
// Values:
//
//   - integers and floats as numbers (a NaN or infinite float64 as the
//     string "NaN", "+Inf" or "-Inf"), bools as true/false;
//   - strings as JSON strings; a null *string, null array, null bytes and
//     null struct as null;
//   - UUIDs in the canonical 8-4-4-4-12 hex form;
//   - bytes as standard base64, as encoding/json writes []byte;
//   - a records field as a summary: {"Batches":2,"Records":10,
//     "Codec":"zstd","Bytes":612} (Codec lists the codecs in order of
//     appearance, joined by commas, when batches differ; it is left out
//     when there are no batches), with "Partial":true when the set ends
//     in a batch cut short (brokers do that in Fetch responses) and
//     "Error":"..." when it does not parse. With WithRecords the batches
//     and records themselves are written (see WithRecords); with
//     WithRawRecords the field's bytes in base64;
//   - the tagged fields the struct does not know (its UnknownTags field),
//     only when there are some, as [{"Tag":N,"Data":"base64"}].
//
// But for records fields and non-finite floats, encoding/json reads the
// output back into a struct equal to the first in every field the version
// has, unknown tags included (tested for every API and version).
//
// ParseJSON reads it all back, records in full or raw included, and is
// strict about keys: a message read from JSON encodes to the bytes of the
// message written (a property tested for every API, version and
// direction). Each kind of field has one JSON form, a type with both a
// write and a read method (forms.go), so the two directions cannot drift.
package pretty
