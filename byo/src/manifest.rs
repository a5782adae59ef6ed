//! The manifest (TOML) of a user's kernels: what to link, for which core, and how each symbol maps to a contract.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use std::sync::Arc;

use super::formula::Formula;
use crate::foreign::{Adapter, Form, Layout, Order, Representation};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// `m55`, `m85` or `m7`.
    pub core: String,
    /// Objects and archives (`.o`, `.a`), relative to the manifest.
    #[serde(default)]
    pub objects: Vec<PathBuf>,
    /// Sources to assemble or compile (`.s`, `.S`, `.c`), relative to the manifest.
    #[serde(default)]
    pub sources: Vec<PathBuf>,
    /// Flags for the sources (`-DNAME`, `-I dir`, `-O3`...).
    #[serde(default)]
    pub flags: Vec<String>,
    /// Symbols of yours that are our tables: your name -> ours (`pqh_mlkem_zeta`); our kernel objects are then
    /// linked in for them.
    #[serde(default)]
    pub aliases: BTreeMap<String, String>,
    /// Contracts declared here ([`crate::declared`]), for kernels with no contract of ours.
    #[serde(rename = "contract", default)]
    pub contracts: Vec<crate::declared::ContractEntry>,
    /// One entry per symbol to check.
    #[serde(rename = "kernel")]
    pub kernels: Vec<KernelEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelEntry {
    pub symbol: String,
    /// The id of the contract it implements (`pqhelium list`, or a `[[contract]]` of the manifest).
    pub contract: String,
    /// Its arguments in order: the contract's argument names, and extras; the contract's order when absent.
    pub args: Option<Vec<ArgEntry>>,
    /// Adapters by contract argument name.
    #[serde(default)]
    pub adapt: BTreeMap<String, AdapterEntry>,
    /// Independent instances of the contract per call (a four-way Keccak: 4); 1 when absent.
    pub states: Option<usize>,
    /// With several states: `interleaved` (element e of state j at k e + j) or `consecutive` (at n j + e).
    pub layout: Option<String>,
}

