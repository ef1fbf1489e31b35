//! Unpacking a verified `mcpb` bundle (a zip archive with a `manifest.json`),
//! and the config entry its manifest gives.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::resolved::PendingBundle;
use crate::config::ServerEntry;

/// The most files a bundle may hold.
const MAX_FILES: usize = 20_000;
/// The most bytes a bundle may unpack to.
const MAX_UNPACKED: u64 = 1024 * 1024 * 1024;

/// Unpacks `bytes` into `target` (through a temporary folder in `dir`, renamed
/// into place). Entries that would land outside the folder are refused.
pub(super) fn unpack(bytes: &[u8], dir: &Path, target: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|error| format!("{}: {error}", dir.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".bundle-")
        .tempdir_in(dir)
        .map_err(|error| format!("{}: {error}", dir.display()))?;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|error| format!("not a zip archive: {error}"))?;
    if archive.len() > MAX_FILES {
        return Err(format!("more than {MAX_FILES} files"));
    }
    let mut total = 0u64;
    for index in 0..archive.len() {
        let mut file = archive
            .by_index(index)
            .map_err(|error| format!("entry {index}: {error}"))?;
        let Some(relative) = file.enclosed_name() else {
            return Err(format!(
                "entry '{}' leaves the bundle's folder",
                file.name()
            ));
        };
        let path = staging.path().join(relative);
        if file.is_dir() {
            std::fs::create_dir_all(&path)
                .map_err(|error| format!("{}: {error}", path.display()))?;
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|error| format!("{}: {error}", parent.display()))?;
        }
        let mut content = Vec::new();
        let limit = MAX_UNPACKED.saturating_sub(total) + 1;
        (&mut file)
            .take(limit)
            .read_to_end(&mut content)
            .map_err(|error| format!("{}: {error}", file.name()))?;
        total += content.len() as u64;
        if total > MAX_UNPACKED {
            return Err(format!("unpacks to more than {MAX_UNPACKED} bytes"));
        }
        std::fs::write(&path, &content).map_err(|error| format!("{}: {error}", path.display()))?;
        #[cfg(unix)]
        if let Some(mode) = file.unix_mode() {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode & 0o755));
        }
    }
    if !staging.path().join("manifest.json").is_file() {
        return Err("the bundle has no manifest.json".into());
    }
    let staged = staging.keep();
    std::fs::rename(&staged, target).map_err(|error| {
        let _ = std::fs::remove_dir_all(&staged);
        format!("{}: {error}", target.display())
    })?;
    Ok(target.to_owned())
}

/// The entry of `bundle`, unpacked and verified in `bundle_dir`: its
/// `manifest.json`'s `server.mcp_config` (`command`, `args`, `env`),
/// `${__dirname}` being the bundle's folder, which is also the working
/// folder; the environment the registry asks for is added to the manifest's.
pub(super) fn manifest_entry(
    bundle: &PendingBundle,
    bundle_dir: &Path,
) -> Result<ServerEntry, String> {
    let manifest_path = bundle_dir.join("manifest.json");
    let text = std::fs::read_to_string(&manifest_path)
        .map_err(|error| format!("{}: {error}", manifest_path.display()))?;
    let manifest: Value = serde_json::from_str(&text)
        .map_err(|error| format!("{}: {error}", manifest_path.display()))?;
    let config = manifest
        .get("server")
        .and_then(|server| server.get("mcp_config"))
        .ok_or_else(|| format!("{}: no server.mcp_config", manifest_path.display()))?;
    let dir = bundle_dir.display().to_string();
    let fill = |text: &str| text.replace("${__dirname}", &dir);
    let command = config
        .get("command")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            format!(
                "{}: server.mcp_config has no command",
                manifest_path.display()
            )
        })?;
    let args: Vec<String> = config
        .get("args")
        .and_then(Value::as_array)
        .map(|args| args.iter().filter_map(Value::as_str).map(fill).collect())
        .unwrap_or_default();
    let mut entry = ServerEntry::stdio(fill(command), args).with_cwd(dir.clone());
    if let Some(Value::Object(own)) = config.get("env") {
        for (name, value) in own {
            if let Some(value) = value.as_str() {
                entry = entry.with_env(name.clone(), fill(value));
            }
        }
    }
    for (name, value) in &bundle.env {
        entry = entry.with_env(name.clone(), value.clone());
    }
    entry.description.clone_from(&bundle.description);
    Ok(entry)
}
