//! The two layers of `src/`: the format library, and the tools built on
//! it (`src/cmd/`). The data flows one way: nothing in the library may
//! use the tools' modules, so that a program using the library gets no
//! command-line options, stderr printing or exit statuses with it.

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of `text` that name the tools' module as a path: `cmd::`,
/// `cmd}` or `cmd,` in a `use` list, or `cmd` in `super::cmd`.
fn uses_of_cmd(text: &str) -> Vec<String> {
    let mut found = vec![];
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let bytes = code.as_bytes();
        for (i, _) in code.match_indices("cmd") {
            let before = i.checked_sub(1).map(|j| bytes[j]);
            let after = bytes.get(i + 3).copied();
            let word_start = !matches!(before,
                Some(b) if b.is_ascii_alphanumeric() || b == b'_');
            let is_path = matches!(after, Some(b':' | b'}' | b','))
                || before == Some(b':');
            if word_start && is_path {
                found.push(format!("{}: {}", n + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn the_library_does_not_use_the_tools() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    rust_files(&src, &mut files);
    let mut offences = vec![];
    for file in &files {
        if file.starts_with(src.join("cmd")) {
            continue;
        }
        let text = fs::read_to_string(file).unwrap();
        for line in uses_of_cmd(&text) {
            offences.push(format!("{}:{line}", file.display()));
        }
    }
    assert!(files.len() > 10, "found only {files:?}");
    assert!(
        offences.is_empty(),
        "library files use the tools' modules (src/cmd/):\n{}",
        offences.join("\n")
    );
}

/// The check finds every way of naming the module that compiles.
#[test]
fn the_check_sees_a_use_of_the_tools() {
    for line in [
        "use crate::cmd::output;",
        "use crate::{cmd, lines};",
        "use crate::{lines, cmd};",
        "    crate::cmd::par::run(x)",
        "use super::super::cmd;",
    ] {
        assert_eq!(uses_of_cmd(line).len(), 1, "{line}");
    }
    for line in ["pub mod cmd;", "// see crate::cmd::par", "let cmdline = 1;"]
    {
        assert!(uses_of_cmd(line).is_empty(), "{line}");
    }
}
