//! 1-based line numbers.

use std::fmt;
use std::num::NonZeroU32;

/// A 1-based line number, as shown in rows and anchors.
///
/// ```
/// use hashline_core::LineNo;
/// let first = LineNo::new(1).unwrap();
/// assert_eq!(first.index(), 0);
/// assert_eq!(LineNo::from_index(4).get(), 5);
/// assert!(LineNo::new(0).is_none());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LineNo(NonZeroU32);

impl LineNo {
    /// Line 1.
    pub const FIRST: LineNo = LineNo(NonZeroU32::MIN);

    /// A line number from its 1-based value; `None` for 0.
    pub fn new(one_based: u32) -> Option<Self> {
        NonZeroU32::new(one_based).map(Self)
    }

    /// The line number of a 0-based index (saturating at `u32::MAX`).
    pub fn from_index(index: usize) -> Self {
        let one_based = u32::try_from(index).unwrap_or(u32::MAX - 1).saturating_add(1);
        Self(NonZeroU32::new(one_based).unwrap_or(NonZeroU32::MIN))
    }

    /// The 1-based value.
    pub fn get(self) -> u32 {
        self.0.get()
    }

    /// The 0-based index into a line array.
    pub fn index(self) -> usize {
        (self.0.get() - 1) as usize
    }
}

impl fmt::Display for LineNo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for LineNo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "L{}", self.0)
    }
}
