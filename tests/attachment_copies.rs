//! Attachments are encoded once, where they are added (`Attachment`,
//! `Image::from_bytes`): writing a conversation, as every send's body and
//! `Conversation::to_json` do (both through `wire/message/out.rs`), writes
//! the stored base64 and copies none of it. A counting allocator records
//! the largest block this thread allocates while the conversation is
//! written to a sink: a copy of an attachment's encoding would be one
//! block at least as large as it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use chatwire::{Attachment, Conversation, Image};

struct Counting;

/// The largest block asked for while a thread watched.
static LARGEST: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Whether this thread's allocations are counted (other tests' threads are not).
    static WATCHED: Cell<bool> = const { Cell::new(false) };
}

fn note(size: usize) {
    // try_with: a thread being torn down has no locals left to read.
    if WATCHED.try_with(Cell::get).unwrap_or(false) {
        LARGEST.fetch_max(size, Ordering::Relaxed);
    }
}

// SAFETY: every call goes to the system allocator with the caller's
// arguments unchanged; the counting touches no memory it hands out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as the caller promises for `layout`.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: as the caller promises for `ptr`, `layout` and `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The largest block `work` allocates on this thread.
fn largest_block(work: impl FnOnce()) -> usize {
    LARGEST.store(0, Ordering::Relaxed);
    WATCHED.with(|watched| watched.set(true));
    work();
    WATCHED.with(|watched| watched.set(false));
    LARGEST.load(Ordering::Relaxed)
}

/// `size` bytes that start as the kind says.
fn file_of(signature: &[u8], size: usize) -> Vec<u8> {
    let mut bytes = signature.to_vec();
    bytes.resize(size, b'x');
    bytes
}

#[test]
fn writing_a_conversation_copies_no_attachment() {
    const SIZE: usize = 1024 * 1024;
    let pdf = Attachment::from_bytes("report.pdf", &file_of(b"%PDF-1.7\n", SIZE)).unwrap();
    let wav = Attachment::from_bytes("", &file_of(b"RIFF\0\0\0\0WAVEfmt ", SIZE)).unwrap();
    let png = Image::from_bytes(&file_of(b"\x89PNG\r\n\x1a\n", SIZE)).unwrap();
    let mut conversation = Conversation::new("m");
    conversation
        .user_with_files("read this", vec![pdf])
        .unwrap();
    conversation.assistant("read").unwrap();
    conversation.user_with_files("", vec![wav]).unwrap();
    conversation.assistant("heard").unwrap();
    conversation.user_with_images("and see", vec![png]).unwrap();

    // Twice, as two sends would write it.
    for _ in 0..2 {
        let largest = largest_block(|| {
            serde_json::to_writer(std::io::sink(), &conversation).unwrap();
        });
        // Each encoding is 4/3 of SIZE: a copy of one is bigger than SIZE.
        assert!(
            largest < SIZE / 4,
            "writing the conversation allocated a block of {largest} bytes"
        );
    }

    // What is written is the stored encoding: it reads back the same.
    let json = conversation.to_json();
    assert_eq!(Conversation::from_json(&json).unwrap(), conversation);
}
