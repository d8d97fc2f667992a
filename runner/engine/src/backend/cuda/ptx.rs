//! What the PTX says about a compiled kernel, read before anything is
//! launched: its parameters against the spec's arguments, and its static
//! shared memory against the 48 KiB every CUDA GPU allows.

use puzzle_core::source::text::SourceText;
use puzzle_core::spec::data::Dtype;
use puzzle_core::spec::model::{Arg, Launch, Spec};

/// Every CUDA GPU caps static `__shared__` memory at 48 KiB per block (more needs dynamic shared memory).
pub const MAX_STATIC_SHARED: u64 = 48 * 1024;

/// Bytes of static shared memory the PTX declares (`.shared .align 4 .b8 name[4096];`).
pub fn static_shared_bytes(ptx: &str) -> u64 {
    ptx.lines()
        .map(str::trim)
        .filter(|l| {
            l.starts_with(".shared") && !l.starts_with(".shared .extern") && !l.contains(".extern")
        })
        .filter_map(|l| {
            let width = [
                (".b8", 1),
                (".u8", 1),
                (".s8", 1),
                (".b16", 2),
                (".b32", 4),
                (".f32", 4),
                (".u32", 4),
                (".s32", 4),
                (".b64", 8),
                (".f64", 8),
                (".u64", 8),
                (".s64", 8),
            ]
            .iter()
            .find(|(t, _)| l.contains(&format!("{t} ")))
            .map(|(_, w)| *w)?;
            let count: u64 = l[l.find('[')? + 1..l.find(']')?].parse().ok()?;
            Some(width * count)
        })
        .sum()
}

/// The line that declares the kernel, for messages about its parameters.
pub fn signature_line(source: &SourceText, kernel: &str) -> usize {
    let needle = format!("{kernel}(");
    source
        .text
        .lines()
        .position(|l| l.contains(&needle))
        .map(|i| i + 1)
        .unwrap_or(1)
}

/// A kernel whose parameters do not take the spec's arguments; the words go
/// to the kernel's signature line as a compile error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// `described`: the spec's arguments as a C parameter list.
    #[error("`{kernel}` takes {params} parameter(s), but the spec passes {args}: ({described})")]
    Count {
        kernel: String,
        params: usize,
        args: usize,
        described: String,
    },
    /// `position` counts from 1, as the learner reads the signature.
    #[error(
        "parameter {position} of `{kernel}` should be the tensor map of `{buffer}` \
         (const __grid_constant__ CUtensorMap), as the spec's `tensor_map` says"
    )]
    WantsTensorMap {
        position: usize,
        kernel: String,
        buffer: String,
    },
    #[error(
        "parameter {position} of `{kernel}` is a tensor map, but the spec passes `{buffer}` as a \
         pointer; give the buffer a `tensor_map` to pass it as one"
    )]
    UnwantedTensorMap {
        position: usize,
        kernel: String,
        buffer: String,
    },
    #[error(
        "parameter {position} of `{kernel}` should be a pointer to `{buffer}` ({cuda_type}*), but it is a value"
    )]
    WantsPointer {
        position: usize,
        kernel: String,
        buffer: String,
        cuda_type: &'static str,
    },
    #[error(
        "parameter {position} of `{kernel}` should be the value `{scalar}` ({cuda_type}), but it is a pointer or 64-bit"
    )]
    WantsValue {
        position: usize,
        kernel: String,
        scalar: String,
        cuda_type: &'static str,
    },
    #[error(
        "parameter {position} of `{kernel}` should be `{table}`, the addresses of `{buffer}` on \
         every GPU: a struct of 8 pointers passed by value, like `struct {{ {cuda_type}* rank[8]; }}`"
    )]
    WantsPeers {
        position: usize,
        kernel: String,
        table: String,
        buffer: String,
        cuda_type: &'static str,
    },
}

