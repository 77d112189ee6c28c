package kernels

import (
	"container/heap"
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// NonMaxSuppression (V1-V5), after TensorFlow's
// image/non_max_suppression_op.cc (DoNonMaxSuppressionOp and IOU): greedy
// selection from a max-priority queue ordered by score then lower box index,
// candidates kept only when score > score_threshold, hard suppression when
// IOU > iou_threshold, and for V5 soft-NMS with weight exp(-0.5/sigma *
// iou²) re-queueing candidates whose score dropped but stays above the
// threshold. Boxes are [y1, x1, y2, x2] in either corner order. Scores and
// IOUs are computed in float32 (float16 inputs are widened).

func init() {
	Register("NonMaxSuppression", func(ctx *Context) ([]*Tensor, error) { return nmsKernel(ctx, 1) })
	Register("NonMaxSuppressionV2", func(ctx *Context) ([]*Tensor, error) { return nmsKernel(ctx, 2) })
	Register("NonMaxSuppressionV3", func(ctx *Context) ([]*Tensor, error) { return nmsKernel(ctx, 3) })
	Register("NonMaxSuppressionV4", func(ctx *Context) ([]*Tensor, error) { return nmsKernel(ctx, 4) })
	Register("NonMaxSuppressionV5", func(ctx *Context) ([]*Tensor, error) { return nmsKernel(ctx, 5) })
}

// nmsScalar reads a 0-D float input.
func nmsScalar(ctx *Context, i int, name string) (float32, error) {
	t := ctx.Inputs[i]
	if len(t.Shape) != 0 {
		return 0, ctx.Errorf("%s must be 0-D, got shape %v", name, t.Shape)
	}
	d, err := nmsFloats(t)
	if err != nil || len(d) != 1 {
		return 0, ctx.Errorf("%s must be a float scalar, got %s", name, t.DType)
	}
	return d[0], nil
}

// nmsFloats returns t's values as float32 (TensorFlow computes NMS in
// float; double comes from the executor's float64 pass).
func nmsFloats(t *Tensor) ([]float32, error) {
	if d, ok := t.Data.([]float64); ok {
		out := make([]float32, len(d))
		for i, v := range d {
			out[i] = float32(v)
		}
		return out, nil
	}
	return floatsOf[float32](t)
}

func nmsKernel(ctx *Context, version int) ([]*Tensor, error) {
	nin := map[int]int{1: 3, 2: 4, 3: 5, 4: 5, 5: 6}[version]
	if err := nnInputs(ctx, nin); err != nil {
		return nil, err
	}
	boxesT, scoresT, maxT := ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2]
	switch boxesT.DType {
	case tpb.DataType_DT_FLOAT, tpb.DataType_DT_HALF, tpb.DataType_DT_DOUBLE:
	default:
		return nil, ctx.Unsupported("dtype %s", boxesT.DType)
	}
	if len(maxT.Shape) != 0 {
		return nil, ctx.Errorf("max_output_size must be 0-D, got shape %v", maxT.Shape)
	}
	mo, ok := nnInts(maxT)
	if !ok || len(mo) != 1 {
		return nil, ctx.Errorf("max_output_size must be an int32 scalar, got %s", maxT.DType)
	}
	if mo[0] < 0 {
		return nil, ctx.Errorf("output size must be non-negative")
	}
	if mo[0] > math.MaxInt32 {
		return nil, ctx.Errorf("max_output_size %d is too large", mo[0])
	}
	maxOut := int(mo[0])
	var iou float32
	var err error
	if version == 1 {
		if iou, err = ctx.AttrFloat("iou_threshold"); err != nil {
			return nil, err
		}
	} else if iou, err = nmsScalar(ctx, 3, "iou_threshold"); err != nil {
		return nil, err
	}
	if !(iou >= 0 && iou <= 1) {
		return nil, ctx.Errorf("iou_threshold must be in [0, 1]")
	}
	scoreThr := float32(-math.MaxFloat32)
	if version >= 3 {
		if scoreThr, err = nmsScalar(ctx, 4, "score_threshold"); err != nil {
			return nil, err
		}
	}
	var sigma float32
	if version == 5 {
		if sigma, err = nmsScalar(ctx, 5, "soft_nms_sigma"); err != nil {
			return nil, err
		}
		if !(sigma >= 0) {
			return nil, ctx.Errorf("soft_nms_sigma_val must be >= 0")
		}
	}
	if len(boxesT.Shape) != 2 || boxesT.Shape[1] != 4 {
		return nil, ctx.Errorf("boxes must be 2-D with 4 columns, got shape %v", boxesT.Shape)
	}
	nb := boxesT.Shape[0]
	if len(scoresT.Shape) != 1 || scoresT.Shape[0] != nb {
		return nil, ctx.Errorf("scores must be 1-D with %d elements (one per box), got shape %v", nb, scoresT.Shape)
	}
	boxes, err := nmsFloats(boxesT)
	if err != nil {
		return nil, ctx.Errorf("boxes: %v", err)
	}
	scores, err := nmsFloats(scoresT)
	if err != nil {
		return nil, ctx.Errorf("scores: %v", err)
	}
	pad := false
	if version >= 4 && ctx.HasAttr("pad_to_max_output_size") {
		if pad, err = ctx.AttrBool("pad_to_max_output_size"); err != nil {
			return nil, err
		}
	}
	if pad && maxOut > MaxElements {
		return nil, ctx.Errorf("max_output_size %d is too large to pad to", maxOut)
	}
	sel, selScores := nonMaxSuppression(boxes, scores, maxOut, iou, scoreThr, sigma)
	valid := len(sel)
	if pad {
		for len(sel) < maxOut {
			sel = append(sel, 0)
			selScores = append(selScores, 0)
		}
	}
	idx := &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{len(sel)}, Data: sel}
	switch version {
	case 4:
		return []*Tensor{idx, ScalarInt32(int32(valid))}, nil
	case 5:
		sc := tensorFrom(scoresT.DType, []int{len(selScores)}, selScores)
		if scoresT.DType == nnF64 {
			d := make([]float64, len(selScores))
			for i, v := range selScores {
				d[i] = float64(v)
			}
			sc = tensorFrom(nnF64, []int{len(d)}, d)
		}
		return []*Tensor{idx, sc, ScalarInt32(int32(valid))}, nil
	}
	return []*Tensor{idx}, nil
}

