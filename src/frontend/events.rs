//! The queue a front end's searches report on: engine events for the driver,
//! with the one policy every front end shares, that a search's answer is
//! never dropped.

use crate::engine::Event;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Engine events queued per session before progress lines start being dropped.
pub const EVENT_QUEUE: usize = 1024;

/// The longest a review waits for room in the queue for one judged move.
pub const REVIEW_WAIT: Duration = Duration::from_secs(10);

/// A new queue: the sending end for the searches, the receiving end for the
/// driver.
#[must_use]
pub fn channel() -> (EventSender, Events) {
    let (tx, rx) = mpsc::channel(EVENT_QUEUE);
    (EventSender(tx), Events(rx))
}

/// The sending end of a session's queue.
#[derive(Clone, Debug)]
pub struct EventSender(mpsc::Sender<Event>);

impl EventSender {
    /// The callback a search reports through. One place in the queue is
    /// always left for the search's answer (`BestMove`, `Perft`,
    /// `ReviewDone`), so it is never dropped; progress (`Info`, `Book`,
    /// `Trace`) is dropped when the reader falls behind. A review's moves
    /// are results, not progress: the review waits for the reader (up to
    /// [`REVIEW_WAIT`] a move) rather than drop one.
    #[must_use]
    pub fn on_event(&self) -> Box<dyn FnMut(Event) + Send> {
        let tx = self.0.clone();
        Box::new(move |ev: Event| match ev {
            Event::BestMove { .. } | Event::Perft { .. } | Event::ReviewDone(_) => {
                let _ = tx.try_send(ev);
            }
            Event::Info(_) | Event::Book { .. } | Event::Trace(_) => {
                if tx.capacity() > 1 {
                    let _ = tx.try_send(ev);
                }
            }
            Event::Reviewed(_) => {
                let deadline = Instant::now() + REVIEW_WAIT;
                while tx.capacity() <= 1 && !tx.is_closed() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(1));
                }
                if tx.capacity() > 1 {
                    let _ = tx.try_send(ev);
                }
            }
        })
    }
}

/// The receiving end of a session's engine events; the driver feeds each to
/// the session.
#[derive(Debug)]
pub struct Events(mpsc::Receiver<Event>);

impl Events {
    /// The next event (async transports).
    pub async fn recv(&mut self) -> Option<Event> {
        self.0.recv().await
    }

    /// The next event, waiting at most `timeout` (blocking transports and tests).
    pub fn recv_timeout(&mut self, timeout: Duration) -> Option<Event> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.0.try_recv() {
                Ok(e) => return Some(e),
                Err(mpsc::error::TryRecvError::Disconnected) => return None,
                Err(mpsc::error::TryRecvError::Empty) => {}
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// The channel's receiver, for the driver.
    #[must_use]
    pub fn into_inner(self) -> mpsc::Receiver<Event> {
        self.0
    }
}
