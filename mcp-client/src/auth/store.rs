//! Where tokens and client registrations live: keyed by authorization-server
//! issuer and resource, as the 2026-07-28 specification requires, so a
//! credential is never offered to another issuer or another server.
//!
//! [`FileTokenStore`] is the default: one JSON file under the user's data
//! directory, mode 0600 in a 0700 directory, replaced atomically.
//! [`MemoryTokenStore`] keeps them for one process (tests, hosts with their
//! own storage). Entries' `Debug` never shows a secret.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use hmac_sha256::Hash as Sha256;
use mcpdisco_transport::fs::AtomicWrite;
use mcpdisco_transport::sync::Mutex;
use serde::{Deserialize, Serialize};

use crate::error::AuthError;

/// A client identity at one authorization server.
#[derive(Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ClientRegistration {
    /// The client id (a URL for a Client ID Metadata Document).
    pub client_id: String,
    /// The client secret, for confidential clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// The redirect URI it was registered with (dynamic registration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
}

impl fmt::Debug for ClientRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientRegistration")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field(
                "token_endpoint_auth_method",
                &self.token_endpoint_auth_method,
            )
            .finish_non_exhaustive()
    }
}

/// Tokens granted for one resource by one issuer.
#[derive(Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TokenSet {
    /// The access token.
    pub access_token: String,
    /// `Bearer` or `DPoP`.
    #[serde(default = "bearer")]
    pub token_type: String,
    /// The refresh token, if one was granted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (or, when the server did not say, requested).
    #[serde(default)]
    pub scopes: Vec<String>,
}

fn bearer() -> String {
    "Bearer".to_owned()
}

impl TokenSet {
    /// Whether the access token expires within `margin_secs` from now.
    pub fn expires_within(&self, margin_secs: u64) -> bool {
        self.expires_at
            .is_some_and(|at| at <= now_secs().saturating_add(margin_secs))
    }
}

impl fmt::Debug for TokenSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenSet")
            .field("access_token", &"***")
            .field("token_type", &self.token_type)
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "***"))
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .finish()
    }
}

/// A private key as stored; its `Debug` shows nothing of it.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(transparent)]
pub struct PrivateKey(pub String);

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PrivateKey(***)")
    }
}

/// Everything kept for one (issuer, resource) pair.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct StoredCredentials {
    /// The server's name in the config when they were stored (for `auth status`).
    #[serde(default)]
    pub server: String,
    /// The authorization server's issuer.
    pub issuer: String,
    /// The resource, as its protected-resource metadata names it.
    pub resource: String,
    /// The MCP endpoint's URL (the resource may name a parent of it).
    #[serde(default)]
    pub url: String,
    /// The client identity used at that issuer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientRegistration>,
    /// The tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenSet>,
    /// The DPoP key DPoP-bound tokens are bound to (PKCS#8, base64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<PrivateKey>,
    /// When they were last stored, in seconds since the Unix epoch.
    #[serde(default)]
    pub updated_at: u64,
}

impl StoredCredentials {
    /// Whether this entry is for `resource` (its identifier or its endpoint URL).
    pub fn names(&self, resource: &str) -> bool {
        self.resource == resource || self.url == resource
    }

    /// The key of an (issuer, resource) pair: a hash, so no file name or map
    /// key shows either in clear.
    pub fn key(issuer: &str, resource: &str) -> String {
        let mut hash = Sha256::new();
        hash.update(issuer.as_bytes());
        hash.update([0u8]);
        hash.update(resource.as_bytes());
        hex::encode(&hash.finalize()[..16])
    }
}

/// Seconds since the Unix epoch (how stored expiries are written).
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// Where credentials are kept. Implement it to keep them elsewhere (an OS
/// keyring, a host's own vault).
pub trait TokenStore: Send + Sync + fmt::Debug {
    /// The credentials for `resource` from `issuer`.
    fn load(&self, issuer: &str, resource: &str) -> Result<Option<StoredCredentials>, AuthError>;
    /// Every stored entry for `resource` (the resource identifier, or the
    /// endpoint URL), newest first: the issuer is not known before
    /// discovery; a stored entry names it.
    fn for_resource(&self, resource: &str) -> Result<Vec<StoredCredentials>, AuthError> {
        let mut entries: Vec<_> = self
            .list()?
            .into_iter()
            .filter(|entry| entry.names(resource))
            .collect();
        entries.sort_by_key(|entry| std::cmp::Reverse(entry.updated_at));
        Ok(entries)
    }
    /// Stores (replaces) one entry.
    fn save(&self, credentials: &StoredCredentials) -> Result<(), AuthError>;
    /// Removes every entry for `resource` (identifier or endpoint URL); how many there were.
    fn remove_resource(&self, resource: &str) -> Result<usize, AuthError>;
    /// Every entry.
    fn list(&self) -> Result<Vec<StoredCredentials>, AuthError>;
}

