//! The library's version as a number, to compare at run time with the
//! header's CHATWIRE_VERSION_* macros.

/// Parses a decimal version part at compile time.
const fn parse(digits: &str) -> u32 {
    match u32::from_str_radix(digits, 10) {
        Ok(value) => value,
        Err(_) => panic!("a version part is decimal"),
    }
}

const MAJOR: u32 = parse(env!("CARGO_PKG_VERSION_MAJOR"));
const MINOR: u32 = parse(env!("CARGO_PKG_VERSION_MINOR"));
const PATCH: u32 = parse(env!("CARGO_PKG_VERSION_PATCH"));
const NUMBER: u32 = MAJOR * 10_000 + MINOR * 100 + PATCH;

// The encoding below holds while minor and patch stay under 100.
const _: () = assert!(MINOR < 100 && PATCH < 100);

/// The version of the library loaded, as MAJOR * 10000 + MINOR * 100 + PATCH
/// (1.2.3 gives 10203), the encoding of CHATWIRE_VERSION_NUMBER, the header's:
/// check `chatwire_version_number() >= CHATWIRE_VERSION_NUMBER` at run time.
#[no_mangle]
pub extern "system" fn chatwire_version_number() -> u32 {
    NUMBER
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_number_encodes_cargo_s_version() {
        let parts: Vec<u32> = env!("CARGO_PKG_VERSION")
            .split(['.', '-', '+'])
            .take(3)
            .map(|part| part.parse().unwrap())
            .collect();
        assert_eq!(
            chatwire_version_number(),
            parts[0] * 10_000 + parts[1] * 100 + parts[2]
        );
        assert_eq!(parse("0"), 0);
        assert_eq!(parse("123"), 123);
    }
}
