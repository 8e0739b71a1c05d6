//! The ingredient-list convention: the item type, its reader, its prompt.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::numbers;

/// One item of an ingredient list: `{"ingredient": "flour", "quantity": 2,
/// "unit": "cup"}` with serde (`unit` may be `null` or absent);
/// [`extract_ingredients`](super::extract_ingredients) is more forgiving.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ingredient {
    /// What the ingredient is, e.g. `"flour"`; never empty when extracted.
    pub ingredient: String,
    /// How much; always finite (`0.0` when the reply gives no amount).
    pub quantity: f64,
    /// The unit, e.g. `"cup"`; `None` for a count (`3` eggs) or when not given.
    pub unit: Option<String>,
}

/// Keys read for each field, in order of preference, compared ignoring case.
const NAME_KEYS: [&str; 3] = ["ingredient", "name", "item"];
const QUANTITY_KEYS: [&str; 3] = ["quantity", "amount", "qty"];
const UNIT_KEYS: [&str; 2] = ["unit", "units"];

/// Unit texts that mean "no unit".
const NO_UNIT: [&str; 5] = ["null", "none", "n/a", "na", "-"];

/// Reads the ingredient list out of extracted JSON (see `extract_ingredients`);
/// the error says why nothing was usable.
pub(crate) fn ingredients_from_value(value: Value) -> Result<Vec<Ingredient>, String> {
    let items = item_list(value)
        .map_err(|why| format!("the JSON found holds no ingredient list: {why}"))?;
    let ingredients: Vec<Ingredient> = items
        .iter()
        .filter_map(|item| ingredient_from_item(item).ok())
        .collect();
    // With none usable, the first item's problem is the first problem.
    match items.first().map(ingredient_from_item) {
        Some(Err(why)) if ingredients.is_empty() => {
            let (total, plural) = (items.len(), if items.len() == 1 { "" } else { "s" });
            Err(format!(
                "the JSON found holds no usable ingredient among {total} item{plural}: item 0 {why}"
            ))
        }
        _ => Ok(ingredients),
    }
}

/// The array of items: the value itself, an `"ingredients"` array in an
/// object, an object that is itself one item, or the only array in an object.
fn item_list(value: Value) -> Result<Vec<Value>, String> {
    let mut map = match value {
        Value::Array(items) => return Ok(items),
        Value::Object(map) => map,
        other => return Err(format!("expected an array, found {}", kind(&other))),
    };
    if let Some(key) = find_key(&map, &["ingredients"]) {
        match map.remove(&key) {
            Some(Value::Array(items)) => return Ok(items),
            Some(item @ Value::Object(_)) => return Ok(vec![item]),
            // Anything else is neither an item's name nor an array.
            _ => {}
        }
    }
    if find_key(&map, &NAME_KEYS).is_some() {
        return Ok(vec![Value::Object(map)]);
    }
    let mut arrays = map.into_values().filter(Value::is_array);
    match (arrays.next(), arrays.next()) {
        (Some(Value::Array(items)), None) => Ok(items),
        _ => Err(
            "expected an array of items, one item, or an object with an \"ingredients\" array"
                .to_owned(),
        ),
    }
}

/// The actual key in `map` for the first of `names` present (ignoring case).
fn find_key(map: &Map<String, Value>, names: &[&str]) -> Option<String> {
    names
        .iter()
        .find_map(|name| map.keys().find(|key| key.eq_ignore_ascii_case(name)))
        .cloned()
}

/// One item; the error says why it was skipped.
fn ingredient_from_item(item: &Value) -> Result<Ingredient, String> {
    let Value::Object(map) = item else {
        return Err(format!("is {}, not an object", kind(item)));
    };
    let field = |names: &[&str]| find_key(map, names).and_then(|key| map.get(&key));
    let ingredient = match field(&NAME_KEYS) {
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_owned(),
        Some(Value::String(_)) => return Err("has an empty \"ingredient\"".to_owned()),
        Some(other) => {
            return Err(format!(
                "has an \"ingredient\" that is {}, not a string",
                kind(other)
            ));
        }
        None => return Err("has no \"ingredient\"".to_owned()),
    };
    let (quantity, unit_in_quantity) = match field(&QUANTITY_KEYS) {
        // serde_json holds finite numbers only.
        Some(Value::Number(number)) => (number.as_f64().unwrap_or(0.0), None),
        Some(Value::String(text)) => quantity_from_text(text),
        // Missing, null, or not a quantity at all (bool, array, object).
        _ => (0.0, None),
    };
    let unit = field(&UNIT_KEYS)
        .and_then(Value::as_str)
        .and_then(clean_unit);
    Ok(Ingredient {
        ingredient,
        quantity,
        unit: unit.or(unit_in_quantity),
    })
}

