//! Tolerant JSON extraction from model replies: [`extract_json`] finds the
//! almost-JSON a model wrote (fenced, in prose, with `1/2`, trailing commas,
//! ...) and repairs it; [`extract`] reads it into your own type;
//! [`extract_ingredients`] reads the list that [`ingredients_prompt`] asks for.
//! `docs/structured-output.md` gives the search order, every repair, and the
//! cost (linear in the reply's length).

mod candidates;
mod cursor;
mod ingredients;
mod numbers;
mod repair;
mod search;
mod strings;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::Result;

pub use ingredients::Ingredient;
pub(crate) use search::search as find_json;

/// Finds the outermost JSON object or array in a model's reply, repairs it,
/// and parses it. A reply that is one JSON string holding an object or array
/// is unwrapped once.
///
/// # Errors
///
/// [`Error::NoJson`](crate::Error::NoJson) when no object or array is found
/// or none can be repaired; the message says how many candidates were tried,
/// and where and why the most promising one failed.
///
/// # Example
///
/// ```
/// use serde_json::json;
///
/// let reply = "Sure! Here you go:\n\
///     ```json\n\
///     [\n\
///     {\"ingredient\": \"flour\", \"quantity\": 1 1/2, \"unit\": \"cup\"},\n\
///     {\"ingredient\": \"butter\", \"quantity\": ½, \"unit\": \"cup\"},\n\
///     ]\n\
///     ```\n\
///     Let me know if you need anything else.";
/// let value = chatwire::extract_json(reply)?;
/// assert_eq!(
///     value,
///     json!([
///         {"ingredient": "flour", "quantity": 1.5, "unit": "cup"},
///         {"ingredient": "butter", "quantity": 0.5, "unit": "cup"}
///     ])
/// );
///
/// assert!(chatwire::extract_json("I don't know.").is_err());
/// # Ok::<(), chatwire::Error>(())
/// ```
pub fn extract_json(text: &str) -> Result<Value> {
    search::search(text, Ok)
}

/// Finds the JSON in a model's reply, as [`extract_json`] does, and
/// deserializes it into `T`. A candidate that does not fit `T` is passed
/// over, so an example object before the answer does not hide it.
///
/// # Errors
///
/// [`Error::NoJson`](crate::Error::NoJson) as for [`extract_json`]; when no
/// JSON found fits `T`, the message is serde's for the first one.
///
/// # Example
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Answer {
///     city: String,
///     population: u64,
/// }
///
/// let reply = "The answer is {city: 'Lyon', population: 522250,} as of 2021.";
/// let answer: Answer = chatwire::extract(reply)?;
/// assert_eq!(answer.city, "Lyon");
/// assert_eq!(answer.population, 522_250);
/// # Ok::<(), chatwire::Error>(())
/// ```
pub fn extract<T: DeserializeOwned>(text: &str) -> Result<T> {
    search::search(text, |value| {
        serde_json::from_value(value)
            .map_err(|error| format!("the JSON found does not fit the requested type: {error}"))
    })
}

/// Reads an ingredient list (the convention of [`ingredients_prompt`]) from
/// a model's reply.
///
/// Lenient, because small models are (strict callers can use
/// `extract::<Vec<Ingredient>>`):
///
/// - **Shape**: an array of items, one item, an object with an
///   `"ingredients"` array (or object), or an object whose only array holds
///   the items; an empty array is an empty list. A candidate with no usable
///   item is passed over.
/// - **Keys** match ignoring case; `name` or `item` stand for `ingredient`,
///   `amount` or `qty` for `quantity`, `units` for `unit`.
/// - **Items** that are not objects or lack a non-empty string `ingredient`
///   are skipped.
/// - **`quantity`**: a number, or a string read like one (`"1 1/2"`, `"½"`,
///   a range `"2-3"` gives 2); words in it (`"2 cups"`, `"a pinch"`) become
///   the unit if the item has none; otherwise `0.0`, never NaN.
/// - **`ingredient`** and **`unit`** are trimmed; a unit that is empty,
///   `"null"`, `"none"`, `"n/a"`, `"na"`, `"-"` or not a string is `None`.
///
/// # Errors
///
/// [`Error::NoJson`](crate::Error::NoJson) when no JSON is found, or none
/// holds a usable ingredient list.
///
/// # Example
///
/// ```
/// use chatwire::Ingredient;
///
/// let reply = "```json\n\
///     [\n\
///     {\"ingredient\": \"flour\", \"quantity\": 2, \"unit\": \"cups\"},\n\
///     {\"ingredient\": \"salt\", \"quantity\": \"a pinch\", \"unit\": null},\n\
///     {\"ingredient\": \"eggs\", \"quantity\": 3, \"unit\": \"\"}\n\
///     ]\n\
///     ```";
/// let items = chatwire::extract_ingredients(reply)?;
/// assert_eq!(items[0], Ingredient { ingredient: "flour".into(), quantity: 2.0, unit: Some("cups".into()) });
/// assert_eq!(items[1], Ingredient { ingredient: "salt".into(), quantity: 0.0, unit: Some("a pinch".into()) });
/// assert_eq!(items[2], Ingredient { ingredient: "eggs".into(), quantity: 3.0, unit: None });
/// # Ok::<(), chatwire::Error>(())
/// ```
pub fn extract_ingredients(text: &str) -> Result<Vec<Ingredient>> {
    search::search(text, ingredients::ingredients_from_value)
}

/// Builds the prompt of the ingredient-list convention (the instruction, an
/// example in a fenced `json` block, then `text`): send it as the user
/// message and read the reply with [`extract_ingredients`].
///
/// ```
/// let prompt = chatwire::ingredients_prompt("Mix 2 cups of flour with 3 eggs.");
/// assert!(prompt.contains("\"ingredient\""));
/// assert!(prompt.contains("```json\n[\n{\"ingredient\": \"flour\""));
/// assert!(prompt.ends_with("Text:\nMix 2 cups of flour with 3 eggs.\n"));
/// ```
#[must_use]
pub fn ingredients_prompt(text: &str) -> String {
    json_prompt(ingredients::INSTRUCTION, ingredients::EXAMPLE, text)
}

/// Builds a prompt asking for JSON shaped like `example_json`: the
/// instruction, the example in a fenced `json` block, and then the text
/// after a `Text:` line (so an instruction hidden in it reads as text).
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
    let (instruction, example, text) = (instruction.trim(), example_json.trim(), text.trim());
    format!(
        "{instruction}\n\n\
         Reply with the JSON only, in a fenced ```json code block, \
         in the same form as this example:\n\n\
         ```json\n{example}\n```\n\n\
         Text:\n{text}\n"
    )
}
