//! Kernel id patterns (`--kernel 'mlkem.*'`): `*` matches any run of characters, `?` one character, everything
//! else itself. Matching is globset's (linear time); the other glob syntax (classes, alternatives) is escaped, so
//! that an id pattern means what it says.

/// A compiled kernel id pattern.
#[derive(Debug, Clone)]
pub struct Glob(globset::GlobMatcher);

impl Glob {
    pub fn new(pattern: &str) -> Glob {
        let mut escaped = String::with_capacity(pattern.len());
        for c in pattern.chars() {
            match c {
                '[' | ']' | '{' | '}' | '\\' => escaped.extend(['[', c, ']']),
                c => escaped.push(c),
            }
        }
        let glob = globset::GlobBuilder::new(&escaped)
            .literal_separator(false)
            .backslash_escape(false)
            .build()
            .expect("an escaped pattern is a valid glob");
        Glob(glob.compile_matcher())
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}

/// Whether `text` matches `pattern`.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    Glob::new(pattern).is_match(text)
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match("keccak.*", "keccak.f1600"));
        assert!(glob_match("*", "anything"));
        assert!(glob_match("keccak.?1600", "keccak.f1600"));
        assert!(!glob_match("keccak.*", "mlkem.ntt.fwd"));
        assert!(!glob_match("keccak", "keccak.f1600"));
    }

    #[test]
    fn only_stars_and_question_marks_are_special() {
        assert!(glob_match("a[b]{c,d}\\e", "a[b]{c,d}\\e"));
        assert!(!glob_match("a[bc]", "ab"));
        assert!(glob_match("x/*", "x/y/z"));
    }

    /// The hand-written matcher this replaces backtracked exponentially on patterns of many stars.
    #[test]
    fn many_stars_match_in_linear_time() {
        let pattern = "*a".repeat(30) + "b";
        assert!(!glob_match(&pattern, &"a".repeat(60)));
    }
}
