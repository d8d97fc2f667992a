//! Host-side buffer contents: element types, generated inputs, poison, bytes.
//!
//! Every backend moves the same little-endian bytes; this module turns a
//! spec's `init` into those bytes and device bytes back into numbers.

// SplitMix64 (gpu-hazard), so that `random 7` means the same numbers forever:
// recorded results and their hashes must not move when a crate updates.
use crate::spec::expr::ExprError;
use gpu_hazard::Rng;
use serde::{Deserialize, Serialize};

/// The element type of a buffer or scalar.
///
/// `bf16`, `f16` and `e4m3` are buffer types only: kernel scalars are
/// passed as 32-bit words ([`Dtype::holds`] refuses them), and WGSL cannot
/// bind arrays of them (a spec with one runs in CUDA C only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    #[default]
    F32,
    I32,
    U32,
    /// bfloat16: f32's 8-bit exponent with an 8-bit significand.
    Bf16,
    /// IEEE binary16: a 5-bit exponent and an 11-bit significand.
    F16,
    /// FP8 E4M3 as NVIDIA's GPUs have it (`__nv_fp8_e4m3`, PyTorch's
    /// `float8_e4m3fn`): a 4-bit exponent and a 4-bit significand, finite
    /// up to ±448, no infinities, NaN only as S.1111.111.
    E4m3,
}