// nmsCandidate is a box in the priority queue.
type nmsCandidate struct {
	box           int
	score         float32
	suppressBegin int
}

// nmsQueue is a max-heap by score, then by lower box index.
type nmsQueue []nmsCandidate

func (q nmsQueue) Len() int { return len(q) }
func (q nmsQueue) Less(i, j int) bool {
	if q[i].score == q[j].score {
		return q[i].box < q[j].box
	}
	return q[i].score > q[j].score
}
func (q nmsQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *nmsQueue) Push(x any)   { *q = append(*q, x.(nmsCandidate)) }
func (q *nmsQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

func fmin32(a, b float32) float32 { // Eigen::numext::mini: b < a ? b : a
	if b < a {
		return b
	}
	return a
}

func fmax32(a, b float32) float32 { // Eigen::numext::maxi: a < b ? b : a
	if a < b {
		return b
	}
	return a
}

// nmsIOU is TensorFlow's IOU for boxes i and j.
func nmsIOU(b []float32, i, j int) float32 {
	bi, bj := b[i*4:i*4+4], b[j*4:j*4+4]
	yminI, xminI := fmin32(bi[0], bi[2]), fmin32(bi[1], bi[3])
	ymaxI, xmaxI := fmax32(bi[0], bi[2]), fmax32(bi[1], bi[3])
	yminJ, xminJ := fmin32(bj[0], bj[2]), fmin32(bj[1], bj[3])
	ymaxJ, xmaxJ := fmax32(bj[0], bj[2]), fmax32(bj[1], bj[3])
	areaI := float32((ymaxI - yminI) * (xmaxI - xminI))
	areaJ := float32((ymaxJ - yminJ) * (xmaxJ - xminJ))
	if areaI <= 0 || areaJ <= 0 {
		return 0
	}
	iy0, ix0 := fmax32(yminI, yminJ), fmax32(xminI, xminJ)
	iy1, ix1 := fmin32(ymaxI, ymaxJ), fmin32(xmaxI, xmaxJ)
	inter := float32(fmax32(iy1-iy0, 0) * fmax32(ix1-ix0, 0))
	return inter / (areaI + areaJ - inter)
}

// nonMaxSuppression is DoNonMaxSuppressionOp.
func nonMaxSuppression(boxes, scores []float32, maxOut int, iouThr, scoreThr, sigma float32) ([]int32, []float32) {
	q := nmsQueue{}
	for i, s := range scores {
		if s > scoreThr {
			q = append(q, nmsCandidate{box: i, score: s})
		}
	}
	heap.Init(&q)
	soft := sigma > 0
	var scale float32
	if soft {
		scale = -0.5 / sigma
	}
	weight := func(sim float32) float32 {
		w := float32(math.Exp(float64(float32(scale*sim) * sim)))
		if soft || sim <= iouThr {
			return w
		}
		return 0
	}
	var sel []int32
	var selScores []float32
	for len(sel) < maxOut && q.Len() > 0 {
		c := heap.Pop(&q).(nmsCandidate)
		orig := c.score
		hard := false
		for j := len(sel) - 1; j >= c.suppressBegin; j-- {
			sim := nmsIOU(boxes, c.box, int(sel[j]))
			c.score *= weight(sim)
			if !soft && sim > iouThr {
				hard = true
				break
			}
			if c.score <= scoreThr {
				break
			}
		}
		c.suppressBegin = len(sel)
		if !hard {
			if c.score == orig {
				sel = append(sel, int32(c.box))
				selScores = append(selScores, c.score)
				continue
			}
			if c.score > scoreThr {
				heap.Push(&q, c)
			}
		}
	}
	return sel, selScores
}
