/*!
The tools built on the format library: one module per tool, named after
it, and what only the tools share.

This is not the crate's API (it is hidden from the docs): it is the
inside of the binaries in `bin/`, which stay thin (arguments, then
[`cli::main`]). Everything here may use the library; nothing in the
library uses anything here.

| module | what |
| --- | --- |
| [`pbi2csv`] | `pbi2csv`: PBI records as CSV rows |
| [`csv2pbi`] | `csv2pbi`: CSV rows and workbooks back to PBI records |
| [`csv_row`] | pbi2csv's fast way: a row straight from a scanned line |
| [`csv_rows`] | where the rows of CSV input start, a quote never closed |
| [`read_back`] | pbi2csv's check that csv2pbi reads its lists back |
| [`pbi_grep`] | `pbi-grep`: selecting PBI records |
| [`gbr_encode`] | `gbr-encode`: GBR codes of positions, and back |
| [`kpgn_filter`] | `kpgn-filter`: Kriegspiel games for one player |
| [`kpgn_check`] | `kpgn-check`: refereeing Kriegspiel records |
| [`games`] | the Kriegspiel games of every input, on threads |
| [`cli`] | running a tool, usage errors, the exit status |
| [`flags`] | each tool's table of options: parser, help, completions |
| [`msg`] | printing diagnostics to stderr |
| [`json`] | JSON strings, for pbi2csv's JSON Lines |
| [`input`] | opening `-` and the files named on the command line |
| [`output`] | buffered stdout, the CSV writer, a closed pipe |
| [`par`] | the records of one input on several threads, in order |
| [`xlsx`] | pbi2csv's workbook: rows of text cells, comment lines |
*/

pub mod cli;
pub mod csv2pbi;
pub mod csv_row;
pub mod csv_rows;
pub mod flags;
pub mod games;
pub mod gbr_encode;
pub mod input;
pub mod json;
pub mod kpgn_check;
pub mod kpgn_filter;
pub mod msg;
pub mod output;
pub mod par;
pub mod pbi2csv;
pub mod pbi_grep;
pub mod read_back;
pub mod xlsx;