impl Dtype {
    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            Dtype::F32 | Dtype::I32 | Dtype::U32 => 4,
            Dtype::Bf16 | Dtype::F16 => 2,
            Dtype::E4m3 => 1,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::I32 => "i32",
            Dtype::U32 => "u32",
            Dtype::Bf16 => "bf16",
            Dtype::F16 => "f16",
            Dtype::E4m3 => "e4m3",
        }
    }

    /// Whether it holds floating-point numbers (not indices or counts).
    pub const fn is_float(self) -> bool {
        !matches!(self, Dtype::I32 | Dtype::U32)
    }

    /// Whether elements are narrower than a 32-bit word (bf16, f16, e4m3):
    /// no scalar and no WGSL binding can have such a type.
    pub const fn is_narrow(self) -> bool {
        self.size() < 4
    }

    /// How far an output element may be from its expected value, relative
    /// to it: `|got − want| ≤ tolerance · (1 + |want|)` (see
    /// `judge::verify::close_within`). The expected value is the CPU
    /// reference's, in f64 and not rounded to the buffer's type.
    ///
    /// - f32, i32, u32: 1e-5, room for a kernel's FP32 sums adding in
    ///   another order than the reference (integers compare exactly anyway).
    /// - bf16 and f16: twice the unit roundoff u = 2^-p of a p-bit
    ///   significand (bf16: p = 8, so 2^-7; f16: p = 11, so 2^-10). Rounding
    ///   the exact result to the type moves it by half an ulp, at most u of
    ///   its magnitude (just above a power of two); the other u, and the
    ///   absolute part of the `1 +`, cover a kernel's FP32 arithmetic before
    ///   that rounding, which may land its result on the other side of a
    ///   rounding boundary. Puzzle 33's page derives the rule.
    /// - e4m3: the same rule for p = 4, so 2^-3.
    pub const fn tolerance(self) -> f64 {
        match self {
            Dtype::F32 | Dtype::I32 | Dtype::U32 => 1e-5,
            Dtype::Bf16 => 1.0 / 128.0,
            Dtype::F16 => 1.0 / 1024.0,
            Dtype::E4m3 => 1.0 / 8.0,
        }
    }

    /// The bit pattern outputs start with, so an element nobody wrote stands out:
    /// NaN for floats, 0xDEADBEEF for integers. 16-bit types use the low
    /// half of the word. The NaNs are quiet ones with a recognisable
    /// payload, unlike those a kernel computes (NVIDIA GPUs write the
    /// canonical 0x7FFF in bf16 and f16) or the host converts (0x7FC0 in
    /// bf16, 0x7E00 in f16): a computed NaN is never taken for poison.
    /// e4m3 has two NaNs and no payload: its poison is the negative one,
    /// 0xFF, since a GPU's conversion to e4m3 writes 0x7F for any NaN.
    pub const fn poison_bits(self) -> u32 {
        match self {
            Dtype::F32 => 0x7FC0_0DEA, // a quiet NaN with a recognisable payload
            Dtype::I32 | Dtype::U32 => 0xDEAD_BEEF,
            Dtype::Bf16 => 0x7FDA,
            Dtype::F16 => 0x7EDA,
            Dtype::E4m3 => 0xFF,
        }
    }

    /// Whether a scalar argument's value is one this type can hold exactly;
    /// else why not ("is -1; a u32 holds whole numbers from 0 to 4294967295").
    /// A narrow type holds no scalar at all: kernels take scalars as 32-bit words.
    pub fn holds(self, value: f64) -> Result<(), NotHeld> {
        let (low, high) = match self {
            Dtype::F32 => {
                return if value.is_finite() && (value as f32).is_finite() {
                    Ok(())
                } else {
                    Err(NotHeld::NotFinite(value))
                };
            }
            Dtype::Bf16 | Dtype::F16 | Dtype::E4m3 => return Err(NotHeld::Narrow(self)),
            Dtype::I32 => (i32::MIN as f64, i32::MAX as f64),
            Dtype::U32 => (0.0, u32::MAX as f64),
        };
        if value.fract() == 0.0 && (low..=high).contains(&value) {
            Ok(())
        } else {
            Err(NotHeld::OutOfRange {
                value,
                dtype: self,
                low,
                high,
            })
        }
    }

    /// `value` as this type's bits (narrow types in the low bits). Floats
    /// round to nearest even. The `_const` conversions of `half` never use
    /// the CPU's conversion instructions, whose f64 → f16 goes through f32
    /// (rounding twice): the same bits on every machine and in WebAssembly.
    /// `float8`'s conversion is integer arithmetic too, and saturates as a
    /// GPU's `satfinite` conversion does: past ±448 is ±448.
    fn bits(self, value: f64) -> u32 {
        match self {
            Dtype::F32 => (value as f32).to_bits(),
            Dtype::I32 => (value as i32) as u32,
            Dtype::U32 => value as u32,
            Dtype::Bf16 => half::bf16::from_f64_const(value).to_bits() as u32,
            Dtype::F16 => half::f16::from_f64_const(value).to_bits() as u32,
            Dtype::E4m3 => float8::F8E4M3::from_f64(value).to_bits() as u32,
        }
    }

    /// The number that `bits` (as [`Dtype::bits`] lays them out) stand for.
    fn value(self, bits: u32) -> f64 {
        match self {
            Dtype::F32 => f32::from_bits(bits) as f64,
            Dtype::I32 => bits as i32 as f64,
            Dtype::U32 => bits as f64,
            Dtype::Bf16 => half::bf16::from_bits(bits as u16).to_f64_const(),
            Dtype::F16 => half::f16::from_bits(bits as u16).to_f64_const(),
            Dtype::E4m3 => float8::F8E4M3::from_bits(bits as u8).to_f64(),
        }
    }

    /// `value` as the device holds it: rounded to this type and back (what
    /// [`Dtype::encode`] then [`Dtype::decode`] give, poison aside).
    pub fn round(self, value: f64) -> f64 {
        self.value(self.bits(value))
    }

    /// Each element's bits, little-endian, `size()` bytes each.
    fn elements(self, bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
        bytes.chunks_exact(self.size()).map(|chunk| {
            let mut word = [0; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            u32::from_le_bytes(word)
        })
    }

    /// `len` elements of `bits`, as little-endian bytes.
    fn repeat(self, bits: u32, len: usize) -> Vec<u8> {
        bits.to_le_bytes()[..self.size()].repeat(len)
    }

    /// Encodes numbers as this type's little-endian bytes.
    pub fn encode(self, values: &[f64]) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(values.len() * self.size());
        for &v in values {
            bytes.extend_from_slice(&self.bits(v).to_le_bytes()[..self.size()]);
        }
        bytes
    }

    /// Decodes little-endian elements; `None` marks an element still holding poison.
    pub fn decode(self, bytes: &[u8]) -> Vec<Option<f64>> {
        self.elements(bytes)
            .map(|bits| (bits != self.poison_bits()).then(|| self.value(bits)))
            .collect()
    }

    /// The element that fills the guard band after buffer number `tag`
    /// (narrow types in the low bits). Each buffer gets its own: NaN payloads
    /// survive arithmetic, so a kernel that reads past the end of `a` and
    /// writes past the end of `out` would otherwise copy one band's pattern
    /// into the other unnoticed. All are NaNs apart from the poison, but
    /// for e4m3, whose NaNs carry no payload: its bands hold large negative
    /// numbers, −448 down to −256 by tag, which wreck any sum that reads
    /// them and which a kernel's own writes are unlikely to match.
    pub const fn canary_bits(self, tag: u32) -> u32 {
        match self {
            Dtype::F32 => 0x7FC0_C000 | (tag & 0xFF),
            Dtype::I32 | Dtype::U32 => 0xCAFE_0000 | (tag & 0xFF),
            // Never the all-ones payload 0x7FFF: NVIDIA GPUs write that NaN
            // in bf16 and f16, and a band holding it would miss such a write.
            Dtype::Bf16 => 0x7FE0 | (tag % 0x1F),
            Dtype::F16 => 0x7F00 | (tag % 0xFF),
            // 0xFE is −448; 0xF8 is −256.
            Dtype::E4m3 => 0xFE - (tag % 7),
        }
    }

    /// A guard band of `len` canary elements.
    pub fn canary(self, tag: u32, len: usize) -> Vec<u8> {
        self.repeat(self.canary_bits(tag), len)
    }

    /// Offsets (in elements) of band elements that no longer hold the canary.
    pub fn overwritten(self, tag: u32, band: &[u8]) -> Vec<usize> {
        self.elements(band)
            .enumerate()
            .filter(|&(_, bits)| bits != self.canary_bits(tag))
            .map(|(i, _)| i)
            .collect()
    }

    /// `len` poisoned elements, as bytes.
    pub fn poison(self, len: usize) -> Vec<u8> {
        self.repeat(self.poison_bits(), len)
    }
}

/// Why a scalar argument's value is not one its type holds; the words follow
/// "scalar `NAME` " in the spec's error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NotHeld {
    #[error("is {0}; an f32 holds finite values up to about 3.4e38")]
    NotFinite(f64),
    #[error("is {}; scalars are passed as 32-bit words: use f32, i32 or u32", .0.name())]
    Narrow(Dtype),
    #[error(
        "is {value}; a{} {} holds whole numbers from {low} to {high}",
        if *dtype == Dtype::U32 { "" } else { "n" },
        dtype.name()
    )]
    OutOfRange {
        value: f64,
        dtype: Dtype,
        low: f64,
        high: f64,
    },
}

