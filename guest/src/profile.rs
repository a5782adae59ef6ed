//! The block profile written by the QEMU plugin (`kernels/plugin/pqh_icount.c`, `profile=`): how often each
//! translated block ran and which block followed which. The file is host-owned (the guest cannot reach it), but it is
//! still read with every index and count checked, so a plugin bug is an error, never a panic.

/// Mirrors `PROF_*` in the plugin.
const MAGIC: u32 = 0x5052_4f46;
const VERSION: u32 = 1;
const BLOCK_CAPACITY: usize = 32768;
const EDGE_CAPACITY: usize = 131072;
const HEADER_SIZE: usize = 32;
const ENTRY_SIZE: usize = 16;
const BLOCKS_OFFSET: usize = HEADER_SIZE;
const EDGES_OFFSET: usize = HEADER_SIZE + ENTRY_SIZE * BLOCK_CAPACITY;
/// The size of the profile file the host creates for the plugin.
pub const FILE_SIZE: usize = EDGES_OFFSET + ENTRY_SIZE * EDGE_CAPACITY;

/// A translated block: where it starts and how many instructions it has. The same address can start blocks of
/// different lengths (a branch into the middle of a block starts a new one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct BlockId {
    pub addr: u32,
    pub insns: u32,
}

impl std::fmt::Display for BlockId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#x}/{}", self.addr, self.insns)
    }
}

/// What ran during one profiled stretch (the counts since the last [`reset`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Profile {
    /// Every block that ran, with its executions.
    pub blocks: Vec<(BlockId, u64)>,
    /// (block before, block, count); `None` before: entered from the harness (the call's first block).
    pub edges: Vec<(Option<BlockId>, BlockId, u64)>,
}

impl Profile {
    pub fn instructions(&self) -> u64 {
        self.blocks.iter().map(|(b, n)| u64::from(b.insns) * n).sum()
    }
}

/// Profiles of many stretches added up (a kernel's calls in a whole operation).
#[derive(Debug, Clone, Default)]
pub struct ProfileSum {
    blocks: std::collections::HashMap<BlockId, u64>,
    edges: std::collections::HashMap<(Option<BlockId>, BlockId), u64>,
}

impl ProfileSum {
    pub fn add(&mut self, profile: &Profile) {
        for (id, count) in &profile.blocks {
            *self.blocks.entry(*id).or_default() += count;
        }
        for (from, to, count) in &profile.edges {
            *self.edges.entry((*from, *to)).or_default() += count;
        }
    }

