//! PTX text to a [`Module`]: the module's variables (global, constant and
//! shared), and each kernel as a list of decoded instructions with its
//! registers numbered, its labels resolved and each instruction's CUDA
//! source line (from `.loc`).
//!
//! The grammar is the subset of the PTX ISA that NVRTC emits for CUDA C,
//! inline `asm` blocks included (their `{ … }` scopes with registers of
//! their own). Anything else is a [`Error::Parse`] naming the PTX line, never
//! a panic; the fuzz target feeds it arbitrary text.

use crate::launch::Error;
use crate::parse::inst::{Inst, Op, Operand, Space, decode};

use std::collections::HashMap;

/// A module-scope variable: `.global`, `.const` or `.shared`.
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    pub name: String,
    pub space: VarSpace,
    pub align: u64,
    /// Bytes; 0 for `extern .shared` (the launch's dynamic shared memory).
    pub size: u64,
    /// Initial bytes (`= 5`, `= {1, 2}`); zeros where none are given.
    pub init: Vec<u8>,
    pub external: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarSpace {
    Global,
    Const,
    Shared,
}

/// One kernel (`.entry`).
#[derive(Debug, Clone)]
pub struct Kernel {
    pub name: String,
    /// Parameter names and sizes in bytes, in order.
    pub params: Vec<(String, u64)>,
    pub body: Vec<Inst>,
    /// Registers the body uses (numbered 0..).
    pub registers: usize,
    /// Bytes of `.local` memory a thread has.
    pub local_bytes: u64,
    /// `.local` arrays: name and offset in the thread's local memory.
    pub locals: Vec<(String, u64)>,
    /// `.reqnctapercluster x, y, z`, where given.
    pub cluster: Option<[u32; 3]>,
}

/// A parsed PTX module.
#[derive(Debug, Clone, Default)]
pub struct Module {
    pub variables: Vec<Variable>,
    pub kernels: Vec<Kernel>,
}

impl Module {
    pub fn parse(text: &str) -> Result<Module, Error> {
        Parser::new(text).module()
    }

    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The first instruction of `entry` that the checker does not
    /// implement, with its source line (0: unknown); `None` when it can run.
    pub fn unsupported(&self, entry: &str) -> Option<(String, usize)> {
        let (text, line) = self.kernel(entry)?.unsupported().next()?;
        Some((text.to_string(), line))
    }
}

impl Kernel {
    /// Every instruction of the body that the checker does not implement,
    /// as written, with its source line (0: unknown).
    pub fn unsupported(&self) -> impl Iterator<Item = (&str, usize)> {
        self.body
            .iter()
            .filter(|i| !crate::parse::support::supports(i))
            .map(|i| (i.text.as_str(), i.line as usize))
    }
}

/// A token stream over PTX statements: text split at `;`, `{`, `}`, and labels.
struct Parser<'t> {
    lines: Vec<(usize, &'t str)>,
}

/// One statement: its PTX line and text (without the `;`).
#[derive(Debug)]
enum Stmt<'t> {
    Open(usize),
    Close(usize),
    Label(usize, &'t str),
    Text(usize, String),
}

fn err(line: usize, message: impl Into<String>) -> Error {
    Error::Parse {
        ptx_line: line,
        message: message.into(),
    }
}

