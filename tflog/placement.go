package tflog

import "strings"

// placerPlacement reads a placer line: core/common_runtime/placer.cc:123-127
// (LogDeviceAssignment) printf "%s: (%s): %s\n" and LOG(INFO) name ": ("
// type "): " device (behind a glog prefix), or placer.cc:135-136 (VLOG(1))
// name "(" type ") placed on: " device.
func placerPlacement(s string) (name, op, dev string, ok bool) {
	s = strings.TrimRight(s, " \t")
	if i := strings.LastIndex(s, "): /job:"); i >= 0 {
		j := strings.LastIndex(s[:i], ": (")
		if j < 0 {
			return "", "", "", false
		}
		name, op, dev = lastField(s[:j]), s[j+3:i], s[i+3:]
	} else if i := strings.LastIndex(s, ") placed on: /job:"); i >= 0 {
		j := strings.LastIndex(s[:i], "(")
		if j < 0 {
			return "", "", "", false
		}
		name, op, dev = lastField(s[:j]), s[j+1:i], s[i+len(") placed on: "):]
	} else {
		return "", "", "", false
	}
	if name == "" || name[0] == ':' || !isOpName(op) || strings.ContainsAny(dev, " \t") {
		return "", "", "", false
	}
	return name, op, dev, true
}

// eagerPlacement reads core/common_runtime/eager/execute.cc:1747 and :2457:
// "Executing op ", name, " in device ", device.
func eagerPlacement(s string) (op, dev string, ok bool) {
	i := strings.Index(s, "Executing op ")
	if i < 0 {
		return "", "", false
	}
	op, dev, found := strings.Cut(s[i+len("Executing op "):], " in device ")
	if !found || !isOpName(op) || !strings.HasPrefix(dev, "/job:") {
		return "", "", false
	}
	if j := strings.IndexAny(dev, " \t"); j >= 0 {
		dev = dev[:j]
	}
	return op, dev, true
}

// lastField is the last whitespace-separated field of s ("" if none): the
// node name after a log prefix.
func lastField(s string) string {
	if strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\t") {
		return ""
	}
	return s[strings.LastIndexAny(s, " \t")+1:]
}

// isOpName checks op against the characters op names use (opName).
func isOpName(op string) bool {
	if op == "" {
		return false
	}
	for i := 0; i < len(op); i++ {
		c := op[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '>' || c == '-') {
			return false
		}
	}
	return true
}
