//! Secrets: types that cannot print their value, and the [`Masker`] that
//! takes known secret values out of any text that came from outside.
//!
//! Two rules keep secrets out of logs, errors and output:
//!
//! - **Secret types.** Env values, header values, bearer tokens and URLs
//!   (which may carry userinfo and query tokens) are held as
//!   [`SecretString`] or `SecretUrl` (feature `url`). Neither has a `Display`, and their
//!   `Debug` never shows the value, so printing one by mistake does not
//!   compile (`Display`) or prints nothing secret (`Debug`). The value is
//!   read only through [`ExposeSecret::expose_secret`], at the place that
//!   sends it.
//! - **Masking by value**, the way CI systems mask their logs. A [`Masker`]
//!   is built from the secret values of a configuration (every env value,
//!   header value, URL userinfo and query value, and every argument that
//!   follows a token-like flag or looks like a credential). Every text that
//!   came from outside (a server's stderr, an error message, a tool result,
//!   an HTTP library's error text) passes through it before it is shown,
//!   logged, traced or stored; each occurrence of a secret becomes `***`.
//!   Values shorter than [`MIN_MASKED_LEN`] characters are not masked (they
//!   would mask ordinary words), and neither is text that holds no secret:
//!   it passes through unchanged and uncopied.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use aho_corasick::{AhoCorasick, MatchKind};
use mcpdisco_protocol::{ErrorObject, RawJson};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

pub use secrecy::{ExposeSecret, SecretString};

/// What a secret is replaced with.
pub const MASK: &str = "***";

/// Values shorter than this many characters are not masked.
pub const MIN_MASKED_LEN: usize = 6;

/// Prefixes of well-known credential formats (GitHub, OpenAI and Anthropic,
/// Slack, GitLab, AWS, Google, Hugging Face, npm, PyPI, Stripe, JWTs).
const CREDENTIAL_PREFIXES: &[&str] = &[
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "pk_live_",
    "xoxa-",
    "xoxb-",
    "xoxp-",
    "xoxr-",
    "xoxs-",
    "xapp-",
    "glpat-",
    "AKIA",
    "ASIA",
    "AIza",
    "ya29.",
    "hf_",
    "npm_",
    "pypi-",
    "eyJ",
];

#[cfg(feature = "url")]
/// A URL that may carry credentials (userinfo, query tokens). `Debug` shows
/// it with those masked ([`redact_url`]); the whole URL is read only through
/// [`expose_secret`](Self::expose_secret).
#[derive(Clone)]
pub struct SecretUrl {
    url: SecretString,
    shown: Arc<str>,
}

#[cfg(feature = "url")]
impl SecretUrl {
    /// Wraps `url`.
    pub fn new(url: impl Into<String>) -> Self {
        let url: String = url.into();
        let shown = redact_url(&url).into();
        Self {
            url: url.into(),
            shown,
        }
    }

    /// The whole URL, credentials included: only for the place that connects.
    pub fn expose_secret(&self) -> &str {
        self.url.expose_secret()
    }

    /// The URL as safe to show: userinfo and secret query values as `***`.
    pub fn redacted(&self) -> &str {
        &self.shown
    }
}

#[cfg(feature = "url")]
impl fmt::Debug for SecretUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SecretUrl").field(&self.shown).finish()
    }
}

#[cfg(feature = "url")]
impl PartialEq for SecretUrl {
    fn eq(&self, other: &Self) -> bool {
        self.expose_secret() == other.expose_secret()
    }
}

#[cfg(feature = "url")]
impl Eq for SecretUrl {}

#[cfg(feature = "url")]
impl From<&str> for SecretUrl {
    fn from(url: &str) -> Self {
        Self::new(url)
    }
}

#[cfg(feature = "url")]
impl From<&String> for SecretUrl {
    fn from(url: &String) -> Self {
        Self::new(url.as_str())
    }
}

