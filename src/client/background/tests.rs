//! A panic on a background request's worker: every waiter hears of it.

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use super::*;

/// Longer than any request here takes: a waiter that is never told fails
/// instead of hanging.
const PATIENCE: Duration = Duration::from_secs(10);

/// A client whose credential callback panics, as a caller's bug would, on
/// the worker, before anything is sent.
fn client_with_a_panicking_callback() -> Client {
    Client::builder()
        .base_url("http://127.0.0.1:9")
        .credential_provider(|| -> std::result::Result<String, String> {
            panic!("the credential callback's bug")
        })
        .max_retries(0)
        .build()
        .unwrap()
}

fn asking() -> Conversation {
    let mut conversation = Conversation::new("m");
    conversation.user("hi").unwrap();
    conversation
}

fn is_the_panic(outcome: Result<&Reply, &Error>) -> bool {
    matches!(outcome, Err(Error::Internal(why)) if why.contains("the credential callback's bug"))
}

/// Tells a channel when it is woken.
struct Told(mpsc::Sender<()>);

impl Wake for Told {
    fn wake(self: Arc<Self>) {
        let _ = self.0.send(());
    }
}

#[test]
fn a_panic_on_the_worker_wakes_the_awaiting_task_with_an_internal_error() {
    let mut pending = client_with_a_panicking_callback()
        .send_async(&asking())
        .unwrap();
    let (woken, wake_heard) = mpsc::channel();
    let waker = Waker::from(Arc::new(Told(woken)));
    let mut context = Context::from_waker(&waker);
    if Pin::new(&mut pending).poll(&mut context).is_pending() {
        wake_heard
            .recv_timeout(PATIENCE)
            .expect("the task awaiting the request is woken");
    }
    assert!(pending.is_done());
    match Pin::new(&mut pending).poll(&mut context) {
        Poll::Ready(outcome) => assert!(is_the_panic(outcome.as_ref()), "{outcome:?}"),
        Poll::Pending => panic!("a woken task finds the request done"),
    }
}

#[test]
fn a_panic_on_the_worker_ends_the_c_apis_request_for_every_waiter() {
    let (done, done_heard) = mpsc::channel();
    let send = client_with_a_panicking_callback()
        .start_background(&asking(), None, move |outcome| {
            let _ = done.send(is_the_panic(outcome.as_ref()));
        })
        .unwrap();
    // on_done comes, with the error.
    assert_eq!(done_heard.recv_timeout(PATIENCE), Ok(true));
    // The request is done: its descriptor is up, a wait for text ends.
    assert!(send.is_done());
    assert_eq!(send.wait_text(), "");
    let mut conversation = asking();
    assert!(send.finish(&mut conversation, is_the_panic));
    assert_eq!(conversation, asking(), "nothing appended");
}
