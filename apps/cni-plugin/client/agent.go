package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The wire format, shared with the agent (packages/cni/src/agent/agent-protocol.ts): one HTTP/1.0
// POST per connection; the body is each environment entry as KEY=VALUE and a NUL byte, one more
// NUL, then standard input verbatim; the answer's body is the plugin's stdout then its stderr.
const (
	agentPath          = "/v1/cni"
	exitCodeHeader     = "x-cni-exit-code"
	stdoutLengthHeader = "x-cni-stdout-length"
	fallbackHeader     = "x-netledger-fallback"
	clientName         = "netledger-ipam"
	// The largest answer read: the plugin's stdout and stderr for one request.
	maxAnswerBytes = 16 * 1024 * 1024
)

// encodeRequest is the request body: entries that cannot be sent (a key with '=' or NUL, a value
// with NUL; the kernel lets neither reach a process anyway) are left out.
func encodeRequest(environ []string, stdin []byte) []byte {
	var b bytes.Buffer
	seen := make(map[string]bool, len(environ))
	for _, kv := range environ {
		eq := strings.IndexByte(kv, '=')
		if eq <= 0 || strings.IndexByte(kv, 0) >= 0 || seen[kv[:eq]] {
			continue
		}
		seen[kv[:eq]] = true
		b.WriteString(kv)
		b.WriteByte(0)
	}
	b.WriteByte(0)
	b.Write(stdin)
	return b.Bytes()
}

type replyKind int

const (
	// The agent answered: relay its output and status.
	replyAnswer replyKind = iota
	// The agent did not serve the request (absent, refusing, cut short): run it here.
	replyFallback
	// The request was sent and no answer came in time: the agent may still act on it.
	replyTimedOut
)

type agentReply struct {
	kind     replyKind
	stdout   []byte
	stderr   []byte
	exitCode int
	reason   string
}

type agentCall struct {
	socket         string
	connectTimeout time.Duration
	answerTimeout  time.Duration
	body           []byte
}

func fallback(format string, a ...any) agentReply {
	return agentReply{kind: replyFallback, reason: fmt.Sprintf(format, a...)}
}

// askAgent sends one request and reads the answer. No socket, nobody listening, permission
// denied, a connect that does not complete in time, a refusal or an answer cut short: a
// fallback, with the reason. Once the whole request is written, a silent agent is replyTimedOut.
func askAgent(c agentCall) agentReply {
	conn, err := net.DialTimeout("unix", c.socket, c.connectTimeout)
	if err != nil {
		return fallback("%s: %s", c.socket, dialFailure(err))
	}
	defer conn.Close()
	deadline := time.Now().Add(c.answerTimeout)
	_ = conn.SetDeadline(deadline)
	head := fmt.Sprintf("POST %s HTTP/1.0\r\nHost: netledger-node\r\nUser-Agent: %s\r\n"+
		"Content-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n",
		agentPath, clientName, len(c.body))
	if _, err := conn.Write(append([]byte(head), c.body...)); err != nil {
		if isTimeout(err) {
			// Part of the request may be in the agent's buffer, but it acts on a whole one only.
			return fallback("%s: the agent took no request within %s", c.socket, c.answerTimeout)
		}
		return fallback("%s: sending the request: %s", c.socket, dialFailure(err))
	}
	raw, err := io.ReadAll(io.LimitReader(conn, maxAnswerBytes+1))
	if err != nil && isTimeout(err) {
		return agentReply{kind: replyTimedOut}
	}
	if len(raw) > maxAnswerBytes {
		return fallback("%s: an answer larger than %d bytes", c.socket, maxAnswerBytes)
	}
	return parseAnswer(raw)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// dialFailure names a failed connect by its errno (ENOENT, ECONNREFUSED, EACCES, ...).
func dialFailure(err error) string {
	var errno syscall.Errno
	switch {
	case isTimeout(err):
		return "no connection in time"
	case errors.As(err, &errno):
		if name, ok := errnoNames[errno]; ok {
			return name
		}
		return errno.Error()
	case errors.Is(err, os.ErrNotExist):
		return "ENOENT"
	}
	return err.Error()
}

var errnoNames = map[syscall.Errno]string{
	syscall.ENOENT:       "ENOENT",
	syscall.ECONNREFUSED: "ECONNREFUSED",
	syscall.EACCES:       "EACCES",
	syscall.EPERM:        "EPERM",
	syscall.ENOTSOCK:     "ENOTSOCK",
	syscall.ENOTDIR:      "ENOTDIR",
	syscall.EAGAIN:       "EAGAIN",
	syscall.EPIPE:        "EPIPE",
	syscall.ECONNRESET:   "ECONNRESET",
}

// parseAnswer reads what the agent sent before closing the connection. Only a complete 200
// (Content-Length met exactly, an exit status of 0 or 1, a stdout length within the body) is an
// answer; anything else is a fallback, safe because every command is idempotent.
func parseAnswer(raw []byte) agentReply {
	headEnd := bytes.Index(raw, []byte("\r\n\r\n"))
	if headEnd < 0 {
		if len(raw) == 0 {
			return fallback("no answer")
		}
		return fallback("an incomplete answer")
	}
	lines := strings.Split(string(raw[:headEnd]), "\r\n")
	body := raw[headEnd+4:]
	status := ""
	if f := strings.Fields(lines[0]); len(f) >= 2 && strings.HasPrefix(f[0], "HTTP/1.") {
		status = f[1]
	}
	headers := map[string]string{}
	for _, line := range lines[1:] {
		if i := strings.IndexByte(line, ':'); i > 0 {
			headers[strings.ToLower(strings.TrimSpace(line[:i]))] = strings.TrimSpace(line[i+1:])
		}
	}
	if status != "200" {
		why := headers[fallbackHeader]
		if why == "" {
			why = strings.TrimSpace(string(body))
		}
		if status == "" {
			status = "garbage"
		}
		if why != "" {
			return fallback("the agent answered %s: %s", status, why)
		}
		return fallback("the agent answered %s", status)
	}
	length, err := strconv.Atoi(headers["content-length"])
	if err != nil || length != len(body) {
		return fallback("an incomplete answer")
	}
	stdoutLength, err := strconv.Atoi(headers[stdoutLengthHeader])
	exit := headers[exitCodeHeader]
	if err != nil || (exit != "0" && exit != "1") || stdoutLength < 0 || stdoutLength > len(body) {
		return fallback("a malformed answer")
	}
	code := 0
	if exit == "1" {
		code = 1
	}
	return agentReply{kind: replyAnswer, stdout: body[:stdoutLength], stderr: body[stdoutLength:], exitCode: code}
}