#[cfg(feature = "url")]
impl From<String> for SecretUrl {
    fn from(url: String) -> Self {
        Self::new(url)
    }
}

/// Whether a parameter, header, variable or flag name suggests its value is a secret.
pub fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "token",
        "key",
        "secret",
        "password",
        "passwd",
        "auth",
        "sig",
        "credential",
        "cookie",
        "session",
    ]
    .iter()
    .any(|word| name.contains(word))
}

/// Whether a value looks like a credential whatever its name: a known
/// prefix (`ghp_`, `sk-`, `xoxb-`, `AKIA`, a JWT's `eyJ`, ...) followed by
/// enough token characters, a long hex string, or a long string of mixed
/// letters and digits with the character spread of a random token. Paths,
/// URLs, package specifiers and words do not count.
pub fn looks_like_credential(value: &str) -> bool {
    let is_token_char =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | '/' | '=');
    if value.chars().count() < MIN_MASKED_LEN || !value.chars().all(is_token_char) {
        return false;
    }
    if CREDENTIAL_PREFIXES
        .iter()
        .any(|prefix| value.starts_with(prefix) && value.len() >= prefix.len() + 8)
    {
        return true;
    }
    if value.starts_with(['-', '/', '.']) || value.contains("//") {
        return false;
    }
    if value.len() >= 32 && value.chars().all(|c| c.is_ascii_hexdigit()) {
        return true;
    }
    let letters = value.chars().filter(char::is_ascii_alphabetic).count();
    let digits = value.chars().filter(char::is_ascii_digit).count();
    value.len() >= 24 && letters >= 4 && digits >= 2 && shannon_entropy(value) >= 4.0
}

/// Bits of entropy per character of `text`'s character distribution.
fn shannon_entropy(text: &str) -> f64 {
    let mut counts = [0u32; 256];
    for byte in text.bytes() {
        counts[usize::from(byte)] += 1;
    }
    let len = text.len() as f64;
    counts
        .iter()
        .filter(|&&count| count > 0)
        .map(|&count| {
            let p = f64::from(count) / len;
            -p * p.log2()
        })
        .sum()
}

#[cfg(feature = "url")]
/// Replaces the userinfo of a URL, and the values of query parameters that
/// look secret (a secret-looking name, or a value of [`MIN_MASKED_LEN`]
/// characters or more), with `***`. A string that is not a URL shows as
/// `<invalid URL>`.
pub fn redact_url(raw: &str) -> String {
    let Ok(mut url) = url::Url::parse(raw) else {
        return "<invalid URL>".to_owned();
    };
    if !url.username().is_empty() || url.password().is_some() {
        let _ = url.set_username(MASK);
        let _ = url.set_password(None);
    }
    let hide =
        |name: &str, value: &str| is_secret_name(name) || value.chars().count() >= MIN_MASKED_LEN;
    if url.query_pairs().any(|(name, value)| hide(&name, &value)) {
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(name, value)| {
                let value = if hide(&name, &value) {
                    MASK.to_owned()
                } else {
                    value.into_owned()
                };
                (name.into_owned(), value)
            })
            .collect();
        url.query_pairs_mut().clear().extend_pairs(pairs);
    }
    url.to_string()
}

/// Takes known secret values out of text: each occurrence becomes `***`.
///
/// Cheap to clone (shared). The default masker knows no secret and returns
/// every text unchanged. Besides each value as given, it also finds the value
/// as it appears percent-encoded (in a URL a server echoes) and JSON-escaped
/// (in a JSON document a server echoes).
#[derive(Clone, Default)]
pub struct Masker {
    inner: Option<Arc<Compiled>>,
}

struct Compiled {
    /// The secret values (not their variants), for [`Masker::union`].
    secrets: Vec<String>,
    matcher: Matcher,
    /// The longest pattern, in bytes: how far past a cut a secret can reach.
    longest: usize,
}

