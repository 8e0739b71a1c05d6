//! Where Azure's settings come from, and the trust between the places a
//! credential and an endpoint come from. The environment and the current
//! directory belong to the whole process, so this file holds a single test
//! that changes them one step at a time.

mod common;

use chatwire::{Client, Error};
use common::*;
use mockito::{Matcher, Server};

const VARIABLES: [&str; 6] = [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT",
    "OPENAI_API_VERSION",
    "OPENAI_ORG_ID",
];

fn send_with(client: &Client) -> String {
    client.send(&mut conversation()).unwrap()
}

/// A refused destination: a configuration error naming both places, without the key.
fn assert_refused(result: chatwire::Result<Client>, key_from: &str, url_from: &str) {
    let err = result.unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, Error::Config(_)), "{message}");
    assert!(message.contains(key_from), "{message}");
    assert!(message.contains(url_from), "{message}");
    assert!(!message.contains("sk-"), "{message}");
}

#[test]
fn trust_matrix_and_azure_settings_from_environment_and_dotenv() {
    let mut server = Server::new();
    // Every mock names the key in its reply without quoting it (chatwire
    // would redact it).
    let mut for_key = |key: &str| {
        server
            .mock("POST", Matcher::Any)
            .match_header("authorization", format!("Bearer {key}").as_str())
            .with_body(completion(&key.replace("sk-", "key-")))
            .create()
    };
    let _mocks = [
        for_key("sk-argument"),
        for_key("sk-environment"),
        for_key("sk-dotenv"),
    ];
    let azure = server
        .mock("POST", "/openai/deployments/dep/chat/completions")
        .match_query(Matcher::UrlEncoded(
            "api-version".into(),
            "2099-01-01".into(),
        ))
        .match_header("api-key", "sk-azure-env")
        .match_header("authorization", Matcher::Missing)
        .with_body(completion("azure from the environment"))
        .create();
    let url = server.url();

    let dir = std::env::temp_dir().join(format!("chatwire-endpoints-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::env::set_current_dir(&dir).unwrap();
    for variable in VARIABLES {
        std::env::remove_var(variable);
    }
    let with_key = |key: &str| Client::builder().api_key(key);

    // Argument and environment combine freely: a key argument goes to
    // $OPENAI_BASE_URL (refused before), the environment's key to a base
    // URL argument.
    std::env::set_var("OPENAI_BASE_URL", &url);
    assert_eq!(
        send_with(&with_key("sk-argument").build().unwrap()),
        "key-argument"
    );
    std::env::set_var("OPENAI_API_KEY", "sk-environment");
    std::env::remove_var("OPENAI_BASE_URL");
    assert_eq!(
        send_with(&Client::builder().base_url(&url).build().unwrap()),
        "key-environment"
    );

    // A ./.env URL receives neither the environment's key nor an argument.
    std::fs::write(".env", format!("OPENAI_BASE_URL={url}\n")).unwrap();
    assert_refused(
        Client::from_env(),
        "$OPENAI_API_KEY",
        "OPENAI_BASE_URL in ./.env",
    );
    assert_refused(
        with_key("sk-argument").build(),
        "the argument",
        "OPENAI_BASE_URL in ./.env",
    );
    // ... nor a credential callback, with a key or without one.
    let provider = || Ok::<_, String>("sk-callback-token".to_owned());
    assert_refused(
        Client::builder().credential_provider(provider).build(),
        "the credential callback",
        "./.env",
    );
    let err = with_key("")
        .credential_provider(provider)
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err}");
    // "" sends nothing, so nothing is at stake: allowed.
    let keyless = with_key("").build().unwrap();
    assert!(keyless.endpoint().starts_with(&url));
    // Once an argument names the endpoint, the callback may go there.
    with_key("")
        .endpoint_url(format!("{url}/v1/chat/completions"))
        .credential_provider(provider)
        .build()
        .unwrap();

    // A key from ./.env may go with a URL from ./.env, or anywhere the user points it.
    std::env::remove_var("OPENAI_API_KEY");
    std::fs::write(
        ".env",
        format!("OPENAI_BASE_URL={url}\nOPENAI_API_KEY=sk-dotenv\n"),
    )
    .unwrap();
    assert_eq!(send_with(&Client::from_env().unwrap()), "key-dotenv");
    std::fs::write(".env", "OPENAI_API_KEY=sk-dotenv\n").unwrap();
    std::env::set_var("OPENAI_BASE_URL", &url);
    assert_eq!(send_with(&Client::from_env().unwrap()), "key-dotenv");
    std::env::remove_var("OPENAI_BASE_URL");

    // Azure: endpoint, version and key from the environment, under the
    // names openai-python reads.
    std::fs::remove_file(".env").unwrap();
    std::env::set_var("AZURE_OPENAI_ENDPOINT", &url);
    std::env::set_var("OPENAI_API_VERSION", "2099-01-01");
    std::env::set_var("AZURE_OPENAI_API_KEY", "sk-azure-env");
    let client = Client::builder().azure_from_env("dep").build().unwrap();
    assert_eq!(send_with(&client), "azure from the environment");
    azure.assert();

    // Azure's endpoint from ./.env receives neither the environment's key
    // nor an argument; with the key in ./.env too it is fine.
    std::env::remove_var("AZURE_OPENAI_ENDPOINT");
    std::fs::write(".env", format!("AZURE_OPENAI_ENDPOINT={url}\n")).unwrap();
    assert_refused(
        Client::builder().azure_from_env("dep").build(),
        "$AZURE_OPENAI_API_KEY",
        "AZURE_OPENAI_ENDPOINT in ./.env",
    );
    std::env::remove_var("AZURE_OPENAI_API_KEY");
    std::fs::write(
        ".env",
        format!("AZURE_OPENAI_ENDPOINT={url}\nAZURE_OPENAI_API_KEY=sk-azure-dotenv\n"),
    )
    .unwrap();
    assert!(Client::builder().azure_from_env("dep").build().is_ok());

    // No endpoint anywhere: a configuration error that says what to set.
    std::fs::remove_file(".env").unwrap();
    let err = Client::builder()
        .azure_from_env("dep")
        .api_key("k-1234")
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("AZURE_OPENAI_ENDPOINT"), "{err}");
    // No key anywhere.
    let err = Client::builder().azure(&url, "dep").build().unwrap_err();
    assert!(matches!(err, Error::MissingApiKey), "{err}");
    assert!(err.to_string().contains("AZURE_OPENAI_API_KEY"), "{err}");

    for variable in VARIABLES {
        std::env::remove_var(variable);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
