package messages

// The structs are generated from Apache Kafka's JSON message schemas: the
// current tree, merged with an older tree for the versions Kafka 4.0
// removed (a later -schemas directory defines the versions it lists).
//go:generate go run ../cmd/kwire gen -schemas ../../shared/kafka-schemas-legacy,../../shared/kafka-schemas -out . -package messages