enum Matcher {
    /// Every variant of every secret.
    Patterns(AhoCorasick),
    /// The patterns could not be compiled (a set too large for memory):
    /// every non-empty text is masked whole, the safe side.
    Everything,
}

impl Matcher {
    fn is_match(&self, haystack: &[u8]) -> bool {
        match self {
            Matcher::Patterns(matcher) => matcher.is_match(haystack),
            Matcher::Everything => !haystack.is_empty(),
        }
    }

    fn replace(&self, text: &str) -> String {
        match self {
            Matcher::Patterns(matcher) => {
                let mut masked = String::with_capacity(text.len());
                matcher.replace_all_with(text, &mut masked, |_, _, out| {
                    out.push_str(MASK);
                    true
                });
                masked
            }
            Matcher::Everything => MASK.to_owned(),
        }
    }
}

impl fmt::Debug for Masker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Masker")
            .field(
                "secrets",
                &self.inner.as_ref().map_or(0, |c| c.secrets.len()),
            )
            .finish()
    }
}

impl Masker {
    /// A masker for `secrets`; values shorter than [`MIN_MASKED_LEN`] characters are left out.
    pub fn new<I, S>(secrets: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut builder = MaskerBuilder::default();
        for secret in secrets {
            builder.secret(secret.as_ref());
        }
        builder.build()
    }

    /// A builder, for collecting secrets from several places.
    pub fn builder() -> MaskerBuilder {
        MaskerBuilder::default()
    }

    /// Whether this masker knows no secret (and so changes nothing).
    pub fn is_empty(&self) -> bool {
        self.inner.is_none()
    }

    /// How many secret values it knows.
    pub fn len(&self) -> usize {
        self.inner.as_ref().map_or(0, |c| c.secrets.len())
    }

    /// A masker that knows the secrets of both.
    pub fn union(&self, other: &Masker) -> Masker {
        match (&self.inner, &other.inner) {
            (None, _) => other.clone(),
            (_, None) => self.clone(),
            (Some(a), Some(b)) if Arc::ptr_eq(a, b) => self.clone(),
            (Some(a), Some(b)) => Masker::new(a.secrets.iter().chain(&b.secrets)),
        }
    }

    /// The longest text a known secret can occupy (in any of its encodings),
    /// in bytes: keep this much past a cut, mask, then cut, and no secret
    /// straddling the cut shows its start.
    pub fn longest_secret(&self) -> usize {
        self.inner.as_ref().map_or(0, |c| c.longest)
    }

    /// The first `limit` bytes (at a character boundary) of `text`, masked:
    /// masked before the cut, so a secret across it never shows its start.
    pub fn mask_prefix(&self, text: &str, limit: usize) -> String {
        let mut end = text.len().min(limit.saturating_add(self.longest_secret()));
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let masked = self.mask(&text[..end]);
        let mut cut = masked.len().min(limit);
        while !masked.is_char_boundary(cut) {
            cut -= 1;
        }
        masked[..cut].to_owned()
    }

    /// Whether `text` holds a known secret.
    pub fn finds_secret_in(&self, text: &str) -> bool {
        self.inner
            .as_ref()
            .is_some_and(|c| c.matcher.is_match(text.as_bytes()))
    }

