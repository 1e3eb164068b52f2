//! The Kriegspiel filter on arbitrary bytes, for both players.
//!
//! The first byte chooses the options (`--keep-comments`, `--plies`) and
//! a batch size; the rest is the input. On two threads, in batches of
//! that size, the output and the messages are those of one thread. When
//! nothing is reported about an input, filtering its output again for the
//! same player must give back the same bytes, again without a message.

#![no_main]

use chesspipe::cmd::kpgn_filter;
use chesspipe::kpgn::{self, Config, Side};
use chesspipe::diag::Diagnostic;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&opts, input)) = data.split_first() else { return };
    for player in [Side::White, Side::Black] {
        let config = Config {
            player,
            plies: (opts & 1 != 0).then_some(u64::from(opts >> 2)),
            keep_comments: opts & 2 != 0,
        };
        let (once, report) = filter(&config, input);
        let batch_bytes = 1 + usize::from(opts >> 4) * 16;
        let (mut threaded, mut messages) = (vec![], vec![]);
        kpgn_filter::filter_batches(
            &config,
            2,
            batch_bytes,
            input,
            &mut threaded,
            &mut messages,
        )
        .expect("writing to a Vec never fails");
        assert_eq!(messages, report, "threads: other messages");
        assert!(threaded == once, "threads: other output");
        if !report.is_empty() {
            continue;
        }
        let (twice, again) = filter(&config, &once);
        assert_eq!(again, [], "{:?}", String::from_utf8_lossy(&once));
        assert_eq!(
            String::from_utf8_lossy(&twice),
            String::from_utf8_lossy(&once),
            "not idempotent for {player:?}",
        );
    }
});

/// The filter's output and its messages.
fn filter(config: &Config, input: &[u8]) -> (Vec<u8>, Vec<Diagnostic>) {
    let (mut out, mut report) = (vec![], vec![]);
    kpgn::filter_reader(config, input, &mut out, &mut report)
        .expect("writing to a Vec never fails");
    (out, report)
}
