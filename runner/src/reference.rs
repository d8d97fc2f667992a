//! CPU references: what each puzzle's outputs must be, for any size.
//!
//! The seeds' printouts fix the teaching sizes; a kernel can match them by
//! accident (four elements, four threads). Stress runs change the sizes and
//! feed random inputs, and these functions say what the outputs must then be.

use crate::spec::{Arg, Spec};
use std::collections::BTreeMap;

/// Expected outputs by buffer name, or `None` when the puzzle has no reference.
pub fn expected(spec: &Spec) -> Option<BTreeMap<String, Vec<f64>>> {
    let input = |name: &str| {
        spec.args.iter().find_map(|a| match a {
            Arg::Buffer(b) if b.name == name => b.init.clone(),
            _ => None,
        })
    };
    let out = match spec.id.as_str() {
        // Element-wise: out = a + 10, whatever the shape.
        "p01_map" | "p03_guard" | "p04_map_2d" | "p06_blocks" | "p07_blocks_2d" | "p08_shared" => {
            input("a")?.iter().map(|v| v + 10.0).collect()
        }
        "p02_zip" => input("a")?
            .iter()
            .zip(input("b")?)
            .map(|(a, b)| a + b)
            .collect(),
        // out[row][col] = a[col] + b[row]
        "p05_broadcast" => {
            let (a, b) = (input("a")?, input("b")?);
            b.iter()
                .flat_map(|row| a.iter().map(move |col| col + row))
                .collect()
        }
        _ => return None,
    };
    Some(BTreeMap::from([("out".to_string(), out)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dtype;
    use crate::spec::Buffer;

    fn buffer(name: &str, values: Option<Vec<f64>>) -> Arg {
        let len = values.as_ref().map_or(4, Vec::len);
        Arg::Buffer(Buffer {
            name: name.into(),
            dtype: Dtype::F32,
            shape: vec![len],
            init: values,
            expect: None,
        })
    }

    fn spec(id: &str, args: Vec<Arg>) -> Spec {
        Spec {
            id: id.into(),
            title: String::new(),
            kernel: String::new(),
            constants: Default::default(),
            grid: [1; 3],
            block: [1; 3],
            dynamic_shared_bytes: 0,
            args,
        }
    }

    /// The references reproduce the seed book's printouts.
    #[test]
    fn matches_the_seed_printouts() {
        let cases = [
            (
                "p01_map",
                vec![0.0, 1.0, 2.0, 3.0],
                vec![0.0, 1.0, 2.0, 3.0],
                vec![10.0, 11.0, 12.0, 13.0],
            ),
            (
                "p02_zip",
                vec![0.0, 1.0, 2.0, 3.0],
                vec![0.0, 1.0, 2.0, 3.0],
                vec![0.0, 2.0, 4.0, 6.0],
            ),
            (
                "p05_broadcast",
                vec![0.0, 1.0],
                vec![0.0, 1.0],
                vec![0.0, 1.0, 1.0, 2.0],
            ),
        ];
        for (id, a, b, want) in cases {
            let s = spec(
                id,
                vec![
                    buffer("out", None),
                    buffer("a", Some(a)),
                    buffer("b", Some(b)),
                ],
            );
            assert_eq!(expected(&s).unwrap()["out"], want, "{id}");
        }
        assert!(expected(&spec("p99_unknown", vec![])).is_none());
    }
}
