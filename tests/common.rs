//! What every tool shares on its command line.

use crate::util::Dir;

/// `-j` takes 1 to 256 threads in every tool that has it; anything else,
/// huge numbers included, is a usage error, not an abort (issue 13).
#[test]
fn threads_from_1_to_256_in_every_tool() {
    let dir = Dir::new("threads-usage");
    for (tool, args) in [
        ("pbi2csv", &[][..]),
        ("pbi-grep", &["x"][..]),
        ("gbr-encode", &[][..]),
        ("kpgn-filter", &["-w"][..]),
        ("kpgn-check", &[][..]),
        ("csv2pbi", &[][..]),
    ] {
        for bad in
            ["0", "-1", "two", "", "257", "4294967297", "99999999999999999999"]
        {
            dir.command(tool)
                .args(args)
                .args(["-j", bad])
                .stdin("")
                .run()
                .code(2)
                .says("-j/--threads: expected a whole number from 1 to 256");
        }
        for good in ["1", "256"] {
            let out = dir
                .command(tool)
                .args(args)
                .args(["-j", good])
                .stdin("")
                .run();
            assert!(!out.err().contains("-j/--threads"), "{tool} -j {good}");
        }
    }
}
