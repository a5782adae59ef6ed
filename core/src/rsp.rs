//! NIST KAT response files (`.rsp`): records of `name = HEX` lines, each opened by `count = N`, separated by blank
//! lines. Lines starting with `#` are comments.

use std::fmt::Write;

/// One record: its count and its fields in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub count: u64,
    pub fields: Vec<(String, Vec<u8>)>,
}

impl Record {
    pub fn new(count: u64) -> Self {
        Self { count, fields: Vec::new() }
    }

    /// Appends a field (builder style).
    pub fn with(mut self, name: &str, value: &[u8]) -> Self {
        self.fields.push((name.to_owned(), value.to_vec()));
        self
    }

    /// The first field called `name`.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_slice())
    }

    /// `count = N` then one `name = HEX` line per field (uppercase hex), each ending in a newline.
    pub fn to_rsp(&self) -> String {
        let mut out = format!("count = {}\n", self.count);
        for (name, value) in &self.fields {
            let _ = write!(out, "{name} = ");
            for byte in value {
                let _ = write!(out, "{byte:02X}");
            }
            out.push('\n');
        }
        out
    }
}

/// A whole file: an optional `# header` line, then each record followed by a blank line.
pub fn write(header: Option<&str>, records: &[Record]) -> String {
    let mut out = header.map(|h| format!("# {h}\n\n")).unwrap_or_default();
    for record in records {
        out.push_str(&record.to_rsp());
        out.push('\n');
    }
    out
}

/// What is wrong with a `.rsp` file, and on which line (1-based).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RspError {
    #[error("line {line}: expected `name = value`")]
    NotAnAssignment { line: usize },
    #[error("line {line}: count is not a decimal number")]
    BadCount { line: usize },
    #[error("line {line}: field `{name}` is not an even number of hex digits")]
    BadHex { line: usize, name: String },
    #[error("line {line}: field `{name}` before the first `count`")]
    FieldBeforeCount { line: usize, name: String },
}

/// The records of a `.rsp` file, in order.
pub fn parse(text: &str) -> Result<Vec<Record>, RspError> {
    let mut records: Vec<Record> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (name, value) = trimmed.split_once('=').ok_or(RspError::NotAnAssignment { line })?;
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() {
            return Err(RspError::NotAnAssignment { line });
        }
        if name == "count" {
            let count = value.parse().map_err(|_| RspError::BadCount { line })?;
            records.push(Record::new(count));
            continue;
        }
        let bytes = decode_hex(value).ok_or_else(|| RspError::BadHex { line, name: name.to_owned() })?;
        let record = records.last_mut().ok_or_else(|| RspError::FieldBeforeCount { line, name: name.to_owned() })?;
        record.fields.push((name.to_owned(), bytes));
    }
    Ok(records)
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    text.as_bytes().chunks_exact(2).map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let records = vec![Record::new(0).with("seed", &[0x00, 0xAB]).with("ss", &[]), Record::new(1).with("pk", &[1])];
        let text = write(Some("ML-KEM-768"), &records);
        assert!(text.starts_with("# ML-KEM-768\n\ncount = 0\nseed = 00AB\nss = \n\ncount = 1\n"));
        assert_eq!(parse(&text).unwrap(), records);
        assert_eq!(records[0].get("seed"), Some(&[0x00, 0xAB][..]));
        assert_eq!(records[0].get("pk"), None);
    }

    #[test]
    fn lowercase_hex_and_crlf_are_read() {
        let records = parse("count = 7\r\nct = abCD\r\n").unwrap();
        assert_eq!(records, vec![Record::new(7).with("ct", &[0xAB, 0xCD])]);
    }

    #[test]
    fn malformed_files_are_typed_errors() {
        assert_eq!(parse("count = 0\nno equals\n"), Err(RspError::NotAnAssignment { line: 2 }));
        assert_eq!(parse("count = x\n"), Err(RspError::BadCount { line: 1 }));
        assert_eq!(parse("count = 0\npk = ABC\n"), Err(RspError::BadHex { line: 2, name: "pk".into() }));
        assert_eq!(parse("count = 0\npk = zz\n"), Err(RspError::BadHex { line: 2, name: "pk".into() }));
        assert_eq!(parse("pk = 00\n"), Err(RspError::FieldBeforeCount { line: 1, name: "pk".into() }));
        assert_eq!(parse(" = 00\n"), Err(RspError::NotAnAssignment { line: 1 }));
        assert_eq!(parse("count = 0\npk = é0\n"), Err(RspError::BadHex { line: 2, name: "pk".into() }));
    }
}
