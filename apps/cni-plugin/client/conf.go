package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"time"
)

// What the client reads of the network config: where the agent listens and how long to wait.
type clientConf struct {
	cniVersion     string
	agentSocket    string
	connectTimeout time.Duration
	answerTimeout  time.Duration
	// A key the client cannot use (the Node.js side reports it the plugin's way, when installed).
	err *cniError
}

const (
	defaultAgentSocket = "/run/netledger/node.sock"
	// A unix socket connects at once or not at all; a full backlog (an agent that stopped
	// accepting) is the case this bounds.
	defaultConnectTimeout = 2 * time.Second
	// Well under what a runtime gives one CNI call (containerd and CRI-O: minutes), and above the
	// agent's own bounds for a healthy request (docs/node-agent.md, "Bounded waits").
	defaultAnswerTimeout = 60 * time.Second
)

// readClientConf reads agent_socket and the agent timeouts, each from the ipam object first and
// then from the top level (where calico-ipam reads its keys). A config that is not JSON gets the
// defaults: the agent (or the fallback) then refuses it with the plugin's own error.
func readClientConf(input []byte) clientConf {
	c := clientConf{
		agentSocket:    defaultAgentSocket,
		connectTimeout: defaultConnectTimeout,
		answerTimeout:  defaultAnswerTimeout,
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(input, &top) != nil {
		return c
	}
	var version string
	if json.Unmarshal(top["cniVersion"], &version) == nil {
		c.cniVersion = version
	}
	var ipam map[string]json.RawMessage
	_ = json.Unmarshal(top["ipam"], &ipam)
	lookup := func(key string) (json.RawMessage, bool) {
		if v, ok := ipam[key]; ok {
			return v, true
		}
		v, ok := top[key]
		return v, ok
	}
	if raw, ok := lookup("agent_socket"); ok {
		var path string
		if json.Unmarshal(raw, &path) != nil || !filepath.IsAbs(path) {
			c.err = &cniError{code: codeInvalidNetworkConfig,
				msg: "agent_socket " + string(raw) + " is not an absolute path"}
			return c
		}
		c.agentSocket = path
	}
	for _, t := range []struct {
		key string
		to  *time.Duration
	}{{"agent_connect_timeout_ms", &c.connectTimeout}, {"agent_timeout_ms", &c.answerTimeout}} {
		raw, ok := lookup(t.key)
		if !ok {
			continue
		}
		ms, err := strconv.ParseUint(string(raw), 10, 31)
		if err != nil || ms == 0 {
			c.err = &cniError{code: codeInvalidNetworkConfig,
				msg: t.key + " " + string(raw) + " is not a positive number of milliseconds"}
			return c
		}
		*t.to = time.Duration(ms) * time.Millisecond
	}
	return c
}
