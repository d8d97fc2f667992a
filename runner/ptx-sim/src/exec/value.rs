//! Values as a thread's registers hold them (raw bits in a u64) and the
//! arithmetic on them: integer, float, comparison and conversion, each as
//! its PTX type says.
//!
//! Approximate instructions (`ex2.approx`, `lg2.approx`, `rcp.approx`,
//! `rsqrt.approx`, `sin/cos.approx`, `tanh.approx`, `div.approx`,
//! `div.full`) are computed correctly rounded in f32 (through libm, the same
//! bits on every platform): within their documented error, so a GPU's
//! result may differ from the checker's in the last bits (ex2.approx: 2
//! ulp; rcp/rsqrt.approx: 1 ulp; div.full: 2 ulp), which the puzzles'
//! tolerance absorbs.

use crate::parse::inst::{Cmp, Inst, Op, Round, Ty, flag};

/// `n` low bits set.
#[inline]
pub fn ones(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Bits of `ty` from a register's raw value.
#[inline]
pub fn mask(v: u64, ty: Ty) -> u64 {
    match ty {
        Ty::Pred => u64::from(v != 0),
        _ => v & ones(ty.bits()),
    }
}

/// Sign-extends the low `bits` of `v` to 64.
pub fn sext(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        return v;
    }
    let s = 64 - bits;
    (((v << s) as i64) >> s) as u64
}

fn f32_of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

fn bits32(f: f32) -> u64 {
    u64::from(f.to_bits())
}

/// Subnormals flushed to a zero of their sign (`.ftz`).
fn ftz(f: f32) -> f32 {
    if f.is_subnormal() {
        0.0f32.copysign(f)
    } else {
        f
    }
}

fn sat(f: f32) -> f32 {
    if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) }
}

/// A comparison of `a` and `b` as `ty`.
pub fn compare(cmp: Cmp, a: u64, b: u64, ty: Ty) -> bool {
    use std::cmp::Ordering::*;
    if ty.float() {
        let (x, y) = match ty {
            Ty::F64 => (f64::from_bits(a), f64::from_bits(b)),
            Ty::F16 => (
                half::f16::from_bits(a as u16).to_f64(),
                half::f16::from_bits(b as u16).to_f64(),
            ),
            Ty::Bf16 => (
                half::bf16::from_bits(a as u16).to_f64(),
                half::bf16::from_bits(b as u16).to_f64(),
            ),
            _ => (f64::from(f32_of(a)), f64::from(f32_of(b))),
        };
        let unordered = x.is_nan() || y.is_nan();
        return match cmp {
            Cmp::Eq => x == y,
            Cmp::Ne => !unordered && x != y,
            Cmp::Lt => x < y,
            Cmp::Le => x <= y,
            Cmp::Gt => x > y,
            Cmp::Ge => x >= y,
            Cmp::Equ => unordered || x == y,
            Cmp::Neu => unordered || x != y,
            Cmp::Ltu => unordered || x < y,
            Cmp::Leu => unordered || x <= y,
            Cmp::Gtu => unordered || x > y,
            Cmp::Geu => unordered || x >= y,
            Cmp::Num => !unordered,
            Cmp::Nan => unordered,
            Cmp::Lo => x < y,
            Cmp::Ls => x <= y,
            Cmp::Hi => x > y,
            Cmp::Hs => x >= y,
        };
    }
    let order = if ty.signed() {
        (sext(a, ty.bits()) as i64).cmp(&(sext(b, ty.bits()) as i64))
    } else {
        a.cmp(&b)
    };
    match cmp {
        Cmp::Eq | Cmp::Equ => order == Equal,
        Cmp::Ne | Cmp::Neu => order != Equal,
        Cmp::Lt | Cmp::Lo | Cmp::Ltu => order == Less,
        Cmp::Le | Cmp::Ls | Cmp::Leu => order != Greater,
        Cmp::Gt | Cmp::Hi | Cmp::Gtu => order == Greater,
        Cmp::Ge | Cmp::Hs | Cmp::Geu => order != Less,
        Cmp::Num => true,
        Cmp::Nan => false,
    }
}

/// A value as f64, from bits of a float type.
fn to_f64(v: u64, ty: Ty) -> f64 {
    match ty {
        Ty::F64 => f64::from_bits(v),
        Ty::F16 => half::f16::from_bits(v as u16).to_f64(),
        Ty::Bf16 => half::bf16::from_bits(v as u16).to_f64(),
        _ => f64::from(f32_of(v)),
    }
}

