//! pbi2csv's workbook (`-o FILE.xlsx`): records as rows of text cells.
//!
//! Every cell is a string in a column formatted as text (`@`), so that
//! no spreadsheet reads `007`, `1/2`, `11.8.1966` or `=2` as a number, a
//! date or a formula, and what a person types there later stays text
//! too. The header row is bold and frozen. The data sheets are written
//! in rust_xlsxwriter's constant-memory mode: each row goes to a
//! temporary file when the next one starts, strings inline, so memory
//! stays flat. A sheet holds at most 1,048,576 rows; past that, the
//! records go on in a continuation sheet (`records 2`, `records 3`, ...)
//! with the same header, which csv2pbi reads after the first. The second
//! sheet, `comments`, holds each input's name and comment lines.

use std::borrow::Cow;
use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};

use rust_xlsxwriter::{Format, Workbook, Worksheet, XlsxError};
use tempfile::NamedTempFile;

/// The rows of a worksheet, the header row included (Excel's limit, and
/// LibreOffice's).
pub const MAX_ROWS: u32 = 1_048_576;

/// The longest text a cell holds, in UTF-16 code units.
pub const MAX_CELL: usize = 32_767;

/// The built-in number format `@`, Text, in Excel's list (ECMA-376,
/// 18.8.30): a custom `@` would read the same, but this is the one that
/// spreadsheets show as "Text".
const TEXT: u8 = 49;

/// The name of the first data sheet; continuation sheets add ` 2`, ` 3`.
pub const RECORDS: &str = "records";

/// The name of the sheet of comment lines.
pub const COMMENTS: &str = "comments";

/// Why a record does not go into the workbook.
#[derive(Debug)]
pub enum Skip {
    /// A value is longer than a cell holds: the column and its length.
    TooLong(usize, usize),
}

