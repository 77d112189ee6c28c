// Command execprofile splits a CPU profile of the executor into the columns
// of docs/performance.md's table of where the executor's time goes: each
// sample counts in the first of tfscan's own functions on its stack (from
// the leaf), by what that function does; a sample with none of tfscan's
// functions (the collector's background work, the scheduler) counts as the
// runtime's. Samples under the benchmark's setup (loading the model, which
// the benchmark does again for each of its rounds) are left out. It prints
// one Markdown row of shares.
//
//	go test ./executor -run '^$' -bench 'ZooGo/resnet50/reuse$' -cpu 1 -cpuprofile cpu.out
//	go run ./tools/execprofile -model resnet50 cpu.out
//
// make profile-exec runs both for the table's models.
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// module is the prefix of tfscan's own functions.
const module = "github.com/tfscan/tfscan/"

// column is one share of the table: the functions it counts, by a pattern
// on the function's name without the module prefix or, for closures whose
// names say little (kernels.init.24.func1), on the base name of their file.
type column struct {
	name    string
	pattern *regexp.Regexp
	file    *regexp.Regexp
}

func (c column) matches(name, file string) bool {
	return c.pattern.MatchString(name) || c.file != nil && c.file.MatchString(path.Base(file))
}

// columns are tried in order; the first whose pattern matches the sample's
// first tfscan function takes the sample. The patterns name the kernels'
// functions (kernels/matmul_*.go, conv*.go, batchnorm.go, activation.go,
// elementwise_*.go, array_*.go, pool.go, reduce.go, buffers.go) and the
// executor's pool.
var columns = []column{
	{"GEMM micro-kernel and its loops (Conv2D, MatMul)", regexp.MustCompile(`^kernels\.(sgemmKernel|dgemmKernel|gemmKernelGo|fmaAccF32|gemmBlock|gemm32AVX)`), nil},
	{"GEMM packing and im2col", regexp.MustCompile(`\.(sgemmPackB16|packA|packA6|packA12|packB|packBRows|packedB|convPatchFill|convPanelFill|panel12F32|panel6F32|panelVec|adjacentTaps|im2col|gemmGetBuf|gemmPutBuf)(\[|$|\.)`), nil},
	{"depthwise", regexp.MustCompile(`^kernels\.(depthwise|dwPixelF32|convDepthwiseGrouped)`), regexp.MustCompile(`^conv_depthwise`)},
	{"batch norm, bias, activations", regexp.MustCompile(`^kernels\.(batchNorm|bnRows|biasAdd|addBiasInPlace|activat|relu|clamp|sigmoid|softplus|softsign|prelu|applyPrelu|affine)`), nil},
	{"other elementwise", regexp.MustCompile(`^kernels\.(runBinary|binTyped|binaryOut|binaryBroadcast|\(\*bcastPlan\)|vec|runUnary|mapUnary|unaryApply|addT|subT|mulT|divT|maxT|minT|sqDiffT|addN|f32\b|erf|madd32|widen|narrow|softmax)`), nil},
	{"pooling and reductions", regexp.MustCompile(`^kernels\.(pool|sumFloat64|reduce)`), nil},
	{"Pad and copies", regexp.MustCompile(`^kernels\.(pad|mirrorPad|tile|reverse|copySpans|spansT|gather|concat|transpose|slice|broadcastCopy|broadcastTo|mapCopy|toChannels)`), nil},
	{"allocating and zeroing tensors", regexp.MustCompile(`^(kernels\.newOut|executor\.\(\*bufPool\))`), nil},
	{"executor and other kernel code", regexp.MustCompile(``), nil},
}

// setup is a function of the benchmark's that loads the model; samples
// under it are not the executor's run.
var setup = regexp.MustCompile(`^executor(_test)?\.zooRunner$`)

// runtimeColumn takes the samples with none of tfscan's functions.
const runtimeColumn = "garbage collector and runtime"