impl KernelEntry {
    /// Its states per call and their layout.
    pub fn states(&self) -> Result<(usize, Layout), String> {
        let states = self.states.unwrap_or(1);
        let layout = match (states, self.layout.as_deref()) {
            (1, None) => Layout::Consecutive,
            (1, Some(_)) => return Err(format!("`{}`: a layout needs states = 2 or more", self.symbol)),
            (_, Some("interleaved")) => Layout::Interleaved,
            (_, Some("consecutive")) => Layout::Consecutive,
            (_, None) => {
                return Err(format!("`{}`: states = {states} needs a layout (interleaved, consecutive)", self.symbol));
            }
            (_, Some(other)) => {
                return Err(format!("`{}`: unknown layout `{other}` (interleaved, consecutive)", self.symbol));
            }
        };
        Ok((states, layout))
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ArgEntry {
    /// A contract argument.
    Name(String),
    /// `{ symbol = "table" }`, `{ scratch = 1024 }` (bytes), `{ constant = 256 }`, `{ input = "p" }` or
    /// `{ in-place = ["a", "out"] }`.
    Extra(Extra),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Extra {
    pub symbol: Option<String>,
    pub scratch: Option<usize>,
    pub constant: Option<u32>,
    /// `{ input = "p" }`: the input of the contract's in-out `p` in a buffer of its own (`"p"` is then the output).
    pub input: Option<String>,
    /// `{ in-place = ["a", "out"] }`: one buffer with the contract's input `a` in and its output `out` out.
    pub in_place: Option<[String; 2]>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AdapterEntry {
    /// `identity` or `bit-reversal`.
    pub order: Option<String>,
    /// A file of indices (whitespace or commas, `#` comments): their index `s` holds the contract's element `s`-th
    /// in the list. Relative to the manifest.
    pub order_file: Option<PathBuf>,
    /// A formula in `i` and `n` ([`super::formula`]): their index `i` holds the contract's element `formula(i)`.
    pub order_formula: Option<String>,
    /// Their value = the contract's times this, mod q.
    pub factor: Option<i64>,
    /// `centred` or `unsigned`: the representative their inputs get.
    pub form: Option<String>,
    /// `[lo, hi]`, inclusive.
    pub input_bound: Option<[i64; 2]>,
    pub output_bound: Option<[i64; 2]>,
    /// Named representations ([`crate::foreign::REPRESENTATIONS`]): one name or a list.
    pub representation: Option<Names>,
    /// `[kernel.adapt.NAME.input]`: the adapter of what is written to the argument (instead of the flat keys, which
    /// apply to both directions).
    pub input: Option<Box<AdapterEntry>>,
    /// `[kernel.adapt.NAME.output]`: the adapter of what is read back.
    pub output: Option<Box<AdapterEntry>>,
}

/// One name or a list of names.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Names {
    One(String),
    Many(Vec<String>),
}

impl Names {
    fn list(&self) -> Vec<String> {
        match self {
            Names::One(name) => vec![name.clone()],
            Names::Many(names) => names.clone(),
        }
    }
}

impl AdapterEntry {
    /// The adapters of its input and its output: the flat keys for both, or each direction's sub-table (a direction
    /// without one is unadapted).
    pub fn adapters(&self, dir: &Path) -> Result<(Adapter, Adapter), String> {
        if self.input.is_none() && self.output.is_none() {
            let adapter = self.adapter(dir)?;
            return Ok((adapter.clone(), adapter));
        }
        let flat = AdapterEntry { input: None, output: None, ..Self::default() };
        if *self != (AdapterEntry { input: self.input.clone(), output: self.output.clone(), ..flat }) {
            return Err("with an `input` or `output` sub-table, every key goes in a sub-table (the flat keys are \
                        for both directions)"
                .into());
        }
        let side = |entry: &Option<Box<AdapterEntry>>, what: &str| match entry {
            None => Ok(Adapter::default()),
            Some(e) if e.input.is_some() || e.output.is_some() => Err(format!("`{what}` takes no sub-table")),
            Some(e) => e.adapter(dir).map_err(|err| format!("{what}: {err}")),
        };
        if self.input.as_ref().is_some_and(|e| e.output_bound.is_some()) {
            return Err("an output-bound goes in the `output` sub-table".into());
        }
        if self.output.as_ref().is_some_and(|e| e.input_bound.is_some()) {
            return Err("an input-bound goes in the `input` sub-table".into());
        }
        Ok((side(&self.input, "input")?, side(&self.output, "output")?))
    }

    /// The adapter; `dir` is the manifest's directory (an order file is relative to it).
    pub fn adapter(&self, dir: &Path) -> Result<Adapter, String> {
        let order = match (self.order.as_deref(), &self.order_file, &self.order_formula) {
            (None | Some("identity"), None, None) => Order::Identity,
            (Some("bit-reversal"), None, None) => Order::BitReversal,
            (Some(other), None, None) => return Err(format!("unknown order `{other}` (identity, bit-reversal)")),
            (None, Some(file), None) => read_order_file(&dir.join(file), file)?,
            (None, None, Some(text)) => {
                Order::Formula(Arc::new(Formula::parse(text).map_err(|e| format!("order-formula `{text}`: {e}"))?))
            }
            _ => return Err("at most one of order, order-file and order-formula".into()),
        };
        let form = match self.form.as_deref() {
            None => None,
            Some("centred") => Some(Form::Centred),
            Some("unsigned") => Some(Form::Unsigned),
            Some(other) => return Err(format!("unknown form `{other}` (centred, unsigned)")),
        };
        let bound = |b: Option<[i64; 2]>, what: &str| match b {
            Some([lo, hi]) if lo > hi => Err(format!("{what} [{lo}, {hi}] is empty")),
            Some([lo, hi]) => Ok(Some((lo, hi))),
            None => Ok(None),
        };
        Ok(Adapter {
            order,
            factor: self.factor.unwrap_or(1),
            form,
            input_bound: bound(self.input_bound, "input-bound")?,
            output_bound: bound(self.output_bound, "output-bound")?,
            representation: Representation::named(&self.representation.as_ref().map(Names::list).unwrap_or_default())?,
        })
    }
}

/// A storage order read from a file ([`parse_order_file`]). Whether it is a permutation of the right length is
/// checked against the contract's argument.
fn read_order_file(path: &Path, given: &Path) -> Result<Order, String> {
    let source = format!("order-file {}", given.display());
    let text = std::fs::read_to_string(path).map_err(|e| format!("{source}: {e}"))?;
    let map = parse_order_file(&text).map_err(|e| format!("{source}:{e}"))?;
    Ok(Order::Listed { source, map: Arc::new(map) })
}

/// The indices of an order file: integers separated by whitespace or commas, `#` to the end of a line a comment. An
/// error reads `line: message`.
pub fn parse_order_file(text: &str) -> Result<Vec<usize>, String> {
    let mut map = Vec::new();
    for (line, content) in text.lines().enumerate() {
        let content = content.split('#').next().unwrap_or("");
        for word in content.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()) {
            let index = word.parse().map_err(|_| format!("{}: `{word}` is not an index", line + 1))?;
            map.push(index);
        }
    }
    Ok(map)
}

/// Reads a manifest; a TOML or schema error is one line: `path:line:column: message`.
pub fn read(path: &Path) -> Result<Manifest, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}:{e}", path.display()))
}

