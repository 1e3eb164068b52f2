//! Command-line tests of the chesspipe tools, linked into one binary.
