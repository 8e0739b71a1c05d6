//! Tolerant JSON extraction from model replies.
//!
//! Ask a model for JSON and what comes back is often *almost* JSON: wrapped
//! in a fenced block, with prose around it, with `1/2` where a number should
//! be. [`extract_json`] finds the JSON in such a reply and repairs it;
//! [`extract`] does the same into your own type; [`extract_ingredients`]
//! reads the ingredient-list convention that [`ingredients_prompt`] asks for.
//!
//! # Where the JSON is looked for
//!
//! Candidates are tried in this order, and the first one that can be
//! repaired and parsed wins:
//!
//! 1. fenced code blocks (```` ``` ```` or `~~~`, three or more, closed by a
//!    line of at least as many of the same character) marked `json`,
//!    `jsonc`, `json5`, `jsonl` or `ndjson` (any case), in text order; a
//!    block left open at the end of the reply runs to the end;
//! 2. unmarked fenced blocks, in text order;
//! 3. every `{` or `[` of the text, in text order, each read as far as the
//!    value it starts (strings and escapes respected, so braces, `1/2` or
//!    fences inside strings do not matter). After a failure the search goes
//!    on from where that candidate stopped, so a stray `{` in prose does not
//!    hide the JSON after it.
//!
//! Only an object or an array counts as JSON found: a reply that is just
//! `42` or `"yes"` is much more likely prose than an answer to a request
//! for structured data.
//!
//! # Repairs
//!
//! Repairs are made by a scanner that reads the candidate token by token,
//! never by rewriting the text with patterns, and never inside a string:
//! `"1/2 cup"` stays a string.
//!
//! | model wrote | becomes |
//! |---|---|
//! | `1/2` (also with `⁄` or `∕`) | `0.5`: a fraction is always an `f64`, `1/3` is `0.3333333333333333`, `4/2` is `2.0` |
//! | `1 1/2`, `1-1/2` | `1.5` |
//! | `½` `¼` `¾` `⅓` `⅔` `⅕` `⅖` `⅗` `⅘` `⅙` `⅚` `⅐` `⅛` `⅜` `⅝` `⅞` `⅑` `⅒` `↉`, `⅟8`, `¹⁄₂` | their value; `1½` and `1 ½` are `1.5`, `-½` is `-0.5` |
//! | `1/0` | not a number: the candidate fails (no infinity is invented) |
//! | `+1`, `.5`, `1.`, `007` | `1`, `0.5`, `1.0`, `7` |
//! | `1e400` and other numbers beyond `f64` | `null` |
//! | `True`, `False`, `None`, `undefined`, `NaN`, `Infinity`, `-Infinity` (any case) | `true`, `false`, `null`; JSON has no NaN or infinity |
//! | `'single'`, `“smart”`, `‘smart’` quotes | JSON strings |
//! | an apostrophe or unescaped `"` inside a string (`'Ben's pie'`, `"the "best" one"`) | kept in the string when a later quote on the same line can close it (one followed by `,` `:` `}` `]`, a comment or the end of the line) |
//! | a raw newline or tab inside a string, `\'`, an unknown escape, a lone surrogate escape | `\n`/`\t`, `'`, the backslash kept as a character, U+FFFD |
//! | `{name: "x"}` (unquoted key, only when a colon follows) | `{"name": "x"}` |
//! | `// line` and `/* block */` comments | removed |
//! | `[1, 2,]`, `[1,,2]`, `{"a": 1,}` | `[1, 2]`, `[1, 2]`, `{"a": 1}` |
//! | a missing comma between values or members (one item per line) | supplied |
//! | `{"a": }` | `{"a": null}` |
//! | `[1, 2, ...]`, `…` as a placeholder item | dropped |
//! | a wrong closer (`{"a": [1, 2}`) | closes up to the container it matches |
//! | several objects or arrays one after another (one per line, or separated by commas), with no enclosing array | one array of them |
//! | output cut off (token limit): open strings, arrays and objects | closed; a key without a value and a container opened just before the cut are dropped. A cut before any complete value is not JSON |
//! | text after the JSON | ignored |
//! | byte-order mark, zero-width space, no-break space | whitespace |
//!
//! Not repaired (the candidate fails): unquoted string values
//! (`{"unit": cup}`), a missing colon, words outside strings other than the
//! literals above, ranges such as `2-3` in a value, nesting deeper than 120
//! levels (the search then goes on inside the failed candidate, so a deeper
//! nest yields its innermost part that fits, not an error). Two strings on one line with no comma between them (`["a" "b"]`)
//! read as one string with inner quotes. Duplicate keys are left to
//! `serde_json`: the last one wins.
//!
//! Numbers are parsed by `serde_json`; without its `float_roundtrip` feature
//! a literal with many digits or a large exponent may land one unit in the
//! last place away from the nearest `f64`.
//!
//! # Cost
//!
//! Linear in the length of the reply: after a failed candidate the search
//! goes on from where it stopped, so each part of the text is read by at
//! most one bare candidate (plus its fenced block, if any); lines are
//! scanned ahead for closing quotes once. A megabyte of `{` or `[` takes
//! well under a second, and nesting never touches the thread's stack.

