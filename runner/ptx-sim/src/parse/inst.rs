//! One PTX instruction's text to an [`Inst`]: its guard predicate, its
//! opcode split into the base operation and its modifiers (types, state
//! space, rounding, vector width, comparison), and its operands.

use crate::launch::DecodeError;

/// The operations the checker knows, by their base name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Mad,
    Fma,
    Div,
    Rem,
    Abs,
    Neg,
    Min,
    Max,
    And,
    Or,
    Xor,
    Not,
    Cnot,
    Shl,
    Shr,
    Setp,
    Selp,
    Mov,
    Ld,
    St,
    Ldu,
    Cvt,
    Cvta,
    Bra,
    Ret,
    Exit,
    Bar,
    Barrier,
    Shfl,
    Vote,
    Atom,
    Red,
    Ex2,
    Lg2,
    Rcp,
    Rsqrt,
    Sqrt,
    Sin,
    Cos,
    Tanh,
    Popc,
    Clz,
    Brev,
    Bfind,
    Bfe,
    Bfi,
    Prmt,
    Copysign,
    Testp,
    Isspacep,
    Membar,
    Fence,
    CpAsync,
    Mbarrier,
    Nanosleep,
    Prefetch,
    Ldmatrix,
    Mma,
    Wmma,
    Wgmma,
    /// `setmaxnreg`: registers moved between warpgroups. It changes what
    /// the hardware allots, not what a thread computes: nothing to model.
    Setmaxnreg,
    Mapa,
    Activemask,
    /// CUDA's `printf` (a `call` of `vprintf`): the format's address, the
    /// arguments' address, and the register that gets the result.
    Printf,
    Other,
}

/// A value type named by a modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ty {
    #[default]
    None,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    F32,
    F64,
    Pred,
}

impl Ty {
    fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "b8" => Ty::B8,
            "b16" => Ty::B16,
            "b32" => Ty::B32,
            "b64" => Ty::B64,
            "b128" => Ty::B128,
            "u8" => Ty::U8,
            "u16" => Ty::U16,
            "u32" => Ty::U32,
            "u64" => Ty::U64,
            "s8" => Ty::S8,
            "s16" => Ty::S16,
            "s32" => Ty::S32,
            "s64" => Ty::S64,
            "f16" => Ty::F16,
            "f16x2" => Ty::F16x2,
            "bf16" => Ty::Bf16,
            "bf16x2" => Ty::Bf16x2,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            "pred" => Ty::Pred,
            _ => return None,
        })
    }

    /// Bits of a value of this type.
    #[inline]
    pub fn bits(self) -> u32 {
        match self {
            Ty::B8 | Ty::U8 | Ty::S8 | Ty::Pred => 8,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 | Ty::Bf16 => 16,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 | Ty::F16x2 | Ty::Bf16x2 => 32,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 | Ty::None => 64,
            Ty::B128 => 128,
        }
    }

    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    pub fn signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    pub fn float(self) -> bool {
        matches!(self, Ty::F16 | Ty::Bf16 | Ty::F32 | Ty::F64)
    }
}

/// A state space named by a modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Space {
    /// No space named: a generic address.
    #[default]
    Generic,
    Global,
    Shared,
    /// `shared::cluster`: a shared address of any block of the cluster.
    SharedCluster,
    Local,
    Param,
    Const,
}

/// Scopes live with the race rule, which compares them.
pub use crate::hazard::Scope;

/// Rounding of float results and conversions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Round {
    #[default]
    Default,
    Rn,
    Rz,
    Rm,
    Rp,
    /// To an integer value: nearest even, toward zero, down, up.
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

/// `setp`'s comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

/// Modifiers the interpreter asks about, as bits.
pub mod flag {
    pub const FTZ: u32 = 1;
    pub const SAT: u32 = 1 << 1;
    pub const APPROX: u32 = 1 << 2;
    pub const WIDE: u32 = 1 << 3;
    pub const HI: u32 = 1 << 4;
    pub const LO: u32 = 1 << 5;
    pub const ACQUIRE: u32 = 1 << 6;
    pub const RELEASE: u32 = 1 << 7;
    pub const VOLATILE: u32 = 1 << 8;
    pub const TRANS: u32 = 1 << 9;
    pub const SHIFTAMT: u32 = 1 << 10;
    pub const CC: u32 = 1 << 11;
    pub const AND: u32 = 1 << 12;
    pub const OR: u32 = 1 << 13;
    pub const XOR: u32 = 1 << 14;
    pub const RELAXED: u32 = 1 << 15;
    pub const FULL: u32 = 1 << 16;
}

