//! Memory by address. (Being written.)
