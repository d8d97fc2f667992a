//! Which instructions the interpreter implements, with the operands it
//! reads: the static scan that names an instruction the checker lacks
//! before anything runs.

use crate::parse::inst::{Inst, Op};

/// Whether the interpreter implements this instruction, with at least the
/// operands it reads (text that is not NVRTC's can have fewer).
pub fn supports(i: &Inst) -> bool {
    let n = i.operands.len();
    let known = match i.op {
        Op::Other => false,
        Op::CpAsync => {
            let ranks = ["1d", "2d", "3d", "4d", "5d"];
            !i.has("bulk") || !i.has("tensor") || ranks.iter().any(|r| i.has(r))
        }
        Op::Mma => i.has("m16n8k16") && !i.has("f64"),
        Op::Wmma => i.has("m16n16k16"),
        Op::Wgmma => {
            let inputs = ["bf16", "f16", "e4m3", "e5m2"];
            !i.has("mma_async") || (i.has("f32") && inputs.iter().any(|t| i.has(t)))
        }
        _ => true,
    };
    let operands = match i.op {
        Op::Bra | Op::Nanosleep | Op::Activemask => 1,
        Op::Mov
        | Op::Ld
        | Op::Ldu
        | Op::St
        | Op::Cvta
        | Op::Not
        | Op::Cnot
        | Op::Abs
        | Op::Neg
        | Op::Popc
        | Op::Clz
        | Op::Brev
        | Op::Bfind
        | Op::Ex2
        | Op::Lg2
        | Op::Rcp
        | Op::Rsqrt
        | Op::Sqrt
        | Op::Sin
        | Op::Cos
        | Op::Tanh
        | Op::Testp
        | Op::Isspacep
        | Op::Ldmatrix
        | Op::Red => 2,
        Op::Cvt => 2,
        Op::Add
        | Op::Sub
        | Op::Mul
        | Op::Div
        | Op::Rem
        | Op::Min
        | Op::Max
        | Op::And
        | Op::Or
        | Op::Xor
        | Op::Shl
        | Op::Shr
        | Op::Setp
        | Op::Atom
        | Op::Copysign
        | Op::Mapa => 3,
        Op::Mad | Op::Fma | Op::Selp | Op::Bfe | Op::Prmt | Op::Mma => 4,
        Op::Printf => 3,
        Op::Bfi | Op::Shfl => 5,
        Op::Vote => 3,
        Op::CpAsync if i.has("tensor") => 3,
        Op::CpAsync if i.has("bulk") => 4,
        Op::CpAsync if i.has("mbarrier") => 1,
        Op::CpAsync if !(i.has("commit_group") || i.has("wait_group") || i.has("wait_all")) => 2,
        Op::Wmma if i.has("mma") => 4,
        Op::Wmma => 2,
        Op::Wgmma if i.has("mma_async") => 4,
        _ => 0,
    };
    known && n >= operands
}
