//! The text of a background request that its caller has not taken yet, and
//! the signal that tells an event loop so.

use std::sync::{Arc, Condvar, Mutex};

use crate::error::Result;
use crate::sync::{lock, wait};

/// Where a waitable request shows an event loop that it has something to
/// take: a descriptor (POSIX) or an event object (Windows), made and
/// operated by the C API, raised and lowered by [`Inbox`] alone, so that it
/// is up exactly while there is text to take or the request is done.
pub(crate) trait Signal: Send + Sync {
    /// Makes the descriptor readable (the event set); called only while it is down.
    fn raise(&self);
    /// Makes it unreadable again (the event reset); called only while it is up.
    fn lower(&self);
    /// The descriptor or handle a caller waits on, as a number.
    fn waitable(&self) -> isize;
}

/// The text of a background request not taken yet, and the [`Signal`] that
/// says so to an event loop.
#[derive(Default)]
pub(crate) struct Inbox {
    state: Mutex<InboxState>,
    /// Woken when text arrives or the request is done, for [`wait_text`](Self::wait_text).
    changed: Condvar,
}

#[derive(Default)]
struct InboxState {
    text: String,
    done: bool,
    signal: Option<Arc<dyn Signal>>,
    /// Whether the signal is up now, so that it is raised and lowered only
    /// on a change (an eventfd's count or a pipe never fills up).
    raised: bool,
}

impl Inbox {
    /// Changes the state, brings the signal in line and wakes a waiter.
    fn change(&self, change: impl FnOnce(&mut InboxState)) {
        let mut state = lock(&self.state);
        change(&mut state);
        state.update();
        self.changed.notify_all();
    }

    pub(crate) fn push(&self, delta: &str) {
        self.change(|state| state.text.push_str(delta));
    }

    /// Marks the request done: the signal stays up from now on.
    pub(crate) fn finish(&self) {
        self.change(|state| state.done = true);
    }

    /// True once the request is done.
    pub(crate) fn is_done(&self) -> bool {
        lock(&self.state).done
    }

    /// The text that arrived since the last call ("" when none).
    pub(crate) fn take_text(&self) -> String {
        lock(&self.state).take()
    }

    /// Waits until there is text to take or the request is done, and takes
    /// the text: "" only once the request is done and all of it was taken.
    pub(crate) fn wait_text(&self) -> String {
        let mut state = lock(&self.state);
        while state.text.is_empty() && !state.done {
            state = wait(&self.changed, state);
        }
        state.take()
    }

    /// The signal of this inbox: the one made before, or the one `make`
    /// makes now, raised at once when there is already something to take.
    pub(crate) fn signal(
        &self,
        make: impl FnOnce() -> Result<Arc<dyn Signal>>,
    ) -> Result<Arc<dyn Signal>> {
        let mut state = lock(&self.state);
        if let Some(signal) = &state.signal {
            return Ok(signal.clone());
        }
        let signal = make()?;
        state.signal = Some(signal.clone());
        state.update();
        Ok(signal)
    }
}

impl InboxState {
    /// Takes the text, lowering the signal unless the request is done.
    fn take(&mut self) -> String {
        let text = std::mem::take(&mut self.text);
        self.update();
        text
    }

    /// Brings the signal in line with the state: up exactly while there is
    /// text to take or the request is done. Called with the lock held, so
    /// raising and lowering never cross.
    fn update(&mut self) {
        let ready = self.done || !self.text.is_empty();
        if ready == self.raised {
            return;
        }
        if let Some(signal) = &self.signal {
            if ready {
                signal.raise();
            } else {
                signal.lower();
            }
            self.raised = ready;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// A signal that records its level and how often it changed.
    #[derive(Default)]
    struct Recorded {
        up: AtomicBool,
        changes: AtomicUsize,
    }

    impl Signal for Recorded {
        fn raise(&self) {
            assert!(!self.up.swap(true, Ordering::SeqCst), "raised twice");
            self.changes.fetch_add(1, Ordering::SeqCst);
        }
        fn lower(&self) {
            assert!(self.up.swap(false, Ordering::SeqCst), "lowered twice");
            self.changes.fetch_add(1, Ordering::SeqCst);
        }
        fn waitable(&self) -> isize {
            7
        }
    }

    fn attach(inbox: &Inbox) -> Arc<Recorded> {
        let recorded = Arc::new(Recorded::default());
        let given = recorded.clone();
        let signal = inbox.signal(|| Ok(given)).unwrap();
        assert_eq!(signal.waitable(), 7);
        recorded
    }

    fn is_up(signal: &Recorded) -> bool {
        signal.up.load(Ordering::SeqCst)
    }

    #[test]
    fn the_signal_is_up_exactly_while_there_is_text_to_take() {
        let inbox = Inbox::default();
        let signal = attach(&inbox);
        assert!(!is_up(&signal));
        inbox.push("Hel");
        inbox.push("lo");
        assert!(is_up(&signal));
        assert_eq!(
            signal.changes.load(Ordering::SeqCst),
            1,
            "one raise for two pieces"
        );
        assert_eq!(inbox.take_text(), "Hello");
        assert!(!is_up(&signal));
        assert_eq!(inbox.take_text(), "");
        assert_eq!(signal.changes.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_done_request_keeps_the_signal_up_after_the_text_is_taken() {
        let inbox = Inbox::default();
        let signal = attach(&inbox);
        inbox.push("last");
        inbox.finish();
        assert_eq!(inbox.take_text(), "last");
        assert!(is_up(&signal));
        assert_eq!(inbox.take_text(), "");
        assert!(is_up(&signal));
        assert_eq!(signal.changes.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_signal_made_late_starts_up_when_text_is_waiting_and_is_made_once() {
        let inbox = Inbox::default();
        inbox.push("early");
        let signal = attach(&inbox);
        assert!(is_up(&signal));
        let again = inbox
            .signal(|| panic!("the signal is made only once"))
            .unwrap();
        assert_eq!(again.waitable(), 7);
        assert_eq!(inbox.take_text(), "early");
        assert!(!is_up(&signal));
    }

    #[test]
    fn wait_text_hands_out_every_piece_and_then_the_end() {
        let inbox = Arc::new(Inbox::default());
        let writer = inbox.clone();
        let (go, told) = std::sync::mpsc::channel::<()>();
        let worker = std::thread::spawn(move || {
            for piece in ["Hel", "lo"] {
                told.recv().unwrap();
                writer.push(piece);
            }
            told.recv().unwrap();
            writer.finish();
        });
        let mut text = String::new();
        loop {
            // Each piece is written only once the reader waits for it.
            go.send(()).unwrap();
            let piece = inbox.wait_text();
            if piece.is_empty() {
                break;
            }
            text.push_str(&piece);
        }
        // A reader that stopped early ends the writer instead of hanging it.
        drop(go);
        worker.join().unwrap();
        assert_eq!(text, "Hello");
        assert_eq!(inbox.wait_text(), "");
    }
}
