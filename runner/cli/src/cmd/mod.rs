//! One file per command, as mdBook's `cmd/` has it. Each holds the
//! command's arguments and its `execute`.

pub mod bench;
pub mod calibrate;
pub mod check;
pub mod hint;
pub mod inputs;
pub mod list;
pub mod progress;
pub mod record;
pub mod reset;
pub mod run;
pub mod show;
pub mod watch;