/// Reads a quantity given as a string (`"1 1/2"`, `"2 cups"`), and the words
/// after or instead of the number (`"a pinch"`: 0), kept as a unit.
pub(crate) fn quantity_from_text(text: &str) -> (f64, Option<String>) {
    let text = text.trim();
    let Some((value, rest)) = leading_number(text) else {
        return (0.0, clean_unit(text));
    };
    // A range (`2-3`, `2 – 3`, `2 to 3`) gives its first number.
    let trimmed = rest.trim_start();
    let rest = trimmed
        .strip_prefix(['-', '–', '—'])
        .or_else(|| trimmed.strip_prefix("to "))
        .and_then(|after_dash| leading_number(after_dash.trim_start()))
        .map_or(rest, |(_, after_range)| after_range);
    (value, clean_unit(rest))
}

fn leading_number(text: &str) -> Option<(f64, &str)> {
    let (number, len) = numbers::lex_number(text).ok()?;
    Some((number.as_f64()?, text.get(len..).unwrap_or("")))
}

fn clean_unit(unit: &str) -> Option<String> {
    let unit = unit.trim();
    if unit.is_empty() || NO_UNIT.iter().any(|none| unit.eq_ignore_ascii_case(none)) {
        return None;
    }
    Some(unit.to_owned())
}

/// "a string", "an object": for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The instruction of [`ingredients_prompt`](super::ingredients_prompt).
pub(super) const INSTRUCTION: &str = "Extract every ingredient from the text below. \
Reply with a JSON array that has one object per line. \
Each object has exactly three keys: \
\"ingredient\" (the name of the ingredient, a string), \
\"quantity\" (a number: write 0.5, not 1/2; write 0 when the text gives no amount) and \
\"unit\" (a string such as \"cup\", \"g\" or \"tbsp\", or null when there is no unit).";

/// The example of [`ingredients_prompt`](super::ingredients_prompt).
pub(super) const EXAMPLE: &str = "[\n\
{\"ingredient\": \"flour\", \"quantity\": 2, \"unit\": \"cup\"},\n\
{\"ingredient\": \"egg\", \"quantity\": 3, \"unit\": null},\n\
{\"ingredient\": \"sugar\", \"quantity\": 0.5, \"unit\": \"cup\"}\n\
]";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quantity_text_forms() {
        assert_eq!(quantity_from_text("2"), (2.0, None));
        assert_eq!(quantity_from_text(" 1/2 "), (0.5, None));
        assert_eq!(
            quantity_from_text("1 1/2 cups"),
            (1.5, Some("cups".to_owned()))
        );
        assert_eq!(quantity_from_text("½ cup"), (0.5, Some("cup".to_owned())));
        assert_eq!(
            quantity_from_text("2-3 cloves"),
            (2.0, Some("cloves".to_owned()))
        );
        assert_eq!(quantity_from_text("2 to 3"), (2.0, None));
        assert_eq!(
            quantity_from_text("2 – 3 tbsp"),
            (2.0, Some("tbsp".to_owned()))
        );
        assert_eq!(
            quantity_from_text("a pinch"),
            (0.0, Some("a pinch".to_owned()))
        );
        assert_eq!(quantity_from_text(""), (0.0, None));
        assert_eq!(quantity_from_text("1/0"), (0.0, Some("1/0".to_owned())));
    }

    #[test]
    fn the_example_is_valid_json_of_the_convention() {
        let items: Vec<Ingredient> = serde_json::from_str(EXAMPLE).expect("valid example");
        assert_eq!(items.len(), 3);
        assert_eq!(EXAMPLE.lines().count(), 5);
    }

    #[test]
    fn list_shapes() {
        assert_eq!(item_list(json!([1])), Ok(vec![json!(1)]));
        assert_eq!(item_list(json!({"Ingredients": [1]})), Ok(vec![json!(1)]));
        assert_eq!(
            item_list(json!({"name": "x"})),
            Ok(vec![json!({"name": "x"})])
        );
        assert_eq!(
            item_list(json!({"recipe": "x", "items": [2]})),
            Ok(vec![json!(2)])
        );
        assert!(item_list(json!({"a": [1], "b": [2]})).is_err());
        assert!(item_list(json!({"ingredients": 5})).is_err());
    }
}
