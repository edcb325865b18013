package messages

// The structs are generated from schemas/: the facts of Apache Kafka's JSON
// message schemas (names, types, versions, tags, defaults; no prose), one
// file per message, merged from three of Kafka's schema sets, newest first:
// August 2026 (Kafka 4.4), December 2024, and October 2024 for the
// versions Kafka 4.0 removed. The generator imports only package gen, so
// a broken messages package can still be regenerated.
//
// To refresh schemas/ from Kafka's files (beside the project in ../shared):
//
//	go run ./gen/cmd/kwiregen -extract messages/schemas \
//	    -schemas ../shared/kafka-schemas-legacy,../shared/kafka-schemas,../shared/kafka-schemas-2026
//
//go:generate go run ../gen/cmd/kwiregen -schemas schemas -out . -package messages
//
// testdata/minimal-sizes.tsv is the table of minimal-instance sizes (every
// API and version, the smallest request and response frame in bytes), made
// from the structs just generated; the property suite checks it.
//
//go:generate go run ../internal/sizes/sizestable -o testdata/minimal-sizes.tsv