/// A workbook being written.
pub struct Book {
    workbook: Workbook,
    path: PathBuf,
    /// The file the workbook is written to.
    out: Out,
    /// The header's column names and widths.
    columns: Vec<(&'static str, f64)>,
    header: bool,
    bold: Format,
    text: Format,
    /// The worksheet index of the data sheet being written, and how many
    /// data sheets there are.
    sheet: usize,
    sheets: u32,
    /// The next row of the data sheet, and the most it may have.
    row: u32,
    max_rows: u32,
    /// The next row of the comments sheet.
    comment_row: u32,
    /// The values of the record being written, as [`Book::check`] took
    /// them.
    cells: Vec<String>,
}

impl Book {
    /// A workbook for `path` with these columns (names and widths), and a
    /// header row unless `header` is false. Its file is made now, beside
    /// `path` (which [`Book::finish`] replaces with it), so that a bad
    /// path is reported before the input is read.
    ///
    /// # Errors
    ///
    /// Creating the file, or the first sheet's temporary file (in
    /// `TMPDIR`: [`XlsxError::TempFileError`]).
    pub fn new(
        path: &Path,
        columns: Vec<(&'static str, f64)>,
        header: bool,
    ) -> Result<Book, XlsxError> {
        Book::with_max_rows(path, columns, header, MAX_ROWS)
    }

    /// [`Book::new`] with a smaller sheet, for tests of the continuation.
    pub fn with_max_rows(
        path: &Path,
        columns: Vec<(&'static str, f64)>,
        header: bool,
        max_rows: u32,
    ) -> Result<Book, XlsxError> {
        let out = Out::new(path)?;
        let mut book = Book {
            workbook: Workbook::new(),
            path: path.to_path_buf(),
            out,
            columns,
            header,
            bold: Format::new().set_bold().set_num_format_index(TEXT),
            text: Format::new().set_num_format_index(TEXT),
            sheet: 0,
            sheets: 0,
            row: 0,
            max_rows,
            comment_row: 1,
            cells: Vec::new(),
        };
        book.data_sheet()?;
        let comments = book.workbook.add_worksheet();
        comments.set_name(COMMENTS)?;
        let bold = book.bold.clone();
        let text = book.text.clone();
        for (col, (name, width)) in
            [("file", 24.0), ("comment", 80.0)].into_iter().enumerate()
        {
            let col = col as u16;
            comments.set_column_width(col, width)?;
            comments.set_column_format(col, &text)?;
            comments.write_string_with_format(0, col, name, &bold)?;
        }
        comments.set_freeze_panes(1, 0)?;
        Ok(book)
    }

    /// Starts a data sheet: `records`, or a continuation.
    fn data_sheet(&mut self) -> Result<(), XlsxError> {
        self.sheets += 1;
        let name = match self.sheets {
            1 => RECORDS.to_string(),
            n => format!("{RECORDS} {n}"),
        };
        let sheet = self.workbook.add_worksheet_with_constant_memory()?;
        sheet.set_name(name)?;
        self.row = 0;
        for (col, &(name, width)) in self.columns.iter().enumerate() {
            let col = col as u16;
            sheet.set_column_width(col, width)?;
            sheet.set_column_format(col, &self.text)?;
            if self.header {
                sheet.write_string_with_format(0, col, name, &self.bold)?;
            }
        }
        if self.header {
            sheet.set_freeze_panes(1, 0)?;
            self.row = 1;
        }
        // Sheet 1 is the comments sheet.
        self.sheet = if self.sheets == 1 { 0 } else { self.sheets as usize };
        Ok(())
    }

    /// Adds a comment line of input `input`; `None` names an input that
    /// has none. Returns whether the line went in whole: a line that is
    /// not UTF-8 (U+FFFD stands for such bytes) or longer than a cell
    /// holds (it is cut) does not.
    ///
    /// # Errors
    ///
    /// Only rust_xlsxwriter's (the comments sheet is kept in memory).
    pub fn comment(
        &mut self,
        input: &str,
        line: Option<&[u8]>,
    ) -> Result<bool, XlsxError> {
        let row = self.comment_row;
        if row >= MAX_ROWS {
            return Ok(false);
        }
        let sheet = self.workbook.worksheet_from_index(1)?;
        sheet.write_string_with_format(row, 0, input, &self.text)?;
        let mut whole = true;
        if let Some(line) = line {
            let text = String::from_utf8_lossy(line);
            let cell = cut(&text);
            whole =
                matches!(text, Cow::Borrowed(_)) && cell.len() == text.len();
            sheet.write_string_with_format(row, 1, cell, &self.text)?;
        }
        self.comment_row += 1;
        Ok(whole)
    }

    /// Checks the values of one record: whether each fits a cell, and
    /// whether each is UTF-8 (otherwise the bytes that are not become
    /// U+FFFD; the result says so). Then [`Book::row`] writes them.
    ///
    /// # Errors
    ///
    /// [`Skip::TooLong`] for a value that no cell can hold.
    pub fn check<'v>(
        &mut self,
        values: impl Iterator<Item = &'v [u8]>,
    ) -> Result<bool, Skip> {
        self.cells.clear();
        let mut lossy = false;
        for (col, value) in values.enumerate() {
            let text = match std::str::from_utf8(value) {
                Ok(text) => text.to_string(),
                Err(_) => {
                    lossy = true;
                    String::from_utf8_lossy(value).into_owned()
                }
            };
            // UTF-8 never takes fewer bytes than UTF-16 code units.
            if text.len() > MAX_CELL {
                let units = text.encode_utf16().count();
                if units > MAX_CELL {
                    return Err(Skip::TooLong(col, units));
                }
            }
            self.cells.push(text);
        }
        Ok(lossy)
    }

    /// Writes the values [`Book::check`] took as the next row, in a
    /// continuation sheet when this one is full.
    ///
    /// # Errors
    ///
    /// rust_xlsxwriter's, such as a temporary file that cannot be made.
    pub fn row(&mut self) -> Result<(), XlsxError> {
        if self.row >= self.max_rows {
            self.data_sheet()?;
        }
        let row = self.row;
        let sheet = self.workbook.worksheet_from_index(self.sheet)?;
        let mut any = false;
        for (col, text) in self.cells.drain(..).enumerate() {
            if !text.is_empty() {
                sheet.write_string_with_format(
                    row, col as u16, text, &self.text,
                )?;
                any = true;
            }
        }
        if !any {
            // A record of empty fields still has its row: a blank cell,
            // which readers see, unlike a row with no cell at all.
            blank(sheet, row, &self.text)?;
        }
        self.row += 1;
        Ok(())
    }

    /// Writes the workbook out.
    ///
    /// # Errors
    ///
    /// Writing the file, or reading back the temporary files.
    pub fn finish(mut self) -> Result<(), XlsxError> {
        match self.out {
            Out::Beside(mut file) => {
                self.workbook.save_to_writer(file.as_file_mut())?;
                file.persist(&self.path).map_err(|e| e.error)?;
            }
            Out::Direct(file) => self.workbook.save_to_writer(file)?,
        }
        Ok(())
    }
}

/// Where the workbook is written.
#[derive(Debug)]
enum Out {
    /// A file beside the path, which replaces it when the workbook is
    /// complete: a run that fails leaves no empty or partial workbook,
    /// and an existing one as it was.
    Beside(NamedTempFile),
    /// The path itself, which is not a regular file (a pipe, a device):
    /// it cannot be replaced.
    Direct(File),
}

impl Out {
    fn new(path: &Path) -> std::io::Result<Out> {
        match std::fs::metadata(path) {
            Ok(meta) if !meta.is_file() => {
                if meta.is_dir() {
                    return Err(std::io::ErrorKind::IsADirectory.into());
                }
                File::create(path).map(Out::Direct)
            }
            _ => beside(path).map(Out::Beside),
        }
    }
}

/// A new file in the directory of `path`, named after it, to be renamed
/// to it: made as `File::create` makes one (read and write for all, less
/// the umask), where a temporary file would be for its owner alone.
fn beside(path: &Path) -> std::io::Result<NamedTempFile> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut prefix = OsString::from(".");
    prefix.push(path.file_name().unwrap_or(path.as_os_str()));
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".part");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

fn blank(
    sheet: &mut Worksheet,
    row: u32,
    text: &Format,
) -> Result<(), XlsxError> {
    sheet.write_blank(row, 0, text)?;
    Ok(())
}

/// `text` cut to what a cell holds (a comment line that long is cut, as
/// the comments sheet is only for reading).
fn cut(text: &str) -> &str {
    if text.len() <= MAX_CELL {
        return text;
    }
    let mut units = 0;
    for (i, c) in text.char_indices() {
        units += c.len_utf16();
        if units > MAX_CELL {
            return &text[..i];
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use calamine::{Reader, Xlsx};

    use super::*;

    /// Past a sheet's last row the records go on in `records 2`, then
    /// `records 3`, each with its header row; `comments` stays second.
    #[test]
    fn continuation_sheets() {
        let dir = std::env::temp_dir().join(format!(
            "chesspipe-xlsx-{}-continuation",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.xlsx");
        let columns = vec![("authors", 20.0), ("stipulation", 10.0)];
        let mut book = Book::with_max_rows(&path, columns, true, 4).unwrap();
        book.comment("a.pbi", Some(b"# one")).unwrap();
        for i in 0..7 {
            let a = format!("A{i}");
            let values = [a.as_bytes(), b"#2"];
            assert!(!book.check(values.into_iter()).unwrap());
            book.row().unwrap();
        }
        book.finish().unwrap();
        let mut read: Xlsx<_> = calamine::open_workbook(&path).unwrap();
        let names = read.sheet_names();
        assert_eq!(names, ["records", "comments", "records 2", "records 3"]);
        let mut rows = vec![];
        for sheet in ["records", "records 2", "records 3"] {
            let range = read.worksheet_range(sheet).unwrap();
            let sheet_rows: Vec<String> = range
                .rows()
                .map(|r| r.iter().map(|c| c.to_string()).collect::<Vec<_>>())
                .map(|r| r.join(","))
                .collect();
            assert_eq!(sheet_rows[0], "authors,stipulation");
            assert!(sheet_rows.len() <= 4);
            rows.extend(sheet_rows.into_iter().skip(1));
        }
        let want: Vec<String> = (0..7).map(|i| format!("A{i},#2")).collect();
        assert_eq!(rows, want);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_value_too_long_for_a_cell() {
        let dir = std::env::temp_dir()
            .join(format!("chesspipe-xlsx-{}-long", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("l.xlsx");
        let mut book =
            Book::new(&path, vec![("comment", 40.0)], true).unwrap();
        let long = "é".repeat(MAX_CELL + 1);
        let got = book.check([long.as_bytes()].into_iter());
        assert!(matches!(got, Err(Skip::TooLong(0, n)) if n == MAX_CELL + 1));
        let fits = "é".repeat(MAX_CELL);
        assert!(!book.check([fits.as_bytes()].into_iter()).unwrap());
        assert!(book.check([&b"M\xfcller"[..]].into_iter()).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
