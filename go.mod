module github.com/purego-blake3/blake3

go 1.25.0

require (
	github.com/ebitengine/purego v0.11.3
	github.com/klauspost/cpuid/v2 v2.0.12
	github.com/zeebo/blake3 v0.2.4
	golang.org/x/sys v0.45.0
	lukechampine.com/blake3 v1.4.1
)