func main() {
	model := flag.String("model", "", "the model's name, the row's first cell")
	header := flag.Bool("header", false, "print the table's header first")
	top := flag.Int("top", 0, "also list each column's N largest functions (to stderr), to check the patterns")
	flag.Parse()
	if err := run(os.Stdout, os.Stderr, *model, *header, *top, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "execprofile:", err)
		os.Exit(2)
	}
}

func run(w, list io.Writer, model string, header bool, top int, files []string) error {
	if len(files) != 1 {
		return errors.New("usage: execprofile [-model NAME] [-header] CPU_PROFILE")
	}
	f, err := os.Open(files[0])
	if err != nil {
		return err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return fmt.Errorf("%s: %v", files[0], err)
	}
	shares, funcs, err := split(p)
	if err != nil {
		return fmt.Errorf("%s: %v", files[0], err)
	}
	names := columnNames()
	if header {
		fmt.Fprintf(w, "| model | %s |\n|%s\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)+1))
	}
	cells := make([]string, len(names))
	for i, n := range names {
		cells[i] = percent(shares[n])
	}
	fmt.Fprintf(w, "| %s | %s |\n", model, strings.Join(cells, " | "))
	if top > 0 {
		for _, n := range names {
			fs := funcs[n]
			keys := slices.SortedFunc(maps.Keys(fs), func(a, b string) int { return cmp.Or(cmp.Compare(fs[b], fs[a]), strings.Compare(a, b)) })
			fmt.Fprintf(list, "%s (%s):\n", n, percent(shares[n]))
			for _, k := range keys[:min(top, len(keys))] {
				fmt.Fprintf(list, "  %5.1f%%  %s\n", 100*fs[k], k)
			}
		}
	}
	return nil
}

// columnNames is the table's columns in order, the runtime's before the
// catch-all executor column.
func columnNames() []string {
	var names []string
	for _, c := range columns[:len(columns)-1] {
		names = append(names, c.name)
	}
	return append(names, runtimeColumn, columns[len(columns)-1].name)
}

// split is each column's share of the profile's CPU time, and each of its
// functions' share.
func split(p *profile.Profile) (map[string]float64, map[string]map[string]float64, error) {
	vi := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			vi = i
		}
	}
	if vi < 0 {
		return nil, nil, errors.New("not a CPU profile")
	}
	total, by, byFunc := int64(0), map[string]int64{}, map[string]map[string]int64{}
	for _, s := range p.Sample {
		if inSetup(s) {
			continue
		}
		v := s.Value[vi]
		total += v
		col, fn := classify(s)
		by[col] += v
		if byFunc[col] == nil {
			byFunc[col] = map[string]int64{}
		}
		byFunc[col][fn] += v
	}
	if total == 0 {
		return nil, nil, errors.New("no samples")
	}
	shares, funcs := map[string]float64{}, map[string]map[string]float64{}
	for k, v := range by {
		shares[k] = float64(v) / float64(total)
		funcs[k] = map[string]float64{}
		for fn, fv := range byFunc[k] {
			funcs[k][fn] = float64(fv) / float64(total)
		}
	}
	return shares, funcs, nil
}

// classify is the column of one sample, that of the first tfscan function
// from the leaf (inlined frames included, innermost first), and the
// function that decided it (the leaf's, for the runtime's).
func classify(s *profile.Sample) (string, string) {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function == nil || !strings.HasPrefix(line.Function.Name, module) {
				continue
			}
			name := strings.TrimPrefix(line.Function.Name, module)
			for _, c := range columns {
				if c.matches(name, line.Function.Filename) {
					return c.name, name
				}
			}
		}
	}
	leaf := "?"
	if len(s.Location) > 0 && len(s.Location[0].Line) > 0 && s.Location[0].Line[0].Function != nil {
		leaf = s.Location[0].Line[0].Function.Name
	}
	return runtimeColumn, leaf
}

// inSetup says whether a sample is under the benchmark's setup.
func inSetup(s *profile.Sample) bool {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function != nil && setup.MatchString(strings.TrimPrefix(line.Function.Name, module)) {
				return true
			}
		}
	}
	return false
}

// percent writes a share as the table does: whole percents, – under 0.5%.
func percent(x float64) string {
	if x < 0.005 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}
