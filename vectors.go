package blake3

// The official BLAKE3 test vectors' key and context (test_vectors.json in
// the BLAKE3 repository), used by the loader's self-test and by the tests.
const (
	// emptyHash is BLAKE3("").
	emptyHash = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"

	vectorKey     = "whats the Elvish word for friend"
	vectorContext = "BLAKE3 2019-12-27 16:29:52 test vectors context"
)
