// netledger-ipam, the CNI IPAM plugin a host runs: a small static client with no IPAM logic. It
// hands each CNI request (its environment and standard input) to the node agent, netledger-node,
// over the agent's unix socket, and relays the answer and exit status. When no agent answers it
// runs the Node.js fallback installed beside it (netledger-ipam.d/), which serves the request
// itself with the same code; with none installed it fails with CNI code 11 (try again later).
// The agent's protocol is described in packages/cni/src/agent/agent-protocol.ts.
package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program, its inputs and outputs passed in (the tests call it).
func run(args []string, environ []string, stdin io.Reader, stdout, stderr io.Writer) int {
	self := executablePath()
	if len(args) > 0 {
		switch args[0] {
		case lockHelperVerb:
			return serveLocks(stdin, stdout)
		case "-v", "--version":
			fmt.Fprintln(stdout, about)
			return 0
		}
		// Every other verb (install, ...) is the Node.js side's.
		return runFallback(fallbackRun{self: self, args: args, environ: environ, stdin: stdin,
			stdout: stdout, stderr: stderr, passStdin: true})
	}
	env := envMap(environ)
	command := env["CNI_COMMAND"]
	if command == "" {
		// Run by hand: the Node.js side prints what the plugin is.
		return runFallback(fallbackRun{self: self, environ: environ, stdout: stdout, stderr: stderr,
			reason: "no CNI_COMMAND", otherwise: &cniError{code: codeInvalidEnvironment,
				msg: "netledger-ipam: no CNI_COMMAND: this is a CNI plugin, run by a container runtime"}})
	}
	input, err := readBounded(stdin, maxRequestBytes)
	if err != nil {
		return printCniError(stdout, cniError{code: codeIOFailure, msg: "reading the network config: " + err.Error()})
	}
	conf := readClientConf(input)
	if conf.err != nil {
		// The Node.js side refuses the config with the plugin's own message; without it, so does this.
		return runFallback(fallbackRun{self: self, environ: environ, input: input, stdout: stdout,
			stderr: stderr, reason: conf.err.msg, cniVersion: conf.cniVersion, otherwise: conf.err})
	}
	// Every command goes to the agent, which answers one it does not know with the plugin's error.
	reply := askAgent(agentCall{
		socket:         conf.agentSocket,
		connectTimeout: conf.connectTimeout,
		answerTimeout:  conf.answerTimeout,
		body:           encodeRequest(environ, input),
	})
	switch reply.kind {
	case replyAnswer:
		stdout.Write(reply.stdout)
		stderr.Write(reply.stderr)
		return reply.exitCode
	case replyTimedOut:
		// The request reached the agent, which may still act on it: running it here as well
		// would race it. The runtime retries; an agent that finishes late takes its ADD back.
		return printCniError(stdout, cniError{
			code: codeTryAgainLater,
			msg: fmt.Sprintf("the node agent at %s did not answer within %d s: try again later",
				conf.agentSocket, int(conf.answerTimeout/time.Second)),
			cniVersion: conf.cniVersion,
		})
	}
	reason := reply.reason
	return runFallback(fallbackRun{self: self, environ: environ, input: input, stdout: stdout,
		stderr: stderr, reason: reason, socket: conf.agentSocket, cniVersion: conf.cniVersion})
}

const about = "netledger-ipam: netledger CNI IPAM plugin (calico-ipam compatible), static client"

// The largest network config read, as the agent's own bound on a request.
const maxRequestBytes = 1024 * 1024

func readBounded(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return data, nil
}

func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				m[kv[:i]] = kv[i+1:]
				break
			}
		}
	}
	return m
}

func executablePath() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	return p
}
