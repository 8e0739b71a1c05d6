//! The selection rules of the token budget.

use super::*;
use crate::conversation::message::ToolCall;

/// A conversation with a system message and `turns` exchanges of a
/// 400-byte question and a 400-byte answer (about 104 tokens each at the
/// default ratio, with the per-message bytes).
fn chat(turns: usize) -> Conversation {
    let mut c = Conversation::new("m");
    c.set_system("be brief");
    for turn in 0..turns {
        c.user(format!("{turn:>400}")).unwrap();
        c.assistant(format!("{turn:>400}")).unwrap();
    }
    c
}

fn contents(c: &Conversation) -> Vec<String> {
    c.messages()
        .iter()
        .map(|m| m.content.trim().to_owned())
        .collect()
}

#[test]
fn without_a_budget_or_within_it_nothing_is_left_out() {
    let mut c = chat(10);
    c.user("q").unwrap();
    assert_eq!(c.plan_trim().unwrap(), None);
    c.set_token_budget(100_000);
    assert_eq!(c.plan_trim().unwrap(), None);
}

#[test]
fn oldest_exchanges_go_first_and_the_system_message_stays() {
    let mut c = chat(10);
    c.user("last").unwrap();
    let whole = c.estimated_tokens();
    c.set_token_budget(whole - 300);
    let trim = c.plan_trim().unwrap().unwrap();
    // Down to three quarters of the budget, by whole exchanges of about
    // 208 tokens each.
    let low = (whole - 300) * 3 / 4;
    assert_eq!(trim.dropped() % 2, 0);
    assert!(trim.tokens_after <= low, "{trim:?}");
    assert!(trim.tokens_after > low - 208, "{trim:?}");
    assert_eq!(trim.dropped(), 8);
    let sent = c.selection(&trim);
    assert_eq!(sent.messages()[0].role, Role::System);
    assert_eq!(contents(&sent)[1], "4");
    assert_eq!(sent.messages().last().unwrap().content, "last");
    assert!(sent.check_ready_to_send().is_ok());
}

#[test]
fn a_last_exchange_between_three_quarters_and_the_budget_is_kept_alone() {
    let mut c = chat(3);
    c.user("x".repeat(3200)).unwrap();
    // The question is about 804 tokens: over three quarters of 1000, under 1000.
    c.set_token_budget(1000);
    let trim = c.plan_trim().unwrap().unwrap();
    assert_eq!(contents(&c.selection(&trim)).len(), 2);
}

#[test]
fn the_last_user_message_stays_even_when_only_it_fits() {
    let mut c = chat(5);
    c.user("last").unwrap();
    c.set_token_budget(20);
    let trim = c.plan_trim().unwrap().unwrap();
    let sent = c.selection(&trim);
    assert_eq!(contents(&sent), ["be brief", "last"]);
}

