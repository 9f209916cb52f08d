//! Double-entry accounts: a ledger of postings grouped into journals, with balances kept
//! per account and period. Written for the symbol-map tests: nested modules, generic
//! impls, trait objects, attributes, doc comments and a macro.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

/// Cents are the only unit of money the ledger stores.
pub type Cents = i64;

/// The most postings one journal entry may hold.
#[doc(alias = "posting_limit")]
pub const MAX_POSTINGS: usize = 64;

/// How many periods are kept open at once.
pub static OPEN_PERIODS: usize = 3;

/// An account's place in the chart of accounts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum AccountKind {
    /// What the business owns.
    Asset,
    /// What it owes.
    Liability,
    /// What the owners put in.
    Equity,
    /// Money earned.
    Income,
    /// Money spent.
    Expense,
}

impl AccountKind {
    /// Whether a debit raises the balance.
    pub fn debit_normal(self) -> bool {
        matches!(self, AccountKind::Asset | AccountKind::Expense)
    }
}

/// An account number, as printed on statements.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AccountId(pub String);

/// One account of the chart.
#[derive(Clone, Debug)]
pub struct Account {
    /// Its number.
    pub id: AccountId,
    /// Its kind.
    pub kind: AccountKind,
    /// Its name on statements.
    pub name: String,
}

/// One side of a journal entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posting {
    pub account: AccountId,
    pub amount: Cents,
}

/// Errors of the ledger.
#[derive(Debug, PartialEq, Eq)]
pub enum LedgerError {
    /// The postings of an entry do not sum to zero.
    Unbalanced { by: Cents },
    /// An entry names an account the chart does not have.
    UnknownAccount(AccountId),
    /// An entry has more than [`MAX_POSTINGS`] postings.
    TooManyPostings(usize),
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LedgerError::Unbalanced { by } => write!(f, "entry is off by {by} cents"),
            LedgerError::UnknownAccount(id) => write!(f, "no account {}", id.0),
            LedgerError::TooManyPostings(n) => write!(f, "{n} postings, more than {MAX_POSTINGS}"),
        }
    }
}

impl std::error::Error for LedgerError {}

/// Something that can be posted to a ledger.
pub trait Postable {
    /// The postings, which must balance.
    fn postings(&self) -> Vec<Posting>;

    /// A one-line description for the journal.
    fn memo(&self) -> String {
        String::from("(no memo)")
    }
}

/// Builds a balanced posting list: `postings![("1000", 500), ("4000", -500)]`.
#[macro_export]
macro_rules! postings {
    ($(($account:expr, $amount:expr)),* $(,)?) => {
        vec![$($crate::Posting { account: $crate::AccountId($account.to_owned()), amount: $amount }),*]
    };
}

/// Balances by account, kept in account order.
#[derive(Default, Debug)]
pub struct Balances<K: Ord = AccountId> {
    by_key: BTreeMap<K, Cents>,
}

impl<K: Ord + Clone> Balances<K> {
    /// Adds `amount` to `key`'s balance.
    pub fn add(&mut self, key: &K, amount: Cents) {
        *self.by_key.entry(key.clone()).or_insert(0) += amount;
    }

    /// The balance of `key` (zero when never posted).
    pub fn of(&self, key: &K) -> Cents {
        self.by_key.get(key).copied().unwrap_or(0)
    }
}

/// The ledger: a chart of accounts, the journal, and running balances.
pub struct Ledger {
    chart: BTreeMap<AccountId, Account>,
    journal: Vec<journal::Entry>,
    balances: Balances,
    listeners: Vec<Arc<Mutex<dyn FnMut(&journal::Entry) + Send>>>,
}

impl Ledger {
    /// An empty ledger over `accounts`.
    pub fn new(accounts: impl IntoIterator<Item = Account>) -> Self {
        let chart = accounts.into_iter().map(|a| (a.id.clone(), a)).collect();
        Ledger { chart, journal: Vec::new(), balances: Balances::default(), listeners: Vec::new() }
    }