/// Credentials for the life of the process.
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    entries: Mutex<BTreeMap<String, StoredCredentials>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, issuer: &str, resource: &str) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self
            .entries
            .lock()
            .get(&StoredCredentials::key(issuer, resource))
            .cloned())
    }

    fn save(&self, credentials: &StoredCredentials) -> Result<(), AuthError> {
        let mut entry = credentials.clone();
        entry.updated_at = now_secs();
        self.entries.lock().insert(
            StoredCredentials::key(&entry.issuer, &entry.resource),
            entry,
        );
        Ok(())
    }

    fn remove_resource(&self, resource: &str) -> Result<usize, AuthError> {
        let mut entries = self.entries.lock();
        let before = entries.len();
        entries.retain(|_, entry| !entry.names(resource));
        Ok(before - entries.len())
    }

    fn list(&self) -> Result<Vec<StoredCredentials>, AuthError> {
        Ok(self.entries.lock().values().cloned().collect())
    }
}

/// Credentials in one JSON file (0600, in a 0700 directory), replaced
/// atomically on every change.
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    /// Serializes this process's read-modify-write cycles.
    lock: Mutex<()>,
}

/// The file's shape.
#[derive(Debug, Default, Serialize, Deserialize)]
struct StoreFile {
    version: u32,
    #[serde(default)]
    entries: BTreeMap<String, StoredCredentials>,
}

impl FileTokenStore {
    /// A store at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    /// The default location: `<data dir>/mcp-discovery/credentials.json`
    /// (`MCP_DISCOVERY_CREDENTIALS` overrides it).
    pub fn default_path() -> Option<PathBuf> {
        if let Some(path) = std::env::var_os("MCP_DISCOVERY_CREDENTIALS") {
            return Some(PathBuf::from(path));
        }
        dirs::data_dir().map(|dir| dir.join("mcp-discovery").join("credentials.json"))
    }

    /// The store at the default location.
    pub fn open_default() -> Result<Self, AuthError> {
        Self::default_path()
            .map(Self::new)
            .ok_or_else(|| AuthError::Store {
                reason: "no data directory for this user".into(),
            })
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, what: &str, error: impl fmt::Display) -> AuthError {
        AuthError::Store {
            reason: format!("{what} {}: {error}", self.path.display()),
        }
    }

    fn read(&self) -> Result<StoreFile, AuthError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| self.error("cannot read", e)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(StoreFile::default()),
            Err(error) => Err(self.error("cannot read", error)),
        }
    }

    /// Runs a read-modify-write under an exclusive lock on `<file>.lock`, so
    /// two processes saving at once do not lose each other's entries.
    fn exclusively<T>(&self, work: impl FnOnce() -> Result<T, AuthError>) -> Result<T, AuthError> {
        let dir = self
            .path
            .parent()
            .ok_or_else(|| self.error("no directory for", "the path has no parent"))?;
        create_private_dir(dir).map_err(|e| self.error("cannot create the directory of", e))?;
        let mut lock_path = self.path.clone().into_os_string();
        lock_path.push(".lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| self.error("cannot open the lock of", e))?;
        let _ = set_private(&file);
        let mut lock = fd_lock::RwLock::new(file);
        let _held = lock.write().map_err(|e| self.error("cannot lock", e))?;
        work()
    }

    fn write(&self, file: &StoreFile) -> Result<(), AuthError> {
        let dir = self
            .path
            .parent()
            .ok_or_else(|| self.error("no directory for", "the path has no parent"))?;
        create_private_dir(dir).map_err(|e| self.error("cannot create the directory of", e))?;
        let bytes = serde_json::to_vec_pretty(file).map_err(|e| self.error("cannot encode", e))?;
        // Mode 0600, flushed to the disk before it replaces the old file.
        AtomicWrite::new()
            .sync()
            .write(&self.path, &bytes)
            .map_err(|e| self.error("cannot write", e))
    }
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(unix)]
fn set_private(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))
}

