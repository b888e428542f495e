// Command gen writes the golden corpus (../README.md) with Go's encoding/json: every file of
// values/ and after/, and corpus.json, from the fixed inputs of corpus.go.
//
//	go run . [-out DIR]
//
// DIR (default "..", the corpus) gets values/ and after/ with one file per etcd value (the file
// is the value: no trailing newline) and corpus.json naming each value's key. *.txt files of
// values/ and after/ that the corpus no longer has are removed.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", "..", "the directory to write values/, after/ and corpus.json into")
	flag.Parse()
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func write(out string) error {
	values := values()
	if err := writeDir(filepath.Join(out, "values"), values); err != nil {
		return err
	}
	if err := writeDir(filepath.Join(out, "after"), after()); err != nil {
		return err
	}
	type corpusEntry struct {
		File string `json:"file"`
		Key  string `json:"key"`
	}
	index := make([]corpusEntry, len(values))
	for i, v := range values {
		index[i] = corpusEntry{File: v.file, Key: v.key}
	}
	bytes, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "corpus.json"), append(bytes, '\n'), 0o644)
}

// writeDir makes dir hold exactly the entries' files.
func writeDir(dir string, entries []entry) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	stale, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return err
	}
	for _, f := range stale {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	for _, e := range entries {
		if err := os.WriteFile(filepath.Join(dir, e.file), serializeValue(e.value), 0o644); err != nil {
			return err
		}
	}
	return nil
}
