//! The end-to-end tests of the book, as one binary: each group is a file
//! beside this one, and `TEST_GROUPS=browser` runs some of them.
//!
//! - `book_build`: the real `mdbook build` and `serve` with the preprocessor;
//! - `browser`: every page in a headless Chromium, in the light and navy themes;
//! - `playground`: the published site's in-page checker, driven as a reader would.

#[path = "../runner/engine/tests/support/suite.rs"]
#[macro_use]
mod suite;

mod book_build;
mod browser;
mod playground;

fn main() {
    // Listing the tests builds nothing.
    if !std::env::args().any(|a| a == "--list") {
        book_tests::build_preprocessor();
    }
    suite::run(&[
        ("book_build", |_| book_build::trials()),
        ("browser", |_| browser::trials()),
        ("playground", |_| playground::trials()),
    ])
}