fn round_f(x: f64, r: Round) -> f64 {
    match r {
        Round::Rzi | Round::Rz => x.trunc(),
        Round::Rmi | Round::Rm => x.floor(),
        Round::Rpi | Round::Rp => x.ceil(),
        _ => {
            let r = x.round();
            // Ties to even.
            if (x - x.trunc()).abs() == 0.5 {
                2.0 * (x / 2.0).round()
            } else {
                r
            }
        }
    }
}

/// `cvt.<round>.<dst>.<src>`: `v` is bits of `src`; the result is bits of `dst`.
pub fn convert(v: u64, src: Ty, dst: Ty, round: Round, saturate: bool, flush: bool) -> u64 {
    if src.float() || dst.float() {
        if src.float() && dst.float() {
            let x = to_f64(v, src);
            let x = if round == Round::Default
                || matches!(round, Round::Rn | Round::Rz | Round::Rm | Round::Rp)
            {
                x
            } else {
                round_f(x, round)
            };
            let out = match dst {
                Ty::F64 => x.to_bits(),
                Ty::F16 => u64::from(half::f16::from_f64(x).to_bits()),
                Ty::Bf16 => u64::from(half::bf16::from_f64(x).to_bits()),
                _ => {
                    let mut f = x as f32;
                    if round == Round::Rz && f64::from(f).abs() > x.abs() {
                        f = f32::from_bits(f.to_bits() - 1);
                    }
                    if flush {
                        f = ftz(f);
                    }
                    if saturate {
                        f = sat(f);
                    }
                    bits32(f)
                }
            };
            return out;
        }
        if src.float() {
            // Float to integer: round as told (default: toward zero), saturate to the range.
            let x = to_f64(v, src);
            if x.is_nan() {
                return 0;
            }
            let x = round_f(
                x,
                if round == Round::Default {
                    Round::Rzi
                } else {
                    round
                },
            );
            let bits = dst.bits();
            return if dst.signed() {
                let lo = -(2f64.powi(bits as i32 - 1));
                let hi = 2f64.powi(bits as i32 - 1) - 1.0;
                (x.clamp(lo, hi) as i64 as u64) & ones(bits)
            } else {
                (x.clamp(0.0, 2f64.powi(bits as i32) - 1.0) as u64) & ones(bits)
            };
        }
        // Integer to float.
        let x = if src.signed() {
            sext(v, src.bits()) as i64 as f64
        } else {
            v as f64
        };
        return match dst {
            Ty::F64 => x.to_bits(),
            Ty::F16 => u64::from(half::f16::from_f64(x).to_bits()),
            Ty::Bf16 => u64::from(half::bf16::from_f64(x).to_bits()),
            _ => {
                // u32/i32 → f32 rounds once (f64 holds them exactly); 64-bit
                // integers go through i64/u64 casts, which round to nearest.
                let f = if src.bits() == 64 {
                    if src.signed() {
                        sext(v, 64) as i64 as f32
                    } else {
                        v as f32
                    }
                } else {
                    x as f32
                };
                bits32(f)
            }
        };
    }
    // Integer to integer: sign- or zero-extend from the source, cut to the destination.
    let wide = if src.signed() {
        sext(v, src.bits())
    } else {
        v & ones(src.bits())
    };
    if saturate {
        let (lo, hi): (i128, i128) = if dst.signed() {
            (
                -(1i128 << (dst.bits() - 1)),
                (1i128 << (dst.bits() - 1)) - 1,
            )
        } else {
            (0, (1i128 << dst.bits()) - 1)
        };
        let x = if src.signed() {
            wide as i64 as i128
        } else {
            wide as i128
        };
        return (x.clamp(lo, hi) as u64) & ones(dst.bits());
    }
    wide & ones(dst.bits())
}