impl<'t> Parser<'t> {
    fn new(text: &'t str) -> Parser<'t> {
        let lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                let l = match l.find("//") {
                    Some(c) => &l[..c],
                    None => l,
                };
                (i + 1, l)
            })
            .collect();
        Parser { lines }
    }

    /// Statements in order: a statement may span lines (a kernel's parameter
    /// list) and a line may hold several. A `{` opens a block where a
    /// statement may start (a kernel's body, an inline `asm` scope), and is
    /// part of the statement elsewhere (a vector operand, an initializer).
    fn statements(&self) -> Result<Vec<Stmt<'t>>, Error> {
        let mut out = Vec::new();
        let mut cur = String::new();
        let mut cur_line = 0;
        let mut vector = 0usize;
        let emit = |out: &mut Vec<Stmt<'t>>, cur: &mut String, line: usize| {
            let text = cur.trim();
            if !text.is_empty() {
                out.push(Stmt::Text(line, text.to_string()));
            }
            cur.clear();
        };
        for &(n, line) in &self.lines {
            for c in line.chars() {
                if cur.trim().is_empty() {
                    cur_line = n;
                }
                match c {
                    '{' if vector == 0 && opens_block(&cur) => {
                        emit(&mut out, &mut cur, cur_line);
                        out.push(Stmt::Open(n));
                    }
                    '{' => {
                        vector += 1;
                        cur.push(c);
                    }
                    '}' if vector > 0 => {
                        vector -= 1;
                        cur.push(c);
                    }
                    '}' => {
                        emit(&mut out, &mut cur, cur_line);
                        out.push(Stmt::Close(n));
                    }
                    ';' if vector == 0 => emit(&mut out, &mut cur, cur_line),
                    ':' if vector == 0 && is_label(&cur) => {
                        let name = line_label(line, &cur);
                        out.push(Stmt::Label(n, name));
                        cur.clear();
                    }
                    _ => cur.push(c),
                }
            }
            let t = cur.trim_start();
            if [".version", ".target", ".address_size", ".loc", ".file"]
                .iter()
                .any(|d| t.starts_with(d))
            {
                emit(&mut out, &mut cur, cur_line);
            } else {
                cur.push(' ');
            }
        }
        if vector > 0 {
            return Err(err(cur_line, "a `{` that never closes"));
        }
        emit(&mut out, &mut cur, cur_line);
        Ok(out)
    }

    fn module(&self) -> Result<Module, Error> {
        let stmts = self.statements()?;
        let mut module = Module::default();
        let mut i = 0;
        while i < stmts.len() {
            match &stmts[i] {
                Stmt::Text(n, text) => {
                    let words: Vec<&str> = text.split_whitespace().collect();
                    let is_entry = words.contains(&".entry");
                    let is_func = words.contains(&".func");
                    if words.first() == Some(&".section") {
                        // Debug information: its block is skipped whole.
                        if matches!(stmts.get(i + 1), Some(Stmt::Open(_))) {
                            let mut depth = 0;
                            i += 1;
                            while i < stmts.len() {
                                match stmts[i] {
                                    Stmt::Open(_) => depth += 1,
                                    Stmt::Close(_) => depth -= 1,
                                    _ => {}
                                }
                                if depth == 0 {
                                    break;
                                }
                                i += 1;
                            }
                        }
                    } else if is_entry || is_func {
                        // The body follows: `{ … }`, matched by depth.
                        let header = text.clone();
                        let start = *n;
                        i += 1;
                        if !matches!(stmts.get(i), Some(Stmt::Open(_))) {
                            if is_func {
                                // A declaration without a body.
                                continue;
                            }
                            return Err(err(start, "a kernel without a body"));
                        }
                        let mut depth = 0;
                        let body_start = i;
                        loop {
                            match stmts.get(i) {
                                Some(Stmt::Open(_)) => depth += 1,
                                Some(Stmt::Close(_)) => {
                                    depth -= 1;
                                    if depth == 0 {
                                        break;
                                    }
                                }
                                None => return Err(err(start, "a kernel's body never closes")),
                                _ => {}
                            }
                            i += 1;
                        }
                        if is_entry {
                            module.kernels.push(kernel(
                                &header,
                                start,
                                &stmts[body_start + 1..i],
                                &mut module.variables,
                            )?);
                        }
                    } else if let Some(var) = variable(text, *n)? {
                        module.variables.push(var);
                    }
                }
                Stmt::Open(n) => return Err(err(*n, "a `{` outside any kernel")),
                Stmt::Close(n) => return Err(err(*n, "a `}` outside any kernel")),
                Stmt::Label(n, _) => return Err(err(*n, "a label outside any kernel")),
            }
            i += 1;
        }
        Ok(module)
    }
}

