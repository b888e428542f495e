package main

import (
	"encoding/json"
	"io"
)

// CNI error codes (CNI spec, "Error"), as the Node.js side uses them.
const (
	codeInvalidNetworkConfig = 7
	codeIOFailure            = 5
	codeDecodingFailure      = 6
	codeInvalidEnvironment   = 4
	codeTryAgainLater        = 11
	codeInternal             = 999
)

type cniError struct {
	code       int
	msg        string
	cniVersion string
}

// printCniError writes the CNI error result on stdout, indented by four spaces as libcni and the
// Node.js side print it (cniVersion: the request's, when it could be read),
// and returns the plugin's exit status for it.
func printCniError(stdout io.Writer, e cniError) int {
	out, _ := json.MarshalIndent(struct {
		CNIVersion string `json:"cniVersion,omitempty"`
		Code       int    `json:"code"`
		Msg        string `json:"msg"`
	}{e.cniVersion, e.code, e.msg}, "", "    ")
	stdout.Write(append(out, '\n'))
	return 1
}