    /// The sum as one profile, sorted as [`read`] sorts.
    pub fn profile(&self) -> Profile {
        let mut blocks: Vec<_> = self.blocks.iter().map(|(id, n)| (*id, *n)).collect();
        let mut edges: Vec<_> = self.edges.iter().map(|((from, to), n)| (*from, *to, *n)).collect();
        blocks.sort();
        edges.sort();
        Profile { blocks, edges }
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ProfileError {
    #[error("block profile: {0}")]
    Malformed(String),
    #[error("block profile full (more than {BLOCK_CAPACITY} blocks or {EDGE_CAPACITY} transitions)")]
    Overflow,
}

fn u32_at(bytes: &[u8], at: usize) -> Result<u32, ProfileError> {
    let word = bytes.get(at..at + 4).ok_or_else(|| ProfileError::Malformed(format!("offset {at} out of range")))?;
    Ok(u32::from_le_bytes(word.try_into().expect("4 bytes")))
}

fn u64_at(bytes: &[u8], at: usize) -> Result<u64, ProfileError> {
    Ok(u64::from(u32_at(bytes, at)?) | u64::from(u32_at(bytes, at + 4)?) << 32)
}

/// Zeroes the counts (block slots stay: the plugin keeps them for blocks it has translated) and the transitions.
/// Only the block slots in use are touched: this runs after every profiled call.
pub fn reset(bytes: &mut [u8]) {
    let used = u32_at(bytes, 16).map_or(BLOCK_CAPACITY, |u| (u as usize).min(BLOCK_CAPACITY));
    let end = bytes.len().min(BLOCKS_OFFSET + ENTRY_SIZE * used);
    for slot in bytes[BLOCKS_OFFSET.min(end)..end].chunks_exact_mut(ENTRY_SIZE) {
        slot[8..16].fill(0);
    }
    if bytes.len() > EDGES_OFFSET {
        bytes[EDGES_OFFSET..].fill(0);
    }
    if bytes.len() >= HEADER_SIZE {
        bytes[20..24].fill(0); // overflow
    }
}

/// Bytes of the transition table compared at once against zero: the table is mostly empty, and a comparison of a
/// whole stretch is one `memcmp`, which keeps reading a profile after every call cheap.
const ZERO_STRETCH: usize = 256;
static ZEROS: [u8; ZERO_STRETCH] = [0; ZERO_STRETCH];

/// A block slot (address, instructions, executions) or a transition (from slot, to slot, count): two words and a
/// count.
fn entry_at(bytes: &[u8], at: usize) -> Result<(u32, u32, u64), ProfileError> {
    Ok((u32_at(bytes, at)?, u32_at(bytes, at + 4)?, u64_at(bytes, at + 8)?))
}

/// Reads the profile. Every block slot and transition is checked against the header and the capacities.
pub fn read(bytes: &[u8]) -> Result<Profile, ProfileError> {
    if bytes.len() < FILE_SIZE {
        return Err(ProfileError::Malformed(format!("{} bytes, expected {FILE_SIZE}", bytes.len())));
    }
    let header = |i: usize| u32_at(bytes, 4 * i);
    let (magic, version, blocks_cap, edges_cap) = (header(0)?, header(1)?, header(2)?, header(3)?);
    if magic != MAGIC || version != VERSION {
        return Err(ProfileError::Malformed(format!("magic {magic:#x} version {version}: not written by the plugin")));
    }
    if blocks_cap as usize != BLOCK_CAPACITY || edges_cap as usize != EDGE_CAPACITY {
        return Err(ProfileError::Malformed(format!("capacities {blocks_cap}/{edges_cap}")));
    }
    if header(5)? != 0 {
        return Err(ProfileError::Overflow);
    }
    let used = header(4)? as usize;
    if used > BLOCK_CAPACITY {
        return Err(ProfileError::Malformed(format!("{used} blocks used")));
    }
    let mut ids = Vec::with_capacity(used);
    let mut profile = Profile::default();
    for slot in 0..used {
        let (addr, insns, count) = entry_at(bytes, BLOCKS_OFFSET + ENTRY_SIZE * slot)?;
        let id = BlockId { addr, insns };
        if count > 0 {
            profile.blocks.push((id, count));
        }
        ids.push(id);
    }
    let block = |index: u32| match index as usize {
        0 => Ok(None),
        i if i <= used => Ok(Some(ids[i - 1])),
        i => Err(ProfileError::Malformed(format!("transition names block slot {i} of {used}"))),
    };
    let entries_per_stretch = ZERO_STRETCH / ENTRY_SIZE;
    let occupied = (0..EDGE_CAPACITY / entries_per_stretch).filter(|&k| {
        let at = EDGES_OFFSET + ZERO_STRETCH * k;
        bytes[at..at + ZERO_STRETCH] != ZEROS[..]
    });
    for entry in occupied.flat_map(|k| k * entries_per_stretch..(k + 1) * entries_per_stretch) {
        let (from, to, count) = entry_at(bytes, EDGES_OFFSET + ENTRY_SIZE * entry)?;
        if to == 0 {
            continue;
        }
        let to = block(to)?.ok_or_else(|| ProfileError::Malformed("transition into nothing".into()))?;
        profile.edges.push((block(from)?, to, count));
    }
    profile.blocks.sort();
    profile.edges.sort();
    // Each execution of a block is entered once: the transitions into it add up to its executions.
    let mut entered: std::collections::HashMap<BlockId, u64> = std::collections::HashMap::new();
    for (_, to, count) in &profile.edges {
        *entered.entry(*to).or_default() += count;
    }
    for (id, count) in &profile.blocks {
        let into = entered.remove(id).unwrap_or(0);
        if into != *count {
            return Err(ProfileError::Malformed(format!("block {id} ran {count} times but was entered {into} times")));
        }
    }
    if let Some((id, into)) = entered.into_iter().next() {
        return Err(ProfileError::Malformed(format!("block {id} never ran but was entered {into} times")));
    }
    Ok(profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> Vec<u8> {
        let mut bytes = vec![0u8; FILE_SIZE];
        for (i, v) in [MAGIC, VERSION, BLOCK_CAPACITY as u32, EDGE_CAPACITY as u32].iter().enumerate() {
            bytes[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        bytes
    }

    fn put(bytes: &mut [u8], at: usize, a: u32, b: u32, n: u64) {
        bytes[at..at + 4].copy_from_slice(&a.to_le_bytes());
        bytes[at + 4..at + 8].copy_from_slice(&b.to_le_bytes());
        bytes[at + 8..at + 16].copy_from_slice(&n.to_le_bytes());
    }

    /// Two blocks (3 instructions run once, 4 run ten times) and the three transitions that enter them.
    fn sample(bytes: &mut [u8]) {
        bytes[16..20].copy_from_slice(&2u32.to_le_bytes());
        put(bytes, BLOCKS_OFFSET, 0x100, 3, 1);
        put(bytes, BLOCKS_OFFSET + 16, 0x106, 4, 10);
        put(bytes, EDGES_OFFSET + 16 * 7, 0, 1, 1);
        put(bytes, EDGES_OFFSET + 16 * 9, 1, 2, 1);
        put(bytes, EDGES_OFFSET + 16 * 3, 2, 2, 9);
    }

    #[test]
    fn reads_blocks_and_transitions_and_refuses_inconsistent_files() {
        let mut bytes = file();
        sample(&mut bytes);
        let profile = read(&bytes).unwrap();
        assert_eq!(profile.instructions(), 3 + 40);
        assert_eq!(profile.edges.len(), 3);
        // A transition naming a slot past those used, and counts that do not add up, are refused.
        put(&mut bytes, EDGES_OFFSET + 16 * 11, 5, 2, 1);
        assert!(matches!(read(&bytes), Err(ProfileError::Malformed(_))));
        put(&mut bytes, EDGES_OFFSET + 16 * 11, 2, 2, 1);
        assert!(matches!(read(&bytes), Err(ProfileError::Malformed(_))));
        reset(&mut bytes);
        assert_eq!(read(&bytes).unwrap(), Profile::default());
        // Two stretches added: every count doubles.
        sample(&mut bytes);
        let mut sum = ProfileSum::default();
        sum.add(&profile);
        sum.add(&read(&bytes).unwrap());
        assert_eq!(sum.profile().instructions(), 2 * (3 + 40));
        assert_eq!(sum.profile().edges.iter().map(|e| e.2).collect::<Vec<_>>(), [2, 2, 18]);
        bytes[20] = 1;
        assert_eq!(read(&bytes), Err(ProfileError::Overflow));
        assert!(read(&bytes[..100]).is_err());
    }
}
