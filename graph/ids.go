package graph

// ConsecutiveIDs tells whether the nodes' IDs run one after the other, so
// that a node's position among them is its ID less the first's. Build
// numbers the top-level graph's nodes and each function body's so; a pass
// over one of them can then find positions without a map.
func ConsecutiveIDs(nodes []*Node) bool {
	for k, n := range nodes {
		if n.ID != nodes[0].ID+k {
			return false
		}
	}
	return true
}
