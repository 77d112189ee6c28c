package tflog

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
)

// Parse reads a log and returns what it says about nodes, ops, kernels and
// devices. It fails only when the input cannot be read or is not text
// (ErrBinary); a log without any such message is an empty Log.
func Parse(r io.Reader) (*Log, error) {
	lr, err := newLineReader(r)
	if err != nil {
		return nil, err
	}
	p := &parser{
		log:      &Log{},
		seen:     map[string]*Message{},
		placeIdx: map[string]int{},
		eagerIdx: map[string]int{},
	}
	for {
		b, cut, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", p.log.Lines+1, err)
		}
		p.log.Lines++
		if cut {
			p.log.CutLines++
		}
		p.line(string(b))
	}
	p.close()
	return p.log, nil
}

type parser struct {
	log *Log
	// cur is the message being read; its continuation lines follow.
	cur       *Message
	curLines  int
	inKernels bool
	inDebug   bool
	seen      map[string]*Message
	placeIdx  map[string]int
	eagerIdx  map[string]int
}

func (p *parser) line(s string) {
	if strings.IndexByte(s, 0) >= 0 {
		p.close() // binary junk inside a text log: not a message
		return
	}
	if p.header(s) {
		return
	}
	if p.cur != nil && p.curLines < maxContinuation && p.continuation(s) {
		p.curLines++
		return
	}
	p.close()
	if p.placement(s) {
		return
	}
	if unparsed(s) {
		p.log.Unparsed++
		if len(p.log.UnparsedLines) < MaxUnparsedSamples {
			p.log.UnparsedLines = append(p.log.UnparsedLines, p.log.Lines)
		}
	}
}

// header opens a message when s starts one.
func (p *parser) header(s string) bool {
	for i := range headers {
		h := &headers[i]
		if !strings.Contains(s, h.needle) {
			continue
		}
		idx := h.re.FindStringSubmatchIndex(s)
		if idx == nil {
			continue
		}
		m := make([]string, len(idx)/2)
		for j := range m {
			if idx[2*j] >= 0 {
				m[j] = s[idx[2*j]:idx[2*j+1]]
			}
		}
		p.close()
		text := strings.TrimLeftFunc(s[idx[0]:], func(r rune) bool { return unicode.IsSpace(r) || r == ':' || r == ']' })
		msg := &Message{Kind: h.kind, Source: h.source, Line: p.log.Lines, Count: 1, Text: clip(text, MaxText)}
		h.fill(msg, m)
		if msg.Op == "" {
			if em := reEagerOpAnywhere.FindStringSubmatch(s); em != nil {
				msg.Op = em[1]
			}
		}
		p.cur, p.curLines, p.inKernels, p.inDebug = msg, 0, false, false
		return true
	}
	return false
}

// continuation reads one more line of the open message, or reports that s
// is not part of it.
func (p *parser) continuation(s string) bool {
	msg := p.cur
	if strings.TrimSpace(s) == "" {
		return true
	}
	if m := reRegDevices.FindStringSubmatch(s); m != nil {
		msg.RegisteredDevices = splitList(m[1])
		return true
	}
	if reRegKernels.MatchString(s) {
		msg.KernelsListed, p.inKernels, p.inDebug = true, true, false
		return true
	}
	if m := reAllKernels.FindStringSubmatch(s); m != nil {
		msg.KernelsListed, p.inKernels = true, true
		if msg.Op == "" {
			msg.Op = m[1]
		}
		return true
	}
	if m := reRegisteredOK.FindStringSubmatch(s); m != nil {
		msg.KernelsListed, p.inKernels = true, true
		rest := strings.TrimSpace(m[1])
		switch {
		case rest == "" || reNoKernels.MatchString(rest):
		case strings.HasPrefix(rest, "device='"):
			p.kernel(rest)
		default:
			msg.KernelsElided = true
		}
		return true
	}
	if reNoKernels.MatchString(s) {
		msg.KernelsListed = true
		return true
	}
	if p.inKernels {
		if m := reKernelLine.FindStringSubmatch(s); m != nil {
			p.kernel(m[1])
			return true
		}
	}
	if m := reAttrMismatch.FindStringSubmatch(s); m != nil {
		msg.Attrs = m[1]
		return true
	}
	if m := reOpLine.FindStringSubmatch(s); m != nil {
		if msg.Op == "" {
			msg.Op = m[1]
		}
		return true
	}
	if m := reNodeAttrs.FindStringSubmatch(s); m != nil {
		msg.Attrs = m[1]
		return true
	}
	if reDebugInfo.MatchString(s) || reDebugGroup.MatchString(s) || reDebugRoot.MatchString(s) || reDebugHead.MatchString(s) {
		p.inDebug = true
		return true
	}
	if p.inDebug {
		if m := reDebugMem.FindStringSubmatch(s); m != nil {
			p.member(NodeRef{Name: m[1], Op: m[2]})
			return true
		}
		if m := reDebugType.FindStringSubmatch(s); m != nil {
			if len(msg.OpDevices) < maxNodes {
				msg.OpDevices = append(msg.OpDevices, OpDevices{Op: m[1], Devices: strings.Fields(m[2])})
			}
			return true
		}
	}
	if m := reAttachDef.FindStringSubmatch(s); m != nil {
		if msg.Node == "" {
			if n, _ := nodesOf(m[1]); n != "" {
				msg.Node = n
			} else if name := strings.TrimSpace(m[1]); reNodeNameOnly.MatchString(name) {
				msg.Node = name
			}
		}
		if em := reEagerOpAnywhere.FindStringSubmatch(s); em != nil && msg.Op == "" {
			msg.Op = em[1]
		}
		return true
	}
	if m := reEagerOp.FindStringSubmatch(s); m != nil {
		if msg.Op == "" {
			msg.Op = m[1]
		}
		return true
	}
	if msg.Kind == KindSoftPlacementResources {
		if m := reCandidateDev.FindStringSubmatch(s); m != nil {
			if msg.Device == "" {
				msg.Device = normDevice(m[1])
			}
			return true
		}
		if reSeeBelow.MatchString(s) {
			return true
		}
	}
	if (msg.Kind == KindGEOpUnsupported || msg.Kind == KindGENoEngine) && reGESuggestion.MatchString(s) {
		return true
	}
	return false
}

