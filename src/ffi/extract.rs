//! Extraction from C: the JSON inside a model's reply, the ingredient-list
//! convention (as JSON or as a `chatwire_ingredients` list), and the prompts
//! that ask a model for them.

use std::ffi::c_char;

use super::boundary;
use super::error::FfiError;
use super::handle;
use super::status::chatwire_status;
use super::text::{self, CText};
use crate::error::Error;
use crate::extract::Ingredient;
use crate::structured::INGREDIENTS_SCHEMA_NUL;

/// Finds the JSON in a model's reply (a fenced json block, or bare JSON
/// inside prose), repairs what models get wrong (fractions such as 1/2,
/// mixed numbers, vulgar fractions such as ½, trailing commas, unquoted keys
/// and values, missing commas and colons, output cut off) and writes it as
/// compact, valid JSON: always the outermost object or array the reply
/// holds, never a part of one that could not be recovered. A reply that is
/// one JSON string holding an object or array is unwrapped once. On success
/// `*json_out` owns the text; free with chatwire_string_free(). No JSON, or
/// none that can be recovered whole: CHATWIRE_ERR_NO_JSON.
#[no_mangle]
pub unsafe extern "system" fn chatwire_extract_json(
    text: *const c_char,
    json_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        text::transform((text, "text"), (json_out, "json_out"), |input| {
            Ok(crate::extract::extract_json(input)?.to_string())
        })
    })
}

/// Reads an ingredient list (the convention of chatwire_ingredients_prompt())
/// from a model's reply and writes it as a normalised JSON array, one object
/// per ingredient, each with exactly these keys:
///
/// ```json
/// [{"ingredient":"flour","quantity":1.5,"unit":"cup"},{"ingredient":"egg","quantity":3.0,"unit":null}]
/// ```
///
/// - "ingredient": a non-empty string, trimmed.
/// - "quantity": always a finite number, written with a decimal point
///   (1/2 and ½ in the reply become 0.5; "2 cups" becomes 2.0); 0.0 when
///   the reply gives no amount ("to taste").
/// - "unit": a string, or null when there is none (a count such as 3 eggs).
///
/// The reading is lenient, as small models need: the list may be wrapped
/// in an object, keys may be "name", "amount", "units" and so on, unusable
/// items are skipped. The Rust docs of `chatwire::extract_ingredients` give
/// every rule. An empty list in the reply gives "[]".
///
/// On success `*json_out` owns the text; free with chatwire_string_free().
/// No JSON, or JSON holding no usable ingredient: CHATWIRE_ERR_NO_JSON, and
/// chatwire_last_error() says why. To read the items without a JSON parser,
/// use chatwire_extract_ingredient_list() instead.
#[no_mangle]
pub unsafe extern "system" fn chatwire_extract_ingredients(
    text: *const c_char,
    json_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        text::transform((text, "text"), (json_out, "json_out"), |input| {
            let items = crate::extract::extract_ingredients(input)?;
            // A list of plain structs always serializes; say so if it ever does not.
            serde_json::to_string(&items).map_err(|err| {
                Error::Internal(format!("the list could not be written as JSON: {err}"))
            })
        })
    })
}

/// An ingredient list read from a model's reply, for C programs that want
/// the items without parsing JSON.
///
/// Made by chatwire_extract_ingredient_list(), freed by
/// chatwire_ingredients_free(). Read with chatwire_ingredients_len(),
/// chatwire_ingredients_name(), chatwire_ingredients_quantity() and
/// chatwire_ingredients_unit(). The list never changes after it is made, so
/// several threads may read it at once; the strings it hands out live until
/// it is freed.
pub struct chatwire_ingredients {
    items: Vec<IngredientView>,
}

/// One item, with its strings already NUL-terminated for C.
struct IngredientView {
    // Names and units come from JSON strings, which may hold U+0000: kept
    // whole, with a `_len` accessor each.
    name: CText,
    quantity: f64,
    unit: Option<CText>,
}

impl From<Ingredient> for IngredientView {
    fn from(item: Ingredient) -> IngredientView {
        IngredientView {
            name: CText::new(&item.ingredient),
            quantity: item.quantity,
            unit: item.unit.as_deref().map(CText::new),
        }
    }
}

/// Item `index` of the list behind a handle; out of range is an error, so
/// chatwire_last_error() says why.
///
/// # Safety
/// `list` is NULL or live.
unsafe fn item<'a>(
    list: *const chatwire_ingredients,
    index: usize,
) -> Result<&'a IngredientView, FfiError> {
    handle::item(
        &unsafe { handle::borrow(list, "list")? }.items,
        index,
        "ingredient",
    )
}

/// Reads an ingredient list from a model's reply, as
/// chatwire_extract_ingredients() does, into a list to read with the
/// chatwire_ingredients_ accessors. On success `*list_out` owns the list
/// (possibly empty, when the reply holds an empty array); free it with
/// chatwire_ingredients_free(). No JSON, or JSON holding no usable
/// ingredient: CHATWIRE_ERR_NO_JSON, and chatwire_last_error() says why.
///
/// ```c
/// chatwire_ingredients *list = NULL;
/// if (chatwire_extract_ingredient_list(reply, &list) == CHATWIRE_OK) {
///     for (size_t i = 0; i < chatwire_ingredients_len(list); i++) {
///         const char *unit = chatwire_ingredients_unit(list, i);
///         printf("%s: %g %s\n", chatwire_ingredients_name(list, i),
///                chatwire_ingredients_quantity(list, i), unit ? unit : "");
///     }
///     chatwire_ingredients_free(list);
/// }
/// ```
#[no_mangle]
pub unsafe extern "system" fn chatwire_extract_ingredient_list(
    text: *const c_char,
    list_out: *mut *mut chatwire_ingredients,
) -> chatwire_status {
    boundary::status(|| {
        let (input, out) = unsafe {
            (
                text::str_in(text, "text")?,
                handle::out(list_out, "list_out")?,
            )
        };
        let items = crate::extract::extract_ingredients(input)?;
        let items = items.into_iter().map(IngredientView::from).collect();
        out.write(handle::into_c(chatwire_ingredients { items }));
        Ok(())
    })
}

