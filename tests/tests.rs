//! Command-line tests of the chesspipe tools, linked into one binary.

// Each tool's tests use only part of the harness.
#[allow(dead_code)]
mod util;

mod common;
mod compressed;
mod csv2pbi;
mod endless;
mod examples;
mod gbr_encode;
mod kpgn_check;
mod kpgn_check_faults;
mod kpgn_filter;
mod kpgn_leak;
mod layout;
mod messages;
mod options;
mod pbi2csv;
mod pbi_grep;
