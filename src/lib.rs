/*!
chesspipe: streaming Unix filters for the text formats of chess
composition.

The data flows one way: [`lines`] splits any input into lines at every
line end the PBI specification allows; a format reader ([`pbi`]) turns
lines into records, or ([`kpgn`]) into games; a tool's logic selects or
converts them; a writer ([`output`]) sends the result to stdout.
Messages about bad input go through [`msg`], which also decides the exit
status.

The binaries in `bin/` are thin: they parse arguments ([`cli`] holds what
they share), build a configuration and run it.
*/

#![deny(missing_docs)]

pub mod board;
pub mod cli;
pub mod gbr;
pub mod gbr_encode;
pub mod input;
pub mod kpgn;
pub mod lines;
pub mod msg;
pub mod output;
pub mod par;
pub mod pbi;
pub mod select;
pub mod table;

#[cfg(test)]
mod testing;