#[test]
fn a_last_exchange_over_the_budget_is_a_clear_error() {
    let mut c = chat(3);
    c.user("x".repeat(4000)).unwrap();
    c.set_token_budget(500);
    match c.plan_trim() {
        Err(Error::ContextLength(api)) => {
            assert!(api.message.contains("the last exchange"), "{}", api.message);
            assert!(
                api.message.contains("token budget of 500"),
                "{}",
                api.message
            );
            assert_eq!(api.status, None);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_tool_call_goes_with_its_results() {
    let mut c = Conversation::new("m");
    c.user("weather?").unwrap();
    let calls = vec![
        ToolCall::new("c1", "weather", "{}"),
        ToolCall::new("c2", "time", "{}"),
    ];
    c.assistant_tool_calls("", calls).unwrap();
    c.tool_result("c1", "x".repeat(2000)).unwrap();
    c.tool_result("c2", "y".repeat(2000)).unwrap();
    c.assistant("sunny").unwrap();
    c.user("and tomorrow?").unwrap();
    c.assistant_tool_calls("", vec![ToolCall::new("c3", "weather", "{}")])
        .unwrap();
    c.tool_result("c3", "rain").unwrap();
    // Ready to send after the results: the last exchange is the user
    // message, the call and its result.
    c.set_token_budget(200);
    let trim = c.plan_trim().unwrap().unwrap();
    let sent = c.selection(&trim);
    let roles: Vec<Role> = sent.messages().iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool]);
    assert!(sent.check_ready_to_send().is_ok());
}

#[test]
fn tool_definitions_and_images_count() {
    let mut c = Conversation::new("m");
    c.user("q").unwrap();
    let plain = c.estimated_tokens();
    c.add_tool(crate::conversation::message::Tool::new("f", Some(&"d".repeat(400)), None).unwrap());
    assert!(c.estimated_tokens() >= plain + 100);
    let mut with_image = Conversation::new("m");
    with_image
        .user_image("q", "https://example.com/cat.png")
        .unwrap();
    assert!(with_image.estimated_tokens() >= plain + IMAGE_TOKENS);
}

#[test]
fn files_count_by_their_size_and_kind() {
    use crate::conversation::message::Attachment;
    let mut plain = Conversation::new("m");
    plain.user("q").unwrap();
    let plain = plain.estimated_tokens();
    // 64 KiB of PDF: a thousand tokens at 64 bytes each; of WAV, 66 at 1,000.
    let tokens = |bytes: &[u8], pad: u8| {
        let mut file = bytes.to_vec();
        file.resize(64 * 1024, pad);
        let mut c = Conversation::new("m");
        c.user_with_files("q", vec![Attachment::from_bytes("f", &file).unwrap()])
            .unwrap();
        c.estimated_tokens() - plain
    };
    assert_eq!(tokens(b"%PDF-1.4", b' '), 1024);
    assert_eq!(tokens(b"RIFF\0\0\0\0WAVE", 0), 66);
    assert_eq!(tokens(b"ID3\x04", 0), 263);
}

#[test]
fn the_ratio_is_learned_from_the_server_count() {
    let mut c = chat(0);
    c.user("x".repeat(800)).unwrap();
    let guess = c.estimated_tokens();
    // The server counted half as many bytes per token as the default.
    let bytes = c.messages().iter().map(message_bytes).sum::<u64>()
        + message_bytes(&Message::new(Role::Assistant, "ok"));
    c.append_answer(Message::new(Role::Assistant, "ok"), None, Some(bytes / 2))
        .unwrap();
    c.user("y".repeat(800)).unwrap();
    let learned = c.estimated_tokens();
    // Both questions at 2 bytes a token, not 4.
    assert!(learned > guess * 3, "{guess} then {learned}");
}

#[test]
fn a_retry_leaves_out_at_least_one_more_exchange() {
    let mut c = chat(6);
    c.user("last").unwrap();
    let more = c.plan_retry().unwrap();
    assert!(more.dropped() >= 2);
    assert!(more.tokens_after <= c.estimated_tokens() * 3 / 4);
    let mut single = Conversation::new("m");
    single.user("only").unwrap();
    assert_eq!(single.plan_retry(), None);
}

#[test]
fn two_trims_compose_into_one_of_the_original() {
    let mut c = chat(8);
    c.user("last").unwrap();
    c.set_token_budget(c.estimated_tokens() - 300);
    let first = c.plan_trim().unwrap().unwrap();
    let sent = c.selection(&first);
    let more = sent.plan_retry().unwrap();
    let both = Trim::then(Some(first), more);
    assert_eq!(
        c.selection(&both).messages(),
        sent.selection(&more).messages()
    );
}

#[test]
fn an_appended_answer_takes_its_trim_on_once() {
    let mut c = chat(4);
    c.user("last").unwrap();
    c.set_token_budget(c.estimated_tokens() - 300);
    let trim = c.plan_trim().unwrap().unwrap();
    let mut elsewhere = c.clone();
    c.append_answer(Message::new(Role::Assistant, "a"), Some(trim), Some(10))
        .unwrap();
    assert_eq!(c.last_dropped(), trim.dropped());
    assert_eq!(c.messages()[0].role, Role::System);
    // A conversation that changed since plans its own trim when a reply is
    // appended to it.
    elsewhere.remove(1, 2).unwrap();
    let own = elsewhere
        .plan_trim()
        .unwrap()
        .map_or(0, |trim| trim.dropped());
    let before = elsewhere.len();
    let reply = crate::wire::completion::decode(
        r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"a"}}]}"#.into(),
        None,
    )
    .unwrap();
    elsewhere.append_reply(&reply).unwrap();
    assert_eq!(elsewhere.len(), before - own + 1);
    assert_eq!(elsewhere.last_dropped(), own);
}

