package main

// errnoText reports false: Plan 9 has no error numbers, only error
// strings, which errText prints as they are.
func errnoText(error) (string, bool) { return "", false }
