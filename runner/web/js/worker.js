// The playground's worker: the CPU checker (the book's core, compiled to
// WebAssembly) and, where the browser has WebGPU, the reader's own GPU, both
// off the page's thread, so a kernel that never ends cannot freeze the page
// (the page can always end this worker: its Stop button does).
//
// Messages in:  {kind: 'open', bundle}             the puzzle the page carries
//               {kind: 'check', text, gpu}         check a kernel (and run it on the GPU)
//               {kind: 'draw', text}               draw who touched which element
// Messages out: {kind: 'opened', start}            the skeleton, its file name, the sizes
//               {kind: 'teaching', report, ms}     the teaching size passed; stress sizes next
//               {kind: 'checked', report, ms}      the checker's report (JSON of `runner check`)
//               {kind: 'gpu', report?, timing?, device?, cpu?, skipped?, ms}
//               {kind: 'drawn', svg?, error?, after?}  the access diagram, or why there is none
//                                                  (`after`: drawn after a check, unasked)
//               {kind: 'broken', message}          the checker could not start
//               {kind: 'crashed', message}         the checker failed (a bug of the checker)

import init, { Puzzle, GpuRuns } from './puzzle_web.js';

const ready = init();
let puzzle = null;

onmessage = async ({ data }) => {
  try {
    await ready;
  } catch (e) {
    postMessage({ kind: 'broken', message: `the checker did not load: ${e.message || e}` });
    return;
  }
  if (data.kind === 'open') {
    try {
      puzzle = new Puzzle(data.bundle);
      postMessage({ kind: 'opened', start: JSON.parse(puzzle.start()) });
    } catch (e) {
      postMessage({ kind: 'broken', message: String(e.message || e) });
    }
  } else if (data.kind === 'draw') {
    try {
      postMessage({ kind: 'drawn', svg: puzzle.draw(data.text) });
    } catch (e) {
      postMessage({ kind: 'drawn', error: String(e.message || e) });
    }
  } else if (data.kind === 'check') {
    // The teaching size first, for a quick verdict; then, if it passed, the
    // whole check (the teaching size again, and every stress size).
    const started = performance.now();
    let report;
    try {
      report = JSON.parse(puzzle.check(data.text, false));
      if (report.verdict === 'pass' && puzzle.sizes() > 1) {
        postMessage({ kind: 'teaching', report, ms: performance.now() - started });
        report = JSON.parse(puzzle.check(data.text, true));
      }
    } catch (e) {
      // A fault of the checker itself (a WebAssembly trap): this worker is
      // done for; the page starts another.
      postMessage({ kind: 'crashed', message: String(e.message || e) });
      return;
    }
    postMessage({ kind: 'checked', report, ms: performance.now() - started });
    // The picture of who touched what, after every check whose kernel ran
    // (none where the teaching size is too large to draw: it says so).
    if (!['hang', 'compile_error', 'bad_input'].includes(report.verdict)) {
      try {
        postMessage({ kind: 'drawn', svg: puzzle.draw(data.text), after: true });
      } catch (e) {
        postMessage({ kind: 'drawn', error: String(e.message || e), after: true });
      }
    }
    // A kernel the checker saw hang, or that does not compile or read,
    // is not sent to a GPU: WebGPU cannot stop a kernel that never ends.
    if (data.gpu && !['hang', 'compile_error', 'bad_input'].includes(report.verdict)) {
      const gpuStarted = performance.now();
      const gpu = await onGpu(data.text)
        .catch(e => ({ skipped: `WebGPU failed: ${e.message || e}` }));
      postMessage({ kind: 'gpu', ...gpu, ms: performance.now() - gpuStarted });
    }
  }
};

/** The kernel on the reader's GPU at every size, judged by the core. */
async function onGpu(text) {
  if (!navigator.gpu) {
    return { skipped: 'This browser offers no WebGPU, so only the checker ran.' };
  }
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) {
    return { skipped: 'This browser has WebGPU but found no adapter to run it on.' };
  }
  const info = adapter.info || {};
  const device_name = [info.vendor, info.architecture, info.description]
    .filter(Boolean).join(' ') || 'an unnamed adapter';
  const cpu = /swiftshader|llvmpipe|lavapipe|software|cpu/i.test(device_name);
  // The book's WGSL uses subgroup builtins without `enable subgroups;` (naga,
  // which checks it, does not take that line yet); WebGPU wants the line and
  // the feature.
  const subgroups = /\bsubgroup[A-Z_]|\bsubgroup_(invocation_id|size)\b/.test(text);
  if (subgroups && !adapter.features.has('subgroups')) {
    return { skipped: `Not run on ${[info.vendor, info.architecture].filter(Boolean).join(' ') || 'your adapter'}: this kernel uses subgroup operations, which that adapter does not offer through WebGPU. Only the checker ran.` };
  }
  const features = ['timestamp-query', ...(subgroups ? ['subgroups'] : [])]
    .filter(f => adapter.features.has(f));
  const wanted = ['maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX',
    'maxComputeWorkgroupSizeY', 'maxComputeWorkgroupSizeZ', 'maxComputeWorkgroupStorageSize',
    'maxStorageBufferBindingSize', 'maxBufferSize', 'maxComputeWorkgroupsPerDimension'];
  const requiredLimits = Object.fromEntries(wanted.map(k => [k, adapter.limits[k]]));
  let device;
  try {
    device = await adapter.requestDevice({ requiredFeatures: features, requiredLimits });
  } catch (e) {
    return { skipped: `WebGPU would not open ${device_name}: ${e.message || e}` };
  }
  const runs = new GpuRuns();
  try {
    for (let size = 0; size < puzzle.sizes(); size++) {
      let plan;
      try {
        plan = puzzle.gpu_plan(text, size);
      } catch (e) {
        // Not launchable as written: the checker's report already says why.
        return { skipped: `Not run on ${device_name}: ${e.message || e}` };
      }
      runs.next_size();
      try {
        const ran = await runPlan(device, plan, size === 0, subgroups);
        ran.buffers.forEach(bytes => runs.buffer(bytes));
        runs.samples(Float64Array.from(ran.samples));
      } catch (e) {
        runs.error(String(e.message || e));
        break;
      }
    }
    const { report, timing } = JSON.parse(puzzle.gpu_check(text, device_name, cpu, runs));
    return { report, timing, device: device_name, cpu };
  } finally {
    device.destroy();
  }
}

