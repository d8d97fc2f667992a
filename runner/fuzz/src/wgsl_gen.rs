//! WGSL kernels generated from bytes, for the checker's target.
//!
//! Random text almost never gets past the WGSL front end, so the checker
//! would only ever see parse errors. Here each byte picks the next piece of
//! a kernel that type-checks by construction: stores and loads at indices in
//! and out of bounds, workgroup memory, barriers in uniform and non-uniform
//! places, counted loops and loops that may never end. Whatever the bytes,
//! the same bytes give the same kernel.

/// Two workgroups of eight invocations over sixteen elements.
pub const SPEC: &str = "id: fuzz\ntitle: Fuzz\nkernel: k\ngrid: [2]\nblock: [8]\n\
buffers:\n  out: { len: 16, output: true }\n  a: { len: 16, init: arange }\n\
args: [out, a]\nexpect:\n  out: [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]\n";

const HEAD: &str = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
var<workgroup> tile: array<f32, 8>;
@compute @workgroup_size(8)
fn k(@builtin(global_invocation_id) gid: vec3<u32>,
     @builtin(local_invocation_id) lid: vec3<u32>,
     @builtin(workgroup_id) wid: vec3<u32>) {
    let i = gid.x;
    var acc = 0.0;
";

/// Indices: in bounds, shared by invocations, or past the end.
const INDICES: [&str; 9] = [
    "i",
    "lid.x",
    "wid.x",
    "0u",
    "(i + 1u)",
    "(i * 2u)",
    "(15u - i)",
    "(lid.x + 1u)",
    "16u",
];

const CONDITIONS: [&str; 6] = [
    "lid.x < 4u",
    "i < 16u",
    "acc > 3.0",
    "(lid.x & 1u) == 0u",
    "wid.x == 0u",
    "a[i % 16u] > 7.0",
];

/// Nesting deeper than this adds no new behaviour, only longer runs.
const MAX_DEPTH: usize = 4;

struct Gen<'a> {
    data: &'a [u8],
    pos: usize,
    out: String,
    loops: usize,
}

impl Gen<'_> {
    /// The next byte, or 0 once the bytes run out (which ends every block).
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn pick<'s>(&mut self, from: &[&'s str]) -> &'s str {
        from[self.byte() as usize % from.len()]
    }

    fn value(&mut self, depth: usize) -> String {
        match self.byte() % 7 {
            0 => format!("a[{}]", self.pick(&INDICES)),
            1 => format!("tile[{}]", self.pick(&INDICES)),
            2 => "acc".into(),
            3 => format!("f32({})", self.pick(&INDICES)),
            4 if depth < MAX_DEPTH => {
                format!("({} + {})", self.value(depth + 1), self.value(depth + 1))
            }
            5 if depth < MAX_DEPTH => format!("({} * 2.0)", self.value(depth + 1)),
            _ => "10.0".into(),
        }
    }

    fn block(&mut self, depth: usize) {
        let count = if self.pos >= self.data.len() {
            0
        } else {
            self.byte() % 5
        };
        for _ in 0..count {
            self.statement(depth);
        }
    }

    fn statement(&mut self, depth: usize) {
        let pad = "    ".repeat(depth + 1);
        let choice = self.byte() % 10;
        match choice {
            0 => {
                let (index, value) = (self.pick(&INDICES), self.value(0));
                self.out
                    .push_str(&format!("{pad}out[{index}] = {value};\n"));
            }
            1 => {
                let (index, value) = (self.pick(&INDICES), self.value(0));
                self.out
                    .push_str(&format!("{pad}tile[{index}] = {value};\n"));
            }
            2 => self.out.push_str(&format!("{pad}workgroupBarrier();\n")),
            3 => self.out.push_str(&format!("{pad}storageBarrier();\n")),
            4 => {
                let value = self.value(0);
                self.out.push_str(&format!("{pad}acc = acc + {value};\n"));
            }
            5 => {
                let (index, value) = (self.pick(&INDICES), self.value(0));
                self.out
                    .push_str(&format!("{pad}out[{index}] = out[{index}] + {value};\n"));
            }
            6 if depth < MAX_DEPTH => {
                let condition = self.pick(&CONDITIONS);
                self.out.push_str(&format!("{pad}if ({condition}) {{\n"));
                self.block(depth + 1);
                self.out.push_str(&format!("{pad}}}\n"));
            }
            7 if depth < MAX_DEPTH => {
                let (k, rounds) = (self.loops, self.byte() % 5);
                self.loops += 1;
                self.out.push_str(&format!(
                    "{pad}for (var k{k} = 0u; k{k} < {rounds}u; k{k}++) {{\n"
                ));
                self.block(depth + 1);
                self.out.push_str(&format!("{pad}}}\n"));
            }
            8 if depth < MAX_DEPTH => {
                // May never end: the checker's clock must stop it.
                let condition = self.pick(&CONDITIONS);
                self.out.push_str(&format!("{pad}loop {{\n"));
                self.out
                    .push_str(&format!("{pad}    if ({condition}) {{ break; }}\n"));
                self.block(depth + 1);
                self.out.push_str(&format!("{pad}}}\n"));
            }
            _ => {
                let index = self.pick(&INDICES);
                self.out
                    .push_str(&format!("{pad}out[{index}] = a[{index}] + 10.0;\n"));
            }
        }
    }
}

/// The kernel the bytes describe.
pub fn kernel(data: &[u8]) -> String {
    let mut generator = Gen {
        data,
        pos: 1, // the first byte seeds the checker's schedule
        out: HEAD.to_string(),
        loops: 0,
    };
    while generator.pos < data.len() {
        generator.statement(0);
    }
    generator.out.push_str("}\n");
    generator.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_bytes_give_the_same_kernel() {
        for data in [&[][..], &[0, 9], &[7, 6, 8, 7, 3, 2, 1, 0, 5, 4, 9, 9, 9]] {
            let text = kernel(data);
            assert_eq!(text, kernel(data));
            assert!(text.ends_with("}\n"), "{text}");
        }
    }
}
