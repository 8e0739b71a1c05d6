//! Extraction from C: the JSON inside a model's reply, the ingredient-list
//! convention (as JSON or as a `chatwire_ingredients` list), and the prompts
//! that ask a model for them.

use std::ffi::c_char;

use super::boundary;
use super::handle;
use super::status::{chatwire_status, FfiError};
use super::text::{self, CText};
use crate::error::Error;
use crate::structured::INGREDIENTS_SCHEMA_NUL;

/// Finds the JSON in a model's reply (a fenced json block, or bare JSON in
/// prose), repairs what models get wrong (docs/structured-output.md) and
/// writes the outermost object or array, compact, to `*json_out`. None
/// recoverable whole: CHATWIRE_ERR_NO_JSON.
#[no_mangle]
pub unsafe extern "system" fn chatwire_extract_json(
    text: *const c_char,
    json_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        text::transform((text, "text"), (json_out, "json_out"), |input| {
            Ok(crate::extract::extract_json(input)?.to_string())
        })
    })
}

/// Reads an ingredient list (chatwire_ingredients_prompt()'s convention) from
/// a model's reply into `*json_out`: an array of {"ingredient", "quantity" a
/// number, "unit" a string or null}, read leniently (docs/structured-output.md).
/// No usable ingredient: CHATWIRE_ERR_NO_JSON, the last error saying why.
#[no_mangle]
pub unsafe extern "system" fn chatwire_extract_ingredients(
    text: *const c_char,
    json_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
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

/// An ingredient list made by chatwire_extract_ingredient_list(), freed with its strings by
/// chatwire_ingredients_free(). It never changes: several threads may read it at once.
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

fn item(list: Option<&chatwire_ingredients>, index: usize) -> Result<&IngredientView, FfiError> {
    let items = &handle::required(list, "list")?.items;
    handle::item(items, index, "ingredient")
}

/// Reads an ingredient list as chatwire_extract_ingredients() does, into
/// `*list_out` (empty for an empty array), for the chatwire_ingredients_ functions.
#[no_mangle]
pub unsafe extern "system" fn chatwire_extract_ingredient_list(
    text: *const c_char,
    list_out: *mut *mut chatwire_ingredients,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let input = text::str_in(text, "text")?;
        let out = handle::out(list_out, "list_out")?;
        let items = crate::extract::extract_ingredients(input)?.into_iter();
        let items = items
            .map(|item| IngredientView {
                name: CText::new(&item.ingredient),
                quantity: item.quantity,
                unit: item.unit.as_deref().map(CText::new),
            })
            .collect();
        *out = handle::into_c(chatwire_ingredients { items });
        Ok(())
    })
}

/// The number of ingredients in the list.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_len(
    list: Option<&chatwire_ingredients>,
) -> usize {
    boundary::value(|| Ok(handle::required(list, "list")?.items.len()))
}

/// The name of ingredient `index` ("flour"), never empty.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_name(
    list: Option<&chatwire_ingredients>,
    index: usize,
) -> *const c_char {
    boundary::value(|| Ok(item(list, index)?.name.as_ptr()))
}

/// The length in bytes of chatwire_ingredients_name().
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_name_len(
    list: Option<&chatwire_ingredients>,
    index: usize,
) -> usize {
    boundary::value(|| Ok(item(list, index)?.name.len()))
}

/// The quantity of ingredient `index` (½ gives 0.5), finite; 0.0 when the
/// reply gives no amount.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_quantity(
    list: Option<&chatwire_ingredients>,
    index: usize,
) -> f64 {
    boundary::value(|| Ok(item(list, index)?.quantity))
}

/// chatwire_ingredients_quantity() through an out-parameter, for languages
/// that cannot receive a double as a return value (GnuCOBOL): `*quantity_out`
/// is written only on success.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_quantity_out(
    list: Option<&chatwire_ingredients>,
    index: usize,
    quantity_out: *mut f64,
) -> chatwire_status {
    // SAFETY: `quantity_out` is NULL or writable (the C conventions).
    boundary::status(|| unsafe {
        let quantity = item(list, index)?.quantity;
        *handle::out(quantity_out, "quantity_out")? = quantity;
        Ok(())
    })
}

/// The unit of ingredient `index` ("cup", "g"), NULL when it has none.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_unit(
    list: Option<&chatwire_ingredients>,
    index: usize,
) -> *const c_char {
    boundary::value(|| Ok(text::borrowed(&item(list, index)?.unit)))
}

/// The length in bytes of chatwire_ingredients_unit(); 0 when it has none.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_unit_len(
    list: Option<&chatwire_ingredients>,
    index: usize,
) -> usize {
    boundary::value(|| Ok(text::borrowed_len(&item(list, index)?.unit)))
}

/// Frees a list and every string borrowed from it.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_free(list: *mut chatwire_ingredients) {
    // SAFETY: `list` is NULL or a live handle the caller gives up (the C conventions).
    boundary::release(|| unsafe { handle::free(list) })
}

/// Builds in `*prompt_out` the ingredient-list prompt: the instruction, an
/// example in a fenced json block, then `text` after a "Text:" line.
#[no_mangle]
pub unsafe extern "system" fn chatwire_ingredients_prompt(
    text: *const c_char,
    prompt_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        text::transform((text, "text"), (prompt_out, "prompt_out"), |input| {
            Ok(crate::extract::ingredients_prompt(input))
        })
    })
}

/// Builds in `*prompt_out` a prompt asking for JSON shaped like
/// `example_json` (not checked): `instruction`, a request for the JSON alone
/// in a fenced json block, `example_json` in one, then `text` after a "Text:"
/// line, last. Each part is trimmed.
#[no_mangle]
pub unsafe extern "system" fn chatwire_json_prompt(
    instruction: *const c_char,
    example_json: *const c_char,
    text: *const c_char,
    prompt_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let instruction = text::str_in(instruction, "instruction")?;
        let example_json = text::str_in(example_json, "example_json")?;
        let input = text::str_in(text, "text")?;
        let out = handle::out(prompt_out, "prompt_out")?;
        let prompt = crate::extract::json_prompt(instruction, example_json, input);
        *out = text::string_out(&prompt);
        Ok(())
    })
}

/// The JSON Schema of the ingredient-list convention, for
/// chatwire_send_json(). Static.
#[no_mangle]
pub extern "system" fn chatwire_ingredients_schema() -> *const c_char {
    INGREDIENTS_SCHEMA_NUL.as_ptr().cast()
}