/// Why a buffer's own `tolerance:` cannot stand; the words follow "the
/// tolerance of `NAME` " in the spec's error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OwnToleranceError {
    #[error("is set on an input; only an output is judged: remove it")]
    NotAnOutput,
    #[error("is {given}; it must lie from its type's, {least}, up to 1")]
    OutOfRange { given: f64, least: f64 },
}

impl Dtype {
    /// Whether `tolerance` may judge a buffer of this type (an output, or
    /// not): finite, at least the type's own, below 1.
    pub fn own_tolerance(self, tolerance: f64, output: bool) -> Result<(), OwnToleranceError> {
        let least = self.tolerance();
        if !output {
            Err(OwnToleranceError::NotAnOutput)
        } else if tolerance.is_finite() && (least..1.0).contains(&tolerance) {
            Ok(())
        } else {
            Err(OwnToleranceError::OutOfRange {
                given: tolerance,
                least,
            })
        }
    }
}

/// Why a buffer's `init` or `expect` has no values; the words follow
/// "init of `NAME` " (or "expect of …") in the spec's error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValuesError {
    #[error("`random` needs an integer seed, got `{0}`")]
    Seed(String),
    #[error("`random {0} below` needs a bound, such as `VOCAB`")]
    NoBound(u64),
    #[error("`random {seed} +` needs a number, got `{offset}`")]
    Offset { seed: u64, offset: String },
    #[error("`random {seed} *` needs a number, got `{factor}`")]
    Factor { seed: u64, factor: String },
    #[error("`arange` takes a number as its step, got `{0}`")]
    Step(String),
    #[error("`fill` needs a number, got `{0}`")]
    Fill(String),
    #[error(
        "`{0}` is not a list of numbers or one of: arange, arange STEP, zeros, ones, fill V, random SEED, random SEED + OFFSET, random SEED * FACTOR, random SEED below BOUND, reference"
    )]
    Unknown(String),
    /// `random SEED below BOUND` whose BOUND does not evaluate.
    #[error("its bound: {0}")]
    Bound(ExprError),
    #[error("`random {seed} below {bound}`: the bound is {value}; it must be at least 1")]
    BoundTooSmall {
        seed: u64,
        bound: String,
        value: i64,
    },
    /// `random SEED below BOUND` materialized before [`Values::with_bound`] wrote BOUND as a number.
    #[error("`random {seed} below {bound}`: the bound was not worked out")]
    BoundNotWorkedOut { seed: u64, bound: String },
    #[error("lists {listed} values but the buffer has {len} elements")]
    Length { listed: usize, len: usize },
    #[error("cannot be `reference`: only expected values come from the CPU reference")]
    Reference,
    /// A per-rank list ([`Values::PerRank`]) whose length is not the spec's `gpus`.
    #[error("lists {listed} entries, one per rank, but the spec runs on {ranks} GPUs")]
    PerRank { listed: usize, ranks: u32 },
    /// A per-rank list in a spec on one GPU.
    #[error("has one entry per rank, which needs `gpus:`")]
    PerRankWithoutGpus,
    /// A per-rank list inside a per-rank list, or numbers beside entries.
    #[error(
        "is neither a list of numbers (every rank's the same) nor one entry per rank, each a \
         list of numbers or a word such as `arange`"
    )]
    PerRankMixed,
}

/// How a buffer's contents are written in a spec (`init:` and `expect:`).
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    List(Vec<f64>),
    /// 0, 1, 2, …
    Arange,
    /// 0, STEP, 2·STEP, … (the MatMul chapter's second matrix is `arange 2`).
    ArangeStep(f64),
    Fill(f64),
    Random(u64),
    /// `random SEED + OFFSET`: the same quarters, all moved by OFFSET. A
    /// softmax's answer does not move with them, but `exp` of them
    /// overflows `float` past 88.7: large logits that a kernel must survive.
    RandomAbove(u64, f64),
    /// `random SEED * FACTOR`: the same quarters, all multiplied by FACTOR
    /// (a power of two keeps them exact in BF16). Attention's queries and
    /// keys at a half give scores of a model's size, not a one-hot softmax.
    RandomTimes(u64, f64),
    /// `random SEED below BOUND`: whole numbers from 0 to BOUND − 1, spread
    /// evenly: indices into a table (an embedding's token ids). BOUND is a
    /// number or an expression of the constants, kept as written until the
    /// spec is resolved ([`Values::with_bound`]).
    RandomIndex(u64, String),
    /// Expected values only: whatever the puzzle's CPU reference computes.
    Reference,
    /// One entry per rank, in a spec on several GPUs (`gpus:`), e.g.
    /// `[arange, ones]`: rank r's contents are entry r ([`Values::for_rank`]).
    PerRank(Vec<Values>),
}

