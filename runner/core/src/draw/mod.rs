//! Pictures of a traced run, drawn as SVG from its [`AccessMap`] alone, so a
//! terminal, a page and a browser draw the same thing. They show what a run
//! did; whether it passed is the judge's ([`crate::judge`]).
//!
//! - [`diagram`]: who touched which element, for every buffer and workgroup variable;
//! - [`intervals`]: a block's shared memory one barrier interval at a time;
//! - `svg_text`: the numbers and outlines both write, in as few characters as read alike.
//!
//! [`AccessMap`]: crate::backend_contract::access_map::AccessMap

pub mod diagram;
pub mod intervals;
mod svg_text;

#[cfg(test)]
mod test_touch;
