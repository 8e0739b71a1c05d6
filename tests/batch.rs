//! Batches end to end against the emulated OpenAI Files and Batches API of
//! `common/batches.rs` (checked against OpenAI's API reference, "Batch" and
//! "Files"): request lines byte for byte the bodies of real sends, the
//! strict multipart upload, every state of the life cycle, results applied
//! as a send's reply, failures as a send's errors, resuming by id.

mod common;

use std::time::Duration;

use chatwire::{
    Api, Batch, BatchState, Client, Conversation, Error, Image, Message, Reasoning, ReasoningField,
    Role, Tool, ToolCall,
};
use common::batches::{BatchServer, Life, Outcome};
use serde::Deserialize;
use serde_json::{json, value::RawValue, Value};

/// What the emulated model answers, by the last user message's text: a
/// reply for most, a tool call, reasoning with fields chatwire does not
/// know, or an error a send would also get.
fn answer(_custom_id: &str, body: &Value) -> Outcome {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let last = messages.iter().rev().find(|m| m["role"] == "user");
    let question = last
        .and_then(|m| m["content"].as_str())
        .unwrap_or("(parts)")
        .to_owned();
    let usage = json!({"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18,
                       "completion_tokens_details": {"reasoning_tokens": 3}});
    match question.as_str() {
        "rate me" => Outcome::Fail(
            429,
            json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}),
        ),
        "echo" => Outcome::Fail(
            400,
            json!({"error": {"message": format!("bad key {}", common::KEY), "type": "invalid_request_error"}}),
        ),
        "too long" => Outcome::Fail(
            400,
            json!({"error": {"message": "This model's maximum context length is 8 tokens", "type": "invalid_request_error", "code": "context_length_exceeded"}}),
        ),
        "weather?" => Outcome::Reply(json!({
            "id": "chatcmpl-t", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null,
                "tool_calls": [{"id": "call_1", "type": "function",
                    "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}}]}}],
            "usage": usage})),
        "think" => Outcome::Reply(json!({
            "id": "chatcmpl-r", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": "42", "reasoning_content": "six times seven",
                "annotations": [], "signature": "sig-1"}}],
            "usage": usage, "system_fingerprint": "fp_1"})),
        _ => Outcome::Reply(json!({
            "id": "chatcmpl-a", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": format!("answer to {question}")}}],
            "usage": usage})),
    }
}

fn asking(question: &str) -> Conversation {
    let mut conversation = Conversation::new("gpt-4o-mini");
    conversation.set_system("You are terse.");
    conversation.user(question).unwrap();
    conversation
}

/// Refreshes until the batch has ended (at most 10 reads: the emulation
/// moves one step a read); the states seen.
fn follow(client: &Client, batch: &mut Batch) -> Vec<BatchState> {
    let mut seen = Vec::new();
    for _ in 0..10 {
        let state = client.refresh_batch(batch).unwrap();
        seen.push(state);
        if state.has_ended() {
            return seen;
        }
    }
    panic!("the batch never ended: {seen:?}");
}

/// A line of the input file, its body as written.
#[derive(Deserialize)]
struct Line<'a> {
    custom_id: String,
    method: String,
    url: String,
    #[serde(borrow)]
    body: &'a RawValue,
}

