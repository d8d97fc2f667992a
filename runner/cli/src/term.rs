//! The terminal: colour where it is a terminal, plain text where it is not.
//!
//! Styled text goes through `anstream`, which drops the colour codes when
//! stdout is a pipe or a file, or when `NO_COLOR` is set (and keeps them
//! under `CLICOLOR_FORCE`). Clearing the screen is for terminals only.

use std::io::{IsTerminal, Write};

/// Prints text that may carry ANSI styles.
pub fn print(text: &str) {
    let mut out = anstream::stdout();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Whether stdout is a terminal a person watches.
pub fn is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// Clears the screen and its scroll-back on a terminal; does nothing when piped.
pub fn clear_screen() {
    if is_terminal() {
        let mut out = std::io::stdout();
        let _ = out.write_all(b"\x1b[2J\x1b[3J\x1b[H");
        let _ = out.flush();
    }
}

/// `text` dimmed.
pub fn dim(text: &str) -> String {
    let style = anstyle::Style::new().dimmed();
    format!("{style}{text}{style:#}")
}

/// `text` in bold `colour`.
pub fn bold(colour: anstyle::AnsiColor, text: &str) -> String {
    let style = colour.on_default().bold();
    format!("{style}{text}{style:#}")
}