/// Whether a `{` after `cur` opens a block: at a statement's start, or
/// after a kernel's header; not inside an instruction or an initializer.
fn opens_block(cur: &str) -> bool {
    let t = cur.trim();
    t.is_empty() || (t.starts_with('.') && !t.contains('='))
}

/// Whether `cur`, followed by `:`, is a label (`$L__BB0_2`): one word, no dots.
fn is_label(cur: &str) -> bool {
    let t = cur.trim();
    !t.is_empty()
        && !t.contains('.')
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// The label's text as a slice of its line (statements borrow the text).
fn line_label<'t>(line: &'t str, cur: &str) -> &'t str {
    let name = cur.trim();
    line.find(name).map_or("", |at| &line[at..at + name.len()])
}

/// `[.visible|.extern|.weak] (.global|.const|.shared) [.align n] .type name[size] [= init]`.
fn variable(text: &str, n: usize) -> Result<Option<Variable>, Error> {
    let (decl, init) = match text.find('=') {
        Some(eq) => (&text[..eq], Some(text[eq + 1..].trim())),
        None => (text, None),
    };
    let words: Vec<&str> = decl.split_whitespace().collect();
    let space = if words.contains(&".global") {
        VarSpace::Global
    } else if words.contains(&".const") {
        VarSpace::Const
    } else if words.contains(&".shared") {
        VarSpace::Shared
    } else {
        return Ok(None);
    };
    let external = words.contains(&".extern");
    let mut align = 1;
    let mut width = 0;
    let mut name_word = "";
    let mut k = 0;
    while k < words.len() {
        let w = words[k];
        if w == ".align" {
            align = words
                .get(k + 1)
                .and_then(|a| a.parse().ok())
                .ok_or_else(|| err(n, "`.align` without a number"))?;
            k += 2;
            continue;
        }
        if let Some(t) = w.strip_prefix('.') {
            if let Some(wd) = type_width(t) {
                width = wd;
            }
        } else {
            name_word = w;
        }
        k += 1;
    }
    if width == 0 || name_word.is_empty() {
        return Err(err(
            n,
            format!("a variable declaration the checker cannot read: `{text}`"),
        ));
    }
    let (name, count) = match name_word.find('[') {
        Some(b) => {
            let inside = name_word[b + 1..].trim_end_matches(']');
            let count: u64 = if inside.is_empty() {
                0
            } else {
                inside
                    .split("][")
                    .map(|d| {
                        d.parse::<u64>()
                            .map_err(|_| err(n, "an array size that is not a number"))
                    })
                    .try_fold(1u64, |acc, d| d.map(|d| acc.saturating_mul(d)))?
            };
            (&name_word[..b], count)
        }
        None => (name_word, 1),
    };
    let size = width.saturating_mul(count);
    if size > MAX_VARIABLE_BYTES {
        return Err(err(
            n,
            format!(
                "`{name_word}` takes {size} bytes; the checker allows {MAX_VARIABLE_BYTES} for one variable"
            ),
        ));
    }
    let mut bytes = vec![0u8; if external { 0 } else { size as usize }];
    if let Some(init) = init {
        let values: Vec<&str> = init
            .trim_matches(|c| c == '{' || c == '}' || c == ' ')
            .split(',')
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .collect();
        for (i, v) in values.iter().enumerate() {
            let Some(bits) = crate::parse::inst::immediate(v) else {
                continue;
            };
            let at = i * width as usize;
            if at + width as usize <= bytes.len() {
                bytes[at..at + width as usize]
                    .copy_from_slice(&bits.to_le_bytes()[..width as usize]);
            }
        }
    }
    Ok(Some(Variable {
        name: name.to_string(),
        space,
        align,
        size: if external { 0 } else { size },
        init: bytes,
        external,
    }))
}