/// Compares the kernel's parameters (read from the PTX) with the spec's args:
/// buffers are 64-bit pointers, scalars 32-bit values. A mismatch launched
/// anyway would read garbage or crash, so it is caught here, before the GPU.
pub fn check_params(ptx: &str, spec: &Spec, launch: &Launch) -> Result<(), ParamError> {
    let kernel = &launch.kernel;
    let args: Vec<Arg> = spec.launch_args(launch).cloned().collect();
    let header = format!(".entry {kernel}(");
    let Some(start) = ptx.find(&header) else {
        return Ok(());
    };
    let rest = &ptx[start + header.len()..];
    let params: Vec<&str> = rest[..rest.find(')').unwrap_or(rest.len())]
        .split(',')
        .map(str::trim)
        .filter(|p| p.starts_with(".param"))
        .collect();
    let describe = |args: &[Arg]| {
        args.iter()
            .map(|a| match a {
                Arg::Buffer(b) if b.tensor_map.is_some() => format!("CUtensorMap {}", b.name),
                Arg::Buffer(b) => format!("{}* {}", b.dtype.name(), b.name),
                Arg::Scalar { name, dtype, .. } => format!("{} {name}", dtype.name()),
                Arg::Peers { name, .. } => format!("Peers {name}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    if params.len() != args.len() {
        return Err(ParamError::Count {
            kernel: kernel.clone(),
            params: params.len(),
            args: args.len(),
            described: describe(&args),
        });
    }
    for (i, (param, arg)) in params.iter().zip(&args).enumerate() {
        let is_pointer = param.contains(".u64") || param.contains(".b64") || param.contains(".s64");
        // `const __grid_constant__ CUtensorMap`: 128 opaque bytes, 64-byte aligned.
        let is_tensor_map = param.contains(".align 64") && param.ends_with("[128]");
        // A table of MAX_GPUS pointers by value: `.param .align 8 .b8 name[64]`.
        let is_peer_table = param.contains(".align 8") && param.ends_with("[64]");
        match arg {
            Arg::Peers { name, of } if !is_peer_table => {
                let buffer = of.first().and_then(|&a| match &spec.args[a] {
                    Arg::Buffer(b) => Some(b),
                    _ => None,
                });
                return Err(ParamError::WantsPeers {
                    position: i + 1,
                    kernel: kernel.clone(),
                    table: name.clone(),
                    buffer: buffer.map_or_else(String::new, |b| {
                        b.name.split('@').next().unwrap_or_default().to_string()
                    }),
                    cuda_type: buffer.map_or("float", |b| cuda_type(b.dtype)),
                });
            }
            Arg::Buffer(b) if b.tensor_map.is_some() && !is_tensor_map => {
                return Err(ParamError::WantsTensorMap {
                    position: i + 1,
                    kernel: kernel.clone(),
                    buffer: b.name.clone(),
                });
            }
            Arg::Buffer(b) if b.tensor_map.is_none() && is_tensor_map => {
                return Err(ParamError::UnwantedTensorMap {
                    position: i + 1,
                    kernel: kernel.clone(),
                    buffer: b.name.clone(),
                });
            }
            Arg::Buffer(b) if b.tensor_map.is_some() => {}
            Arg::Buffer(b) if !is_pointer => {
                return Err(ParamError::WantsPointer {
                    position: i + 1,
                    kernel: kernel.clone(),
                    buffer: b.name.clone(),
                    cuda_type: cuda_type(b.dtype),
                });
            }
            Arg::Scalar { name, dtype, .. } if is_pointer => {
                return Err(ParamError::WantsValue {
                    position: i + 1,
                    kernel: kernel.clone(),
                    scalar: name.clone(),
                    cuda_type: cuda_type(*dtype),
                });
            }
            _ => {}
        }
    }
    Ok(())
}

fn cuda_type(dtype: Dtype) -> &'static str {
    match dtype {
        Dtype::F32 => "float",
        Dtype::I32 => "int",
        Dtype::U32 => "unsigned int",
        Dtype::Bf16 => "__nv_bfloat16",
        Dtype::F16 => "__half",
        Dtype::E4m3 => "__nv_fp8_e4m3",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_shared_table() {
        let cases = [
            ("", 0),
            (".shared .align 4 .b8 _ZZ1kE4tile[262144];", 262144),
            (
                ".shared .align 4 .f32 tile[16];\n.shared .align 8 .b8 other[8];",
                72,
            ),
            (".extern .shared .align 16 .b8 dynamic[];", 0),
        ];
        for (ptx, want) in cases {
            assert_eq!(static_shared_bytes(ptx), want, "{ptx}");
        }
    }

    /// Each kernel signature, as NVRTC writes it in PTX, against a spec
    /// passing `out` as a pointer, `a` as a tensor map and a u32.
    #[test]
    fn params_against_tensor_maps_table() {
        let yaml = "\
id: t
title: t
kernel: k
reference: reverse
const: { SIZE: 64 }
grid: [1]
block: [32]
buffers:
  out: { shape: [SIZE, SIZE], type: bf16, output: true }
  a: { shape: [SIZE, SIZE], type: bf16, init: random 1, tensor_map: { box: [SIZE, 64], swizzle: 128 } }
scalars:
  size: { type: u32, value: SIZE }
args: [out, a, size]
expect:
  out: reference
";
        let spec =
            puzzle_core::spec::resolve::PuzzleSpec::parse(yaml, std::path::Path::new("t.md"), 1)
                .and_then(|p| p.resolve(&Default::default()))
                .unwrap();
        let map = ".param .align 64 .b8 k_param_1[128]";
        let cases = [
            (
                format!(".param .u64 k_param_0, {map}, .param .u32 k_param_2"),
                None,
            ),
            (
                ".param .u64 k_param_0, .param .u64 k_param_1, .param .u32 k_param_2".to_string(),
                Some("parameter 2 of `k` should be the tensor map of `a`"),
            ),
            (
                format!("{map}, {map}, .param .u32 k_param_2"),
                Some("parameter 1 of `k` is a tensor map, but the spec passes `out` as a pointer"),
            ),
            (
                format!(".param .u64 k_param_0, {map}"),
                Some("(bf16* out, CUtensorMap a, u32 size)"),
            ),
        ];
        for (params, want) in cases {
            let ptx = format!(".visible .entry k(\n\t{params}\n)\n{{\n}}");
            let got = check_params(&ptx, &spec, &spec.launches[0]);
            match want {
                None => assert_eq!(got, Ok(()), "{params}"),
                Some(text) => {
                    let message = got.expect_err(text).to_string();
                    assert!(message.contains(text), "{message}");
                }
            }
        }
    }
}
