//! TMA tensor maps for kernel parameters: a buffer the spec marks
//! `tensor_map` reaches its kernel as a `const __grid_constant__ CUtensorMap`
//! (128 opaque bytes, passed by value), encoded on the host by the driver
//! from the buffer's device address, shape and the spec's box and swizzle.

// Encoding a tensor map calls the driver through cudarc's raw bindings, and
// passing one by value needs cudarc's `DeviceRepr`.
#![allow(unsafe_code)]

use cudarc::driver::DeviceRepr;
use cudarc::driver::sys::{
    self, CUtensorMapDataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use puzzle_core::spec::data::Dtype;
use puzzle_core::spec::model::{Buffer, TensorMap};

/// An encoded tensor map, as the kernel's parameter receives it.
#[repr(transparent)]
pub struct TensorMapParam(sys::CUtensorMap);

// SAFETY: a plain 128-byte, 64-byte-aligned C struct with no pointers the
// host owns; the driver copies its bytes into the kernel's parameter space.
unsafe impl DeviceRepr for TensorMapParam {}

/// The driver's element type for a buffer's.
fn data_type(dtype: Dtype) -> CUtensorMapDataType {
    match dtype {
        Dtype::F32 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        Dtype::I32 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_INT32,
        Dtype::U32 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT32,
        Dtype::Bf16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        Dtype::F16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        // The TMA moves bytes and has no FP8 type of its own: FP8 tiles
        // travel as 8-bit integers, bit for bit.
        Dtype::E4m3 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT8,
    }
}

fn swizzle(bytes: u32) -> CUtensorMapSwizzle {
    match bytes {
        32 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        64 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        128 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        _ => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
    }
}

/// The driver refused to encode a buffer's tensor map: the launch cannot be made.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "the driver refused the tensor map of `{buffer}` (box {tile:?}, swizzle {swizzle}): {result:?}"
)]
pub struct TensorMapRefused {
    pub buffer: String,
    pub tile: Vec<u32>,
    pub swizzle: u32,
    pub result: sys::CUresult,
}

/// Encodes `map` over the buffer `b` whose data starts at `address` on the
/// device. The spec was checked against the TMA's limits when it was read
/// (`TensorMap::check`), so a refusal here is the driver's own.
pub fn encode(
    address: sys::CUdeviceptr,
    b: &Buffer,
    map: &TensorMap,
) -> Result<TensorMapParam, TensorMapRefused> {
    let (sizes, strides, tile) = map.driver_dimensions(&b.shape, b.dtype.size());
    let element_strides = vec![1u32; sizes.len()];
    let mut encoded = sys::CUtensorMap { opaque: [0; 16] };
    // SAFETY: every array holds `rank` entries (strides `rank - 1`), as the
    // driver reads them; `encoded` is a valid, aligned CUtensorMap it writes;
    // the address is the start of the buffer's allocation past its guard
    // band, which is 256-byte aligned plus a multiple of 512 bytes.
    let result = unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut encoded,
            data_type(b.dtype),
            sizes.len() as u32,
            address as *mut std::ffi::c_void,
            sizes.as_ptr(),
            strides.as_ptr(),
            tile.as_ptr(),
            element_strides.as_ptr(),
            CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle(map.swizzle),
            CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    match result {
        sys::CUresult::CUDA_SUCCESS => Ok(TensorMapParam(encoded)),
        result => Err(TensorMapRefused {
            buffer: b.name.clone(),
            tile: map.tile.clone(),
            swizzle: map.swizzle,
            result,
        }),
    }
}