#[cfg(not(unix))]
fn set_private(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

impl TokenStore for FileTokenStore {
    fn load(&self, issuer: &str, resource: &str) -> Result<Option<StoredCredentials>, AuthError> {
        let _guard = self.lock.lock();
        Ok(self
            .read()?
            .entries
            .remove(&StoredCredentials::key(issuer, resource)))
    }

    fn save(&self, credentials: &StoredCredentials) -> Result<(), AuthError> {
        let _guard = self.lock.lock();
        self.exclusively(|| {
            let mut file = self.read()?;
            file.version = 1;
            let mut entry = credentials.clone();
            entry.updated_at = now_secs();
            file.entries.insert(
                StoredCredentials::key(&entry.issuer, &entry.resource),
                entry,
            );
            self.write(&file)
        })
    }

    fn remove_resource(&self, resource: &str) -> Result<usize, AuthError> {
        let _guard = self.lock.lock();
        self.exclusively(|| {
            let mut file = self.read()?;
            let before = file.entries.len();
            file.entries.retain(|_, entry| !entry.names(resource));
            let removed = before - file.entries.len();
            if removed > 0 {
                self.write(&file)?;
            }
            Ok(removed)
        })
    }

    fn list(&self) -> Result<Vec<StoredCredentials>, AuthError> {
        let _guard = self.lock.lock();
        Ok(self.read()?.entries.into_values().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(issuer: &str, resource: &str, token: &str) -> StoredCredentials {
        StoredCredentials {
            server: "s".into(),
            issuer: issuer.into(),
            resource: resource.into(),
            url: String::new(),
            dpop_key: Some(PrivateKey("dpop-private-key-material".into())),
            client: Some(ClientRegistration {
                client_id: "id".into(),
                client_secret: Some("client-secret-value".into()),
                ..Default::default()
            }),
            tokens: Some(TokenSet {
                access_token: token.into(),
                token_type: "Bearer".into(),
                refresh_token: Some("refresh-secret".into()),
                expires_at: Some(now_secs() + 3600),
                scopes: vec!["a".into()],
            }),
            updated_at: 0,
        }
    }

    #[test]
    fn file_store_round_trips_privately_and_keys_by_issuer_and_resource() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTokenStore::new(dir.path().join("sub").join("credentials.json"));
        store
            .save(&entry("https://as1", "https://mcp/x", "token-one"))
            .unwrap();
        store
            .save(&entry("https://as2", "https://mcp/x", "token-two"))
            .unwrap();
        store
            .save(&entry("https://as1", "https://other", "token-three"))
            .unwrap();
        let loaded = store.load("https://as2", "https://mcp/x").unwrap().unwrap();
        assert_eq!(loaded.tokens.unwrap().access_token, "token-two");
        assert_eq!(store.for_resource("https://mcp/x").unwrap().len(), 2);
        let text = std::fs::read_to_string(store.path()).unwrap();
        assert!(!text.contains("\"https://as1\":"), "keys are hashes");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(store.path())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
            let dir_mode = std::fs::metadata(store.path().parent().unwrap())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(dir_mode & 0o777, 0o700);
        }
        assert_eq!(store.remove_resource("https://mcp/x").unwrap(), 2);
        assert_eq!(store.list().unwrap().len(), 1);
    }

    #[test]
    fn stores_on_one_file_never_lose_each_others_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("credentials.json");
        let writers: Vec<_> = (0..4)
            .map(|writer| {
                let path = path.clone();
                std::thread::spawn(move || {
                    // Each thread its own store: as separate processes would be.
                    let store = FileTokenStore::new(path);
                    for n in 0..10 {
                        store
                            .save(&entry(
                                "https://as",
                                &format!("https://r/{writer}/{n}"),
                                "t",
                            ))
                            .unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        assert_eq!(FileTokenStore::new(&path).list().unwrap().len(), 40);
    }

    #[test]
    fn debug_shows_no_secret() {
        let text = format!("{:?}", entry("https://as", "https://r", "access-secret"));
        assert!(!text.contains("access-secret"));
        assert!(!text.contains("refresh-secret"));
        assert!(!text.contains("client-secret-value"));
        assert!(!text.contains("dpop-private-key-material"));
    }

    #[test]
    fn expiry_margin() {
        let mut tokens = TokenSet {
            expires_at: Some(now_secs() + 30),
            ..Default::default()
        };
        assert!(tokens.expires_within(60));
        assert!(!tokens.expires_within(10));
        tokens.expires_at = None;
        assert!(!tokens.expires_within(60));
    }
}
