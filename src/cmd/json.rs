//! JSON strings, for pbi2csv's `--json` (JSON Lines).
//!
//! A small escaper rather than serde: the values are byte strings of
//! the input, written straight into the line being made, and the rules
//! are few (RFC 8259, section 7). The tests check it against serde_json.

/// Appends `bytes` as a JSON string, quotes included: `"` and `\`
/// escaped, control characters as `\n`, `\t` ... or `\u00XX`, and each
/// byte that is not part of UTF-8 as U+FFFD, since JSON text is UTF-8.
pub fn push_string(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    for chunk in bytes.utf8_chunks() {
        push_valid(out, chunk.valid().as_bytes());
        if !chunk.invalid().is_empty() {
            out.extend_from_slice("\u{FFFD}".as_bytes());
        }
    }
    out.push(b'"');
}

/// Appends valid UTF-8, escaped, without quotes.
fn push_valid(out: &mut Vec<u8>, text: &[u8]) {
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0C => b"\\f",
            0x00..=0x1F => b"",
            _ => continue,
        };
        out.extend_from_slice(&text[start..i]);
        if escape.is_empty() {
            out.extend_from_slice(format!("\\u{b:04x}").as_bytes());
        } else {
            out.extend_from_slice(escape);
        }
        start = i + 1;
    }
    out.extend_from_slice(&text[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use bstr::ByteSlice;

    /// Every string, valid UTF-8 or not, comes out as JSON that
    /// serde_json reads back as the string (with U+FFFD for the bytes
    /// that are not UTF-8), and as serde_json writes it.
    #[test]
    fn strings_are_what_serde_json_reads_and_writes() {
        let mut rng = crate::testing::Rng::new(16);
        const BYTES: &[&[u8]] = &[
            b"a",
            b"\"",
            b"\\",
            b"\n",
            b"\r",
            b"\t",
            b"\x00",
            b"\x01",
            b"\x08",
            b"\x0c",
            b"\x1f",
            b"\x7f",
            b" ",
            b"/",
            "é".as_bytes(),
            "\u{2028}".as_bytes(),
            "𝄞".as_bytes(),
            b"\xff",
            b"\xc3",
            b"\xe2\x80",
            b"\xed\xa0\x80",
        ];
        for _ in 0..20_000 {
            let mut bytes = vec![];
            for _ in 0..rng.below(12) {
                bytes.extend_from_slice(BYTES[rng.below(BYTES.len())]);
            }
            let mut out = vec![];
            push_string(&mut out, &bytes);
            let text = String::from_utf8_lossy(&bytes);
            let back: String = serde_json::from_slice(&out).unwrap();
            assert_eq!(back, text, "{:?}", bytes.as_bstr());
            let want = serde_json::to_string(&text).unwrap();
            assert_eq!(out.as_bstr(), want.as_bytes().as_bstr());
        }
    }
}
