//! Unpacking a verified `mcpb` bundle (a zip archive with a `manifest.json`).

use std::io::Read;
use std::path::{Path, PathBuf};

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
