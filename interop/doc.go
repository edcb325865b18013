// Package interop checks kwire against other Go Kafka codecs: byte-for-byte
// differential tests against franz-go's kmsg over every API and version,
// and encode/decode benchmarks against kmsg, kafka-go and sarama.
package interop