func (p *parser) kernel(s string) {
	msg := p.cur
	k, elided, ok := parseKernel(s)
	if !ok || elided {
		msg.KernelsElided = true
	}
	if ok && len(msg.Kernels) < maxKernels {
		msg.Kernels = append(msg.Kernels, k)
	} else if ok {
		msg.KernelsElided = true
	}
}

func (p *parser) member(n NodeRef) {
	msg := p.cur
	if n.Name == msg.Node {
		if msg.Op == "" {
			msg.Op = n.Op
		}
		return
	}
	for _, x := range msg.Nodes {
		if x.Name == n.Name {
			return
		}
	}
	if len(msg.Nodes) < maxNodes {
		msg.Nodes = append(msg.Nodes, n)
	}
}

// close files the open message, merging it with an identical earlier one.
func (p *parser) close() {
	msg := p.cur
	p.cur = nil
	if msg == nil {
		return
	}
	src := msg.Attrs
	if msg.Kind == KindGEOpUnsupported {
		for _, m := range reGEDataType.FindAllStringSubmatch(msg.Reason, -1) {
			src += " " + m[1]
		}
	}
	for _, dt := range reDType.FindAllString(src, -1) {
		if !slices.Contains(msg.DTypes, dt) {
			msg.DTypes = append(msg.DTypes, dt)
		}
	}
	key := strings.Join([]string{string(msg.Kind), msg.Node, msg.Op, msg.Device, msg.Text}, "\x00")
	if prev := p.seen[key]; prev != nil {
		prev.Count++
		return
	}
	if len(p.log.Messages) >= MaxEntries {
		p.log.Dropped++
		return
	}
	p.seen[key] = msg
	p.log.Messages = append(p.log.Messages, msg)
}

// placement records a placer or eager placement line.
func (p *parser) placement(s string) bool {
	if op, dev, ok := eagerPlacement(s); ok {
		return p.place(&p.log.Eager, p.eagerIdx, op, Placement{Op: op, Device: normDevice(dev), Line: p.log.Lines})
	}
	if name, op, dev, ok := placerPlacement(s); ok {
		return p.place(&p.log.Placements, p.placeIdx, name, Placement{Name: name, Op: op, Device: normDevice(dev), Line: p.log.Lines})
	}
	return false
}

func (p *parser) place(list *[]Placement, idx map[string]int, key string, e Placement) bool {
	if !strings.Contains(e.Device, ":") {
		return false // no device part: not a placement
	}
	if i, ok := idx[key]; ok {
		(*list)[i] = e
		return true
	}
	if len(idx) >= MaxEntries {
		p.log.Dropped++
		return true
	}
	idx[key] = len(*list)
	*list = append(*list, e)
	return true
}

// splitList splits "CPU, GPU" into its items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// clip cuts s to at most n bytes and makes it valid UTF-8 (a rune cut in
// half becomes U+FFFD).
func clip(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