/// Parses manifest text; an error reads `line:column: message`.
pub fn parse(text: &str) -> Result<Manifest, String> {
    parse_toml(text)
}

/// Parses TOML text into any manifest type; an error reads `line:column: message`, with the nearest key.
pub fn parse_toml<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    toml::from_str(text).map_err(|e| {
        let at = e.span().map_or(0, |s| s.start);
        let before = &text[..at.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        let message = e.message().trim().replace('\n', " ");
        format!("{line}:{column}: {message}{}", nearest_key(&message))
    })
}

/// `, did you mean ...` for serde's "unknown field `x`, expected one of `a`, `b`" (or "expected `a` or `b`").
fn nearest_key(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else { return String::new() };
    let Some((field, expected)) = rest.split_once('`') else { return String::new() };
    let keys = expected.split('`').skip(1).step_by(2);
    pqhelium_families::did_you_mean(field, keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_line_and_column() {
        let e = parse("core = \"m55\"\n[[kernel]]\nsymbol = \"f\"\ncontract = \"mlkem.basemul\"\ncolour = 1\n")
            .unwrap_err();
        assert!(e.starts_with("5:1: unknown field `colour`"), "{e}");
        let e = parse("core = \"m55\"\n[[kernel]]\nsymbol = \"f\"\ncontract = \"c\"\nstate = 4\n").unwrap_err();
        assert!(e.ends_with(", did you mean `states`?"), "{e}");
        let e =
            parse("core = \"m55\"\nsource = [\"a.s\"]\n[[kernel]]\nsymbol = \"f\"\ncontract = \"c\"\n").unwrap_err();
        assert!(e.ends_with(", did you mean `sources`?"), "{e}");
        let e = parse("core = 55\n[[kernel]]\nsymbol = \"f\"\ncontract = \"c\"\n").unwrap_err();
        assert!(e.starts_with("1:8: invalid type: integer `55`, expected a string"), "{e}");
    }

    #[test]
    fn adapters_parse() {
        let m = parse(
            "core = \"m7\"\nsources = [\"a.S\"]\n[[kernel]]\nsymbol = \"f\"\ncontract = \"c\"\n\
             args = [\"b\", { symbol = \"t\" }, \"a\", { scratch = 64 }]\n\
             [kernel.adapt.a]\norder = \"bit-reversal\"\nfactor = 2285\nform = \"unsigned\"\noutput-bound = [-9, 9]\n",
        )
        .unwrap();
        let adapter = m.kernels[0].adapt["a"].adapter(Path::new(".")).unwrap();
        assert_eq!(adapter.order, Order::BitReversal);
        assert_eq!((adapter.factor, adapter.form, adapter.output_bound), (2285, Some(Form::Unsigned), Some((-9, 9))));
        assert_eq!(m.kernels[0].args.as_ref().unwrap().len(), 4);
    }

    #[test]
    fn adapters_per_direction() {
        let kernel = |adapt: &str| {
            parse(&format!("core = \"m55\"\n[[kernel]]\nsymbol = \"f\"\ncontract = \"c\"\n{adapt}")).unwrap()
        };
        let m =
            kernel("[kernel.adapt.p.input]\ninput-bound = [-16384, 16384]\n[kernel.adapt.p.output]\nfactor = 2285\n");
        let (input, output) = m.kernels[0].adapt["p"].adapters(Path::new(".")).unwrap();
        assert_eq!((input.input_bound, input.factor), (Some((-16384, 16384)), 1));
        assert_eq!((output.input_bound, output.factor), (None, 2285));
        let m = kernel("[kernel.adapt.p]\nfactor = 2285\n[kernel.adapt.p.output]\nfactor = 2285\n");
        let e = m.kernels[0].adapt["p"].adapters(Path::new(".")).unwrap_err();
        assert!(e.contains("every key goes in a sub-table"), "{e}");
        let m = kernel("[kernel.adapt.p.output]\ninput-bound = [0, 3328]\n");
        let e = m.kernels[0].adapt["p"].adapters(Path::new(".")).unwrap_err();
        assert!(e.contains("an input-bound goes in the `input` sub-table"), "{e}");
    }
}
