//! Command-line tests of the chesspipe tools, linked into one binary.

// Each tool's tests use only part of the harness.
#[allow(dead_code)]
mod util;

mod pbi2csv;
