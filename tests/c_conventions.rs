//! One rule per C convention (docs/c-api.md, "Conventions"), checked on
//! every exported function: a C program generated from include/chatwire.h
//! calls each one with every handle NULL in turn, with indexes out of range
//! and with enum values out of range, and checks what the rule says: the
//! status or the failure value, the last error set by the call (or kept, by
//! the `_free` functions and the ones that cannot fail), out-parameters
//! left alone; every getter clears the last error when it succeeds; every
//! text getter has its `_len` form, whose fixture texts hold U+0000, and
//! every `double` getter its `_out` form. It is
//! compiled as C and as C++ (-Wall -Wextra -Werror) and run, under valgrind
//! with CHATWIRE_VALGRIND=1. A function added later is checked without a
//! test of its own; one whose signature the generator has no rule for
//! fails here until the rule (and this generator) covers it.

mod common;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use common::cprog::{compile_source, run, Lang, Link};
use common::PATH;

/// One parameter of an exported function, as the header declares it.
#[derive(Debug, Clone)]
struct Param {
    ty: String,
    name: String,
}

/// One exported function, as the header declares it.
#[derive(Debug, Clone)]
struct Function {
    ret: String,
    name: String,
    params: Vec<Param>,
}

/// What the header declares: functions, handle types, enums, callbacks.
#[derive(Debug, Default)]
struct Header {
    functions: Vec<Function>,
    handles: BTreeSet<String>,
    enums: BTreeSet<String>,
    callbacks: BTreeSet<String>,
}

/// The header's text without its comments and preprocessor lines.
fn strip(text: &str) -> String {
    let mut code = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        code.push_str(&rest[..start]);
        let end = rest[start..].find("*/").expect("an unterminated comment") + start + 2;
        code.push(' ');
        rest = &rest[end..];
    }
    code.push_str(rest);
    code.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A C type written one way: tokens apart, each `*` a token of its own.
