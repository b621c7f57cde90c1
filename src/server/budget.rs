//! The memory a server's sessions may hold in transposition tables, all
//! together: each session reserves its table's size before allocating it.

use crate::frontend::OverBudget;
use std::sync::{Arc, Mutex};

/// A server-wide cap on the sum of the sessions' `Hash`, in MiB.
#[derive(Debug)]
pub struct HashBudget {
    total: usize,
    used: Mutex<usize>,
}

impl HashBudget {
    /// A budget of `total_mib` MiB.
    #[must_use]
    pub fn new(total_mib: usize) -> Arc<HashBudget> {
        Arc::new(HashBudget {
            total: total_mib,
            used: Mutex::new(0),
        })
    }

    /// The whole budget in MiB.
    #[must_use]
    pub fn total(&self) -> usize {
        self.total
    }

    /// MiB reserved now.
    #[must_use]
    pub fn used(&self) -> usize {
        *self.lock()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, usize> {
        self.used
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Reserves `mib` MiB, released when the reservation is dropped.
    pub fn reserve(self: &Arc<Self>, mib: usize) -> Result<Reservation, OverBudget> {
        let mut r = Reservation {
            budget: Arc::clone(self),
            mib: 0,
        };
        r.resize(mib)?;
        Ok(r)
    }
}

/// MiB held from a [`HashBudget`] until dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<HashBudget>,
    mib: usize,
}

impl Reservation {
    /// The MiB held.
    #[must_use]
    pub fn mib(&self) -> usize {
        self.mib
    }

    /// Holds `mib` MiB instead, or (when they don't fit) keeps the old size.
    pub fn resize(&mut self, mib: usize) -> Result<(), OverBudget> {
        let mut used = self.budget.lock();
        let others = *used - self.mib;
        let free = self.budget.total.saturating_sub(others);
        if mib > free {
            return Err(OverBudget {
                asked: mib,
                free,
                total: self.budget.total,
            });
        }
        *used = others + mib;
        self.mib = mib;
        Ok(())
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        *self.budget.lock() -= self.mib;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_add_up_to_at_most_the_budget() {
        let b = HashBudget::new(100);
        let mut a = b.reserve(60).unwrap();
        assert_eq!(
            b.reserve(50).unwrap_err(),
            OverBudget {
                asked: 50,
                free: 40,
                total: 100
            }
        );
        let c = b.reserve(40).unwrap();
        assert_eq!(b.used(), 100);
        assert!(a.resize(61).is_err());
        assert_eq!(a.mib(), 60, "a refused resize keeps the old size");
        a.resize(10).unwrap();
        assert_eq!(b.used(), 50);
        drop(c);
        assert_eq!(b.used(), 10);
        drop(a);
        assert_eq!(b.used(), 0);
    }
}