fn lines(jsonl: &str) -> Vec<Line<'_>> {
    jsonl
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Conversations that use what a body can carry: options, tools, an
/// image, a token budget that leaves messages out, reasoning sent back.
fn varied() -> Vec<(String, Conversation)> {
    let mut options = asking("plain");
    options.set_temperature(0.25).unwrap();
    options.set_max_tokens(64).unwrap();
    options.set_seed(7).unwrap();
    let mut tools = asking("weather?");
    tools.add_tool(
        Tool::new(
            "weather",
            Some("The weather in a city"),
            Some(json!({
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})),
        )
        .unwrap(),
    );
    let mut image = Conversation::new("gpt-4o-mini");
    image
        .user_with_images(
            "what is this?",
            vec![Image::url("https://example.com/cat.png")],
        )
        .unwrap();
    let mut budget = asking("first");
    for turn in 0..6 {
        budget
            .assistant(format!("answer {turn} {}", "words ".repeat(40)))
            .unwrap();
        budget
            .user(format!("question {turn} {}", "words ".repeat(40)))
            .unwrap();
    }
    budget.set_token_budget(200);
    let mut replay = asking("weather?");
    let mut call = Message::new(Role::Assistant, "");
    call.tool_calls = vec![ToolCall::new("call_9", "weather", "{\"city\":\"Oslo\"}")];
    call.reasoning = Some(Reasoning::new(
        "I should look it up",
        ReasoningField::ReasoningContent,
    ));
    replay.push_message(call).unwrap();
    replay.tool_result("call_9", "sunny").unwrap();
    [
        ("options", options),
        ("tools", tools),
        ("image", image),
        ("budget", budget),
        ("replay", replay),
    ]
    .into_iter()
    .map(|(id, conversation)| (id.to_owned(), conversation))
    .collect()
}

#[test]
fn request_lines_are_the_bodies_of_real_sends_byte_for_byte() {
    let server = BatchServer::start(Life::Completes, answer);
    let client = common::client(&server.url);
    let mut batch = Batch::new();
    for (id, conversation) in varied() {
        batch.add(&client, &id, &conversation).unwrap();
        // The conversation is not changed by the add; the send changes its copy.
        client.send(&mut conversation.clone()).unwrap();
    }
    let jsonl = batch.to_jsonl().unwrap();
    let sent = server.sent_bodies();
    let lines = lines(&jsonl);
    assert_eq!(lines.len(), sent.len());
    for (line, sent) in lines.iter().zip(&sent) {
        assert_eq!(line.body.get().as_bytes(), &sent[..], "{}", line.custom_id);
        assert_eq!(
            (line.method.as_str(), line.url.as_str()),
            ("POST", "/v1/chat/completions")
        );
        common::assert_valid_request(line.body.get().as_bytes());
    }
    let budget = lines
        .iter()
        .find(|line| line.custom_id == "budget")
        .unwrap();
    let body: Value = serde_json::from_str(budget.body.get()).unwrap();
    assert!(
        body["messages"].as_array().unwrap().len() < 14,
        "the budget left nothing out"
    );
}

#[test]
fn a_batch_runs_end_to_end_and_each_result_joins_its_conversation_as_a_send_would() {
    let server = BatchServer::start(Life::Completes, answer);
    let client = common::client(&server.url);
    let mut conversations = varied();
    for question in ["think", "rate me", "too long", "echo"] {
        conversations.push((question.replace(' ', "-"), asking(question)));
    }
    let mut batch = Batch::new();
    for (id, conversation) in &conversations {
        batch.add(&client, id, conversation).unwrap();
    }
    assert_eq!(batch.id(), None);
    client.submit_batch(&mut batch).unwrap();
    assert_eq!(batch.state(), Some(BatchState::Validating));
    let id = batch.id().unwrap().to_owned();
    assert!(id.starts_with("batch-"), "{id}");
    // What was uploaded is the input file.
    assert_eq!(server.uploaded(), batch.to_jsonl().unwrap().into_bytes());
    assert_eq!(
        follow(&client, &mut batch),
        [
            BatchState::InProgress,
            BatchState::Finalizing,
            BatchState::Completed
        ]
    );
    let counts = batch.counts();
    assert_eq!((counts.total, counts.completed, counts.failed), (9, 6, 3));
    client.fetch_batch_results(&mut batch).unwrap();
    for (id, conversation) in &conversations {
        let (mut batched, mut sent) = (conversation.clone(), conversation.clone());
        let from_batch = batch.apply(id, &mut batched);
        let from_send = client.send_reply(&mut sent);
        match (from_batch, from_send) {
            (Ok(batched_reply), Ok(sent_reply)) => {
                assert_eq!(batched.to_json(), sent.to_json(), "{id}");
                assert_eq!(batched_reply.content(), sent_reply.content(), "{id}");
                assert_eq!(batched_reply.tool_calls(), sent_reply.tool_calls(), "{id}");
                assert_eq!(batched_reply.reasoning(), sent_reply.reasoning(), "{id}");
                assert_eq!(batched_reply.extra(), sent_reply.extra(), "{id}");
                assert_eq!(batched_reply.usage, sent_reply.usage, "{id}");
                assert_eq!(batched_reply.json(), sent_reply.json(), "{id}");
                assert_ne!(batched.len(), conversation.len(), "{id}: nothing appended");
            }
            (Err(batched_error), Err(sent_error)) => {
                let variant =
                    |error: &Error| format!("{error:?}").split(':').next().map(str::to_owned);
                assert_eq!(variant(&batched_error), variant(&sent_error), "{id}");
                assert_eq!(
                    batched_error.http_status(),
                    sent_error.http_status(),
                    "{id}"
                );
                assert_eq!(
                    batched, *conversation,
                    "{id}: a failure changed the conversation"
                );
            }
            (batched, sent) => panic!("{id}: the batch gave {batched:?}, a send {sent:?}"),
        }
    }
    // An error that quotes the key is cleaned of it, as a send's is.
    let echoed = batch.apply("echo", &mut asking("echo")).unwrap_err();
    assert!(!echoed.to_string().contains(common::KEY), "{echoed}");
    assert!(echoed.to_string().contains("[redacted]"), "{echoed}");
    let reasoning = batch.apply("think", &mut asking("think")).unwrap();
    assert_eq!(reasoning.reasoning().unwrap().text, "six times seven");
    assert_eq!(reasoning.extra()["signature"], "sig-1");
    assert_eq!(
        reasoning
            .request_id
            .as_deref()
            .map(|id| id.starts_with("req_")),
        Some(true)
    );
}