fn normal_type(ty: &str) -> String {
    ty.replace('*', " * ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The identifier `text` ends with, and what comes before it.
fn split_name(text: &str) -> (String, String) {
    let text = text.trim();
    let start = text
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    (normal_type(&text[..start]), text[start..].to_string())
}

fn parse_header(text: &str) -> Header {
    let mut header = Header::default();
    for statement in strip(text).split(';') {
        let statement = statement.split_whitespace().collect::<Vec<_>>().join(" ");
        if statement.starts_with("typedef struct ") {
            let (_, name) = split_name(&statement);
            header.handles.insert(name);
        } else if statement.starts_with("typedef enum") {
            let name = statement.rsplit('}').next().unwrap().trim();
            header.enums.insert(name.to_string());
        } else if let Some(rest) = statement.strip_prefix("typedef ") {
            let rest = rest.replace("CHATWIRE_CALL ", "");
            if let Some(start) = rest.find("(*") {
                let end = rest[start..].find(')').unwrap() + start;
                let name = rest[start + 2..end].trim();
                header.callbacks.insert(name.to_string());
            }
        } else if let Some(rest) = statement.strip_prefix("CHATWIRE_API ") {
            // The calling-convention macro, where the header has one, says
            // nothing about the rule.
            let rest = rest.replace("CHATWIRE_CALL ", "");
            let open = rest.find('(').expect("a function's parameters");
            let close = rest.rfind(')').expect("a function's parameters");
            let (ret, name) = split_name(&rest[..open]);
            let list = rest[open + 1..close].trim();
            let params = if list == "void" || list.is_empty() {
                Vec::new()
            } else {
                list.split(',')
                    .map(|param| {
                        let (ty, name) = split_name(param);
                        Param { ty, name }
                    })
                    .collect()
            };
            header.functions.push(Function { ret, name, params });
        }
    }
    header
}

/// How the rule sees a parameter.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// A handle (`chatwire_reply *`): NULL gives CHATWIRE_ERR_NULL_ARGUMENT.
    Handle(String),
    /// An out-parameter for a new handle (`chatwire_reply **`).
    OutHandle(String),
    /// Text going in.
    Str,
    /// A string chatwire handed out, given back to be freed.
    Owned,
    /// An owned text coming out (`char **`).
    OutStr,
    /// A borrowed text coming out (`const char **`).
    OutBorrowed,
    /// `size_t`: an index when it is named `index`.
    Size,
    /// A length or count coming out (`size_t *`).
    OutSize,
    /// Any other unsigned integer going in.
    Unsigned(String),
    /// A number coming out (`uint64_t *`, `double *`, an enum's `int *`).
    OutNumber(String),
    /// An enum value (or a 0/1 switch), passed as int and checked.
    Int,
    /// A callback, NULL or a function.
    Callback,
    /// The caller's `userdata`, handed back untouched.
    UserData,
}

fn classify(header: &Header, param: &Param) -> Result<Kind, String> {
    let tokens: Vec<&str> = param.ty.split(' ').collect();
    let stars = tokens.iter().filter(|t| **t == "*").count();
    let base: Vec<&str> = tokens
        .iter()
        .copied()
        .filter(|t| *t != "*" && *t != "const")
        .collect();
    let constant = tokens.contains(&"const");
    let [base] = base[..] else {
        return Err(format!("{param:?}: a type of more than one word"));
    };
    if header.enums.contains(base) {
        return Err(format!(
            "{param:?}: an enum-valued parameter is passed as int (docs/c-api.md)"
        ));
    }
    Ok(match (base, stars, constant) {
        (handle, 1, _) if header.handles.contains(handle) => Kind::Handle(handle.into()),
        (handle, 2, false) if header.handles.contains(handle) => Kind::OutHandle(handle.into()),
        ("char", 1, true) => Kind::Str,
        ("char", 1, false) if param.name == "s" => Kind::Owned,
        ("char", 2, false) => Kind::OutStr,
        ("char", 2, true) => Kind::OutBorrowed,
        ("size_t", 0, false) => Kind::Size,
        ("size_t", 1, false) => Kind::OutSize,
        ("uint32_t" | "uint64_t", 0, false) => Kind::Unsigned(base.into()),
        ("uint32_t" | "uint64_t" | "double" | "int", 1, false) => Kind::OutNumber(base.into()),
        ("int", 0, false) => Kind::Int,
        (callback, 0, false) if header.callbacks.contains(callback) => Kind::Callback,
        ("void", 1, false) if param.name == "userdata" => Kind::UserData,
        _ => return Err(format!("{param:?}: no rule for this parameter type")),
    })
}

/// What a function gives back, and so what it gives on failure.
#[derive(Debug, Clone, PartialEq)]
enum Returns {
    Status,
    /// A `_free` function.
    Nothing,
    /// A getter: its C type and the value it gives on failure.
    Value {
        ty: String,
        failure: &'static str,
    },
}

fn returns(function: &Function) -> Result<Returns, String> {
    Ok(match function.ret.as_str() {
        "chatwire_status" => Returns::Status,
        "void" if function.name.ends_with("_free") => Returns::Nothing,
        "const char *" | "void *" => Returns::Value {
            ty: function.ret.clone(),
            failure: "NULL",
        },
        "int" => Returns::Value {
            ty: "int".into(),
            failure: "-1",
        },
        "size_t" => Returns::Value {
            ty: "size_t".into(),
            failure: "0",
        },
        "double" => Returns::Value {
            ty: "double".into(),
            failure: "0.0",
        },
        // Only the functions that cannot fail return anything else.
        "uint32_t" if handles_of(function).is_empty() => Returns::Value {
            ty: "uint32_t".into(),
            failure: "0",
        },
        other => {
            return Err(format!(
                "{}: no failure value for a getter returning {other}",
                function.name
            ))
        }
    })
}

fn handles_of(function: &Function) -> Vec<usize> {
    (0..function.params.len())
        .filter(|&i| {
            let ty = &function.params[i].ty;
            ty.starts_with("chatwire_") || ty.starts_with("const chatwire_")
        })
        .filter(|&i| function.params[i].ty.matches('*').count() == 1)
        .collect()
}

/// The functions that cannot fail: no handle, no status. They never touch
/// the last error. Anything else without a handle must return a status.
const CANNOT_FAIL: &[&str] = &[
    "chatwire_last_error",
    "chatwire_last_http_status",
    "chatwire_status_str",
    "chatwire_version",
    "chatwire_version_number",
    "chatwire_ingredients_schema",
];

/// Text getters without a `_len` form, each with the reason its text
/// cannot hold U+0000.
const NO_LEN: &[(&str, &str)] = &[
    ("chatwire_reply_json", "JSON text never holds U+0000 raw"),
    (
        "chatwire_reply_request_id",
        "an HTTP header value cannot hold U+0000",
    ),
    (
        "chatwire_reply_header",
        "an HTTP header value cannot hold U+0000",
    ),
    (
        "chatwire_batch_id",
        "an id the provider made for URL paths (batch_...), not text a model writes",
    ),
    (
        "chatwire_reply_tool_call_type",
        "an identifier of the API (function, custom), not text a model writes",
    ),
];

/// Functions handing out an owned text (`char **`) without a `_len` form,
/// each with the reason: its text cannot hold U+0000, or where to get the
/// whole of it.
const NO_LEN_OWNED: &[(&str, &str)] = &[
    ("chatwire_conversation_to_json", "JSON text"),
    ("chatwire_extract_json", "JSON text"),
    ("chatwire_models_json", "JSON text"),
    ("chatwire_batch_to_jsonl", "JSON lines"),
    (
        "chatwire_batch_errors",
        "one line per error, the server's control characters escaped",
    ),
    ("chatwire_extract_ingredients", "JSON text"),
    ("chatwire_send_json", "JSON text"),
    ("chatwire_ingredients_prompt", "made of C strings"),
    ("chatwire_json_prompt", "made of C strings"),
    ("chatwire_send", "whole: chatwire_send_reply"),
    (
        "chatwire_send_stream",
        "whole: the deltas, or chatwire_send_stream_reply",
    ),
    (
        "chatwire_request_wait",
        "whole: chatwire_request_wait_reply",
    ),
];

/// `int` parameters that take any value (API.md: unknown statuses give a
/// fixed text).
const ANY_INT: &[&str] = &["chatwire_status_str"];

/// Getters that fail on some platforms by design, with the platforms on
/// which they succeed (a C preprocessor condition).
const PLATFORM: &[(&str, &str)] = &[
    ("chatwire_request_fd", "!defined(_WIN32)"),
    ("chatwire_request_event", "defined(_WIN32)"),
];

/// The C fixture of each handle type, and the index of its item whose
/// texts hold U+0000.
fn fixture(handle: &str) -> Result<(&'static str, usize), String> {
    Ok(match handle {
        "chatwire_client" => ("client", 0),
        "chatwire_conversation" => ("conversation", 1),
        "chatwire_reply" => ("reply", 0),
        "chatwire_request" => ("request", 0),
        "chatwire_ingredients" => ("ingredients", 0),
        "chatwire_models" => ("models", 0),
        "chatwire_batch" => ("batch", 0),
        other => return Err(format!("no fixture for the handle type {other}")),
    })
}

/// How one call is made.
#[derive(Default, Clone, Copy)]
struct Call<'a> {
    /// This parameter is NULL.
    null: Option<usize>,
    /// The value of `index`, when not the fixture's.
    index: Option<&'a str>,
    /// This `int` parameter has this value.
    int: Option<(usize, &'a str)>,
}

/// The C of one call: declarations of the out-parameters (holding
/// sentinels), the call into `got`, and the condition that every
/// out-parameter still holds its sentinel; each name starts with `prefix`.
fn call(
    header: &Header,
    function: &Function,
    how: Call<'_>,
    prefix: &str,
) -> Result<(String, String, String), String> {
    let mut declarations = String::new();
    let mut args = Vec::new();
    let mut untouched = vec!["1".to_string()];
    let nul_index = match handles_of(function).first() {
        Some(&i) => {
            let Kind::Handle(handle) = classify(header, &function.params[i])? else {
                unreachable!()
            };
            fixture(&handle)?.1
        }
        None => 0,
    };
    for (i, param) in function.params.iter().enumerate() {
        let out = format!("{prefix}out_{i}");
        let kind = classify(header, param)?;
        let arg = match kind {
            _ if how.null == Some(i) => "NULL".to_string(),
            Kind::Owned => unreachable!("only a free takes a string back, and gets NULL"),
            Kind::Handle(handle) => fixture(&handle)?.0.to_string(),
            Kind::OutHandle(handle) => {
                writeln!(
                    declarations,
                    "{handle} *{out} = ({handle} *)(void *)&sentinel;"
                )
                .unwrap();
                untouched.push(format!("{out} == ({handle} *)(void *)&sentinel"));
                format!("&{out}")
            }
            Kind::Str => "\"x\"".to_string(),
            Kind::OutStr => {
                writeln!(declarations, "char *{out} = &sentinel;").unwrap();
                untouched.push(format!("{out} == &sentinel"));
                format!("&{out}")
            }
            Kind::OutBorrowed => {
                writeln!(declarations, "const char *{out} = &sentinel;").unwrap();
                untouched.push(format!("{out} == &sentinel"));
                format!("&{out}")
            }
            Kind::Size if param.name == "index" => how
                .index
                .map_or_else(|| nul_index.to_string(), str::to_string),
            Kind::Size => "0".to_string(),
            Kind::OutSize => {
                writeln!(declarations, "size_t {out} = 12345;").unwrap();
                untouched.push(format!("{out} == 12345"));
                format!("&{out}")
            }
            Kind::Unsigned(_) => "1".to_string(),
            Kind::OutNumber(ty) => {
                writeln!(declarations, "{ty} {out} = 12345;").unwrap();
                untouched.push(format!("{out} == 12345"));
                format!("&{out}")
            }
            Kind::Int => match how.int {
                Some((at, value)) if at == i => value.to_string(),
                _ => "0".to_string(),
            },
            Kind::Callback | Kind::UserData => "NULL".to_string(),
        };
        args.push(arg);
    }
    let invocation = format!("{}({})", function.name, args.join(", "));
    let got = match returns(function)? {
        Returns::Status => format!("chatwire_status {prefix}got = {invocation};"),
        Returns::Nothing => format!("{invocation};"),
        Returns::Value { ty, .. } => format!("{ty} {prefix}got = {invocation};"),
    };
    Ok((declarations, got, untouched.join(" && ")))
}

/// Writes one check: a block that sets the stale error, makes the call and
/// checks `conditions` (C expressions over `got` and the out-parameters).
fn check(
    c: &mut String,
    header: &Header,
    function: &Function,
    how: Call<'_>,
    what: &str,
    conditions: &[String],
) -> Result<(), String> {
    let (declarations, got, _) = call(header, function, how, "")?;
    writeln!(c, "    {{ /* {}: {what} */", function.name).unwrap();
    for line in declarations.lines() {
        writeln!(c, "        {line}").unwrap();
    }
    writeln!(c, "        stale();").unwrap();
    writeln!(c, "        {got}").unwrap();
    if !got.starts_with(&function.name) {
        writeln!(c, "        (void)got;").unwrap();
    }
    for condition in conditions {
        let text = condition.replace('\\', "\\\\").replace('"', "\\\"");
        writeln!(
            c,
            "        expect({condition}, \"{}\", \"{what}\", \"{text}\");",
            function.name
        )
        .unwrap();
    }
    writeln!(c, "    }}").unwrap();
    Ok(())
}

/// The conditions of a failure: the status or the failure value, a new last
/// error mentioning `mentions`, out-parameters untouched.
fn failure(
    header: &Header,
    function: &Function,
    how: Call<'_>,
    status: &str,
    mentions: &str,
) -> Result<Vec<String>, String> {
    let (_, _, untouched) = call(header, function, how, "")?;
    let result = match returns(function)? {
        Returns::Status => format!("got == {status}"),
        Returns::Value { failure, .. } => format!("got == {failure}"),
        Returns::Nothing => unreachable!("a free function has no failure"),
    };
    Ok(vec![
        result,
        "error_is_new()".into(),
        format!("strstr(chatwire_last_error(), \"{mentions}\") != NULL"),
        untouched,
    ])
}

/// The generated program, and the number of checks it makes.
fn generate(header: &Header) -> Result<(String, usize), Vec<String>> {
    let mut problems = Vec::new();
    let mut c = String::new();
    for function in &header.functions {
        if let Err(problem) = generate_one(&mut c, header, function) {
            problems.push(problem);
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    // What the program counts when it runs here: every expect(), each
    // expect_text_len() once, less the checks of the other platforms.
    let elsewhere = PLATFORM
        .iter()
        .filter(|(name, condition)| {
            let windows_only = !condition.starts_with('!');
            names_contain(header, name) && windows_only != cfg!(windows)
        })
        .count();
    let checks = c.matches("expect(").count() + c.matches("expect_text_len(").count() - elsewhere;
    Ok((format!("{PRELUDE}{c}{EPILOGUE}"), checks))
}

fn names_contain(header: &Header, name: &str) -> bool {
    header
        .functions
        .iter()
        .any(|function| function.name == name)
}

fn generate_one(c: &mut String, header: &Header, function: &Function) -> Result<(), String> {
    let kinds: Vec<Kind> = function
        .params
        .iter()
        .map(|param| classify(header, param))
        .collect::<Result<_, _>>()?;
    let returned = returns(function)?;
    let handles = handles_of(function);
    let name = function.name.as_str();

    if returned == Returns::Nothing {
        // (c) A free keeps the last error; (a) every free accepts NULL.
        let how = Call {
            null: Some(0),
            ..Call::default()
        };
        return check(
            c,
            header,
            function,
            how,
            "free(NULL)",
            &["error_kept()".into()],
        );
    }
    if handles.is_empty() && returned != Returns::Status {
        if !CANNOT_FAIL.contains(&name) {
            return Err(format!(
                "{name}: a getter without a handle; add it to CANNOT_FAIL if it cannot fail"
            ));
        }
        // (c) What cannot fail never touches the last error.
        return check(
            c,
            header,
            function,
            Call::default(),
            "cannot fail",
            &["error_kept()".into()],
        );
    }

    // (a) Each handle NULL in turn.
    for &at in &handles {
        let how = Call {
            null: Some(at),
            ..Call::default()
        };
        let conditions = failure(
            header,
            function,
            how,
            "CHATWIRE_ERR_NULL_ARGUMENT",
            "is NULL",
        )?;
        let what = format!("{} NULL", function.params[at].name);
        check(c, header, function, how, &what, &conditions)?;
    }

    // (b) An index out of range, just past any fixture and at the end.
    if function.params.iter().any(|p| p.name == "index") {
        for index in ["1000", "(size_t)-1"] {
            let how = Call {
                index: Some(index),
                ..Call::default()
            };
            let conditions = failure(
                header,
                function,
                how,
                "CHATWIRE_ERR_INVALID_ARGUMENT",
                "index",
            )?;
            check(
                c,
                header,
                function,
                how,
                &format!("index {index}"),
                &conditions,
            )?;
        }
    }

    // (e) An enum value out of range.
    for (at, kind) in kinds.iter().enumerate() {
        if *kind != Kind::Int || ANY_INT.contains(&name) {
            continue;
        }
        if returned != Returns::Status {
            return Err(format!("{name}: an int parameter on a getter has no rule"));
        }
        for value in ["-1", "1000"] {
            let how = Call {
                int: Some((at, value)),
                ..Call::default()
            };
            let mut conditions =
                failure(header, function, how, "CHATWIRE_ERR_INVALID_ARGUMENT", "")?;
            conditions.retain(|condition| !condition.starts_with("strstr"));
            let what = format!("{} = {value}", function.params[at].name);
            check(c, header, function, how, &what, &conditions)?;
        }
    }

    if let Returns::Value { ty, .. } = &returned {
        // (c) A getter that succeeds clears the last error.
        let platform = PLATFORM.iter().find(|(n, _)| *n == name);
        if let Some((_, condition)) = platform {
            writeln!(c, "#if {condition}").unwrap();
        }
        check(
            c,
            header,
            function,
            Call::default(),
            "succeeds",
            &["error_cleared()".into()],
        )?;
        if platform.is_some() {
            writeln!(c, "#endif").unwrap();
        }
        // (d) A text getter has its `_len` form, which counts past U+0000.
        if ty == "const char *" {
            check_len(c, header, function, false)?;
        }
        // (e) A double getter has an `_out` form, for the languages that
        // cannot receive a double as a return value (GnuCOBOL).
        if ty == "double" {
            check_out_form(header, function)?;
        }
    }
    if kinds.contains(&Kind::OutBorrowed) {
        check_len(c, header, function, true)?;
    }
    let is_len_form = name.ends_with("_len") && kinds.last() == Some(&Kind::OutSize);
    if kinds.contains(&Kind::OutStr)
        && !is_len_form
        && !NO_LEN_OWNED.iter().any(|(n, _)| *n == name)
    {
        // An owned text's `_len` form takes the same arguments and a
        // `size_t *` for the length, last.
        let len_name = format!("{name}_len");
        let len_fn = header.functions.iter().find(|f| f.name == len_name);
        let mirrors = len_fn.is_some_and(|len_fn| {
            let mut expected: Vec<&str> = function.params.iter().map(|p| p.ty.as_str()).collect();
            expected.push("size_t *");
            let got: Vec<&str> = len_fn.params.iter().map(|p| p.ty.as_str()).collect();
            got == expected && len_fn.ret == "chatwire_status"
        });
        if !mirrors {
            return Err(format!(
                "{name} hands out an owned text with no {len_name}(..., size_t *len_out): \
                 every text that may hold U+0000 has one (or add it to NO_LEN_OWNED)"
            ));
        }
    }
    Ok(())
}

/// Checks that `function`, a getter of a `double`, has a `_out` form: the
/// same arguments and a `double *` last, returning a status.
fn check_out_form(header: &Header, function: &Function) -> Result<(), String> {
    let out_name = format!("{}_out", function.name);
    let mut expected: Vec<&str> = function.params.iter().map(|p| p.ty.as_str()).collect();
    expected.push("double *");
    let mirrors = header.functions.iter().any(|out_fn| {
        let got: Vec<&str> = out_fn.params.iter().map(|p| p.ty.as_str()).collect();
        out_fn.name == out_name && got == expected && out_fn.ret == "chatwire_status"
    });
    if mirrors {
        Ok(())
    } else {
        Err(format!(
            "{} returns a double with no {out_name}(..., double *out): every value is \
             reachable through an out-parameter too (docs/c-api.md)",
            function.name
        ))
    }
}

/// Checks that `function`, which hands out borrowed text, has a `_len`
/// form taking the same arguments (`size_t *` for each `const char **`),
/// and that on the fixture, whose texts hold U+0000, it counts past it.
fn check_len(
    c: &mut String,
    header: &Header,
    function: &Function,
    outs: bool,
) -> Result<(), String> {
    let name = function.name.as_str();
    if NO_LEN.iter().any(|(n, _)| *n == name) {
        return Ok(());
    }
    let len_name = format!("{name}_len");
    let Some(len_fn) = header.functions.iter().find(|f| f.name == len_name) else {
        return Err(format!(
            "{name} hands out text with no {len_name}: every text that may hold U+0000 \
             has one (or add it to NO_LEN with the reason it cannot)"
        ));
    };
    let expected: Vec<String> = function
        .params
        .iter()
        .map(|p| match p.ty.as_str() {
            "const char * *" => "size_t *".to_string(),
            ty => ty.to_string(),
        })
        .collect();
    let got: Vec<String> = len_fn.params.iter().map(|p| p.ty.clone()).collect();
    let len_ret = if outs { "chatwire_status" } else { "size_t" };
    if expected != got || len_fn.ret != len_ret {
        return Err(format!(
            "{len_name} does not mirror {name}: {got:?} -> {} (expected {expected:?} -> {len_ret})",
            len_fn.ret
        ));
    }
    let (text_declarations, text_got, _) = call(header, function, Call::default(), "t_")?;
    let (len_declarations, len_got, _) = call(header, len_fn, Call::default(), "l_")?;
    writeln!(c, "    {{ /* {name} and {len_name}: U+0000 inside */").unwrap();
    for line in text_declarations.lines().chain(len_declarations.lines()) {
        writeln!(c, "        {line}").unwrap();
    }
    writeln!(c, "        {text_got}").unwrap();
    writeln!(c, "        {len_got}").unwrap();
    writeln!(c, "        (void)t_got;").unwrap();
    writeln!(c, "        (void)l_got;").unwrap();
    if outs {
        for (i, param) in function.params.iter().enumerate() {
            if param.ty == "const char * *" {
                writeln!(
                    c,
                    "        expect_text_len(t_out_{i}, l_out_{i}, \"{name}\");"
                )
                .unwrap();
            }
        }
    } else {
        writeln!(c, "        expect_text_len(t_got, l_got, \"{name}\");").unwrap();
    }
    writeln!(c, "    }}").unwrap();
    Ok(())
}

const PRELUDE: &str = r#"/* Generated by tests/c_conventions.rs from include/chatwire.h: every
 * exported function against the conventions of docs/c-api.md. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "chatwire.h"

static int checks = 0;
static int failed = 0;
static char sentinel = 0;
static char stale_text[256];

static void expect(int ok, const char *function, const char *what, const char *condition) {
    checks++;
    if (!ok) {
        failed++;
        fprintf(stderr, "%s (%s): %s does not hold (last error: %s)\n", function, what, condition,
                chatwire_last_error());
    }
}

/* A last error that no call below gives: each call must replace it, clear
 * it or keep it, as the conventions say. */
static void stale(void) {
    (void)chatwire_set_log_callback(NULL, 77, NULL);
}

static int error_is_new(void) {
    return chatwire_last_error()[0] != '\0' && strcmp(chatwire_last_error(), stale_text) != 0;
}

static int error_kept(void) {
    return strcmp(chatwire_last_error(), stale_text) == 0;
}

static int error_cleared(void) {
    return chatwire_last_error()[0] == '\0' && chatwire_last_http_status() == 0;
}

/* A text and its length from a _len form: the fixture's texts hold U+0000,
 * so the length goes past strlen(), and the text ends there. */
static void expect_text_len(const char *text, size_t len, const char *function) {
    expect(text != NULL && len > strlen(text) && text[len] == '\0', function, "_len",
           "text != NULL && len > strlen(text) && text[len] == '\\0'");
}

static chatwire_client *client = NULL;
static chatwire_conversation *conversation = NULL;
static chatwire_reply *reply = NULL;
static chatwire_request *request = NULL;
static chatwire_ingredients *ingredients = NULL;
static chatwire_models *models = NULL;
static chatwire_batch *batch = NULL;

/* The fixtures: a reply whose every text holds U+0000 (the server argv[1]
 * sends it), appended to a conversation as message 1; a request that has
 * finished, started on a conversation freed while it ran; an ingredient
 * list and a model list whose texts hold U+0000; an empty batch. */
static int make_fixtures(const char *url) {
    chatwire_conversation *asked = NULL;
    if (chatwire_client_new(url, "sk-conventions", &client) != CHATWIRE_OK ||
        chatwire_conversation_new("m", &conversation) != CHATWIRE_OK ||
        chatwire_conversation_append(conversation, CHATWIRE_ROLE_USER, "q") != CHATWIRE_OK ||
        chatwire_send_reply(client, conversation, &reply) != CHATWIRE_OK ||
        chatwire_conversation_new("m", &asked) != CHATWIRE_OK ||
        chatwire_conversation_append(asked, CHATWIRE_ROLE_USER, "q") != CHATWIRE_OK ||
        chatwire_send_async(client, asked, NULL, NULL, NULL, &request) != CHATWIRE_OK) {
        fprintf(stderr, "fixtures: %s\n", chatwire_last_error());
        return 0;
    }
    chatwire_conversation_free(asked);
    (void)chatwire_request_wait(request, NULL);
    if (chatwire_request_done(request) != 1 ||
        chatwire_extract_ingredient_list(
            "[{\"ingredient\": \"eg\\u0000g\", \"quantity\": 2, \"unit\": \"pi\\u0000ece\"}]",
            &ingredients) != CHATWIRE_OK ||
        chatwire_list_models(client, &models) != CHATWIRE_OK ||
        chatwire_batch_new(&batch) != CHATWIRE_OK) {
        fprintf(stderr, "fixtures: %s\n", chatwire_last_error());
        return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2 || !make_fixtures(argv[1])) {
        fprintf(stderr, "usage: conventions BASE_URL\n");
        return 2;
    }
    stale();
    strncpy(stale_text, chatwire_last_error(), sizeof stale_text - 1);
    if (stale_text[0] == '\0') {
        fprintf(stderr, "no stale error to start from\n");
        return 2;
    }
"#;

const EPILOGUE: &str = r#"
    chatwire_batch_free(batch);
    chatwire_models_free(models);
    chatwire_ingredients_free(ingredients);
    chatwire_request_free(request);
    chatwire_reply_free(reply);
    chatwire_conversation_free(conversation);
    chatwire_client_free(client);
    printf("conventions: %d checks, %d failed\n", checks, failed);
    return failed == 0 ? 0 : 1;
}
"#;

fn header() -> Header {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/chatwire.h");
    parse_header(&std::fs::read_to_string(path).expect("include/chatwire.h"))
}

/// The reply the fixtures get: U+0000 in every text a model or a server
/// writes in a JSON string.
fn reply_with_nul() -> String {
    serde_json::json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{
            "index": 0,
            "finish_reason": "tool\u{0}calls",
            "message": {
                "role": "assistant",
                "content": "a\u{0}b",
                "reasoning_content": "r\u{0}s",
                "refusal": "n\u{0}o",
                "tool_calls": [{
                    "id": "call\u{0}1",
                    "type": "function",
                    "function": {"name": "f\u{0}g", "arguments": "{\"k\":\"\u{0}\"}"}
                }]
            }
        }],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    })
    .to_string()
}