impl Values {
    /// Parses the word forms: `arange`, `zeros`, `ones`, `fill V`, `random SEED`,
    /// `random SEED + OFFSET`, `random SEED * FACTOR`, `random SEED below BOUND`.
    pub fn parse_word(text: &str) -> Result<Values, ValuesError> {
        let words: Vec<&str> = text.split_whitespace().collect();
        if let ["random", seed, "below", bound @ ..] = &words[..] {
            let seed = seed
                .parse()
                .map_err(|_| ValuesError::Seed(seed.to_string()))?;
            if bound.is_empty() {
                return Err(ValuesError::NoBound(seed));
            }
            return Ok(Values::RandomIndex(seed, bound.join(" ")));
        }
        if let ["random", seed, op @ ("*" | "+"), number] = words[..] {
            return Values::random_with(seed, op, number);
        }
        let mut words = text.split_whitespace();
        let head = words.next().unwrap_or("");
        let arg = words.next();
        let extra = words.next();
        let parsed = match (head, arg, extra) {
            ("arange", None, None) => Values::Arange,
            ("arange", Some(step), None) => Values::ArangeStep(
                step.parse()
                    .map_err(|_| ValuesError::Step(step.to_string()))?,
            ),
            ("reference", None, None) => Values::Reference,
            ("zeros", None, None) => Values::Fill(0.0),
            ("ones", None, None) => Values::Fill(1.0),
            ("fill", Some(v), None) => {
                Values::Fill(v.parse().map_err(|_| ValuesError::Fill(v.to_string()))?)
            }
            ("random", Some(seed), None) => Values::Random(
                seed.parse()
                    .map_err(|_| ValuesError::Seed(seed.to_string()))?,
            ),
            _ => return Err(ValuesError::Unknown(text.to_string())),
        };
        Ok(parsed)
    }

    /// `random SEED * FACTOR` or `random SEED + OFFSET`, `op` being `*` or
    /// `+`: one parse for both, so their seeds and numbers are read alike and
    /// each error names the part that is wrong (the seed, or the number
    /// after `op`).
    fn random_with(seed: &str, op: &str, number: &str) -> Result<Values, ValuesError> {
        let seed = seed
            .parse()
            .map_err(|_| ValuesError::Seed(seed.to_string()))?;
        let (number, n) = (number.to_string(), number.parse::<f64>().ok());
        // The caller matched `op` as `*` or `+`, so anything but `*` is `+`.
        match (op, n) {
            ("*", Some(factor)) => Ok(Values::RandomTimes(seed, factor)),
            ("*", None) => Err(ValuesError::Factor {
                seed,
                factor: number,
            }),
            (_, Some(offset)) => Ok(Values::RandomAbove(seed, offset)),
            (_, None) => Err(ValuesError::Offset {
                seed,
                offset: number,
            }),
        }
    }

    /// What a stress or benchmark run puts in this input: random values
    /// seeded by `seed`, moved by the same offset as these.
    /// A per-rank list takes its first entry's kind (every rank is reseeded).
    pub fn reseeded(&self, seed: u64) -> Values {
        match self {
            Values::RandomAbove(_, offset) => Values::RandomAbove(seed, *offset),
            Values::RandomTimes(_, factor) => Values::RandomTimes(seed, *factor),
            Values::RandomIndex(_, bound) => Values::RandomIndex(seed, bound.clone()),
            // `zeros` is a start, not data: counters and flags (Puzzle 38's
            // rounds) begin at zero on every run, or their protocol breaks.
            Values::Fill(zero) if *zero == 0.0 => Values::Fill(0.0),
            Values::PerRank(list) => list
                .first()
                .map_or(Values::Random(seed), |v| v.reseeded(seed)),
            _ => Values::Random(seed),
        }
    }

    /// Rank `rank`'s contents in a spec on `ranks` GPUs: a per-rank list
    /// gives its entry (it must list one per rank); where `vary` (a buffer
    /// of each rank's own, not the same on every rank), `random S` gives
    /// rank r the seed S + r, so that the ranks' inputs differ without a
    /// list; anything else is every rank's as written.
    pub fn for_rank(&self, rank: u32, ranks: u32, vary: bool) -> Result<Values, ValuesError> {
        let moved = |seed: &u64| seed.wrapping_add(rank.into());
        Ok(match self {
            Values::PerRank(list) => list
                .get(rank as usize)
                .filter(|_| list.len() == ranks as usize)
                .cloned()
                .ok_or(ValuesError::PerRank {
                    listed: list.len(),
                    ranks,
                })?,
            Values::Random(seed) if vary => Values::Random(moved(seed)),
            Values::RandomAbove(seed, offset) if vary => Values::RandomAbove(moved(seed), *offset),
            Values::RandomTimes(seed, factor) if vary => Values::RandomTimes(moved(seed), *factor),
            Values::RandomIndex(seed, bound) if vary => {
                Values::RandomIndex(moved(seed), bound.clone())
            }
            other => other.clone(),
        })
    }

    /// `random SEED below BOUND` with BOUND worked out by `eval` (which knows
    /// the constants) and written as a number; other values as they are.
    pub fn with_bound(
        &self,
        eval: impl Fn(&str) -> Result<i64, ExprError>,
    ) -> Result<Values, ValuesError> {
        self.bound_by(&eval)
    }

    fn bound_by(
        &self,
        eval: &dyn Fn(&str) -> Result<i64, ExprError>,
    ) -> Result<Values, ValuesError> {
        match self {
            Values::RandomIndex(seed, bound) => {
                let n = eval(bound).map_err(ValuesError::Bound)?;
                if n < 1 {
                    return Err(ValuesError::BoundTooSmall {
                        seed: *seed,
                        bound: bound.clone(),
                        value: n,
                    });
                }
                Ok(Values::RandomIndex(*seed, n.to_string()))
            }
            Values::PerRank(list) => list
                .iter()
                .map(|v| v.bound_by(eval))
                .collect::<Result<_, _>>()
                .map(Values::PerRank),
            other => Ok(other.clone()),
        }
    }

