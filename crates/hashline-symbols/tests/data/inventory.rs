//! Inventory management.

use std::collections::HashMap;
use std::fmt;

/// The most items one bin holds.
pub const MAX_ITEMS: usize = 64;

static GREETING: &str = "hi";

/// A stock-keeping unit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sku(String);

/// Where an item is.
#[derive(Debug)]
pub enum Location {
    /// On a shelf.
    Shelf { aisle: u32, slot: u32 },
    /// In transit.
    Transit,
}

/// Something that can be counted.
pub trait Countable {
    /// How many there are.
    fn count(&self) -> usize;

    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.count() == 0
    }
}

pub type Stock = HashMap<Sku, usize>;

/// A warehouse.
pub struct Warehouse {
    stock: Stock,
}

impl Warehouse {
    /// An empty warehouse.
    pub fn new() -> Self {
        Warehouse { stock: Stock::new() }
    }

    /// Adds `n` of `sku`.
    #[inline]
    pub fn add(&mut self, sku: Sku, n: usize) {
        *self.stock.entry(sku).or_default() += n;
    }
}

impl Countable for Warehouse {
    fn count(&self) -> usize {
        self.stock.values().sum()
    }
}

impl fmt::Display for Warehouse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} items", self.count())
    }
}

macro_rules! sku {
    ($s:expr) => {
        Sku($s.to_owned())
    };
}

mod tests {
    use super::*;

    #[test]
    fn adds() {
        let mut w = Warehouse::new();
        w.add(sku!("a"), 2);
        assert_eq!(w.count(), 2);
    }
}