mod candidates;
mod cursor;
mod ingredients;
mod numbers;
mod prompt;
mod repair;
mod search;
mod strings;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Result;

pub use ingredients::Ingredient;
pub use prompt::json_prompt;

/// Finds the JSON object or array in a model's reply, repairs it, and parses
/// it.
///
/// The module docs list where it looks and what it repairs. With several
/// candidates, the first that works wins: a fenced `json` block before an
/// unmarked one, and both before JSON in the prose.
///
/// # Errors
///
/// [`Error::NoJson`](crate::Error::NoJson) when the text is empty or only
/// whitespace, holds no object or array, or none of them can be repaired.
/// The message says how many candidates were tried and where the most
/// promising one failed (line and column in `text`) and why.
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
/// deserializes it into `T`.
///
/// A candidate that parses but does not fit `T` is passed over and the
/// search goes on, so an example object before the answer does not hide it.
/// `T` must deserialize from an object or an array (see [`extract_json`]).
///
/// # Errors
///
/// [`Error::NoJson`](crate::Error::NoJson) as for [`extract_json`]; when JSON
/// was found but none of it fits `T`, the message is serde's for the first
/// JSON found.
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
/// Lenient, because small models are; each rule below has a test:
///
/// - **Shape**: an array of items; a single item object; an object with an
///   `"ingredients"` array (or object); or an object whose only array holds
///   the items (`{"recipe": "...", "items": [...]}`). An empty array gives an
///   empty list.
/// - **Keys** are matched ignoring case; `name` or `item` stand in for a
///   missing `ingredient`, `amount` or `qty` for `quantity`, `units` for
///   `unit`. Other keys are ignored.
/// - **Items that are not usable are skipped**: not an object, no
///   `ingredient`, or one that is not a non-empty string. When items were
///   given but none is usable, that is an error (naming the first problem);
///   strict callers can use `extract::<Vec<Ingredient>>` instead.
/// - **`ingredient`** is trimmed.
/// - **`quantity`**: a number is taken as is. Missing, `null`, or not a
///   number or string (`true`, `[]`): `0.0`, never NaN (NaN would leak into
///   C and compare unequal to itself). A string is read like a number in the
///   JSON: `"2"`, `"1/2"`, `"1 1/2"`, `"½"`. A string with words after the
///   number (`"2 cups"`) gives the number, and the words become the unit if
///   the item has none. A range (`"2-3"`, `"2 to 3"`) gives its first
///   number. Words without a number (`"a pinch"`, `"to taste"`) give `0.0`,
///   and the words become the unit if the item has none, so nothing the
///   model said is lost.
/// - **`unit`**: trimmed; empty, `"null"`, `"none"`, `"n/a"`, `"na"`, `"-"`
///   or a non-string give `None`.
///
/// A candidate that holds no usable ingredient is passed over like one that
/// does not parse.
///
/// # Errors
///
/// [`Error::NoJson`](crate::Error::NoJson) when no JSON is found (as for
/// [`extract_json`]), or when the JSON found holds no ingredient list or no
/// usable item.
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

/// Builds the prompt for the ingredient-list convention: the instruction
/// (keys `ingredient`, `quantity` as a number, `unit` as a string or null;
/// one object per line), an example in a fenced `json` block, and then
/// `text`, the text to extract from. Send it as the user message and read
/// the reply with [`extract_ingredients`].
///
/// ```
/// let prompt = chatwire::ingredients_prompt("Mix 2 cups of flour with 3 eggs.");
/// assert!(prompt.contains("\"ingredient\""));
/// assert!(prompt.contains("```json\n[\n{\"ingredient\": \"flour\""));
/// assert!(prompt.ends_with("Text:\nMix 2 cups of flour with 3 eggs.\n"));
/// ```
#[must_use]
pub fn ingredients_prompt(text: &str) -> String {
    ingredients::ingredients_prompt(text)
}