/// The arithmetic and bit operations: `args` are the source operands'
/// bits (as the instruction's type); `None` where not implemented.
pub fn arith(i: &Inst, args: &[u64]) -> Option<u64> {
    let ty = i.ty;
    let a = *args.first().unwrap_or(&0);
    let b = *args.get(1).unwrap_or(&0);
    let c = *args.get(2).unwrap_or(&0);
    if ty == Ty::F32 {
        let fz = |f: f32| if i.flag(flag::FTZ) { ftz(f) } else { f };
        let (x, y, z) = (fz(f32_of(a)), fz(f32_of(b)), fz(f32_of(c)));
        let r = match i.op {
            Op::Add => round32(f64::from(x) + f64::from(y), i.round, x + y),
            Op::Sub => round32(f64::from(x) - f64::from(y), i.round, x - y),
            Op::Mul => round32(f64::from(x) * f64::from(y), i.round, x * y),
            Op::Fma | Op::Mad => {
                let exact = libm::fmaf(x, y, z);
                match i.round {
                    Round::Rm | Round::Rp | Round::Rz => {
                        round32(f64::from(x) * f64::from(y) + f64::from(z), i.round, exact)
                    }
                    _ => exact,
                }
            }
            Op::Div => x / y,
            Op::Abs => x.abs(),
            Op::Neg => -x,
            Op::Min => minf(x, y),
            Op::Max => maxf(x, y),
            Op::Ex2 => libm::exp2f(x),
            Op::Lg2 => libm::log2f(x),
            Op::Rcp => 1.0 / x,
            Op::Rsqrt => 1.0 / libm::sqrtf(x),
            Op::Sqrt => libm::sqrtf(x),
            Op::Sin => libm::sinf(x),
            Op::Cos => libm::cosf(x),
            Op::Tanh => libm::tanhf(x),
            Op::Copysign => y.copysign(x),
            Op::Testp => return Some(u64::from(testp(i, f64::from(x)))),
            _ => return int_op(i, args),
        };
        let r = fz(r);
        let r = if i.flag(flag::SAT) { sat(r) } else { r };
        return Some(bits32(r));
    }
    if ty == Ty::F64 {
        let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        let r = match i.op {
            Op::Add => x + y,
            Op::Sub => x - y,
            Op::Mul => x * y,
            Op::Fma | Op::Mad => libm::fma(x, y, z),
            Op::Div => x / y,
            Op::Abs => x.abs(),
            Op::Neg => -x,
            Op::Min => x.min(y),
            Op::Max => x.max(y),
            Op::Rcp => 1.0 / x,
            Op::Sqrt => x.sqrt(),
            Op::Rsqrt => 1.0 / x.sqrt(),
            _ => return int_op(i, args),
        };
        return Some(r.to_bits());
    }
    if matches!(ty, Ty::Bf16 | Ty::F16 | Ty::Bf16x2 | Ty::F16x2) {
        return half_op(i, args);
    }
    int_op(i, args)
}

fn minf(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else {
        x.min(y)
    }
}

fn maxf(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else {
        x.max(y)
    }
}

/// An f32 result under a directed rounding (`.rm`, `.rp`, `.rz`) from its exact
/// f64 value; `nearest` is the round-to-nearest result.
fn round32(exact: f64, r: Round, nearest: f32) -> f32 {
    let up = |f: f32| {
        if f.is_nan() || f == f32::INFINITY {
            f
        } else {
            next_up(f)
        }
    };
    let down = |f: f32| {
        if f.is_nan() || f == f32::NEG_INFINITY {
            f
        } else {
            -next_up(-f)
        }
    };
    let n = f64::from(nearest);
    match r {
        Round::Rm if n > exact => down(nearest),
        Round::Rp if n < exact => up(nearest),
        Round::Rz if n.abs() > exact.abs() => {
            if nearest > 0.0 {
                down(nearest)
            } else {
                up(nearest)
            }
        }
        _ => nearest,
    }
}

fn next_up(f: f32) -> f32 {
    if f == 0.0 {
        return f32::from_bits(1);
    }
    let b = f.to_bits();
    f32::from_bits(if f > 0.0 { b + 1 } else { b - 1 })
}

fn testp(i: &Inst, x: f64) -> bool {
    if i.has("finite") {
        x.is_finite()
    } else if i.has("infinite") {
        x.is_infinite()
    } else if i.has("number") {
        !x.is_nan()
    } else if i.has("notanumber") {
        x.is_nan()
    } else if i.has("normal") {
        x.is_normal()
    } else {
        x.is_subnormal()
    }
}

