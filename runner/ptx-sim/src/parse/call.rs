//! A `call` in NVRTC's PTX. A kernel's device functions are inlined; the
//! one call left is CUDA's `printf`, whose arguments and result pass
//! through the `.param` variables of a `{ // callseq }` block.

use crate::launch::DecodeError;
use crate::parse::inst::{Inst, Op, Operand, Round, Scope, Space, Ty};
use std::collections::HashMap;

/// `call.uni (retval0), vprintf, (param0, param1)`: the one function a
/// kernel NVRTC made calls rather than inlines, CUDA's `printf`, as an
/// [`Op::Printf`] of the format's address, the arguments' address and the
/// register that receives the result (`_` until a load of it follows).
/// Any other call is refused: the checker runs kernels whose device
/// functions are inlined.
pub fn call(text: &str, line: u32, params: &HashMap<String, Operand>) -> Result<Inst, DecodeError> {
    let rest = text
        .split_once(char::is_whitespace)
        .map_or("", |(_, r)| r)
        .trim();
    // Past the result list, if any: `(retval0), `.
    let rest = match rest.strip_prefix('(') {
        Some(r) => r
            .split_once(')')
            .map_or("", |(_, r)| r)
            .trim_start_matches([',', ' ']),
        None => rest,
    };
    let (callee, args) = rest.split_once(',').unwrap_or((rest, ""));
    let callee = callee.trim();
    if callee != "vprintf" {
        return Err(DecodeError::Call(callee.to_string()));
    }
    let names: Vec<&str> = args
        .split(|c: char| c == ',' || c == '(' || c == ')' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let arg = |k: usize| {
        names
            .get(k)
            .and_then(|name| params.get(*name))
            .cloned()
            .ok_or(DecodeError::PrintfArgument(k))
    };
    Ok(Inst {
        text: "call.uni vprintf".into(),
        base: "call".into(),
        op: Op::Printf,
        mods: vec!["uni".into()],
        guard: None,
        ty: Ty::B64,
        ty2: Ty::None,
        space: Space::Generic,
        scope: Scope::Gpu,
        vec: 1,
        round: Round::Default,
        cmp: None,
        flags: 0,
        operands: vec![arg(0)?, arg(1)?, Operand::Sink],
        line,
    })
}
