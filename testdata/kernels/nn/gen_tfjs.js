#!/usr/bin/env node
// Golden outputs for the NN reference kernels from TensorFlow.js on its
// pure-JavaScript CPU backend (the oracle in ../shared/oracle, versions pinned
// by its package-lock.json): an implementation of TensorFlow's op semantics
// that this project did not write.
//
// usage: cp -r ../shared/oracle /tmp/oracle && (cd /tmp/oracle && npm ci)
//        NODE_PATH=/tmp/oracle/node_modules node gen_tfjs.js > tfjs.json
'use strict';
for (const k of ['warn', 'log']) {
  const orig = console[k].bind(console);
  console[k] = (...a) => { const s = a.join(' '); if (/tfjs-node|Hi there|=====|speed things up/.test(s)) return; orig(...a); };
}
const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');

function mulberry32(a) {
  return function () {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = mulberry32(20261129);
const size = (s) => s.reduce((a, b) => a * b, 1);
const r32 = (shape, lo = -1, hi = 1) => tf.tensor(Float32Array.from({length: size(shape)}, () => lo + (hi - lo) * rnd()), shape);

function jsonVals(data, isFloat) {
  return Array.from(data, (x) => Number.isNaN(x) ? 'NaN' : !Number.isFinite(x) ? (x > 0 ? 'Infinity' : '-Infinity')
    : isFloat ? Number(x.toPrecision(9)) : x);
}
function enc(t, dtype) {
  const dt = dtype || {float32: 'DT_FLOAT', int32: 'DT_INT32'}[t.dtype];
  return {dtype: dt, shape: t.shape, values: jsonVals(t.dataSync(), t.dtype === 'float32')};
}
const cases = [];
function add(name, op, attrs, inputs, outputs, extra = {}) {
  cases.push(Object.assign({name, op, attrs, inputs: inputs.map((x) => Array.isArray(x) ? x[1] : enc(x)),
    outputs: outputs.map((x) => Array.isArray(x) ? x[1] : enc(x)), rtol: 1e-4, atol: 1e-5}, extra));
}
const B = (b) => ({b}), I = (i) => ({i}), F = (f) => ({f}), S = (s) => ({s}), INTS = (ints) => ({ints}), STRS = (strs) => ({strs});
const i32 = (vals) => ['raw', {dtype: 'DT_INT32', shape: [vals.length], values: vals}];
const scalarI = (v) => ['raw', {dtype: 'DT_INT32', shape: [], values: [v]}];
const scalarF = (v) => ['raw', {dtype: 'DT_FLOAT', shape: [], values: [v]}];
const convAttrs = (s, pad, d = [1, 1]) => ({strides: INTS([1, s[0], s[1], 1]), dilations: INTS([1, d[0], d[1], 1]),
  padding: S(pad), data_format: S('NHWC'), explicit_paddings: INTS([])});

// Convolutions.
for (const [name, xs, fs, s, pad, d] of [
  ['same_s2', [1, 7, 7, 3], [3, 3, 3, 4], [2, 2], 'SAME', [1, 1]],
  ['valid_s1_dil2', [1, 7, 7, 2], [3, 3, 2, 3], [1, 1], 'VALID', [2, 2]],
  ['same_s2_even_k2', [2, 6, 6, 2], [2, 2, 2, 3], [2, 2], 'SAME', [1, 1]],
]) {
  const x = r32(xs), f = r32(fs);
  add('conv2d_' + name, 'Conv2D', convAttrs(s, pad, d), [x, f], [tf.conv2d(x, f, s, pad.toLowerCase(), 'NHWC', d)]);
}
for (const [name, xs, fs, s, pad, d] of [
  ['same_s2_mult2', [1, 7, 7, 3], [3, 3, 3, 2], [2, 2], 'SAME', [1, 1]],
  ['same_s1', [1, 6, 6, 4], [3, 3, 4, 1], [1, 1], 'SAME', [1, 1]],
]) {
  const x = r32(xs), f = r32(fs);
  add('depthwise_' + name, 'DepthwiseConv2dNative', convAttrs(s, pad, d), [x, f],
    [tf.depthwiseConv2d(x, f, s, pad.toLowerCase(), 'NHWC', d)]);
}
for (const [name, outShape, fs, s, pad] of [
  ['same_s2', [1, 8, 8, 3], [3, 3, 3, 4], [2, 2], 'SAME'],
  ['valid_s2', [1, 7, 7, 2], [3, 3, 2, 3], [2, 2], 'VALID'],
  ['same_s2_k4', [1, 8, 6, 2], [4, 4, 2, 3], [2, 2], 'SAME'],
]) {
  const oh = pad === 'SAME' ? Math.ceil(outShape[1] / s[0]) : Math.ceil((outShape[1] - fs[0] + 1) / s[0]);
  const ow = pad === 'SAME' ? Math.ceil(outShape[2] / s[1]) : Math.ceil((outShape[2] - fs[1] + 1) / s[1]);
  const dy = r32([outShape[0], oh, ow, fs[3]]), f = r32(fs);
  add('conv2dbackpropinput_' + name, 'Conv2DBackpropInput', convAttrs(s, pad), [i32(outShape), f, dy],
    [tf.conv2dTranspose(dy, f, outShape, s, pad.toLowerCase())]);
}

// Fused ops (tfjs-converter argument order: [bias, prelu alpha]).
{
  const x = r32([1, 6, 6, 3]), f = r32([3, 3, 3, 4]), bias = r32([4]), alpha = r32([4], 0, 0.5);
  const fa = Object.assign(convAttrs([1, 1], 'SAME'), {fused_ops: STRS(['BiasAdd', 'Prelu']), num_args: I(2), epsilon: F(0), leakyrelu_alpha: F(0.2)});
  add('fusedconv2d_bias_prelu', '_FusedConv2D', fa, [x, f, bias, alpha],
    [tf.fused.conv2d({x, filter: f, strides: [1, 1], pad: 'same', bias, activation: 'prelu', preluActivationWeights: alpha})]);
  const df = r32([3, 3, 3, 1]), db = r32([3]), x8 = tf.mul(x, tf.scalar(8));
  const da = Object.assign(convAttrs([2, 2], 'SAME'), {fused_ops: STRS(['BiasAdd', 'Relu6']), num_args: I(1), epsilon: F(0), leakyrelu_alpha: F(0.2)});
  add('fuseddepthwise_bias_relu6', '_FusedDepthwiseConv2dNative', da, [x8, df, db],
    [tf.fused.depthwiseConv2d({x: x8, filter: df, strides: [2, 2], pad: 'same', bias: db, activation: 'relu6'})]);
  const a = r32([5, 7]), b = r32([3, 7]), mb = r32([3]);
  add('fusedmatmul_bias_leakyrelu', '_FusedMatMul', {transpose_a: B(false), transpose_b: B(true), fused_ops: STRS(['BiasAdd', 'LeakyRelu']),
    num_args: I(1), epsilon: F(0), leakyrelu_alpha: F(0.3)}, [a, b, mb],
    [tf.fused.matMul({a, b, transposeB: true, bias: mb, activation: 'leakyrelu', leakyreluAlpha: 0.3})]);
  const px = r32([2, 3, 4]), pa = r32([4], 0, 0.5);
  add('prelu', 'Prelu', {}, [px, pa], [tf.prelu(px, pa)]);
}

// Resize.
for (const [mode, align, half] of [['legacy', false, false], ['align_corners', true, false], ['half_pixel', false, true]]) {
  for (const [dir, xs, size] of [['up', [1, 3, 4, 2], [5, 7]], ['down', [1, 7, 9, 2], [3, 4]]]) {
    const x = r32(xs);
    const attrs = {align_corners: B(align), half_pixel_centers: B(half)};
    add(`resizebilinear_${mode}_${dir}`, 'ResizeBilinear', attrs, [x, i32(size)], [tf.image.resizeBilinear(x, size, align, half)]);
    add(`resizenearest_${mode}_${dir}`, 'ResizeNearestNeighbor', attrs, [x, i32(size)], [tf.image.resizeNearestNeighbor(x, size, align, half)]);
  }
}

// Pooling.
for (const [name, xs, k, s, pad] of [
  ['same_s2', [1, 7, 7, 3], [3, 3], [2, 2], 'SAME'],
  ['same_s1', [1, 5, 6, 2], [3, 3], [1, 1], 'SAME'],
  ['valid_k2s3', [1, 8, 8, 2], [2, 2], [3, 3], 'VALID'],
]) {
  const x = r32(xs);
  const attrs = {ksize: INTS([1, k[0], k[1], 1]), strides: INTS([1, s[0], s[1], 1]), padding: S(pad), data_format: S('NHWC'), explicit_paddings: INTS([])};
  add('avgpool_' + name, 'AvgPool', attrs, [x], [tf.avgPool(x, k, s, pad.toLowerCase())]);
  add('maxpool_' + name, 'MaxPool', attrs, [x], [tf.maxPool(x, k, s, pad.toLowerCase())]);
}

// Softmax.
{
  const x = r32([4, 10], -5, 5);
  add('softmax', 'Softmax', {}, [x], [tf.softmax(x)]);
  add('logsoftmax', 'LogSoftmax', {}, [x], [tf.logSoftmax(x)]);
}

// TopK with ties: lower index first.
{
  const x = tf.tensor([[3, 1, 3, 2, 3, 0.5], [0, 0, 0, 1, 1, -1]], [2, 6]);
  const {values, indices} = tf.topk(x, 4, true);
  add('topkv2_ties', 'TopKV2', {sorted: B(true), T: {type: 'DT_FLOAT'}, Tk: {type: 'DT_INT32'}, index_type: {type: 'DT_INT32'}}, [x, scalarI(4)], [values, indices]);
  const y = r32([3, 20]);
  const r = tf.topk(y, 5, true);
  add('topkv2_random', 'TopKV2', {sorted: B(true)}, [y, scalarI(5)], [r.values, r.indices]);
}

// NonMaxSuppression: overlapping boxes in both corner orders, score ties.
{
  const n = 24;
  const bx = [];
  for (let i = 0; i < n; i++) {
    const y = Math.floor(rnd() * 4) * 0.2, x = Math.floor(rnd() * 4) * 0.2, h = 0.2 + rnd() * 0.3, w = 0.2 + rnd() * 0.3;
    if (i % 3 === 0) bx.push(y + h, x + w, y, x); else bx.push(y, x, y + h, x + w);
  }
  const boxes = tf.tensor(Float32Array.from(bx), [n, 4]);
  const sc = Float32Array.from({length: n}, () => Math.round(rnd() * 20) / 20);
  const scores = tf.tensor(sc, [n]);
  const sel = tf.image.nonMaxSuppression(boxes, scores, 10, 0.5, 0.2);
  add('nmsv3', 'NonMaxSuppressionV3', {}, [boxes, scores, scalarI(10), scalarF(0.5), scalarF(0.2)], [sel]);
  const sel2 = tf.image.nonMaxSuppression(boxes, scores, 20, 0.3, -1e30);
  add('nmsv3_all', 'NonMaxSuppressionV3', {}, [boxes, scores, scalarI(20), scalarF(0.3), scalarF(-1e30)], [sel2]);
  const p = tf.image.nonMaxSuppressionPadded(boxes, scores, 15, 0.4, 0.3, true);
  add('nmsv4_padded', 'NonMaxSuppressionV4', {pad_to_max_output_size: B(true)}, [boxes, scores, scalarI(15), scalarF(0.4), scalarF(0.3)],
    [p.selectedIndices, ['raw', {dtype: 'DT_INT32', shape: [], values: [p.validOutputs.dataSync()[0]]}]]);
  const s = tf.image.nonMaxSuppressionWithScore(boxes, scores, 12, 0.5, 0.1, 0.5);
  add('nmsv5_soft', 'NonMaxSuppressionV5', {pad_to_max_output_size: B(false)},
    [boxes, scores, scalarI(12), scalarF(0.5), scalarF(0.1), scalarF(0.5)],
    [s.selectedIndices, s.selectedScores], {skip: [2]});
}

// DepthToSpace and LRN.
{
  const x = r32([1, 2, 3, 12]);
  add('depthtospace', 'DepthToSpace', {block_size: I(2), data_format: S('NHWC')}, [x], [tf.depthToSpace(x, 2, 'NHWC')]);
  const y = r32([1, 3, 3, 9], -2, 2);
  add('lrn', 'LRN', {depth_radius: I(3), bias: F(2), alpha: F(0.1), beta: F(0.6)}, [y], [tf.localResponseNormalization(y, 3, 2, 0.1, 0.6)]);
}

process.stdout.write(JSON.stringify({generator: 'gen_tfjs.js', tfjs: tf.version_core, backend: tf.getBackend(), cases}));
