//! Memory as the checker lays it out and records it: every address in a
//! region of its own, what asynchronous copies keep in shared memory until
//! they land, and who read and wrote what.
//!
//! - `address`: the address windows of global, shared, local and parameter
//!   memory, and their regions (guard bands, the race rule's shadow);
//! - `mbarrier`: an mbarrier object, and the bulk copies counted on it;
//! - `in_flight`: the shared words copies in flight will write;
//! - `access`: the threads that global-memory counts name;
//! - `trace`: who touched which element, for the diagrams.

pub(crate) mod access;
pub(crate) mod address;
pub(crate) mod in_flight;
pub(crate) mod mbarrier;
pub(crate) mod trace;
