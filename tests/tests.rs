//! Command-line tests of the chesspipe tools, linked into one binary.

#[allow(dead_code)]
mod util;

mod kpgn_filter;
