// Package release holds, for every Apache Kafka release from 0.8.0 to 4.4,
// the version range of every API its nodes advertise in ApiVersions, and
// reads a broker's ApiVersions answer back to the release it looks like.
//
//	r, err := release.ByName("3.7")              // also "3.7.1", "v3.7", "3.7-kraft"
//	for _, a := range r.APIs { ... }             // kwire.APIVersionRange, by key
//	m := release.Guess(apiVersionsResponse)      // m.Release, m.Exact, m.Differences
//	changes := release.Diff(old, new)            // what a release changed
//
// A release has up to three tables, one per Role: a broker in ZooKeeper
// mode (0.8.0 to 3.9), a KRaft broker and a KRaft controller (2.8 to
// 4.4). "3.7" names the node clients usually met: the ZooKeeper-mode
// broker before 4.0, the KRaft broker from 4.0.
//
// The tables live in releases.txt, one block of changes per release and
// role. Where the facts come from:
//
//   - Maxima from 0.8.0 to 4.4, for all three roles, are franz-go's
//     kversion tables (v1.22.3), which cite the Kafka commit and KIP of
//     each bump; the interop module's TestReleaseTablesMatchKversion
//     compares every table kversion exports.
//   - The metadata.version ranges of KRaft nodes (3.3 on, the one feature
//     kept) are kversion's feature table, which reads them from Kafka's
//     MetadataVersion at each release tag.
//   - Minima are 0 before 4.0. The 4.x minima are KIP-896's removals as
//     the 4.0 release shipped them: Metadata v0-3 were put back before
//     the release (KAFKA-18648), Produce v0-2 are still advertised though
//     refused (KAFKA-18659), JoinGroup v0-1 came back in 4.1
//     (KAFKA-19444), the four share-group RPCs were released at v1 in 4.1.
//   - Kafka's own schema files check the 4.x tables: the set of August
//     2026 (the 4.4 branch) agrees with the 4.4 broker and controller
//     tables on every API, listener and range; the set of December 2024
//     agrees with 4.0 but for seven changes that landed before the 4.0
//     release, each named in TestSchemaSetsAgreeWithTheirReleases; the
//     October 2024 set (trunk after the 3.9 branch) offers each role the
//     same APIs as 3.9, with maxima between 3.9's and 4.0's.
//
// Uncertain: the KRaft tables of 2.8 (early access; kversion says its
// tables for it are approximate), 3.7 and 3.8 ZooKeeper-mode brokers
// offering ConsumerGroupHeartbeat and ConsumerGroupDescribe (KIP-848 was
// early access; the October 2024 set lists both for ZooKeeper-mode
// brokers, as 3.9 has them), and 4.1 to 4.3, which rest on kversion alone
// (no schema set was taken at those releases). Brokers
// offer the telemetry APIs (KIP-714) only with a telemetry receiver
// configured; Guess does not count their absence.
package release