    /// The `len` values this stands for.
    pub fn materialize(&self, len: usize) -> Result<Vec<f64>, ValuesError> {
        match self {
            Values::List(list) if list.len() == len => Ok(list.clone()),
            Values::List(list) => Err(ValuesError::Length {
                listed: list.len(),
                len,
            }),
            Values::Arange => Ok((0..len).map(|i| i as f64).collect()),
            Values::ArangeStep(step) => Ok((0..len).map(|i| i as f64 * step).collect()),
            Values::Fill(v) => Ok(vec![*v; len]),
            // Quarters in [-4, 4]: not integers, so `(int)` slips show, yet exact
            // in f32, so sums and products of thousands of them compare exactly
            // with the f64 reference whatever order a kernel adds them in.
            Values::Random(seed) => {
                let mut rng = Rng::new(*seed);
                Ok((0..len)
                    .map(|_| ((rng.unit() * 33.0).floor() - 16.0) / 4.0)
                    .collect())
            }
            Values::RandomAbove(seed, offset) => Ok(Values::Random(*seed)
                .materialize(len)?
                .into_iter()
                .map(|v| v + offset)
                .collect()),
            Values::RandomTimes(seed, factor) => Ok(Values::Random(*seed)
                .materialize(len)?
                .into_iter()
                .map(|v| v * factor)
                .collect()),
            Values::RandomIndex(seed, bound) => {
                let bound: u64 = bound.parse().map_err(|_| ValuesError::BoundNotWorkedOut {
                    seed: *seed,
                    bound: bound.clone(),
                })?;
                let mut rng = Rng::new(*seed);
                Ok((0..len)
                    .map(|_| (rng.unit() * bound as f64).floor())
                    .collect())
            }
            Values::Reference => Err(ValuesError::Reference),
            Values::PerRank(_) => Err(ValuesError::PerRankWithoutGpus),
        }
    }

    /// The `len` values a benchmark times a kernel on ([`BENCH_INPUTS`]).
    /// For a floating-point buffer, `random` becomes uniform in [−4, 4)
    /// with every bit of an f64's mantissa (moved or scaled as written);
    /// the buffer's type rounds them afterwards. A tensor core's power, and
    /// so its clock under load, depends on the bits it multiplies: quarters,
    /// three significant bits each, let a kernel run faster than it would on
    /// a model's data, and a library timed on other data would not be
    /// beaten fairly. Integers (indices, counts) and fills stay as written.
    pub fn materialize_for_timing(&self, len: usize, float: bool) -> Result<Vec<f64>, ValuesError> {
        let uniform = |seed: u64| {
            let mut rng = Rng::new(seed);
            (0..len).map(move |_| rng.unit() * 8.0 - 4.0)
        };
        match self {
            Values::Random(seed) if float => Ok(uniform(*seed).collect()),
            Values::RandomAbove(seed, offset) if float => {
                Ok(uniform(*seed).map(|v| v + offset).collect())
            }
            Values::RandomTimes(seed, factor) if float => {
                Ok(uniform(*seed).map(|v| v * factor).collect())
            }
            other => other.materialize(len),
        }
    }
}

/// What a benchmark's inputs are, in words, as recordings and the
/// libraries' baselines state them ([`Values::materialize_for_timing`]).
pub const BENCH_INPUTS: &str = "values spread uniformly over [-4, 4), some scaled or shifted, with \
     full mantissas, rounded to each input's type; integer inputs as drawn for the checks; seeded by \
     argument position";

impl<'de> Deserialize<'de> for Values {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Values;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of numbers, or arange / arange STEP / zeros / ones / fill V / random SEED / random SEED + OFFSET / random SEED * FACTOR / reference")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Values, E> {
                Values::parse_word(v).map_err(E::custom)
            }
            /// Numbers make a list (every rank's the same); lists and words
            /// make a per-rank list (one entry per rank).
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Values, A::Error> {
                let mut numbers = Vec::new();
                let mut entries = Vec::new();
                while let Some(element) = seq.next_element::<Element>()? {
                    match element {
                        Element::Number(v) => numbers.push(v),
                        Element::Values(Values::PerRank(_)) => {
                            return Err(serde::de::Error::custom(ValuesError::PerRankMixed));
                        }
                        Element::Values(v) => entries.push(v),
                    }
                }
                match (numbers.is_empty(), entries.is_empty()) {
                    (_, true) => Ok(Values::List(numbers)),
                    (true, false) => Ok(Values::PerRank(entries)),
                    (false, false) => Err(serde::de::Error::custom(ValuesError::PerRankMixed)),
                }
            }
        }
        de.deserialize_any(Visitor)
    }
}

/// One element of a list of values: a number, or (in a per-rank list) a
/// rank's own entry, a list or a word.
enum Element {
    Number(f64),
    Values(Values),
}