/** How many timed runs follow the checked one, where the adapter has timestamps. */
const TIMED_RUNS = 10;

/**
 * One size on `device`: the buffers the core laid out (data or poison, then
 * a guard band), every launch in order, everything read back; then, with
 * timestamp queries, TIMED_RUNS more runs timed on the GPU.
 */
async function runPlan(device, plan, timed, subgroups) {
  const p = JSON.parse(plan.json());
  device.pushErrorScope('validation');
  const code = subgroups ? `enable subgroups;\n${p.code}` : p.code;
  const module = device.createShaderModule({ code });
  const layout = device.createBindGroupLayout({
    entries: p.bindings.map((b, i) => ({
      binding: i, visibility: GPUShaderStage.COMPUTE, buffer: { type: b.kind },
    })),
  });
  const buffers = p.bindings.map((b, i) => {
    const bytes = plan.contents(i);
    const usage = b.kind === 'uniform'
      ? GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST
      : GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const buffer = device.createBuffer({ size: bytes.length, usage });
    device.queue.writeBuffer(buffer, 0, bytes);
    return buffer;
  });
  const group = device.createBindGroup({
    layout,
    entries: buffers.map((buffer, i) => ({ binding: i, resource: { buffer } })),
  });
  const pipelineLayout = device.createPipelineLayout({ bindGroupLayouts: [layout] });
  const pipelines = p.launches.map(l => device.createComputePipeline({
    layout: pipelineLayout, compute: { module, entryPoint: l.entry },
  }));
  const rejected = await device.popErrorScope();
  if (rejected) {
    buffers.forEach(b => b.destroy());
    throw new Error(`WebGPU rejected the kernel: ${rejected.message}`);
  }
  const last = p.launches.length - 1;
  const dispatch = (encoder, stamps) => p.launches.forEach((l, k) => {
    const writes = stamps && (k === 0 || k === last) ? {
      timestampWrites: {
        querySet: stamps.set,
        ...(k === 0 ? { beginningOfPassWriteIndex: stamps.begin } : {}),
        ...(k === last ? { endOfPassWriteIndex: stamps.begin + 1 } : {}),
      },
    } : {};
    const pass = encoder.beginComputePass(writes);
    pass.setPipeline(pipelines[k]);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(...l.grid);
    pass.end();
  });

  // The checked run alone, its buffers copied out before anything else runs.
  const encoder = device.createCommandEncoder();
  dispatch(encoder, null);
  const reads = [];
  p.bindings.forEach((b, i) => {
    if (!b.read_back) return;
    const read = device.createBuffer({
      size: buffers[i].size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    encoder.copyBufferToBuffer(buffers[i], 0, read, 0, buffers[i].size);
    reads.push(read);
  });
  device.queue.submit([encoder.finish()]);
  const out = [];
  for (const read of reads) {
    await read.mapAsync(GPUMapMode.READ);
    out.push(new Uint8Array(read.getMappedRange().slice(0)));
    read.destroy();
  }

  let samples = [];
  if (timed && device.features.has('timestamp-query')) {
    const count = 2 * TIMED_RUNS;
    const set = device.createQuerySet({ type: 'timestamp', count });
    const resolve = device.createBuffer({
      size: 8 * count, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
    });
    const read = device.createBuffer({
      size: 8 * count, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    const timedEncoder = device.createCommandEncoder();
    for (let run = 0; run < TIMED_RUNS; run++) dispatch(timedEncoder, { set, begin: 2 * run });
    timedEncoder.resolveQuerySet(set, 0, count, resolve, 0);
    timedEncoder.copyBufferToBuffer(resolve, 0, read, 0, 8 * count);
    device.queue.submit([timedEncoder.finish()]);
    await read.mapAsync(GPUMapMode.READ);
    const stamps = new BigUint64Array(read.getMappedRange().slice(0));
    for (let run = 0; run < TIMED_RUNS; run++) {
      const ns = Number(stamps[2 * run + 1] - stamps[2 * run]);
      if (ns > 0) samples.push(ns / 1e6);
    }
    [set, resolve, read].forEach(x => x.destroy());
  }
  buffers.forEach(b => b.destroy());
  return { buffers: out, samples };
}
