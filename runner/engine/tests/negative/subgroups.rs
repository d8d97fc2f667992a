//! The subgroups of the `negative` group: kernels of the `subgroup_book`
//! fixture that must pass at every subgroup size, and fixtures right only
//! at some sizes, each failed at the others.

use super::edits::Fixture;
use super::{RUNNER, expect, fixtures, load, messages, root, run_on};
use libtest_mimic::{Failed, Trial};
use puzzle_core::assess::cases::Case;
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::source::text::SourceText;

/// WGSL kernels right only at some subgroup sizes: (file, puzzle, sizes at
/// which the CPU checker must pass it, sizes at which it must fail it). The
/// passing sizes show the trap: the kernel is right where its assumption
/// holds. On wgpu, lavapipe (subgroups of 8) must do what the table says for
/// 8; other adapters, and tables without 8, skip.
pub(super) const SUBGROUP_SIZE_BOUND: &[(&str, &str, &[u32], &[u32])] = &[
    // Part IV: slots sized and indexed for warps of 32.
    (
        "p21_warp_add_assumes_32.wgsl",
        "p21_warp_add",
        &[32],
        &[8, 64],
    ),
    // Part IV: a broadcast from lane 0 of the subgroup, right only where a
    // subgroup is one group of 8.
    (
        "p22_broadcast_whole_subgroup.wgsl",
        "p22_group_broadcast",
        &[8],
        &[32, 64],
    ),
    // Part IV: the ballot's first word taken for the whole ballot.
    ("p23_ballot_one_word.wgsl", "p23_compact", &[8, 32], &[64]),
];

/// The subgroup trials, in the group's order.
pub(super) fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    for puzzle in ["subgroup_dot", "subgroup_scan"] {
        trials.extend(subgroups(puzzle));
    }
    for &(file, puzzle, passes, fails) in SUBGROUP_SIZE_BOUND {
        trials.extend(subgroup_size_bound(file, puzzle, passes, fails));
    }
    trials
}

/// `subgroups::{puzzle}::sim{8,32}` and `::wgpu`: a kernel of the
/// `subgroup_book` fixture passes on the CPU checker with subgroups of 8 and
/// of 32, and on wgpu (where the adapter has subgroups), with equal outputs.
fn subgroups(puzzle: &'static str) -> Vec<Trial> {
    use puzzle_core::assess::execute::execute;
    use puzzle_core::wgsl::checker::SimBackend;
    let load = move || -> Result<(Book, SourceText), Failed> {
        let book = load(&fixtures().join("subgroup_book")).map_err(|e| format!("{e:?}"))?;
        let source = book
            .find(puzzle)?
            .kernel(Lang::Wgsl)
            .ok_or("no WGSL kernel")?
            .variant(Variant::Solution);
        Ok((book, source))
    };
    let on_sim = move |size: u32| -> Result<RunReport, Failed> {
        let (book, source) = load()?;
        let p = book.find(puzzle)?;
        let spec = p
            .spec
            .resolve(&Default::default())
            .map_err(|e| e.to_string())?;
        let backend = SimBackend::with_seed(1).with_subgroup_size(size);
        let report = execute(
            &backend,
            &spec,
            Variant::Solution,
            &source,
            &RUNNER.settings,
        );
        expect(&report, Status::Pass)?;
        Ok(report)
    };
    let mut trials: Vec<Trial> = [8, 32]
        .into_iter()
        .map(|size| {
            Trial::test(format!("subgroups::{puzzle}::sim{size}"), move || {
                on_sim(size).map(|_| ())
            })
            .with_kind("sim")
        })
        .collect();
    let name = format!("subgroups::{puzzle}::wgpu_agrees_with_sim");
    trials.push(match RUNNER.backend(BackendKind::Wgpu) {
        Ok(_) => Trial::test(name, move || {
            let (book, source) = load()?;
            let gpu = RUNNER.run_on(
                BackendKind::Wgpu,
                book.find(puzzle)?,
                Variant::Solution,
                &source,
                &Case::teaching(),
            )?;
            expect(&gpu, Status::Pass)?;
            let sim = on_sim(32)?;
            let got = |r: &RunReport| r.checks.iter().map(|c| c.got.clone()).collect::<Vec<_>>();
            if got(&gpu) != got(&sim) {
                return Err(format!(
                    "wgpu and sim disagree:\n{}\n{}",
                    gpu.to_text(),
                    sim.to_text()
                )
                .into());
            }
            Ok(())
        })
        .with_kind("wgpu"),
        Err(e) => Trial::test(name, || Ok(()))
            .with_kind(format!("skipped: {e}"))
            .with_ignored_flag(true),
    });
    trials
}

/// `subgroup_size::{file}::sim{N}` and `::wgpu`: a fixture of
/// [`SUBGROUP_SIZE_BOUND`] on the CPU checker with subgroups of N, passing or
/// failing as the table says, and on lavapipe as the table says for 8.
fn subgroup_size_bound(
    file: &'static str,
    puzzle: &'static str,
    passes: &'static [u32],
    fails: &'static [u32],
) -> Vec<Trial> {
    use puzzle_core::assess::execute::execute;
    use puzzle_core::wgsl::checker::SimBackend;
    let mut trials = Vec::new();
    let cases = passes
        .iter()
        .map(|&s| (s, Status::Pass))
        .chain(fails.iter().map(|&s| (s, Status::Fail)));
    for (size, status) in cases {
        trials.push(
            Trial::test(format!("subgroup_size::{file}::sim{size}"), move || {
                let book = load(&root())?;
                let source = Fixture::load(&book, file)?.source;
                let spec = book
                    .find(puzzle)?
                    .spec
                    .resolve(&Default::default())
                    .map_err(|e| e.to_string())?;
                let backend = SimBackend::with_seed(1).with_subgroup_size(size);
                let report = execute(&backend, &spec, Variant::File, &source, &RUNNER.settings);
                messages::check(
                    &format!("subgroup_size::{file}::sim{size}"),
                    &format!("{file} on {puzzle}, subgroups of {size}"),
                    BackendKind::Sim,
                    &report,
                );
                expect(&report, status)
            })
            .with_kind("sim"),
        );
    }
    let name = format!("subgroup_size::{file}::wgpu");
    let lavapipe = RUNNER
        .backend(BackendKind::Wgpu)
        .ok()
        .filter(|b| b.runs_kernels() && b.device().name.contains("llvmpipe"));
    let at_8 = match (passes.contains(&8), fails.contains(&8)) {
        (true, _) => Some(Status::Pass),
        (_, true) => Some(Status::Fail),
        _ => None,
    };
    trials.push(match (lavapipe, at_8) {
        (Some(_), Some(status)) => Trial::test(name, move || {
            let book = load(&root())?;
            let fixture = Fixture::load(&book, file)?;
            expect(
                &run_on(BackendKind::Wgpu, &book, puzzle, &fixture, None)?,
                status,
            )
        })
        .with_kind("wgpu"),
        _ => Trial::test(name, || Ok(()))
            .with_kind("skipped: needs lavapipe (subgroups of 8) and a verdict for 8".to_string())
            .with_ignored_flag(true),
    });
    trials
}
