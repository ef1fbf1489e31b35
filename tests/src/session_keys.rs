//! A `--session-keys` file for `serve --http` replicas in tests.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Writes `keys` (sealing key first) to `path` at once, through a rename,
/// readable by its owner only, as `serve` requires.
pub fn write_session_keys(path: &Path, keys: &[&str]) {
    let staged = path.with_extension("new");
    std::fs::write(
        &staged,
        format!("# sealing key first\n{}\n", keys.join("\n")),
    )
    .unwrap();
    std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::rename(&staged, path).unwrap();
}
