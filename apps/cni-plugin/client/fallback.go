package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
)

// The Node.js fallback's files, beside the client: netledger-ipam.d/ holds the plain bundle and
// `node`, a symlink to the Node.js binary the install chose (else `node` on PATH is used).
const (
	fallbackDirName = "netledger-ipam.d"
	fallbackEntry   = "netledger-ipam.mjs"
	fallbackNode    = "node"
	// Set for the fallback: the client's own path. The fallback then knows the client started it
	// (it exits answeredOffset + its status when it chose that status itself, and never asks the
	// agent again) and can run the client's lock helper.
	clientEnv = "NETLEDGER_CLIENT"
	// Set for the fallback: why the agent did not serve the request (for the plugin's log).
	fallbackReasonEnv = "NETLEDGER_FALLBACK_REASON"
	// What the fallback adds to the exit status it chose itself: any other status is Node's own
	// (it could not start, or died before answering).
	answeredOffset = 100
)

type fallbackRun struct {
	self    string
	args    []string // a verb and its arguments (install, ...); none for a CNI request
	environ []string
	// A verb's standard input is passed on as it is (passStdin); a CNI request's, already read, is input.
	stdin      io.Reader
	passStdin  bool
	input      []byte
	stdout     io.Writer
	stderr     io.Writer
	reason     string
	socket     string
	cniVersion string
	// The error to print when no fallback is installed (default: code 11 naming the socket).
	otherwise *cniError
}

// fallbackFiles finds the bundle and the Node.js binary beside the client (through a symlink to
// the client too); ok is false when either is missing.
func fallbackFiles(self string) (node, entry, dir string, ok bool) {
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	dir = filepath.Join(filepath.Dir(self), fallbackDirName)
	entry = filepath.Join(dir, fallbackEntry)
	if st, err := os.Stat(entry); err != nil || !st.Mode().IsRegular() {
		return "", "", dir, false
	}
	node = filepath.Join(dir, fallbackNode)
	if st, err := os.Stat(node); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return node, entry, dir, true
	}
	if found, err := exec.LookPath("node"); err == nil {
		return found, entry, dir, true
	}
	return "", "", dir, false
}

// runFallback runs the request (or verb) with the Node.js fallback and relays what it printed.
// Node.js failing before the plugin answered is reported as CNI error JSON (code 999), never a
// bare status; the fallback is killed if the client is.
func runFallback(f fallbackRun) int {
	node, entry, dir, ok := fallbackFiles(f.self)
	if !ok {
		if f.otherwise != nil {
			f.otherwise.cniVersion = f.cniVersion
			return printCniError(f.stdout, *f.otherwise)
		}
		msg := fmt.Sprintf("no netledger-node answers at %s (%s), and no fallback is installed in %s", f.socket, f.reason, dir)
		if len(f.args) > 0 {
			fmt.Fprintf(f.stderr, "netledger-ipam: %s needs the Node.js side, which is not installed in %s\n", f.args[0], dir)
			return 1
		}
		return printCniError(f.stdout, cniError{code: codeTryAgainLater, msg: msg, cniVersion: f.cniVersion})
	}
	cmd := exec.Command(node, append([]string{entry}, f.args...)...)
	cmd.Env = append(withoutKeys(f.environ, clientEnv, fallbackReasonEnv),
		clientEnv+"="+f.self, fallbackReasonEnv+"="+f.reason)
	var out bytes.Buffer
	cmd.Stderr = f.stderr
	if f.passStdin {
		cmd.Stdin, cmd.Stdout = f.stdin, f.stdout
	} else {
		cmd.Stdin, cmd.Stdout = bytes.NewReader(f.input), &out
	}
	// The runtime kills the plugin it started (this client) when it gives up: the fallback must
	// not go on assigning after that. The death signal follows the thread that started it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err := cmd.Run()
	status := 0
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr) && exitErr.Exited():
		status = exitErr.ExitCode()
	default:
		why := err.Error()
		if errors.As(err, &exitErr) {
			why = "was killed (" + exitErr.String() + ")"
		}
		return nodeFailed(f, fmt.Sprintf("Node.js (%s) %s before the plugin answered", node, why))
	}
	if status != 0 && (status < answeredOffset || status >= 128) {
		return nodeFailed(f, fmt.Sprintf("Node.js (%s) exited with status %d before the plugin answered (see its standard error)", node, status))
	}
	f.stdout.Write(out.Bytes())
	if status == 0 {
		return 0
	}
	return status - answeredOffset
}

func nodeFailed(f fallbackRun, msg string) int {
	if len(f.args) > 0 {
		fmt.Fprintf(f.stderr, "netledger-ipam: %s\n", msg)
		return 1
	}
	return printCniError(f.stdout, cniError{code: codeInternal, msg: "netledger-ipam: " + msg, cniVersion: f.cniVersion})
}

func withoutKeys(environ []string, keys ...string) []string {
	out := make([]string, 0, len(environ))
next:
	for _, kv := range environ {
		for _, k := range keys {
			if len(kv) > len(k) && kv[:len(k)] == k && kv[len(k)] == '=' {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}
