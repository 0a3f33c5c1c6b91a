//go:build !race

package ffi

const raceEnabled = false
