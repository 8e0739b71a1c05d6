//! What a check finds wrong, and the two ways of saying it: for a model's
//! reply (`at /0/n: expected ..., got ...`) and for a named value such as a
//! request option (`n must be ..., not ...`).

use serde_json::Value;

use crate::error::{excerpt, Keep};

/// The most problems one check keeps: enough to correct a reply.
pub(crate) const MAX_PROBLEMS: usize = 8;

/// How much of a value a problem quotes.
const QUOTE_BYTES: usize = 60;

/// One step into a value: an object's key or an array's index.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// What is wrong at one place.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum What {
    /// The value breaks a keyword: `said` is its complaint, `whole` what
    /// the schema there accepts, in words.
    Breaks { said: String, whole: String },
    /// A required property is absent (`because`: the one that requires it).
    Missing {
        name: String,
        because: Option<String>,
    },
    /// Anything else, as a clause.
    Other(String),
}

impl What {
    /// A value that is not what `whole` says: "expected {whole}, got 5".
    pub(crate) fn not(whole: String, value: &Value) -> What {
        What::Breaks {
            said: format!("expected {whole}, got {}", quote(value)),
            whole,
        }
    }
}

/// A problem: where, what was there, and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Problem {
    pub(crate) path: Vec<Step>,
    /// The value found there, quoted and cut short.
    pub(crate) found: String,
    pub(crate) what: What,
}

impl Problem {
    /// For a model's reply: `at /0/n: expected a number, got "two"`.
    pub(crate) fn in_reply(&self) -> String {
        let text = match &self.what {
            What::Breaks { said, .. } => said.clone(),
            What::Missing { name, because } => {
                let with = because
                    .as_ref()
                    .map_or(String::new(), |other| format!(" (required with {other:?})"));
                format!("the property {name:?} is missing{with}")
            }
            What::Other(text) => text.clone(),
        };
        format!("at {}: {text}", place(&written(&self.path, true)))
    }

    /// For a value named `name`, such as a request option:
    /// `stop[1] must be a string, not 1`.
    pub(crate) fn of_named(&self, name: &str) -> String {
        let place = format!("{name}{}", written(&self.path, false));
        match &self.what {
            What::Breaks { whole, .. } => format!("{place} must be {whole}, not {}", self.found),
            What::Missing { name, because } => {
                let has = because
                    .as_ref()
                    .map(|other| format!(" (as it has {other:?})"));
                let (has, found) = (has.unwrap_or_default(), &self.found);
                format!("{place} must be an object with {name:?}{has}, not {found}")
            }
            What::Other(text) => format!("{place}: {text}"),
        }
    }

    /// Whether the problem is of the form of the value `depth` steps in.
    pub(crate) fn is_form_at(&self, depth: usize) -> bool {
        self.path.len() == depth && matches!(self.what, What::Breaks { .. })
    }
}

/// Problems found so far; only the first [`MAX_PROBLEMS`] are kept.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    kept: Vec<Problem>,
    total: usize,
    /// None are kept: only "any?" matters.
    only_counted: bool,
}

impl Problems {
    /// Problems that are only counted, for trying a choice.
    pub(crate) fn counted() -> Problems {
        Problems {
            only_counted: true,
            ..Problems::default()
        }
    }

    /// How many more problems may be kept.
    fn room(&self) -> usize {
        let max = if self.only_counted { 0 } else { MAX_PROBLEMS };
        max.saturating_sub(self.kept.len())
    }

    /// Adds a problem with `value` at `path`; `what` runs only when kept.
    pub(crate) fn add(&mut self, path: &[Step], value: &Value, what: impl FnOnce() -> What) {
        self.total += 1;
        if self.room() > 0 {
            self.kept.push(Problem {
                path: path.to_vec(),
                found: quote(value),
                what: what(),
            });
        }
    }

    /// Takes in the problems of another check (a branch tried on its own).
    pub(crate) fn absorb(&mut self, other: Problems) {
        self.total += other.total;
        self.kept.extend(other.kept.into_iter().take(self.room()));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.total == 0
    }

    pub(crate) fn first(&self) -> Option<&Problem> {
        self.kept.first()
    }

    /// The problems as said in a reply (the last says how many more there were).
    pub(crate) fn into_texts(self) -> Vec<String> {
        let mut texts: Vec<String> = self.kept.iter().map(Problem::in_reply).collect();
        if self.total > texts.len() {
            let more = self.total - texts.len() + 1;
            texts.pop();
            texts.push(format!("and {more} more problems"));
        }
        texts
    }
}

/// A value for a message: its JSON, cut short.
pub(crate) fn quote(value: &Value) -> String {
    let text = value.to_string();
    let cut = excerpt(&text, QUOTE_BYTES, Keep::Start);
    if cut.len() < text.len() {
        format!("{cut}...")
    } else {
        text
    }
}

/// A path as a JSON Pointer (`/0/n`), or as code writes it (`.a[2]`).
fn written(path: &[Step], pointer: bool) -> String {
    path.iter()
        .map(|step| match (step, pointer) {
            (Step::Key(key), true) => format!("/{}", escape(key)),
            (Step::Index(index), true) => format!("/{index}"),
            (Step::Key(key), false) => format!(".{key}"),
            (Step::Index(index), false) => format!("[{index}]"),
        })
        .collect()
}

/// A JSON Pointer for a message: the empty one is "the top level".
pub(crate) fn place(at: &str) -> &str {
    if at.is_empty() {
        "the top level"
    } else {
        at
    }
}

/// A JSON Pointer step: `~` and `/` escaped.
pub(crate) fn escape(step: &str) -> String {
    step.replace('~', "~0").replace('/', "~1")
}