/// The largest variable (global, shared or local) the checker lays out:
/// more than any GPU gives shared or local memory, and a `__device__`
/// array beyond it is better checked on a GPU.
pub const MAX_VARIABLE_BYTES: u64 = 64 << 20;

/// Bytes of a PTX type's value (`b32` → 4).
pub fn type_width(t: &str) -> Option<u64> {
    Some(match t {
        "b8" | "u8" | "s8" => 1,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 2,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" => 4,
        "b64" | "u64" | "s64" | "f64" => 8,
        "b128" => 16,
        "pred" => 1,
        _ => return None,
    })
}

/// Registers of one kernel: names to numbers, with the `{ … }` scopes of inline asm.
struct Registers {
    scopes: Vec<HashMap<String, u16>>,
    /// Declared ranges (`%r<100>`) are only names; numbers are given on first use.
    next: usize,
}

impl Registers {
    /// A register by name; a `%` name not seen before is numbered now,
    /// other names only if a scope declared them (`declared`).
    fn lookup(&mut self, name: &str, declared: bool) -> Option<u16> {
        for scope in self.scopes.iter().rev() {
            if let Some(&r) = scope.get(name) {
                return Some(r);
            }
        }
        if declared {
            return None;
        }
        let r = u16::try_from(self.next).ok()?;
        self.next += 1;
        self.scopes[0].insert(name.to_string(), r);
        Some(r)
    }

    /// `.reg .b32 a, b;` inside a scope: fresh registers that shadow outer names.
    fn declare(&mut self, name: &str) -> Option<u16> {
        let r = u16::try_from(self.next).ok()?;
        self.next += 1;
        self.scopes.last_mut()?.insert(name.to_string(), r);
        Some(r)
    }
}

