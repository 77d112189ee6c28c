package scan

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// ParseShard reads --shard I/N: the I-th of N shares of the models found,
// I from 1 to N (as Playwright's and Jest's --shard, and GitLab's
// CI_NODE_INDEX/CI_NODE_TOTAL; Kubernetes' JOB_COMPLETION_INDEX counts from
// 0, so an Indexed Job passes $((JOB_COMPLETION_INDEX+1))/N).
func ParseShard(v string) (*reports.Shard, error) {
	is, ns, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case !ok || err1 != nil || err2 != nil:
		return nil, fmt.Errorf("--shard %q: want I/N, the I-th of N shares of the models (e.g. 1/4)", v)
	case n < 1:
		return nil, fmt.Errorf("--shard %s: the number of shards must be at least 1", v)
	case i == 0:
		return nil, fmt.Errorf("--shard %s: shards are numbered from 1 to %d (Kubernetes' JOB_COMPLETION_INDEX counts from 0: pass $((JOB_COMPLETION_INDEX+1))/%d)", v, n, n)
	case i < 1 || i > n:
		return nil, fmt.Errorf("--shard %s: the shard must be between 1 and %d", v, n)
	}
	return &reports.Shard{Index: i, Count: n}, nil
}

// shardKey is what decides a model's shard: its path relative to the root
// it was found under, with forward slashes, so that runners with checkouts
// in different places agree; a path given as the model itself is keyed by
// its base name.
func shardKey(root, model string) string {
	if rel, err := filepath.Rel(root, model); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(filepath.Clean(model))
}

// inShard tells whether the model with this key belongs to shard s: the
// first 8 bytes of the key's SHA-256, modulo the count, pick the shard.
// SHA-256 rather than Go's map hash so that every build and every machine
// agrees.
func inShard(key string, s *reports.Shard) bool {
	if s == nil {
		return true
	}
	h := sha256.Sum256([]byte(key))
	return binary.BigEndian.Uint64(h[:8])%uint64(s.Count) == uint64(s.Index-1)
}