/// The number of ingredients in the list; 0 for NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_len(list: *const chatwire_ingredients) -> usize {
    boundary::value(|| Ok(unsafe { handle::borrow(list, "list")? }.items.len()))
}

/// The name of ingredient `index` ("flour"), never empty; NULL when `index`
/// is out of range or `list` is NULL. Borrowed: valid until the list is
/// freed; do not free. chatwire_ingredients_name_len() gives its length.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_name(
    list: *const chatwire_ingredients,
    index: usize,
) -> *const c_char {
    boundary::value(|| Ok(unsafe { item(list, index)? }.name.as_ptr()))
}

/// The length in bytes of the name of ingredient `index` (without the final
/// NUL; U+0000 inside counts); 0 when `index` is out of range or `list` is
/// NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_name_len(
    list: *const chatwire_ingredients,
    index: usize,
) -> usize {
    boundary::value(|| Ok(unsafe { item(list, index)? }.name.len()))
}

/// The quantity of ingredient `index` (1/2 and ½ in the reply give 0.5):
/// always finite, never NaN; 0.0 when the reply gives no amount, and also
/// when `index` is out of range or `list` is NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_quantity(
    list: *const chatwire_ingredients,
    index: usize,
) -> f64 {
    boundary::value(|| Ok(unsafe { item(list, index)? }.quantity))
}

/// The unit of ingredient `index` ("cup", "g"), or NULL when it has none
/// (a count such as 3 eggs), when `index` is out of range, or when `list` is
/// NULL. Borrowed: valid until the list is freed; do not free.
/// chatwire_ingredients_unit_len() gives its length.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_unit(
    list: *const chatwire_ingredients,
    index: usize,
) -> *const c_char {
    boundary::value(|| {
        Ok(unsafe { item(list, index)? }
            .unit
            .as_ref()
            .map_or(std::ptr::null(), CText::as_ptr))
    })
}

/// The length in bytes of the unit of ingredient `index` (without the final
/// NUL; U+0000 inside counts); 0 when it has none, when `index` is out of
/// range or `list` is NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_unit_len(
    list: *const chatwire_ingredients,
    index: usize,
) -> usize {
    boundary::value(|| {
        Ok(unsafe { item(list, index)? }
            .unit
            .as_ref()
            .map_or(0, CText::len))
    })
}

/// Frees a list and every string borrowed from it. NULL is ignored.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_free(list: *mut chatwire_ingredients) {
    boundary::release(|| unsafe { handle::free(list) })
}

/// Builds the prompt for the ingredient-list convention: the instruction
/// (keys "ingredient", "quantity" as a number, "unit" as a string or null;
/// one object per line), an example in a fenced ```json block, and then
/// `text`, the recipe or other text to extract from, after a "Text:" line.
/// Send it as the user message and read the reply with
/// chatwire_extract_ingredients() or chatwire_extract_ingredient_list().
/// On success `*prompt_out` owns the prompt; free with chatwire_string_free().
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_prompt(
    text: *const c_char,
    prompt_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        text::transform((text, "text"), (prompt_out, "prompt_out"), |input| {
            Ok(crate::extract::ingredients_prompt(input))
        })
    })
}

/// Builds a prompt asking for JSON shaped like `example_json`, in the form
/// chatwire_extract_json() reads best: `instruction`, a request for the JSON
/// alone in a fenced ```json block, `example_json` in such a block, and then
/// `text` after a "Text:" line (last, so an instruction hidden in the text
/// reads as part of the text). Each part is trimmed; `example_json` is not
/// checked. On success `*prompt_out` owns the prompt; free with
/// chatwire_string_free().
///
/// ```c
/// char *prompt = NULL;
/// chatwire_json_prompt("List the people named in the text below.",
///                      "[{\"name\": \"Ada\"}]", "Ada met Grace.", &prompt);
/// ```
#[no_mangle]
pub unsafe extern "system" fn chatwire_json_prompt(
    instruction: *const c_char,
    example_json: *const c_char,
    text: *const c_char,
    prompt_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| {
        let (instruction, example_json, input, out) = unsafe {
            (
                text::str_in(instruction, "instruction")?,
                text::str_in(example_json, "example_json")?,
                text::str_in(text, "text")?,
                handle::out(prompt_out, "prompt_out")?,
            )
        };
        let prompt = crate::extract::json_prompt(instruction, example_json, input);
        out.write(text::string_out(&prompt));
        Ok(())
    })
}

/// The JSON Schema of the ingredient-list convention, for
/// chatwire_send_json(): an array of at least one {"ingredient": a
/// non-empty string, "quantity": a number of 0 or more, "unit": a string or
/// null}, with no other keys. Static; do not free.
#[no_mangle]
pub extern "system" fn chatwire_ingredients_schema() -> *const c_char {
    const SCHEMA: &std::ffi::CStr =
        match std::ffi::CStr::from_bytes_with_nul(INGREDIENTS_SCHEMA_NUL.as_bytes()) {
            Ok(schema) => schema,
            Err(_) => c"true",
        };
    SCHEMA.as_ptr()
}
