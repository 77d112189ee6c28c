// Reference timings of single ops on the TF.js CPU backend, for comparison with
// `go test ./kernels -run XXX -bench "Conv2D|MatMul$"` (same sizes):
//   NODE_PATH=/tmp/oracle/node_modules node bench_tfjs.js
for (const k of ['warn', 'log']) { const o = console[k].bind(console); console[k] = (...a) => { const s = a.join(' '); if (/tfjs-node|Hi there|=====|speed things up/.test(s)) return; o(...a); }; }
const tf = require('@tensorflow/tfjs-core'); require('@tensorflow/tfjs-backend-cpu');
function bench(name, flops, fn) {
  fn().dataSync();
  let n = 0; const t0 = process.hrtime.bigint(); const c0 = process.cpuUsage();
  while (Number(process.hrtime.bigint() - t0) < 2e9) { const r = fn(); r.dataSync(); r.dispose(); n++; }
  const wall = Number(process.hrtime.bigint() - t0) / 1e9; const cu = process.cpuUsage(c0); const cpu = (cu.user + cu.system) / 1e6;
  console.error(`${name}: ${(wall / n * 1e3).toFixed(1)} ms/op  ${(flops * n / wall / 1e9).toFixed(2)} GFLOP/s  ${(flops * n / cpu / 1e9).toFixed(2)} GFLOP/cpu-s`);
}
const x = tf.randomUniform([1, 56, 56, 64]), f = tf.randomUniform([3, 3, 64, 64]);
bench('tfjs conv2d resnet_3x3_56x56x64', 2 * 56 * 56 * 64 * 64 * 9, () => tf.conv2d(x, f, 1, 'same'));
const xd = tf.randomUniform([1, 112, 112, 32]), fd = tf.randomUniform([3, 3, 32, 1]);
bench('tfjs depthwise mobilenet_dw_3x3_112x112x32', 2 * 112 * 112 * 32 * 9, () => tf.depthwiseConv2d(xd, fd, 1, 'same'));
const a = tf.randomUniform([512, 512]), b = tf.randomUniform([512, 512]);
bench('tfjs matmul 512', 2 * 512 ** 3, () => tf.matMul(a, b));
