// Puzzle 46: a training step. A linear classifier, logits = x · w, learns to
// give each of ROWS points its class. One round of training is five
// launches: the forward product, Puzzle 43's loss and its gradient, the
// weights' gradient, the round's mean loss, and Puzzle 44's AdamW update,
// done in place. The puzzle runs ROUNDS rounds in a row, as a training
// loop does, and `losses` keeps each round's mean loss.
#include "../p43_cross_entropy/cross_entropy.cu"
#include "../p44_adamw/adamw.cu"
#define TPB 32
#define VECS 1
#define BLOCKS 2

// Each block a row of x: logits[r][c] = sum over f of x[r][f] * w[f][c].
extern "C" __global__ void forward(float* logits, const float* x, const float* w,
                                   unsigned int features, unsigned int classes) {
    unsigned int r = blockIdx.x;
    for (unsigned int c = threadIdx.x; c < classes; c += TPB) {
        float sum = 0.0f;
        for (unsigned int f = 0; f < features; ++f) {
            sum += x[r * features + f] * w[f * classes + c];
        }
        logits[r * classes + c] = sum;
    }
}

// The gradient of the mean loss with respect to w: the product's backward.
// A thread an entry (f, c) of dw, summed over the rows.
extern "C" __global__ void weight_gradient(float* dw, const float* x, const float* dlogits,
                                           unsigned int rows, unsigned int features,
                                           unsigned int classes) {
    unsigned int i = blockIdx.x * TPB + threadIdx.x;
    // BEGIN PUZZLE (roughly 8 lines)
    if (i < features * classes) {
        unsigned int f = i / classes;
        unsigned int c = i % classes;
        float sum = 0.0f;
        for (unsigned int r = 0; r < rows; ++r) {
            sum += x[r * features + f] * dlogits[r * classes + c];
        }
        dw[i] = sum / rows;
    }
    // END PUZZLE
}

// One block: the mean of the rows' losses, kept as this round's; then the
// round counter moves on, which the update reads as AdamW's step number.
extern "C" __global__ void record_loss(float* losses, unsigned int* round,
                                       const float* row_loss, unsigned int rows,
                                       unsigned int rounds) {
    __shared__ float partial[TPB];
    float sum = 0.0f;
    for (unsigned int r = threadIdx.x; r < rows; r += TPB) {
        sum += row_loss[r];
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned int half = TPB / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            partial[threadIdx.x] += partial[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        unsigned int t = round[0];
        // A timed run repeats the rounds on the same buffers: past the
        // last round the losses have no room, and only the count moves.
        if (t < rounds) {
            losses[t] = partial[0] / rows;
        }
        round[0] = t + 1;
    }
}

// AdamW on every weight, in place: each thread reads and writes only its
// own weights and moments, so the update needs no second array.
extern "C" __global__ void update(float* w, float* m, float* v, const float* dw,
                                  const unsigned int* round, unsigned int count, float lr,
                                  float beta1, float beta2, float eps, float weight_decay) {
    float step = (float)round[0];
    Settings s = {lr, beta1, beta2, eps, weight_decay, 1.0f - powf(beta1, step),
                  1.0f - powf(beta2, step)};
    for (unsigned int i = blockIdx.x * TPB + threadIdx.x; i < count; i += BLOCKS * TPB) {
        Updated u = adamw_one(s, w[i], dw[i], m[i], v[i]);
        w[i] = u.param;
        m[i] = u.m;
        v[i] = u.v;
    }
}
