//! A tool loop from a Rust script: the model may ask for `get_weather`, the
//! script runs it and hands back the result, the model answers with it.
//!
//! ```sh
//! OPENAI_API_KEY=sk-... cargo run --example tools
//! ```

use chatwire::{Client, Conversation, Tool};
use serde_json::json;

fn get_weather(city: &str) -> String {
    json!({"city": city, "forecast": "sunny", "temperature_c": 21}).to_string()
}

fn main() -> std::process::ExitCode {
    match tool_loop() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // Display, not Debug: the message says what failed and why.
            eprintln!("chatwire: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn tool_loop() -> Result<(), chatwire::Error> {
    let model = std::env::var("CHATWIRE_MODEL").unwrap_or_else(|_| "gpt-4o-mini".into());
    let client = Client::from_env()?;
    let mut conversation = Conversation::new(model);
    conversation.add_tool(Tool::new(
        "get_weather",
        Some("Current weather for a city"),
        Some(json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        })),
    )?);
    conversation.user("What is the weather in Paris right now?")?;

    let reply = client.send_reply(&mut conversation)?;
    if reply.tool_calls().is_empty() {
        println!("assistant (no tool call)> {}", reply.content());
        return Ok(());
    }
    for call in reply.tool_calls() {
        // Arguments are read leniently: models do not always write valid JSON.
        let arguments = call.arguments_json()?;
        let city = arguments["city"].as_str().unwrap_or("somewhere");
        let result = get_weather(city);
        println!("tool call {}({}) -> {result}", call.name, call.arguments);
        conversation.tool_result(&call.id, result)?;
    }
    let answer = client.send_reply(&mut conversation)?;
    println!("assistant> {}", answer.content());
    if let Some(usage) = answer.usage {
        println!("({} tokens)", usage.total_tokens);
    }
    Ok(())
}