/// What the emulated model answers over the Responses API: the text of
/// the last input item, in a Responses API response object.
fn answer_over_responses(_custom_id: &str, body: &Value) -> Outcome {
    let input = body["input"].as_array().cloned().unwrap_or_default();
    let question = input
        .iter()
        .rev()
        .find(|item| item["role"] == "user")
        .and_then(|item| item["content"].as_str())
        .unwrap_or("(parts)")
        .to_owned();
    Outcome::Reply(json!({
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5-mini",
        "output": [{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": format!("answer to {question}"), "annotations": []}]}],
        "usage": {"input_tokens": 5, "output_tokens": 3, "total_tokens": 8}}))
}

#[test]
fn a_responses_client_batches_the_bodies_of_its_sends_and_its_results_join_as_its_sends_do() {
    let server = BatchServer::start(Life::Completes, answer_over_responses);
    let client = common::builder(&server.url)
        .api(Api::Responses)
        .build()
        .unwrap();
    let conversations: Vec<(String, Conversation)> = ["first", "second"]
        .iter()
        .map(|question| (question.to_string(), asking(question)))
        .collect();
    let mut batch = Batch::new();
    let mut sent = Vec::new();
    for (id, conversation) in &conversations {
        batch.add(&client, id, conversation).unwrap();
        let mut copy = conversation.clone();
        let reply = client.send_reply(&mut copy).unwrap();
        sent.push((copy, reply));
    }
    let jsonl = batch.to_jsonl().unwrap();
    let bodies = server.sent_bodies();
    let lines = lines(&jsonl);
    assert_eq!(lines.len(), bodies.len());
    for (line, body) in lines.iter().zip(&bodies) {
        assert_eq!(line.body.get().as_bytes(), &body[..], "{}", line.custom_id);
        assert_eq!(line.url, "/v1/responses");
    }
    client.submit_batch(&mut batch).unwrap();
    follow(&client, &mut batch);
    client.fetch_batch_results(&mut batch).unwrap();
    for ((id, conversation), (sent_conversation, sent_reply)) in conversations.iter().zip(&sent) {
        let mut batched = conversation.clone();
        let reply = batch.apply(id, &mut batched).unwrap();
        assert_eq!(batched.to_json(), sent_conversation.to_json(), "{id}");
        assert_eq!(reply.content(), sent_reply.content(), "{id}");
        assert_eq!(reply.usage, sent_reply.usage, "{id}");
        assert_eq!(reply.json(), sent_reply.json(), "{id}");
    }
}

#[test]
fn the_upload_is_a_multipart_form_with_purpose_batch_and_the_create_asks_for_24h() {
    let server = BatchServer::start(Life::Completes, answer);
    let client = common::client(&server.url);
    let mut batch = Batch::new();
    batch.add(&client, "a", &asking("plain")).unwrap();
    client.submit_batch(&mut batch).unwrap();
    let requests = server.requests();
    let upload = requests.iter().find(|r| r.path == "/v1/files").unwrap();
    let content_type = upload.header("content-type").unwrap();
    assert!(
        content_type.starts_with("multipart/form-data; boundary="),
        "{content_type}"
    );
    assert_eq!(
        upload.header("authorization"),
        Some(format!("Bearer {}", common::KEY).as_str())
    );
    let create = requests.iter().find(|r| r.path == "/v1/batches").unwrap();
    let body: Value = serde_json::from_slice(&create.body).unwrap();
    assert_eq!(body["endpoint"], "/v1/chat/completions");
    assert_eq!(body["completion_window"], "24h");
    assert_eq!(create.header("content-type"), Some("application/json"));
    // A batch is submitted once.
    let again = client.submit_batch(&mut batch).unwrap_err();
    assert!(matches!(again, Error::InvalidArgument(_)), "{again:?}");
}

#[test]
fn a_refused_input_file_fails_with_the_servers_validation_errors() {
    let server = BatchServer::start(Life::Completes, answer);
    let client = common::client(&server.url);
    let mut batch = Batch::new();
    batch.add(&client, "one", &asking("plain")).unwrap();
    let mut other = asking("plain");
    other.set_model("gpt-4o").unwrap();
    batch.add(&client, "two", &other).unwrap();
    client.submit_batch(&mut batch).unwrap();
    assert_eq!(follow(&client, &mut batch), [BatchState::Failed]);
    assert_eq!(batch.errors().len(), 1, "{:?}", batch.errors());
    let error = &batch.errors()[0];
    assert!(error.starts_with("line 2: "), "{error}");
    assert!(error.contains("mismatched_model"), "{error}");
    client.fetch_batch_results(&mut batch).unwrap();
    let missing = batch.apply("one", &mut asking("plain")).unwrap_err();
    assert!(matches!(missing, Error::Unavailable(_)), "{missing:?}");
}

#[test]
fn an_expired_batch_gives_what_ran_and_unavailable_for_the_rest() {
    let server = BatchServer::start(Life::Expires { ran: 2 }, answer);
    let client = common::client(&server.url);
    let mut batch = Batch::new();
    let questions = ["q0", "q1", "q2", "q3"];
    for question in questions {
        batch.add(&client, question, &asking(question)).unwrap();
    }
    client.submit_batch(&mut batch).unwrap();
    assert_eq!(
        follow(&client, &mut batch),
        [BatchState::InProgress, BatchState::Expired]
    );
    client.fetch_batch_results(&mut batch).unwrap();
    for (at, question) in questions.iter().enumerate() {
        let mut conversation = asking(question);
        let outcome = batch.apply(question, &mut conversation);
        if at < 2 {
            assert_eq!(outcome.unwrap().content(), format!("answer to {question}"));
        } else {
            let error = outcome.unwrap_err();
            assert!(matches!(error, Error::Unavailable(_)), "{error:?}");
            assert!(error.to_string().contains("batch_expired"), "{error}");
            assert_eq!(conversation, asking(question));
        }
    }
}

#[test]
fn a_cancelled_batch_goes_through_cancelling_to_cancelled_with_what_ran() {
    let server = BatchServer::start(Life::Completes, answer);
    server.run_before_cancel(1);
    let client = common::client(&server.url);
    let mut batch = Batch::new();
    for question in ["q0", "q1"] {
        batch.add(&client, question, &asking(question)).unwrap();
    }
    client.submit_batch(&mut batch).unwrap();
    assert_eq!(
        client.refresh_batch(&mut batch).unwrap(),
        BatchState::InProgress
    );
    // Results of a batch still running are refused.
    let early = client.fetch_batch_results(&mut batch).unwrap_err();
    assert!(early.to_string().contains("finalizing"), "{early}");
    assert_eq!(
        client.cancel_batch(&mut batch).unwrap(),
        BatchState::Cancelling
    );
    assert_eq!(follow(&client, &mut batch), [BatchState::Cancelled]);
    client.fetch_batch_results(&mut batch).unwrap();
    assert_eq!(
        batch.apply("q0", &mut asking("q0")).unwrap().content(),
        "answer to q0"
    );
    let missing = batch.apply("q1", &mut asking("q1")).unwrap_err();
    assert!(matches!(missing, Error::Unavailable(_)), "{missing:?}");
    // An ended batch cannot be cancelled: the server's 409, as a send's error.
    let late = client.cancel_batch(&mut batch).unwrap_err();
    assert_eq!(late.http_status(), Some(409), "{late:?}");
}

#[test]
fn a_batch_opened_by_id_in_another_run_applies_to_conversations_restored_from_json() {
    let server = BatchServer::start(Life::Completes, answer);
    let client = common::client(&server.url);
    let saved: Vec<(String, String)>;
    let id = {
        let mut batch = Batch::new();
        let conversations: Vec<(String, Conversation)> = ["q0", "q1", "q2"]
            .iter()
            .map(|q| (q.to_string(), asking(q)))
            .collect();
        for (id, conversation) in &conversations {
            batch.add(&client, id, conversation).unwrap();
        }
        client.submit_batch(&mut batch).unwrap();
        saved = conversations
            .iter()
            .map(|(id, c)| (id.clone(), c.to_json()))
            .collect();
        batch.id().unwrap().to_owned()
    };
    // The next run: the id and the saved conversations are all it has.
    let mut batch = Batch::open(&id).unwrap();
    assert_eq!(batch.id(), Some(id.as_str()));
    follow(&client, &mut batch);
    client.fetch_batch_results(&mut batch).unwrap();
    // A second fetch replaces the first one's results.
    client.fetch_batch_results(&mut batch).unwrap();
    assert!(format!("{batch:?}").contains("results: 3"), "{batch:?}");
    for (custom_id, json) in saved {
        let mut conversation = Conversation::from_json(&json).unwrap();
        let reply = batch.apply(&custom_id, &mut conversation).unwrap();
        assert_eq!(reply.content(), format!("answer to {custom_id}"));
        assert_eq!(
            conversation.messages().last().unwrap().content,
            reply.content()
        );
    }
    assert!(matches!(Batch::open(" "), Err(Error::InvalidArgument(_))));
}

#[test]
fn results_read_from_a_vllm_file_in_any_order_with_a_malformed_line_named() {
    // vLLM's run-batch writes the output object of OpenAI's reference.
    let reply = |id: &str, text: &str| {
        json!({"id": format!("vllm-{id}"), "custom_id": id, "response": {"status_code": 200,
            "request_id": format!("vllm-batch-{id}"), "body": {"id": "cmpl", "object": "chat.completion",
            "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
            "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}},
            "error": null})
        .to_string()
    };
    let file = format!(
        "{}\n{{\"custom_id\": \n{}\n",
        reply("b", "B"),
        reply("a", "A")
    );
    let mut batch = Batch::new();
    let error = batch.read_results(file).unwrap_err();
    assert!(matches!(error, Error::Decode { .. }), "{error:?}");
    assert!(error.to_string().contains("line 2"), "{error}");
    assert_eq!(batch.apply("a", &mut asking("x")).unwrap().content(), "A");
    assert_eq!(batch.apply("b", &mut asking("y")).unwrap().content(), "B");
}

#[test]
fn an_azure_client_uses_azures_batch_routes_and_line_url() {
    let server = BatchServer::start(Life::Completes, answer);
    let client = Client::builder()
        .azure(&server.url, "gpt-4o-batch")
        .api_key(common::KEY)
        .timeout(Duration::from_secs(10))
        .max_retries(0)
        .build()
        .unwrap();
    let mut batch = Batch::new();
    batch.add(&client, "a", &asking("plain")).unwrap();
    let jsonl = batch.to_jsonl().unwrap();
    assert_eq!(lines(&jsonl)[0].url, "/chat/completions");
    client.submit_batch(&mut batch).unwrap();
    follow(&client, &mut batch);
    client.fetch_batch_results(&mut batch).unwrap();
    assert_eq!(
        batch.apply("a", &mut asking("plain")).unwrap().content(),
        "answer to plain"
    );
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(
        paths[0].starts_with("/openai/files?api-version="),
        "{paths:?}"
    );
    assert!(
        paths[1].starts_with("/openai/batches?api-version="),
        "{paths:?}"
    );
    assert!(
        paths
            .iter()
            .any(|p| p.starts_with("/openai/files/") && p.contains("/content?api-version=")),
        "{paths:?}"
    );
}

#[test]
fn past_openais_limits_the_input_file_is_too_large() {
    let client = common::client("http://127.0.0.1:9");
    let mut batch = Batch::new();
    let conversation = asking("plain");
    for n in 0..=chatwire::MAX_BATCH_REQUESTS {
        batch.add(&client, &n.to_string(), &conversation).unwrap();
    }
    let error = batch.to_jsonl().unwrap_err();
    assert!(
        matches!(error, Error::TooLarge { limit: 50_000, .. }),
        "{error:?}"
    );
    assert!(error.to_string().ends_with("50000 requests"), "{error}");
    let refused = client.submit_batch(&mut batch).unwrap_err();
    assert!(matches!(refused, Error::TooLarge { .. }), "{refused:?}");

    // Two requests of 100 MB each: past 200 MB.
    let mut batch = Batch::new();
    let big = asking(&"x".repeat(100_000_000));
    batch.add(&client, "a", &big).unwrap();
    batch.add(&client, "b", &big).unwrap();
    let error = batch.to_jsonl().unwrap_err();
    assert!(
        matches!(
            error,
            Error::TooLarge {
                limit: 200_000_000,
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn a_custom_id_is_unique_and_a_conversation_that_cannot_be_sent_is_refused_as_a_send_is() {
    let client = common::client("http://127.0.0.1:9");
    let mut batch = Batch::new();
    batch.add(&client, "a", &asking("plain")).unwrap();
    assert!(matches!(
        batch.add(&client, "a", &asking("x")),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        batch.add(&client, "", &asking("x")),
        Err(Error::InvalidArgument(_))
    ));
    let mut unsendable = asking("x");
    unsendable.assistant("done").unwrap();
    let refused = batch.add(&client, "b", &unsendable).unwrap_err();
    let sent = client.send(&mut unsendable).unwrap_err();
    assert_eq!(format!("{refused:?}"), format!("{sent:?}"));
    assert_eq!(batch.len(), 1);
}

/// Posts a form to the emulation's `/v1/files` over a plain socket; the status line.
fn post_form(url: &str, content_type: &str, body: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(url.trim_start_matches("http://")).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let head = format!(
        "POST /v1/files HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {}\r\n\
         content-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
        common::KEY,
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn the_emulation_parses_the_multipart_form_strictly() {
    let server = BatchServer::start(Life::Completes, answer);
    let content_type = "multipart/form-data; boundary=b0";
    let purpose = "--b0\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n";
    let file = "--b0\r\nContent-Disposition: form-data; name=\"file\"; filename=\"in.jsonl\"\r\n\
                Content-Type: application/jsonl\r\n\r\n{}\n\r\n";
    let good = format!("{purpose}{file}--b0--\r\n");
    assert!(post_form(&server.url, content_type, &good).contains("200"));
    for (why, body) in [
        ("no closing delimiter", format!("{purpose}{file}")),
        ("bytes after the end", format!("{good}x")),
        ("no purpose", format!("{file}--b0--\r\n")),
        ("LF framing", good.replace("\r\n", "\n")),
        (
            "another purpose",
            good.replace("batch\r\n", "fine-tune\r\n"),
        ),
    ] {
        assert!(
            post_form(&server.url, content_type, &body).contains("400"),
            "{why}"
        );
    }
    assert!(post_form(&server.url, "application/json", &good).contains("400"));
}
