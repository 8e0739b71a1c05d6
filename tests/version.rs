//! The header's version macros match Cargo.toml's version.

fn define(header: &str, name: &str) -> String {
    let prefix = format!("#define {name} ");
    header
        .lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("include/chatwire.h has no {name}"))
        .trim()
        .to_string()
}

#[test]
fn header_version_macros_match_cargo_toml() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("include/chatwire.h");
    let header = std::fs::read_to_string(path).unwrap();
    assert_eq!(
        define(&header, "CHATWIRE_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MAJOR")
    );
    assert_eq!(
        define(&header, "CHATWIRE_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_MINOR")
    );
    assert_eq!(
        define(&header, "CHATWIRE_VERSION_PATCH"),
        env!("CARGO_PKG_VERSION_PATCH")
    );
    assert_eq!(
        define(&header, "CHATWIRE_VERSION_STRING"),
        format!(
            "\"{}.{}.{}\"",
            env!("CARGO_PKG_VERSION_MAJOR"),
            env!("CARGO_PKG_VERSION_MINOR"),
            env!("CARGO_PKG_VERSION_PATCH")
        )
    );
    assert!(header.contains("uint32_t CHATWIRE_CALL chatwire_version_number(void);"));
}
