package savedmodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"google.golang.org/protobuf/encoding/protojson"

	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
)

// TF.js graph models use two op names that TensorFlow does not register.
const (
	// TFJSFusedDepthwiseConv2d is the tfjs-converter's name for TensorFlow's
	// _FusedDepthwiseConv2dNative (Grappler's depthwise conv + BiasAdd +
	// activation fusion); the loader renames it back.
	TFJSFusedDepthwiseConv2d = "FusedDepthwiseConv2dNative"

	// OpPrelu is a pseudo-op that exists only in TF.js graph models; the
	// loader keeps it by this name. The converter fuses the subgraph Keras
	// builds for PReLU,
	//
	//	AddV2(Relu(x), Mul(neg_alpha, Relu(Neg(x))))
	//
	// into Prelu(x, alpha) with alpha = -neg_alpha (a Const) and drops the
	// Relu's T attr (tfjs-converter, python/tensorflowjs/converters/
	// fuse_prelu.py, fuse_ops_for_prelu). So
	//
	//	Prelu(x, alpha) = Relu(x) - alpha*Relu(-x)
	//
	// which TensorFlow can run as Relu, Neg, Mul and Sub. The converter can
	// also fold a Prelu into a _FusedConv2D as fused_ops "Prelu"
	// (fuse_prelu_with_fused_conv2d), which TensorFlow's own kernel rejects.
	OpPrelu = "Prelu"
)

// tfjsOpRenames maps TF.js-only op names to the TensorFlow ops they are.
var tfjsOpRenames = map[string]string{
	TFJSFusedDepthwiseConv2d: "_FusedDepthwiseConv2dNative",
}

// tfjsModelJSON is the part of a TF.js model.json the loader reads
// (tfjs-core/src/io/types.ts, ModelJSON).
type tfjsModel struct {
	Format          string            `json:"format"`
	ModelTopology   json.RawMessage   `json:"modelTopology"`
	WeightsManifest []tfjsWeightGroup `json:"weightsManifest"`
	Signature       json.RawMessage   `json:"signature"`
	// ModelInitializer is a GraphDef run once before the first
	// inference (the converter moves table initializers there).
	ModelInitializer json.RawMessage `json:"modelInitializer"`
}

// decodeTFJS reads a TF.js graph model: model.json's modelTopology is a
// GraphDef in proto3 JSON form, and its weightsManifest names the shard
// files, relative to model.json, holding the Const values.
func decodeTFJS(file string, b []byte) (*Model, error) {
	var mj tfjsModel
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&mj); err != nil {
		return nil, fmt.Errorf("not a TF.js model.json: %v", jsonErr(b, err))
	}
	if mj.Format == "layers-model" {
		return nil, errors.New("TF.js layers models (Keras topology) are not supported; convert to a graph model")
	}
	if len(bytes.TrimSpace(mj.ModelTopology)) == 0 || string(bytes.TrimSpace(mj.ModelTopology)) == "null" {
		return nil, errors.New("not a TF.js graph model: no modelTopology")
	}
	gd := &gpb.GraphDef{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(mj.ModelTopology, gd); err != nil {
		if bytes.Contains(mj.ModelTopology, []byte(`"class_name"`)) {
			return nil, errors.New("TF.js layers models (Keras topology) are not supported; convert to a graph model")
		}
		return nil, fmt.Errorf("modelTopology is not a GraphDef: %v", textErr(err))
	}
	m := &Model{Format: FormatTFJS}
	renameTFJSOps(m, gd)
	def := &mgpb.MetaGraphDef{GraphDef: gd}
	if s := bytes.TrimSpace(mj.Signature); len(s) > 0 && string(s) != "null" {
		sig := &mgpb.SignatureDef{}
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(s, sig); err != nil {
			return nil, fmt.Errorf("signature is not a SignatureDef: %v", textErr(err))
		}
		def.SignatureDef = map[string]*mgpb.SignatureDef{TFJSSignatureKey: sig}
	}
	if err := mergeTFJSInit(m, def, mj.ModelInitializer); err != nil {
		return nil, err
	}
	m.MetaGraphs = []*MetaGraph{newMetaGraph(def)}
	w, err := loadTFJSWeights(filepath.Dir(file), mj.WeightsManifest)
	if err != nil {
		return nil, err
	}
	m.Weights = w
	restoreTFJSDTypes(m, gd)
	return m, nil
}

// TFJSSignatureKey is the key given to a TF.js model's signature. model.json
// holds one SignatureDef without its key; the converter takes
// "serving_default" unless told otherwise.
const TFJSSignatureKey = "serving_default"

// renameTFJSOps rewrites TF.js-only op names to TensorFlow's, recording each
// rename in m.Renamed.
func renameTFJSOps(m *Model, gd *gpb.GraphDef) {
	rename := func(prefix string, nodes []*nodepb.NodeDef) {
		for _, n := range nodes {
			if to, ok := tfjsOpRenames[n.GetOp()]; ok {
				if m.Renamed == nil {
					m.Renamed = map[string]string{}
				}
				m.Renamed[prefix+n.GetName()] = n.GetOp()
				n.Op = to
			}
		}
	}
	rename("", gd.GetNode())
	for _, f := range gd.GetLibrary().GetFunction() {
		rename(f.GetSignature().GetName()+"/", f.GetNodeDef())
	}
}

// jsonErr adds the line and column to a JSON syntax error.
func jsonErr(b []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var off int64
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	default:
		return err.Error()
	}
	// Offset counts the bytes read up to and including the bad one.
	pos := min(max(off-1, 0), int64(len(b)))
	line := 1 + bytes.Count(b[:pos], []byte("\n"))
	col := int(pos) - bytes.LastIndexByte(b[:pos], '\n')
	return fmt.Sprintf("line %d:%d: %v", line, col, err)
}
