package tfgolden

import (
	"fmt"
	"os"
	"sort"
	"testing"
)

func TestZZSummary(t *testing.T) {
	fams := map[string]bool{"shape": true, "layout": true, "matrix": true, "segment": true, "scatter": true, "image": true, "pool3d": true, "normmath": true, "fused": true, "random": true}
	files, err := ReadAll("../../kernels/testdata/tf")
	if err != nil {
		t.Fatal(err)
	}
	type k struct{ op, dt string }
	m := map[k]map[Outcome]int{}
	det := map[k]string{}
	for _, f := range files {
		if !fams[f.Family] {
			continue
		}
		for _, c := range f.Cases {
			r := Check(c)
			kk := k{c.Op, c.DType()}
			if m[kk] == nil {
				m[kk] = map[Outcome]int{}
			}
			m[kk][r.Outcome]++
			if r.Outcome == NoDType && det[kk] == "" {
				det[kk] = r.Detail
			}
			if r.Outcome == BothError && os.Getenv("SHOWERR") != "" {
				fmt.Printf("ERR %s | TF: %.120s | tfscan: %.150s\n", c.Name(), c.Error, r.Detail)
			}
		}
	}
	var keys []k
	for x := range m {
		keys = append(keys, x)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].op+" "+keys[i].dt < keys[j].op+" "+keys[j].dt })
	for _, x := range keys {
		fmt.Printf("%-36s %-9s %v %s\n", x.op, x.dt, m[x], det[x])
	}
}
