//! `extract_ingredients`, `Ingredient` and `ingredients_prompt`: each
//! documented decision has a test here.

use chatwire::{extract_ingredients, ingredients_prompt, Error, Ingredient};

fn item(ingredient: &str, quantity: f64, unit: Option<&str>) -> Ingredient {
    Ingredient {
        ingredient: ingredient.to_owned(),
        quantity,
        unit: unit.map(str::to_owned),
    }
}

fn one(text: &str) -> Ingredient {
    let mut items = extract_ingredients(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(items.len(), 1, "{text}");
    items.remove(0)
}

fn no_json_message(text: &str) -> String {
    match extract_ingredients(text) {
        Err(Error::NoJson(message)) => message,
        Ok(items) => panic!("{text}: expected an error, got {items:?}"),
        Err(other) => panic!("{text}: expected NoJson, got {other:?}"),
    }
}

#[test]
fn reads_the_convention_with_fractions_and_prose() {
    let reply = "Here is the list:\n```json\n[\n\
        {\"ingredient\": \"flour\", \"quantity\": 2, \"unit\": \"cups\"},\n\
        {\"ingredient\": \"sugar\", \"quantity\": 1/2, \"unit\": \"cup\"},\n\
        {\"ingredient\": \"butter\", \"quantity\": 1 1/2, \"unit\": \"sticks\"},\n\
        {\"ingredient\": \"vanilla\", \"quantity\": ½, \"unit\": \"tsp\"},\n\
        {\"ingredient\": \"eggs\", \"quantity\": 3, \"unit\": null}\n\
        ]\n```\nEnjoy!";
    assert_eq!(
        extract_ingredients(reply).expect("ingredients"),
        vec![
            item("flour", 2.0, Some("cups")),
            item("sugar", 0.5, Some("cup")),
            item("butter", 1.5, Some("sticks")),
            item("vanilla", 0.5, Some("tsp")),
            item("eggs", 3.0, None),
        ]
    );
}

#[test]
fn empty_array_is_an_empty_list() {
    assert_eq!(
        extract_ingredients("```json\n[]\n```").expect("empty list"),
        vec![]
    );
}

#[test]
fn single_item_object_is_a_list_of_one() {
    assert_eq!(
        one(r#"{"ingredient": "salt", "quantity": 1, "unit": "tsp"}"#),
        item("salt", 1.0, Some("tsp"))
    );
}

#[test]
fn object_wrapping_an_ingredients_array_is_unwrapped() {
    let text = r#"{"recipe": "Tea", "ingredients": [{"ingredient": "tea", "quantity": 1, "unit": "bag"}]}"#;
    assert_eq!(one(text), item("tea", 1.0, Some("bag")));
}

#[test]
fn object_whose_only_array_holds_the_items_is_unwrapped() {
    let text = r#"{"count": 1, "items": [{"ingredient": "tea", "quantity": 1, "unit": null}]}"#;
    assert_eq!(one(text), item("tea", 1.0, None));
}

#[test]
fn one_object_per_line_without_array() {
    let text = "{\"ingredient\": \"a\", \"quantity\": 1, \"unit\": null}\n{\"ingredient\": \"b\", \"quantity\": 2, \"unit\": null}";
    assert_eq!(
        extract_ingredients(text).expect("two"),
        vec![item("a", 1.0, None), item("b", 2.0, None)]
    );
}

#[test]
fn missing_quantity_is_zero() {
    assert_eq!(
        one(r#"[{"ingredient": "salt", "unit": null}]"#),
        item("salt", 0.0, None)
    );
}

#[test]
fn null_quantity_is_zero_never_nan() {
    let salt = one(r#"[{"ingredient": "salt", "quantity": null, "unit": null}]"#);
    assert_eq!(salt.quantity.to_bits(), 0.0_f64.to_bits());
}

#[test]
fn quantity_of_another_type_is_zero() {
    assert_eq!(
        one(r#"[{"ingredient": "salt", "quantity": true}]"#).quantity,
        0.0
    );
    assert_eq!(
        one(r#"[{"ingredient": "salt", "quantity": [1]}]"#).quantity,
        0.0
    );
}

#[test]
fn numeric_string_quantities_are_numbers() {
    assert_eq!(
        one(r#"[{"ingredient": "a", "quantity": "2"}]"#).quantity,
        2.0
    );
    assert_eq!(
        one(r#"[{"ingredient": "a", "quantity": "1/2"}]"#).quantity,
        0.5
    );
    assert_eq!(
        one(r#"[{"ingredient": "a", "quantity": " 1 1/2 "}]"#).quantity,
        1.5
    );
    assert_eq!(
        one(r#"[{"ingredient": "a", "quantity": "¾"}]"#).quantity,
        0.75
    );
    assert_eq!(
        one(r#"[{"ingredient": "a", "quantity": "2.5"}]"#).quantity,
        2.5
    );
}

#[test]
fn words_after_the_number_become_the_unit_when_there_is_none() {
    assert_eq!(
        one(r#"[{"ingredient": "milk", "quantity": "2 cups"}]"#),
        item("milk", 2.0, Some("cups"))
    );
    assert_eq!(
        one(r#"[{"ingredient": "milk", "quantity": "2 cups", "unit": null}]"#),
        item("milk", 2.0, Some("cups"))
    );
}

#[test]
fn the_item_unit_wins_over_words_in_the_quantity() {
    assert_eq!(
        one(r#"[{"ingredient": "milk", "quantity": "2 cups", "unit": "ml"}]"#),
        item("milk", 2.0, Some("ml"))
    );
}

#[test]
fn range_quantity_takes_the_first_number() {
    assert_eq!(
        one(r#"[{"ingredient": "garlic", "quantity": "2-3 cloves"}]"#),
        item("garlic", 2.0, Some("cloves"))
    );
    assert_eq!(
        one(r#"[{"ingredient": "garlic", "quantity": "2 to 3", "unit": "cloves"}]"#).quantity,
        2.0
    );
}

#[test]
fn words_without_a_number_give_zero_and_are_kept_as_the_unit() {
    assert_eq!(
        one(r#"[{"ingredient": "salt", "quantity": "a pinch", "unit": null}]"#),
        item("salt", 0.0, Some("a pinch"))
    );
    assert_eq!(
        one(r#"[{"ingredient": "pepper", "quantity": "to taste"}]"#),
        item("pepper", 0.0, Some("to taste"))
    );
}

#[test]
fn words_are_dropped_when_the_item_has_a_unit() {
    assert_eq!(
        one(r#"[{"ingredient": "salt", "quantity": "some", "unit": "g"}]"#),
        item("salt", 0.0, Some("g"))
    );
}

#[test]
fn empty_and_placeholder_units_are_none() {
    for unit in [
        r#""""#,
        r#""  ""#,
        r#""null""#,
        r#""None""#,
        r#""N/A""#,
        r#""-""#,
        "3",
        "null",
    ] {
        let text = format!(r#"[{{"ingredient": "egg", "quantity": 1, "unit": {unit}}}]"#);
        assert_eq!(one(&text).unit, None, "{unit}");
    }
}

#[test]
fn names_and_units_are_trimmed() {
    assert_eq!(
        one(r#"[{"ingredient": "  olive oil ", "quantity": 1, "unit": " tbsp "}]"#),
        item("olive oil", 1.0, Some("tbsp"))
    );
}

#[test]
fn keys_match_ignoring_case_and_common_aliases() {
    assert_eq!(
        one(r#"[{"Ingredient": "rice", "Quantity": 1, "Unit": "cup"}]"#),
        item("rice", 1.0, Some("cup"))
    );
    assert_eq!(
        one(r#"[{"name": "rice", "amount": 2, "units": "cups"}]"#),
        item("rice", 2.0, Some("cups"))
    );
    assert_eq!(
        one(r#"[{"item": "rice", "qty": 3}]"#),
        item("rice", 3.0, None)
    );
}

#[test]
fn unusable_items_are_skipped() {
    let text = r#"[
        {"ingredient": "flour", "quantity": 1, "unit": "cup"},
        "a stray string",
        {"quantity": 2, "unit": "g"},
        {"ingredient": "", "quantity": 3},
        {"ingredient": 42, "quantity": 4},
        {"ingredient": "sugar", "quantity": 5, "unit": "g"}
    ]"#;
    assert_eq!(
        extract_ingredients(text).expect("two usable"),
        vec![
            item("flour", 1.0, Some("cup")),
            item("sugar", 5.0, Some("g"))
        ]
    );
}

#[test]
fn no_usable_item_is_an_error_naming_the_first_problem() {
    let message = no_json_message(r#"[{"quantity": 2}, "x"]"#);
    assert!(
        message.contains("no usable ingredient among 2 items"),
        "{message}"
    );
    assert!(
        message.contains("item 0 has no \"ingredient\""),
        "{message}"
    );
}

#[test]
fn json_without_an_ingredient_list_is_an_error() {
    let message = no_json_message(r#"{"a": 1, "b": 2}"#);
    assert!(message.contains("holds no ingredient list"), "{message}");
}

#[test]
fn no_json_at_all_is_an_error() {
    let message = no_json_message("I could not find any ingredients.");
    assert_eq!(message, "no object or array in the text");
}

#[test]
fn a_candidate_without_ingredients_is_passed_over() {
    let text = "Format: {\"note\": \"example\"}\nAnswer: [{\"ingredient\": \"oats\", \"quantity\": 1, \"unit\": \"cup\"}]";
    assert_eq!(one(text), item("oats", 1.0, Some("cup")));
}

#[test]
fn recorded_small_model_reply_has_no_usable_ingredient() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/extract_corpus/recorded_llamacpp_smollm2_ingredients.txt"
    ))
    .expect("corpus file");
    let message = no_json_message(&text);
    assert!(
        message.contains("item 0 has an \"ingredient\" that is an object, not a string"),
        "{message}"
    );
}

#[test]
fn strict_typed_extraction_needs_every_field_but_unit() {
    let items: Vec<Ingredient> =
        chatwire::extract(r#"[{"ingredient": "egg", "quantity": 1}]"#).expect("unit may be absent");
    assert_eq!(items, vec![item("egg", 1.0, None)]);
    let Err(Error::NoJson(message)) =
        chatwire::extract::<Vec<Ingredient>>(r#"[{"ingredient": "egg"}]"#)
    else {
        panic!("quantity is required by the derived Deserialize");
    };
    assert!(message.contains("missing field `quantity`"), "{message}");
}

#[test]
fn ingredient_serializes_in_the_convention_shape() {
    let json = serde_json::to_string(&vec![item("egg", 2.0, None), item("milk", 0.5, Some("l"))])
        .expect("json");
    assert_eq!(
        json,
        r#"[{"ingredient":"egg","quantity":2.0,"unit":null},{"ingredient":"milk","quantity":0.5,"unit":"l"}]"#
    );
}

#[test]
fn prompt_has_instruction_fenced_example_and_text_last() {
    let prompt = ingredients_prompt("Whisk 2 eggs with 1/2 cup of milk.");
    for needle in [
        "\"ingredient\"",
        "\"quantity\"",
        "\"unit\"",
        "one object per line",
        "null",
    ] {
        assert!(prompt.contains(needle), "{needle} missing from:\n{prompt}");
    }
    let example_start = prompt.find("```json\n").expect("fenced example");
    let example_end = prompt[example_start + 8..]
        .find("\n```")
        .expect("closed fence")
        + example_start
        + 8;
    let example = &prompt[example_start + 8..example_end];
    let items: Vec<Ingredient> = serde_json::from_str(example).expect("example is the convention");
    assert!(!items.is_empty());
    assert!(example
        .lines()
        .skip(1)
        .take(items.len())
        .all(|line| line.starts_with("{\"ingredient\"")));
    assert!(
        prompt.ends_with("Text:\nWhisk 2 eggs with 1/2 cup of milk.\n"),
        "{prompt}"
    );
}

#[test]
fn prompt_example_reads_back_through_extract_ingredients() {
    let prompt = ingredients_prompt("anything");
    let items = extract_ingredients(&prompt).expect("the example block is a valid reply");
    assert_eq!(items[0], item("flour", 2.0, Some("cup")));
}
