//! Index formulas for storage orders (`order-formula` in a manifest): integer expressions over `i` (their index) and
//! `n` (the buffer's length) that give the contract's index their index `i` holds.
//!
//! The language: decimal or `0x` integers, `i`, `n`, `+ - * / %` (`/` and `%` round towards negative infinity, so
//! that `%` is never negative), `<< >> & | ^`, unary `-`, parentheses and `bitrev(x, k)` (the low `k` bits of `x`
//! reversed). Precedence as in C. Arithmetic is on 64-bit integers: an overflow, a division by zero or a shift out of
//! 0..63 is an error, never a wrong index.

#[derive(Debug, Clone, PartialEq)]
pub struct Formula {
    text: String,
    root: Node,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Number(i64),
    I,
    N,
    Neg(Box<Node>),
    Binary(Op, Box<Node>, Box<Node>),
    BitRev(Box<Node>, Box<Node>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
}

/// Binary operators from the loosest to the tightest binding.
const LEVELS: [&[(&str, Op)]; 6] = [
    &[("|", Op::Or)],
    &[("^", Op::Xor)],
    &[("&", Op::And)],
    &[("<<", Op::Shl), (">>", Op::Shr)],
    &[("+", Op::Add), ("-", Op::Sub)],
    &[("*", Op::Mul), ("/", Op::Div), ("%", Op::Rem)],
];

/// Formulas longer than this are refused (a storage order is a short expression).
const MAX_LEN: usize = 200;

struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.text[self.at..].starts_with(' ') {
            self.at += 1;
        }
    }

    fn error(&self, what: &str) -> String {
        format!("at column {}: {what}", self.at + 1)
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        if self.text[self.at..].starts_with(token) {
            self.at += token.len();
            true
        } else {
            false
        }
    }

    fn binary(&mut self, level: usize) -> Result<Node, String> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        'more: loop {
            for &(token, op) in LEVELS[level] {
                if self.eat(token) {
                    let right = self.binary(level + 1)?;
                    left = Node::Binary(op, Box::new(left), Box::new(right));
                    continue 'more;
                }
            }
            return Ok(left);
        }
    }

    fn unary(&mut self) -> Result<Node, String> {
        if self.eat("-") {
            return Ok(Node::Neg(Box::new(self.unary()?)));
        }
        if self.eat("(") {
            let inner = self.binary(0)?;
            return if self.eat(")") { Ok(inner) } else { Err(self.error("expected `)`")) };
        }
        self.skip_space();
        let rest = &self.text[self.at..];
        let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if word.is_empty() {
            return Err(self.error("expected a number, `i`, `n`, `bitrev(x, k)` or `(`"));
        }
        let start = self.at;
        self.at += word.len();
        match word.as_str() {
            "i" => Ok(Node::I),
            "n" => Ok(Node::N),
            "bitrev" => {
                if !self.eat("(") {
                    return Err(self.error("expected `(` after bitrev"));
                }
                let x = self.binary(0)?;
                if !self.eat(",") {
                    return Err(self.error("expected `,` in bitrev(x, k)"));
                }
                let k = self.binary(0)?;
                if !self.eat(")") {
                    return Err(self.error("expected `)`"));
                }
                Ok(Node::BitRev(Box::new(x), Box::new(k)))
            }
            w if w.starts_with(|c: char| c.is_ascii_digit()) => {
                let parsed = match w.strip_prefix("0x") {
                    Some(hex) => i64::from_str_radix(hex, 16),
                    None => w.parse(),
                };
                parsed.map(Node::Number).map_err(|_| format!("at column {}: `{w}` is not a number", start + 1))
            }
            w => Err(format!("at column {}: unknown name `{w}` (i, n, bitrev)", start + 1)),
        }
    }
}