    /// Posts `item` as one journal entry, or refuses it whole.
    #[must_use = "a refused entry is not in the ledger"]
    pub fn post(&mut self, item: &dyn Postable) -> Result<usize, LedgerError> {
        let postings = item.postings();
        validate::entry(&self.chart, &postings)?;
        for posting in &postings {
            self.balances.add(&posting.account, posting.amount);
        }
        let entry = journal::Entry { number: self.journal.len() + 1, memo: item.memo(), postings };
        for listener in &self.listeners {
            if let Ok(mut call) = listener.lock() {
                call(&entry);
            }
        }
        self.journal.push(entry);
        Ok(self.journal.len())
    }

    /// The balance of an account, signed by its kind's normal side.
    pub fn balance(&self, id: &AccountId) -> Option<Cents> {
        let account = self.chart.get(id)?;
        let raw = self.balances.of(id);
        Some(if account.kind.debit_normal() { raw } else { -raw })
    }

    /// Calls `listener` after every entry posted from now on.
    pub fn on_post(&mut self, listener: impl FnMut(&journal::Entry) + Send + 'static) {
        self.listeners.push(Arc::new(Mutex::new(listener)));
    }
}

/// The journal's entries.
pub mod journal {
    use super::Posting;

    /// One balanced entry.
    #[derive(Clone, Debug)]
    pub struct Entry {
        /// 1-based, in posting order.
        pub number: usize,
        pub memo: String,
        pub postings: Vec<Posting>,
    }

    impl Entry {
        /// The entry's total debits (its positive postings).
        pub fn debits(&self) -> super::Cents {
            self.postings.iter().map(|p| p.amount.max(0)).sum()
        }
    }

    /// Export formats.
    pub mod export {
        use super::Entry;

        /// Column order of the CSV export.
        pub const CSV_COLUMNS: [&str; 4] = ["number", "memo", "account", "amount"];

        /// Entries as CSV rows, one per posting.
        pub fn to_csv(entries: &[Entry]) -> String {
            let mut out = CSV_COLUMNS.join(",");
            for entry in entries {
                for posting in &entry.postings {
                    out.push_str(&format!("\n{},{},{},{}", entry.number, entry.memo, posting.account.0, posting.amount));
                }
            }
            out
        }
    }
}

/// Checks run before an entry is accepted.
mod validate {
    use super::*;

    /// An entry must balance, name known accounts, and stay under the posting limit.
    pub(super) fn entry(chart: &BTreeMap<AccountId, Account>, postings: &[Posting]) -> Result<(), LedgerError> {
        if postings.len() > MAX_POSTINGS {
            return Err(LedgerError::TooManyPostings(postings.len()));
        }
        if let Some(unknown) = postings.iter().find(|p| !chart.contains_key(&p.account)) {
            return Err(LedgerError::UnknownAccount(unknown.account.clone()));
        }
        match postings.iter().map(|p| p.amount).sum::<Cents>() {
            0 => Ok(()),
            by => Err(LedgerError::Unbalanced { by }),
        }
    }
}

/// A sale: cash in, income out.
pub struct Sale {
    pub cents: Cents,
}

impl Postable for Sale {
    fn postings(&self) -> Vec<Posting> {
        postings![("1000", self.cents), ("4000", -self.cents)]
    }

    fn memo(&self) -> String {
        format!("sale of {} cents", self.cents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> Vec<Account> {
        vec![
            Account { id: AccountId("1000".into()), kind: AccountKind::Asset, name: "Cash".into() },
            Account { id: AccountId("4000".into()), kind: AccountKind::Income, name: "Sales".into() },
        ]
    }

    #[test]
    fn a_sale_moves_cash_and_income() {
        let mut ledger = Ledger::new(chart());
        assert_eq!(ledger.post(&Sale { cents: 250 }), Ok(1));
        assert_eq!(ledger.balance(&AccountId("1000".into())), Some(250));
        assert_eq!(ledger.balance(&AccountId("4000".into())), Some(250));
    }

    #[test]
    #[should_panic(expected = "unbalanced")]
    fn an_unbalanced_entry_is_refused() {
        struct Broken;
        impl Postable for Broken {
            fn postings(&self) -> Vec<Posting> {
                postings![("1000", 1)]
            }
        }
        let mut ledger = Ledger::new(chart());
        ledger.post(&Broken).expect("unbalanced");
    }
}
