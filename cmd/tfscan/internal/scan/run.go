package scan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
	"github.com/tfscan/tfscan/savedmodel"
)

// RunOptions are what `tfscan run` runs: paths are resolved against the
// working directory; Inputs is --inputs as given, for messages.
type RunOptions struct {
	Path       string
	Inputs     string
	InputsFile string
	Outputs    string
	Signature  string
	Fetches    []string
	Tags       []string
	Seed       uint32
	Dim        int
}

// RunModel is `tfscan run PATH --outputs out.npz [--inputs in.npz]
// [--signature KEY] [--fetch NAME]... [--tags T] [--seed N] [--dim N]`: it
// runs the model with tfscan's Go reference kernels and writes the results
// as NumPy .npz.
//
// Inputs: the keys of --inputs are signature input keys, or tensor names
// with or without ":0". A tensor whose dtype differs from the input's is an
// error (exit 3, like every problem with the model or the input file), not
// a silent cast. Keys that are all signature input keys call the
// signature, which needs every input; a key naming a tensor (any tensor,
// e.g. "block_3/add:0") feeds as TensorFlow's Session.run does: what only
// fed tensors need does not run, and a signature input is missing only
// when the run needs it. Without --inputs, every input gets the TF.js oracle's
// seeded values (executor.SeededInput: mulberry32 keyed on --seed and the
// input's node name; unknown batch dimension 1, other unknown dimensions
// --dim, default 128; strings words of the model's own lookup tables and
// made-up words, or serialized tf.Examples where a ParseExample parses
// them: Executor.SeededFeeds), written beside the outputs as OUT.inputs.npz.
//
// Outputs: with --fetch, each fetched tensor keyed by the name as given;
// else the signature's outputs keyed by their signature keys; a graph
// without signatures outputs its sinks (_Retval inputs, or unconsumed
// nodes' output 0) keyed "node:0". The signature is --signature, else
// serving_default, else the only one.
func RunModel(ctx context.Context, o RunOptions) error {
	if err := os.MkdirAll(filepath.Dir(o.Outputs), 0o755); err != nil {
		return inputError(err)
	}
	m, g, err := Load(o.Path, o.Tags)
	if err != nil {
		return inputError(err)
	}
	sig, err := ChooseSignature(g, o.Signature)
	if err != nil {
		return err
	}
	var weights kernels.WeightSource
	if m.VariablesPrefix != "" {
		ck, err := kernels.OpenCheckpoint(m.VariablesPrefix)
		if err != nil {
			return inputError(err)
		}
		weights = ck
	}
	ex, err := executor.New(g, weights, executor.Options{})
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", m.File, err))
	}

	var feeds map[string]*kernels.Tensor
	if o.Inputs != "" {
		in, err := npz.Read(o.InputsFile)
		if err != nil {
			return inputError(err)
		}
		var byTensor bool
		if feeds, byTensor, err = executor.FeedsFrom(g, sig, in); err != nil {
			return inputError(fmt.Errorf("%s: %w", o.Inputs, err))
		}
		// Signature inputs alone call the signature, which takes all of
		// them; a tensor name feeds as Session.run does, and a signature
		// input is missing only when the run needs it (below).
		if sig != nil && !byTensor {
			for _, info := range sig.Inputs {
				if _, ok := feeds[info.Name]; !ok {
					if _, ok := feeds[strings.TrimSuffix(info.Name, ":0")]; !ok {
						return inputError(fmt.Errorf("%s: signature %q input %q (%s) is missing", o.Inputs, sig.Key, info.Key, info.Name))
					}
				}
			}
		}
	} else {
		infos := executor.Inputs(g, sig)
		if feeds, err = ex.SeededFeeds(infos, o.Seed, o.Dim); err != nil {
			return inputError(fmt.Errorf("%s: %w", m.File, err))
		}
		// Written keyed as --inputs reads them back: by signature input
		// key, or by node name.
		gen := map[string]*kernels.Tensor{}
		for _, info := range infos {
			key, _, _ := executor.ParseTensorName(info.Name)
			if sig != nil {
				key = info.Key
			}
			gen[key] = feeds[info.Name]
		}
		if err := npz.Write(strings.TrimSuffix(o.Outputs, ".npz")+".inputs.npz", gen); err != nil {
			return inputError(err)
		}
	}

	// What to fetch, and the key each result gets.
	names, keys := executor.Outputs(g, sig)
	if len(o.Fetches) > 0 {
		names, keys = o.Fetches, o.Fetches
	}
	if len(names) == 0 {
		return inputError(fmt.Errorf("%s: nothing to fetch (no signature outputs and no sink nodes; use --fetch)", m.File))
	}
	res, err := ex.Run(ctx, feeds, names)
	if err != nil {
		var ie *executor.InternalError
		if errors.As(err, &ie) {
			return fmt.Errorf("%s: %w", m.File, err) // exit 4: a tfscan bug
		}
		var mf *executor.MissingFeedError
		if errors.As(err, &mf) && sig != nil {
			for _, info := range sig.Inputs {
				if node, _, _ := executor.ParseTensorName(info.Name); node == mf.Node {
					return inputError(fmt.Errorf("%s: signature %q input %q (%s) is missing", o.Inputs, sig.Key, info.Key, info.Name))
				}
			}
		}
		return inputError(fmt.Errorf("%s: %w", m.File, err))
	}
	out := map[string]*kernels.Tensor{}
	for i, n := range names {
		if t, ok := res[n]; ok {
			out[keys[i]] = t
		}
	}
	if err := npz.Write(o.Outputs, out); err != nil {
		return inputError(err)
	}
	return nil
}

// ChooseSignature picks the signature to run: the one asked for, else
// serving_default, else the only one besides the init op; nil for a graph
// without signatures.
func ChooseSignature(g *graph.Graph, key string) (*savedmodel.Signature, error) {
	if key != "" {
		s := executor.FindSignature(g.Signatures, key)
		if s == nil {
			var have []string
			for _, s := range g.Signatures {
				have = append(have, s.Key)
			}
			return nil, usageErrorf("run: no signature %q (have: %s)", key, strings.Join(have, ", "))
		}
		return s, nil
	}
	if s := executor.FindSignature(g.Signatures, "serving_default"); s != nil {
		return s, nil
	}
	var cands []*savedmodel.Signature
	for _, s := range g.Signatures {
		if s.Key != "__saved_model_init_op" {
			cands = append(cands, s)
		}
	}
	switch len(cands) {
	case 0:
		return nil, nil
	case 1:
		return cands[0], nil
	}
	var have []string
	for _, s := range cands {
		have = append(have, s.Key)
	}
	sort.Strings(have)
	return nil, usageErrorf("run: the model has several signatures; choose one with --signature (%s)", strings.Join(have, ", "))
}