/// bf16 and f16 arithmetic, scalar or two to a register, through f32.
fn half_op(i: &Inst, args: &[u64]) -> Option<u64> {
    let pairs = matches!(i.ty, Ty::Bf16x2 | Ty::F16x2);
    let bf = matches!(i.ty, Ty::Bf16 | Ty::Bf16x2);
    let get = |v: u64, k: u32| {
        let h = (v >> (16 * k)) as u16;
        if bf {
            half::bf16::from_bits(h).to_f32()
        } else {
            half::f16::from_bits(h).to_f32()
        }
    };
    let put = |f: f32| -> u64 {
        if bf {
            u64::from(half::bf16::from_f32(f).to_bits())
        } else {
            u64::from(half::f16::from_f32(f).to_bits())
        }
    };
    let mut out = 0u64;
    for k in 0..if pairs { 2 } else { 1 } {
        let x = get(*args.first()?, k);
        let y = args.get(1).map_or(0.0, |&b| get(b, k));
        let z = args.get(2).map_or(0.0, |&c| get(c, k));
        let r = match i.op {
            Op::Add => x + y,
            Op::Sub => x - y,
            Op::Mul => x * y,
            Op::Fma => libm::fmaf(x, y, z),
            Op::Neg => -x,
            Op::Abs => x.abs(),
            Op::Min => minf(x, y),
            Op::Max => maxf(x, y),
            _ => return None,
        };
        out |= put(r) << (16 * k);
    }
    Some(out)
}

