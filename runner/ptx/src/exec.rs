//! One thread's interpreter. (Being written.)
