//! The batch figures of docs/performance.md: 50,000 conversations made
//! into request lines and the input file (time, and memory against the
//! file's size), and a results file of 50,000 replies read and applied
//! (memory beyond the file, which is kept once). No server is involved.
//!
//! ```text
//! cargo bench --bench batch
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use chatwire::{Batch, Client, Conversation};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call goes to the system allocator unchanged; the counters
// only watch.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        // SAFETY: as the caller promised for `layout`.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: as the caller promised for `ptr` and `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let live = LIVE.fetch_add(new_size, Relaxed) + new_size;
        PEAK.fetch_max(live, Relaxed);
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: as the caller promised.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const REQUESTS: usize = 50_000;

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Starts a measurement: the bytes live now, the peak reset to them.
fn start() -> usize {
    let live = LIVE.load(Relaxed);
    PEAK.store(live, Relaxed);
    live
}

fn conversation(n: usize) -> Conversation {
    let mut conversation = Conversation::new("gpt-4o-mini");
    conversation.set_system("You classify customer records. Answer with one word.");
    let record = format!(
        "Record {n}: customer since 2019, three orders last quarter, one return, \
         a complaint about delivery times, renewed the subscription in March."
    );
    conversation.user(record).unwrap();
    conversation
}

fn result_line(n: usize) -> String {
    format!(
        r#"{{"id":"batch_req_{n}","custom_id":"q{n}","response":{{"status_code":200,"request_id":"req_{n}","body":{{"id":"chatcmpl-{n}","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{{"index":0,"message":{{"role":"assistant","content":"loyal","refusal":null}},"finish_reason":"stop"}}],"usage":{{"prompt_tokens":52,"completion_tokens":1,"total_tokens":53}}}}}},"error":null}}"#
    ) + "\n"
}

fn main() {
    let client = Client::builder()
        .base_url("http://127.0.0.1:9")
        .api_key("sk-bench")
        .build()
        .unwrap();
    let conversations: Vec<Conversation> = (0..REQUESTS).map(conversation).collect();

    // The input file.
    let before = start();
    let started = Instant::now();
    let mut batch = Batch::new();
    for (n, conversation) in conversations.iter().enumerate() {
        batch.add(&client, &format!("q{n}"), conversation).unwrap();
    }
    let added = started.elapsed();
    let held = LIVE.load(Relaxed) - before;
    let jsonl = batch.to_jsonl().unwrap();
    let written = started.elapsed() - added;
    let peak = PEAK.load(Relaxed) - before;
    let file = jsonl.len();
    println!(
        "input file: {REQUESTS} requests, {:.1} MiB; added in {:.3} s, written in {:.3} s; \
         the batch holds {:.1} MiB ({:.2}x the file), the peak with the file {:.1} MiB ({:.2}x)",
        mib(file),
        added.as_secs_f64(),
        written.as_secs_f64(),
        mib(held),
        held as f64 / file as f64,
        mib(peak),
        peak as f64 / file as f64
    );
    drop(jsonl);
    drop(batch);

    // The results file, moved into the batch: kept once, with an index.
    let mut output: String = (0..REQUESTS).map(result_line).collect();
    // The file as a download holds it: its own length, no spare room.
    output.shrink_to_fit();
    let size = output.len();
    let mut batch = Batch::new();
    let before = start();
    let started = Instant::now();
    batch.read_results(output).unwrap();
    let read = started.elapsed();
    let index = LIVE.load(Relaxed).saturating_sub(before);
    let peak = PEAK.load(Relaxed).saturating_sub(before);
    let started = Instant::now();
    for (n, conversation) in conversations.iter().enumerate() {
        let mut conversation = conversation.clone();
        batch.apply(&format!("q{n}"), &mut conversation).unwrap();
    }
    let applied = started.elapsed();
    println!(
        "results file: {REQUESTS} results, {:.1} MiB; read in {:.3} s, beyond the file the index \
         holds {:.1} MiB ({:.2}x the file), at the peak {:.1} MiB; applied in {:.3} s \
         ({:.1} µs each)",
        mib(size),
        read.as_secs_f64(),
        mib(index),
        index as f64 / size as f64,
        mib(peak),
        applied.as_secs_f64(),
        applied.as_secs_f64() * 1e6 / REQUESTS as f64
    );
}