/// `.visible .entry name( .param .u64 name_param_0, … ) [.maxntid …]` and its body.
fn kernel(
    header: &str,
    line: usize,
    body: &[Stmt],
    shared: &mut Vec<Variable>,
) -> Result<Kernel, Error> {
    let open = header
        .find('(')
        .ok_or_else(|| err(line, "a kernel without a parameter list"))?;
    let name = header[..open]
        .split_whitespace()
        .last()
        .ok_or_else(|| err(line, "a kernel without a name"))?
        .to_string();
    let close = header.rfind(')').unwrap_or(header.len());
    let mut params = Vec::new();
    for p in header[open + 1..close.max(open + 1)].split(',') {
        let words: Vec<&str> = p.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        let mut size = 0u64;
        let mut align = 1u64;
        let mut pname = "";
        let mut k = 0;
        while k < words.len() {
            let w = words[k];
            if w == ".align" {
                align = words.get(k + 1).and_then(|a| a.parse().ok()).unwrap_or(1);
                k += 2;
                continue;
            }
            if let Some(t) = w.strip_prefix('.') {
                if let Some(wd) = type_width(t) {
                    size = wd;
                }
            } else {
                pname = w;
            }
            k += 1;
        }
        let (pname, count) = match pname.find('[') {
            Some(b) => (
                &pname[..b],
                pname[b + 1..]
                    .trim_end_matches(']')
                    .parse::<u64>()
                    .unwrap_or(1),
            ),
            None => (pname, 1),
        };
        let _ = align;
        let bytes = size.saturating_mul(count);
        if bytes > 32 * 1024 {
            return Err(err(
                line,
                format!("parameter `{pname}` of {bytes} bytes; CUDA allows 32 KiB of parameters"),
            ));
        }
        params.push((pname.to_string(), bytes));
    }
    let trailer = &header[close.min(header.len())..];
    let cluster = trailer.find(".reqnctapercluster").and_then(|at| {
        let dims: Vec<u32> = trailer[at + ".reqnctapercluster".len()..]
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .map_while(|s| s.parse().ok())
            .collect();
        (!dims.is_empty()).then(|| {
            [
                dims[0],
                *dims.get(1).unwrap_or(&1),
                *dims.get(2).unwrap_or(&1),
            ]
        })
    });

    let mut regs = Registers {
        scopes: vec![HashMap::new()],
        next: 0,
    };
    let mut insts: Vec<Inst> = Vec::new();
    let mut labels: HashMap<String, usize> = HashMap::new();
    let mut pending_labels: Vec<(usize, String)> = Vec::new();
    let mut loc = 0u32;
    let mut locals = Vec::new();
    let mut local_bytes = 0u64;
    let mut symbols: HashMap<String, ()> = HashMap::new();
    let mut call_params: HashMap<String, Operand> = HashMap::new();
    let mut last_call: Option<usize> = None;
    for (pname, _) in &params {
        symbols.insert(pname.clone(), ());
    }
    for stmt in body {
        match stmt {
            Stmt::Open(_) => regs.scopes.push(HashMap::new()),
            Stmt::Close(n) => {
                if regs.scopes.len() <= 1 {
                    return Err(err(*n, "an unmatched `}`"));
                }
                regs.scopes.pop();
            }
            Stmt::Label(_, name) => {
                labels.insert((*name).to_string(), insts.len());
            }
            Stmt::Text(n, text) => {
                let t = text.trim();
                // `.loc` and not `.local`, which starts alike.
                if let Some(rest) = t
                    .strip_prefix(".loc")
                    .filter(|r| r.starts_with(char::is_whitespace))
                {
                    loc = loc_line(rest).unwrap_or(loc);
                    continue;
                }
                if t.starts_with(".reg") {
                    if regs.scopes.len() > 1 {
                        for name in t.split_whitespace().skip(2).flat_map(|w| w.split(',')) {
                            let name = name.trim();
                            if !name.is_empty() && !name.contains('<') {
                                regs.declare(name).ok_or_else(|| {
                                    err(*n, "more registers than the checker numbers")
                                })?;
                            }
                        }
                    }
                    continue;
                }
                if t.starts_with(".local") {
                    if let Some(var) = variable(&t.replacen(".local", ".global", 1), *n)? {
                        let at = local_bytes.next_multiple_of(var.align.clamp(1, 4096));
                        locals.push((var.name, at));
                        local_bytes = at + var.size;
                        if local_bytes > 512 * 1024 {
                            return Err(err(
                                *n,
                                "more than the 512 KiB of local memory a thread may have",
                            ));
                        }
                    }
                    continue;
                }
                if t.starts_with(".shared") {
                    // A kernel's `__shared__` array: module-wide, as PTX has it.
                    if let Some(var) = variable(t, *n)? {
                        shared.push(var);
                    }
                    continue;
                }
                if t.starts_with('.') {
                    // .pragma, .maxntid, .param of a call.
                    continue;
                }
                if t.starts_with("call") {
                    insts.push(
                        crate::parse::call::call(t, loc, &call_params)
                            .map_err(|m| err(*n, m.to_string()))?,
                    );
                    last_call = Some(insts.len() - 1);
                    continue;
                }
                let mut lookup = |name: &str, declared: bool| regs.lookup(name, declared);
                let inst = decode(t, loc, &mut lookup).map_err(|m| err(*n, m.to_string()))?;
                // A call's arguments and result pass through `.param`
                // variables of its `{ // callseq }` block: kept as operands
                // of the call, not run as stores and loads.
                if inst.space == Space::Param
                    && let Some(Operand::Mem(base, _)) =
                        inst.operands.first().or(inst.operands.get(1))
                    && let Operand::Symbol(name) = &**base
                    && !symbols.contains_key(name)
                {
                    match (inst.op, last_call) {
                        (Op::St, _) => {
                            call_params.insert(name.clone(), inst.operands[1].clone());
                        }
                        (Op::Ld, Some(at)) => insts[at].operands[2] = inst.operands[0].clone(),
                        _ => return Err(err(*n, "a `.param` access outside a call")),
                    }
                    continue;
                }
                insts.push(inst);
            }
        }
    }
    // Branch targets to instruction numbers.
    for (k, inst) in insts.iter_mut().enumerate() {
        for op in inst.operands.iter_mut() {
            if let Operand::Symbol(name) = op
                && let Some(&target) = labels.get(name.as_str())
            {
                *op = Operand::Label(target);
            }
        }
        let _ = k;
    }
    pending_labels.clear();
    Ok(Kernel {
        name,
        params,
        body: insts,
        registers: regs.next,
        local_bytes,
        locals,
        cluster,
    })
}

