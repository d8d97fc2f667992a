//! What a spec's floating-point operations run on, and so which compute
//! roof a benchmark of it is measured against.
//!
//! A matrix product's `flops` are the same count whether the FP32 cores or
//! the tensor cores do them, but the two rates differ by an order of
//! magnitude: a BF16 tensor-core kernel placed under the FP32 roof would sit
//! at several hundred percent of it, and, worse, would raise the page's
//! "fastest FP32 rate measured" for every other chapter. So a spec says
//! which units its arithmetic is for (`math:`), FP32 unless it says otherwise.

use serde::{Deserialize, Serialize};

/// The units a spec's `flops` are meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Math {
    /// FP32 on the CUDA cores (or a WGSL shader's `f32`): every chapter before Part VI.
    #[default]
    Fp32,
    /// BF16 inputs, FP32 accumulation, on the tensor cores.
    Bf16Tensor,
    /// FP8 (e4m3) inputs, FP32 accumulation, on the tensor cores: twice
    /// BF16's rate, so a roof of its own.
    Fp8Tensor,
}

impl Math {
    /// How a page names the compute roof: "FP32", "BF16 tensor-core".
    pub const fn label(self) -> &'static str {
        match self {
            Math::Fp32 => "FP32",
            Math::Bf16Tensor => "BF16 tensor-core",
            Math::Fp8Tensor => "FP8 tensor-core",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_table() {
        for (yaml, want) in [
            ("fp32", Math::Fp32),
            ("bf16-tensor", Math::Bf16Tensor),
            ("fp8-tensor", Math::Fp8Tensor),
        ] {
            let got: Math = serde_saphyr::from_str(yaml).unwrap();
            assert_eq!(got, want, "{yaml}");
        }
        assert!(serde_saphyr::from_str::<Math>("bf16").is_err());
        assert_eq!(Math::default(), Math::Fp32);
    }
}
