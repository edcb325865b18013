// Package snifftest checks `kwire sniff`'s capture reader on real
// clients' traffic: franz-go's kgo against an in-process kfake cluster,
// recorded by a dialer that writes every byte relayed into a capture
// (pcap and pcapng), and, where tcpdump is installed, loopback captures
// of kcat and kafka-python. Every frame the clients sent must come out
// decoded and paired.
package snifftest