impl<'de> Deserialize<'de> for Element {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Element;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a number, or a rank's entry: a list of numbers or a word such as arange",
                )
            }
            fn visit_i64<E>(self, v: i64) -> Result<Element, E> {
                Ok(Element::Number(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Element, E> {
                Ok(Element::Number(v as f64))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Element, E> {
                Ok(Element::Number(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Element, E> {
                Values::parse_word(v)
                    .map(Element::Values)
                    .map_err(E::custom)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Element, A::Error> {
                Values::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
                    .map(Element::Values)
            }
        }
        de.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_table() {
        let cases = [
            ("arange", Ok(Values::Arange)),
            ("zeros", Ok(Values::Fill(0.0))),
            ("ones", Ok(Values::Fill(1.0))),
            ("fill 11", Ok(Values::Fill(11.0))),
            ("random 7", Ok(Values::Random(7))),
            ("random 7 + 100", Ok(Values::RandomAbove(7, 100.0))),
            ("random 7 + -2.5", Ok(Values::RandomAbove(7, -2.5))),
            ("random 7 * 0.5", Ok(Values::RandomTimes(7, 0.5))),
            ("arange 2", Ok(Values::ArangeStep(2.0))),
        ];
        for (text, want) in cases {
            assert_eq!(Values::parse_word(text), want, "{text}");
        }
        for bad in [
            "fill",
            "fill x",
            "random -1",
            "random 7 +",
            "random 7 + x",
            "random x + 1",
            "arange two",
            "arange 1 2",
            "iota",
        ] {
            assert!(Values::parse_word(bad).is_err(), "{bad} should be rejected");
        }
    }

    /// Both `random SEED OP NUMBER` forms share one parse: each malformed
    /// part is named in the error, with the operator it followed.
    #[test]
    fn random_op_errors_table() {
        let cases = [
            ("random 7 * 2", Ok(Values::RandomTimes(7, 2.0))),
            ("random 7 + 2", Ok(Values::RandomAbove(7, 2.0))),
            ("random 7 * x", Err("`random 7 *` needs a number, got `x`")),
            ("random 7 + x", Err("`random 7 +` needs a number, got `x`")),
            (
                "random x * 2",
                Err("`random` needs an integer seed, got `x`"),
            ),
            (
                "random -1 + 2",
                Err("`random` needs an integer seed, got `-1`"),
            ),
            (
                "random 7 - 2",
                Err(
                    "`random 7 - 2` is not a list of numbers or one of: arange, arange STEP, \
                     zeros, ones, fill V, random SEED, random SEED + OFFSET, random SEED * \
                     FACTOR, random SEED below BOUND, reference",
                ),
            ),
        ];
        for (text, want) in cases {
            let got = Values::parse_word(text).map_err(|e| e.to_string());
            assert_eq!(got, want.map_err(str::to_string), "{text}");
        }
        for short in ["random 7 *", "random 7 * 2 3"] {
            assert_eq!(
                Values::parse_word(short),
                Err(ValuesError::Unknown(short.into())),
                "{short}"
            );
        }
    }

    #[test]
    fn materialize_table() {
        assert_eq!(Values::Arange.materialize(4).unwrap(), [0.0, 1.0, 2.0, 3.0]);
        assert_eq!(Values::Fill(11.0).materialize(2).unwrap(), [11.0, 11.0]);
        let err = Values::List(vec![1.0, 2.0]).materialize(3).unwrap_err();
        assert_eq!(
            err.to_string(),
            "lists 2 values but the buffer has 3 elements"
        );
        let r = Values::Random(7).materialize(1000).unwrap();
        assert!(
            r.iter()
                .all(|v| (-4.0..=4.0).contains(v) && (v * 4.0).fract() == 0.0)
        );
        assert!(r.iter().any(|v| v.fract() != 0.0), "not only integers");
        assert_eq!(r, Values::Random(7).materialize(1000).unwrap(), "seeded");
        assert_ne!(r, Values::Random(8).materialize(1000).unwrap());
        let above = Values::RandomAbove(7, 100.0).materialize(1000).unwrap();
        assert!(above.iter().zip(&r).all(|(a, r)| *a == r + 100.0));
        assert_eq!(
            Values::RandomAbove(1, 9.0).reseeded(5),
            Values::RandomAbove(5, 9.0)
        );
        let times = Values::RandomTimes(7, 0.5).materialize(1000).unwrap();
        assert!(times.iter().zip(&r).all(|(t, r)| *t == r * 0.5));
        assert_eq!(
            Values::RandomTimes(1, 0.5).reseeded(5),
            Values::RandomTimes(5, 0.5)
        );
        assert_eq!(Values::Arange.reseeded(5), Values::Random(5));
        // Indices: whole numbers below the bound, every one of them reached.
        let ids = Values::parse_word("random 3 below VOCAB").unwrap();
        assert_eq!(ids, Values::RandomIndex(3, "VOCAB".into()));
        assert!(
            ids.materialize(4).is_err(),
            "the bound is not worked out yet"
        );
        let ids = ids.with_bound(|_| Ok(10)).unwrap();
        let drawn = ids.materialize(1000).unwrap();
        assert!(
            drawn
                .iter()
                .all(|v| (0.0..10.0).contains(v) && v.fract() == 0.0)
        );
        assert!((0..10).all(|i| drawn.contains(&(i as f64))));
        assert_eq!(ids.reseeded(4), Values::RandomIndex(4, "10".into()));
        assert!(
            Values::RandomIndex(1, "0".into())
                .with_bound(|b| Ok(b.parse().unwrap()))
                .is_err()
        );
        assert!(Values::parse_word("random 1 below").is_err());
    }

    /// Rank r's contents: a per-rank list's entry, `random S` moved to S + r
    /// where the ranks' copies vary, the rest as written.
    #[test]
    fn for_rank_table() {
        let per_rank = Values::PerRank(vec![Values::Arange, Values::Fill(1.0)]);
        // (values, rank, ranks, vary, what rank gets)
        let cases = [
            (per_rank.clone(), 1, 2, true, Ok(Values::Fill(1.0))),
            (per_rank.clone(), 0, 2, false, Ok(Values::Arange)),
            (
                per_rank.clone(),
                0,
                3,
                true,
                Err("lists 2 entries, one per rank, but the spec runs on 3 GPUs"),
            ),
            (Values::Random(3), 2, 4, true, Ok(Values::Random(5))),
            (Values::Random(3), 2, 4, false, Ok(Values::Random(3))),
            (
                Values::RandomAbove(3, 9.0),
                1,
                2,
                true,
                Ok(Values::RandomAbove(4, 9.0)),
            ),
            (Values::Arange, 1, 2, true, Ok(Values::Arange)),
        ];
        for (values, rank, ranks, vary, want) in cases {
            let got = values
                .for_rank(rank, ranks, vary)
                .map_err(|e| e.to_string());
            assert_eq!(got, want.map_err(String::from), "{values:?} rank {rank}");
        }
        assert_eq!(
            per_rank.materialize(4).unwrap_err().to_string(),
            "has one entry per rank, which needs `gpus:`"
        );
        assert_eq!(per_rank.reseeded(7), Values::Random(7));
        let bounded = Values::PerRank(vec![Values::RandomIndex(1, "V".into()), Values::Arange]);
        assert_eq!(
            bounded.with_bound(|_| Ok(5)).unwrap(),
            Values::PerRank(vec![Values::RandomIndex(1, "5".into()), Values::Arange])
        );
    }

    const ALL: [Dtype; 6] = [
        Dtype::F32,
        Dtype::I32,
        Dtype::U32,
        Dtype::Bf16,
        Dtype::F16,
        Dtype::E4m3,
    ];

    #[test]
    fn poison_round_trip_table() {
        for dtype in ALL {
            let mut bytes = dtype.encode(&[1.0, 2.0]);
            bytes.extend(dtype.poison(1));
            assert_eq!(bytes.len(), 3 * dtype.size(), "{dtype:?}");
            assert_eq!(
                dtype.decode(&bytes),
                [Some(1.0), Some(2.0), None],
                "{dtype:?}"
            );
        }
        // A kernel that writes a computed NaN is not mistaken for "never written".
        for dtype in [Dtype::F32, Dtype::Bf16, Dtype::F16] {
            let computed_nan = dtype.encode(&[f64::NAN]);
            assert!(
                dtype.decode(&computed_nan)[0].unwrap().is_nan(),
                "{dtype:?}"
            );
            // Nor is a GPU's canonical NaN (all payload bits set).
            let canonical = 0x7FFF_FFFFu32.to_le_bytes()[..dtype.size()].to_vec();
            assert!(dtype.decode(&canonical)[0].unwrap().is_nan(), "{dtype:?}");
        }
        assert_eq!(Dtype::I32.decode(&Dtype::I32.encode(&[-3.0])), [Some(-3.0)]);
        // The 32-bit patterns recorded results depend on.
        assert_eq!(Dtype::F32.poison(1), 0x7FC0_0DEAu32.to_le_bytes());
        assert_eq!(Dtype::U32.poison(1), 0xDEAD_BEEFu32.to_le_bytes());
        assert_eq!(Dtype::Bf16.poison(2), [0xDA, 0x7F, 0xDA, 0x7F]);
        assert_eq!(Dtype::F16.poison(1), [0xDA, 0x7E]);
        // e4m3's poison is the NaN no conversion writes; 0x7F, the one a
        // GPU's conversion writes, reads as a computed NaN.
        assert_eq!(Dtype::E4m3.poison(2), [0xFF, 0xFF]);
        assert!(Dtype::E4m3.decode(&[0x7F])[0].unwrap().is_nan());
        assert!(Dtype::E4m3.decode(&Dtype::E4m3.encode(&[f64::NAN]))[0].is_some());
    }

    #[test]
    fn sixteen_bit_values_round_to_nearest_even_table() {
        // (type, value, as the device holds it)
        let cases = [
            (Dtype::Bf16, 1.0, 1.0),
            (Dtype::Bf16, -2.25, -2.25),
            (Dtype::Bf16, 1.00390625, 1.0), // 1 + 2^-8: a tie, to the even 1.0
            (Dtype::Bf16, 1.01171875, 1.015625), // 1 + 3·2^-8: a tie, to the even 1 + 2^-6
            (Dtype::Bf16, std::f64::consts::PI, 3.140625),
            (Dtype::Bf16, 65_792.0, 65_536.0), // 2^16 (1 + 2^-8): a tie, far from 1
            (Dtype::Bf16, 1e39, f64::INFINITY), // past f32's range, so past bf16's
            (Dtype::F16, 1.00048828125, 1.0),  // 1 + 2^-11: a tie
            (Dtype::F16, 1.00146484375, 1.001953125), // 1 + 3·2^-11: a tie, to the even 1 + 2^-9
            (Dtype::F16, std::f64::consts::PI, 3.140625),
            (Dtype::F16, 65504.0, 65504.0), // the largest f16
            (Dtype::F16, 1e6, f64::INFINITY),
            (Dtype::F32, 0.1, 0.1f32 as f64),
            (Dtype::F32, -3.75, -3.75),
            (Dtype::E4m3, 3.75, 3.75), // every quarter of `random` is exact
            (Dtype::E4m3, 1.0625, 1.0), // 1 + 2^-4: a tie, to the even 1.0
            (Dtype::E4m3, 1.1875, 1.25), // 1 + 3·2^-4: a tie, to the even 1 + 2^-2
            (Dtype::E4m3, 448.0, 448.0), // the largest e4m3
            (Dtype::E4m3, 1e6, 448.0), // saturated, as the GPU's `satfinite` does
            (Dtype::E4m3, -1e6, -448.0),
            (Dtype::E4m3, 0.001953125, 0.001953125), // 2^-9, the smallest subnormal
        ];
        for (dtype, value, held) in cases {
            assert_eq!(dtype.round(value), held, "{dtype:?} {value}");
            let bytes = dtype.encode(&[value]);
            assert_eq!(bytes.len(), dtype.size());
            assert_eq!(dtype.decode(&bytes), [Some(held)], "{dtype:?} {value}");
        }
        // bf16 is the top half of the f32 with the same value.
        let pi = Dtype::Bf16.encode(&[3.140625]);
        assert_eq!(pi, (3.140625f32.to_bits() >> 16).to_le_bytes()[..2]);
    }

    #[test]
    fn canary_bands_table() {
        // No 16-bit band holds the NaN a GPU computes, nor the poison, for any buffer.
        for dtype in [Dtype::Bf16, Dtype::F16] {
            for tag in 0..1000 {
                let bits = dtype.canary_bits(tag);
                assert_ne!(bits, 0x7FFF, "{dtype:?} tag {tag}");
                assert_ne!(bits, dtype.poison_bits(), "{dtype:?} tag {tag}");
            }
        }
        for dtype in [Dtype::F32, Dtype::U32, Dtype::Bf16, Dtype::F16, Dtype::E4m3] {
            let size = dtype.size();
            let mut band = dtype.canary(1, 4);
            assert_eq!(band.len(), 4 * size);
            assert!(dtype.overwritten(1, &band).is_empty());
            assert_eq!(
                dtype.overwritten(2, &band).len(),
                4,
                "another buffer's pattern is a write"
            );
            band[2 * size..3 * size].copy_from_slice(&dtype.encode(&[5.0]));
            assert_eq!(dtype.overwritten(1, &band), [2], "{dtype:?}");
            // A band is never poison, for any buffer, and never a number
            // (e4m3's: a number no sum survives).
            for tag in 0..300 {
                let canary = dtype.canary(tag, 1);
                assert_ne!(canary, dtype.poison(1), "{dtype:?} {tag}");
                let value = dtype.decode(&canary)[0].unwrap();
                match dtype {
                    Dtype::U32 => {}
                    Dtype::E4m3 => assert!((-448.0..=-256.0).contains(&value), "{tag}"),
                    _ => assert!(value.is_nan(), "{dtype:?}"),
                }
            }
        }
        assert_eq!(Dtype::F32.canary(3, 1), 0x7FC0_C003u32.to_le_bytes());
        assert_eq!(Dtype::Bf16.canary(33, 1), [0xE2, 0x7F]); // 33 % 31
        assert_eq!(Dtype::F16.canary(3, 1), [0x03, 0x7F]);
        assert_eq!(Dtype::E4m3.canary(0, 2), [0xFE, 0xFE]);
    }

    #[test]
    fn scalar_types_table() {
        // (type, value, the words of the refusal, or "" where it holds)
        let cases = [
            (Dtype::F32, 0.5, ""),
            (Dtype::U32, 7.0, ""),
            (
                Dtype::U32,
                -1.0,
                "is -1; a u32 holds whole numbers from 0 to 4294967295",
            ),
            (Dtype::I32, 0.5, "is 0.5; an i32 holds whole numbers"),
            (
                Dtype::Bf16,
                1.0,
                "is bf16; scalars are passed as 32-bit words: use f32, i32 or u32",
            ),
            (
                Dtype::F16,
                1.0,
                "is f16; scalars are passed as 32-bit words: use f32, i32 or u32",
            ),
        ];
        for (dtype, value, words) in cases {
            match dtype.holds(value) {
                Ok(()) => assert!(words.is_empty(), "{dtype:?} {value}"),
                Err(why) => {
                    assert!(!words.is_empty(), "{dtype:?} {value}: {why}");
                    assert!(why.to_string().starts_with(words), "{why}");
                }
            }
        }
    }

    #[test]
    fn tolerance_table() {
        // The f32 rule is what it always was; narrow types get twice their unit roundoff.
        let cases = [
            (Dtype::F32, 1e-5),
            (Dtype::I32, 1e-5),
            (Dtype::U32, 1e-5),
            (Dtype::Bf16, 2f64.powi(-7)),
            (Dtype::F16, 2f64.powi(-10)),
            (Dtype::E4m3, 2f64.powi(-3)),
        ];
        for (dtype, tolerance) in cases {
            assert_eq!(dtype.tolerance(), tolerance, "{dtype:?}");
        }
        let names: Vec<&str> = ALL.iter().map(|d| d.name()).collect();
        assert_eq!(names, ["f32", "i32", "u32", "bf16", "f16", "e4m3"]);
        for dtype in ALL {
            let json = serde_json::to_string(&dtype).unwrap();
            assert_eq!(json, format!("\"{}\"", dtype.name()));
            assert_eq!(serde_json::from_str::<Dtype>(&json).unwrap(), dtype);
        }
    }
}
