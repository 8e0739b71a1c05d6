//! Which keywords are checked, by the form of their value, and which are
//! refused. Each list is one string of names split at spaces.

/// Keywords whose check needs more than this subset; a schema that uses one
/// is refused, so that no check is skipped without the caller knowing.
pub(crate) const REFUSED: &str = "pattern patternProperties unevaluatedProperties \
    unevaluatedItems $dynamicRef $recursiveRef dependencies dependentSchemas";

/// Keywords whose value is one subschema.
pub(super) const ONE_SCHEMA: &str =
    "items additionalProperties not if then else contains propertyNames";
/// Keywords whose value is an array of subschemas.
pub(super) const SCHEMA_LISTS: &str = "allOf anyOf oneOf prefixItems";
/// Keywords whose value is an object of subschemas.
pub(super) const SCHEMA_MAPS: &str = "properties $defs definitions";
/// Keywords whose value is a number.
pub(super) const NUMBERS: &str = "minimum maximum exclusiveMinimum exclusiveMaximum multipleOf";
/// Keywords whose value is a count.
pub(super) const COUNTS: &str = "minLength maxLength minItems maxItems minProperties \
    maxProperties minContains maxContains";
/// The other keywords that check something.
const OTHERS: &str = "type enum const required dependentRequired uniqueItems $ref";
/// The seven type names.
pub(super) const TYPES: &str = "null boolean object array number string integer";

/// Whether `list` names `keyword`.
pub(super) fn lists(list: &str, keyword: &str) -> bool {
    list.split(' ').any(|name| name == keyword)
}

/// Whether a keyword checks nothing (`title`, `format`, `$defs`, `x-...`).
pub(crate) fn is_annotation(keyword: &str) -> bool {
    let checked = [ONE_SCHEMA, SCHEMA_LISTS, NUMBERS, COUNTS, OTHERS, REFUSED];
    let checks = keyword == "properties" || checked.iter().any(|list| lists(list, keyword));
    !checks
}
