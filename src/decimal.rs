//! Numbers written into output buffers: line numbers, piece counts,
//! counts of illegal attempts. `write!` would go through the formatting
//! machinery for each one; this is a few instructions.

/// Appends `n` in decimal, without allocating (numbers in output rows:
/// line numbers, piece counts, counts of illegal attempts).
#[inline]
pub(crate) fn push(out: &mut Vec<u8>, n: u64) {
    if n < 10 {
        // Nearly every count: one digit.
        out.push(b'0' + n as u8);
        return;
    }
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}