#[test]
fn choosing_is_linear_in_the_history() {
    let mut c = chat(50_000);
    c.user("last").unwrap();
    c.set_token_budget(1000);
    let started = std::time::Instant::now();
    let trim = c.plan_trim().unwrap().unwrap();
    let took = started.elapsed();
    // Three exchanges of about 208 tokens fit three quarters of 1000.
    assert_eq!(c.len() - trim.dropped(), 2 + 2 * 3);
    // Only the clock tells linear from quadratic here. A quadratic choice
    // over 50,000 messages takes minutes in a debug build, the linear one
    // tens of milliseconds: five seconds fails only the former, however
    // busy the machine. The release figure is in benches/speed.rs.
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
}

#[test]
fn fields_kept_from_the_server_count_in_the_estimate() {
    let mut c = Conversation::new("m");
    c.user("q").unwrap();
    c.assistant_tool_calls("", vec![ToolCall::new("c1", "f", "{}")])
        .unwrap();
    c.tool_result("c1", "r").unwrap();
    let before = c.estimated_tokens();
    // A Gemini thought signature of 4,000 bytes goes back with the call.
    let mut signed = c.clone();
    signed.messages[1].tool_calls[0].extra.insert(
        "extra_content".into(),
        serde_json::json!({"google": {"thought_signature": "s".repeat(4000)}}),
    );
    assert!(signed.estimated_tokens() >= before + 1000, "{before}");
}

#[test]
fn a_token_budget_of_zero_is_none() -> crate::Result<()> {
    let mut conversation = crate::Conversation::new("m");
    conversation.set_token_budget(4096);
    assert_eq!(conversation.token_budget(), Some(4096));
    conversation.set_token_budget(0);
    assert_eq!(conversation.token_budget(), None);
    Ok(())
}

#[test]
fn what_a_copy_left_out_is_counted_from_the_oldest_and_keeps_the_last_exchange() {
    let mut c = chat(3);
    c.user("last").unwrap();
    assert_eq!(c.trim_oldest(0), None);
    let two = c.trim_oldest(2).unwrap();
    assert_eq!((two.start, two.end), (1, 3), "after the system message");
    assert!(two.tokens_after < two.tokens_before);
    // More than there is to leave out: everything before the last question.
    let all = c.trim_oldest(100).unwrap();
    assert_eq!((all.start, all.end), (1, c.len() - 1));
    // Without a system message, from the first message.
    let mut bare = Conversation::new("m");
    bare.user("q").unwrap();
    bare.assistant("a").unwrap();
    bare.user("last").unwrap();
    let trim = bare.trim_oldest(2).unwrap();
    assert_eq!((trim.start, trim.end), (0, 2));
}

#[test]
fn a_reply_takes_its_requests_trim_only_to_the_conversation_it_was_planned_on() {
    let mut c = chat(4);
    c.user("last").unwrap();
    c.set_token_budget(c.estimated_tokens() - 300);
    let planned = c.plan_trim().unwrap().unwrap();
    // A retry left out one exchange more than the plan.
    let more = c.trim_oldest(planned.dropped() + 2).unwrap();
    assert_eq!(c.left_out_by(LeftOut::new(c.len(), Some(more))), Some(more));
    assert_eq!(c.left_out_by(LeftOut::new(c.len(), None)), None);
    // Planned on another length, or no send's reply: planned again here.
    assert_eq!(c.left_out_by(LeftOut::new(3, Some(more))), Some(planned));
    assert_eq!(c.left_out_by(LeftOut::default()), Some(planned));
    // A trim that would not start the rest with a question is not taken.
    let mut odd = more;
    odd.end -= 1;
    assert_eq!(
        c.left_out_by(LeftOut::new(c.len(), Some(odd))),
        Some(planned)
    );
}