/// An instruction's operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Reg(u16),
    /// `!%p`: a predicate, negated.
    NotReg(u16),
    /// An integer or float immediate, as raw bits (`0f3F800000` is f32 bits).
    Imm(u64),
    /// A decimal float immediate (`1.5`), converted to the instruction's type.
    Float(f64),
    /// `[base+offset]`.
    Mem(Box<Operand>, i64),
    /// `{a, b, c, d}`.
    Vector(Vec<Operand>),
    Special(Sreg),
    /// A variable, parameter or (before resolution) label, by name.
    Symbol(String),
    /// A resolved address (a symbol's, once the launch lays memory out).
    Addr(u64),
    /// A branch target: an instruction number.
    Label(usize),
    /// `_`: a result nobody reads.
    Sink,
}

/// Special registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sreg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    Laneid,
    Warpid,
    Nwarpid,
    Clock,
    Clock64,
    GlobalTimer,
    LanemaskLt,
    LanemaskLe,
    LanemaskEq,
    LanemaskGe,
    LanemaskGt,
    ClusterCtarank,
    ClusterNctarank,
    ClusterCtaid(u8),
    ClusterNctaid(u8),
    Clusterid(u8),
    Nclusterid(u8),
    Smid,
    DynamicSmemSize,
}

/// One decoded instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Inst {
    /// The opcode as written (`ld.global.v4.f32`), for messages.
    pub text: String,
    /// The base operation's name (`mbarrier`, `cp`).
    pub base: String,
    pub op: Op,
    /// Every modifier, in order (`global`, `v4`, `f32`).
    pub mods: Vec<String>,
    pub guard: Option<(u16, bool)>,
    /// The last type modifier; `ty2` the one before it (`cvt.f32.s32`: f32, s32).
    pub ty: Ty,
    pub ty2: Ty,
    pub space: Space,
    pub scope: Scope,
    /// `.v2`, `.v4`: values per access (1 otherwise).
    pub vec: u8,
    pub round: Round,
    pub cmp: Option<Cmp>,
    pub flags: u32,
    pub operands: Vec<Operand>,
    /// The CUDA source line (0: unknown).
    pub line: u32,
}

impl Inst {
    pub fn has(&self, m: &str) -> bool {
        self.mods.iter().any(|x| x == m)
    }

    pub fn flag(&self, f: u32) -> bool {
        self.flags & f != 0
    }
}

/// An immediate's bits: decimal and hex integers, `0f` (f32) and `0d` (f64) floats.
pub fn immediate(s: &str) -> Option<u64> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let bits = if let Some(h) = body.strip_prefix("0f").or_else(|| body.strip_prefix("0F")) {
        u64::from(u32::from_str_radix(h, 16).ok()?)
    } else if let Some(h) = body.strip_prefix("0d").or_else(|| body.strip_prefix("0D")) {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h.trim_end_matches(['U', 'u']), 16).ok()?
    } else {
        body.trim_end_matches(['U', 'u']).parse::<u64>().ok()?
    };
    Some(if neg { bits.wrapping_neg() } else { bits })
}

