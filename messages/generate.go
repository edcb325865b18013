package messages

// The structs are generated from Apache Kafka's JSON message schemas: the
// current tree, merged with an older tree for the versions Kafka 4.0
// removed (a later -schemas directory defines the versions it lists).
// If this package does not compile, the kwire command cannot run; then
// `go test ./gen -run TestMessagesPackageUpToDate -update` regenerates it.
//go:generate go run ../cmd/kwire gen -schemas ../../shared/kafka-schemas-legacy,../../shared/kafka-schemas,../../shared/kafka-schemas-2026 -out . -package messages