fn int_op(i: &Inst, args: &[u64]) -> Option<u64> {
    let ty = i.ty;
    let bits = ty.bits().min(64);
    let signed = ty.signed();
    let a = *args.first().unwrap_or(&0);
    let b = *args.get(1).unwrap_or(&0);
    let c = *args.get(2).unwrap_or(&0);
    let sa = sext(a, bits) as i64;
    let sb = sext(b, bits) as i64;
    let m = ones(bits);
    // Products: .lo, .hi, .wide.
    let product = |x: u64, y: u64| -> (u128, u32) {
        if signed {
            (
                (i128::from(sext(x, bits) as i64) * i128::from(sext(y, bits) as i64)) as u128,
                bits,
            )
        } else {
            (u128::from(x) * u128::from(y), bits)
        }
    };
    let pick = |p: u128, bits: u32| -> u64 {
        if i.flag(flag::WIDE) {
            (p as u64) & ones(bits * 2)
        } else if i.flag(flag::HI) {
            ((p >> bits) as u64) & ones(bits)
        } else {
            (p as u64) & ones(bits)
        }
    };
    Some(match i.op {
        Op::Add => a.wrapping_add(b) & m,
        Op::Sub => a.wrapping_sub(b) & m,
        Op::Mul => {
            let (p, bits) = product(a, b);
            pick(p, bits)
        }
        Op::Mad => {
            let (p, bits) = product(a, b);
            let wide = i.flag(flag::WIDE);
            let v = pick(p, bits);
            let out_bits = if wide { bits * 2 } else { bits };
            v.wrapping_add(c) & ones(out_bits)
        }
        Op::Div => {
            if b & m == 0 {
                m
            } else if signed {
                (sa.wrapping_div(sb) as u64) & m
            } else {
                (a & m) / (b & m)
            }
        }
        Op::Rem => {
            if b & m == 0 {
                a & m
            } else if signed {
                (sa.wrapping_rem(sb) as u64) & m
            } else {
                (a & m) % (b & m)
            }
        }
        Op::Abs => (sa.unsigned_abs()) & m,
        Op::Neg => (a.wrapping_neg()) & m,
        Op::Min => {
            if signed {
                (sa.min(sb) as u64) & m
            } else {
                a.min(b)
            }
        }
        Op::Max => {
            if signed {
                (sa.max(sb) as u64) & m
            } else {
                a.max(b)
            }
        }
        Op::And => a & b,
        Op::Or => a | b,
        Op::Xor => a ^ b,
        Op::Not => {
            if ty == Ty::Pred {
                u64::from(a == 0)
            } else {
                !a & m
            }
        }
        Op::Cnot => u64::from(a == 0),
        // The shift amount is a .u32 operand, whatever the value's width.
        Op::Shl => {
            let s = b & 0xFFFF_FFFF;
            if s >= u64::from(bits) {
                0
            } else {
                (a << s) & m
            }
        }
        Op::Shr => {
            let s = (b & 0xFFFF_FFFF).min(u64::from(bits));
            if signed {
                if s >= u64::from(bits) {
                    if sa < 0 { m } else { 0 }
                } else {
                    ((sa >> s) as u64) & m
                }
            } else if s >= u64::from(bits) {
                0
            } else {
                (a & m) >> s
            }
        }
        Op::Popc => u64::from((a & m).count_ones()),
        Op::Clz => u64::from((a & m).leading_zeros() - (64 - bits)),
        Op::Brev => ((a & m).reverse_bits() >> (64 - bits)) & m,
        Op::Bfind => {
            let v = if signed && sa < 0 { !a & m } else { a & m };
            if v == 0 {
                u64::from(u32::MAX)
            } else {
                let msb = 63 - v.leading_zeros();
                u64::from(if i.flag(flag::SHIFTAMT) {
                    bits - 1 - msb
                } else {
                    msb
                })
            }
        }
        Op::Bfe => {
            let pos = b & 0xFF;
            let len = c & 0xFF;
            if len == 0 || pos >= u64::from(bits) {
                0
            } else {
                let len = len.min(u64::from(bits) - pos);
                let field = (a >> pos) & ones(len as u32);
                if signed {
                    sext(field, len as u32) & m
                } else {
                    field
                }
            }
        }
        Op::Bfi => {
            // bfi d, a (field), b (base), c (pos), d (len).
            let pos = c & 0xFF;
            let len = args.get(3).copied().unwrap_or(0) & 0xFF;
            if len == 0 || pos >= u64::from(bits) {
                b & m
            } else {
                let fm = ones(len.min(u64::from(bits) - pos) as u32) << pos;
                ((b & !fm) | ((a << pos) & fm)) & m
            }
        }
        Op::Prmt => {
            let bytes = (u64::from(b as u32) << 32) | u64::from(a as u32);
            let mut out = 0u64;
            for k in 0..4 {
                let sel = (c >> (4 * k)) & 0xF;
                let byte = (bytes >> (8 * (sel & 7))) & 0xFF;
                let byte = if sel & 8 != 0 {
                    if byte & 0x80 != 0 { 0xFF } else { 0 }
                } else {
                    byte
                };
                out |= byte << (8 * k);
            }
            out
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_table() {
        let f = |x: f32| u64::from(x.to_bits());
        let cases = [
            (f(2.7), Ty::F32, Ty::S32, Round::Rzi, 2u64),
            (
                f(-2.5),
                Ty::F32,
                Ty::S32,
                Round::Rni,
                (-2i64 as u64) & ones(32),
            ),
            (f(3.5), Ty::F32, Ty::S32, Round::Rni, 4),
            (f(-1.0), Ty::F32, Ty::U32, Round::Rzi, 0),
            (7, Ty::U32, Ty::F32, Round::Rn, f(7.0)),
            (
                (-3i64 as u64) & ones(32),
                Ty::S32,
                Ty::S64,
                Round::Default,
                -3i64 as u64,
            ),
            (0xFFFF_FFFF, Ty::U32, Ty::U64, Round::Default, 0xFFFF_FFFF),
            (0x1_2345_6789, Ty::U64, Ty::U32, Round::Default, 0x2345_6789),
            (f(1.0), Ty::F32, Ty::Bf16, Round::Rn, 0x3F80),
            (0x3F80, Ty::Bf16, Ty::F32, Round::Default, f(1.0)),
        ];
        for (v, src, dst, round, want) in cases {
            assert_eq!(
                convert(v, src, dst, round, false, false),
                want,
                "{v:#x} {src:?}->{dst:?}"
            );
        }
    }

    #[test]
    fn comparisons_table() {
        let n = u64::from(f32::NAN.to_bits());
        let one = u64::from(1.0f32.to_bits());
        let cases = [
            (Cmp::Lt, (-1i64 as u64) & ones(32), 1, Ty::S32, true),
            (Cmp::Lt, (-1i64 as u64) & ones(32), 1, Ty::U32, false),
            (Cmp::Ne, n, one, Ty::F32, false),
            (Cmp::Neu, n, one, Ty::F32, true),
            (Cmp::Geu, n, one, Ty::F32, true),
            (Cmp::Ge, n, one, Ty::F32, false),
        ];
        for (cmp, a, b, ty, want) in cases {
            assert_eq!(compare(cmp, a, b, ty), want, "{cmp:?} {ty:?}");
        }
    }
}