impl Formula {
    pub fn parse(text: &str) -> Result<Formula, String> {
        if text.len() > MAX_LEN {
            return Err(format!("longer than {MAX_LEN} characters"));
        }
        if let Some(c) = text.chars().find(|c| !c.is_ascii() || c.is_ascii_control()) {
            return Err(format!("the character {c:?} is not part of a formula"));
        }
        let mut parser = Parser { text, at: 0 };
        let root = parser.binary(0)?;
        parser.skip_space();
        if parser.at != text.len() {
            return Err(parser.error(&format!("unexpected `{}`", &text[parser.at..])));
        }
        Ok(Formula { text: text.to_string(), root })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn eval(&self, i: i64, n: i64) -> Result<i64, String> {
        eval(&self.root, i, n)
    }

    /// The formula at every index `0..n`, checked to be a permutation of `0..n`.
    pub fn table(&self, n: usize) -> Result<Vec<usize>, String> {
        let values: Result<Vec<i64>, String> = (0..n as i64).map(|i| self.eval(i, n as i64)).collect();
        let values = values?.into_iter().map(|v| usize::try_from(v).unwrap_or(usize::MAX)).collect();
        permutation(values, n)
    }
}

/// `values` if it holds every index of `0..n` exactly once; otherwise which index breaks it.
pub fn permutation(values: Vec<usize>, n: usize) -> Result<Vec<usize>, String> {
    if values.len() != n {
        return Err(format!("{} indices for {n} elements", values.len()));
    }
    let mut holder = vec![None; n];
    for (s, &c) in values.iter().enumerate() {
        if c >= n {
            let value = if c == usize::MAX { "a negative index".to_string() } else { c.to_string() };
            return Err(format!("index {s} gives {value}, outside 0..{n}"));
        }
        if let Some(first) = holder[c].replace(s) {
            return Err(format!("indices {first} and {s} both give {c}: not a permutation of 0..{n}"));
        }
    }
    Ok(values)
}

fn eval(node: &Node, i: i64, n: i64) -> Result<i64, String> {
    let overflow = || "overflows 64-bit integers".to_string();
    Ok(match node {
        Node::Number(v) => *v,
        Node::I => i,
        Node::N => n,
        Node::Neg(x) => eval(x, i, n)?.checked_neg().ok_or_else(overflow)?,
        Node::BitRev(x, k) => {
            let (x, k) = (eval(x, i, n)?, eval(k, i, n)?);
            if !(0..=63).contains(&k) {
                return Err(format!("bitrev with {k} bits (0..63)"));
            }
            if k == 0 { 0 } else { ((x as u64).reverse_bits() >> (64 - k)) as i64 }
        }
        Node::Binary(op, a, b) => {
            let (a, b) = (eval(a, i, n)?, eval(b, i, n)?);
            let shift = |b: i64| u32::try_from(b).ok().filter(|&s| s < 64).ok_or(format!("a shift by {b} (0..63)"));
            match op {
                Op::Add => a.checked_add(b).ok_or_else(overflow)?,
                Op::Sub => a.checked_sub(b).ok_or_else(overflow)?,
                Op::Mul => a.checked_mul(b).ok_or_else(overflow)?,
                Op::Div | Op::Rem if b == 0 => return Err(format!("a division by zero at i = {i}")),
                Op::Div => a.checked_div_euclid(b).ok_or_else(overflow)?,
                Op::Rem => a.checked_rem_euclid(b).ok_or_else(overflow)?,
                Op::Shl => {
                    let s = shift(b)?;
                    Some(a << s).filter(|r| r >> s == a).ok_or_else(overflow)?
                }
                Op::Shr => a >> shift(b)?,
                Op::And => a & b,
                Op::Or => a | b,
                Op::Xor => a ^ b,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, i: i64, n: i64) -> i64 {
        Formula::parse(text).unwrap().eval(i, n).unwrap()
    }

    #[test]
    fn precedence_is_c_s() {
        assert_eq!(at("(i % 2) * 128 + i / 2", 5, 256), 128 + 2);
        assert_eq!(at("i % 2 * 128 + i / 2", 4, 256), 2);
        assert_eq!(at("1 + 2 * 3 << 1", 0, 0), 14);
        assert_eq!(at("i & 3 | 8 ^ 1", 6, 0), 2 | (8 ^ 1));
        assert_eq!(at("-i % 5", 1, 0), 4);
        assert_eq!(at("0x10 >> 2", 0, 0), 4);
    }

    #[test]
    fn bitrev_reverses_the_low_bits() {
        assert_eq!(at("bitrev(i, 8)", 1, 256), 128);
        assert_eq!(at("bitrev(i, 3)", 6, 8), 3);
        assert_eq!(at("bitrev(i, 0)", 6, 8), 0);
        assert_eq!(at("bitrev(i / 2, 7) * 2 + i % 2", 3, 256), 129);
        // All 63 bits: 1 becomes 2^62, and bit 63 of a negative x is dropped.
        assert_eq!(at("bitrev(i, 63)", 1, 0), 1 << 62);
        assert_eq!(at("bitrev(i, 63)", -1, 0), i64::MAX);
    }

    #[test]
    fn errors_say_where() {
        assert_eq!(
            Formula::parse("i +").unwrap_err(),
            "at column 4: expected a number, `i`, `n`, `bitrev(x, k)` or `(`"
        );
        assert_eq!(Formula::parse("j * 2").unwrap_err(), "at column 1: unknown name `j` (i, n, bitrev)");
        assert_eq!(Formula::parse("(i").unwrap_err(), "at column 3: expected `)`");
        assert_eq!(Formula::parse("i i").unwrap_err(), "at column 3: unexpected `i`");
        assert!(Formula::parse("i / (i - 1)").unwrap().eval(1, 4).unwrap_err().contains("division by zero at i = 1"));
        assert!(Formula::parse("i << 64").unwrap().eval(1, 4).unwrap_err().contains("shift by 64"));
        assert!(Formula::parse("i * 0x7fffffffffffffff").unwrap().eval(2, 4).unwrap_err().contains("overflows"));
    }

    #[test]
    fn tables_must_be_permutations() {
        let even_odd = Formula::parse("(i % 2) * 4 + i / 2").unwrap().table(8).unwrap();
        assert_eq!(even_odd, [0, 4, 1, 5, 2, 6, 3, 7]);
        assert_eq!(
            Formula::parse("i / 2").unwrap().table(8).unwrap_err(),
            "indices 0 and 1 both give 0: not a permutation of 0..8"
        );
        assert_eq!(Formula::parse("i + 1").unwrap().table(8).unwrap_err(), "index 7 gives 8, outside 0..8");
        assert_eq!(permutation(vec![0, 1], 3).unwrap_err(), "2 indices for 3 elements");
    }
}
