// Package kwire in kwire/internal/public defines the types and errors of
// kwire's API that the engine (kwire/internal/engine) uses too: the
// protocol's value types (UUID, TaggedField, UnknownTags, VersionRange),
// the frame headers, the *Error every call returns and its sentinels,
// and the trees Layout and SchemaOf build. Package kwire writes each out
// again under the same name, with the same fields (so that go doc shows
// them), and converts at its calls, so users never import this package;
// it is named kwire, and imported as public, so that reflect and fmt name
// its types as users know them (kwire.UUID, *kwire.Error).
package kwire