fn sreg(name: &str) -> Option<Sreg> {
    let (base, axis) = match name.rsplit_once('.') {
        Some((b, a)) => (
            b,
            match a {
                "x" => Some(0),
                "y" => Some(1),
                "z" => Some(2),
                _ => None,
            },
        ),
        None => (name, None),
    };
    Some(match (base, axis) {
        ("%tid", Some(a)) => Sreg::Tid(a),
        ("%ntid", Some(a)) => Sreg::Ntid(a),
        ("%ctaid", Some(a)) => Sreg::Ctaid(a),
        ("%nctaid", Some(a)) => Sreg::Nctaid(a),
        ("%cluster_ctaid", Some(a)) => Sreg::ClusterCtaid(a),
        ("%cluster_nctaid", Some(a)) => Sreg::ClusterNctaid(a),
        ("%clusterid", Some(a)) => Sreg::Clusterid(a),
        ("%nclusterid", Some(a)) => Sreg::Nclusterid(a),
        _ => match name {
            "%laneid" => Sreg::Laneid,
            "%warpid" => Sreg::Warpid,
            "%nwarpid" => Sreg::Nwarpid,
            "%clock" => Sreg::Clock,
            "%clock64" => Sreg::Clock64,
            "%globaltimer" => Sreg::GlobalTimer,
            "%lanemask_lt" => Sreg::LanemaskLt,
            "%lanemask_le" => Sreg::LanemaskLe,
            "%lanemask_eq" => Sreg::LanemaskEq,
            "%lanemask_ge" => Sreg::LanemaskGe,
            "%lanemask_gt" => Sreg::LanemaskGt,
            "%cluster_ctarank" => Sreg::ClusterCtarank,
            "%cluster_nctarank" => Sreg::ClusterNctarank,
            "%smid" => Sreg::Smid,
            "%dynamic_smem_size" => Sreg::DynamicSmemSize,
            _ => return None,
        },
    })
}

/// Splits operands at top-level commas (not inside `{}` or `[]`).
fn split_operands(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(s[start..].trim());
    }
    out
}

/// Decodes one operand; registers are numbered through `reg`.
fn operand(
    s: &str,
    reg: &mut dyn FnMut(&str, bool) -> Option<u16>,
) -> Result<Operand, DecodeError> {
    let s = s.trim();
    if s == "_" {
        return Ok(Operand::Sink);
    }
    if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let inner = inner.trim();
        // `[tensor_map, {x, y}]`: a TMA operand, kept as a vector.
        if inner.contains(',') {
            let parts = split_operands(inner)
                .into_iter()
                .map(|p| operand(p, reg))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Operand::Mem(Box::new(Operand::Vector(parts)), 0));
        }
        // base, base+off, base+-off, base-off, or an absolute address.
        let first = inner.chars().next().map_or(0, char::len_utf8);
        let cut = inner[first..].find(['+', '-']).map(|i| i + first);
        let (base, off) = match cut {
            Some(i) => {
                let off_text = inner[i..].replace("+-", "-").replace('+', "");
                let off =
                    immediate(&off_text).ok_or_else(|| DecodeError::Offset(inner.to_string()))?;
                (&inner[..i], off as i64)
            }
            None => (inner, 0),
        };
        let base = match immediate(base) {
            Some(a) => Operand::Imm(a),
            None => operand(base, reg)?,
        };
        return Ok(Operand::Mem(Box::new(base), off));
    }
    if let Some(inner) = s.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        let parts = split_operands(inner)
            .into_iter()
            .map(|p| operand(p, reg))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Operand::Vector(parts));
    }
    if let Some(r) = s.strip_prefix('!') {
        return match operand(r, reg)? {
            Operand::Reg(n) => Ok(Operand::NotReg(n)),
            _ => Err(DecodeError::NotPredicate(s.to_string())),
        };
    }
    if s.starts_with('%') {
        if let Some(sr) = sreg(s) {
            return Ok(Operand::Special(sr));
        }
        return reg(s, false)
            .map(Operand::Reg)
            .ok_or(DecodeError::TooManyRegisters);
    }
    if let Some(bits) = immediate(s) {
        return Ok(Operand::Imm(bits));
    }
    if s.contains('.')
        && let Ok(f) = s.parse::<f64>()
    {
        return Ok(Operand::Float(f));
    }
    if s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$') {
        // `sym+4` in a mov: an address and an offset.
        if let Some((name, off)) = s.split_once('+')
            && let Some(off) = immediate(off)
        {
            return Ok(Operand::Mem(
                Box::new(Operand::Symbol(name.trim().to_string())),
                off as i64,
            ));
        }
        // A register declared in an inline asm scope has no `%`.
        if let Some(r) = reg(s, true) {
            return Ok(Operand::Reg(r));
        }
        return Ok(Operand::Symbol(s.to_string()));
    }
    Err(DecodeError::Operand(s.to_string()))
}