/// The CUDA source line a `.loc` names: its own where its file is the
/// kernel's (file 1), else the line it was inlined at in file 1.
fn loc_line(rest: &str) -> Option<u32> {
    let mut words = rest
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty());
    let file: u32 = words.next()?.parse().ok()?;
    let line: u32 = words.next()?.parse().ok()?;
    if file == 1 {
        return Some(line);
    }
    let at = rest.find("inlined_at")?;
    let mut w = rest[at + "inlined_at".len()..].split_whitespace();
    let file: u32 = w.next()?.parse().ok()?;
    let line: u32 = w.next()?.parse().ok()?;
    (file == 1).then_some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADD_10: &str = "
.version 8.8
.target sm_90a
.address_size 64
.visible .entry add_10(
	.param .u64 add_10_param_0,
	.param .u64 add_10_param_1
)
{
	.reg .f32 	%f<3>;
	.reg .b64 	%rd<8>;
	.loc	1 2 0
	ld.param.u64 	%rd1, [add_10_param_0];
	.loc	1 5 5
	add.f32 	%f2, %f1, 0f41200000;
$L__BB0_2:
	@%p1 bra 	$L__BB0_2;
	{
	.reg .pred p;
	setp.ne.b32 p, %r1, 0;
	}
	ret;
}
	.file	1 \"/tmp/kernel.cu\"
";

    #[test]
    fn a_kernel_parses_with_lines_labels_and_scopes() {
        let m = Module::parse(ADD_10).expect("parses");
        let k = m.kernel("add_10").expect("the kernel");
        assert_eq!(k.params.len(), 2);
        assert_eq!(k.body.len(), 5, "{:#?}", k.body);
        assert_eq!(k.body[0].line, 2);
        assert_eq!(k.body[1].line, 5);
        assert!(matches!(k.body[2].operands[0], Operand::Label(2)));
        assert_eq!(m.unsupported("add_10"), None);
    }

    /// Bad text is an error naming its PTX line, never a panic.
    #[test]
    fn bad_text_is_an_error_table() {
        let cases = [
            (".visible .entry k(\n)\n{\n frobnicate.b32 %r1;\n}\n", 4),
            ("}\n", 1),
            (".visible .entry k(\n)\n", 1),
        ];
        for (text, line) in cases {
            match Module::parse(text) {
                Err(Error::Parse { ptx_line, .. }) => assert_eq!(ptx_line, line, "{text}"),
                Ok(m) => {
                    // An unknown opcode parses, and is named as unsupported.
                    assert!(m.unsupported("k").is_some(), "{text}");
                }
                Err(e) => panic!("{text}: {e}"),
            }
        }
    }

    #[test]
    fn loc_lines_follow_inlining_into_the_kernel_file() {
        let cases = [
            (" 1 42 13", Some(42)),
            (
                " 2 348 5, function_name $L__info_string0, inlined_at 1 42 13",
                Some(42),
            ),
            (
                " 3 87 5, function_name $L__info_string1, inlined_at 2 348 5",
                None,
            ),
        ];
        for (rest, want) in cases {
            assert_eq!(loc_line(rest), want, "{rest}");
        }
    }
}