    /// `text` with every known secret replaced by `***`; borrowed when there is none.
    pub fn mask<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match &self.inner {
            Some(compiled) if compiled.matcher.is_match(text.as_bytes()) => {
                Cow::Owned(compiled.matcher.replace(text))
            }
            _ => Cow::Borrowed(text),
        }
    }

    /// Like [`mask`](Self::mask), for an owned string (no copy when there is nothing to mask).
    pub fn mask_string(&self, text: String) -> String {
        match self.mask(&text) {
            Cow::Borrowed(_) => text,
            Cow::Owned(masked) => masked,
        }
    }

    /// Masks every string (and object key) inside a JSON value, in place.
    pub fn mask_value(&self, value: &mut Value) {
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(text) => {
                if self.finds_secret_in(text) {
                    *text = self.mask_string(std::mem::take(text));
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.mask_value(item)),
            Value::Object(object) => {
                if object.keys().any(|key| self.finds_secret_in(key)) {
                    let entries = std::mem::take(object);
                    for (key, mut item) in entries {
                        self.mask_value(&mut item);
                        object.insert(self.mask_string(key), item);
                    }
                } else {
                    object.values_mut().for_each(|item| self.mask_value(item));
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// A server's JSON-RPC error with its message and data masked.
    pub fn mask_error_object(&self, mut error: ErrorObject) -> ErrorObject {
        if self.is_empty() {
            return error;
        }
        error.message = self.mask_string(error.message);
        if let Some(data) = &mut error.data {
            self.mask_value(data);
        }
        error
    }

    /// Whether a JSON text holds a known secret, in its raw bytes or inside
    /// a string once its escapes are read (`\/`, `\u00e9`: escapes any
    /// JSON writer may use). Only strings that have escapes are decoded.
    pub fn finds_secret_in_json(&self, text: &str) -> bool {
        let Some(compiled) = &self.inner else {
            return false;
        };
        if compiled.matcher.is_match(text.as_bytes()) {
            return true;
        }
        text.contains('\\') && in_escaped_strings(compiled, text)
    }

    /// [`finds_secret_in_json`](Self::finds_secret_in_json) for bytes known
    /// to be UTF-8 JSON: decoded as text only when it holds an escape.
    fn finds_secret_in_json_bytes(&self, text: &[u8]) -> bool {
        let Some(compiled) = &self.inner else {
            return false;
        };
        if compiled.matcher.is_match(text) {
            return true;
        }
        memchr::memchr(b'\\', text).is_some()
            && std::str::from_utf8(text).is_ok_and(|text| in_escaped_strings(compiled, text))
    }

    /// A JSON text, as text, with every known secret masked (see
    /// [`mask_json`](Self::mask_json)); text that is not JSON is masked as text.
    pub fn mask_json_text(&self, text: &str) -> String {
        if !self.finds_secret_in_json(text) {
            return text.to_owned();
        }
        match serde_json::from_str::<Value>(text) {
            Ok(mut value) => {
                self.mask_value(&mut value);
                value.to_string()
            }
            Err(_) => self.mask(text).into_owned(),
        }
    }

    /// A JSON text with every known secret inside its strings masked. Text
    /// without a secret comes back as the same bytes (no copy); one with a
    /// secret (also when a JSON escape spells it, as in `\/`) is parsed,
    /// masked string by string, and written again.
    pub fn mask_json(&self, raw: &RawJson) -> RawJson {
        // Read as bytes: the text is known to be UTF-8, and may be megabytes.
        if !self.finds_secret_in_json_bytes(raw.as_bytes()) {
            return raw.clone();
        }
        match raw.to_value() {
            Ok(mut value) => {
                self.mask_value(&mut value);
                RawJson::from(value)
            }
            // A RawJson is valid JSON; this cannot happen, but never let the secret through.
            Err(_) => RawJson::from(Value::String(MASK.to_owned())),
        }
    }
}

/// Whether a string literal of `text` that holds an escape spells a secret once decoded.
fn in_escaped_strings(compiled: &Compiled, text: &str) -> bool {
    escaped_strings(text).any(|literal| {
        serde_json::from_str::<String>(literal)
            .is_ok_and(|decoded| compiled.matcher.is_match(decoded.as_bytes()))
    })
}

/// Collects secret values for a [`Masker`].
#[derive(Debug, Default)]
pub struct MaskerBuilder {
    secrets: Vec<String>,
}

impl MaskerBuilder {
    /// Adds a secret value (ignored when shorter than [`MIN_MASKED_LEN`] characters).
    pub fn secret(&mut self, value: &str) -> &mut Self {
        let value = value.trim();
        if value.chars().count() >= MIN_MASKED_LEN && !self.secrets.iter().any(|s| s == value) {
            self.secrets.push(value.to_owned());
        }
        self
    }

    /// Adds every secret another masker knows.
    pub fn masker(&mut self, other: &Masker) -> &mut Self {
        if let Some(compiled) = &other.inner {
            for secret in &compiled.secrets {
                self.secret(secret);
            }
        }
        self
    }

    #[cfg(feature = "url")]
    /// Adds the secrets of a URL: its userinfo (user and password) and every query value.
    pub fn url(&mut self, raw: &str) -> &mut Self {
        match url::Url::parse(raw) {
            Ok(url) => {
                let user = percent_decode(url.username());
                self.secret(&user);
                if let Some(password) = url.password() {
                    self.secret(&percent_decode(password));
                }
                for (_, value) in url.query_pairs() {
                    self.secret(&value);
                }
            }
            // Not a URL: all of it may be a secret.
            Err(_) => {
                self.secret(raw);
            }
        }
        self
    }

    /// Adds the secrets of a command line: every argument that follows a
    /// token-like flag (`--token X`, `--api-key X`), the value of one
    /// (`--password=X`, `API_KEY=X`), and every argument that looks like a
    /// credential ([`looks_like_credential`]).
    pub fn args<S: AsRef<str>>(&mut self, args: &[S]) -> &mut Self {
        let mut after_flag = false;
        for arg in args {
            let arg = arg.as_ref();
            if after_flag {
                self.secret(arg);
                after_flag = false;
                continue;
            }
            if let Some((name, value)) = arg.split_once('=') {
                if is_secret_name(name) || looks_like_credential(value) {
                    self.secret(value);
                }
            } else if arg.starts_with('-') && is_secret_name(arg) {
                after_flag = true;
            } else if looks_like_credential(arg) {
                self.secret(arg);
            }
        }
        self
    }

    /// The masker.
    pub fn build(&self) -> Masker {
        if self.secrets.is_empty() {
            return Masker::default();
        }
        let mut patterns: Vec<String> = Vec::with_capacity(self.secrets.len() * 6);
        for secret in &self.secrets {
            let json = json_escaped(secret);
            for variant in [
                secret.clone(),
                percent_encode(secret),
                form_urlencoded::byte_serialize(secret.as_bytes()).collect(),
                json.replace('/', "\\/"),
                ascii_json_escaped(&json),
                json,
            ] {
                if !patterns.contains(&variant) {
                    patterns.push(variant);
                }
            }
        }
        let longest = patterns.iter().map(String::len).max().unwrap_or(0);
        let matcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .map_or(Matcher::Everything, Matcher::Patterns);
        Masker {
            inner: Some(Arc::new(Compiled {
                secrets: self.secrets.clone(),
                matcher,
                longest,
            })),
        }
    }
}

/// Every byte outside the URL-unreserved set, as `%XX`.
const NOT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

fn percent_encode(text: &str) -> String {
    utf8_percent_encode(text, NOT_UNRESERVED).to_string()
}

#[cfg(feature = "url")]
fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// The text as it appears inside a JSON string.
fn json_escaped(text: &str) -> String {
    let quoted = Value::String(text.to_owned()).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

/// A JSON-escaped text with every non-ASCII character as `\uXXXX` (what
/// ASCII-only JSON writers produce).
fn ascii_json_escaped(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

/// The string literals of a JSON text (quotes included) that hold an escape.
fn escaped_strings(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            let start = at + memchr::memchr(b'"', bytes.get(at..)?)?;
            let mut end = start + 1;
            let mut escaped = false;
            while end < bytes.len() {
                match bytes[end] {
                    b'\\' => {
                        escaped = true;
                        end += 2;
                    }
                    b'"' => break,
                    _ => end += 1,
                }
            }
            if end >= bytes.len() {
                return None;
            }
            at = end + 1;
            if escaped {
                return text.get(start..=end);
            }
        }
    })
}

#[cfg(test)]
mod tests;
