// Package proxytest runs `kwire proxy` as a user would (go build, then a
// subprocess) between real clients (franz-go's kgo, librdkafka through
// kcat, kafka-python) and real brokers (an in-process kfake cluster, the
// realclient broker), and checks both what the clients got and what the
// proxy logged.
package proxytest
