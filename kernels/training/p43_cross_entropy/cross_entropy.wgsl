// Puzzle 43: a cross-entropy loss and its gradient, fused. A workgroup takes
// a row of logits, keeps it in private arrays (VECS vec4s an invocation),
// and writes the row's loss, log(sum of exp) - logit[target], and its
// gradient, softmax - onehot(target). The probabilities are never stored:
// each is written as its gradient. A row holds at most 4 * VECS * TPB
// logits, a multiple of 4.
const TPB: u32 = 32u;
const VECS: u32 = 1u;
const LOWEST: f32 = -3.402823466e38;

@group(0) @binding(0) var<storage, read_write> loss: array<f32>;
@group(0) @binding(1) var<storage, read_write> dlogits: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> logits: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> targets: array<u32>;
@group(0) @binding(4) var<uniform> vocab: u32;

// A part of a row as the online softmax sees it (Puzzle 28, step 2): its
// largest value, and its sum of exp(v - largest).
struct Part {
    largest: f32,
    sum: f32,
}

var<workgroup> slots: array<Part, TPB>;

// Two parts as one: both sums brought to the larger maximum, then added.
fn combine(a: Part, b: Part) -> Part {
    let largest = max(a.largest, b.largest);
    return Part(largest, a.sum * exp(a.largest - largest) + b.sum * exp(b.largest - largest));
}

// The workgroup's part, the whole row, returned to every invocation.
fn workgroup_combine(t: u32, p: Part) -> Part {
    slots[t] = p;
    workgroupBarrier();
    for (var half = TPB / 2u; half > 0u; half /= 2u) {
        if (t < half) {
            slots[t] = combine(slots[t], slots[t + half]);
        }
        workgroupBarrier();
    }
    let row = slots[0];
    workgroupBarrier();
    return row;
}

fn max4(v: vec4<f32>) -> f32 {
    return max(max(v.x, v.y), max(v.z, v.w));
}

// A vec4 with 1 in lane `lane` (0 to 3), 0 elsewhere.
fn onehot4(lane: u32) -> vec4<f32> {
    return select(vec4(0.0), vec4(1.0), vec4(lane) == vec4(0u, 1u, 2u, 3u));
}

@compute @workgroup_size(TPB)
fn cross_entropy(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let quads = vocab / 4u;
    let start = wid.x * quads;
    let t = lid.x;
    // `target` is a word WGSL reserves.
    let goal = targets[wid.x];

    // BEGIN PUZZLE (roughly 30 lines)
    // The invocation's vec4s, in a private array; past the end, LOWEST,
    // whose exp is 0. The one that holds the target's logit keeps it.
    var v: array<vec4<f32>, VECS>;
    var mine = Part(LOWEST, 0.0);
    var target_logit = 0.0;
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        v[k] = vec4(LOWEST);
        if (q < quads) {
            v[k] = logits[start + q];
        }
        mine.largest = max(mine.largest, max4(v[k]));
        if (q == goal / 4u) {
            target_logit = v[k][goal % 4u];
        }
    }
    // Exponentials relative to the invocation's own maximum, kept for the
    // output. One with nothing of the row sums exp(0) = 1s, which vanish
    // when joined: combine scales them by exp(LOWEST - the row's maximum) = 0.
    for (var k = 0u; k < VECS; k++) {
        v[k] = exp(v[k] - vec4(mine.largest));
        mine.sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    let row = workgroup_combine(t, mine);
    // One factor takes this invocation's exponentials to probabilities.
    let to_probability = exp(mine.largest - row.largest) / row.sum;
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        if (q < quads) {
            var p = v[k] * to_probability;
            if (q == goal / 4u) {
                // -log of the target's probability, without taking the log
                // of a probability that may be too small for a float.
                loss[wid.x] = log(row.sum) + row.largest - target_logit;
                p -= onehot4(goal % 4u);
            }
            dlogits[start + q] = p;
        }
    }
    // END PUZZLE
}
