//! Boards and GBR codes on arbitrary bytes.
//!
//! The input is read as a board; when it is one with legal material, all
//! three forms are encoded for every verdict and side to move and decoded
//! again. The input is also decoded as a code itself.

#![no_main]

use chesspipe::board::Board;
use chesspipe::gbr::{self, Form, Men, ToMove, Verdict};
use libfuzzer_sys::fuzz_target;

const VERDICTS: [Verdict; 3] = [Verdict::None, Verdict::Win, Verdict::Draw];
const TO_MOVE: [ToMove; 3] = [ToMove::Unknown, ToMove::White, ToMove::Black];

fuzz_target!(|data: &[u8]| {
    let mut out = vec![];
    let _ = gbr::decode(data, &mut out);
    let parsed = Board::parse(data);
    assert_eq!(Men::scan(data).is_some(), parsed.is_ok());
    let Ok(board) = parsed else { return };
    assert_eq!(Men::scan(data), Some(Men::of(&board)));
    let fen = board.fen();
    let again = Board::parse(fen.as_bytes()).expect("a FEN parses");
    assert_eq!(again.fen(), fen);
    if board.check_material().is_ok() {
        codes(&board, &fen);
    }
});

/// Encodes `board` in every form and decodes what can be decoded.
fn codes(board: &Board, fen: &str) {
    let mut code = vec![];
    let nine = gbr::material_code(board, &mut code);
    assert_eq!(nine, gbr::has_nine(board));
    let mut decoded = vec![];
    assert_eq!(gbr::decode(&code, &mut decoded).is_ok(), !nine);
    for verdict in VERDICTS {
        let mut study = vec![];
        assert_eq!(gbr::study(board, verdict, &mut study), nine);
        decoded.clear();
        assert_eq!(gbr::decode(&study, &mut decoded).is_ok(), !nine);
        for to_move in TO_MOVE {
            position(board, fen, verdict, to_move, nine);
            for form in [Form::Code, Form::Position, Form::Study] {
                let mut out = vec![];
                let n = gbr::encode(board, form, verdict, to_move, &mut out);
                assert_eq!(n, nine);
            }
        }
    }
}

/// The extended form decodes to the board and the side to move.
fn position(
    board: &Board,
    fen: &str,
    verdict: Verdict,
    to_move: ToMove,
    nine: bool,
) {
    let mut form = vec![];
    assert_eq!(gbr::position(board, verdict, to_move, &mut form), nine);
    let mut decoded = vec![];
    let result = gbr::decode(&form, &mut decoded);
    if nine {
        assert!(result.is_err());
        return;
    }
    if let Err(err) = result {
        panic!("{} does not decode: {err:?}", String::from_utf8_lossy(&form));
    }
    let side: &[u8] = match (verdict, to_move) {
        (Verdict::None, ToMove::Unknown) => b"",
        (_, ToMove::Black) => b" b",
        _ => b" w",
    };
    let mut want = fen.as_bytes().to_vec();
    want.extend_from_slice(side);
    assert_eq!(
        String::from_utf8_lossy(&decoded),
        String::from_utf8_lossy(&want),
        "form {}",
        String::from_utf8_lossy(&form)
    );
}
