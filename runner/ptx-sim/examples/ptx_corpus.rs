//! Parses every `.ptx` file in a folder (NVRTC's output for the book's
//! kernels) and lists what the checker does not run: a tool for the next
//! instruction to implement. `cargo run -p ptx-sim --example ptx_corpus -- DIR`
fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let mut missing: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let mut entries = std::fs::read_dir(&dir)
        .expect("a folder")
        .flatten()
        .collect::<Vec<_>>();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "ptx") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable");
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        match ptx_sim::Module::parse(&text) {
            Err(err) => println!("{name}: {err}"),
            Ok(m) => {
                for k in &m.kernels {
                    for (inst, _) in k.unsupported() {
                        missing
                            .entry(inst.to_string())
                            .or_default()
                            .push(name.clone());
                    }
                }
            }
        }
    }
    for (inst, files) in missing {
        let mut files = files;
        files.dedup();
        println!("{inst}: {}", files.join(" "));
    }
}
