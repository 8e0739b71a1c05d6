//! Building prompts that ask for JSON in the form `extract_json` reads best.

/// Builds a prompt asking for JSON shaped like `example_json`: the
/// instruction, a request for a fenced `json` block, the example in such a
/// block, and then the text to work on.
///
/// The text comes last and after a `Text:` line, so an instruction hidden in
/// it reads as part of the text rather than as the end of the prompt's own.
///
/// ```
/// let prompt = chatwire::extract::json_prompt(
///     "List the people named in the text below.",
///     r#"[{"name": "Ada"}]"#,
///     "Ada met Grace.",
/// );
/// assert!(prompt.starts_with("List the people"));
/// assert!(prompt.contains("```json\n[{\"name\": \"Ada\"}]\n```"));
/// assert!(prompt.ends_with("Text:\nAda met Grace.\n"));
/// ```
#[must_use]
pub fn json_prompt(instruction: &str, example_json: &str, text: &str) -> String {
    format!(
        "{instruction}\n\n\
         Reply with the JSON only, in a fenced ```json code block, \
         in the same form as this example:\n\n\
         ```json\n{example}\n```\n\n\
         Text:\n{text}\n",
        instruction = instruction.trim(),
        example = example_json.trim(),
        text = text.trim(),
    )
}
