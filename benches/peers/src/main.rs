//! async-openai on the benchmark's server: `chatwire-peers URL SENDS TASKS`
//! makes SENDS sequential sends, then SENDS sends from TASKS concurrent
//! tasks sharing one client (tokio's multi-thread runtime), and prints
//! `sequential_per_s`, `p50_us`, `p99_us` and `concurrent_per_s`, one
//! `name value` per line, for `benches/speed.rs` to read.

use std::time::{Duration, Instant};

use async_openai::config::OpenAIConfig;
use async_openai::types::chat::{
    ChatCompletionRequestUserMessageArgs, CreateChatCompletionRequest,
    CreateChatCompletionRequestArgs,
};
use async_openai::Client;

fn request() -> CreateChatCompletionRequest {
    let question = ChatCompletionRequestUserMessageArgs::default()
        .content("ping")
        .build()
        .expect("a user message");
    CreateChatCompletionRequestArgs::default()
        .model("m")
        .messages([question.into()])
        .build()
        .expect("a request")
}

async fn send(client: &Client<OpenAIConfig>, request: &CreateChatCompletionRequest) {
    let reply = client.chat().create(request.clone()).await.expect("a reply");
    assert!(!reply.choices.is_empty());
}

fn percentile(samples: &mut [Duration], fraction: f64) -> f64 {
    samples.sort();
    let index = ((samples.len() as f64 * fraction) as usize).min(samples.len() - 1);
    samples[index].as_secs_f64() * 1e6
}

#[tokio::main]
async fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut args = std::env::args().skip(1);
    let url = args.next().expect("URL SENDS TASKS");
    let sends: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(5_000);
    let tasks: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(4);
    let config = OpenAIConfig::new()
        .with_api_base(format!("{url}/v1"))
        .with_api_key("sk-bench");
    let client = Client::with_config(config);
    let request = request();

    for _ in 0..200 {
        send(&client, &request).await;
    }
    let mut samples = Vec::with_capacity(sends);
    let started = Instant::now();
    for _ in 0..sends {
        let one = Instant::now();
        send(&client, &request).await;
        samples.push(one.elapsed());
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!("sequential_per_s {}", sends as f64 / elapsed);
    println!("p50_us {}", percentile(&mut samples, 0.50));
    println!("p99_us {}", percentile(&mut samples, 0.99));

    let started = Instant::now();
    let handles: Vec<_> = (0..tasks)
        .map(|_| {
            let client = client.clone();
            let request = request.clone();
            tokio::spawn(async move {
                for _ in 0..sends / tasks {
                    send(&client, &request).await;
                }
            })
        })
        .collect();
    for handle in handles {
        handle.await.expect("a task");
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!("concurrent_per_s {}", (sends / tasks * tasks) as f64 / elapsed);
}
