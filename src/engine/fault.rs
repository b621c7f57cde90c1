//! Failures the unit tests inject into the engine, to check that every search
//! still answers and that a failed allocation changes nothing. A fault is
//! injected on the test's thread and taken by the next engine call on that
//! thread that can fail that way; outside unit tests none is ever taken.

/// A failure to inject.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Fault {
    /// The search thread panics at its first iteration.
    PanicInSearch,
    /// No search thread can be started.
    NoThread,
    /// The next transposition table can't be allocated.
    NoMemory,
}

#[cfg(test)]
thread_local! {
    static NEXT: std::cell::Cell<Option<Fault>> = const { std::cell::Cell::new(None) };
}

/// Makes the next engine call on this thread that can fail as `fault` says
/// fail so.
#[cfg(test)]
pub(crate) fn inject(fault: Fault) {
    NEXT.with(|n| n.set(Some(fault)));
}

/// Whether the injected fault is `kind` (it is then used up).
#[cfg(test)]
pub(crate) fn take(kind: Fault) -> bool {
    NEXT.with(|n| {
        let hit = n.get() == Some(kind);
        if hit {
            n.set(None);
        }
        hit
    })
}

/// Whether the injected fault is `kind`: never, outside unit tests.
#[cfg(not(test))]
#[inline]
pub(crate) fn take(kind: Fault) -> bool {
    let _ = kind;
    false
}