/// Decodes `[@[!]%p] opcode.mods operands` at CUDA line `line`.
pub fn decode(
    text: &str,
    line: u32,
    reg: &mut dyn FnMut(&str, bool) -> Option<u16>,
) -> Result<Inst, DecodeError> {
    let mut rest = text.trim();
    let mut guard = None;
    if let Some(g) = rest.strip_prefix('@') {
        let end = g
            .find(char::is_whitespace)
            .ok_or(DecodeError::GuardWithoutInstruction)?;
        let (neg, name) = match g[..end].strip_prefix('!') {
            Some(n) => (true, n),
            None => (false, &g[..end]),
        };
        let r = reg(name, !name.starts_with('%')).ok_or(DecodeError::GuardNotPredicate)?;
        guard = Some((r, neg));
        rest = g[end..].trim_start();
    }
    let (opcode, args) = match rest.find(char::is_whitespace) {
        Some(i) => (&rest[..i], rest[i..].trim()),
        None => (rest, ""),
    };
    let mut parts = opcode.split('.');
    let base = parts.next().unwrap_or_default().to_string();
    let mods: Vec<String> = parts.map(str::to_string).collect();
    let op = match base.as_str() {
        "add" => Op::Add,
        "sub" => Op::Sub,
        "mul" => Op::Mul,
        "mad" => Op::Mad,
        "fma" => Op::Fma,
        "div" => Op::Div,
        "rem" => Op::Rem,
        "abs" => Op::Abs,
        "neg" => Op::Neg,
        "min" => Op::Min,
        "max" => Op::Max,
        "and" => Op::And,
        "or" => Op::Or,
        "xor" => Op::Xor,
        "not" => Op::Not,
        "cnot" => Op::Cnot,
        "shl" => Op::Shl,
        "shr" => Op::Shr,
        "setp" => Op::Setp,
        "selp" => Op::Selp,
        "mov" => Op::Mov,
        "ld" => Op::Ld,
        "ldu" => Op::Ldu,
        "st" => Op::St,
        "cvt" => Op::Cvt,
        "cvta" => Op::Cvta,
        "bra" => Op::Bra,
        "ret" => Op::Ret,
        "exit" => Op::Exit,
        "bar" => Op::Bar,
        "barrier" => Op::Barrier,
        "shfl" => Op::Shfl,
        "vote" => Op::Vote,
        "atom" => Op::Atom,
        "red" => Op::Red,
        "ex2" => Op::Ex2,
        "lg2" => Op::Lg2,
        "rcp" => Op::Rcp,
        "rsqrt" => Op::Rsqrt,
        "sqrt" => Op::Sqrt,
        "sin" => Op::Sin,
        "cos" => Op::Cos,
        "tanh" => Op::Tanh,
        "popc" => Op::Popc,
        "clz" => Op::Clz,
        "brev" => Op::Brev,
        "bfind" => Op::Bfind,
        "bfe" => Op::Bfe,
        "bfi" => Op::Bfi,
        "prmt" => Op::Prmt,
        "copysign" => Op::Copysign,
        "testp" => Op::Testp,
        "isspacep" => Op::Isspacep,
        "membar" => Op::Membar,
        "fence" => Op::Fence,
        "cp" => Op::CpAsync,
        "mbarrier" => Op::Mbarrier,
        "nanosleep" => Op::Nanosleep,
        "prefetch" | "prefetchu" | "applypriority" | "discard" | "createpolicy" => Op::Prefetch,
        "ldmatrix" => Op::Ldmatrix,
        "mma" => Op::Mma,
        "wmma" => Op::Wmma,
        "wgmma" => Op::Wgmma,
        "setmaxnreg" => Op::Setmaxnreg,
        "mapa" => Op::Mapa,
        "activemask" => Op::Activemask,
        _ => Op::Other,
    };
    let mut inst = Inst {
        text: opcode.to_string(),
        base,
        op,
        mods,
        guard,
        ty: Ty::None,
        ty2: Ty::None,
        space: Space::Generic,
        scope: Scope::Gpu,
        vec: 1,
        round: Round::Default,
        cmp: None,
        flags: 0,
        operands: Vec::new(),
        line,
    };
    for m in &inst.mods {
        if let Some(t) = Ty::parse(m) {
            inst.ty2 = inst.ty;
            inst.ty = t;
            continue;
        }
        match m.as_str() {
            "global" => inst.space = Space::Global,
            "shared" | "shared::cta" => inst.space = Space::Shared,
            "shared::cluster" => inst.space = Space::SharedCluster,
            "local" => inst.space = Space::Local,
            "param" => inst.space = Space::Param,
            "const" => inst.space = Space::Const,
            "cta" => inst.scope = Scope::Cta,
            "cluster" => inst.scope = Scope::Cluster,
            "gpu" | "gl" => inst.scope = Scope::Gpu,
            "sys" => inst.scope = Scope::Sys,
            "v2" => inst.vec = 2,
            "v4" => inst.vec = 4,
            "v8" => inst.vec = 8,
            "rn" => inst.round = Round::Rn,
            "rz" => inst.round = Round::Rz,
            "rm" => inst.round = Round::Rm,
            "rp" => inst.round = Round::Rp,
            "rni" => inst.round = Round::Rni,
            "rzi" => inst.round = Round::Rzi,
            "rmi" => inst.round = Round::Rmi,
            "rpi" => inst.round = Round::Rpi,
            "ftz" => inst.flags |= flag::FTZ,
            "sat" => inst.flags |= flag::SAT,
            "approx" => inst.flags |= flag::APPROX,
            "full" => inst.flags |= flag::FULL,
            "wide" => inst.flags |= flag::WIDE,
            "hi" => inst.flags |= flag::HI,
            "lo" => inst.flags |= flag::LO,
            "acquire" => inst.flags |= flag::ACQUIRE,
            "release" => inst.flags |= flag::RELEASE,
            "acq_rel" => inst.flags |= flag::ACQUIRE | flag::RELEASE,
            "relaxed" => inst.flags |= flag::RELAXED,
            "volatile" => inst.flags |= flag::VOLATILE,
            "trans" => inst.flags |= flag::TRANS,
            "shiftamt" => inst.flags |= flag::SHIFTAMT,
            "cc" => inst.flags |= flag::CC,
            "and" if inst.op == Op::Setp => inst.flags |= flag::AND,
            "or" if inst.op == Op::Setp => inst.flags |= flag::OR,
            "xor" if inst.op == Op::Setp => inst.flags |= flag::XOR,
            other if inst.op == Op::Setp => {
                inst.cmp = Some(match other {
                    "eq" => Cmp::Eq,
                    "ne" => Cmp::Ne,
                    "lt" => Cmp::Lt,
                    "le" => Cmp::Le,
                    "gt" => Cmp::Gt,
                    "ge" => Cmp::Ge,
                    "lo" => Cmp::Lo,
                    "ls" => Cmp::Ls,
                    "hi" => Cmp::Hi,
                    "hs" => Cmp::Hs,
                    "equ" => Cmp::Equ,
                    "neu" => Cmp::Neu,
                    "ltu" => Cmp::Ltu,
                    "leu" => Cmp::Leu,
                    "gtu" => Cmp::Gtu,
                    "geu" => Cmp::Geu,
                    "num" => Cmp::Num,
                    "nan" => Cmp::Nan,
                    _ => continue,
                })
            }
            _ => {}
        }
    }
    // `setp.lt.s32 %p1|%p2, a, b`: the second result is the complement.
    let args = args.replace('|', ",");
    inst.operands = split_operands(&args)
        .into_iter()
        .map(|o| operand(o, reg))
        .collect::<Result<_, _>>()?;
    Ok(inst)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn dec(text: &str) -> Inst {
        let mut names: HashMap<String, u16> = HashMap::new();
        let mut reg = |n: &str, declared: bool| {
            if declared {
                return names.get(n).copied();
            }
            let k = names.len() as u16;
            Some(*names.entry(n.to_string()).or_insert(k))
        };
        decode(text, 7, &mut reg).expect(text)
    }

    #[test]
    fn immediates_table() {
        let cases = [
            ("10", Some(10)),
            ("-4", Some((-4i64) as u64)),
            ("0f41200000", Some(0x4120_0000)),
            ("0d3FF0000000000000", Some(0x3FF0_0000_0000_0000)),
            ("0xffffffff", Some(0xffff_ffff)),
            ("-1U", Some(u64::MAX)),
            ("x", None),
        ];
        for (text, want) in cases {
            assert_eq!(immediate(text), want, "{text}");
        }
    }

    #[test]
    fn instructions_decode_table() {
        let i = dec("@!%p1 ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd6+16]");
        assert_eq!(
            (i.op, i.space, i.vec, i.ty),
            (Op::Ld, Space::Global, 4, Ty::F32)
        );
        assert_eq!(i.guard, Some((0, true)));
        assert!(matches!(&i.operands[0], Operand::Vector(v) if v.len() == 4));
        assert!(matches!(&i.operands[1], Operand::Mem(_, 16)));
        let i = dec("cvt.rn.f32.s32 %f1, %r1");
        assert_eq!((i.ty, i.ty2, i.round), (Ty::S32, Ty::F32, Round::Rn));
        let i = dec("setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3");
        assert_eq!((i.cmp, i.flags & flag::AND), (Some(Cmp::Lt), flag::AND));
        assert_eq!(i.operands.len(), 5);
        assert!(matches!(i.operands[4], Operand::NotReg(_)));
        let i = dec("st.shared.u32 [%r1+-4], %r2");
        assert!(matches!(&i.operands[0], Operand::Mem(_, -4)));
        let i = dec("mov.u32 %r1, %tid.x");
        assert_eq!(i.operands[1], Operand::Special(Sreg::Tid(0)));
        let i = dec("mbarrier.try_wait.parity.shared::cta.b64 %p, [%r97], %r98");
        assert!(matches!(i.operands[0], Operand::Reg(_)));
        let i = dec("mbarrier.try_wait.parity.shared::cta.b64 p, [%r97], %r98");
        assert_eq!((i.op, i.space), (Op::Mbarrier, Space::Shared));
        let i = dec("mbarrier.arrive.shared::cta.b64 _, [%r1]");
        assert_eq!(i.operands[0], Operand::Sink);
    }

    /// Scopes as NVRTC writes them (libcu++'s inline asm has no space after
    /// the comma), and fences' scopes.
    #[test]
    fn scopes_table() {
        let cases = [
            (
                "ld.acquire.sys.b32 %r66,[%rd18]",
                Op::Ld,
                flag::ACQUIRE,
                Scope::Sys,
            ),
            (
                "st.release.sys.b32 [%rd16],%r4",
                Op::St,
                flag::RELEASE,
                Scope::Sys,
            ),
            (
                "st.release.gpu.b32 [%rd16],%r4",
                Op::St,
                flag::RELEASE,
                Scope::Gpu,
            ),
            (
                "ld.acquire.cluster.b32 %r1,[%rd1]",
                Op::Ld,
                flag::ACQUIRE,
                Scope::Cluster,
            ),
            (
                "atom.add.relaxed.sys.u32 %r4,[%rd6],%r5",
                Op::Atom,
                flag::RELAXED,
                Scope::Sys,
            ),
            (
                "atom.global.sys.add.u32 %r1, [%rd1], 1",
                Op::Atom,
                0,
                Scope::Sys,
            ),
            (
                "atom.global.add.u32 %r1, [%rd1], 1",
                Op::Atom,
                0,
                Scope::Gpu,
            ),
            (
                "ld.volatile.global.u32 %r6, [%rd1+16]",
                Op::Ld,
                flag::VOLATILE,
                Scope::Gpu,
            ),
            ("membar.sys", Op::Membar, 0, Scope::Sys),
            ("membar.gl", Op::Membar, 0, Scope::Gpu),
            ("membar.cta", Op::Membar, 0, Scope::Cta),
            (
                "fence.acq_rel.sys",
                Op::Fence,
                flag::ACQUIRE | flag::RELEASE,
                Scope::Sys,
            ),
        ];
        for (text, op, flags, scope) in cases {
            let i = dec(text);
            assert_eq!((i.op, i.flags, i.scope), (op, flags, scope), "{text}");
            if op == Op::Ld || op == Op::St {
                let at = usize::from(op == Op::Ld);
                assert!(matches!(&i.operands[at], Operand::Mem(..)), "{text}");
            }
        }
    }
}
