//! The Cortex-M cores pqhelium's guest images are built for.

use std::fmt;

/// The Cortex-M core a guest image is built for: what timing (cycle models, variable-latency operands) is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Core {
    M55,
    M85,
    M7,
}

impl Core {
    pub const ALL: [Core; 3] = [Core::M55, Core::M85, Core::M7];

    pub fn name(self) -> &'static str {
        match self {
            Core::M55 => "m55",
            Core::M85 => "m85",
            Core::M7 => "m7",
        }
    }

    /// The name gcc's and LLVM's `-mcpu` give it.
    pub fn cpu(self) -> &'static str {
        match self {
            Core::M55 => "cortex-m55",
            Core::M85 => "cortex-m85",
            Core::M7 => "cortex-m7",
        }
    }

    pub fn from_cpu(cpu: &str) -> Option<Core> {
        Core::ALL.into_iter().find(|c| c.cpu() == cpu)
    }
}

impl fmt::Display for Core {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `--core` takes the name of the core.
impl clap::ValueEnum for Core {
    fn value_variants<'a>() -> &'a [Self] {
        &Core::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}
