//! Endless lines (issue 16): pbi2csv and pbi-grep reject a first line
//! that cannot be a PBI marker as soon as its first bytes say so, instead
//! of reading it to its end (`pbi2csv /dev/zero` held 4 GB after 4 s).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::bin;

/// Runs `tool` with `args` and no stdin, killing it if it has not ended
/// within `limit`: its exit status and stderr.
fn run_within(tool: &str, args: &[&str], limit: Duration) -> (i32, String) {
    let mut child = Command::new(bin(tool))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the tool");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for the tool") {
            let out = child.wait_with_output().expect("its stderr");
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            return (status.code().unwrap_or(-1), err);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{tool} {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn dev_zero_is_not_pbi_at_once() {
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let limit = Duration::from_secs(20);
    for (tool, args) in [
        ("pbi2csv", &["/dev/zero"][..]),
        ("pbi-grep", &["x", "/dev/zero"][..]),
        ("pbi-grep", &["-c", "x", "/dev/zero", "/dev/zero"][..]),
    ] {
        let (code, err) = run_within(tool, args, limit);
        assert_eq!(code, 2, "{tool} {args:?}: {err}");
        let said = format!("{tool}: /dev/zero:1: not a PBI file\n");
        assert!(err.starts_with(&said), "{tool} {args:?}: {err}");
    }
}

/// csv2pbi stops a first row longer than any header (review F3 on
/// 2874efb: it read it whole, however long).
#[test]
fn dev_zero_is_no_csv_header_at_once() {
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let limit = Duration::from_secs(20);
    let (code, err) = run_within("csv2pbi", &["/dev/zero"], limit);
    assert_eq!(code, 2, "{err}");
    let said = "csv2pbi: /dev/zero:1: no header: the first row runs past";
    assert!(err.starts_with(said), "{err}");
}