#[test]
fn the_header_parses_into_every_exported_function() {
    let header = header();
    let names: BTreeSet<&str> = header.functions.iter().map(|f| f.name.as_str()).collect();
    // A few of each shape, so that a parser gone wrong cannot pass by
    // finding nothing.
    for name in [
        "chatwire_last_error",
        "chatwire_client_new",
        "chatwire_reply_tool_call",
        "chatwire_conversation_free",
        "chatwire_send_async",
    ] {
        assert!(names.contains(name), "{name} not found in {names:?}");
    }
    assert!(header.functions.len() > 80, "{}", header.functions.len());
    let tool_call = header
        .functions
        .iter()
        .find(|f| f.name == "chatwire_reply_tool_call")
        .unwrap();
    assert_eq!(tool_call.ret, "chatwire_status");
    assert_eq!(tool_call.params[0].ty, "const chatwire_reply *");
    assert_eq!(tool_call.params[2].ty, "const char * *");
    assert!(header.handles.contains("chatwire_request"));
    assert!(header.enums.contains("chatwire_role"));
    assert!(header.callbacks.contains("chatwire_done_callback"));
}

#[test]
fn every_exported_function_keeps_the_conventions() {
    let header = header();
    let (program, checks) = match generate(&header) {
        Ok(generated) => generated,
        Err(problems) => panic!("functions outside the rule:\n{}", problems.join("\n")),
    };
    let mut server = mockito::Server::new();
    server
        .mock("POST", PATH)
        .with_header("content-type", "application/json")
        .with_body(reply_with_nul())
        .expect_at_least(1)
        .create();
    server
        .mock("GET", "/v1/models")
        .with_body(r#"{"data":[{"id":"m\u0000x","owned_by":"o\u0000wner"}]}"#)
        .expect_at_least(1)
        .create();
    let source = common::cprog::library_dir().join("conventions.c");
    std::fs::write(&source, program).unwrap();
    for lang in [Lang::C, Lang::Cxx] {
        let exe = compile_source(&source, "conventions", lang, Link::Static, &[]);
        let out = run(&exe, &[&server.url()]);
        assert!(
            out.contains(&format!("conventions: {checks} checks, 0 failed")),
            "{out}"
        );
    }
}

/// The Rust side of the rule: every exported function of src/ffi/ runs its
/// body through the boundary (which catches panics and sets or keeps the
/// last error as the conventions say), or is one of those that cannot fail.
#[test]
fn every_exported_function_goes_through_the_boundary() {
    fn sources(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ffi"),
        &mut files,
    );
    let mut exported = Vec::new();
    let mut outside = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (at, _) in text.match_indices("#[no_mangle]") {
            let rest = &text[at..];
            let name_at = rest.find(" fn ").expect("a function after #[no_mangle]") + 4;
            let name: String = rest[name_at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // The body: from the first `{` after the signature to its match.
            let open = rest.find('{').unwrap();
            let mut depth = 0;
            let mut end = open;
            for (i, c) in rest[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    end = open + i;
                    break;
                }
            }
            let body = rest[open..end].to_owned();
            exported.push((name, body, file.clone()));
        }
    }
    let through_the_boundary = |body: &str| {
        [
            "boundary::status(",
            "boundary::value(",
            "boundary::release(",
        ]
        .iter()
        .any(|entry| body.contains(entry))
    };
    let bounded: Vec<&str> = exported
        .iter()
        .filter(|(_, body, _)| through_the_boundary(body))
        .map(|(name, _, _)| name.as_str())
        .collect();
    // A forward (a `_u32` twin, say) calls an original that goes through the
    // boundary, which does the rest.
    let forwards_to_bounded = |body: &str| {
        bounded
            .iter()
            .any(|original| body.contains(&format!("::{original}(")))
    };
    for (name, body, file) in &exported {
        let fine = through_the_boundary(body)
            || forwards_to_bounded(body)
            || CANNOT_FAIL.contains(&name.as_str());
        if !fine {
            outside.push(format!("{} ({})", name, file.display()));
        }
    }
    assert!(exported.len() > 80, "{} exported", exported.len());
    assert!(
        outside.is_empty(),
        "exported functions whose body does not go through boundary::status, value or \
         release:\n{}",
        outside.join("\n")
    );
    // And the header declares exactly these.
    let declared: BTreeSet<String> = header().functions.into_iter().map(|f| f.name).collect();
    let exported: BTreeSet<String> = exported.into_iter().map(|(name, _, _)| name).collect();
    assert_eq!(declared, exported);
}
